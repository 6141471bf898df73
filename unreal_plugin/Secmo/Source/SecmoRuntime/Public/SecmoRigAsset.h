// The settings of a secmo rig: the rig-settings text of docs/settings.md
// (springs, constraints, correctives, colliders, chains, bones by name).
#pragma once

#include "CoreMinimal.h"
#include "Engine/DataAsset.h"
#include "SecmoRigAsset.generated.h"

UCLASS(BlueprintType)
class SECMORUNTIME_API USecmoRigAsset : public UPrimaryDataAsset
{
	GENERATED_BODY()

public:
	/** The rig-settings text (JSON). Bone names refer to the skeleton the node runs on. */
	UPROPERTY(EditAnywhere, Category = "Secmo", meta = (MultiLine = true))
	FString Settings;

	/** Reads a rig-settings file (as written by the secmo tool) into Settings. */
	UFUNCTION(BlueprintCallable, Category = "Secmo")
	bool ImportSettingsFile(const FString& Path, FString& OutError);

	/** Writes Settings to a rig-settings file. */
	UFUNCTION(BlueprintCallable, Category = "Secmo")
	bool ExportSettingsFile(const FString& Path, FString& OutError) const;
};
