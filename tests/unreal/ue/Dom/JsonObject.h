// Model of the Json module's Dom/JsonObject.h (UE 5.4/5.5; field names are
// FStringView there, which a TEXT literal or an FString converts to), see
// CoreMinimal.h.
#pragma once
#include "CoreMinimal.h"
#include "Dom/JsonValue.h"

class FStringView {
public:
    FStringView(const TCHAR*) {}
    FStringView(const FString&) {}
};

class FJsonObject {
public:
    TMap<FString, TSharedPtr<FJsonValue>> Values;
    bool HasField(FStringView) const { return false; }
    bool TryGetStringField(FStringView, FString&) const { return false; }
    bool TryGetNumberField(FStringView, double&) const { return false; }
    bool TryGetBoolField(FStringView, bool&) const { return false; }
    bool TryGetArrayField(FStringView, const TArray<TSharedPtr<FJsonValue>>*&) const { return false; }
    bool TryGetObjectField(FStringView, const TSharedPtr<FJsonObject>*&) const { return false; }
};
