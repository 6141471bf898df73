//! The ranges a character's state is held to, shared by the character
//! (restore, commit) and the chain stage (every committed particle).

use glam::{Quat, Vec3};

use crate::clock;
use crate::limits::{snapshot_limits, unset};
use crate::math::{Transform, MAX_SCALE};
use crate::solvers::chain::{ChainClock, CHAIN_STEP};
use crate::solvers::corrective::CorrectiveState;
use crate::solvers::spring::SpringState;

/// The ranges a character's state is held to: every update commits only
/// state inside them (speeds are clamped to the limit, anything else out of
/// range fails the update), and restore accepts only state inside them, so a
/// character's own snapshot always restores. One predicate serves both.
pub(crate) struct StateRange {
    pub(crate) max_speed: f32,
    // Squared, so that the per-particle checks need no square root.
    pub(crate) max_speed_sq: f32,
    pub(crate) max_distance_sq: f32,
}

impl StateRange {
    pub(crate) fn new(units_per_meter: f32) -> Self {
        let max_speed = snapshot_limits::MAX_SPEED_M_PER_S * units_per_meter;
        let max_distance = snapshot_limits::MAX_DISTANCE_M * units_per_meter;
        Self {
            max_speed,
            max_speed_sq: max_speed * max_speed,
            max_distance_sq: max_distance * max_distance,
        }
    }

    // The checks below run on every committed value each update, nearly
    // always passing: they combine with `&`, not `&&`, so that they compile
    // to straight-line code.

    pub(crate) fn place(&self, p: Vec3) -> bool {
        // NaN fails the comparison; an infinite or overflowing length too
        // (so no separate finiteness test is needed).
        p.length_squared() <= self.max_distance_sq
    }

    pub(crate) fn speed(&self, v: Vec3) -> bool {
        v.length_squared() <= self.max_speed_sq
    }

    /// Clamps a finite velocity to the speed limit (keeps its direction).
    pub(crate) fn clamp_speed(&self, v: &mut Vec3) {
        if v.is_finite() && v.length_squared() > self.max_speed_sq {
            *v = v.normalize() * self.max_speed;
        }
    }

    /// A unit quaternion, or the all-zero one an unseeded chain holds.
    pub(crate) fn frame(q: Quat) -> bool {
        const LOW: f32 =
            (1.0 - snapshot_limits::UNIT_TOLERANCE) * (1.0 - snapshot_limits::UNIT_TOLERANCE);
        const HIGH: f32 =
            (1.0 + snapshot_limits::UNIT_TOLERANCE) * (1.0 + snapshot_limits::UNIT_TOLERANCE);
        let l2 = q.length_squared();
        // NaN and infinity fail the range.
        (LOW..=HIGH).contains(&l2) || q.to_array() == [0.0; 4]
    }

    /// A placed frame (world × component, so its scale is a product and is
    /// only held finite and non-zero), or the all-zero unset one.
    pub(crate) fn transform(&self, t: &Transform) -> bool {
        (t.is_finite()
            & self.place(t.translation())
            & Self::frame(t.rotation())
            & (t.scale().abs().min_element() >= 1e-30))
            || unset(t)
    }

    pub(crate) fn spring(&self, s: &SpringState, history_length: u32) -> bool {
        let finite = s.remaining.is_finite() && (0.0..=clock::REMAINING_CAP).contains(&s.remaining);
        finite
            && self.place(Vec3::from(s.position))
            && self.place(Vec3::from(s.previous_target))
            && self.speed(Vec3::from(s.velocity))
            && s.ring.iter().all(|v| self.speed(Vec3::from(*v)))
            && s.ring_index < history_length
            && s.ring_fill <= history_length
            && s.initialized <= 1
    }

    pub(crate) fn corrective(&self, c: &CorrectiveState) -> bool {
        self.place(Vec3::from(c.translation))
            && c.scale
                .iter()
                .all(|s| s.is_finite() && s.abs() <= MAX_SCALE)
    }

    pub(crate) fn clock(&self, c: &ChainClock) -> bool {
        self.clock_of(c, true)
    }

    /// [`StateRange::clock`]; with `space` false the simulation-space frame
    /// is not checked (the chain stage's own check of a chain without a
    /// simulation space, which only ever stores the identity there or keeps
    /// a frame already checked).
    pub(crate) fn clock_of(&self, c: &ChainClock, space: bool) -> bool {
        (0.0..=snapshot_limits::MAX_CLOCK_SECONDS).contains(&c.time)
            & (0.0..=c.time + CHAIN_STEP).contains(&c.simulated)
            & (0.0..=c.time).contains(&c.last_update)
            & (0.0..=c.time).contains(&c.still_since)
            & (c.sleeping <= 1)
            & Vec3::from(c.previous_wind).is_finite()
            & (c.started <= 1)
            & (0.0..=1.0).contains(&c.guard)
            & (0.0..=1.0).contains(&c.on_pose)
            & Self::frame(Quat::from_array(c.previous_anchor))
            & self.place(Vec3::from(c.previous_root))
            & (!space || self.transform(&c.previous_space))
            & self.transform(&c.previous_parent)
            & self.place(Vec3::from(c.previous_root_local))
    }

    /// [`StateRange::clamp_speed`], then whether the speed is in range: the
    /// length is taken once when the speed is in range (nearly always).
    pub(crate) fn clamp_and_check_speed(&self, v: &mut Vec3) -> bool {
        let mut l2 = v.length_squared();
        // Too fast, or not finite.
        if l2 > self.max_speed_sq || l2.is_nan() {
            self.clamp_speed(v);
            l2 = v.length_squared();
        }
        l2 <= self.max_speed_sq
    }

    pub(crate) fn particle(&self, p: Vec3, v: Vec3, bend: Quat) -> bool {
        self.place(p) & self.speed(v) & Self::frame(bend)
    }
}
