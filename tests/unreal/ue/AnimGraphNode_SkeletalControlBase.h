// Model of AnimGraph's AnimGraphNode_Base.h / AnimGraphNode_SkeletalControlBase.h
// (UE 5.4/5.5), see CoreMinimal.h.
#pragma once
#include "BoneControllers/AnimNode_SkeletalControlBase.h"

namespace ENodeTitleType { enum Type { FullTitle, MenuTitle, ListView, EditableTitle }; }
class FPrimitiveDrawInterface;
class USkeletalMeshComponent;
class FCompilerResultsLog;

class UAnimGraphNode_Base : public UObject {
public:
    virtual FText GetNodeTitle(ENodeTitleType::Type) const { return FText(); }
    virtual FText GetTooltipText() const { return FText(); }
    virtual FString GetNodeCategory() const { return FString(); }
    template <typename NodeType> NodeType* GetActiveInstanceNode(UObject*) const { return nullptr; }
    virtual void ValidateAnimNodeDuringCompilation(USkeleton*, FCompilerResultsLog&) {}
};

class UAnimGraphNode_SkeletalControlBase : public UAnimGraphNode_Base {
public:
    virtual void Draw(FPrimitiveDrawInterface*, USkeletalMeshComponent*) const {}
protected:
    virtual FText GetControllerDescription() const { return FText(); }
    virtual const FAnimNode_SkeletalControlBase* GetNode() const { return nullptr; }
};
