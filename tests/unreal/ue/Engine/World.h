#pragma once
#include "CoreMinimal.h"
class FSceneInterface;
class UWorld : public UObject {
public:
    FSceneInterface* Scene = nullptr;
};
