#pragma once
#include "CoreMinimal.h"
class UDataAsset : public UObject {};
class UPrimaryDataAsset : public UDataAsset {};
