#pragma once
#include "CoreMinimal.h"
struct FFileHelper {
    enum class EEncodingOptions { AutoDetect, ForceAnsi, ForceUnicode, ForceUTF8, ForceUTF8WithoutBOM };
    static bool LoadFileToString(FString&, const TCHAR*, uint32 = 0) { return false; }
    static bool SaveStringToFile(const FString&, const TCHAR*, EEncodingOptions = EEncodingOptions::AutoDetect) { return false; }
};
