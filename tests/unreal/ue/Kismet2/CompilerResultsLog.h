// Model of UnrealEd's Kismet2/CompilerResultsLog.h (UE 5.4/5.5), see
// CoreMinimal.h: the compiler log an AnimGraph node reports to while the
// blueprint compiles; "@@" in a message is replaced by a link to the node.
#pragma once
#include "CoreMinimal.h"

class FCompilerResultsLog {
public:
    template <typename... ArgTypes> void Error(const TCHAR*, ArgTypes...) {}
    template <typename... ArgTypes> void Warning(const TCHAR*, ArgTypes...) {}
    template <typename... ArgTypes> void Note(const TCHAR*, ArgTypes...) {}
};
