// Model of the Json module's Serialization/JsonSerializer.h (UE 5.4/5.5).
#pragma once
#include "CoreMinimal.h"
#include "Dom/JsonObject.h"
#include "Serialization/JsonReader.h"

class FJsonSerializer {
public:
    template <class CharType>
    static bool Deserialize(const TSharedRef<TJsonReader<CharType>>&, TSharedPtr<FJsonObject>&) { return false; }
};
