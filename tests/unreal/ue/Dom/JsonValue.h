// Model of the Json module's Dom/JsonValue.h (UE 5.4/5.5), see CoreMinimal.h.
#pragma once
#include "CoreMinimal.h"

class FJsonObject;

class FJsonValue {
public:
    virtual ~FJsonValue() = default;
    bool TryGetString(FString&) const { return false; }
    bool TryGetNumber(double&) const { return false; }
    bool TryGetBool(bool&) const { return false; }
    bool TryGetArray(const TArray<TSharedPtr<FJsonValue>>*&) const { return false; }
    bool TryGetObject(const TSharedPtr<FJsonObject>*&) const { return false; }
    bool IsNull() const { return false; }
};
