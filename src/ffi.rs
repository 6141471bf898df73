//! The C ABI (DESIGN.md "C ABI rules"). `include/secmo.h` is generated from
//! this file by cbindgen; `tests/header.rs` fails when it is stale.
//!
//! Conventions (docs/c-api.md): the object comes first, then inputs, then
//! outputs; outputs are written only on success; every body runs inside
//! [`guard`], so a Rust panic becomes `SECMO_ERROR_PANIC` instead of unwinding
//! into C; details of a failure are in `secmo_last_error_message()`.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use glam::{Mat4, Vec3};

use crate::character::{
    Character, CharacterOptions, DebugLine, DebugSphere, FrameInput, RecordSink, SpringRecord,
    Stage, SubstepTarget,
};
use crate::error::Error;
use crate::math::Transform;
use crate::rig::{BoneDesc, ConstraintDesc, Rig, RigDesc, RigError, RigWarning, UpAxis};
use crate::solvers::chain::{ChainDesc, ChainParams};
use crate::solvers::collide::{Collider, ColliderShape};
use crate::solvers::corrective::{
    BtobBones, CorrectiveRecord, Gains, Probe, ProximityCorrective, Side,
};
use crate::solvers::spring::SpringParams;

// ---------------------------------------------------------------------------
// Result codes. Never renumbered; retired codes stay reserved.

/// Every fallible function returns one of the `SECMO_*` codes below.
pub type SecmoResult = u32;
/// Success.
pub const SECMO_OK: SecmoResult = 0;
/// A required pointer argument was NULL.
pub const SECMO_ERROR_NULL_POINTER: SecmoResult = 7001;
/// A buffer has the wrong number of elements or is too small.
pub const SECMO_ERROR_BUFFER_LENGTH: SecmoResult = 7002;
/// dt is negative, NaN, infinite or larger than 86400 s.
pub const SECMO_ERROR_INVALID_DT: SecmoResult = 7003;
/// NaN or infinity in an input pose.
pub const SECMO_ERROR_NON_FINITE_POSE: SecmoResult = 7004;
/// Zero scale or zero-length quaternion in an input pose.
pub const SECMO_ERROR_DEGENERATE_POSE: SecmoResult = 7005;
/// The rig descriptor is invalid (parents, values, solver setup); the message names the bone.
pub const SECMO_ERROR_INVALID_RIG: SecmoResult = 7006;
/// A descriptor's `struct_size` is too small or newer than this library.
pub const SECMO_ERROR_STRUCT_SIZE: SecmoResult = 7007;
/// A snapshot is from another rig, another version, truncated or corrupted.
pub const SECMO_ERROR_SNAPSHOT: SecmoResult = 7008;
/// An argument is outside its documented range.
pub const SECMO_ERROR_INVALID_ARGUMENT: SecmoResult = 7009;
/// A result was not finite (inputs near the f32 limit); nothing was written.
pub const SECMO_ERROR_NON_FINITE_RESULT: SecmoResult = 7010;
/// A rig-settings text is not valid JSON, is another format or version, or
/// names a bone or collider that does not exist; the message gives the path.
pub const SECMO_ERROR_SETTINGS: SecmoResult = 7011;
/// A Rust panic was caught at the boundary. The object is still valid.
pub const SECMO_ERROR_PANIC: SecmoResult = 7099;

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

/// `SecmoCharacterDesc.substep_target` values (SPEC §2).
pub const SECMO_SUBSTEP_TARGET_HOLD: u32 = 0;
pub const SECMO_SUBSTEP_TARGET_INTERPOLATE: u32 = 1;

/// Kinds reported by `secmo_rig_warning`, and bits of `SecmoUpdateInfo.warnings`:
/// a bind pose or a constraint writeback met shear that TRS cannot express.
pub const SECMO_WARNING_SHEAR: u32 = 1;

/// Body sides, for correctives (`SecmoCorrectiveDesc.side`, `SecmoProbeDesc.side`).
pub const SECMO_SIDE_CENTER: u32 = 0;
pub const SECMO_SIDE_LEFT: u32 = 1;
pub const SECMO_SIDE_RIGHT: u32 = 2;

/// Stages for `secmo_character_set_stage_enabled` (SPEC §6 order).
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
const _: () = assert!(
    SECMO_INTEGRATOR_SPRING == ChainParams::SPRING
        && SECMO_INTEGRATOR_EXPONENTIAL_DAMPING == ChainParams::EXPONENTIAL_DAMPING
);

/// `SecmoChainDesc.preset` values, used when `params` is NULL.
pub const SECMO_CHAIN_TAIL: u32 = 0;
pub const SECMO_CHAIN_HAIR: u32 = 1;

/// Kinds of `SecmoDebugLine` / `SecmoDebugSphere`.
pub const SECMO_DEBUG_PARTICLE: u32 = 1;
pub const SECMO_DEBUG_REST_TARGET: u32 = 2;
pub const SECMO_DEBUG_LINK: u32 = 3;
pub const SECMO_DEBUG_REST_LINK: u32 = 4;
pub const SECMO_DEBUG_COLLIDER: u32 = 5;
pub const SECMO_DEBUG_CONTACT: u32 = 6;

// ---------------------------------------------------------------------------
// Descriptors and plain structs.

/// One translation spring (SPEC §3). Fill with `secmo_spring_desc_hip` or
/// `secmo_spring_desc_chest`, then adjust.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoSpringDesc {
    /// `sizeof(SecmoSpringDesc)`.
    pub struct_size: u32,
    /// Index of the bone whose translation the spring drives.
    pub bone: u32,
    /// k, 1/s² [400].
    pub stiffness: f32,
    /// d, 1/s [hip 25, chest 20].
    pub damping: f32,
    /// Length limit of the offset, position units [2 cm hip, 1 cm chest].
    pub max_offset: f32,
    /// Clamp on |v|·h per substep; 0 means "same as max_offset".
    pub max_substep_displacement: f32,
    /// Velocity history ring length, 1..16 [4].
    pub history_length: u32,
    /// Snap distance, position units [255 cm].
    pub reset_threshold: f32,
    /// Scales the 1/120 s substep [1].
    pub time_factor: f32,
    /// Added motion per second, component space [0,0,0].
    pub extra_velocity: [f32; 3],
    /// Output weight, 0 = animation, 1 = spring [1].
    pub alpha: f32,
}

/// A rotation constraint (SPEC §4): `bone` keeps its reference orientation
/// relative to `target`. Runs before the springs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoRotationConstraintDesc {
    /// `sizeof(SecmoRotationConstraintDesc)`.
    pub struct_size: u32,
    pub bone: u32,
    pub target: u32,
}

/// One distance probe of a proximity corrective (SPEC §5).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoProbeDesc {
    /// `sizeof(SecmoProbeDesc)`.
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

/// A proximity corrective (SPEC §5, the article's BtoB), run after the springs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoCorrectiveDesc {
    /// `sizeof(SecmoCorrectiveDesc)`.
    pub struct_size: u32,
    pub driven_bone: u32,
    /// `SECMO_SIDE_*` of the driven bone.
    pub side: u32,
    /// Accumulator rate, 1/s: weight = clamp(rate·dt, 0, 1) [24].
    pub rate: f32,
    /// `probe_count` probes, all with the same `struct_size`.
    pub probes: *const SecmoProbeDesc,
    pub probe_count: u32,
}

/// A collider attached to a bone (offsets in the bone's local frame).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoColliderDesc {
    /// `sizeof(SecmoColliderDesc)`.
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

/// A tail or hair chain (SPEC §7, §8).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoChainDesc {
    /// `sizeof(SecmoChainDesc)`.
    pub struct_size: u32,
    /// Bone holding the rest arc: the hips for a tail, the head for hair.
    pub anchor: u32,
    /// `joint_count` joints from the root; each the parent of the next.
    pub joints: *const u32,
    pub joint_count: u32,
    /// `SECMO_CHAIN_TAIL` or `_HAIR`: the defaults when `params` is NULL.
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
    /// `sizeof(SecmoRigDesc)`.
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
    pub springs: *const SecmoSpringDesc,
    pub spring_count: u32,
    /// `constraint_count` rotation constraints (SPEC §4).
    pub constraints: *const SecmoRotationConstraintDesc,
    pub constraint_count: u32,
    /// `corrective_count` proximity correctives (SPEC §5).
    pub correctives: *const SecmoCorrectiveDesc,
    pub corrective_count: u32,
    /// `collider_count` colliders for the chains.
    pub colliders: *const SecmoColliderDesc,
    pub collider_count: u32,
    /// `chain_count` tail and hair chains (SPEC §7, §8).
    pub chains: *const SecmoChainDesc,
    pub chain_count: u32,
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
        }
    }
}

/// Per-character options. NULL in `secmo_character_create` means defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoCharacterDesc {
    /// `sizeof(SecmoCharacterDesc)`.
    pub struct_size: u32,
    /// `SECMO_SUBSTEP_TARGET_HOLD` [default] or `SECMO_SUBSTEP_TARGET_INTERPOLATE`.
    pub substep_target: u32,
}

/// One update's input.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoFrameInput {
    /// `sizeof(SecmoFrameInput)`.
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

/// Summary of one update (optional output).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SecmoUpdateInfo {
    /// `sizeof(SecmoUpdateInfo)`; set by the caller.
    pub struct_size: u32,
    /// Largest number of substeps any spring executed.
    pub max_substeps: u32,
    /// Springs that hit their reset threshold this update.
    pub snapped_springs: u32,
    /// Bit set of `SECMO_WARNING_*` raised during this update.
    pub warnings: u32,
}

/// Where `secmo_character_update_recorded` writes the stage-by-stage records of
/// SPEC §6. Every pointer may be NULL (that record is not wanted); a non-NULL
/// one must hold exactly the count given. Records are written only on success.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoStageRecords {
    /// `sizeof(SecmoStageRecords)`.
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
const _: () = assert!(core::mem::size_of::<SecmoUpdateInfo>() == 16);
const _: () = assert!(core::mem::size_of::<SecmoColliderDesc>() == 40);
const _: () = assert!(core::mem::size_of::<ChainParams>() == 124);
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
const _: () = assert!(core::mem::size_of::<SecmoProbeDesc>() == 68);
const _: () = assert!(core::mem::size_of::<SecmoCorrectiveDesc>() == 32);
const _: () = assert!(core::mem::size_of::<BtobBones>() == 32);

/// Opaque, reference-counted, immutable rig.
pub struct SecmoRig {
    rig: Arc<Rig>,
}

/// Opaque per-instance state. One thread at a time.
pub struct SecmoCharacter {
    character: Character,
}

// ---------------------------------------------------------------------------
// Boundary machinery.

struct FfiError {
    code: SecmoResult,
    message: String,
}

impl FfiError {
    fn new(code: SecmoResult, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<Error> for FfiError {
    fn from(e: Error) -> Self {
        let code = match &e {
            Error::Rig(_) => SECMO_ERROR_INVALID_RIG,
            Error::BufferLength { .. } => SECMO_ERROR_BUFFER_LENGTH,
            Error::InvalidDt(_) => SECMO_ERROR_INVALID_DT,
            Error::NonFinitePose { .. } => SECMO_ERROR_NON_FINITE_POSE,
            Error::DegeneratePose { .. } => SECMO_ERROR_DEGENERATE_POSE,
            Error::NonFiniteResult { .. } => SECMO_ERROR_NON_FINITE_RESULT,
            Error::Snapshot(_) => SECMO_ERROR_SNAPSHOT,
            Error::InvalidParameter(_) => SECMO_ERROR_INVALID_ARGUMENT,
        };
        FfiError::new(code, e.to_string())
    }
}

impl From<RigError> for FfiError {
    fn from(e: RigError) -> Self {
        Error::Rig(e).into()
    }
}

thread_local! {
    /// NUL-terminated message of the last failing call on this thread.
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

static LIVE_OBJECTS: AtomicUsize = AtomicUsize::new(0);

fn set_last_error(message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.extend(message.bytes().map(|b| if b == 0 { b'?' } else { b }));
        e.push(0);
    });
}

/// Runs `body` behind the panic boundary and turns its outcome into a code.
fn guard(name: &str, body: impl FnOnce() -> Result<(), FfiError>) -> SecmoResult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SECMO_OK,
        Ok(Err(e)) => {
            set_last_error(&format!("{name}: {}", e.message));
            e.code
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_last_error(&format!("{name}: internal panic: {what}"));
            SECMO_ERROR_PANIC
        }
    }
}

/// Boxes a new handle for C and counts it as live.
fn new_handle<T>(value: T) -> *mut T {
    LIVE_OBJECTS.fetch_add(1, Ordering::SeqCst);
    Box::into_raw(Box::new(value))
}

/// Frees a handle made by [`new_handle`]; NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or came from `new_handle::<T>` and was not freed yet.
unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the caller promises `ptr` came from `new_handle::<T>`
        // (Box::into_raw) and has not been freed.
        drop(unsafe { Box::from_raw(ptr) });
        LIVE_OBJECTS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Infallible-by-signature functions still must not unwind into C.
fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

fn non_null<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, FfiError> {
    // SAFETY: the caller promises a non-null pointer is valid for reads (header contract).
    unsafe { ptr.as_ref() }
        .ok_or_else(|| FfiError::new(SECMO_ERROR_NULL_POINTER, format!("{what} is NULL")))
}

fn non_null_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, FfiError> {
    // SAFETY: as above, valid for writes.
    unsafe { ptr.as_mut() }
        .ok_or_else(|| FfiError::new(SECMO_ERROR_NULL_POINTER, format!("{what} is NULL")))
}

/// What `from_raw_parts` needs beyond the caller's promise: a non-null,
/// aligned pointer and at most `isize::MAX` bytes. Checked before any slice
/// exists.
fn check_raw<T>(addr: usize, len: usize, what: &str) -> Result<(), FfiError> {
    if addr == 0 {
        return Err(FfiError::new(
            SECMO_ERROR_NULL_POINTER,
            format!("{what} is NULL but its length is {len}"),
        ));
    }
    if addr % core::mem::align_of::<T>() != 0 {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!(
                "{what} is not aligned to {} bytes",
                core::mem::align_of::<T>()
            ),
        ));
    }
    let fits = len
        .checked_mul(core::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= isize::MAX as usize);
    if !fits {
        return Err(FfiError::new(
            SECMO_ERROR_BUFFER_LENGTH,
            format!("{what}: a length of {len} is larger than any buffer"),
        ));
    }
    Ok(())
}

fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], FfiError> {
    if len == 0 {
        return Ok(&[]);
    }
    check_raw::<T>(ptr as usize, len, what)?;
    // SAFETY: non-null, aligned, at most isize::MAX bytes (checked), and the
    // caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

fn slice_mut<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<&'a mut [T], FfiError> {
    if len == 0 {
        return Ok(&mut []);
    }
    check_raw::<T>(ptr as usize, len, what)?;
    // SAFETY: non-null, aligned, at most isize::MAX bytes (checked), and the
    // caller promises `len` writable elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A descriptor that starts with `u32 struct_size`. `SHIPPED` lists every
/// size a released `secmo.h` declared for it on this target, oldest first;
/// the last is `size_of::<Self>()`. A caller built against an older header
/// passes an older size and gets defaults for the fields it lacks; any other
/// size (a half-copied pointer, garbage, a newer header) is refused.
pub(crate) trait Versioned: Copy {
    const SHIPPED: &'static [usize];
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
    SecmoProbeDesc,
    SecmoCorrectiveDesc,
    SecmoColliderDesc,
    ChainParams,
    SecmoChainDesc,
    SecmoRigDesc,
    SecmoCharacterDesc,
    SecmoFrameInput,
    SecmoUpdateInfo,
    SecmoStageRecords,
);

/// Reads a versioned descriptor (see [`Versioned`]): `struct_size` must be
/// one of `T::SHIPPED`; fields past it keep `defaults`.
fn read_versioned<T: Versioned>(ptr: *const T, defaults: T, what: &str) -> Result<T, FfiError> {
    non_null(ptr, what)?;
    // SAFETY: non-null, and every descriptor begins with a u32 struct_size
    // (read unaligned: C may pack an array of older, shorter descriptors).
    let size = unsafe { (ptr as *const u32).read_unaligned() } as usize;
    if !T::SHIPPED.contains(&size) {
        let newest = core::mem::size_of::<T>();
        return Err(FfiError::new(
            SECMO_ERROR_STRUCT_SIZE,
            if size > newest {
                format!(
                    "{what}.struct_size is {size} but this library knows at most {newest} bytes; \
                     the header is newer than the library"
                )
            } else {
                format!(
                    "{what}.struct_size is {size}; set it to sizeof the struct ({:?} are accepted)",
                    T::SHIPPED
                )
            },
        ));
    }
    let mut out = defaults;
    // SAFETY: `size` is a shipped size, so ≤ size_of::<T>() and a whole
    // number of that release's fields, which the caller declared readable.
    unsafe {
        std::ptr::copy_nonoverlapping(ptr as *const u8, &mut out as *mut T as *mut u8, size);
    }
    Ok(out)
}

/// Reads `count` versioned descriptors laid out `springs[0].struct_size`
/// bytes apart; every element must carry that same `struct_size`.
fn read_array<T: Versioned>(
    ptr: *const T,
    count: u32,
    defaults: T,
    what: &str,
) -> Result<Vec<T>, FfiError> {
    // No capacity from the caller's count: a wrong count must not be an
    // allocation of its own.
    let mut out = Vec::new();
    if count == 0 {
        return Ok(out);
    }
    non_null(ptr, what)?;
    // SAFETY: non-null; every descriptor begins with a u32 struct_size.
    let stride = unsafe { (ptr as *const u32).read_unaligned() } as usize;
    for i in 0..count as usize {
        let offset = i
            .checked_mul(stride)
            .filter(|&o| o <= isize::MAX as usize)
            .ok_or_else(|| {
                FfiError::new(
                    SECMO_ERROR_BUFFER_LENGTH,
                    format!("{what}: {count} elements overflow the address space"),
                )
            })?;
        // SAFETY: the caller promises `count` elements, `stride` bytes apart;
        // element 0's stride was validated by read_versioned before any other
        // element is read.
        let element = unsafe { (ptr as *const u8).add(offset) } as *const T;
        let item = read_versioned(element, defaults, &format!("{what}[{i}]"))?;
        // SAFETY: read_versioned has just read this element's first u32.
        let size = unsafe { (element as *const u32).read_unaligned() } as usize;
        if size != stride {
            return Err(FfiError::new(
                SECMO_ERROR_STRUCT_SIZE,
                format!("{what}[{i}].struct_size differs from {what}[0]"),
            ));
        }
        out.push(item);
    }
    Ok(out)
}

fn side_from(value: u32) -> Result<Side, FfiError> {
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

fn collider_from_c(c: &SecmoColliderDesc) -> Result<Collider, FfiError> {
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

fn chain_from_c(c: &SecmoChainDesc, units_per_meter: f32, i: usize) -> Result<ChainDesc, FfiError> {
    let n = c.joint_count as usize;
    let what = |field: &str| format!("desc.chains[{i}].{field}");
    let joints = slice(c.joints, n, &what("joints"))?.to_vec();
    let params = if c.params.is_null() {
        match c.preset {
            SECMO_CHAIN_TAIL => ChainParams::tail(units_per_meter),
            SECMO_CHAIN_HAIR => ChainParams::hair(units_per_meter),
            other => {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!(
                        "{} is {other}; use SECMO_CHAIN_TAIL or _HAIR",
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
    })
}

// ---------------------------------------------------------------------------
// Library.

/// Library version string, e.g. "0.1.0". Static; never NULL; does not allocate.
#[no_mangle]
pub extern "C" fn secmo_version() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr() as *const c_char
}

/// `SECMO_ABI_VERSION` of the compiled library; compare with the header's.
#[no_mangle]
pub extern "C" fn secmo_abi_version() -> u32 {
    SECMO_ABI_VERSION
}

/// Message of the most recent failing call on this thread ("" if none).
/// Valid until the next failing call on the same thread. Never NULL. Owned by
/// the library: do not free.
#[no_mangle]
pub extern "C" fn secmo_last_error_message() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    guard_value(EMPTY.as_ptr() as *const c_char, || {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            if e.is_empty() {
                EMPTY.as_ptr() as *const c_char
            } else {
                e.as_ptr() as *const c_char
            }
        })
    })
}

/// Number of rigs and characters currently alive (created and not destroyed).
/// For leak checks in tests and wrappers.
#[no_mangle]
pub extern "C" fn secmo_live_object_count() -> usize {
    LIVE_OBJECTS.load(Ordering::SeqCst)
}

fn spring_desc_from(p: &SpringParams) -> SecmoSpringDesc {
    SecmoSpringDesc {
        struct_size: core::mem::size_of::<SecmoSpringDesc>() as u32,
        bone: p.bone,
        stiffness: p.stiffness,
        damping: p.damping,
        max_offset: p.max_offset,
        max_substep_displacement: p.max_substep_displacement,
        history_length: p.history_length,
        reset_threshold: p.reset_threshold,
        time_factor: p.time_factor,
        extra_velocity: p.extra_velocity.to_array(),
        alpha: p.alpha,
    }
}

/// Fills `*out` with `make(units_per_meter)` behind the panic guard.
fn preset<T>(
    name: &str,
    units_per_meter: f32,
    out: *mut T,
    make: impl FnOnce(f32) -> T,
) -> SecmoResult {
    guard(name, || {
        let out = non_null_mut(out, "out")?;
        if !(units_per_meter.is_finite() && units_per_meter > 0.0) {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("units_per_meter {units_per_meter} must be finite and > 0"),
            ));
        }
        *out = make(units_per_meter);
        Ok(())
    })
}

/// Fills `*out_desc` with the article's hip spring defaults (SPEC §3) for a rig
/// in `units_per_meter`, driving `bone`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_spring_desc_hip(
    bone: u32,
    units_per_meter: f32,
    out_desc: *mut SecmoSpringDesc,
) -> SecmoResult {
    preset("secmo_spring_desc_hip", units_per_meter, out_desc, |u| {
        spring_desc_from(&SpringParams::hip(bone, u))
    })
}

/// Fills `*out_desc` with the article's chest spring defaults (SPEC §3).
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_spring_desc_chest(
    bone: u32,
    units_per_meter: f32,
    out_desc: *mut SecmoSpringDesc,
) -> SecmoResult {
    preset("secmo_spring_desc_chest", units_per_meter, out_desc, |u| {
        spring_desc_from(&SpringParams::chest(bone, u))
    })
}

/// Fills a BtoB corrective (SPEC §5) for one chest bone: probes on both
/// upper arms (10 cm, weight 2), forearms (13 cm) and hands (15 cm), and the
/// other chest (`chest_gap`, usually their rest distance) on local scale.
/// `medial_x` is +1 or −1: the sign of the chest's local +X toward the
/// midline. Writes 7 probes into `out_probes` (which must hold at least 7) and
/// points `out_desc->probes` at them. Gains are documented in docs/btob.md.
/// Errors: NULL_POINTER, BUFFER_LENGTH, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_corrective_desc_btob(
    bones: *const BtobBones,
    side: u32,
    medial_x: f32,
    chest_gap: f32,
    units_per_meter: f32,
    out_probes: *mut SecmoProbeDesc,
    out_probes_len: usize,
    out_desc: *mut SecmoCorrectiveDesc,
) -> SecmoResult {
    guard("secmo_corrective_desc_btob", || {
        let bones = *non_null(bones, "bones")?;
        let out = non_null_mut(out_desc, "out_desc")?;
        let side = side_from(side)?;
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !(positive(units_per_meter) && positive(chest_gap) && positive(medial_x.abs())) {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                "units_per_meter and chest_gap must be finite and > 0, medial_x ±1",
            ));
        }
        let c = ProximityCorrective::btob(bones, side, medial_x, chest_gap, units_per_meter);
        if out_probes_len < c.probes.len() {
            return Err(Error::BufferLength {
                what: "out_probes",
                expected: c.probes.len(),
                got: out_probes_len,
            }
            .into());
        }
        let probes = slice_mut(out_probes, c.probes.len(), "out_probes")?;
        let code = |s: Side| s as u32;
        for (dst, p) in probes.iter_mut().zip(&c.probes) {
            *dst = SecmoProbeDesc {
                struct_size: core::mem::size_of::<SecmoProbeDesc>() as u32,
                bone: p.bone,
                side: code(p.side),
                threshold: p.threshold,
                weight: p.weight,
                same_translation: p.same_side.translation.to_array(),
                same_scale: p.same_side.scale.to_array(),
                opposite_translation: p.opposite_side.translation.to_array(),
                opposite_scale: p.opposite_side.scale.to_array(),
            };
        }
        *out = SecmoCorrectiveDesc {
            struct_size: core::mem::size_of::<SecmoCorrectiveDesc>() as u32,
            driven_bone: c.driven,
            side: code(c.side),
            rate: c.rate,
            probes: out_probes,
            probe_count: c.probes.len() as u32,
        };
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Rig.

fn spring_from_desc(d: &SecmoSpringDesc) -> SpringParams {
    SpringParams {
        bone: d.bone,
        stiffness: d.stiffness,
        damping: d.damping,
        max_offset: d.max_offset,
        max_substep_displacement: if d.max_substep_displacement == 0.0 {
            d.max_offset
        } else {
            d.max_substep_displacement
        },
        history_length: d.history_length,
        reset_threshold: d.reset_threshold,
        time_factor: d.time_factor,
        extra_velocity: Vec3::from_array(d.extra_velocity),
        alpha: d.alpha,
    }
}

fn rig_desc_from_c(d: &SecmoRigDesc) -> Result<RigDesc, FfiError> {
    let n = d.bone_count as usize;
    let parents = slice(d.parents, n, "desc.parents")?;
    let reference = slice(d.reference_pose, n, "desc.reference_pose")?;
    let inverse_binds = if d.inverse_bind_matrices.is_null() {
        None
    } else {
        Some(slice(
            d.inverse_bind_matrices,
            n * 16,
            "desc.inverse_bind_matrices",
        )?)
    };
    let has_bind = if d.has_inverse_bind.is_null() {
        None
    } else {
        Some(slice(d.has_inverse_bind, n, "desc.has_inverse_bind")?)
    };
    let names = if d.bone_names.is_null() {
        None
    } else {
        Some(slice(d.bone_names, n, "desc.bone_names")?)
    };
    let mut bones = Vec::with_capacity(n);
    for i in 0..n {
        let name = match names {
            Some(names) if !names[i].is_null() => {
                // SAFETY: the caller promises NUL-terminated strings.
                let c = unsafe { CStr::from_ptr(names[i]) };
                c.to_str()
                    .map_err(|_| {
                        FfiError::new(
                            SECMO_ERROR_INVALID_RIG,
                            format!("bone {i}: name is not valid UTF-8"),
                        )
                    })?
                    .to_owned()
            }
            _ => format!("bone{i}"),
        };
        let mut bone = BoneDesc::new(name, parents[i], reference[i]);
        if let Some(m) = inverse_binds {
            if has_bind.is_none_or(|f| f[i] != 0) {
                let cols: &[f32; 16] = m[i * 16..i * 16 + 16].try_into().expect("16 floats");
                bone.inverse_bind = Some(Mat4::from_cols_array(cols));
            }
        }
        bones.push(bone);
    }
    let spring_defaults = spring_desc_from(&SpringParams::hip(0, d.units_per_meter.max(1e-6)));
    let springs = read_array(d.springs, d.spring_count, spring_defaults, "desc.springs")?
        .iter()
        .map(spring_from_desc)
        .collect();
    let up_axis = match d.up_axis {
        SECMO_UP_AXIS_Y => UpAxis::Y,
        SECMO_UP_AXIS_Z => UpAxis::Z,
        other => {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("desc.up_axis is {other}; use SECMO_UP_AXIS_Y or SECMO_UP_AXIS_Z"),
            ))
        }
    };
    let constraints = read_array(
        d.constraints,
        d.constraint_count,
        SecmoRotationConstraintDesc {
            struct_size: 0,
            bone: 0,
            target: 0,
        },
        "desc.constraints",
    )?
    .into_iter()
    .map(|c| ConstraintDesc {
        bone: c.bone,
        target: c.target,
    })
    .collect();
    let corrective_defaults = SecmoCorrectiveDesc {
        struct_size: 0,
        driven_bone: 0,
        side: SECMO_SIDE_CENTER,
        rate: 24.0,
        probes: std::ptr::null(),
        probe_count: 0,
    };
    let mut correctives = Vec::with_capacity(d.corrective_count as usize);
    for (i, c) in read_array(
        d.correctives,
        d.corrective_count,
        corrective_defaults,
        "desc.correctives",
    )?
    .into_iter()
    .enumerate()
    {
        let probes = read_array(
            c.probes,
            c.probe_count,
            SecmoProbeDesc {
                struct_size: 0,
                bone: 0,
                side: SECMO_SIDE_CENTER,
                threshold: 0.0,
                weight: 1.0,
                same_translation: [0.0; 3],
                same_scale: [0.0; 3],
                opposite_translation: [0.0; 3],
                opposite_scale: [0.0; 3],
            },
            &format!("desc.correctives[{i}].probes"),
        )?
        .into_iter()
        .map(|p| {
            Ok(Probe {
                bone: p.bone,
                threshold: p.threshold,
                weight: p.weight,
                side: side_from(p.side)?,
                same_side: Gains {
                    translation: Vec3::from_array(p.same_translation),
                    scale: Vec3::from_array(p.same_scale),
                },
                opposite_side: Gains {
                    translation: Vec3::from_array(p.opposite_translation),
                    scale: Vec3::from_array(p.opposite_scale),
                },
            })
        })
        .collect::<Result<Vec<_>, FfiError>>()?;
        correctives.push(ProximityCorrective {
            driven: c.driven_bone,
            side: side_from(c.side)?,
            rate: c.rate,
            probes,
        });
    }
    let colliders = read_array(
        d.colliders,
        d.collider_count,
        SecmoColliderDesc {
            struct_size: 0,
            shape: SECMO_COLLIDER_SPHERE,
            bone: 0,
            a: [0.0; 3],
            b: [0.0; 3],
            radius: 0.0,
        },
        "desc.colliders",
    )?
    .iter()
    .map(collider_from_c)
    .collect::<Result<Vec<_>, _>>()?;
    let chain_defaults = SecmoChainDesc {
        struct_size: 0,
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
    };
    let chains = read_array(d.chains, d.chain_count, chain_defaults, "desc.chains")?
        .iter()
        .enumerate()
        .map(|(i, c)| chain_from_c(c, d.units_per_meter, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RigDesc {
        bones,
        units_per_meter: d.units_per_meter,
        up_axis,
        constraints,
        springs,
        correctives,
        colliders,
        chains,
    })
}

/// Validates `desc` and builds an immutable rig. On success `*out_rig` owns one
/// reference; release it with `secmo_rig_destroy`. Allocates. The descriptor's
/// arrays are only read during the call.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_RIG (message names the bone and
/// the reason: parent after child, cycle, out of range, NaN, zero scale),
/// INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_create(
    desc: *const SecmoRigDesc,
    out_rig: *mut *mut SecmoRig,
) -> SecmoResult {
    guard("secmo_rig_create", || {
        let out = non_null_mut(out_rig, "out_rig")?;
        let d = read_versioned(desc, SecmoRigDesc::default(), "desc")?;
        let rig = Rig::new(rig_desc_from_c(&d)?)?;
        *out = new_handle(SecmoRig { rig: Arc::new(rig) });
        Ok(())
    })
}

/// Builds a rig from a skeleton and a rig-settings text (docs/settings.md):
/// `skeleton` gives the bones (with `bone_names`, which the settings refer
/// to), units and up axis, and any solvers it already lists; the settings'
/// springs, constraints, correctives, colliders and chains are added to them.
/// `settings` is UTF-8 JSON of `settings_len` bytes (no NUL needed). Allocates.
/// Errors: NULL_POINTER, STRUCT_SIZE, SETTINGS (the message names the JSON
/// line or the field), INVALID_RIG, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_create_from_settings(
    skeleton: *const SecmoRigDesc,
    settings: *const c_char,
    settings_len: usize,
    out_rig: *mut *mut SecmoRig,
) -> SecmoResult {
    guard("secmo_rig_create_from_settings", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (skeleton, settings, settings_len, out_rig);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let out = non_null_mut(out_rig, "out_rig")?;
            let d = read_versioned(skeleton, SecmoRigDesc::default(), "skeleton")?;
            if d.bone_names.is_null() {
                return Err(FfiError::new(
                    SECMO_ERROR_SETTINGS,
                    "skeleton.bone_names is NULL; settings refer to bones by name",
                ));
            }
            let bytes = slice(settings as *const u8, settings_len, "settings")?;
            let text = std::str::from_utf8(bytes).map_err(|e| {
                FfiError::new(SECMO_ERROR_SETTINGS, format!("settings are not UTF-8: {e}"))
            })?;
            let parsed = crate::settings::RigSettings::from_json(text)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, e.to_string()))?;
            let mut base = rig_desc_from_c(&d)?;
            let bones = std::mem::take(&mut base.bones);
            let mut desc = parsed
                .to_rig_desc(bones, base.units_per_meter, base.up_axis)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, e.to_string()))?;
            // The skeleton's own solvers come first.
            base.springs.append(&mut desc.springs);
            base.constraints.append(&mut desc.constraints);
            base.correctives.append(&mut desc.correctives);
            let collider_offset = base.colliders.len() as u32;
            for chain in &mut desc.chains {
                for c in &mut chain.colliders {
                    *c += collider_offset;
                }
            }
            base.colliders.append(&mut desc.colliders);
            base.chains.append(&mut desc.chains);
            base.bones = desc.bones;
            let rig = Rig::new(base)?;
            *out = new_handle(SecmoRig { rig: Arc::new(rig) });
            Ok(())
        }
    })
}

/// The error of the settings functions in a build without the `settings`
/// feature (the C ABI keeps them, so one header serves every build).
#[cfg(not(feature = "settings"))]
fn without_settings() -> FfiError {
    FfiError::new(
        SECMO_ERROR_SETTINGS,
        "this secmo library was built without the settings feature (rig-settings JSON and VRM)",
    )
}

/// Writes the rig's solver setup as a rig-settings text (UTF-8 JSON,
/// NUL-terminated). `*out_len` receives the bytes needed including the NUL,
/// also when `buffer` is NULL or too small (then BUFFER_LENGTH is returned
/// and nothing is written): call once to size, once to fill. Allocates.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_write_settings(
    rig: *const SecmoRig,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    guard("secmo_rig_write_settings", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (rig, buffer, buffer_len, out_len);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let rig = non_null(rig, "rig")?;
            let text = crate::settings::RigSettings::from_rig(&rig.rig).to_json();
            // SAFETY: the caller's contract for `buffer`/`out_len` is
            // write_text's (header comment of this function).
            unsafe { write_text(&text, buffer, buffer_len, out_len) }
        }
    })
}

/// The two-call text output shared by the settings writers: `*out_len`
/// always receives the bytes needed including the NUL.
#[cfg(feature = "settings")]
unsafe fn write_text(
    text: &str,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> Result<(), FfiError> {
    let needed_out = non_null_mut(out_len, "out_len")?;
    let needed = text.len() + 1;
    *needed_out = needed;
    if buffer.is_null() || buffer_len < needed {
        return Err(Error::BufferLength {
            what: "settings buffer",
            expected: needed,
            got: buffer_len,
        }
        .into());
    }
    let out = slice_mut(buffer as *mut u8, needed, "buffer")?;
    out[..text.len()].copy_from_slice(text.as_bytes());
    out[text.len()] = 0;
    Ok(())
}

/// Reads the spring bones of a VRM 0.x or 1.0 file (.vrm/.glb bytes or
/// .gltf text) and writes them as a rig-settings text (UTF-8 JSON,
/// NUL-terminated) whose chains use the hair solver (docs/vrm-mapping.md).
/// Two calls like `secmo_rig_write_settings`: `*out_len` receives the bytes
/// needed including the NUL, also when `buffer` is NULL or too small. A
/// spring that starts at a scene root is anchored to an added bone named
/// `secmo_scene_root`. Allocates.
/// Errors: NULL_POINTER, BUFFER_LENGTH, SETTINGS (the message names the
/// file's field, e.g. `VRM.secondaryAnimation.boneGroups[0].bones[2]`).
#[no_mangle]
pub unsafe extern "C" fn secmo_settings_from_vrm(
    bytes: *const u8,
    bytes_len: usize,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    guard("secmo_settings_from_vrm", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (bytes, bytes_len, buffer, buffer_len, out_len);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let bytes = slice(bytes, bytes_len, "bytes")?;
            let import = crate::vrm::import(bytes)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, format!("VRM: {e}")))?;
            // SAFETY: the caller's contract for `buffer`/`out_len` is
            // write_text's (header comment of this function).
            unsafe { write_text(&import.settings.to_json(), buffer, buffer_len, out_len) }
        }
    })
}

/// Releases the caller's reference. Characters created from the rig keep it
/// alive. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_destroy(rig: *mut SecmoRig) {
    // SAFETY: the caller passes NULL or a rig from secmo_rig_create*, once.
    guard_value((), || unsafe { free_handle(rig) })
}

/// Number of bones; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_bone_count(rig: *const SecmoRig) -> u32 {
    // SAFETY: the caller passes NULL or a live rig.
    guard_value(0, || {
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.bone_count() as u32)
    })
}

/// Number of springs; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_spring_count(rig: *const SecmoRig) -> u32 {
    guard_value(0, || {
        // SAFETY: the caller passes NULL or a live rig.
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.springs().len() as u32)
    })
}

/// Number of warnings raised while building the rig (e.g. sheared bind pose).
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_warning_count(rig: *const SecmoRig) -> u32 {
    guard_value(0, || {
        // SAFETY: the caller passes NULL or a live rig.
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.warnings().len() as u32)
    })
}

/// Warning `index`: its kind (`SECMO_WARNING_*`) and the bone it concerns.
/// Errors: NULL_POINTER, INVALID_ARGUMENT (index out of range).
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_warning(
    rig: *const SecmoRig,
    index: u32,
    out_kind: *mut u32,
    out_bone: *mut u32,
) -> SecmoResult {
    guard("secmo_rig_warning", || {
        let rig = non_null(rig, "rig")?;
        let kind = non_null_mut(out_kind, "out_kind")?;
        let bone = non_null_mut(out_bone, "out_bone")?;
        let w = rig.rig.warnings().get(index as usize).ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("warning index {index} is out of range"),
            )
        })?;
        match w {
            RigWarning::Shear { bone: b } => {
                *kind = SECMO_WARNING_SHEAR;
                *bone = *b as u32;
            }
        }
        Ok(())
    })
}

/// Copies the rig's neutral local pose (recovered from inverse binds where
/// given) into `out_pose`, which must hold exactly the bone count.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_reference_pose(
    rig: *const SecmoRig,
    out_pose: *mut Transform,
    out_pose_len: usize,
) -> SecmoResult {
    guard("secmo_rig_reference_pose", || {
        let rig = non_null(rig, "rig")?;
        let pose = rig.rig.reference_pose();
        if out_pose_len != pose.len() {
            return Err(Error::BufferLength {
                what: "out_pose",
                expected: pose.len(),
                got: out_pose_len,
            }
            .into());
        }
        slice_mut(out_pose, out_pose_len, "out_pose")?.copy_from_slice(pose);
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Character.

fn substep_target(value: u32) -> Result<SubstepTarget, FfiError> {
    match value {
        SECMO_SUBSTEP_TARGET_HOLD => Ok(SubstepTarget::Hold),
        SECMO_SUBSTEP_TARGET_INTERPOLATE => Ok(SubstepTarget::Interpolate),
        other => Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!("substep_target is {other}; use SECMO_SUBSTEP_TARGET_HOLD or _INTERPOLATE"),
        )),
    }
}

/// Creates a character of `rig` (which it keeps alive). `desc` may be NULL for
/// defaults. All memory the character uses is allocated here; updates never
/// allocate. Release with `secmo_character_destroy`.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_create(
    rig: *const SecmoRig,
    desc: *const SecmoCharacterDesc,
    out_character: *mut *mut SecmoCharacter,
) -> SecmoResult {
    guard("secmo_character_create", || {
        let rig = non_null(rig, "rig")?;
        let out = non_null_mut(out_character, "out_character")?;
        let mut options = CharacterOptions::default();
        if !desc.is_null() {
            let d = read_versioned(
                desc,
                SecmoCharacterDesc {
                    struct_size: 0,
                    substep_target: SECMO_SUBSTEP_TARGET_HOLD,
                },
                "desc",
            )?;
            options.substep_target = substep_target(d.substep_target)?;
        }
        let character = Character::new(Arc::clone(&rig.rig), options);
        *out = new_handle(SecmoCharacter { character });
        Ok(())
    })
}

/// Destroys a character. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_destroy(character: *mut SecmoCharacter) {
    // SAFETY: the caller passes NULL or a character from
    // secmo_character_create, once.
    guard_value((), || unsafe { free_handle(character) })
}

/// Turns the pointers of `SecmoStageRecords` into borrowed slices.
fn record_sink<'a>(r: &SecmoStageRecords, rig: &Rig) -> Result<RecordSink<'a>, FfiError> {
    let n = rig.bone_count();
    let any_pose = [
        r.source,
        r.constrained,
        r.post_spring,
        r.post_corrective,
        r.final_pose,
    ]
    .iter()
    .any(|p| !p.is_null());
    if any_pose && r.bone_count as usize != n {
        return Err(Error::BufferLength {
            what: "records.bone_count",
            expected: n,
            got: r.bone_count as usize,
        }
        .into());
    }
    fn opt<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<Option<&'a mut [T]>, FfiError> {
        if ptr.is_null() {
            Ok(None)
        } else {
            slice_mut(ptr, len, what).map(Some)
        }
    }
    Ok(RecordSink {
        source: opt(r.source, n, "records.source")?,
        constrained: opt(r.constrained, n, "records.constrained")?,
        post_spring: opt(r.post_spring, n, "records.post_spring")?,
        post_corrective: opt(r.post_corrective, n, "records.post_corrective")?,
        final_pose: opt(r.final_pose, n, "records.final_pose")?,
        springs: opt(r.springs, r.spring_count as usize, "records.springs")?,
        correctives: opt(
            r.correctives,
            r.corrective_count as usize,
            "records.correctives",
        )?,
        probe_distances: opt(
            r.probe_distances,
            r.probe_distance_count as usize,
            "records.probe_distances",
        )?,
    })
}

/// The body shared by `secmo_character_update` and `_update_recorded`.
unsafe fn update_impl(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
    records: *const SecmoStageRecords,
) -> Result<(), FfiError> {
    let character = &mut non_null_mut(character, "character")?.character;
    let frame = read_versioned(
        input,
        SecmoFrameInput {
            struct_size: 0,
            flags: 0,
            dt: 0.0,
            pose: std::ptr::null(),
            pose_len: 0,
            world: Transform::IDENTITY,
            importance: 1.0,
        },
        "input",
    )?;
    // World and importance are validated before anything changes, and
    // applied only when the update itself succeeds.
    if frame.flags & SECMO_FRAME_HAS_WORLD != 0 {
        character.validate_world_transform(&frame.world)?;
    }
    if frame.flags & SECMO_FRAME_HAS_IMPORTANCE != 0 && !frame.importance.is_finite() {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            "input->importance is not finite",
        ));
    }
    if !out_info.is_null() {
        // SAFETY: non-null, and the caller promises a writable
        // SecmoUpdateInfo whose struct_size is set; a u32 is read unaligned.
        let size = unsafe { (out_info as *const u32).read_unaligned() } as usize;
        if !SecmoUpdateInfo::SHIPPED.contains(&size) {
            return Err(FfiError::new(
                SECMO_ERROR_STRUCT_SIZE,
                format!(
                    "out_info.struct_size is {size}; this library accepts {:?}",
                    SecmoUpdateInfo::SHIPPED
                ),
            ));
        }
    }
    let mut sink = if records.is_null() {
        None
    } else {
        let r = read_versioned(
            records,
            SecmoStageRecords {
                struct_size: 0,
                bone_count: 0,
                source: std::ptr::null_mut(),
                constrained: std::ptr::null_mut(),
                post_spring: std::ptr::null_mut(),
                post_corrective: std::ptr::null_mut(),
                final_pose: std::ptr::null_mut(),
                springs: std::ptr::null_mut(),
                spring_count: 0,
                corrective_count: 0,
                correctives: std::ptr::null_mut(),
                probe_distances: std::ptr::null_mut(),
                probe_distance_count: 0,
            },
            "records",
        )?;
        Some(record_sink(&r, character.rig())?)
    };
    let teleport = frame.flags & SECMO_FRAME_TELEPORT != 0;
    let saved_inputs = character.chain_inputs();
    if frame.flags & SECMO_FRAME_HAS_WORLD != 0 {
        character.set_world_transform(frame.world)?;
    }
    if frame.flags & SECMO_FRAME_HAS_IMPORTANCE != 0 {
        character.set_importance(frame.importance)?;
    }
    // SAFETY: the pointers come from the caller under this function's
    // contract; update_pose checks the lengths before making slices.
    let result = unsafe {
        update_pose(
            character,
            &frame,
            teleport,
            out_pose,
            out_pose_len,
            sink.as_mut(),
        )
    };
    let info = match result {
        Ok(info) => info,
        Err(e) => {
            character.restore_chain_inputs(saved_inputs);
            return Err(e);
        }
    };
    if !out_info.is_null() {
        // SAFETY: checked above: non-null, writable, struct_size shipped.
        let size = unsafe { (out_info as *const u32).read_unaligned() } as usize;
        let full = SecmoUpdateInfo {
            struct_size: size as u32,
            max_substeps: info.max_substeps,
            snapped_springs: info.snapped_springs,
            warnings: info.warnings,
        };
        // SAFETY: `size` is a shipped size ≤ size_of::<SecmoUpdateInfo>(),
        // and the caller's struct holds `size` writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &full as *const SecmoUpdateInfo as *const u8,
                out_info as *mut u8,
                size,
            );
        }
    }
    Ok(())
}

/// The pose part of an update: in place or from one buffer to another.
unsafe fn update_pose(
    character: &mut Character,
    frame: &SecmoFrameInput,
    teleport: bool,
    out_pose: *mut Transform,
    out_pose_len: usize,
    sink: Option<&mut RecordSink<'_>>,
) -> Result<crate::character::UpdateInfo, FfiError> {
    // Lengths are checked against the rig before any slice exists: a slice
    // of more than isize::MAX bytes is undefined behaviour even unread.
    let bones = character.rig().bone_count();
    for (what, len) in [
        ("input->pose_len", frame.pose_len),
        ("out_pose_len", out_pose_len),
    ] {
        if len != bones {
            return Err(FfiError::new(
                SECMO_ERROR_BUFFER_LENGTH,
                format!("{what} is {len} but the rig has {bones} bones"),
            ));
        }
    }
    let bytes = bones * core::mem::size_of::<Transform>(); // bounded by Rig::new
    let in_start = frame.pose as usize;
    let in_end = in_start.saturating_add(bytes);
    let out_start = out_pose as usize;
    let out_end = out_start.saturating_add(bytes);
    if in_start == out_start && frame.pose_len == out_pose_len && !out_pose.is_null() {
        let pose = slice_mut(out_pose, out_pose_len, "out_pose")?;
        Ok(character.update_in_place_with_sink(frame.dt, teleport, pose, sink)?)
    } else {
        if in_start < out_end && out_start < in_end {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                "input->pose and out_pose partly overlap",
            ));
        }
        let pose = slice(frame.pose, frame.pose_len, "input->pose")?;
        let output = slice_mut(out_pose, out_pose_len, "out_pose")?;
        Ok(character.update_with_sink(
            &FrameInput {
                dt: frame.dt,
                pose,
                teleport,
            },
            output,
            sink,
        )?)
    }
}

/// Runs one update. `out_pose` receives `out_pose_len` (= bone count) final
/// local transforms; it may be the same buffer as `input->pose` (in place) but
/// must not partly overlap it. `out_info` may be NULL. Does not allocate.
/// On any error nothing is written and the character's state is unchanged.
/// Errors: NULL_POINTER, STRUCT_SIZE, BUFFER_LENGTH, INVALID_DT,
/// NON_FINITE_POSE, DEGENERATE_POSE, NON_FINITE_RESULT, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_update(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
) -> SecmoResult {
    // SAFETY: the caller's pointers follow this function's header contract.
    guard("secmo_character_update", || unsafe {
        update_impl(
            character,
            input,
            out_pose,
            out_pose_len,
            out_info,
            std::ptr::null(),
        )
    })
}

/// `secmo_character_update` that also writes the stage-by-stage records of
/// SPEC §6 into the buffers `records` points to (each optional). Records are
/// written only on success. Does not allocate.
/// Errors: as `secmo_character_update`, plus BUFFER_LENGTH for a record buffer
/// whose count does not match the rig.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_update_recorded(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
    records: *const SecmoStageRecords,
) -> SecmoResult {
    guard("secmo_character_update_recorded", || {
        non_null(records, "records")?;
        // SAFETY: the caller's pointers follow this function's header contract.
        unsafe { update_impl(character, input, out_pose, out_pose_len, out_info, records) }
    })
}

/// Turns a stage (`SECMO_STAGE_*`) on (non-zero) or off (0) without losing
/// state: a stage that is off passes its input through and does not advance.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_stage_enabled(
    character: *mut SecmoCharacter,
    stage: u32,
    enabled: u32,
) -> SecmoResult {
    guard("secmo_character_set_stage_enabled", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let stage = match stage {
            SECMO_STAGE_CONSTRAINTS => Stage::Constraints,
            SECMO_STAGE_SPRINGS => Stage::Springs,
            SECMO_STAGE_CORRECTIVES => Stage::Correctives,
            SECMO_STAGE_CHAINS => Stage::Chains,
            other => {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!("stage is {other}; use SECMO_STAGE_*"),
                ))
            }
        };
        c.set_stage_enabled(stage, enabled != 0);
        Ok(())
    })
}

/// Teleport: the next update seeds all solver state at its targets, with dt
/// treated as 0. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_reset(character: *mut SecmoCharacter) -> SecmoResult {
    guard("secmo_character_reset", || {
        non_null_mut(character, "character")?.character.reset();
        Ok(())
    })
}

/// Switches how substep targets are chosen, keeping all state (SPEC §2).
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_substep_target(
    character: *mut SecmoCharacter,
    substep_target_value: u32,
) -> SecmoResult {
    guard("secmo_character_set_substep_target", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let mut o = c.options();
        o.substep_target = substep_target(substep_target_value)?;
        c.set_options(o);
        Ok(())
    })
}

/// Copies the last update's per-spring records (substeps, dt, h, remaining
/// before/after, x, p, v, output) into `out_records`, which must hold at least
/// the rig's spring count; `*out_count` receives that count.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_spring_records(
    character: *const SecmoCharacter,
    out_records: *mut SpringRecord,
    out_records_len: usize,
    out_count: *mut usize,
) -> SecmoResult {
    guard("secmo_character_spring_records", || {
        let c = &non_null(character, "character")?.character;
        let count = non_null_mut(out_count, "out_count")?;
        let records = c.spring_records();
        if out_records_len < records.len() {
            return Err(Error::BufferLength {
                what: "out_records",
                expected: records.len(),
                got: out_records_len,
            }
            .into());
        }
        slice_mut(out_records, records.len(), "out_records")?.copy_from_slice(records);
        *count = records.len();
        Ok(())
    })
}

/// Bytes needed by `secmo_character_snapshot`. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_snapshot_size(
    character: *const SecmoCharacter,
    out_size: *mut usize,
) -> SecmoResult {
    guard("secmo_character_snapshot_size", || {
        let c = &non_null(character, "character")?.character;
        *non_null_mut(out_size, "out_size")? = c.snapshot_size();
        Ok(())
    })
}

/// Writes the complete solver state (versioned, tied to the rig) into
/// `buffer`; `*out_written` receives the byte count. Does not allocate.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_snapshot(
    character: *const SecmoCharacter,
    buffer: *mut u8,
    buffer_len: usize,
    out_written: *mut usize,
) -> SecmoResult {
    guard("secmo_character_snapshot", || {
        let c = &non_null(character, "character")?.character;
        let written = non_null_mut(out_written, "out_written")?;
        let buf = slice_mut(buffer, buffer_len, "buffer")?;
        *written = c.snapshot(buf)?;
        Ok(())
    })
}

/// Restores state written by `secmo_character_snapshot` for a character of
/// the same rig. Continuing from it gives bit-identical results. The buffer is
/// checked completely first; on error the state is unchanged. Does not allocate.
/// Errors: NULL_POINTER, SNAPSHOT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_restore(
    character: *mut SecmoCharacter,
    buffer: *const u8,
    buffer_len: usize,
) -> SecmoResult {
    guard("secmo_character_restore", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let buf = slice(buffer, buffer_len, "buffer")?;
        c.restore(buf)?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Chains.

/// Fills `*out_params` with the tail preset (SPEC §7) for a rig in
/// `units_per_meter`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_chain_params_tail(
    units_per_meter: f32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    preset(
        "secmo_chain_params_tail",
        units_per_meter,
        out_params,
        ChainParams::tail,
    )
}

/// Fills `*out_params` with the hair preset (SPEC §8) for a rig in
/// `units_per_meter`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_chain_params_hair(
    units_per_meter: f32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    preset(
        "secmo_chain_params_hair",
        units_per_meter,
        out_params,
        ChainParams::hair,
    )
}

/// Changes chain `chain`'s parameters at runtime, keeping its particles and
/// velocities (no reset). Does not allocate.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_chain_params(
    character: *mut SecmoCharacter,
    chain: u32,
    params: *const ChainParams,
) -> SecmoResult {
    guard("secmo_character_set_chain_params", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let current = c.chain_params(chain as usize).copied().ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("chain {chain} does not exist"),
            )
        })?;
        let p = read_versioned(params, current, "params")?;
        c.set_chain_params(chain as usize, p)?;
        Ok(())
    })
}

/// Copies chain `chain`'s current parameters into `*out_params`.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_chain_params(
    character: *const SecmoCharacter,
    chain: u32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    guard("secmo_character_chain_params", || {
        let c = &non_null(character, "character")?.character;
        let out = non_null_mut(out_params, "out_params")?;
        let p = c.chain_params(chain as usize).ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("chain {chain} does not exist"),
            )
        })?;
        *out = *p;
        Ok(())
    })
}

/// Wind and other external acceleration on the chains, world units/s²,
/// scaled by each chain's `wind_factor`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_wind(
    character: *mut SecmoCharacter,
    wind: *const [f32; 3],
) -> SecmoResult {
    guard("secmo_character_set_wind", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let w = non_null(wind, "wind")?;
        c.set_wind(Vec3::from_array(*w))?;
        Ok(())
    })
}

/// Buffer sizes that always hold everything `secmo_character_debug_draw`
/// writes. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_debug_draw_capacity(
    character: *const SecmoCharacter,
    out_lines: *mut usize,
    out_spheres: *mut usize,
) -> SecmoResult {
    guard("secmo_character_debug_draw_capacity", || {
        let c = &non_null(character, "character")?.character;
        let (l, s) = c.debug_draw_capacity();
        *non_null_mut(out_lines, "out_lines")? = l;
        *non_null_mut(out_spheres, "out_spheres")? = s;
        Ok(())
    })
}

/// Writes the chains after the last update (world space): links and rest
/// arcs as lines; particles, rest targets and colliders as spheres; kinds
/// `SECMO_DEBUG_*`. Fills at most the given lengths (either buffer may be NULL
/// with length 0) and reports the counts written. Does not allocate.
/// Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_debug_draw(
    character: *const SecmoCharacter,
    lines: *mut DebugLine,
    lines_len: usize,
    out_line_count: *mut usize,
    spheres: *mut DebugSphere,
    spheres_len: usize,
    out_sphere_count: *mut usize,
) -> SecmoResult {
    guard("secmo_character_debug_draw", || {
        let c = &non_null(character, "character")?.character;
        let line_count = non_null_mut(out_line_count, "out_line_count")?;
        let sphere_count = non_null_mut(out_sphere_count, "out_sphere_count")?;
        let l = slice_mut(lines, lines_len, "lines")?;
        let s = slice_mut(spheres, spheres_len, "spheres")?;
        let (nl, ns) = c.debug_draw(l, s);
        *line_count = nl;
        *sphere_count = ns;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        unsafe { CStr::from_ptr(secmo_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_an_error_code_with_a_message() {
        let r = guard("secmo_test", || panic!("boom at the boundary"));
        assert_eq!(r, SECMO_ERROR_PANIC);
        assert!(
            last_error().contains("boom at the boundary"),
            "{}",
            last_error()
        );
        assert_eq!(guard_value(7u32, || panic!("x")), 7);
    }

    #[test]
    fn last_error_is_per_thread() {
        set_last_error("main thread failure");
        let other = std::thread::spawn(last_error).join().unwrap();
        assert_eq!(other, "");
        assert_eq!(last_error(), "main thread failure");
    }

    #[repr(C)]
    #[derive(Clone, Copy)]
    struct OldCharacterDesc {
        struct_size: u32,
    }

    #[test]
    fn descriptors_grow_by_struct_size() {
        let defaults = SecmoCharacterDesc {
            struct_size: 0,
            substep_target: 9,
        };
        // A caller compiled against a header that had only 8 bytes: fine.
        let full = SecmoCharacterDesc {
            struct_size: 8,
            substep_target: SECMO_SUBSTEP_TARGET_INTERPOLATE,
        };
        let d = read_versioned(&full, defaults, "desc").ok().unwrap();
        assert_eq!(d.substep_target, SECMO_SUBSTEP_TARGET_INTERPOLATE);
        // Too small to hold even struct_size and one field.
        let old = OldCharacterDesc { struct_size: 4 };
        let e = read_versioned(
            &old as *const _ as *const SecmoCharacterDesc,
            defaults,
            "desc",
        );
        assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
        // Newer than the library.
        let newer = SecmoCharacterDesc {
            struct_size: 64,
            substep_target: 0,
        };
        let e = read_versioned(&newer, defaults, "desc");
        assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
        // A size between fields (half of a field, or of a pointer) is not a
        // shipped size: refused, never copied.
        for size in [5, 6, 7] {
            let odd = SecmoCharacterDesc {
                struct_size: size,
                substep_target: 0,
            };
            let e = read_versioned(&odd, defaults, "desc");
            assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
        }
        // A frame input whose struct_size is 12 would copy half of the pose
        // pointer: refused.
        let mut frame = SecmoFrameInput {
            struct_size: 12,
            flags: 0,
            dt: 0.0,
            pose: std::ptr::null(),
            pose_len: 0,
            world: Transform::IDENTITY,
            importance: 1.0,
        };
        let e = read_versioned(&frame, frame, "input");
        assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
        frame.struct_size = core::mem::size_of::<SecmoFrameInput>() as u32;
        assert!(read_versioned(&frame, frame, "input").is_ok());
        assert!(
            read_versioned(std::ptr::null::<SecmoCharacterDesc>(), defaults, "desc")
                .err()
                .is_some_and(|e| e.code == SECMO_ERROR_NULL_POINTER)
        );
    }

    #[test]
    fn null_arguments_are_reported_not_dereferenced() {
        unsafe {
            assert_eq!(
                secmo_rig_create(std::ptr::null(), std::ptr::null_mut()),
                SECMO_ERROR_NULL_POINTER
            );
            assert!(last_error().contains("out_rig is NULL"));
            assert_eq!(
                secmo_character_reset(std::ptr::null_mut()),
                SECMO_ERROR_NULL_POINTER
            );
            assert_eq!(
                secmo_spring_desc_hip(0, 100.0, std::ptr::null_mut()),
                SECMO_ERROR_NULL_POINTER
            );
            let mut d = std::mem::zeroed::<SecmoSpringDesc>();
            assert_eq!(
                secmo_spring_desc_chest(0, f32::NAN, &mut d),
                SECMO_ERROR_INVALID_ARGUMENT
            );
            assert_eq!(secmo_rig_bone_count(std::ptr::null()), 0);
            secmo_rig_destroy(std::ptr::null_mut());
            secmo_character_destroy(std::ptr::null_mut());
            let mut rig = std::ptr::null_mut();
            let desc = SecmoRigDesc {
                bone_count: 3,
                ..Default::default()
            };
            assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_ERROR_NULL_POINTER);
            assert!(last_error().contains("desc.parents is NULL but its length is 3"));
            assert!(rig.is_null());
        }
    }

    #[test]
    fn invalid_rig_message_names_the_bone() {
        let parents = [-1i32, 2, 1];
        let pose = [Transform::IDENTITY; 3];
        let desc = SecmoRigDesc {
            bone_count: 3,
            parents: parents.as_ptr(),
            reference_pose: pose.as_ptr(),
            ..Default::default()
        };
        let mut rig = std::ptr::null_mut();
        assert_eq!(
            unsafe { secmo_rig_create(&desc, &mut rig) },
            SECMO_ERROR_INVALID_RIG
        );
        assert!(
            last_error().contains("bone 1: parent chain forms a cycle"),
            "{}",
            last_error()
        );
        let good_parents = [-1i32, 0, 1];
        let bad_axis = SecmoRigDesc {
            up_axis: 5,
            parents: good_parents.as_ptr(),
            ..desc
        };
        assert_eq!(
            unsafe { secmo_rig_create(&bad_axis, &mut rig) },
            SECMO_ERROR_INVALID_ARGUMENT
        );
    }
}
