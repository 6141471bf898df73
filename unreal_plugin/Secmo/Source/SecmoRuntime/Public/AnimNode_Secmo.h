// The secmo AnimGraph node: helper-bone springs, constraints, correctives,
// tails and hair on the pose that reaches it. Engine-facing code only: the
// pose bridging and all solving live in secmo.hpp and the secmo library.
#pragma once

#include "CoreMinimal.h"
#include "BoneControllers/AnimNode_SkeletalControlBase.h"
#include "SecmoRigAsset.h"
#include "secmo.hpp"
#include "AnimNode_Secmo.generated.h"

/**
 * The node's secmo handles. UnrealHeaderTool copies a USTRUCT with its
 * operator= (each anim instance copies its nodes from the class defaults),
 * and secmo::Rig / secmo::Character are move-only: a copy of this holder is
 * empty, so no two nodes ever share a character; the copy builds its own in
 * InitializeBoneReferences.
 */
struct FSecmoNodeRuntime
{
	secmo::Rig Rig;
	secmo::Character Character;

	FSecmoNodeRuntime() = default;
	FSecmoNodeRuntime(const FSecmoNodeRuntime&) {}
	FSecmoNodeRuntime& operator=(const FSecmoNodeRuntime& Other)
	{
		if (this != &Other)
		{
			Character.reset();
			Rig.reset();
		}
		return *this;
	}
	FSecmoNodeRuntime(FSecmoNodeRuntime&&) = default;
	FSecmoNodeRuntime& operator=(FSecmoNodeRuntime&&) = default;
};

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

	/** Add the level's wind (WindDirectionalSource components) to Wind: speed (cm/s) along its direction, times WindSourceScale. */
	UPROPERTY(EditAnywhere, Category = "Secmo|Wind")
	bool bUseWindSources = false;

	/** Acceleration per unit of wind speed, 1/s (cm/s² of chain acceleration per cm/s of wind). */
	UPROPERTY(EditAnywhere, Category = "Secmo|Wind", meta = (EditCondition = "bUseWindSources", ClampMin = "0.0", ClampMax = "100.0"))
	float WindSourceScale = 1.0f;

	/** Silent 1/60 s updates on the animated pose before the first shown frame and after a physics reset, so chains start settled. */
	UPROPERTY(EditAnywhere, Category = "Secmo", meta = (ClampMin = "0", ClampMax = "600"))
	int32 WarmUpFrames = 0;

	/** Teleport when the component moves farther than the chains' thresholds in one frame (always on in secmo). */
	UPROPERTY(VisibleAnywhere, Category = "Secmo")
	bool bAutomaticTeleport = true;

	// FAnimNode_Base
	virtual void Initialize_AnyThread(const FAnimationInitializeContext& Context) override;
	virtual void GatherDebugData(FNodeDebugData& DebugData) override;
	/** Tells the engine to call ResetDynamics on teleports (as KawaiiPhysics does). */
	virtual bool NeedsDynamicReset() const override { return true; }
	virtual void ResetDynamics(ETeleportType InTeleportType) override;

	// FAnimNode_SkeletalControlBase
	virtual void UpdateInternal(const FAnimationUpdateContext& Context) override;
	virtual void EvaluateSkeletalControl_AnyThread(FComponentSpacePoseContext& Output, TArray<FBoneTransform>& OutBoneTransforms) override;
	virtual bool IsValidToEvaluate(const USkeleton* Skeleton, const FBoneContainer& RequiredBones) override;

private:
	/** Builds the rig and the character from the mesh's reference skeleton (not one LOD's bones). */
	void BuildRig(const FReferenceSkeleton& RefSkeleton);

public:

	/**
	 * Why the rig asset's settings do not build a rig on `RefSkeleton` (the
	 * message names the field or bone), or empty when they do. The AnimGraph
	 * node reports it when the blueprint compiles. Editor-time: allocates.
	 */
	FString ValidateSettings(const FReferenceSkeleton& RefSkeleton) const;

	/** Debug lines and spheres of the last evaluation (editor drawing). Game thread, after evaluation. */
	void GetDebugDraw(TArray<SecmoDebugLine>& OutLines, TArray<SecmoDebugSphere>& OutSpheres) const;

private:
	// FAnimNode_SkeletalControlBase
	virtual void InitializeBoneReferences(const FBoneContainer& RequiredBones) override;

	FSecmoNodeRuntime Runtime;

	/** The rig's bones: those the settings name and their ancestors, in the mesh's reference skeleton order. */
	TArray<FBoneReference> Bones;
	/** Compact pose index of each secmo bone in the current LOD; invalid where the LOD strips it. */
	TArray<FCompactPoseBoneIndex> Compact;
	TArray<int32> Parents;
	/** What the rig was built from: a LOD switch with the same settings and skeleton keeps the character. */
	FString BuiltSettings;
	int32 BuiltBoneCount = -1;
	/** Preallocated per-frame buffers: nothing is allocated while evaluating. */
	TArray<SecmoTransform> ComponentSpaceIn;
	TArray<SecmoTransform> LocalPose;
	TArray<SecmoTransform> SolvedPose;
	TArray<SecmoTransform> SolvedComponent;

	/** The engine's delta times since the last evaluation, and a pending teleport (secmo::bridge::FrameClock:
	 *  a long frame simulates up to 0.25 s and keeps the motion). */
	secmo::bridge::FrameClock Clock;
	/** Warm-up updates still to run before the next shown frame. */
	int32 PendingWarmUp = 0;
	/** A teleport streak (SECMO_WARNING_TELEPORT_STREAK) was logged and has not ended. */
	bool bWarnedTeleportStreak = false;
	/**
	 * Where secmo's world frame sits in the level, in double precision: the
	 * component's position is passed relative to it, so float precision is
	 * that of the distance from it, not from the level's origin. It follows
	 * the character in 1 km steps, and secmo's world positions are shifted
	 * with each step (Character::shift_world), so the motion is continuous;
	 * the first placement is reported too, so the floor stays at its level
	 * height wherever the character spawns.
	 */
	secmo::bridge::SimulationOrigin Origin;
	FString LastError;
};
