//! Helper-bone translation spring with a velocity-history ring (docs/algorithms.md §3).
//!
//! Setup ([`SpringParams`]) lives in the Rig; state ([`SpringState`]) lives in
//! the Character and survives frames and animation changes. The kernel works
//! on component-space positions; the character writes its output back through
//! the current parent (docs/algorithms.md §1, path A).

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::clock;
use crate::error::Error;
use crate::math::{self, limit_length, ComponentMatrix, Frame};
use crate::solvers::Pose;

/// What happened to one spring in the last update (docs/algorithms.md §2/§3 diagnostics).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SpringRecord {
    pub bone: u32,
    /// Substeps executed this update.
    pub substeps: u32,
    /// dt as used (0 on a first update or after reset).
    pub dt: f32,
    /// Substep length h.
    pub h: f32,
    pub remaining_before: f32,
    pub remaining_after: f32,
    /// Target x (component space).
    pub target: [f32; 3],
    /// Integrated position p after the length clamp.
    pub position: [f32; 3],
    pub velocity: [f32; 3],
    /// Blended output position (component space).
    pub output: [f32; 3],
    /// 1 if the reset threshold snapped the spring during this update.
    pub snapped: u32,
    /// Filled slots of the velocity ring, and the slot it writes next.
    pub ring_fill: u32,
    pub ring_index: u32,
    /// Velocity ring contents after the update (`ring_fill` slots used).
    pub ring: [[f32; 3]; MAX_HISTORY],
}

const _: () = assert!(core::mem::size_of::<SpringRecord>() == 276);

/// Longest velocity history a spring may keep. The ring is stored inline so
/// that the state is plain data (snapshot = bytes) and never allocates.
pub const MAX_HISTORY: usize = 16;

/// Per-spring parameters (docs/algorithms.md §3 table), defined once: this `repr(C)` Pod
/// struct is the Rust type, the C ABI's `SecmoSpringDesc` (cbindgen renames
/// it) and, through its serde attributes, the fields of a spring in the
/// rig-settings file (where the bone is named, not indexed). Lengths are in
/// the rig's position units; times in seconds.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[cfg_attr(
    feature = "settings",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct SpringParams {
    /// `sizeof(SecmoSpringDesc)` (C ABI versioning; the presets set it).
    /// Shipped sizes: 52 (ABI 1); any other is refused.
    #[cfg_attr(feature = "settings", serde(skip, default = "SpringParams::size"))]
    pub struct_size: u32,
    /// Index of the bone whose translation the spring drives. Settings:
    /// the spring's `bone` name.
    #[cfg_attr(feature = "settings", serde(skip))]
    pub bone: u32,
    /// k, multiplies `x − p`, 1/s² (default 400).
    pub stiffness: f32,
    /// d, subtracts `d·v`, 1/s [hip 25, chest 20].
    pub damping: f32,
    /// Length limit of `p − x` after the substeps, position units [hip 2 cm, chest 1 cm].
    pub max_offset: f32,
    /// Clamp on `|v|·h` per substep (docs/algorithms.md §3 DECISION); 0 means "the same as
    /// `max_offset`" [= max_offset].
    pub max_substep_displacement: f32,
    /// Velocity history ring length, 1..=16 (default 4).
    pub history_length: u32,
    /// Beyond this distance `p` snaps to `x` and velocity clears, position units [255 cm].
    pub reset_threshold: f32,
    /// Scales the 1/120 s substep (default 1).
    pub time_factor: f32,
    /// Added motion per second, component space [0, 0, 0].
    pub extra_velocity: [f32; 3],
    /// Output weight: 0 = animation (target), 1 = spring (default 1).
    pub alpha: f32,
}

impl SpringParams {
    /// The article's hip defaults (docs/algorithms.md §3), for a rig in `units_per_meter`.
    #[must_use]
    pub fn hip(bone: u32, units_per_meter: f32) -> Self {
        let cm = units_per_meter / 100.0;
        Self {
            struct_size: Self::size(),
            bone,
            stiffness: 400.0,
            damping: 25.0,
            max_offset: 2.0 * cm,
            max_substep_displacement: 2.0 * cm,
            history_length: 4,
            reset_threshold: 255.0 * cm,
            time_factor: 1.0,
            extra_velocity: [0.0; 3],
            alpha: 1.0,
        }
    }

    /// `size_of::<SpringParams>()` as the C ABI's `struct_size`.
    #[must_use]
    pub const fn size() -> u32 {
        core::mem::size_of::<SpringParams>() as u32
    }

    /// `max_substep_displacement` with its 0 ("the same as max_offset") resolved.
    #[must_use]
    pub fn resolved(mut self) -> Self {
        if self.max_substep_displacement == 0.0 {
            self.max_substep_displacement = self.max_offset;
        }
        self
    }

    /// The article's chest defaults (docs/algorithms.md §3), for a rig in `units_per_meter`.
    #[must_use]
    pub fn chest(bone: u32, units_per_meter: f32) -> Self {
        let cm = units_per_meter / 100.0;
        Self {
            damping: 20.0,
            max_offset: 1.0 * cm,
            max_substep_displacement: 1.0 * cm,
            ..Self::hip(bone, units_per_meter)
        }
    }

    /// Substep length `h` for this spring (docs/algorithms.md §2).
    #[inline]
    #[must_use]
    pub fn step_length(&self) -> f32 {
        clock::step_length(self.time_factor)
    }

    /// Checks every field; the message names the field.
    pub(crate) fn validate(&self) -> Result<(), &'static str> {
        let finite = [
            self.stiffness,
            self.damping,
            self.max_offset,
            self.max_substep_displacement,
            self.reset_threshold,
            self.time_factor,
            self.alpha,
            self.extra_velocity[0],
            self.extra_velocity[1],
            self.extra_velocity[2],
        ]
        .iter()
        .all(|v| v.is_finite());
        if !finite {
            return Err("a spring parameter is NaN or infinite");
        }
        if self.stiffness < 0.0 {
            return Err("stiffness must be >= 0");
        }
        if self.damping < 0.0 {
            return Err("damping must be >= 0");
        }
        if self.max_offset < 0.0 {
            return Err("max_offset must be >= 0");
        }
        if self.max_substep_displacement <= 0.0 {
            return Err("max_substep_displacement must be > 0");
        }
        if self.history_length == 0 || self.history_length as usize > MAX_HISTORY {
            return Err("history_length must be in 1..=16");
        }
        if self.reset_threshold <= 0.0 {
            return Err("reset_threshold must be > 0");
        }
        // h must be positive and small enough that a 5 s cap still means a
        // bounded number of substeps.
        if !(self.time_factor >= 1e-3 && self.time_factor <= 100.0) {
            return Err("time_factor must be in [0.001, 100]");
        }
        Ok(())
    }
}

/// Per-spring state (docs/algorithms.md §3): plain data, so a snapshot is its bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SpringState {
    /// Integrated position `p` (component space).
    pub position: [f32; 3],
    /// Velocity `v`.
    pub velocity: [f32; 3],
    /// Velocity history, `history_length` slots used.
    pub ring: [[f32; 3]; MAX_HISTORY],
    /// Next slot the ring writes.
    pub ring_index: u32,
    /// Filled slots (docs/algorithms.md §3 DECISION: the mean is over filled slots only).
    pub ring_fill: u32,
    /// Time not yet simulated (docs/algorithms.md §2), seconds.
    pub remaining: f32,
    /// 0 until the first update has seeded `p = x`.
    pub initialized: u32,
    /// Target of the previous update, for interpolated substep targets (docs/algorithms.md §2).
    pub previous_target: [f32; 3],
    pub _reserved: u32,
}

const _: () = assert!(core::mem::size_of::<SpringState>() == 4 * (3 + 3 + 48 + 4 + 3 + 1));

impl Default for SpringState {
    fn default() -> Self {
        Self::zeroed()
    }
}

impl SpringState {
    #[inline]
    #[must_use]
    pub fn position(&self) -> Vec3 {
        Vec3::from_array(self.position)
    }

    #[inline]
    #[must_use]
    pub fn velocity(&self) -> Vec3 {
        Vec3::from_array(self.velocity)
    }

    /// Snap to the target with zero velocity and an empty ring (docs/algorithms.md §3:
    /// reset threshold / teleport; DECISION ring warm-up: reset clears the ring).
    pub fn snap_to(&mut self, target: Vec3) {
        self.position = target.to_array();
        self.velocity = [0.0; 3];
        self.clear_ring();
    }

    fn clear_ring(&mut self) {
        self.ring = [[0.0; 3]; MAX_HISTORY];
        self.ring_index = 0;
        self.ring_fill = 0;
    }

    /// Pushes `v` and returns the mean over filled slots (docs/algorithms.md §3 DECISION).
    fn push_and_average(&mut self, v: Vec3, len: u32) -> Vec3 {
        let len = len.clamp(1, MAX_HISTORY as u32);
        let index = (self.ring_index % len) as usize;
        self.ring[index] = v.to_array();
        self.ring_index = (index as u32 + 1) % len;
        self.ring_fill = (self.ring_fill + 1).min(len);
        let mut sum = Vec3::ZERO;
        // Sum in slot order so the result depends only on the stored contents.
        for slot in &self.ring[..self.ring_fill as usize] {
            sum += Vec3::from_array(*slot);
        }
        sum / self.ring_fill as f32
    }
}

/// One substep of docs/algorithms.md §3, in the article's order:
/// ```text
/// p += h * extra_velocity
/// if |x − p| > reset_threshold { p = x; v = 0 }
/// dv = h * (k * (x − p) − d * v)            (high-damping branch if d > 1/h)
/// v += dv
/// substep displacement limit
/// push v into ring; v = mean(ring)
/// p_old = p; p += h * v; v = (p − p_old) / h
/// ```
/// Returns true when the reset threshold snapped the state.
#[inline]
pub fn substep(params: &SpringParams, state: &mut SpringState, target: Vec3, h: f32) -> bool {
    let mut p = state.position();
    let mut v = state.velocity();
    p += h * Vec3::from_array(params.extra_velocity);
    let mut snapped = false;
    if (target - p).length() > params.reset_threshold {
        // docs/algorithms.md §3: snap p = x, v = 0. The ring is cleared too, otherwise its
        // mean would hand the old velocity straight back on this substep.
        state.snap_to(target);
        p = target;
        v = Vec3::ZERO;
        snapped = true;
    }
    let dv = if params.damping > 1.0 / h {
        // docs/algorithms.md §3 DECISION (high-damping branch): damping may stop the velocity
        // but never reverse it.
        h * params.stiffness * (target - p) - v
    } else {
        h * (params.stiffness * (target - p) - params.damping * v)
    };
    v += dv;
    // docs/algorithms.md §3 DECISION (substep displacement limit): |v|·h ≤ max_substep_displacement.
    v = limit_length(v * h, params.max_substep_displacement) / h;
    v = state.push_and_average(v, params.history_length);
    let p_old = p;
    p += h * v;
    v = (p - p_old) / h;
    state.position = p.to_array();
    state.velocity = v.to_array();
    snapped
}

/// What one update of one spring did ([`advance`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Advance {
    pub substeps: u32,
    /// A substep snapped to its target (the reset threshold).
    pub snapped: bool,
    /// The time the update consumed (0 on the seeding update).
    pub dt: f32,
    /// The remainder carried in, before this update's time was added.
    pub remaining_before: f32,
}

/// One update of one spring (docs/algorithms.md §2 clock, §3 substeps, then [`finish`]'s
/// clamp): the first update seeds the state on `target`; later ones add `dt`
/// to the carried remainder and run the clock's substeps
/// ([`crate::clock::substeps`]), each toward the target at that substep's
/// time: `target` itself, or with `interpolate`, the straight line from
/// the last update's target. Returns the blended output position.
pub fn advance(
    params: &SpringParams,
    state: &mut SpringState,
    target: Vec3,
    dt: f32,
    interpolate: bool,
) -> (Vec3, Advance) {
    let h = params.step_length();
    let mut report = Advance {
        remaining_before: state.remaining,
        ..Advance::default()
    };
    if state.initialized == 0 {
        // docs/algorithms.md §2: the first update's dt is 0; seed p = x.
        state.snap_to(target);
        state.remaining = 0.0;
        state.initialized = 1;
    } else {
        report.dt = dt;
        let previous = Vec3::from_array(state.previous_target);
        let before = state.remaining;
        // docs/algorithms.md §2 loop, strict `>`, remaining capped at 5 s.
        let mut remaining = crate::clock::accumulate(before, dt);
        let mut snapped = false;
        report.substeps = crate::clock::substeps(&mut remaining, h, |k| {
            let x = if interpolate && dt > 0.0 {
                // Substep k ends (k+1)·h after the simulation time the
                // carried remainder left us at.
                let t = ((k + 1) as f32 * h - before) / dt;
                previous.lerp(target, t.clamp(0.0, 1.0))
            } else {
                target
            };
            snapped |= substep(params, state, x, h);
        });
        report.snapped = snapped;
        state.remaining = remaining;
    }
    let out = finish(params, state, target);
    state.previous_target = target.to_array();
    (out, report)
}

/// After the substep loop (docs/algorithms.md §3): `p = x + limit_length(p − x, max_offset)`
/// (a length clamp), stored back into the state, and the blended output
/// `x + clamp(alpha, 0, 1)·(p − x)`.
#[inline]
#[must_use]
pub fn finish(params: &SpringParams, state: &mut SpringState, target: Vec3) -> Vec3 {
    let offset = limit_length(state.position() - target, params.max_offset);
    state.position = (target + offset).to_array();
    target + params.alpha.clamp(0.0, 1.0) * offset
}

/// The spring stage's per-character arrays this update writes.
pub(crate) struct Stage<'a> {
    pub(crate) states: &'a mut [SpringState],
    pub(crate) records: &'a mut [SpringRecord],
}

/// What the spring stage did this update.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StepInfo {
    /// Most substeps any spring ran.
    pub(crate) max_substeps: u32,
    /// Springs that snapped to their target.
    pub(crate) snapped: u32,
}

/// What the spring stage reads of the rig.
pub(crate) struct Setup<'a> {
    pub(crate) parents: &'a [i32],
    /// Sorted by bone index.
    pub(crate) springs: &'a [SpringParams],
    /// For each bone, the index into `springs` or `u32::MAX`.
    pub(crate) spring_of_bone: &'a [u32],
}

/// Forward kinematics with the translation springs inline (docs/algorithms.md §1, §3, §6):
/// one parents-first pass, so every spring and every descendant reads the
/// **current** parent, already modified this frame.
pub(crate) fn step(
    setup: &Setup<'_>,
    stage: Stage<'_>,
    pose: Pose<'_>,
    dt: f32,
    interpolate: bool,
) -> Result<StepInfo, Error> {
    let Pose { local, component } = pose;
    let mut info = StepInfo::default();
    for bone in 0..setup.parents.len() {
        let parent_index = setup.parents[bone];
        let parent = math::parent_matrix(component, parent_index);
        let mut c = parent * local[bone].to_affine();
        let spring_index = setup.spring_of_bone[bone];
        if spring_index != u32::MAX {
            let params = &setup.springs[spring_index as usize];
            let state = &mut stage.states[spring_index as usize];
            let record = &mut stage.records[spring_index as usize];
            let target: Vec3 = c.translation.into();
            let (out, step) = advance(params, state, target, dt, interpolate);
            if !out.is_finite() || !state.position().is_finite() {
                return Err(Error::NonFiniteResult { bone });
            }
            // docs/algorithms.md §1 path A: Δ_L = linear(inverse(C_parent)) · Δ_C.
            let delta_local = math::component_delta_to_local(&parent, out - target);
            let t = &mut local[bone].translation;
            t[0] += delta_local.x;
            t[1] += delta_local.y;
            t[2] += delta_local.z;
            c.translation = out.into();
            *record = SpringRecord {
                bone: params.bone,
                substeps: step.substeps,
                dt: step.dt,
                h: params.step_length(),
                remaining_before: step.remaining_before,
                remaining_after: state.remaining,
                target: target.to_array(),
                position: state.position,
                velocity: state.velocity,
                output: out.to_array(),
                snapped: step.snapped as u32,
                ring_fill: state.ring_fill,
                ring_index: state.ring_index,
                ring: state.ring,
            };
            info.max_substeps = info.max_substeps.max(step.substeps);
            info.snapped += step.snapped as u32;
        }
        component[bone] = Frame::store(&c);
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params_1d(damping: f32) -> SpringParams {
        SpringParams {
            damping,
            max_offset: 100.0,
            max_substep_displacement: 100.0,
            reset_threshold: 255.0,
            ..SpringParams::hip(0, 100.0)
        }
    }

    const H: f32 = clock::BASE_STEP;

    /// The state of docs/algorithms.md §3's worked example: x − p = 0.5, v = 3 toward the
    /// target, with a ring that already holds {2, 2.5, 3}.
    fn worked_state() -> SpringState {
        let mut s = SpringState {
            position: [0.0; 3],
            velocity: [3.0, 0.0, 0.0],
            ..Default::default()
        };
        for v in [2.0, 2.5, 3.0] {
            s.push_and_average(Vec3::new(v, 0.0, 0.0), 4);
        }
        s
    }

    #[test]
    fn worked_dv_with_hip_damping() {
        // docs/algorithms.md §3: restoring 200, damping 75, dv ≈ 1.0417, v → 4.0417.
        let k = 400.0f32;
        let x_minus_p = 0.5f32;
        let v = 3.0f32;
        const { assert!(25.0 < 1.0 / H, "no high-damping branch at d = 25") };
        let dv = H * (k * x_minus_p - 25.0 * v);
        assert!((dv - 1.0417).abs() < 1e-4, "{dv}");
        assert!((v + dv - 4.0417).abs() < 1e-4);
        let dv_chest = H * (k * x_minus_p - 20.0 * v);
        assert!((dv_chest - 1.1667).abs() < 1e-4, "{dv_chest}");
    }

    #[test]
    fn worked_ring_mean_and_displacement_come_out_of_the_kernel() {
        // docs/algorithms.md §3: ring {2, 2.5, 3, 4.0417} → mean ≈ 2.8854, displacement ≈ 0.02405.
        let params = params_1d(25.0);
        let mut s = worked_state();
        substep(&params, &mut s, Vec3::new(0.5, 0.0, 0.0), H);
        assert!((s.ring[3][0] - 4.0417).abs() < 1e-4, "{:?}", s.ring[3]);
        let displacement = s.position[0];
        assert!((displacement - 0.02405).abs() < 1e-5, "{displacement}");
        assert!((s.velocity[0] - 2.8854).abs() < 1e-3, "{:?}", s.velocity);
        assert_eq!(s.ring_fill, 4);
        assert_eq!(s.ring_index, 0);
    }

    #[test]
    fn chest_damping_gives_its_own_dv() {
        let params = params_1d(20.0);
        let mut s = worked_state();
        substep(&params, &mut s, Vec3::new(0.5, 0.0, 0.0), H);
        assert!((s.ring[3][0] - (3.0 + 1.1667)).abs() < 1e-4);
    }

    #[test]
    fn high_damping_branch_never_reverses_velocity() {
        // d > 1/h: dv = h·k·(x−p) − v. At the target with v toward +x, velocity stops at 0.
        let mut params = params_1d(500.0);
        params.history_length = 1;
        let mut s = SpringState {
            velocity: [3.0, 0.0, 0.0],
            ..Default::default()
        };
        substep(&params, &mut s, Vec3::ZERO, H);
        assert_eq!(s.velocity, [0.0; 3]);
        // The plain formula would have reversed it (3 − 500/120·3 < 0).
        const { assert!(3.0 + H * (-500.0 * 3.0) < 0.0) };
    }

    #[test]
    fn substep_displacement_limit_clamps_velocity_length() {
        let mut params = params_1d(25.0);
        params.max_substep_displacement = 0.01;
        params.history_length = 1;
        let mut s = SpringState::default();
        substep(&params, &mut s, Vec3::new(50.0, 50.0, 0.0), H);
        let step = s.position().length();
        assert!((step - 0.01).abs() < 1e-6, "{step}");
        // direction kept
        assert!((s.position[0] - s.position[1]).abs() < 1e-7);
    }

    #[test]
    fn length_clamp_then_alpha() {
        // docs/algorithms.md §3: offset (3,4,0), limit 2 → (1.2,1.6,0); alpha 0.5 → (0.6,0.8,0).
        let mut params = params_1d(25.0);
        params.max_offset = 2.0;
        params.alpha = 0.5;
        let mut s = SpringState {
            position: [3.0, 4.0, 0.0],
            ..Default::default()
        };
        let out = finish(&params, &mut s, Vec3::ZERO);
        assert!((s.position() - Vec3::new(1.2, 1.6, 0.0)).length() < 1e-6);
        assert!((out - Vec3::new(0.6, 0.8, 0.0)).length() < 1e-6, "{out}");
        // alpha outside [0,1] is clamped
        params.alpha = 7.0;
        let out = finish(&params, &mut s, Vec3::ZERO);
        assert!((out - Vec3::new(1.2, 1.6, 0.0)).length() < 1e-6);
    }

    #[test]
    fn reset_threshold_snaps_and_clears_velocity() {
        let mut params = params_1d(25.0);
        params.reset_threshold = 10.0;
        let mut s = worked_state();
        s.velocity = [5.0, 1.0, 0.0];
        let far = Vec3::new(30.0, 0.0, 0.0);
        let snapped = substep(&params, &mut s, far, H);
        assert!(snapped);
        // After the snap the substep starts from p = x, v = 0 and an empty ring:
        // nothing pulls, so it stays exactly there with zero velocity.
        assert_eq!(s.position(), far);
        assert_eq!(s.velocity(), Vec3::ZERO);
        assert_eq!(s.ring_fill, 1);
        // Just inside the threshold: no snap.
        let mut s2 = worked_state();
        assert!(!substep(&params, &mut s2, Vec3::new(9.9, 0.0, 0.0), H));
    }

    #[test]
    fn ring_warm_up_averages_filled_slots_only() {
        let mut s = SpringState::default();
        let m = s.push_and_average(Vec3::new(4.0, 0.0, 0.0), 4);
        assert_eq!(m.x, 4.0);
        let m = s.push_and_average(Vec3::new(2.0, 0.0, 0.0), 4);
        assert_eq!(m.x, 3.0);
    }

    #[test]
    fn translation_invariance_of_the_kernel() {
        // docs/algorithms.md §3 invariant: translating targets and initial position by c,
        // keeping velocity, ring and parameters, translates outputs by c.
        let params = SpringParams::hip(0, 100.0);
        let offset = Vec3::new(12.5, -40.25, 7.75);
        let mut a = worked_state();
        let mut b = a;
        let mut worst = 0.0f32;
        b.position = (a.position() + offset).to_array();
        for i in 0..240 {
            let t = i as f32 / 120.0;
            let x = Vec3::new((t * 7.0).sin(), (t * 3.0).cos() * 2.0, t * 0.5);
            substep(&params, &mut a, x, H);
            substep(&params, &mut b, x + offset, H);
            let oa = finish(&params, &mut a, x);
            let ob = finish(&params, &mut b, x + offset);
            worst = worst.max(((ob - offset) - oa).abs().max_element());
        }
        // Bound: a few ulps of the largest coordinate (|y| ≈ 42 → ulp 3.8e-6),
        // not accumulating over 240 substeps because `finish` re-clamps p.
        let ulp = f32::EPSILON * 64.0;
        println!("worst translated-output error {worst:e} (ulp at 64: {ulp:e})");
        assert!(worst <= 8.0 * ulp, "{worst}");
        // The check has teeth: a kernel that leaked absolute position (e.g. a
        // damping term on p instead of v) would be off by far more.
        assert!(worst < 1e-3);
    }
}
