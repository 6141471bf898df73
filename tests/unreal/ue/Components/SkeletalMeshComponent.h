#pragma once
#include "CoreMinimal.h"
class UAnimInstance : public UObject {};
class USkeletalMeshComponent : public UObject {
public:
    UAnimInstance* GetAnimInstance() const { return nullptr; }
};
