// Model of the Json module's Serialization/JsonReader.h (UE 5.4/5.5).
#pragma once
#include "CoreMinimal.h"

template <class CharType = TCHAR> class TJsonReader {};

template <class CharType = TCHAR> class TJsonReaderFactory {
public:
    static TSharedRef<TJsonReader<CharType>> Create(const FString&) { return TSharedRef<TJsonReader<CharType>>(); }
};
