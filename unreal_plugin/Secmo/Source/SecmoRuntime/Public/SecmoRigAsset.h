// The settings of a secmo rig as typed, editable fields: springs, rotation
// constraints, VRM node constraints, correctives, colliders and chains, bones
// by name, lengths in centimetres (Unreal's units), angles in degrees.
//
// The rig-settings text (docs/settings.md) shared with Unity and the secmo
// tool stays the exchange format: ToJson writes it (declaring centimetres),
// FromJson reads it through secmo_settings_expand, which fills every preset
// in and converts a file in other units (a VRM's metres) to centimetres.
// The JSON key of each parameter is listed once, in SecmoRigAsset.cpp's key
// tables; tests/unreal_plugin.rs checks them against the library's keys and
// every ClampMin/ClampMax below against the library's validation.
#pragma once

#include "CoreMinimal.h"
#include "Engine/DataAsset.h"
#include "SecmoRigAsset.generated.h"

UENUM()
enum class ESecmoSpringPreset : uint8 { Hip, Chest };

UENUM()
enum class ESecmoChainPreset : uint8 { Tail, Hair, Vrm };

UENUM()
enum class ESecmoIntegrator : uint8 { Spring, ExponentialDamping, Vrm };

UENUM()
enum class ESecmoRestSource : uint8 { Auto, Bind, Animated };

UENUM()
enum class ESecmoColliderShape : uint8 { Sphere, Capsule, Plane, InsideSphere, InsideCapsule };

UENUM()
enum class ESecmoSide : uint8 { Center, Left, Right };

UENUM()
enum class ESecmoNodeConstraintKind : uint8 { Roll, Aim, Rotation };

UENUM()
enum class ESecmoLimitShape : uint8 { None, Cone, Hinge, Spherical };

/** A helper-bone spring's numbers (docs/algorithms.md §3). */
USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoSpringParams
{
	GENERATED_BODY()

	/** Restoring stiffness k, 1/s² (hip and chest 400). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0", ClampMax = "5000"))
	float Stiffness = 0.0f;
	/** Velocity damping d, 1/s (hip 25, chest 20). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0", ClampMax = "500"))
	float Damping = 0.0f;
	/** Longest offset of the helper from its animated place, cm (hip 2, chest 1). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0", ClampMax = "100"))
	float MaxOffset = 0.0f;
	/** Longest move in one 1/120 s substep, cm (the presets: Max Offset). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0.01", ClampMax = "100"))
	float MaxSubstepDisplacement = 0.0f;
	/** Velocity history ring, substeps (1–16; 4). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "1", ClampMax = "16"))
	int32 HistoryLength = 4;
	/** Farther than this from its animated place the helper snaps back, cm (255). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "1", ClampMax = "1000"))
	float ResetThreshold = 0.0f;
	/** Scales the 1/120 s substep: below 1 is slow motion (1). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0.01", ClampMax = "10"))
	float TimeFactor = 1.0f;
	/** Added motion, cm/s, in component space (0, 0, 0). */
	UPROPERTY(EditAnywhere, Category = "Spring")
	FVector ExtraVelocity = FVector::ZeroVector;
	/** Output weight: 0 the animation, 1 the spring (1). */
	UPROPERTY(EditAnywhere, Category = "Spring", meta = (ClampMin = "0", ClampMax = "1"))
	float Alpha = 1.0f;
};

/** A tail or hair chain's numbers (docs/algorithms.md §7, §8; secmo::ChainParams). */
USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoChainParams
{
	GENERATED_BODY()

	/** Spring (tails), exponential damping (hair) or the VRM spring-bone verlet. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	ESecmoIntegrator Integrator = ESecmoIntegrator::Spring;
	/** Spring: natural frequency at the root, Hz (tail 0.9). */
	UPROPERTY(EditAnywhere, Category = "Chain|Spring", meta = (ClampMin = "0", ClampMax = "20"))
	float FrequencyRoot = 0.0f;
	/** Spring: natural frequency at the tip, Hz (tail 0.45). */
	UPROPERTY(EditAnywhere, Category = "Chain|Spring", meta = (ClampMin = "0", ClampMax = "20"))
	float FrequencyTip = 0.0f;
	/** Spring: damping ratio ζ, 1 = critical (tail 0.65). */
	UPROPERTY(EditAnywhere, Category = "Chain|Spring", meta = (ClampMin = "0", ClampMax = "4"))
	float DampingRatio = 0.0f;
	/** Exponential damping: restoring k, 1/s² (hair 40). */
	UPROPERTY(EditAnywhere, Category = "Chain|Exponential Damping", meta = (ClampMin = "0", ClampMax = "1000"))
	float Stiffness = 0.0f;
	/** Exponential damping: velocity damping c, 1/s (hair 10). */
	UPROPERTY(EditAnywhere, Category = "Chain|Exponential Damping", meta = (ClampMin = "0", ClampMax = "100"))
	float Damping = 0.0f;
	/** Gravity on the chain, cm/s² (tail 100, hair 0). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "-5000", ClampMax = "5000"))
	float Gravity = 0.0f;
	/** Gravity direction in world space; zero means down. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	FVector GravityDirection = FVector::ZeroVector;
	/** Whole-tail lift about the hips' lateral axis, degrees, spread over the links (tail 50). */
	UPROPERTY(EditAnywhere, Category = "Chain|Shape", meta = (ClampMin = "-90", ClampMax = "90"))
	float CarryAngleDegrees = 0.0f;
	/** Rest shape: 0 a centred arc, 1 the authored curve (tail 0, hair 1). */
	UPROPERTY(EditAnywhere, Category = "Chain|Shape", meta = (ClampMin = "0", ClampMax = "1"))
	float RestCurve = 0.0f;
	/** Bend coupling between neighbouring links, 1/s; 0 = off (tail 12). */
	UPROPERTY(EditAnywhere, Category = "Chain|Shape", meta = (ClampMin = "0", ClampMax = "100"))
	float BendRate = 0.0f;
	/** Elastic bend limit between neighbouring links, degrees; 180 = off (tail 30). */
	UPROPERTY(EditAnywhere, Category = "Chain|Shape", meta = (ClampMin = "1", ClampMax = "180"))
	float BendLimitDegrees = 180.0f;
	/** Keep the chain behind the plane through its root facing forward (tails). */
	UPROPERTY(EditAnywhere, Category = "Chain|Shape")
	bool bForwardPlane = false;
	/** Rebuild velocity from positions after the length projection (hair); off keeps the swing (tails). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	bool bVelocityFromPositions = false;
	/** Floor contact (tails). */
	UPROPERTY(EditAnywhere, Category = "Chain|Floor")
	bool bFloorEnabled = false;
	/** Floor height in world space, cm (0). */
	UPROPERTY(EditAnywhere, Category = "Chain|Floor")
	float FloorHeight = 0.0f;
	/** Clearance kept above the floor, cm (2.5). */
	UPROPERTY(EditAnywhere, Category = "Chain|Floor", meta = (ClampMin = "0", ClampMax = "50"))
	float FloorClearance = 0.0f;
	/** Contact damping on the floor, 1/s (8). */
	UPROPERTY(EditAnywhere, Category = "Chain|Floor", meta = (ClampMin = "0", ClampMax = "100"))
	float FloorDamping = 0.0f;
	/** Link radius against colliders where the chain gives no per-joint radii, cm (tail 2, hair 1). */
	UPROPERTY(EditAnywhere, Category = "Chain|Collision", meta = (ClampMin = "0", ClampMax = "50"))
	float Radius = 0.0f;
	/** Blend of the simulated rotations over the animation (1). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "0", ClampMax = "1"))
	float Weight = 1.0f;
	/** How strongly the node's wind acts on this chain (1). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "0", ClampMax = "10"))
	float WindFactor = 1.0f;
	/** Scales the 120 Hz substep rate: below 1 is slow motion (1). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "0.01", ClampMax = "10"))
	float TimeFactor = 1.0f;
	/** Below this importance the chain follows the animation (0). */
	UPROPERTY(EditAnywhere, Category = "Chain|LOD", meta = (ClampMin = "0", ClampMax = "1"))
	float LodSkipBelow = 0.0f;
	/** Below this importance the chain runs every other update (0). */
	UPROPERTY(EditAnywhere, Category = "Chain|LOD", meta = (ClampMin = "0", ClampMax = "1"))
	float LodHalfBelow = 0.0f;
	/** The root moving farther than this in one update is a teleport, cm (100). */
	UPROPERTY(EditAnywhere, Category = "Chain|Teleport", meta = (ClampMin = "1", ClampMax = "10000"))
	float TeleportDistance = 100.0f;
	/** The anchor turning more than this in one update is a teleport, degrees (60). */
	UPROPERTY(EditAnywhere, Category = "Chain|Teleport", meta = (ClampMin = "1", ClampMax = "180"))
	float TeleportAngleDegrees = 60.0f;
	/** A bone whose motion carries the chain (a vehicle, a platform); None = world space. */
	UPROPERTY(EditAnywhere, Category = "Chain|Space")
	FName SimulationSpace;
	/** Fraction of the simulation space's motion the chain resists (0). */
	UPROPERTY(EditAnywhere, Category = "Chain|Space", meta = (ClampMin = "0", ClampMax = "1"))
	float Inertia = 0.0f;
	/** VRM: stiffness, the rest-axis pull, cm/s (VRM stiffness × 100; 100). */
	UPROPERTY(EditAnywhere, Category = "Chain|VRM", meta = (ClampMin = "0", ClampMax = "1000"))
	float VrmStiffness = 0.0f;
	/** VRM: dragForce, the fraction of the per-step motion lost (0.5). */
	UPROPERTY(EditAnywhere, Category = "Chain|VRM", meta = (ClampMin = "0", ClampMax = "1"))
	float VrmDragForce = 0.0f;
	/** VRM: gravityPower along the gravity direction, cm/s (VRM gravityPower × 100; 0). */
	UPROPERTY(EditAnywhere, Category = "Chain|VRM", meta = (ClampMin = "0", ClampMax = "1000"))
	float VrmGravityPower = 0.0f;
	/** Tail and hair: how much faster the chain's last motion plays once its input has rested, so it settles within 2 s; 1 = off (8). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "1", ClampMax = "32"))
	float SettleSpeedup = 1.0f;
	/** On a teleport, restart the chain on its animated pose at rest (three-vrm's reset) instead of carrying it rigidly (off). */
	UPROPERTY(EditAnywhere, Category = "Chain|Teleport")
	bool bTeleportRestart = false;
	/** Tail and hair: each substep's rest. Auto: the animation's pose where the animation moves the chain, the rest arc (carry, gravity) where it does not; Bind: always the rest arc; Animated: always the animation's pose (auto). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	ESecmoRestSource RestSource = ESecmoRestSource::Auto;
	/** Tail and hair, around the animation: the share of the body's motion the springs act on at the tip, less toward the root; 0 holds the chain on the animation, 1 adds all of it (0.2). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "0", ClampMax = "1"))
	float AnimationInertia = 0.2f;
	/** Tail and hair, around the animation: how far past the animation a joint may turn away from its bind pose about any axis, degrees; 0 never bends the skin farther than the clip does, 180 turns the guard off (0). */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (ClampMin = "0", ClampMax = "180"))
	float KeyMarginDegrees = 0.0f;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoSpringSetting
{
	GENERATED_BODY()

	/** The helper bone whose translation the spring drives. */
	UPROPERTY(EditAnywhere, Category = "Spring")
	FName Bone;
	/** The values a new entry starts from (docs/algorithms.md §3). Changing it resets the numbers. */
	UPROPERTY(EditAnywhere, Category = "Spring")
	ESecmoSpringPreset Preset = ESecmoSpringPreset::Hip;
	/** The spring's numbers. */
	UPROPERTY(EditAnywhere, Category = "Spring")
	FSecmoSpringParams Params;
	/** The preset the numbers were filled from (a changed preset refills them). */
	UPROPERTY()
	FString FilledFrom;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoConstraintSetting
{
	GENERATED_BODY()

	/** The bone that turns (docs/algorithms.md §4). */
	UPROPERTY(EditAnywhere, Category = "Constraint")
	FName Bone;
	/** The bone it aims at. */
	UPROPERTY(EditAnywhere, Category = "Constraint")
	FName Target;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoNodeConstraintSetting
{
	GENERATED_BODY()

	/** Roll, aim or rotation (VRMC_node_constraint). */
	UPROPERTY(EditAnywhere, Category = "Node Constraint")
	ESecmoNodeConstraintKind Kind = ESecmoNodeConstraintKind::Rotation;
	/** The bone read. */
	UPROPERTY(EditAnywhere, Category = "Node Constraint")
	FName Source;
	/** The bone written. */
	UPROPERTY(EditAnywhere, Category = "Node Constraint")
	FName Destination;
	/** Roll: X, Y or Z; aim: PositiveX … NegativeZ; rotation: none. Empty: X or PositiveX. */
	UPROPERTY(EditAnywhere, Category = "Node Constraint")
	FString Axis;
	/** Blend of the constraint, 0–1 (1). */
	UPROPERTY(EditAnywhere, Category = "Node Constraint", meta = (ClampMin = "0", ClampMax = "1"))
	float Weight = 1.0f;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoGainSetting
{
	GENERATED_BODY()

	/** Translation gain per unit of closeness, cm (x, y, z). */
	UPROPERTY(EditAnywhere, Category = "Gain")
	FVector Translation = FVector::ZeroVector;
	/** Scale gain per unit of closeness (x, y, z). */
	UPROPERTY(EditAnywhere, Category = "Gain")
	FVector Scale = FVector::ZeroVector;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoProbeSetting
{
	GENERATED_BODY()

	/** The bone whose distance drives the correction. */
	UPROPERTY(EditAnywhere, Category = "Probe")
	FName Bone;
	/** Distance below which the probe acts, cm. */
	UPROPERTY(EditAnywhere, Category = "Probe", meta = (ClampMin = "0.1", ClampMax = "200"))
	float Threshold = 10.0f;
	/** Weight of this probe (1). */
	UPROPERTY(EditAnywhere, Category = "Probe", meta = (ClampMin = "0", ClampMax = "2"))
	float Weight = 1.0f;
	/** The probe's side. */
	UPROPERTY(EditAnywhere, Category = "Probe")
	ESecmoSide Side = ESecmoSide::Center;
	/** Gains when the probe is on the driven bone's side. */
	UPROPERTY(EditAnywhere, Category = "Probe")
	FSecmoGainSetting Same;
	/** Gains when it is on the other side. */
	UPROPERTY(EditAnywhere, Category = "Probe")
	FSecmoGainSetting Opposite;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoBtobSetting
{
	GENERATED_BODY()

	/** The other chest helper. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName OtherChest;
	/** Left upper arm. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName UpperArmL;
	/** Left forearm. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName ForearmL;
	/** Left hand. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName HandL;
	/** Right upper arm. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName UpperArmR;
	/** Right forearm. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName ForearmR;
	/** Right hand. */
	UPROPERTY(EditAnywhere, Category = "BtoB")
	FName HandR;
	/** Sign of the chest's local +X toward the body's middle: +1 or −1. */
	UPROPERTY(EditAnywhere, Category = "BtoB", meta = (ClampMin = "-1", ClampMax = "1"))
	float MedialX = 1.0f;
	/** Rest distance between the chests, cm. */
	UPROPERTY(EditAnywhere, Category = "BtoB", meta = (ClampMin = "0", ClampMax = "100"))
	float ChestGap = 0.0f;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoCorrectiveSetting
{
	GENERATED_BODY()

	/** The bone the correction moves (docs/algorithms.md §5). */
	UPROPERTY(EditAnywhere, Category = "Corrective")
	FName Driven;
	/** The driven bone's side. */
	UPROPERTY(EditAnywhere, Category = "Corrective")
	ESecmoSide Side = ESecmoSide::Center;
	/** Use Rate instead of the default (24 /s). */
	UPROPERTY(EditAnywhere, Category = "Corrective")
	bool bOverrideRate = false;
	/** How fast the correction follows, 1/s. */
	UPROPERTY(EditAnywhere, Category = "Corrective", meta = (EditCondition = "bOverrideRate", ClampMin = "0", ClampMax = "200"))
	float Rate = 24.0f;
	/** Explicit probes (or the BtoB preset below). */
	UPROPERTY(EditAnywhere, Category = "Corrective")
	TArray<FSecmoProbeSetting> Probes;
	/** Use the BtoB chest preset with the bones below. */
	UPROPERTY(EditAnywhere, Category = "Corrective")
	bool bUseBtob = false;
	/** The BtoB preset's bones and numbers (docs/algorithms.md §5). */
	UPROPERTY(EditAnywhere, Category = "Corrective", meta = (EditCondition = "bUseBtob"))
	FSecmoBtobSetting Btob;
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoColliderSetting
{
	GENERATED_BODY()

	/** The name chains list it by. */
	UPROPERTY(EditAnywhere, Category = "Collider")
	FName Name;
	/** The bone it moves with. */
	UPROPERTY(EditAnywhere, Category = "Collider")
	FName Bone;
	/** Sphere, capsule, plane, or inside a sphere or capsule (VRM extended colliders). */
	UPROPERTY(EditAnywhere, Category = "Collider")
	ESecmoColliderShape Shape = ESecmoColliderShape::Sphere;
	/** Centre (a capsule's first end; a plane's point), cm, in the bone's frame. */
	UPROPERTY(EditAnywhere, Category = "Collider")
	FVector A = FVector::ZeroVector;
	/** A capsule's second end, cm, in the bone's frame (a plane's normal). */
	UPROPERTY(EditAnywhere, Category = "Collider")
	FVector B = FVector::ZeroVector;
	/** Radius, cm. */
	UPROPERTY(EditAnywhere, Category = "Collider", meta = (ClampMin = "0", ClampMax = "200"))
	float Radius = 5.0f;
};

/** A VRM joint's angle limit (VRMC_springBone_limit; settings "limits", docs/settings.md). */
USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoJointLimitSetting
{
	GENERATED_BODY()

	/** Cone: within Angle of the bone axis. Hinge: in the limit's y–z plane, within Angle. Spherical: pitch
	 *  within Angle, yaw within Yaw. */
	UPROPERTY(EditAnywhere, Category = "Limit")
	ESecmoLimitShape Shape = ESecmoLimitShape::None;
	/** The cone's or hinge's angle, or the spherical limit's pitch, degrees. */
	UPROPERTY(EditAnywhere, Category = "Limit", meta = (ClampMin = "0", ClampMax = "180"))
	float AngleDegrees = 0.0f;
	/** The spherical limit's yaw, degrees. */
	UPROPERTY(EditAnywhere, Category = "Limit", meta = (ClampMin = "0", ClampMax = "90"))
	float YawDegrees = 0.0f;
	/** The limit's turn from its default frame (the bone axis). */
	UPROPERTY(EditAnywhere, Category = "Limit")
	FQuat Rotation = FQuat(0.0, 0.0, 0.0, 1.0);
};

USTRUCT(BlueprintType)
struct SECMORUNTIME_API FSecmoChainSetting
{
	GENERATED_BODY()

	/** The values a new chain starts from. Changing it resets the numbers. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	ESecmoChainPreset Preset = ESecmoChainPreset::Tail;
	/** The bone the chain hangs from (pelvis for a tail, head for hair). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	FName Anchor;
	/** The chain's bones from the root outward. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<FName> Joints;
	/** The chain's numbers. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	FSecmoChainParams Params;
	/** Per-joint link radii, cm (empty: Radius for all). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<float> Radii;
	/** Per-joint weights, 0–1 (empty: 1 for all). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<float> Weights;
	/** Give the last link's end explicitly (else from the skeleton). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	bool bHasEndOffset = false;
	/** Where the last link ends, cm, in the last joint's frame. */
	UPROPERTY(EditAnywhere, Category = "Chain", meta = (EditCondition = "bHasEndOffset"))
	FVector EndOffset = FVector::ZeroVector;
	/** Collider names the chain collides with. */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<FName> Colliders;
	/** VRM preset: per-joint (stiffness, drag force, gravity power) added to the chain's, where a VRM
	 *  spring's numbers change along it (empty: the chain's for every joint). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<FVector> VrmOffsets;
	/** VRM preset: per-joint angle limits (VRMC_springBone_limit; empty: none). */
	UPROPERTY(EditAnywhere, Category = "Chain")
	TArray<FSecmoJointLimitSetting> Limits;
	/** The preset the numbers were filled from (a changed preset refills them). */
	UPROPERTY()
	FString FilledFrom;
};

UCLASS(BlueprintType)
class SECMORUNTIME_API USecmoRigAsset : public UPrimaryDataAsset
{
	GENERATED_BODY()

public:
	/** Helper-bone translation springs (docs/algorithms.md §3). */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoSpringSetting> Springs;
	/** Rotation constraints (docs/algorithms.md §4). */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoConstraintSetting> Constraints;
	/** VRM node constraints. */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoNodeConstraintSetting> NodeConstraints;
	/** Proximity correctives (docs/algorithms.md §5). */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoCorrectiveSetting> Correctives;
	/** Colliders the chains list by name. */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoColliderSetting> Colliders;
	/** Tails and hair (docs/algorithms.md §7, §8). */
	UPROPERTY(EditAnywhere, Category = "Secmo")
	TArray<FSecmoChainSetting> Chains;

	/** A rig-settings file (.json) for Import and Export below. */
	UPROPERTY(EditAnywhere, Category = "Secmo|File")
	FString SettingsFile;
	/** What the last import or export said. */
	UPROPERTY(VisibleAnywhere, Transient, Category = "Secmo|File")
	FString LastMessage;

	/** Reads Settings File into the fields (presets filled in; a file in metres, as from a VRM, becomes centimetres). */
	UFUNCTION(CallInEditor, Category = "Secmo|File")
	void ImportFromSettingsFile();
	/** Writes the fields to Settings File as a rig-settings text (centimetres). */
	UFUNCTION(CallInEditor, Category = "Secmo|File")
	void ExportToSettingsFile();

	/** Reads a rig-settings file (as written by the secmo tool, Unity or a VRM import) into the fields. */
	UFUNCTION(BlueprintCallable, Category = "Secmo")
	bool ImportSettingsFile(const FString& Path, FString& OutError);
	/** Writes the fields to a rig-settings file. */
	UFUNCTION(BlueprintCallable, Category = "Secmo")
	bool ExportSettingsFile(const FString& Path, FString& OutError) const;

	/** The rig-settings text of the fields, every value explicit, in centimetres. */
	FString ToJson() const;
	/** Replaces the fields with a rig-settings text's; on failure nothing changes and OutError names the line or field. */
	bool FromJson(const FString& Text, FString& OutError);
	/** Fills each entry whose preset is not the one its numbers came from, from the library. */
	bool FillPresets(FString& OutError);

	// UObject
	virtual void PostLoad() override;
#if WITH_EDITOR
	virtual void PostEditChangeProperty(FPropertyChangedEvent& PropertyChangedEvent) override;
#endif

	/** Assets saved before the typed fields kept the text here; PostLoad reads it into the fields and clears it. */
	UPROPERTY()
	FString Settings;
};
