#include "AnimNode_Secmo.h"

#include "Animation/AnimInstanceProxy.h"
#include "AnimationRuntime.h"
#include "Components/SkeletalMeshComponent.h"
#include "Engine/World.h"
#include "SceneInterface.h"

#include <string>

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

/** The simulation origin moves once the component is this far from it (1 km, in cm). */

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
	Clock.clear();
}

void FAnimNode_Secmo::InitializeBoneReferences(const FBoneContainer& RequiredBones)
{
	// Called on every LOD switch. The character is built once per settings
	// and skeleton, from the mesh's full reference skeleton; a LOD switch only
	// maps secmo's bones to the LOD's compact indices again, so nothing pops,
	// and a bone the LOD strips holds its last pose.
	const FReferenceSkeleton& RefSkeleton = RequiredBones.GetReferenceSkeleton();
	const FString Settings = RigAsset != nullptr ? RigAsset->ToJson() : FString();
	if (!Runtime.Character || BuiltSettings != Settings || BuiltBoneCount != RefSkeleton.GetNum())
	{
		BuildRig(RefSkeleton);
		BuiltSettings = Settings;
		BuiltBoneCount = RefSkeleton.GetNum();
	}
	Compact.Reset(Bones.Num());
	for (FBoneReference& Bone : Bones)
	{
		Bone.Initialize(RequiredBones);
		Compact.Add(Bone.GetCompactPoseIndex(RequiredBones));
	}
}

FString FAnimNode_Secmo::ValidateSettings(const FReferenceSkeleton& RefSkeleton) const
{
	// The same build the node runs, on a scratch node: the bones the settings
	// name and their ancestors, in centimetres, Z up.
	FAnimNode_Secmo Probe;
	Probe.RigAsset = RigAsset;
	Probe.BuildRig(RefSkeleton);
	return Probe.LastError;
}

void FAnimNode_Secmo::BuildRig(const FReferenceSkeleton& RefSkeleton)
{
	Runtime.Character.reset();
	Runtime.Rig.reset();
	Bones.Reset();
	LastError.Reset();
	if (RigAsset == nullptr)
	{
		return;
	}
	const FString SettingsJson = RigAsset->ToJson();
	const FTCHARToUTF8 SettingsUtf8(*SettingsJson);
	const std::string_view SettingsText(SettingsUtf8.Get(), SettingsUtf8.Length());

	// Only what secmo needs goes in: the bones the settings name and their
	// ancestors. A zero-scaled bone or a duplicate name elsewhere in the
	// skeleton changes nothing.
	size_t NamesLength = 0;
	(void)secmo::settings_bone_names(SettingsText, nullptr, 0, &NamesLength);
	TArray<char> NameBuffer;
	NameBuffer.SetNum(int32(NamesLength));
	const secmo::Status NamesStatus =
		secmo::settings_bone_names(SettingsText, NameBuffer.GetData(), NamesLength, &NamesLength);
	if (!NamesStatus)
	{
		LastError = UTF8_TO_TCHAR(NamesStatus.message());
		UE_LOG(LogAnimation, Warning, TEXT("secmo: %s: %s"), *RigAsset->GetName(), *LastError);
		return;
	}
	const int32 NumMeshBones = RefSkeleton.GetNum();
	TArray<uint8> Needed;
	Needed.SetNum(NumMeshBones);
	const char* Line = NameBuffer.GetData();
	for (const char* At = Line;; ++At)
	{
		if (*At == '\n' || *At == '\0')
		{
			if (At > Line)
			{
				const FName Name(UTF8_TO_TCHAR(std::string(Line, At).c_str()));
				for (int32 Index = RefSkeleton.FindBoneIndex(Name); Index != INDEX_NONE && !Needed[Index];
					 Index = RefSkeleton.GetParentIndex(Index))
				{
					Needed[Index] = 1;
				}
			}
			if (*At == '\0')
			{
				break;
			}
			Line = At + 1;
		}
	}

	// Mesh order is parents first; secmo's bones keep it.
	TArray<int32> MeshIndex;
	TArray<int32> SecmoIndex;
	SecmoIndex.SetNum(NumMeshBones);
	for (int32 Index = 0; Index < NumMeshBones; ++Index)
	{
		SecmoIndex[Index] = INDEX_NONE;
		if (Needed[Index])
		{
			SecmoIndex[Index] = MeshIndex.Add(Index);
		}
	}
	const int32 NumBones = MeshIndex.Num();
	Parents.SetNum(NumBones);
	TArray<SecmoTransform> Reference;
	Reference.SetNum(NumBones);
	// The bones' UTF-8 names, NUL-terminated one after another in one
	// buffer (a conversion object cannot be kept in a TArray: its text lives
	// in an inline buffer that moves with it), pointed into once complete.
	TArray<char> NameBytes;
	TArray<int32> NameStart;
	NameStart.SetNum(NumBones);
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		const int32 Mesh = MeshIndex[Index];
		const int32 Parent = RefSkeleton.GetParentIndex(Mesh);
		Parents[Index] = Parent == INDEX_NONE ? -1 : SecmoIndex[Parent];
		Reference[Index] = ToSecmo(RefSkeleton.GetRefBonePose()[Mesh]);
		const FString BoneName = RefSkeleton.GetBoneName(Mesh).ToString();
		const FTCHARToUTF8 Utf8(*BoneName);
		NameStart[Index] = NameBytes.Num();
		for (int32 Byte = 0; Byte < Utf8.Length(); ++Byte)
		{
			NameBytes.Add(Utf8.Get()[Byte]);
		}
		NameBytes.Add('\0');
		FBoneReference Bone;
		Bone.BoneName = RefSkeleton.GetBoneName(Mesh);
		Bones.Add(Bone);
	}
	TArray<const char*> Names;
	Names.SetNum(NumBones);
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		Names[Index] = NameBytes.GetData() + NameStart[Index];
	}

	// Unreal: centimetres, Z up (docs/c-api.md "Units, axes and conventions").
	SecmoRigDesc Skeleton = secmo::rig_desc();
	Skeleton.bone_count = uint32(NumBones);
	Skeleton.parents = Parents.GetData();
	Skeleton.reference_pose = Reference.GetData();
	Skeleton.bone_names = Names.GetData();
	Skeleton.units_per_meter = secmo::convention::kUnrealUnitsPerMeter;
	Skeleton.up_axis = SECMO_UP_AXIS_Z;

	auto NewRig = secmo::Rig::from_settings(Skeleton, SettingsText);
	if (!NewRig)
	{
		LastError = UTF8_TO_TCHAR(NewRig.status().message());
		UE_LOG(LogAnimation, Warning, TEXT("secmo: %s: %s"), *RigAsset->GetName(), *LastError);
		Bones.Reset();
		return;
	}
	Runtime.Rig = std::move(NewRig).take();
	// Nothing dropped silently: a sheared bind pose, or a chain listed before
	// the chain moving the bone it reads (it then sees that bone's animation).
	for (uint32 W = 0; W < Runtime.Rig.warning_count(); ++W)
	{
		uint32 Kind = 0, Bone = 0;
		if (Runtime.Rig.warning(W, Kind, Bone) && Kind == SECMO_WARNING_UNUSUAL_SIZE)
		{
			// The node passes centimetres (units_per_meter 100): a skeleton
			// this size has a scale the node does not expect.
			UE_LOG(LogAnimation, Warning, TEXT("secmo: %s: the skeleton is %.2f m across, outside 0.05-50 m: check its import scale"),
				*RigAsset->GetName(), Runtime.Rig.size_meters());
		}
		else if (Runtime.Rig.warning(W, Kind, Bone) && Bone < uint32(NumBones))
		{
			UE_LOG(LogAnimation, Warning, TEXT("secmo: %s: %s %s"), *RigAsset->GetName(),
				Kind == SECMO_WARNING_CHAIN_ORDER
					? TEXT("a chain is listed before the chain that moves the bone it reads, so it sees the animated pose of")
					: TEXT("the bind pose is sheared (the shear is dropped) at"),
				UTF8_TO_TCHAR(Names[Bone]));
		}
	}
	auto NewCharacter = secmo::Character::create(Runtime.Rig);
	if (!NewCharacter)
	{
		LastError = UTF8_TO_TCHAR(NewCharacter.status().message());
		Runtime.Rig.reset();
		Bones.Reset();
		return;
	}
	Runtime.Character = std::move(NewCharacter).take();
	// A new character starts at the level's origin: the first evaluation
	// tells it where its frame's origin is (shift_world), so the floor is
	// at its level height wherever the character spawns.
	Origin = secmo::bridge::SimulationOrigin();
	PendingWarmUp = WarmUpFrames;
	ComponentSpaceIn.SetNum(NumBones);
	LocalPose.SetNum(NumBones);
	SolvedPose.SetNum(NumBones);
	SolvedComponent.SetNum(NumBones);
	// Until a bone is first seen, a stripped one holds its reference pose.
	secmo::bridge::to_component(secmo::Span<const int32_t>(Parents.GetData(), size_t(NumBones)),
		secmo::Span<const SecmoTransform>(Reference.GetData(), NumBones),
		secmo::Span<SecmoTransform>(SolvedComponent.GetData(), NumBones));
}

bool FAnimNode_Secmo::IsValidToEvaluate(const USkeleton* Skeleton, const FBoneContainer& RequiredBones)
{
	return bool(Runtime.Character) && Compact.Num() == Bones.Num() && Bones.Num() > 0;
}

void FAnimNode_Secmo::UpdateInternal(const FAnimationUpdateContext& Context)
{
	FAnimNode_SkeletalControlBase::UpdateInternal(Context);
	Clock.add(Context.GetDeltaTime());
}

void FAnimNode_Secmo::ResetDynamics(ETeleportType InTeleportType)
{
	if (InTeleportType == ETeleportType::ResetPhysics)
	{
		// A full reset: the next update starts from the animation, as a first update.
		if (Runtime.Character)
		{
			(void)Runtime.Character.reset_dynamics();
			PendingWarmUp = WarmUpFrames;
		}
	}
	else if (InTeleportType == ETeleportType::TeleportPhysics)
	{
		// Chains move rigidly with the root; springs restart.
		Clock.teleport();
	}
}

void FAnimNode_Secmo::EvaluateSkeletalControl_AnyThread(FComponentSpacePoseContext& Output, TArray<FBoneTransform>& OutBoneTransforms)
{
	const int32 NumBones = Compact.Num();
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		// A bone this LOD strips holds its last pose.
		ComponentSpaceIn[Index] = Compact[Index].IsValid()
			? ToSecmo(Output.Pose.GetComponentSpaceTransform(Compact[Index]))
			: SolvedComponent[Index];
	}
	const secmo::Span<const int32_t> ParentSpan(Parents.GetData(), size_t(NumBones));
	secmo::bridge::to_local(ParentSpan, secmo::Span<const SecmoTransform>(ComponentSpaceIn.GetData(), NumBones),
		secmo::Span<SecmoTransform>(LocalPose.GetData(), NumBones));

	// The component relative to a double-precision origin near it, so that a
	// character 10 km from the level's origin simulates as one at the origin.
	// (secmo::bridge::SimulationOrigin, tested by tests/cpp/large_world.cpp.)
	FTransform Component = Output.AnimInstanceProxy->GetComponentTransform();
	const FVector Location = Component.GetTranslation();
	const double LevelLocation[3] = {Location.X, Location.Y, Location.Z};
	float Relative[3];
	// The origin's first placement and each step: secmo's world positions
	// move with it, so the chains continue without a jump and the floor
	// stays at its level height (tests/cpp/node_frames.cpp).
	(void)Origin.place(Runtime.Character, LevelLocation, Relative);
	Component.SetTranslation(FVector(Relative[0], Relative[1], Relative[2]));
	const SecmoTransform World = ToSecmo(Component);
	// A long frame keeps the motion: up to 0.25 s of it is simulated, and
	// nothing restarts the chains but a teleport (tests/cpp/node_frames.cpp).
	secmo::Frame Frame;
	Clock.take(Frame);
	Frame.pose = secmo::Span<const SecmoTransform>(LocalPose.GetData(), NumBones);
	Frame.world = &World;
	Frame.importance = Importance;
	FVector TotalWind = Wind;
	if (bUseWindSources)
	{
		// The level's wind at the component (WindDirectionalSource), read
		// from the scene as KawaiiPhysics reads it during evaluation.
		const USkeletalMeshComponent* SkelComp = Output.AnimInstanceProxy->GetSkelMeshComponent();
		const UWorld* WorldObject = SkelComp != nullptr ? SkelComp->GetWorld() : nullptr;
		if (WorldObject != nullptr && WorldObject->Scene != nullptr)
		{
			FVector Direction = FVector::ZeroVector;
			float Speed = 0.0f, MinGust = 0.0f, MaxGust = 0.0f;
			WorldObject->Scene->GetWindParameters(Location, Direction, Speed, MinGust, MaxGust);
			const double Scale = double(Speed) * double(WindSourceScale);
			TotalWind = TotalWind + FVector(Direction.X * Scale, Direction.Y * Scale, Direction.Z * Scale);
		}
	}
	(void)Runtime.Character.set_wind(float(TotalWind.X), float(TotalWind.Y), float(TotalWind.Z));
	// Warm-up: silent 1/60 s updates on this pose, so the chains start settled.
	for (; PendingWarmUp > 0; --PendingWarmUp)
	{
		secmo::Frame WarmUp = Frame;
		WarmUp.dt = 1.0f / 60.0f;
		WarmUp.flags = 0;
		(void)Runtime.Character.update(WarmUp, secmo::Span<SecmoTransform>(SolvedPose.GetData(), NumBones));
	}

	SecmoUpdateInfo Info{};
	const secmo::Status Status =
		Runtime.Character.update(Frame, secmo::Span<SecmoTransform>(SolvedPose.GetData(), NumBones), &Info);
	if (!Status)
	{
		// Bad input (a NaN from upstream, say): secmo changed nothing; pass the pose through.
		return;
	}
	// Chains that jump past their teleport distance every frame show no
	// motion: say so once per streak (wrong units, or a component that
	// jumps every frame).
	const bool bStreak = (Info.warnings & SECMO_WARNING_TELEPORT_STREAK) != 0;
	if (bStreak && !bWarnedTeleportStreak)
	{
		UE_LOG(LogAnimation, Warning,
			TEXT("secmo: the chains' teleport distance was passed on three updates in a row; their motion restarts every frame (check the skeleton's scale, or a component that jumps every frame)"));
	}
	bWarnedTeleportStreak = bStreak;
	secmo::bridge::to_component(ParentSpan, secmo::Span<const SecmoTransform>(SolvedPose.GetData(), NumBones),
		secmo::Span<SecmoTransform>(SolvedComponent.GetData(), NumBones));
	// Only the bones secmo moved, in compact (parents-first) order; the base
	// class blends them with Alpha.
	for (int32 Index = 0; Index < NumBones; ++Index)
	{
		if (Compact[Index].IsValid() && FMemory::Memcmp(&SolvedPose[Index], &LocalPose[Index], sizeof(SecmoTransform)) != 0)
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
	// secmo draws relative to the simulation origin; the viewport wants the level.
	const double* At = Origin.origin();
	for (SecmoDebugLine& Line : OutLines)
	{
		for (int32 Axis = 0; Axis < 3; ++Axis)
		{
			Line.a[Axis] = float(Line.a[Axis] + At[Axis]);
			Line.b[Axis] = float(Line.b[Axis] + At[Axis]);
		}
	}
	for (SecmoDebugSphere& Sphere : OutSpheres)
	{
		for (int32 Axis = 0; Axis < 3; ++Axis)
		{
			Sphere.center[Axis] = float(Sphere.center[Axis] + At[Axis]);
		}
	}
}

void FAnimNode_Secmo::GatherDebugData(FNodeDebugData& DebugData)
{
	FString DebugLine = DebugData.GetNodeName(this);
	DebugLine += FString::Printf(TEXT("(Alpha: %.1f%% %s)"), ActualAlpha * 100.0f,
		LastError.IsEmpty() ? TEXT("") : *LastError);
	DebugData.AddDebugItem(DebugLine);
	ComponentPose.GatherDebugData(DebugData);
}
