#include "AnimNode_Secmo.h"

#include "Animation/AnimInstanceProxy.h"
#include "AnimationRuntime.h"

namespace
{
SecmoTransform ToSecmo(const FTransform& T)
{
	const FVector P = T.GetTranslation();
	const FQuat Q = T.GetRotation();
	const FVector S = T.GetScale3D();
	SecmoTransform Out;
	Out.translation[0] = float(P.X);
	Out.translation[1] = float(P.Y);
	Out.translation[2] = float(P.Z);
	Out.rotation[0] = float(Q.X);
	Out.rotation[1] = float(Q.Y);
	Out.rotation[2] = float(Q.Z);
	Out.rotation[3] = float(Q.W);
	Out.scale[0] = float(S.X);
	Out.scale[1] = float(S.Y);
	Out.scale[2] = float(S.Z);
	return Out;
}

/** Longest frame secmo is given; a longer gap (the mesh was not evaluated) is a teleport. */
constexpr float MaxDeltaTime = 0.1f;
/** The simulation origin moves once the component is this far from it (1 km, in cm). */
constexpr double OriginStep = 100000.0;

FTransform FromSecmo(const SecmoTransform& T)
{
	return FTransform(FQuat(T.rotation[0], T.rotation[1], T.rotation[2], T.rotation[3]),
		FVector(T.translation[0], T.translation[1], T.translation[2]),
		FVector(T.scale[0], T.scale[1], T.scale[2]));
}
} // namespace

void FAnimNode_Secmo::Initialize_AnyThread(const FAnimationInitializeContext& Context)
{
	FAnimNode_SkeletalControlBase::Initialize_AnyThread(Context);
	PendingDeltaTime = 0.0f;
	PendingFlags = 0;
}

void FAnimNode_Secmo::InitializeBoneReferences(const FBoneContainer& RequiredBones)
{
	// Rebuilt only when the required bones change (LOD switch, new mesh):
	// this is where secmo allocates; evaluation does not.
	Runtime.Character.reset();
	Runtime.Rig.reset();
	LastError.Reset();
	if (RigAsset == nullptr || RigAsset->Settings.IsEmpty())
	{
		return;
	}

	const int32 NumBones = RequiredBones.GetCompactPoseNumBones();
	const FReferenceSkeleton& RefSkeleton = RequiredBones.GetReferenceSkeleton();
	// FCompactPoseBoneIndex has no default constructor: add, don't SetNum.
	Compact.Reset(NumBones);
	Parents.SetNum(NumBones);
	TArray<SecmoTransform> Reference;
	Reference.SetNum(NumBones);
	TArray<FTCHARToUTF8> NameStorage;
	NameStorage.Reserve(NumBones);
	TArray<const char*> Names;
	Names.SetNum(NumBones);
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		const FCompactPoseBoneIndex Bone(Index);
		Compact.Add(Bone);
		Parents[Index] = RequiredBones.GetParentBoneIndex(Bone).GetInt();
		const int32 SkeletonIndex = RequiredBones.MakeMeshPoseIndex(Bone).GetInt();
		Reference[Index] = ToSecmo(RefSkeleton.GetRefBonePose()[SkeletonIndex]);
		NameStorage.Emplace(*RefSkeleton.GetBoneName(SkeletonIndex).ToString());
		Names[Index] = NameStorage.Last().Get();
	}

	// Unreal: centimetres, Z up (docs/c-api.md "Units, axes and conventions").
	SecmoRigDesc Skeleton = secmo::rig_desc();
	Skeleton.bone_count = uint32(NumBones);
	Skeleton.parents = Parents.GetData();
	Skeleton.reference_pose = Reference.GetData();
	Skeleton.bone_names = Names.GetData();
	Skeleton.units_per_meter = secmo::convention::kUnrealUnitsPerMeter;
	Skeleton.up_axis = SECMO_UP_AXIS_Z;

	const FTCHARToUTF8 SettingsUtf8(*RigAsset->Settings);
	auto NewRig = secmo::Rig::from_settings(Skeleton, std::string_view(SettingsUtf8.Get(), SettingsUtf8.Length()));
	if (!NewRig)
	{
		LastError = UTF8_TO_TCHAR(NewRig.status().message());
		UE_LOG(LogAnimation, Warning, TEXT("secmo: %s: %s"), *RigAsset->GetName(), *LastError);
		return;
	}
	Runtime.Rig = std::move(NewRig).take();
	auto NewCharacter = secmo::Character::create(Runtime.Rig);
	if (!NewCharacter)
	{
		LastError = UTF8_TO_TCHAR(NewCharacter.status().message());
		Runtime.Rig.reset();
		return;
	}
	Runtime.Character = std::move(NewCharacter).take();
	bHasOrigin = false;
	ComponentSpaceIn.SetNum(NumBones);
	LocalPose.SetNum(NumBones);
	SolvedPose.SetNum(NumBones);
	SolvedComponent.SetNum(NumBones);
}

bool FAnimNode_Secmo::IsValidToEvaluate(const USkeleton* Skeleton, const FBoneContainer& RequiredBones)
{
	return bool(Runtime.Character) && Compact.Num() == RequiredBones.GetCompactPoseNumBones();
}

void FAnimNode_Secmo::UpdateInternal(const FAnimationUpdateContext& Context)
{
	FAnimNode_SkeletalControlBase::UpdateInternal(Context);
	PendingDeltaTime += Context.GetDeltaTime();
}

void FAnimNode_Secmo::ResetDynamics(ETeleportType InTeleportType)
{
	if (InTeleportType == ETeleportType::ResetPhysics)
	{
		// A full reset: the next update starts from the animation, as a first update.
		if (Runtime.Character)
		{
			(void)Runtime.Character.reset_dynamics();
		}
	}
	else if (InTeleportType == ETeleportType::TeleportPhysics)
	{
		// Chains move rigidly with the root; springs restart.
		PendingFlags |= SECMO_FRAME_TELEPORT;
	}
}

void FAnimNode_Secmo::EvaluateSkeletalControl_AnyThread(FComponentSpacePoseContext& Output, TArray<FBoneTransform>& OutBoneTransforms)
{
	const int32 NumBones = Compact.Num();
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		ComponentSpaceIn[Index] = ToSecmo(Output.Pose.GetComponentSpaceTransform(Compact[Index]));
	}
	const secmo::Span<const int32_t> ParentSpan(Parents.GetData(), size_t(NumBones));
	secmo::bridge::to_local(ParentSpan, secmo::Span<const SecmoTransform>(ComponentSpaceIn.GetData(), NumBones),
		secmo::Span<SecmoTransform>(LocalPose.GetData(), NumBones));

	// The component relative to a double-precision origin near it, so that a
	// character 10 km from the level's origin simulates as one at the origin.
	FTransform Component = Output.AnimInstanceProxy->GetComponentTransform();
	const FVector Location = Component.GetTranslation();
	if (!bHasOrigin || (Location - SimulationOrigin).Size() > OriginStep)
	{
		SimulationOrigin = Location;
		bHasOrigin = true;
	}
	Component.SetTranslation(Location - SimulationOrigin);
	const SecmoTransform World = ToSecmo(Component);
	// Time that passed while the mesh was not evaluated is not simulated:
	// a long gap restarts the chains where the body is now.
	if (PendingDeltaTime > MaxDeltaTime)
	{
		PendingFlags |= SECMO_FRAME_TELEPORT;
	}
	secmo::Frame Frame;
	Frame.dt = FMath::Clamp(PendingDeltaTime, 0.0f, MaxDeltaTime);
	Frame.pose = secmo::Span<const SecmoTransform>(LocalPose.GetData(), NumBones);
	Frame.flags = PendingFlags;
	Frame.world = &World;
	Frame.importance = Importance;
	PendingDeltaTime = 0.0f;
	PendingFlags = 0;
	(void)Runtime.Character.set_wind(float(Wind.X), float(Wind.Y), float(Wind.Z));

	const secmo::Status Status = Runtime.Character.update(Frame, secmo::Span<SecmoTransform>(SolvedPose.GetData(), NumBones));
	if (!Status)
	{
		// Bad input (a NaN from upstream, say): secmo changed nothing; pass the pose through.
		return;
	}
	secmo::bridge::to_component(ParentSpan, secmo::Span<const SecmoTransform>(SolvedPose.GetData(), NumBones),
		secmo::Span<SecmoTransform>(SolvedComponent.GetData(), NumBones));
	// Only the bones secmo moved, in compact (parents-first) order; the base
	// class blends them with Alpha.
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		if (FMemory::Memcmp(&SolvedPose[Index], &LocalPose[Index], sizeof(SecmoTransform)) != 0)
		{
			OutBoneTransforms.Add(FBoneTransform(Compact[Index], FromSecmo(SolvedComponent[Index])));
		}
	}
}

void FAnimNode_Secmo::GetDebugDraw(TArray<SecmoDebugLine>& OutLines, TArray<SecmoDebugSphere>& OutSpheres) const
{
	if (!Runtime.Character)
	{
		return;
	}
	size_t Lines = 0, Spheres = 0;
	if (secmo_character_debug_draw_capacity(Runtime.Character.get(), &Lines, &Spheres) != SECMO_OK)
	{
		return;
	}
	OutLines.SetNum(int32(Lines));
	OutSpheres.SetNum(int32(Spheres));
	size_t WrittenLines = 0, WrittenSpheres = 0;
	(void)Runtime.Character.debug_draw(secmo::Span<SecmoDebugLine>(OutLines.GetData(), Lines), &WrittenLines,
		secmo::Span<SecmoDebugSphere>(OutSpheres.GetData(), Spheres), &WrittenSpheres);
	OutLines.SetNum(int32(WrittenLines));
	OutSpheres.SetNum(int32(WrittenSpheres));
}

void FAnimNode_Secmo::GatherDebugData(FNodeDebugData& DebugData)
{
	FString DebugLine = DebugData.GetNodeName(this);
	DebugLine += FString::Printf(TEXT("(Alpha: %.1f%% %s)"), ActualAlpha * 100.0f,
		LastError.IsEmpty() ? TEXT("") : *LastError);
	DebugData.AddDebugItem(DebugLine);
	ComponentPose.GatherDebugData(DebugData);
}
