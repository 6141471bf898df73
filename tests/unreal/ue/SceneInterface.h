#pragma once
#include "CoreMinimal.h"
class FSceneInterface {
public:
    virtual ~FSceneInterface() = default;
    virtual void GetWindParameters(const FVector& Position, FVector& OutDirection, float& OutSpeed, float& OutMinGustAmt,
                                   float& OutMaxGustAmt) const = 0;
};
