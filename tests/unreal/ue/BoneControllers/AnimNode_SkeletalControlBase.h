// Model of Animation/AnimNodeBase.h, BonePose.h, BoneContainer.h and
// BoneControllers/AnimNode_SkeletalControlBase.h (UE 5.4/5.5), see CoreMinimal.h.
#pragma once
#include "CoreMinimal.h"

enum class ETeleportType : uint8 { None, TeleportPhysics, ResetPhysics };

/// No default constructor: the index is explicit (BoneIndices.h).
struct FCompactPoseBoneIndex {
    explicit FCompactPoseBoneIndex(int32 i) : Index(i) {}
    int32 GetInt() const { return Index; }
    bool IsValid() const { return Index != INDEX_NONE; }
private:
    int32 Index;
};
struct FMeshPoseBoneIndex {
    explicit FMeshPoseBoneIndex(int32 i) : Index(i) {}
    int32 GetInt() const { return Index; }
private:
    int32 Index;
};

class FReferenceSkeleton {
public:
    int32 GetNum() const { return Pose.Num(); }
    int32 GetParentIndex(const int32) const { return INDEX_NONE; }
    int32 FindBoneIndex(const FName&) const { return INDEX_NONE; }
    const TArray<FTransform>& GetRefBonePose() const { return Pose; }
    FName GetBoneName(int32) const { return FName(); }
private:
    TArray<FTransform> Pose;
};

class FBoneContainer {
public:
    int32 GetCompactPoseNumBones() const { return 0; }
    const FReferenceSkeleton& GetReferenceSkeleton() const { return Ref; }
    FCompactPoseBoneIndex GetParentBoneIndex(const FCompactPoseBoneIndex&) const { return FCompactPoseBoneIndex(-1); }
    FMeshPoseBoneIndex MakeMeshPoseIndex(const FCompactPoseBoneIndex& i) const { return FMeshPoseBoneIndex(i.GetInt()); }
private:
    FReferenceSkeleton Ref;
};

class USkeleton : public UObject {
public:
    const FReferenceSkeleton& GetReferenceSkeleton() const { return Ref; }
private:
    FReferenceSkeleton Ref;
};

/// BoneContainer.h: a bone by name, resolved per LOD.
struct FBoneReference {
    FName BoneName;
    bool Initialize(const FBoneContainer&) { return true; }
    FCompactPoseBoneIndex GetCompactPoseIndex(const FBoneContainer&) const { return FCompactPoseBoneIndex(INDEX_NONE); }
};

class USkeletalMeshComponent;
class FAnimInstanceProxy {
public:
    const FTransform& GetComponentTransform() const { return T; }
    USkeletalMeshComponent* GetSkelMeshComponent() const { return nullptr; }
private:
    FTransform T;
};

struct FAnimationBaseContext {
    FAnimInstanceProxy* AnimInstanceProxy = nullptr;
};
struct FAnimationInitializeContext : FAnimationBaseContext {};
struct FAnimationCacheBonesContext : FAnimationBaseContext {};
struct FAnimationUpdateContext : FAnimationBaseContext {
    float GetDeltaTime() const { return 0.0f; }
};

struct FCSPose {
    const FTransform& GetComponentSpaceTransform(FCompactPoseBoneIndex) { return T; }
    FTransform T;
};
struct FComponentSpacePoseContext : FAnimationBaseContext {
    FCSPose Pose;
};

struct FBoneTransform {
    FBoneTransform(FCompactPoseBoneIndex InBoneIndex, const FTransform& InTransform) : BoneIndex(InBoneIndex), Transform(InTransform) {}
    FCompactPoseBoneIndex BoneIndex;
    FTransform Transform;
};

class FNodeDebugData {
public:
    template <class T> FString GetNodeName(T*) const { return FString(); }
    void AddDebugItem(const FString&, bool = false) {}
};

struct FComponentSpacePoseLink {
    void GatherDebugData(FNodeDebugData&) {}
};

struct FAnimNode_Base {
    virtual ~FAnimNode_Base() = default;
    virtual void Initialize_AnyThread(const FAnimationInitializeContext&) {}
    virtual void Update_AnyThread(const FAnimationUpdateContext&) {}
    virtual void CacheBones_AnyThread(const FAnimationCacheBonesContext&) {}
    virtual void GatherDebugData(FNodeDebugData&) {}
    virtual bool NeedsDynamicReset() const { return false; }
    virtual void ResetDynamics(ETeleportType) {}
};

/// Update_AnyThread is final here (it runs the alpha and calls
/// UpdateInternal): a skeletal control overrides UpdateInternal, as
/// KawaiiPhysics does (AnimNode_KawaiiPhysics.h: `virtual void
/// UpdateInternal(const FAnimationUpdateContext& Context) override;`, beside
/// EvaluateSkeletalControl_AnyThread, IsValidToEvaluate, NeedsDynamicReset,
/// ResetDynamics and InitializeBoneReferences with the signatures below).
struct FAnimNode_SkeletalControlBase : FAnimNode_Base {
    FComponentSpacePoseLink ComponentPose;
    float Alpha = 1.0f;
    float ActualAlpha = 0.0f;
    void Initialize_AnyThread(const FAnimationInitializeContext&) override {}
    void Update_AnyThread(const FAnimationUpdateContext&) override final {}
    virtual void UpdateInternal(const FAnimationUpdateContext&) {}
    virtual void EvaluateSkeletalControl_AnyThread(FComponentSpacePoseContext&, TArray<FBoneTransform>&) {}
    virtual bool IsValidToEvaluate(const USkeleton*, const FBoneContainer&) { return false; }
protected:
    virtual void InitializeBoneReferences(const FBoneContainer&) {}
};
