// The secmo AnimGraph node: helper-bone springs, constraints, correctives,
// tails and hair on the pose that reaches it. Engine-facing code only: the
// pose bridging and all solving live in secmo.hpp and the secmo library.
#pragma once

#include "CoreMinimal.h"
#include "BoneControllers/AnimNode_SkeletalControlBase.h"
#include "SecmoRigAsset.h"
#include "secmo.hpp"
#include "AnimNode_Secmo.generated.h"

USTRUCT(BlueprintInternalUseOnly)
struct SECMORUNTIME_API FAnimNode_Secmo : public FAnimNode_SkeletalControlBase
{
	GENERATED_BODY()

	/** The rig settings: which bones move and how (docs/settings.md). */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TObjectPtr<USecmoRigAsset> RigAsset = nullptr;

	/** Wind and other external acceleration on the chains, cm/s² in world space. */
	UPROPERTY(EditAnywhere, Category = "Secmo", meta = (PinHiddenByDefault))
	FVector Wind = FVector::ZeroVector;

	/** Chain LOD importance (see the chains' lod thresholds); 1 = full. */
	UPROPERTY(EditAnywhere, Category = "Secmo", meta = (PinHiddenByDefault, ClampMin = "0.0"))
	float Importance = 1.0f;

	/** Teleport when the component moves farther than the chains' thresholds in one frame (always on in secmo). */
	UPROPERTY(VisibleAnywhere, Category = "Secmo")
	bool bAutomaticTeleport = true;

	// FAnimNode_Base
	virtual void Initialize_AnyThread(const FAnimationInitializeContext& Context) override;
	virtual void GatherDebugData(FNodeDebugData& DebugData) override;
	virtual void ResetDynamics(ETeleportType InTeleportType) override;

	// FAnimNode_SkeletalControlBase
	virtual void UpdateInternal(const FAnimationUpdateContext& Context) override;
	virtual void EvaluateSkeletalControl_AnyThread(FComponentSpacePoseContext& Output, TArray<FBoneTransform>& OutBoneTransforms) override;
	virtual bool IsValidToEvaluate(const USkeleton* Skeleton, const FBoneContainer& RequiredBones) override;

	/** Debug lines and spheres of the last evaluation (editor drawing). Game thread, after evaluation. */
	void GetDebugDraw(TArray<SecmoDebugLine>& OutLines, TArray<SecmoDebugSphere>& OutSpheres) const;

private:
	// FAnimNode_SkeletalControlBase
	virtual void InitializeBoneReferences(const FBoneContainer& RequiredBones) override;

	secmo::Rig Rig;
	secmo::Character Character;

	/** Compact pose index of each secmo bone (secmo bone i = Compact[i]). */
	TArray<FCompactPoseBoneIndex> Compact;
	TArray<int32> Parents;
	/** Preallocated per-frame buffers: nothing is allocated while evaluating. */
	TArray<SecmoTransform> ComponentSpaceIn;
	TArray<SecmoTransform> LocalPose;
	TArray<SecmoTransform> SolvedPose;
	TArray<SecmoTransform> SolvedComponent;

	float PendingDeltaTime = 0.0f;
	uint32 PendingFlags = 0;
	FString LastError;
};
