//! Limits and small helpers shared by the solvers and the character: they
//! sit below both, so that a solver never reaches up into the character
//! for them.

use crate::math::Transform;

/// Upper bound on bones per rig; keeps indices in `i32`/`u32` and scratch bounded.
pub const MAX_BONES: usize = 1 << 16;

/// Most chain substeps one update runs, whatever its dt and time factor:
/// five seconds at the 120 Hz step. A longer backlog is dropped (the chain
/// resumes from where it is), so one update's work is bounded.
pub const MAX_CHAIN_SUBSTEPS: u32 = 600;

/// Shortest frame, seconds, from which an LOD-skipped chain takes the
/// animation's velocity; shorter frames carry none.
pub const MIN_VELOCITY_DT: f32 = 1e-3;

/// Snapshots come from save games: untrusted input. Beyond the checksum,
/// restore holds every field to these bounds (docs/c-api.md).
pub mod snapshot_limits {
    /// Largest chain clock time, seconds (about 31 years of play).
    pub const MAX_CLOCK_SECONDS: f64 = 1e9;
    /// Largest speed of a spring or chain particle, metres per second (scaled
    /// by the rig's units per metre).
    pub const MAX_SPEED_M_PER_S: f32 = 1e4;
    /// Largest distance of any stored position from the origin, metres
    /// (scaled by the rig's units per metre).
    pub const MAX_DISTANCE_M: f32 = 1e7;
    /// How far a stored quaternion's length may be from 1.
    pub const UNIT_TOLERANCE: f32 = 1e-3;
}

/// An all-zero frame: one a chain has not set yet.
pub(crate) fn unset(t: &Transform) -> bool {
    bytemuck::cast_slice::<Transform, f32>(std::slice::from_ref(t))
        .iter()
        .all(|v| *v == 0.0)
}
