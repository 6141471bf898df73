#include "AnimGraphNode_Secmo.h"

#include "Components/SkeletalMeshComponent.h"
#include "Kismet2/CompilerResultsLog.h"
#include "SceneManagement.h"

#define LOCTEXT_NAMESPACE "SecmoEditor"

FText UAnimGraphNode_Secmo::GetControllerDescription() const
{
	return LOCTEXT("ControllerDescription", "secmo Secondary Motion");
}

FText UAnimGraphNode_Secmo::GetNodeTitle(ENodeTitleType::Type TitleType) const
{
	if (Node.RigAsset != nullptr && TitleType != ENodeTitleType::ListView && TitleType != ENodeTitleType::MenuTitle)
	{
		return FText::Format(LOCTEXT("TitleWithAsset", "{0}\n{1}"), GetControllerDescription(),
			FText::FromString(Node.RigAsset->GetName()));
	}
	return GetControllerDescription();
}

FText UAnimGraphNode_Secmo::GetTooltipText() const
{
	return LOCTEXT("Tooltip",
		"Secondary motion from secmo: helper-bone springs, rotation constraints, proximity correctives, "
		"tails and hair with colliders and a floor. The same motion at any frame rate; teleport, "
		"Alpha and LOD are honoured.");
}

FString UAnimGraphNode_Secmo::GetNodeCategory() const
{
	return TEXT("Secondary Motion");
}

void UAnimGraphNode_Secmo::ValidateAnimNodeDuringCompilation(USkeleton* ForSkeleton, FCompilerResultsLog& MessageLog)
{
	Super::ValidateAnimNodeDuringCompilation(ForSkeleton, MessageLog);
	if (Node.RigAsset == nullptr)
	{
		MessageLog.Warning(TEXT("@@ has no secmo rig asset: it passes the pose through unchanged."), this);
		return;
	}
	if (ForSkeleton == nullptr)
	{
		return;
	}
	// A misspelt bone, an unknown parameter or a value out of range is
	// reported here, with the field's path, instead of at run time.
	const FString Error = Node.ValidateSettings(ForSkeleton->GetReferenceSkeleton());
	if (!Error.IsEmpty())
	{
		MessageLog.Error(*FString::Printf(TEXT("@@: secmo rig asset %s: %s"), *Node.RigAsset->GetName(), *Error), this);
	}
}

void UAnimGraphNode_Secmo::Draw(FPrimitiveDrawInterface* PDI, USkeletalMeshComponent* PreviewSkelMeshComp) const
{
	if (!bDrawDebug || PDI == nullptr || PreviewSkelMeshComp == nullptr)
	{
		return;
	}
	const FAnimNode_Secmo* Active = GetActiveInstanceNode<FAnimNode_Secmo>(PreviewSkelMeshComp->GetAnimInstance());
	if (Active == nullptr)
	{
		return;
	}
	TArray<SecmoDebugLine> Lines;
	TArray<SecmoDebugSphere> Spheres;
	Active->GetDebugDraw(Lines, Spheres);
	auto Colour = [](uint32 Kind) {
		switch (Kind)
		{
		case SECMO_DEBUG_PARTICLE: return FLinearColor(1.0f, 0.63f, 0.0f);    // amber: secmo output
		case SECMO_DEBUG_REST_TARGET:
		case SECMO_DEBUG_REST_LINK: return FLinearColor(0.0f, 0.67f, 0.78f); // cyan: target
		case SECMO_DEBUG_CONTACT: return FLinearColor::Red;
		case SECMO_DEBUG_COLLIDER: return FLinearColor(0.3f, 0.9f, 0.3f);
		default: return FLinearColor::White;
		}
	};
	for (const SecmoDebugLine& L : Lines)
	{
		PDI->DrawLine(FVector(L.a[0], L.a[1], L.a[2]), FVector(L.b[0], L.b[1], L.b[2]), Colour(L.kind), SDPG_Foreground);
	}
	for (const SecmoDebugSphere& S : Spheres)
	{
		DrawWireSphere(PDI, FTransform(FVector(S.center[0], S.center[1], S.center[2])), Colour(S.kind), S.radius, 12, SDPG_Foreground);
	}
}

#undef LOCTEXT_NAMESPACE
