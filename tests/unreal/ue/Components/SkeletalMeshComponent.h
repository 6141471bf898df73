#pragma once
#include "CoreMinimal.h"
class UWorld;
class UAnimInstance : public UObject {};
class USkeletalMeshComponent : public UObject {
public:
    UAnimInstance* GetAnimInstance() const { return nullptr; }
    UWorld* GetWorld() const { return nullptr; }
};
