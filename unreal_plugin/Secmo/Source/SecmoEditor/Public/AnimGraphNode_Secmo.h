// The editor side of the secmo node: title, tooltip, category, and debug
// drawing of particles, rest targets, links and colliders in the viewport.
#pragma once

#include "CoreMinimal.h"
#include "AnimGraphNode_SkeletalControlBase.h"
#include "AnimNode_Secmo.h"
#include "AnimGraphNode_Secmo.generated.h"

UCLASS()
class SECMOEDITOR_API UAnimGraphNode_Secmo : public UAnimGraphNode_SkeletalControlBase
{
	GENERATED_BODY()

public:
	UPROPERTY(EditAnywhere, Category = "Settings")
	FAnimNode_Secmo Node;

	/** Draw chain particles, rest targets, links and colliders in the preview viewport. */
	UPROPERTY(EditAnywhere, Category = "Debug")
	bool bDrawDebug = true;

	// UEdGraphNode
	virtual FText GetNodeTitle(ENodeTitleType::Type TitleType) const override;
	virtual FText GetTooltipText() const override;
	virtual FString GetNodeCategory() const override;

	// UAnimGraphNode_Base
	/** Builds the rig asset's settings against the blueprint's skeleton and reports any error on the node. */
	virtual void ValidateAnimNodeDuringCompilation(USkeleton* ForSkeleton, FCompilerResultsLog& MessageLog) override;

	// UAnimGraphNode_SkeletalControlBase
	virtual void Draw(FPrimitiveDrawInterface* PDI, USkeletalMeshComponent* PreviewSkelMeshComp) const override;

protected:
	virtual FText GetControllerDescription() const override;
	virtual const FAnimNode_SkeletalControlBase* GetNode() const override { return &Node; }
};
