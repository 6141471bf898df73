//! Constants, descriptors and plain structs of the C ABI, their layout
//! assertions and shipped `struct_size`s, and their conversions into the
//! Rust types.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

/// Version of this ABI. Bumped only by incompatible changes; growing a
/// descriptor (with `struct_size`) does not bump it.
pub const SECMO_ABI_VERSION: u32 = 1;

/// `SecmoFrameInput.flags`: teleport. Helper springs and correctives restart
/// from their targets; chain particles move rigidly with their root.
pub const SECMO_FRAME_TELEPORT: u32 = 1;
/// `SecmoFrameInput.flags`: `world` holds the character's world transform
/// (otherwise the last one given, identity at first).
pub const SECMO_FRAME_HAS_WORLD: u32 = 2;
/// `SecmoFrameInput.flags`: `importance` holds the chain LOD importance
/// (otherwise the last one given, 1 at first).
pub const SECMO_FRAME_HAS_IMPORTANCE: u32 = 4;

/// `SecmoRigDesc.up_axis` values.
pub const SECMO_UP_AXIS_Y: u32 = 1;
pub const SECMO_UP_AXIS_Z: u32 = 2;

/// `SecmoCharacterDesc.substep_target` values (docs/algorithms.md §2).
pub const SECMO_SUBSTEP_TARGET_HOLD: u32 = 0;
pub const SECMO_SUBSTEP_TARGET_INTERPOLATE: u32 = 1;

/// Kinds reported by `secmo_rig_warning`, and bits of `SecmoUpdateInfo.warnings`:
/// a bind pose or a constraint writeback met shear that TRS cannot express.
pub const SECMO_WARNING_SHEAR: u32 = 1;
/// Kind reported by `secmo_rig_warning` only: a chain reads a bone (its
/// anchor, its root's parent, a collider's bone) that a chain listed at or
/// after it moves, so it sees that bone's animated pose; the bone reported
/// is the one read. List the chain after the one that moves the bone.
pub const SECMO_WARNING_CHAIN_ORDER: u32 = 2;
/// Kind reported by `secmo_rig_warning` only: the skeleton's size
/// (`secmo_rig_size_meters`) is outside 0.05–50 m at the declared
/// `units_per_meter`, which is then probably wrong (a centimetre skeleton
/// declared as metres freezes its chains). The bone reported is 0.
pub const SECMO_WARNING_UNUSUAL_SIZE: u32 = 4;
/// Bit of `SecmoUpdateInfo.warnings` only: the chains' teleport threshold
/// (`teleport_distance`, `teleport_angle`) fired without a teleport flag on
/// this update and the two before it. A character that moves that far every
/// frame has wrong units (`units_per_meter`) or a world transform that jumps;
/// its chains restart every frame and show no motion.
pub const SECMO_WARNING_TELEPORT_STREAK: u32 = 8;

/// Body sides, for correctives (`SecmoCorrectiveDesc.side`, `SecmoProbeDesc.side`).
pub const SECMO_SIDE_CENTER: u32 = 0;
pub const SECMO_SIDE_LEFT: u32 = 1;
pub const SECMO_SIDE_RIGHT: u32 = 2;

/// Stages for `secmo_character_set_stage_enabled` (docs/algorithms.md §6 order).
pub const SECMO_STAGE_CONSTRAINTS: u32 = 0;
pub const SECMO_STAGE_SPRINGS: u32 = 1;
pub const SECMO_STAGE_CORRECTIVES: u32 = 2;
pub const SECMO_STAGE_CHAINS: u32 = 3;

/// `SecmoColliderDesc.shape` values.
pub const SECMO_COLLIDER_SPHERE: u32 = 0;
pub const SECMO_COLLIDER_CAPSULE: u32 = 1;
pub const SECMO_COLLIDER_PLANE: u32 = 2;
pub const SECMO_COLLIDER_INSIDE_SPHERE: u32 = 3;
pub const SECMO_COLLIDER_INSIDE_CAPSULE: u32 = 4;

/// `SecmoChainParams.integrator` values.
pub const SECMO_INTEGRATOR_SPRING: u32 = 0;
pub const SECMO_INTEGRATOR_EXPONENTIAL_DAMPING: u32 = 1;
pub const SECMO_INTEGRATOR_VRM: u32 = 2;
const _: () = assert!(
    SECMO_INTEGRATOR_SPRING == ChainParams::SPRING
        && SECMO_INTEGRATOR_EXPONENTIAL_DAMPING == ChainParams::EXPONENTIAL_DAMPING
        && SECMO_INTEGRATOR_VRM == ChainParams::VRM
);

/// `SecmoChainParams.teleport_restart` values.
pub const SECMO_TELEPORT_CARRY: u32 = 0;
pub const SECMO_TELEPORT_RESTART: u32 = 1;
const _: () = assert!(
    SECMO_TELEPORT_CARRY == ChainParams::TELEPORT_CARRY
        && SECMO_TELEPORT_RESTART == ChainParams::TELEPORT_RESTART
);

/// `SecmoChainParams.rest_source` values.
pub const SECMO_REST_AUTO: u32 = 0;
pub const SECMO_REST_BIND: u32 = 1;
pub const SECMO_REST_ANIMATED: u32 = 2;
const _: () = assert!(
    SECMO_REST_AUTO == ChainParams::REST_AUTO
        && SECMO_REST_BIND == ChainParams::REST_BIND
        && SECMO_REST_ANIMATED == ChainParams::REST_ANIMATED
);

/// `SecmoChainDesc.preset` values, used when `params` is NULL.
pub const SECMO_CHAIN_TAIL: u32 = 0;
pub const SECMO_CHAIN_HAIR: u32 = 1;
/// A VRM spring bone (the VRMC_springBone verlet, docs/vrm-mapping.md).
pub const SECMO_CHAIN_VRM: u32 = 2;

/// Kinds of `SecmoDebugLine` / `SecmoDebugSphere`.
pub const SECMO_DEBUG_PARTICLE: u32 = 1;
pub const SECMO_DEBUG_REST_TARGET: u32 = 2;
pub const SECMO_DEBUG_LINK: u32 = 3;
pub const SECMO_DEBUG_REST_LINK: u32 = 4;
pub const SECMO_DEBUG_COLLIDER: u32 = 5;
pub const SECMO_DEBUG_CONTACT: u32 = 6;

// ---------------------------------------------------------------------------
// Descriptors and plain structs.

/// The C name of [`SpringParams`], the one definition of a spring's
/// parameters (cbindgen writes it as `SecmoSpringDesc`). Fill it with
/// `secmo_spring_desc_hip` or `_chest`, then adjust.
pub type SecmoSpringDesc = SpringParams;

/// A rotation constraint (docs/algorithms.md §4): `bone` keeps its reference orientation
/// relative to `target`. Runs before the springs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoRotationConstraintDesc {
    /// `sizeof(SecmoRotationConstraintDesc)`. Shipped sizes: 12 (ABI 1); any other is refused.
    pub struct_size: u32,
    pub bone: u32,
    pub target: u32,
}

/// `SecmoNodeConstraintDesc.kind` values (VRMC_node_constraint).
pub const SECMO_NODE_CONSTRAINT_ROLL: u32 = 0;
pub const SECMO_NODE_CONSTRAINT_AIM: u32 = 1;
pub const SECMO_NODE_CONSTRAINT_ROTATION: u32 = 2;

/// `SecmoNodeConstraintDesc.axis` values: aim axes; a roll axis is
/// `SECMO_AXIS_POSITIVE_X`, `_Y` or `_Z`.
pub const SECMO_AXIS_POSITIVE_X: u32 = 0;
pub const SECMO_AXIS_NEGATIVE_X: u32 = 1;
pub const SECMO_AXIS_POSITIVE_Y: u32 = 2;
pub const SECMO_AXIS_NEGATIVE_Y: u32 = 3;
pub const SECMO_AXIS_POSITIVE_Z: u32 = 4;
pub const SECMO_AXIS_NEGATIVE_Z: u32 = 5;

/// A VRM node constraint (`VRMC_node_constraint` 1.0): the destination's
/// local rotation follows the source's (roll: its twist about `axis`;
/// rotation: all of it, both relative to their rests) or turns `axis`
/// toward the source (aim), blended by `weight`. Runs after the rotation
/// constraints and before the springs, in dependency order
/// (docs/node-constraints.md).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoNodeConstraintDesc {
    /// `sizeof(SecmoNodeConstraintDesc)`. Shipped sizes: 24 (ABI 1); any other is refused.
    pub struct_size: u32,
    /// `SECMO_NODE_CONSTRAINT_ROLL`, `_AIM` or `_ROTATION`.
    pub kind: u32,
    pub source: u32,
    pub destination: u32,
    /// `SECMO_AXIS_*` (ignored for rotation).
    pub axis: u32,
    /// 0..1.
    pub weight: f32,
}

/// One distance probe of a proximity corrective (docs/algorithms.md §5).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoProbeDesc {
    /// `sizeof(SecmoProbeDesc)`. Shipped sizes: 68 (ABI 1); any other is refused.
    pub struct_size: u32,
    pub bone: u32,
    /// `SECMO_SIDE_*`; same side as the driven bone selects the `same_*` gains.
    pub side: u32,
    /// Distance (position units) below which the probe acts.
    pub threshold: f32,
    /// Movement weight (the article's upper-arm parameter 2).
    pub weight: f32,
    /// Gains per unit proximity on local translation (position units) and
    /// local scale (fraction), for a probe on the driven bone's side...
    pub same_translation: [f32; 3],
    pub same_scale: [f32; 3],
    /// ...and for a probe on the other side.
    pub opposite_translation: [f32; 3],
    pub opposite_scale: [f32; 3],
}

/// A proximity corrective (docs/algorithms.md §5, the article's BtoB), run after the springs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoCorrectiveDesc {
    /// `sizeof(SecmoCorrectiveDesc)`. Shipped sizes: 32 (ABI 1); any other is refused.
    pub struct_size: u32,
    pub driven_bone: u32,
    /// `SECMO_SIDE_*` of the driven bone.
    pub side: u32,
    /// Accumulator rate, 1/s: weight = clamp(rate·dt, 0, 1) (default 24).
    pub rate: f32,
    /// `probe_count` probes, all with the same `struct_size`.
    pub probes: *const SecmoProbeDesc,
    pub probe_count: u32,
}

/// A collider attached to a bone (offsets in the bone's local frame).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoColliderDesc {
    /// `sizeof(SecmoColliderDesc)`. Shipped sizes: 40 (ABI 1); any other is refused.
    pub struct_size: u32,
    /// `SECMO_COLLIDER_*`.
    pub shape: u32,
    pub bone: u32,
    /// Sphere centre, capsule end A, or a point on the plane.
    pub a: [f32; 3],
    /// Capsule end B, or the plane normal. Ignored for spheres.
    pub b: [f32; 3],
    pub radius: f32,
}

/// The C name of [`ChainParams`], the one definition of a chain's tunables
/// (cbindgen writes it as `SecmoChainParams`). Fill it with
/// `secmo_chain_params_tail` or `_hair`, then adjust.
pub type SecmoChainParams = ChainParams;

/// A tail or hair chain (docs/algorithms.md §7, §8).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoChainDesc {
    /// `sizeof(SecmoChainDesc)`. Shipped sizes: 80 on 64-bit targets (ABI 1; it
    /// holds pointers, so 32-bit targets use their own `sizeof`); any other
    /// is refused.
    pub struct_size: u32,
    /// Bone holding the rest arc: the hips for a tail, the head for hair.
    pub anchor: u32,
    /// `joint_count` joints from the root; each the parent of the next.
    pub joints: *const u32,
    pub joint_count: u32,
    /// `SECMO_CHAIN_TAIL`, `_HAIR` or `_VRM`: the defaults when `params` is NULL.
    pub preset: u32,
    /// Optional (NULL): the chain's parameters.
    pub params: *const ChainParams,
    /// Optional (NULL): `joint_count` link radii (segment i uses joint i).
    pub radii: *const f32,
    /// Optional (NULL): `joint_count` weights of the simulation, 0..1.
    pub weights: *const f32,
    /// Indices into `SecmoRigDesc.colliders` this chain collides with.
    pub colliders: *const u32,
    pub collider_count: u32,
    /// Non-zero: `end_offset` is the last link's end in the last joint's
    /// local frame. Zero: extend along the incoming tangent.
    pub has_end_offset: u32,
    pub end_offset: [f32; 3],
}

/// Describes a rig. Arrays are read during `secmo_rig_create` only; the caller
/// keeps ownership.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoRigDesc {
    /// `sizeof(SecmoRigDesc)`. Shipped sizes on 64-bit targets: 152, and 136
    /// (the first ABI 1 header, without `node_constraints`, which then count
    /// as none); 32-bit targets use their own `sizeof`s. Any other is refused.
    pub struct_size: u32,
    pub bone_count: u32,
    /// `bone_count` parent indices, -1 for roots; parents precede children.
    pub parents: *const i32,
    /// `bone_count` reference local transforms.
    pub reference_pose: *const Transform,
    /// Optional (NULL): `bone_count` column-major 4×4 inverse bind matrices.
    pub inverse_bind_matrices: *const f32,
    /// Optional (NULL): `bone_count` flags, non-zero where `inverse_bind_matrices`
    /// holds a real inverse bind. NULL with matrices given means "all bones".
    pub has_inverse_bind: *const u8,
    /// Optional (NULL): `bone_count` NUL-terminated UTF-8 names.
    pub bone_names: *const *const c_char,
    /// Position units per metre (Unity 1, Unreal 100).
    pub units_per_meter: f32,
    /// `SECMO_UP_AXIS_Y` or `SECMO_UP_AXIS_Z`.
    pub up_axis: u32,
    /// `spring_count` spring descriptors (may be NULL when the count is 0).
    pub springs: *const SpringParams,
    pub spring_count: u32,
    /// `constraint_count` rotation constraints (docs/algorithms.md §4).
    pub constraints: *const SecmoRotationConstraintDesc,
    pub constraint_count: u32,
    /// `corrective_count` proximity correctives (docs/algorithms.md §5).
    pub correctives: *const SecmoCorrectiveDesc,
    pub corrective_count: u32,
    /// `collider_count` colliders for the chains.
    pub colliders: *const SecmoColliderDesc,
    pub collider_count: u32,
    /// `chain_count` tail and hair chains (docs/algorithms.md §7, §8).
    pub chains: *const SecmoChainDesc,
    pub chain_count: u32,
    /// `node_constraint_count` VRM node constraints.
    pub node_constraints: *const SecmoNodeConstraintDesc,
    pub node_constraint_count: u32,
}

impl Default for SecmoChainDesc {
    /// No joints, anchor 0, the tail preset, no radii, weights, colliders or
    /// end offset; `struct_size` set for this library.
    fn default() -> Self {
        SecmoChainDesc {
            struct_size: core::mem::size_of::<SecmoChainDesc>() as u32,
            anchor: 0,
            joints: std::ptr::null(),
            joint_count: 0,
            preset: SECMO_CHAIN_TAIL,
            params: std::ptr::null(),
            radii: std::ptr::null(),
            weights: std::ptr::null(),
            colliders: std::ptr::null(),
            collider_count: 0,
            has_end_offset: 0,
            end_offset: [0.0; 3],
        }
    }
}

impl Default for SecmoRigDesc {
    /// No bones, no springs, metres, Y-up; `struct_size` set for this library.
    fn default() -> Self {
        SecmoRigDesc {
            struct_size: core::mem::size_of::<SecmoRigDesc>() as u32,
            bone_count: 0,
            parents: std::ptr::null(),
            reference_pose: std::ptr::null(),
            inverse_bind_matrices: std::ptr::null(),
            has_inverse_bind: std::ptr::null(),
            bone_names: std::ptr::null(),
            units_per_meter: 1.0,
            up_axis: SECMO_UP_AXIS_Y,
            springs: std::ptr::null(),
            spring_count: 0,
            constraints: std::ptr::null(),
            constraint_count: 0,
            correctives: std::ptr::null(),
            corrective_count: 0,
            colliders: std::ptr::null(),
            collider_count: 0,
            chains: std::ptr::null(),
            chain_count: 0,
            node_constraints: std::ptr::null(),
            node_constraint_count: 0,
        }
    }
}

/// Per-character options. NULL in `secmo_character_create` means defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoCharacterDesc {
    /// `sizeof(SecmoCharacterDesc)`. Shipped sizes: 8 (ABI 1); any other is refused.
    pub struct_size: u32,
    /// `SECMO_SUBSTEP_TARGET_HOLD` (the default) or `SECMO_SUBSTEP_TARGET_INTERPOLATE`.
    pub substep_target: u32,
}

/// One update's input.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoFrameInput {
    /// `sizeof(SecmoFrameInput)`. Shipped sizes: 80 on 64-bit targets (ABI 1; it
    /// holds pointers, so 32-bit targets use their own `sizeof`); any other
    /// is refused.
    pub struct_size: u32,
    /// Bit set of `SECMO_FRAME_*`.
    pub flags: u32,
    /// Seconds since the previous update, 0 ≤ dt ≤ 86400.
    pub dt: f32,
    /// `pose_len` source local transforms (must equal the rig's bone count).
    pub pose: *const Transform,
    pub pose_len: usize,
    /// The character's world transform (with `SECMO_FRAME_HAS_WORLD`). Its
    /// uniform scale is the runtime scale of the chains.
    pub world: Transform,
    /// Chain LOD importance (with `SECMO_FRAME_HAS_IMPORTANCE`).
    pub importance: f32,
}

impl SecmoFrameInput {
    /// What a caller's struct is read over (`read_versioned`): the fields
    /// a shorter, older struct does not have keep these (no flags, the
    /// identity world, importance 1).
    pub(crate) const UNSET: SecmoFrameInput = SecmoFrameInput {
        struct_size: 0,
        flags: 0,
        dt: 0.0,
        pose: std::ptr::null(),
        pose_len: 0,
        world: Transform::IDENTITY,
        importance: 1.0,
    };
}

/// Summary of one update (optional output).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SecmoUpdateInfo {
    /// `sizeof(SecmoUpdateInfo)`; set by the caller. Shipped sizes: 16
    /// (ABI 1) and 20 (ABI 1.4, `joint_substeps`); any other is refused.
    pub struct_size: u32,
    /// Largest number of substeps any spring executed.
    pub max_substeps: u32,
    /// Springs that hit their reset threshold this update.
    pub snapped_springs: u32,
    /// Bit set of `SECMO_WARNING_*` raised during this update.
    pub warnings: u32,
    /// Joint-substeps the chain kernels executed: every chain's substeps
    /// (settle repeats included, none asleep) times its joints; what a
    /// world's budget counts. Added in ABI 1.4 (a 16-byte struct gets
    /// the fields before it).
    pub joint_substeps: u32,
}

/// One character's update in `secmo_update_batch`: the arguments of
/// `secmo_character_update`, and its result.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoBatchItem {
    /// `sizeof(SecmoBatchItem)`. Shipped sizes: 48 on 64-bit targets (ABI 1;
    /// it holds pointers, so 32-bit targets use their own `sizeof`); any
    /// other is refused for that item.
    pub struct_size: u32,
    /// Written by `secmo_update_batch`: this item's `SecmoResult`.
    pub result: u32,
    /// A character appears at most once per batch.
    pub character: *mut SecmoCharacter,
    pub input: *const SecmoFrameInput,
    pub out_pose: *mut Transform,
    pub out_pose_len: usize,
    /// Optional (NULL).
    pub out_info: *mut SecmoUpdateInfo,
}

/// Where `secmo_character_update_recorded` writes the stage-by-stage records of
/// docs/algorithms.md §6. Every pointer may be NULL (that record is not wanted); a non-NULL
/// one must hold exactly the count given. Records are written only on success.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoStageRecords {
    /// `sizeof(SecmoStageRecords)`. Shipped sizes: 88 on 64-bit targets (ABI 1; it
    /// holds pointers, so 32-bit targets use their own `sizeof`); any other
    /// is refused.
    pub struct_size: u32,
    /// Must equal the rig's bone count when any pose pointer is set.
    pub bone_count: u32,
    /// Local poses after each stage.
    pub source: *mut Transform,
    pub constrained: *mut Transform,
    pub post_spring: *mut Transform,
    pub post_corrective: *mut Transform,
    pub final_pose: *mut Transform,
    /// The rig's spring count of spring records.
    pub springs: *mut SpringRecord,
    pub spring_count: u32,
    /// The rig's corrective count of corrective records.
    pub corrective_count: u32,
    pub correctives: *mut CorrectiveRecord,
    /// All probe distances; `SecmoCorrectiveRecord.first_probe` indexes it.
    pub probe_distances: *mut f32,
    pub probe_distance_count: u32,
}

// `Transform` and `SpringRecord` cross the boundary as they are; cbindgen
// names them SecmoTransform and SecmoSpringRecord (cbindgen.toml).

const _: () = assert!(core::mem::size_of::<SecmoSpringDesc>() == 52);
const _: () = assert!(core::mem::size_of::<SecmoCharacterDesc>() == 8);
const _: () = assert!(core::mem::size_of::<SecmoUpdateInfo>() == 20);
const _: () = assert!(core::mem::size_of::<SecmoColliderDesc>() == 40);
// Holds pointers: 80 bytes on 64-bit targets, 64 on 32-bit ones.
const _: () = assert!(
    core::mem::size_of::<SecmoFrameInput>()
        == if core::mem::size_of::<usize>() == 8 {
            80
        } else {
            64
        }
);
const _: () = assert!(core::mem::size_of::<SecmoRotationConstraintDesc>() == 12);
const _: () = assert!(core::mem::size_of::<SecmoNodeConstraintDesc>() == 24);
const _: () = assert!(
    core::mem::size_of::<SecmoBatchItem>()
        == if core::mem::size_of::<usize>() == 8 {
            48
        } else {
            28
        }
);
const _: () = assert!(core::mem::size_of::<SecmoProbeDesc>() == 68);
const _: () = assert!(core::mem::size_of::<SecmoCorrectiveDesc>() == 32);
const _: () = assert!(core::mem::size_of::<BtobBones>() == 32);

/// Opaque, reference-counted, immutable rig.
pub struct SecmoRig {
    pub(crate) rig: Arc<Rig>,
}

/// Opaque per-instance state. One thread at a time.
#[repr(transparent)]
pub struct SecmoCharacter {
    pub(crate) character: Character,
}

macro_rules! shipped_once {
    ($($t:ty),* $(,)?) => {$(
        // ABI 1 is the first release: one size each so far.
        impl Versioned for $t {
            const SHIPPED: &'static [usize] = &[core::mem::size_of::<$t>()];
        }
    )*};
}

shipped_once!(
    SecmoSpringDesc,
    SecmoRotationConstraintDesc,
    SecmoNodeConstraintDesc,
    SecmoProbeDesc,
    SecmoCorrectiveDesc,
    SecmoColliderDesc,
    SecmoChainDesc,
    SecmoCharacterDesc,
    SecmoFrameInput,
    SecmoStageRecords,
);

// ABI 1 ended at `warnings`; 1.4 added `joint_substeps`.
impl Versioned for SecmoUpdateInfo {
    const SHIPPED: &'static [usize] = &[
        core::mem::offset_of!(SecmoUpdateInfo, joint_substeps),
        core::mem::size_of::<SecmoUpdateInfo>(),
    ];
}

// ABI 1 ended at `vrm_gravity_power`; 1.1 added `settle_speedup`, 1.2
// `teleport_restart`, 1.3 `rest_source` and
// `animation_inertia`, 1.5 `key_margin` (an older caller gets the preset's
// values, or the chain's current ones).
impl Versioned for ChainParams {
    const SHIPPED: &'static [usize] = &[
        core::mem::offset_of!(ChainParams, settle_speedup),
        core::mem::offset_of!(ChainParams, teleport_restart),
        core::mem::offset_of!(ChainParams, rest_source),
        core::mem::offset_of!(ChainParams, key_margin),
        core::mem::size_of::<ChainParams>(),
    ];
}
const _: () = assert!(
    core::mem::offset_of!(ChainParams, settle_speedup) == 136
        && core::mem::offset_of!(ChainParams, teleport_restart) == 140
        && core::mem::offset_of!(ChainParams, rest_source) == 144
        && core::mem::offset_of!(ChainParams, key_margin) == 152
        && core::mem::size_of::<ChainParams>() == 156
);

// The first ABI 1 header ended at `chain_count`: a caller built against it
// passes that size and gets no node constraints.
impl Versioned for SecmoRigDesc {
    const SHIPPED: &'static [usize] = &[
        core::mem::offset_of!(SecmoRigDesc, node_constraints),
        core::mem::size_of::<SecmoRigDesc>(),
    ];
}
const _: () = assert!(
    core::mem::size_of::<usize>() != 8
        || (core::mem::offset_of!(SecmoRigDesc, node_constraints) == 136
            && core::mem::size_of::<SecmoRigDesc>() == 152)
);

pub(crate) fn side_from(value: u32) -> Result<Side, FfiError> {
    match value {
        SECMO_SIDE_CENTER => Ok(Side::Center),
        SECMO_SIDE_LEFT => Ok(Side::Left),
        SECMO_SIDE_RIGHT => Ok(Side::Right),
        other => Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!("side is {other}; use SECMO_SIDE_CENTER, _LEFT or _RIGHT"),
        )),
    }
}

pub(crate) fn collider_from_c(c: &SecmoColliderDesc) -> Result<Collider, FfiError> {
    let shape = match c.shape {
        SECMO_COLLIDER_SPHERE => ColliderShape::Sphere,
        SECMO_COLLIDER_CAPSULE => ColliderShape::Capsule,
        SECMO_COLLIDER_PLANE => ColliderShape::Plane,
        SECMO_COLLIDER_INSIDE_SPHERE => ColliderShape::InsideSphere,
        SECMO_COLLIDER_INSIDE_CAPSULE => ColliderShape::InsideCapsule,
        other => {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("collider shape is {other}; use SECMO_COLLIDER_*"),
            ))
        }
    };
    Ok(Collider {
        bone: c.bone,
        shape,
        a: Vec3::from_array(c.a),
        b: Vec3::from_array(c.b),
        radius: c.radius,
    })
}

pub(crate) fn node_constraint_from_c(
    c: &SecmoNodeConstraintDesc,
    i: usize,
) -> Result<NodeConstraintDesc, FfiError> {
    let bad = |what: String| {
        FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!("desc.node_constraints[{i}].{what}"),
        )
    };
    let kind = match c.kind {
        SECMO_NODE_CONSTRAINT_ROLL => NodeConstraintKind::Roll(match c.axis {
            SECMO_AXIS_POSITIVE_X => RollAxis::X,
            SECMO_AXIS_POSITIVE_Y => RollAxis::Y,
            SECMO_AXIS_POSITIVE_Z => RollAxis::Z,
            other => {
                return Err(bad(format!(
                    "axis is {other}; a roll axis is SECMO_AXIS_POSITIVE_X, _Y or _Z"
                )))
            }
        }),
        SECMO_NODE_CONSTRAINT_AIM => NodeConstraintKind::Aim(
            *AimAxis::ALL
                .get(c.axis as usize)
                .ok_or_else(|| bad(format!("axis is {}; use SECMO_AXIS_*", c.axis)))?,
        ),
        SECMO_NODE_CONSTRAINT_ROTATION => NodeConstraintKind::Rotation,
        other => {
            return Err(bad(format!(
                "kind is {other}; use SECMO_NODE_CONSTRAINT_ROLL, _AIM or _ROTATION"
            )))
        }
    };
    Ok(NodeConstraintDesc {
        kind,
        source: c.source,
        destination: c.destination,
        weight: c.weight,
    })
}

pub(crate) fn chain_from_c(
    c: &SecmoChainDesc,
    units_per_meter: f32,
    i: usize,
) -> Result<ChainDesc, FfiError> {
    let n = c.joint_count as usize;
    let what = |field: &str| format!("desc.chains[{i}].{field}");
    let joints = slice(c.joints, n, &what("joints"))?.to_vec();
    let params = if c.params.is_null() {
        match c.preset {
            SECMO_CHAIN_TAIL => ChainParams::tail(units_per_meter),
            SECMO_CHAIN_HAIR => ChainParams::hair(units_per_meter),
            SECMO_CHAIN_VRM => ChainParams::vrm(units_per_meter),
            other => {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!(
                        "{} is {other}; use SECMO_CHAIN_TAIL, _HAIR or _VRM",
                        what("preset")
                    ),
                ))
            }
        }
    } else {
        read_versioned(
            c.params,
            ChainParams::tail(units_per_meter),
            &what("params"),
        )?
    };
    let optional = |ptr: *const f32, field: &str| -> Result<Vec<f32>, FfiError> {
        if ptr.is_null() {
            Ok(Vec::new())
        } else {
            Ok(slice(ptr, n, &what(field))?.to_vec())
        }
    };
    Ok(ChainDesc {
        joints,
        anchor: c.anchor,
        params,
        radii: optional(c.radii, "radii")?,
        weights: optional(c.weights, "weights")?,
        end_offset: (c.has_end_offset != 0).then(|| Vec3::from_array(c.end_offset)),
        colliders: slice(c.colliders, c.collider_count as usize, &what("colliders"))?.to_vec(),
        // Per-joint VRM numbers come with VRM settings
        // (`secmo_rig_create_from_settings`), not through this struct.
        vrm_offsets: Vec::new(),
        limits: Vec::new(),
    })
}
