// Model of what UnrealHeaderTool generates for AnimGraphNode_Secmo.h: its
// GENERATED_BODY() declares `Super`, the parent class (as UHT does for every
// UCLASS).
#pragma once
#undef GENERATED_BODY
#define GENERATED_BODY() \
public:                  \
    using Super = UAnimGraphNode_SkeletalControlBase; \
private:
