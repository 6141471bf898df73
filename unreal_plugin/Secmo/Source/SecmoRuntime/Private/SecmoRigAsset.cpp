#include "SecmoRigAsset.h"

#include "Misc/FileHelper.h"

bool USecmoRigAsset::ImportSettingsFile(const FString& Path, FString& OutError)
{
	FString Text;
	if (!FFileHelper::LoadFileToString(Text, *Path))
	{
		OutError = FString::Printf(TEXT("%s: cannot read the file"), *Path);
		return false;
	}
	// A quick check of the format marker; secmo validates everything else
	// (with the field path in the message) when the node builds the rig.
	if (!Text.Contains(TEXT("\"secmo-rig-settings\"")))
	{
		OutError = FString::Printf(TEXT("%s: not a secmo rig-settings file (no \"format\": \"secmo-rig-settings\")"), *Path);
		return false;
	}
	Modify();
	Settings = MoveTemp(Text);
	return true;
}

bool USecmoRigAsset::ExportSettingsFile(const FString& Path, FString& OutError) const
{
	if (!FFileHelper::SaveStringToFile(Settings, *Path, FFileHelper::EEncodingOptions::ForceUTF8WithoutBOM))
	{
		OutError = FString::Printf(TEXT("%s: cannot write the file"), *Path);
		return false;
	}
	return true;
}
