// What UnrealHeaderTool and the engine require of the plugin's types,
// checked at compile time against the model headers (tests/unreal/ue).
#include "AnimNode_Secmo.h"

#include <type_traits>

// UHT's generated struct ops copy a USTRUCT with operator= unless
// TStructOpsTypeTraits<T>::WithCopy is false (UE's Class.h).
static_assert(std::is_copy_assignable_v<FAnimNode_Secmo> || !TStructOpsTypeTraits<FAnimNode_Secmo>::WithCopy,
              "FAnimNode_Secmo must be copy-assignable for UHT (or say WithCopy = false)");
static_assert(std::is_copy_constructible_v<FAnimNode_Secmo> || !TStructOpsTypeTraits<FAnimNode_Secmo>::WithCopy,
              "FAnimNode_Secmo must be copy-constructible for UHT");
// UHT default-constructs every USTRUCT.
static_assert(std::is_default_constructible_v<FAnimNode_Secmo>);
// A copy of the node never shares its secmo handles (each anim instance
// copies the node from the class defaults).
