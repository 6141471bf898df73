//! Proximity corrective with an accumulator (docs/algorithms.md §5; the article's BtoB).
//!
//! docs/algorithms.md §5 DECISION: a driven bone and a list of probes. Each probe has a
//! bone, a threshold, a side, a movement weight and per-side gains on the
//! driven bone's local translation (3) and local scale (3). For each probe:
//! ```text
//! proximity = weight · max(0, threshold − distance) / threshold   // distance in component space
//! target   += proximity · gains[same side or opposite side]
//! ```
//! and per output channel the accumulator
//! ```text
//! state += (target − state) · clamp(rate · dt, 0, 1)             // state starts at 0, survives frames
//! ```
//! The state is applied to the driven bone's local transform:
//! `translation += state_translation` and `scale *= 1 + state_scale`
//! (multiplicative, so a zero state is exact identity and the sign of a
//! negative scale is kept).

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::error::Error;
use crate::math::Transform;
use crate::solvers::{refresh_component, subtree, Pose};

/// Which side of the body a bone is on. Probes use the driven bone's side to
/// choose between their same-side and opposite-side gains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum Side {
    #[default]
    Center = 0,
    Left = 1,
    Right = 2,
}

/// Gains of one probe on one side: added to the target per unit proximity.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Gains {
    /// Local translation, in the rig's position units.
    pub translation: Vec3,
    /// Local scale, as a fraction (0.1 = +10 %).
    pub scale: Vec3,
}

/// One distance probe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    pub bone: u32,
    /// Distance (position units) below which the probe starts to act.
    pub threshold: f32,
    /// Movement weight of this probe (the article's upper-arm parameter 2).
    pub weight: f32,
    pub side: Side,
    /// Used when `side` equals the driven bone's side (or both are Center).
    pub same_side: Gains,
    /// Used otherwise.
    pub opposite_side: Gains,
}

/// Setup of one corrective, in the Rig.
#[derive(Clone, Debug, PartialEq)]
pub struct ProximityCorrective {
    pub driven: u32,
    pub side: Side,
    /// Accumulator rate (1/s): weight = clamp(rate·dt, 0, 1). [24 /s: 0.4 per frame at 60 Hz]
    pub rate: f32,
    pub probes: Vec<Probe>,
}

/// Accumulated correction of one corrective (docs/algorithms.md §5), plain data for snapshots.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, Pod, Zeroable)]
pub struct CorrectiveState {
    pub translation: [f32; 3],
    pub scale: [f32; 3],
}

/// What one corrective did in the last update (docs/algorithms.md §5 diagnostics). The
/// probe distances are in a separate flat array, starting at `first_probe`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, Pod, Zeroable)]
pub struct CorrectiveRecord {
    pub driven: u32,
    pub probe_count: u32,
    /// Index of this corrective's first distance in the distances array.
    pub first_probe: u32,
    /// clamp(rate·dt, 0, 1) used this update.
    pub weight: f32,
    pub target_translation: [f32; 3],
    pub target_scale: [f32; 3],
    pub state_translation: [f32; 3],
    pub state_scale: [f32; 3],
    /// The driven bone's final local transform after the corrective.
    pub local: Transform,
}

const _: () = assert!(core::mem::size_of::<CorrectiveRecord>() == 104);

/// The accumulator: `state += (target − state) · clamp(rate·dt, 0, 1)` (docs/algorithms.md §5).
#[inline]
#[must_use]
pub fn accumulate(state: f32, target: f32, weight: f32) -> f32 {
    state + (target - state) * weight
}

/// Proximity term of one probe: `weight · max(0, threshold − d) / threshold`.
#[inline]
#[must_use]
pub fn proximity(probe: &Probe, distance: f32) -> f32 {
    probe.weight * (probe.threshold - distance).max(0.0) / probe.threshold
}

impl ProximityCorrective {
    /// Summed target for the given probe distances (one per probe).
    #[must_use]
    pub fn target(&self, distances: &[f32]) -> CorrectiveState {
        let mut t = Vec3::ZERO;
        let mut s = Vec3::ZERO;
        for (probe, &d) in self.probes.iter().zip(distances) {
            let w = proximity(probe, d);
            if w == 0.0 {
                continue;
            }
            let gains = if probe.side == self.side {
                &probe.same_side
            } else {
                &probe.opposite_side
            };
            t += w * gains.translation;
            s += w * gains.scale;
        }
        CorrectiveState {
            translation: t.to_array(),
            scale: s.to_array(),
        }
    }

    /// Advances `state` toward `target` with weight `clamp(rate·dt, 0, 1)`;
    /// returns the weight.
    pub fn step(&self, state: &mut CorrectiveState, target: &CorrectiveState, dt: f32) -> f32 {
        let weight = (self.rate * dt).clamp(0.0, 1.0);
        for i in 0..3 {
            state.translation[i] = accumulate(state.translation[i], target.translation[i], weight);
            state.scale[i] = accumulate(state.scale[i], target.scale[i], weight);
        }
        weight
    }

    pub(crate) fn validate(&self, bone_count: usize) -> Result<(), &'static str> {
        if self.driven as usize >= bone_count {
            return Err("driven bone is out of range");
        }
        if !(self.rate.is_finite() && self.rate >= 0.0) {
            return Err("rate must be finite and >= 0");
        }
        if self.probes.is_empty() {
            return Err("a corrective needs at least one probe");
        }
        for p in &self.probes {
            if p.bone as usize >= bone_count {
                return Err("a probe bone is out of range");
            }
            if p.bone == self.driven {
                return Err("a probe cannot be the driven bone itself");
            }
            if !(p.threshold.is_finite() && p.threshold > 0.0) {
                return Err("a probe threshold must be finite and > 0");
            }
            let gains = [p.same_side, p.opposite_side];
            let finite = p.weight.is_finite()
                && gains
                    .iter()
                    .all(|g| g.translation.is_finite() && g.scale.is_finite());
            if !finite {
                return Err("a probe weight or gain is NaN or infinite");
            }
        }
        Ok(())
    }
}

/// Applies an accumulated state to the driven bone's local transform.
#[inline]
pub fn apply(state: &CorrectiveState, local: &mut Transform) {
    for i in 0..3 {
        local.translation[i] += state.translation[i];
        local.scale[i] *= 1.0 + state.scale[i];
    }
}

/// Bones the BtoB preset reads, for one chest bone (C: `SecmoBtobBones`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BtobBones {
    pub chest: u32,
    /// The other chest bone (chest-to-chest distance drives local scale).
    pub other_chest: u32,
    pub upper_arm_l: u32,
    pub forearm_l: u32,
    pub hand_l: u32,
    pub upper_arm_r: u32,
    pub forearm_r: u32,
    pub hand_r: u32,
}

impl ProximityCorrective {
    /// The article's BtoB structure (docs/algorithms.md §5): chest to hands (15 cm), forearms
    /// (13 cm) and upper arms (10 cm, movement parameter 2) on both sides, with
    /// different gains for the same and the opposite side, local X translation
    /// and local scale channels, plus the chest-to-chest distance on local scale.
    ///
    /// The article does not publish its coefficients. DECISION (docs/btob.md):
    /// an arm approaching pushes the chest toward the body's midline along local
    /// X (same side 0.6 cm per unit proximity, opposite side 0.25 cm) and
    /// flattens it (local X scale −6 % same side, −2.5 % opposite); the chests
    /// approaching each other (closer than `chest_gap`, their rest distance)
    /// flatten local X scale by up to 8 %. `medial_x` is the sign of local +X
    /// pointing toward the midline for this chest bone (+1 or −1).
    #[must_use]
    pub fn btob(
        bones: BtobBones,
        side: Side,
        medial_x: f32,
        chest_gap: f32,
        units_per_meter: f32,
    ) -> ProximityCorrective {
        let cm = units_per_meter / 100.0;
        let m = medial_x.signum();
        let arm_gains = |t_cm: f32, s: f32| Gains {
            translation: Vec3::new(m * t_cm * cm, 0.0, 0.0),
            scale: Vec3::new(s, 0.0, 0.0),
        };
        let probe = |bone: u32, threshold_cm: f32, weight: f32, probe_side: Side| Probe {
            bone,
            threshold: threshold_cm * cm,
            weight,
            side: probe_side,
            same_side: arm_gains(0.6, -0.06),
            opposite_side: arm_gains(0.25, -0.025),
        };
        let mut probes = vec![
            probe(bones.upper_arm_l, 10.0, 2.0, Side::Left),
            probe(bones.forearm_l, 13.0, 1.0, Side::Left),
            probe(bones.hand_l, 15.0, 1.0, Side::Left),
            probe(bones.upper_arm_r, 10.0, 2.0, Side::Right),
            probe(bones.forearm_r, 13.0, 1.0, Side::Right),
            probe(bones.hand_r, 15.0, 1.0, Side::Right),
        ];
        let chest_side = match side {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
            Side::Center => Side::Center,
        };
        let chest_gains = Gains {
            translation: Vec3::ZERO,
            scale: Vec3::new(-0.08, 0.0, 0.0),
        };
        probes.push(Probe {
            bone: bones.other_chest,
            threshold: chest_gap.max(1e-3 * cm),
            weight: 1.0,
            side: chest_side,
            same_side: chest_gains,
            opposite_side: chest_gains,
        });
        ProximityCorrective {
            driven: bones.chest,
            side,
            rate: 24.0,
            probes,
        }
    }
}

/// The corrective stage's per-character arrays this update writes.
pub(crate) struct Stage<'a> {
    pub(crate) states: &'a mut [CorrectiveState],
    pub(crate) records: &'a mut [CorrectiveRecord],
    /// Probe distances of all correctives, flat.
    pub(crate) distances: &'a mut [f32],
}

/// What the corrective stage reads of the rig.
pub(crate) struct Setup<'a> {
    pub(crate) parents: &'a [i32],
    /// One past the last descendant of each bone ([`subtree`]).
    pub(crate) subtree_end: &'a [u32],
    /// Sorted by driven bone index.
    pub(crate) correctives: &'a [ProximityCorrective],
    /// Index of each corrective's first probe in the flat distance arrays.
    pub(crate) first_probe: &'a [u32],
}

/// docs/algorithms.md §5 for every corrective. All distances are measured on the
/// post-spring component positions first, then every corrective writes:
/// one corrective never sees another's correction of the same update, so
/// the result does not depend on their order and mirrored inputs give
/// mirrored outputs.
pub(crate) fn step(
    setup: &Setup<'_>,
    stage: Stage<'_>,
    pose: Pose<'_>,
    dt: f32,
) -> Result<(), Error> {
    let Pose { local, component } = pose;
    for (k, c) in setup.correctives.iter().enumerate() {
        let first = setup.first_probe[k] as usize;
        let here = component[c.driven as usize].translation();
        let distances = &mut stage.distances[first..first + c.probes.len()];
        for (d, probe) in distances.iter_mut().zip(&c.probes) {
            *d = (component[probe.bone as usize].translation() - here).length();
        }
    }
    for (k, c) in setup.correctives.iter().enumerate() {
        let driven = c.driven as usize;
        let first = setup.first_probe[k] as usize;
        let target = c.target(&stage.distances[first..first + c.probes.len()]);
        let state = &mut stage.states[k];
        let weight = c.step(state, &target, dt);
        apply(state, &mut local[driven]);
        if !local[driven].is_finite() {
            return Err(Error::NonFiniteResult { bone: driven });
        }
        let record = &mut stage.records[k];
        record.weight = weight;
        record.target_translation = target.translation;
        record.target_scale = target.scale;
        record.state_translation = state.translation;
        record.state_scale = state.scale;
        record.local = local[driven];
    }
    // Later stages (chains) read the corrected pose.
    // Only the driven bones' subtrees, each bone once (correctives are
    // sorted by driven bone, so the ranges come in order).
    let mut done = 0;
    for c in setup.correctives {
        let (from, to) = subtree(setup.subtree_end, c.driven as usize);
        if to > done {
            let from = from.max(done);
            refresh_component(setup.parents, local, component, (from, to));
            done = to;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulator_gives_quarter_then_seven_sixteenths() {
        // docs/algorithms.md §5: target 1, weight 0.25 → 0.25, then 0.4375.
        let s = accumulate(0.0, 1.0, 0.25);
        assert_eq!(s, 0.25);
        assert_eq!(accumulate(s, 1.0, 0.25), 0.4375);
    }

    #[test]
    fn step_uses_rate_times_dt_clamped() {
        let c = ProximityCorrective {
            driven: 0,
            side: Side::Left,
            rate: 15.0,
            probes: vec![],
        };
        let target = CorrectiveState {
            translation: [1.0, 0.0, 0.0],
            scale: [0.0, 0.0, -1.0],
        };
        let mut state = CorrectiveState::default();
        // rate 15 × dt 1/60 = 0.25
        assert_eq!(c.step(&mut state, &target, 1.0 / 60.0), 0.25);
        assert_eq!(state.translation[0], 0.25);
        assert_eq!(state.scale[2], -0.25);
        c.step(&mut state, &target, 1.0 / 60.0);
        assert_eq!(state.translation[0], 0.4375);
        // A huge dt clamps the weight to 1: the state lands on the target.
        assert_eq!(c.step(&mut state, &target, 10.0), 1.0);
        assert_eq!(state, target);
        // dt 0 (first update) does not move it.
        let mut fresh = CorrectiveState::default();
        assert_eq!(c.step(&mut fresh, &target, 0.0), 0.0);
        assert_eq!(fresh, CorrectiveState::default());
    }

    #[test]
    fn proximity_is_zero_beyond_threshold_and_linear_inside() {
        let p = Probe {
            bone: 1,
            threshold: 10.0,
            weight: 2.0,
            side: Side::Left,
            same_side: Gains::default(),
            opposite_side: Gains::default(),
        };
        assert_eq!(proximity(&p, 12.0), 0.0);
        assert_eq!(proximity(&p, 10.0), 0.0);
        assert_eq!(proximity(&p, 5.0), 1.0); // weight 2 × (10 − 5)/10
        assert_eq!(proximity(&p, 0.0), 2.0);
    }

    #[test]
    fn both_sides_use_their_own_coefficients() {
        let gains = |x: f32| Gains {
            translation: Vec3::new(x, 0.0, 0.0),
            scale: Vec3::new(0.0, x, 0.0),
        };
        let probe = Probe {
            bone: 1,
            threshold: 10.0,
            weight: 1.0,
            side: Side::Left,
            same_side: gains(3.0),
            opposite_side: gains(-7.0),
        };
        let mut c = ProximityCorrective {
            driven: 0,
            side: Side::Left,
            rate: 10.0,
            probes: vec![probe],
        };
        let t = c.target(&[5.0]);
        assert_eq!(t.translation, [1.5, 0.0, 0.0]);
        assert_eq!(t.scale, [0.0, 1.5, 0.0]);
        c.side = Side::Right;
        let t = c.target(&[5.0]);
        assert_eq!(t.translation, [-3.5, 0.0, 0.0]);
        assert_eq!(t.scale, [0.0, -3.5, 0.0]);
    }

    #[test]
    fn apply_adds_translation_and_scales_multiplicatively() {
        let mut local = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::IDENTITY,
            Vec3::new(2.0, -1.0, 1.0),
        );
        apply(
            &CorrectiveState {
                translation: [0.5, 0.0, 0.0],
                scale: [-0.25, 0.5, 0.0],
            },
            &mut local,
        );
        assert_eq!(local.translation, [1.5, 2.0, 3.0]);
        assert_eq!(local.scale, [1.5, -1.5, 1.0]);
    }

    #[test]
    fn btob_preset_has_the_articles_structure() {
        let bones = BtobBones {
            chest: 0,
            other_chest: 7,
            upper_arm_l: 1,
            forearm_l: 2,
            hand_l: 3,
            upper_arm_r: 4,
            forearm_r: 5,
            hand_r: 6,
        };
        let c = ProximityCorrective::btob(bones, Side::Left, -1.0, 16.0, 100.0);
        let thresholds: Vec<f32> = c.probes.iter().map(|p| p.threshold).collect();
        assert_eq!(thresholds, [10.0, 13.0, 15.0, 10.0, 13.0, 15.0, 16.0]);
        let weights: Vec<f32> = c.probes.iter().map(|p| p.weight).collect();
        assert_eq!(weights, [2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]);
        // Only X channels are driven; same and opposite sides differ.
        for p in &c.probes {
            for g in [p.same_side, p.opposite_side] {
                assert_eq!(g.translation.y, 0.0);
                assert_eq!(g.translation.z, 0.0);
                assert_eq!((g.scale.y, g.scale.z), (0.0, 0.0));
            }
        }
        assert_ne!(c.probes[0].same_side, c.probes[0].opposite_side);
        // Units: in metres the thresholds are 0.10/0.13/0.15.
        let m = ProximityCorrective::btob(bones, Side::Left, -1.0, 0.16, 1.0);
        assert!((m.probes[2].threshold - 0.15).abs() < 1e-7);
        assert!(c.validate(8).is_ok());
    }
}
