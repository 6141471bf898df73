#include "SecmoRigAsset.h"

#include "Dom/JsonObject.h"
#include "Dom/JsonValue.h"
#include "Misc/FileHelper.h"
#include "Serialization/JsonReader.h"
#include "Serialization/JsonSerializer.h"
#include "secmo.hpp"

namespace
{
// The one list of parameter keys (docs/settings.md): each field of the
// parameter structs with its key in the rig-settings text. Reading and
// writing both go through these tables; tests/unreal_plugin.rs checks them
// against the library's keys.
template <class S>
struct TFloatKey
{
	const TCHAR* Key;
	float S::*Member;
};
template <class S>
struct TBoolKey
{
	const TCHAR* Key;
	bool S::*Member;
};

const TFloatKey<FSecmoChainParams> ChainFloats[] = {
	{TEXT("frequency_root"), &FSecmoChainParams::FrequencyRoot},
	{TEXT("frequency_tip"), &FSecmoChainParams::FrequencyTip},
	{TEXT("damping_ratio"), &FSecmoChainParams::DampingRatio},
	{TEXT("stiffness"), &FSecmoChainParams::Stiffness},
	{TEXT("damping"), &FSecmoChainParams::Damping},
	{TEXT("gravity"), &FSecmoChainParams::Gravity},
	{TEXT("carry_angle_degrees"), &FSecmoChainParams::CarryAngleDegrees},
	{TEXT("rest_curve"), &FSecmoChainParams::RestCurve},
	{TEXT("bend_rate"), &FSecmoChainParams::BendRate},
	{TEXT("bend_limit_degrees"), &FSecmoChainParams::BendLimitDegrees},
	{TEXT("floor_height"), &FSecmoChainParams::FloorHeight},
	{TEXT("floor_clearance"), &FSecmoChainParams::FloorClearance},
	{TEXT("floor_damping"), &FSecmoChainParams::FloorDamping},
	{TEXT("radius"), &FSecmoChainParams::Radius},
	{TEXT("weight"), &FSecmoChainParams::Weight},
	{TEXT("wind_factor"), &FSecmoChainParams::WindFactor},
	{TEXT("time_factor"), &FSecmoChainParams::TimeFactor},
	{TEXT("lod_skip_below"), &FSecmoChainParams::LodSkipBelow},
	{TEXT("lod_half_below"), &FSecmoChainParams::LodHalfBelow},
	{TEXT("teleport_distance"), &FSecmoChainParams::TeleportDistance},
	{TEXT("teleport_angle_degrees"), &FSecmoChainParams::TeleportAngleDegrees},
	{TEXT("inertia"), &FSecmoChainParams::Inertia},
	{TEXT("vrm_stiffness"), &FSecmoChainParams::VrmStiffness},
	{TEXT("vrm_drag_force"), &FSecmoChainParams::VrmDragForce},
	{TEXT("vrm_gravity_power"), &FSecmoChainParams::VrmGravityPower},
	{TEXT("settle_speedup"), &FSecmoChainParams::SettleSpeedup},
	{TEXT("animation_inertia"), &FSecmoChainParams::AnimationInertia},
	{TEXT("key_margin_degrees"), &FSecmoChainParams::KeyMarginDegrees},
};
const TBoolKey<FSecmoChainParams> ChainBools[] = {
	{TEXT("forward_plane"), &FSecmoChainParams::bForwardPlane},
	{TEXT("velocity_from_positions"), &FSecmoChainParams::bVelocityFromPositions},
	{TEXT("floor_enabled"), &FSecmoChainParams::bFloorEnabled},
	{TEXT("teleport_restart"), &FSecmoChainParams::bTeleportRestart},
};
// Also chain keys: "integrator", "rest_source", "gravity_direction", "simulation_space".

const TFloatKey<FSecmoSpringParams> SpringFloats[] = {
	{TEXT("stiffness"), &FSecmoSpringParams::Stiffness},
	{TEXT("damping"), &FSecmoSpringParams::Damping},
	{TEXT("max_offset"), &FSecmoSpringParams::MaxOffset},
	{TEXT("max_substep_displacement"), &FSecmoSpringParams::MaxSubstepDisplacement},
	{TEXT("reset_threshold"), &FSecmoSpringParams::ResetThreshold},
	{TEXT("time_factor"), &FSecmoSpringParams::TimeFactor},
	{TEXT("alpha"), &FSecmoSpringParams::Alpha},
};
// Also spring keys: "history_length", "extra_velocity" (and the entry's "bone", "preset").

const TCHAR* const SpringPresetNames[] = {TEXT("hip"), TEXT("chest")};
const TCHAR* const ChainPresetNames[] = {TEXT("tail"), TEXT("hair"), TEXT("vrm")};
const TCHAR* const IntegratorNames[] = {TEXT("spring"), TEXT("exponential_damping"), TEXT("vrm")};
const TCHAR* const RestSourceNames[] = {TEXT("auto"), TEXT("bind"), TEXT("animated")};
const TCHAR* const ShapeNames[] = {TEXT("sphere"), TEXT("capsule"), TEXT("plane"), TEXT("inside_sphere"), TEXT("inside_capsule")};
const TCHAR* const SideNames[] = {TEXT("center"), TEXT("left"), TEXT("right")};
const TCHAR* const KindNames[] = {TEXT("roll"), TEXT("aim"), TEXT("rotation")};
const TCHAR* const LimitShapeNames[] = {TEXT("none"), TEXT("cone"), TEXT("hinge"), TEXT("spherical")};

template <class E, int32 N>
const TCHAR* NameOf(E Value, const TCHAR* const (&Names)[N])
{
	const int32 Index = int32(Value);
	return Index >= 0 && Index < N ? Names[Index] : Names[0];
}

template <class E, int32 N>
bool ValueOf(const FString& Text, const TCHAR* const (&Names)[N], E& Out)
{
	for (int32 Index = 0; Index < N; ++Index)
	{
		if (Text == Names[Index])
		{
			Out = E(Index);
			return true;
		}
	}
	return false;
}

// ---- writing ----

FString Quote(const FString& Text)
{
	return TEXT("\"") + Text.Replace(TEXT("\\"), TEXT("\\\\")).Replace(TEXT("\""), TEXT("\\\"")) + TEXT("\"");
}

FString Number(double Value)
{
	return FString::SanitizeFloat(Value);
}

FString Vector(const FVector& V)
{
	return TEXT("[") + Number(V.X) + TEXT(", ") + Number(V.Y) + TEXT(", ") + Number(V.Z) + TEXT("]");
}

FString Vectors(const TArray<FVector>& Values)
{
	TArray<FString> Parts;
	for (const FVector& V : Values)
	{
		Parts.Add(Vector(V));
	}
	return TEXT("[") + FString::Join(Parts, TEXT(", ")) + TEXT("]");
}

FString Names(const TArray<FName>& Values)
{
	TArray<FString> Parts;
	for (const FName& Name : Values)
	{
		Parts.Add(Quote(Name.ToString()));
	}
	return TEXT("[") + FString::Join(Parts, TEXT(", ")) + TEXT("]");
}

FString Numbers(const TArray<float>& Values)
{
	TArray<FString> Parts;
	for (const float Value : Values)
	{
		Parts.Add(Number(Value));
	}
	return TEXT("[") + FString::Join(Parts, TEXT(", ")) + TEXT("]");
}

/** `"key": value` pairs of one JSON object. */
struct FObjectText
{
	TArray<FString> Parts;
	void Add(const TCHAR* Key, const FString& Json) { Parts.Add(Quote(Key) + TEXT(": ") + Json); }
	FString Text() const { return TEXT("{") + FString::Join(Parts, TEXT(", ")) + TEXT("}"); }
};

FString List(const TArray<FString>& Items)
{
	return TEXT("[\n    ") + FString::Join(Items, TEXT(",\n    ")) + TEXT("\n  ]");
}

void WriteSpringParams(const FSecmoSpringParams& P, FObjectText& Out)
{
	for (const TFloatKey<FSecmoSpringParams>& F : SpringFloats)
	{
		Out.Add(F.Key, Number(P.*F.Member));
	}
	Out.Add(TEXT("history_length"), FString::FromInt(P.HistoryLength));
	Out.Add(TEXT("extra_velocity"), Vector(P.ExtraVelocity));
}

FString ChainParamsText(const FSecmoChainParams& P)
{
	FObjectText Out;
	Out.Add(TEXT("integrator"), Quote(NameOf(P.Integrator, IntegratorNames)));
	Out.Add(TEXT("rest_source"), Quote(NameOf(P.RestSource, RestSourceNames)));
	for (const TFloatKey<FSecmoChainParams>& F : ChainFloats)
	{
		Out.Add(F.Key, Number(P.*F.Member));
	}
	for (const TBoolKey<FSecmoChainParams>& F : ChainBools)
	{
		Out.Add(F.Key, P.*F.Member ? TEXT("true") : TEXT("false"));
	}
	Out.Add(TEXT("gravity_direction"), Vector(P.GravityDirection));
	if (!P.SimulationSpace.IsNone())
	{
		Out.Add(TEXT("simulation_space"), Quote(P.SimulationSpace.ToString()));
	}
	return Out.Text();
}

// ---- reading ----

/** Reads one object's fields, each error naming its path. */
struct FReader
{
	const FJsonObject& Object;
	FString Path;
	FString& Error;

	bool Fail(const TCHAR* Key, const TCHAR* What) const
	{
		Error = Path + TEXT(".") + Key + TEXT(": ") + What;
		return false;
	}
	bool Float(const TCHAR* Key, float& Out) const
	{
		double Value = 0.0;
		if (!Object.TryGetNumberField(Key, Value))
		{
			return Fail(Key, TEXT("a number was expected"));
		}
		Out = float(Value);
		return true;
	}
	bool OptionalFloat(const TCHAR* Key, float& Out) const { return !Object.HasField(Key) || Float(Key, Out); }
	bool Bool(const TCHAR* Key, bool& Out) const
	{
		return Object.TryGetBoolField(Key, Out) || Fail(Key, TEXT("true or false was expected"));
	}
	bool Name(const TCHAR* Key, FName& Out) const
	{
		FString Text;
		if (!Object.TryGetStringField(Key, Text))
		{
			return Fail(Key, TEXT("a bone name was expected"));
		}
		Out = FName(*Text);
		return true;
	}
	bool Vector(const TCHAR* Key, FVector& Out) const
	{
		const TArray<TSharedPtr<FJsonValue>>* Items = nullptr;
		double X = 0.0, Y = 0.0, Z = 0.0;
		if (!Object.TryGetArrayField(Key, Items) || Items->Num() != 3 || !(*Items)[0]->TryGetNumber(X)
			|| !(*Items)[1]->TryGetNumber(Y) || !(*Items)[2]->TryGetNumber(Z))
		{
			return Fail(Key, TEXT("[x, y, z] was expected"));
		}
		Out = FVector(X, Y, Z);
		return true;
	}
	bool OptionalVector(const TCHAR* Key, FVector& Out) const { return !Object.HasField(Key) || Vector(Key, Out); }
	template <class E, int32 N>
	bool Enum(const TCHAR* Key, const TCHAR* const (&Names)[N], E& Out) const
	{
		FString Text;
		if (!Object.TryGetStringField(Key, Text) || !ValueOf(Text, Names, Out))
		{
			return Fail(Key, TEXT("not one of the names docs/settings.md lists"));
		}
		return true;
	}
	template <class E, int32 N>
	bool OptionalEnum(const TCHAR* Key, const TCHAR* const (&Names)[N], E& Out) const
	{
		return !Object.HasField(Key) || Enum(Key, Names, Out);
	}
	bool NameList(const TCHAR* Key, TArray<FName>& Out) const
	{
		const TArray<TSharedPtr<FJsonValue>>* Items = nullptr;
		if (!Object.TryGetArrayField(Key, Items))
		{
			return !Object.HasField(Key) || Fail(Key, TEXT("a list of names was expected"));
		}
		for (const TSharedPtr<FJsonValue>& Item : *Items)
		{
			FString Text;
			if (!Item->TryGetString(Text))
			{
				return Fail(Key, TEXT("a list of names was expected"));
			}
			Out.Add(FName(*Text));
		}
		return true;
	}
	bool VectorList(const TCHAR* Key, TArray<FVector>& Out) const
	{
		const TArray<TSharedPtr<FJsonValue>>* Items = nullptr;
		if (!Object.TryGetArrayField(Key, Items))
		{
			return !Object.HasField(Key) || Fail(Key, TEXT("a list of [a, b, c] was expected"));
		}
		for (const TSharedPtr<FJsonValue>& Item : *Items)
		{
			const TArray<TSharedPtr<FJsonValue>>* Parts = nullptr;
			double X = 0.0, Y = 0.0, Z = 0.0;
			if (!Item->TryGetArray(Parts) || Parts->Num() != 3 || !(*Parts)[0]->TryGetNumber(X)
				|| !(*Parts)[1]->TryGetNumber(Y) || !(*Parts)[2]->TryGetNumber(Z))
			{
				return Fail(Key, TEXT("a list of [a, b, c] was expected"));
			}
			Out.Add(FVector(X, Y, Z));
		}
		return true;
	}
	bool NumberList(const TCHAR* Key, TArray<float>& Out) const
	{
		const TArray<TSharedPtr<FJsonValue>>* Items = nullptr;
		if (!Object.TryGetArrayField(Key, Items))
		{
			return !Object.HasField(Key) || Fail(Key, TEXT("a list of numbers was expected"));
		}
		for (const TSharedPtr<FJsonValue>& Item : *Items)
		{
			double Value = 0.0;
			if (!Item->TryGetNumber(Value))
			{
				return Fail(Key, TEXT("a list of numbers was expected"));
			}
			Out.Add(float(Value));
		}
		return true;
	}
	/** Every key of the object is one of `Known` (a misspelt or unknown field is an error). */
	template <int32 N>
	bool OnlyKeys(const TCHAR* const (&Known)[N]) const
	{
		for (const TPair<FString, TSharedPtr<FJsonValue>>& Pair : Object.Values)
		{
			bool Found = false;
			for (const TCHAR* Key : Known)
			{
				Found = Found || Pair.Key == Key;
			}
			if (!Found)
			{
				Error = Path + TEXT(".") + Pair.Key + TEXT(": no field of the asset holds it");
				return false;
			}
		}
		return true;
	}
};

bool ReadSpringParams(const FReader& R, FSecmoSpringParams& P)
{
	for (const TFloatKey<FSecmoSpringParams>& F : SpringFloats)
	{
		if (!R.Float(F.Key, P.*F.Member))
		{
			return false;
		}
	}
	float History = 0.0f;
	if (!R.Float(TEXT("history_length"), History) || !R.Vector(TEXT("extra_velocity"), P.ExtraVelocity))
	{
		return false;
	}
	P.HistoryLength = int32(History + 0.5f);
	return true;
}

bool ReadChainParams(const FReader& R, FSecmoChainParams& P)
{
	for (const TPair<FString, TSharedPtr<FJsonValue>>& Pair : R.Object.Values)
	{
		bool Known = Pair.Key == TEXT("integrator") || Pair.Key == TEXT("gravity_direction") || Pair.Key == TEXT("simulation_space");
		for (const TFloatKey<FSecmoChainParams>& F : ChainFloats)
		{
			Known = Known || Pair.Key == F.Key;
		}
		for (const TBoolKey<FSecmoChainParams>& F : ChainBools)
		{
			Known = Known || Pair.Key == F.Key;
		}
		if (!Known)
		{
			R.Error = R.Path + TEXT(".") + Pair.Key + TEXT(": no field of FSecmoChainParams holds it");
			return false;
		}
	}
	for (const TFloatKey<FSecmoChainParams>& F : ChainFloats)
	{
		if (!R.Float(F.Key, P.*F.Member))
		{
			return false;
		}
	}
	for (const TBoolKey<FSecmoChainParams>& F : ChainBools)
	{
		if (!R.Bool(F.Key, P.*F.Member))
		{
			return false;
		}
	}
	if (!R.Enum(TEXT("integrator"), IntegratorNames, P.Integrator) || !R.OptionalEnum(TEXT("rest_source"), RestSourceNames, P.RestSource)
		|| !R.Vector(TEXT("gravity_direction"), P.GravityDirection))
	{
		return false;
	}
	P.SimulationSpace = NAME_None;
	FString Space;
	if (R.Object.TryGetStringField(TEXT("simulation_space"), Space))
	{
		P.SimulationSpace = FName(*Space);
	}
	return true;
}

/** The settings text with every preset filled in, in centimetres (secmo_settings_expand), as a JSON tree. */
bool Expand(const FString& Text, TSharedPtr<FJsonObject>& Root, FString& OutError)
{
	const FTCHARToUTF8 Utf8(*Text);
	const std::string_view View(Utf8.Get(), size_t(Utf8.Length()));
	size_t Needed = 0;
	(void)secmo::settings_expand(View, secmo::convention::kUnrealUnitsPerMeter, nullptr, 0, &Needed);
	TArray<char> Buffer;
	Buffer.SetNum(int32(Needed));
	const secmo::Status Status =
		secmo::settings_expand(View, secmo::convention::kUnrealUnitsPerMeter, Buffer.GetData(), Needed, &Needed);
	if (!Status)
	{
		OutError = UTF8_TO_TCHAR(Status.message());
		return false;
	}
	const FString Expanded = UTF8_TO_TCHAR(Buffer.GetData());
	const TSharedRef<TJsonReader<>> Reader = TJsonReaderFactory<>::Create(Expanded);
	if (!FJsonSerializer::Deserialize(Reader, Root) || !Root.IsValid())
	{
		OutError = TEXT("the expanded settings could not be read back as JSON");
		return false;
	}
	return true;
}

/** The entries of the list `Key` (absent: none); each must be an object. */
bool Entries(const FJsonObject& Root, const TCHAR* Key, TArray<const FJsonObject*>& Out, FString& Error)
{
	const TArray<TSharedPtr<FJsonValue>>* Items = nullptr;
	if (!Root.TryGetArrayField(Key, Items))
	{
		if (Root.HasField(Key))
		{
			Error = FString(Key) + TEXT(": a list was expected");
			return false;
		}
		return true;
	}
	for (const TSharedPtr<FJsonValue>& Item : *Items)
	{
		const TSharedPtr<FJsonObject>* Object = nullptr;
		if (!Item->TryGetObject(Object))
		{
			Error = FString(Key) + TEXT(": every entry must be an object");
			return false;
		}
		Out.Add(Object->Get());
	}
	return true;
}

FString At(const TCHAR* List, int32 Index)
{
	return FString(List) + TEXT("[") + FString::FromInt(Index) + TEXT("]");
}
} // namespace

FString USecmoRigAsset::ToJson() const
{
	FObjectText Root;
	Root.Add(TEXT("format"), Quote(TEXT("secmo-rig-settings")));
	Root.Add(TEXT("version"), TEXT("1"));
	// Centimetres: a Unity asset (metres) converts this on import.
	Root.Add(TEXT("units_per_meter"), Number(secmo::convention::kUnrealUnitsPerMeter));
	TArray<FString> Items;
	for (const FSecmoSpringSetting& S : Springs)
	{
		FObjectText O;
		O.Add(TEXT("bone"), Quote(S.Bone.ToString()));
		O.Add(TEXT("preset"), Quote(NameOf(S.Preset, SpringPresetNames)));
		WriteSpringParams(S.Params, O);
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("springs"), List(Items));
	}
	Items.Reset();
	for (const FSecmoConstraintSetting& C : Constraints)
	{
		FObjectText O;
		O.Add(TEXT("bone"), Quote(C.Bone.ToString()));
		O.Add(TEXT("target"), Quote(C.Target.ToString()));
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("constraints"), List(Items));
	}
	Items.Reset();
	for (const FSecmoNodeConstraintSetting& C : NodeConstraints)
	{
		FObjectText O;
		O.Add(TEXT("kind"), Quote(NameOf(C.Kind, KindNames)));
		O.Add(TEXT("source"), Quote(C.Source.ToString()));
		O.Add(TEXT("destination"), Quote(C.Destination.ToString()));
		if (!C.Axis.IsEmpty())
		{
			O.Add(TEXT("axis"), Quote(C.Axis));
		}
		O.Add(TEXT("weight"), Number(C.Weight));
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("node_constraints"), List(Items));
	}
	Items.Reset();
	for (const FSecmoCorrectiveSetting& C : Correctives)
	{
		FObjectText O;
		O.Add(TEXT("driven"), Quote(C.Driven.ToString()));
		O.Add(TEXT("side"), Quote(NameOf(C.Side, SideNames)));
		if (C.bOverrideRate)
		{
			O.Add(TEXT("rate"), Number(C.Rate));
		}
		if (C.Probes.Num() > 0)
		{
			TArray<FString> Probes;
			for (const FSecmoProbeSetting& P : C.Probes)
			{
				FObjectText Same, Opposite, Probe;
				Same.Add(TEXT("translation"), Vector(P.Same.Translation));
				Same.Add(TEXT("scale"), Vector(P.Same.Scale));
				Opposite.Add(TEXT("translation"), Vector(P.Opposite.Translation));
				Opposite.Add(TEXT("scale"), Vector(P.Opposite.Scale));
				Probe.Add(TEXT("bone"), Quote(P.Bone.ToString()));
				Probe.Add(TEXT("threshold"), Number(P.Threshold));
				Probe.Add(TEXT("weight"), Number(P.Weight));
				Probe.Add(TEXT("side"), Quote(NameOf(P.Side, SideNames)));
				Probe.Add(TEXT("same"), Same.Text());
				Probe.Add(TEXT("opposite"), Opposite.Text());
				Probes.Add(Probe.Text());
			}
			O.Add(TEXT("probes"), TEXT("[") + FString::Join(Probes, TEXT(", ")) + TEXT("]"));
		}
		if (C.bUseBtob)
		{
			FObjectText B;
			B.Add(TEXT("other_chest"), Quote(C.Btob.OtherChest.ToString()));
			B.Add(TEXT("upper_arm_l"), Quote(C.Btob.UpperArmL.ToString()));
			B.Add(TEXT("forearm_l"), Quote(C.Btob.ForearmL.ToString()));
			B.Add(TEXT("hand_l"), Quote(C.Btob.HandL.ToString()));
			B.Add(TEXT("upper_arm_r"), Quote(C.Btob.UpperArmR.ToString()));
			B.Add(TEXT("forearm_r"), Quote(C.Btob.ForearmR.ToString()));
			B.Add(TEXT("hand_r"), Quote(C.Btob.HandR.ToString()));
			B.Add(TEXT("medial_x"), Number(C.Btob.MedialX));
			B.Add(TEXT("chest_gap"), Number(C.Btob.ChestGap));
			O.Add(TEXT("btob"), B.Text());
		}
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("correctives"), List(Items));
	}
	Items.Reset();
	for (const FSecmoColliderSetting& C : Colliders)
	{
		FObjectText O;
		O.Add(TEXT("name"), Quote(C.Name.ToString()));
		O.Add(TEXT("bone"), Quote(C.Bone.ToString()));
		O.Add(TEXT("shape"), Quote(NameOf(C.Shape, ShapeNames)));
		O.Add(TEXT("a"), Vector(C.A));
		O.Add(TEXT("b"), Vector(C.B));
		O.Add(TEXT("radius"), Number(C.Radius));
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("colliders"), List(Items));
	}
	Items.Reset();
	for (const FSecmoChainSetting& C : Chains)
	{
		FObjectText O;
		O.Add(TEXT("preset"), Quote(NameOf(C.Preset, ChainPresetNames)));
		O.Add(TEXT("anchor"), Quote(C.Anchor.ToString()));
		O.Add(TEXT("joints"), Names(C.Joints));
		O.Add(TEXT("params"), ChainParamsText(C.Params));
		if (C.Radii.Num() > 0)
		{
			O.Add(TEXT("radii"), Numbers(C.Radii));
		}
		if (C.Weights.Num() > 0)
		{
			O.Add(TEXT("weights"), Numbers(C.Weights));
		}
		if (C.bHasEndOffset)
		{
			O.Add(TEXT("end_offset"), Vector(C.EndOffset));
		}
		if (C.Colliders.Num() > 0)
		{
			O.Add(TEXT("colliders"), Names(C.Colliders));
		}
		if (C.VrmOffsets.Num() > 0)
		{
			O.Add(TEXT("vrm_offsets"), Vectors(C.VrmOffsets));
		}
		if (C.Limits.Num() > 0)
		{
			TArray<FString> Limits;
			for (const FSecmoJointLimitSetting& L : C.Limits)
			{
				FObjectText LO;
				LO.Add(TEXT("shape"), Quote(NameOf(L.Shape, LimitShapeNames)));
				LO.Add(TEXT("angle_degrees"), Number(L.AngleDegrees));
				LO.Add(TEXT("yaw_degrees"), Number(L.YawDegrees));
				LO.Add(TEXT("rotation"), TEXT("[") + Number(L.Rotation.X) + TEXT(", ") + Number(L.Rotation.Y) + TEXT(", ")
					+ Number(L.Rotation.Z) + TEXT(", ") + Number(L.Rotation.W) + TEXT("]"));
				Limits.Add(LO.Text());
			}
			O.Add(TEXT("limits"), TEXT("[") + FString::Join(Limits, TEXT(", ")) + TEXT("]"));
		}
		Items.Add(O.Text());
	}
	if (Items.Num() > 0)
	{
		Root.Add(TEXT("chains"), List(Items));
	}
	return Root.Text() + TEXT("\n");
}

bool USecmoRigAsset::FromJson(const FString& Text, FString& OutError)
{
	TSharedPtr<FJsonObject> Root;
	if (!Expand(Text, Root, OutError))
	{
		return false;
	}
	// Read everything into locals; the asset changes only if all of it reads.
	TArray<FSecmoSpringSetting> NewSprings;
	TArray<FSecmoConstraintSetting> NewConstraints;
	TArray<FSecmoNodeConstraintSetting> NewNodeConstraints;
	TArray<FSecmoCorrectiveSetting> NewCorrectives;
	TArray<FSecmoColliderSetting> NewColliders;
	TArray<FSecmoChainSetting> NewChains;
	const TCHAR* const RootKeys[] = {TEXT("format"), TEXT("version"), TEXT("units_per_meter"), TEXT("springs"),
		TEXT("constraints"), TEXT("node_constraints"), TEXT("correctives"), TEXT("colliders"), TEXT("chains")};
	if (!FReader{*Root, FString(), OutError}.OnlyKeys(RootKeys))
	{
		return false;
	}
	TArray<const FJsonObject*> List;
	if (!Entries(*Root, TEXT("springs"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("springs"), Index), OutError};
		FSecmoSpringSetting S;
		if (!R.Name(TEXT("bone"), S.Bone) || !R.Enum(TEXT("preset"), SpringPresetNames, S.Preset) || !ReadSpringParams(R, S.Params))
		{
			return false;
		}
		S.FilledFrom = NameOf(S.Preset, SpringPresetNames);
		NewSprings.Add(S);
	}
	List.Reset();
	if (!Entries(*Root, TEXT("constraints"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("constraints"), Index), OutError};
		FSecmoConstraintSetting C;
		if (!R.Name(TEXT("bone"), C.Bone) || !R.Name(TEXT("target"), C.Target))
		{
			return false;
		}
		NewConstraints.Add(C);
	}
	List.Reset();
	if (!Entries(*Root, TEXT("node_constraints"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("node_constraints"), Index), OutError};
		FSecmoNodeConstraintSetting C;
		if (!R.Enum(TEXT("kind"), KindNames, C.Kind) || !R.Name(TEXT("source"), C.Source)
			|| !R.Name(TEXT("destination"), C.Destination) || !R.OptionalFloat(TEXT("weight"), C.Weight))
		{
			return false;
		}
		(void)R.Object.TryGetStringField(TEXT("axis"), C.Axis);
		NewNodeConstraints.Add(C);
	}
	List.Reset();
	if (!Entries(*Root, TEXT("correctives"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("correctives"), Index), OutError};
		FSecmoCorrectiveSetting C;
		if (!R.Name(TEXT("driven"), C.Driven) || !R.OptionalEnum(TEXT("side"), SideNames, C.Side))
		{
			return false;
		}
		if (R.Object.HasField(TEXT("rate")))
		{
			C.bOverrideRate = true;
			if (!R.Float(TEXT("rate"), C.Rate))
			{
				return false;
			}
		}
		TArray<const FJsonObject*> Probes;
		if (!Entries(*List[Index], TEXT("probes"), Probes, OutError))
		{
			return false;
		}
		for (int32 P = 0; P < Probes.Num(); ++P)
		{
			const FReader PR{*Probes[P], R.Path + TEXT(".") + At(TEXT("probes"), P), OutError};
			FSecmoProbeSetting Probe;
			if (!PR.Name(TEXT("bone"), Probe.Bone) || !PR.Float(TEXT("threshold"), Probe.Threshold)
				|| !PR.OptionalFloat(TEXT("weight"), Probe.Weight) || !PR.OptionalEnum(TEXT("side"), SideNames, Probe.Side))
			{
				return false;
			}
			for (const bool SameSide : {true, false})
			{
				const TCHAR* Key = SameSide ? TEXT("same") : TEXT("opposite");
				FSecmoGainSetting& Gain = SameSide ? Probe.Same : Probe.Opposite;
				const TSharedPtr<FJsonObject>* GainObject = nullptr;
				if (Probes[P]->TryGetObjectField(Key, GainObject))
				{
					const FReader GR{*GainObject->Get(), PR.Path + TEXT(".") + Key, OutError};
					if (!GR.OptionalVector(TEXT("translation"), Gain.Translation) || !GR.OptionalVector(TEXT("scale"), Gain.Scale))
					{
						return false;
					}
				}
			}
			C.Probes.Add(Probe);
		}
		const TSharedPtr<FJsonObject>* Btob = nullptr;
		if (List[Index]->TryGetObjectField(TEXT("btob"), Btob))
		{
			C.bUseBtob = true;
			const FReader BR{*Btob->Get(), R.Path + TEXT(".btob"), OutError};
			if (!BR.Name(TEXT("other_chest"), C.Btob.OtherChest) || !BR.Name(TEXT("upper_arm_l"), C.Btob.UpperArmL)
				|| !BR.Name(TEXT("forearm_l"), C.Btob.ForearmL) || !BR.Name(TEXT("hand_l"), C.Btob.HandL)
				|| !BR.Name(TEXT("upper_arm_r"), C.Btob.UpperArmR) || !BR.Name(TEXT("forearm_r"), C.Btob.ForearmR)
				|| !BR.Name(TEXT("hand_r"), C.Btob.HandR) || !BR.Float(TEXT("medial_x"), C.Btob.MedialX)
				|| !BR.Float(TEXT("chest_gap"), C.Btob.ChestGap))
			{
				return false;
			}
		}
		NewCorrectives.Add(C);
	}
	List.Reset();
	if (!Entries(*Root, TEXT("colliders"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("colliders"), Index), OutError};
		FSecmoColliderSetting C;
		C.Radius = 0.0f;
		if (!R.Name(TEXT("name"), C.Name) || !R.Name(TEXT("bone"), C.Bone) || !R.Enum(TEXT("shape"), ShapeNames, C.Shape)
			|| !R.OptionalVector(TEXT("a"), C.A) || !R.OptionalVector(TEXT("b"), C.B) || !R.OptionalFloat(TEXT("radius"), C.Radius))
		{
			return false;
		}
		NewColliders.Add(C);
	}
	List.Reset();
	if (!Entries(*Root, TEXT("chains"), List, OutError))
	{
		return false;
	}
	for (int32 Index = 0; Index < List.Num(); ++Index)
	{
		const FReader R{*List[Index], At(TEXT("chains"), Index), OutError};
		FSecmoChainSetting C;
		const TCHAR* const ChainKeys[] = {TEXT("preset"), TEXT("anchor"), TEXT("joints"), TEXT("params"), TEXT("radii"),
			TEXT("weights"), TEXT("end_offset"), TEXT("colliders"), TEXT("vrm_offsets"), TEXT("limits")};
		if (!R.OnlyKeys(ChainKeys) || !R.Enum(TEXT("preset"), ChainPresetNames, C.Preset) || !R.Name(TEXT("anchor"), C.Anchor)
			|| !R.NameList(TEXT("joints"), C.Joints) || !R.NumberList(TEXT("radii"), C.Radii)
			|| !R.NumberList(TEXT("weights"), C.Weights) || !R.NameList(TEXT("colliders"), C.Colliders)
			|| !R.VectorList(TEXT("vrm_offsets"), C.VrmOffsets))
		{
			return false;
		}
		TArray<const FJsonObject*> Limits;
		if (!Entries(*List[Index], TEXT("limits"), Limits, OutError))
		{
			return false;
		}
		for (int32 L = 0; L < Limits.Num(); ++L)
		{
			const FReader LR{*Limits[L], R.Path + TEXT(".") + At(TEXT("limits"), L), OutError};
			const TCHAR* const LimitKeys[] = {TEXT("shape"), TEXT("angle_degrees"), TEXT("yaw_degrees"), TEXT("rotation")};
			FSecmoJointLimitSetting Limit;
			const TArray<TSharedPtr<FJsonValue>>* Q = nullptr;
			double X = 0.0, Y = 0.0, Z = 0.0, W = 1.0;
			if (!LR.OnlyKeys(LimitKeys) || !LR.Enum(TEXT("shape"), LimitShapeNames, Limit.Shape)
				|| !LR.OptionalFloat(TEXT("angle_degrees"), Limit.AngleDegrees)
				|| !LR.OptionalFloat(TEXT("yaw_degrees"), Limit.YawDegrees))
			{
				return false;
			}
			if (Limits[L]->HasField(TEXT("rotation")))
			{
				if (!Limits[L]->TryGetArrayField(TEXT("rotation"), Q) || Q->Num() != 4 || !(*Q)[0]->TryGetNumber(X)
					|| !(*Q)[1]->TryGetNumber(Y) || !(*Q)[2]->TryGetNumber(Z) || !(*Q)[3]->TryGetNumber(W))
				{
					return LR.Fail(TEXT("rotation"), TEXT("[x, y, z, w] was expected"));
				}
				Limit.Rotation = FQuat(X, Y, Z, W);
			}
			C.Limits.Add(Limit);
		}
		if (R.Object.HasField(TEXT("end_offset")))
		{
			C.bHasEndOffset = true;
			if (!R.Vector(TEXT("end_offset"), C.EndOffset))
			{
				return false;
			}
		}
		const TSharedPtr<FJsonObject>* Params = nullptr;
		if (!List[Index]->TryGetObjectField(TEXT("params"), Params)
			|| !ReadChainParams(FReader{*Params->Get(), R.Path + TEXT(".params"), OutError}, C.Params))
		{
			if (OutError.IsEmpty())
			{
				OutError = R.Path + TEXT(".params: the library gave no parameters");
			}
			return false;
		}
		C.FilledFrom = NameOf(C.Preset, ChainPresetNames);
		NewChains.Add(C);
	}
	Modify();
	Springs = MoveTemp(NewSprings);
	Constraints = MoveTemp(NewConstraints);
	NodeConstraints = MoveTemp(NewNodeConstraints);
	Correctives = MoveTemp(NewCorrectives);
	Colliders = MoveTemp(NewColliders);
	Chains = MoveTemp(NewChains);
	Settings.Reset();
	return true;
}

bool USecmoRigAsset::FillPresets(FString& OutError)
{
	for (FSecmoSpringSetting& S : Springs)
	{
		const FString Preset = NameOf(S.Preset, SpringPresetNames);
		if (S.FilledFrom == Preset)
		{
			continue;
		}
		TSharedPtr<FJsonObject> Root;
		TArray<const FJsonObject*> List;
		const FString Text = TEXT("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"springs\": [{\"bone\": \"b\", \"preset\": \"")
			+ Preset + TEXT("\"}]}");
		if (!Expand(Text, Root, OutError) || !Entries(*Root, TEXT("springs"), List, OutError) || List.Num() != 1
			|| !ReadSpringParams(FReader{*List[0], TEXT("springs[0]"), OutError}, S.Params))
		{
			return false;
		}
		S.FilledFrom = Preset;
	}
	for (FSecmoChainSetting& C : Chains)
	{
		const FString Preset = NameOf(C.Preset, ChainPresetNames);
		if (C.FilledFrom == Preset)
		{
			continue;
		}
		TSharedPtr<FJsonObject> Root;
		TArray<const FJsonObject*> List;
		const FString Text = TEXT("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"") + Preset
			+ TEXT("\", \"anchor\": \"a\", \"joints\": [\"j\"]}]}");
		const TSharedPtr<FJsonObject>* Params = nullptr;
		if (!Expand(Text, Root, OutError) || !Entries(*Root, TEXT("chains"), List, OutError) || List.Num() != 1
			|| !List[0]->TryGetObjectField(TEXT("params"), Params)
			|| !ReadChainParams(FReader{*Params->Get(), TEXT("chains[0].params"), OutError}, C.Params))
		{
			return false;
		}
		C.FilledFrom = Preset;
	}
	return true;
}

void USecmoRigAsset::PostLoad()
{
	UPrimaryDataAsset::PostLoad();
	// An asset saved as text before the typed fields: read it into them.
	if (!Settings.IsEmpty() && Springs.Num() + Constraints.Num() + NodeConstraints.Num() + Correctives.Num()
		+ Colliders.Num() + Chains.Num() == 0)
	{
		FString Error;
		if (!FromJson(Settings, Error))
		{
			UE_LOG(LogTemp, Warning, TEXT("secmo: %s: the saved settings text could not be read: %s"), *GetName(), *Error);
		}
	}
}

#if WITH_EDITOR
void USecmoRigAsset::PostEditChangeProperty(FPropertyChangedEvent& PropertyChangedEvent)
{
	UPrimaryDataAsset::PostEditChangeProperty(PropertyChangedEvent);
	// A new entry, or one whose preset changed, gets the preset's numbers.
	FString Error;
	if (!FillPresets(Error))
	{
		LastMessage = Error;
	}
}
#endif

void USecmoRigAsset::ImportFromSettingsFile()
{
	FString Error;
	LastMessage = ImportSettingsFile(SettingsFile, Error) ? FString::Printf(TEXT("read %s"), *SettingsFile) : Error;
}

void USecmoRigAsset::ExportToSettingsFile()
{
	FString Error;
	LastMessage = ExportSettingsFile(SettingsFile, Error) ? FString::Printf(TEXT("wrote %s"), *SettingsFile) : Error;
}

bool USecmoRigAsset::ImportSettingsFile(const FString& Path, FString& OutError)
{
	FString Text;
	if (!FFileHelper::LoadFileToString(Text, *Path))
	{
		OutError = FString::Printf(TEXT("%s: cannot read the file"), *Path);
		return false;
	}
	FString Error;
	if (!FromJson(Text, Error))
	{
		OutError = FString::Printf(TEXT("%s: %s"), *Path, *Error);
		return false;
	}
	return true;
}

bool USecmoRigAsset::ExportSettingsFile(const FString& Path, FString& OutError) const
{
	if (!FFileHelper::SaveStringToFile(ToJson(), *Path, FFileHelper::EEncodingOptions::ForceUTF8WithoutBOM))
	{
		OutError = FString::Printf(TEXT("%s: cannot write the file"), *Path);
		return false;
	}
	return true;
}
