//! A built-in procedural character so that a new user sees secmo work with no
//! files: pelvis, spine, chest and arms (centimetres, Y-up, facing +Z), hip
//! helpers with springs, chest helpers with the whole docs/algorithms.md §4–§6 pipeline
//! (rotation constraint to a chest point, spring, BtoB corrective), and a
//! walk → run → sprint → stop sequence that is a pure function of time, so
//! that different input rates sample exactly the same motion.

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, BtobBones, ConstraintDesc, ProximityCorrective, RigDesc, Side, SpringParams,
    Transform,
};

pub const UNITS_PER_METER: f32 = 100.0;

pub const ROOT: usize = 0;
pub const PELVIS: usize = 1;
pub const SPINE: usize = 2;
pub const CHEST: usize = 3;
pub const HIP_L: usize = 4;
pub const HIP_R: usize = 5;
pub const POINT_L: usize = 6;
pub const POINT_R: usize = 7;
pub const CHEST_L: usize = 8;
pub const CHEST_R: usize = 9;
pub const UPPER_ARM_L: usize = 10;
pub const FOREARM_L: usize = 11;
pub const HAND_L: usize = 12;
pub const UPPER_ARM_R: usize = 13;
pub const FOREARM_R: usize = 14;
pub const HAND_R: usize = 15;

/// The demo skeleton with the article's hip and chest springs (docs/algorithms.md §3
/// defaults), chest rotation constraints (§4) and BtoB correctives (§5).
#[must_use]
pub fn helper_body() -> RigDesc {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let chest_helper = |x: f32, yaw: f32| {
        Transform::new(
            Vec3::new(x, 4.0, 11.0),
            Quat::from_rotation_y(yaw),
            Vec3::new(1.0, 1.1, 0.9),
        )
    };
    let bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("pelvis", ROOT as i32, t(0.0, 100.0, 0.0)),
        BoneDesc::new("spine", PELVIS as i32, t(0.0, 15.0, 0.0)),
        BoneDesc::new("chest", SPINE as i32, t(0.0, 25.0, 0.0)),
        BoneDesc::new("hip_helper_l", PELVIS as i32, t(10.0, -6.0, 6.0)),
        BoneDesc::new("hip_helper_r", PELVIS as i32, t(-10.0, -6.0, 6.0)),
        BoneDesc::new("chest_point_l", CHEST as i32, t(8.0, 4.0, 12.0)),
        BoneDesc::new("chest_point_r", CHEST as i32, t(-8.0, 4.0, 12.0)),
        BoneDesc::new("chest_helper_l", CHEST as i32, chest_helper(8.0, 0.3)),
        BoneDesc::new("chest_helper_r", CHEST as i32, chest_helper(-8.0, -0.3)),
        BoneDesc::new("upper_arm_l", CHEST as i32, t(18.0, 20.0, 0.0)),
        BoneDesc::new("forearm_l", UPPER_ARM_L as i32, t(0.0, -28.0, 0.0)),
        BoneDesc::new("hand_l", FOREARM_L as i32, t(0.0, -25.0, 0.0)),
        BoneDesc::new("upper_arm_r", CHEST as i32, t(-18.0, 20.0, 0.0)),
        BoneDesc::new("forearm_r", UPPER_ARM_R as i32, t(0.0, -28.0, 0.0)),
        BoneDesc::new("hand_r", FOREARM_R as i32, t(0.0, -25.0, 0.0)),
    ];
    let arms = |chest: usize, other: usize| BtobBones {
        chest: chest as u32,
        other_chest: other as u32,
        upper_arm_l: UPPER_ARM_L as u32,
        forearm_l: FOREARM_L as u32,
        hand_l: HAND_L as u32,
        upper_arm_r: UPPER_ARM_R as u32,
        forearm_r: FOREARM_R as u32,
        hand_r: HAND_R as u32,
    };
    let chest_gap = 16.0; // rest distance between the chest helpers
    RigDesc {
        bones,
        units_per_meter: UNITS_PER_METER,
        constraints: vec![
            ConstraintDesc {
                bone: CHEST_L as u32,
                target: POINT_L as u32,
            },
            ConstraintDesc {
                bone: CHEST_R as u32,
                target: POINT_R as u32,
            },
        ],
        springs: vec![
            SpringParams::hip(HIP_L as u32, UNITS_PER_METER),
            SpringParams::hip(HIP_R as u32, UNITS_PER_METER),
            SpringParams::chest(CHEST_L as u32, UNITS_PER_METER),
            SpringParams::chest(CHEST_R as u32, UNITS_PER_METER),
        ],
        // Local +X of the left chest points away from the midline, of the right toward it.
        correctives: vec![
            ProximityCorrective::btob(
                arms(CHEST_L, CHEST_R),
                Side::Left,
                -1.0,
                chest_gap,
                UNITS_PER_METER,
            ),
            ProximityCorrective::btob(
                arms(CHEST_R, CHEST_L),
                Side::Right,
                1.0,
                chest_gap,
                UNITS_PER_METER,
            ),
        ],
        ..Default::default()
    }
}

/// One phase of the demo sequence.
#[derive(Clone, Copy, Debug)]
pub struct Phase {
    pub name: &'static str,
    /// 0 = standing, 1 = walk, 2 = run, 3 = sprint.
    pub speed: f32,
}

pub const SEQUENCE: [Phase; 4] = [
    Phase {
        name: "walk",
        speed: 1.0,
    },
    Phase {
        name: "run",
        speed: 2.0,
    },
    Phase {
        name: "sprint",
        speed: 3.0,
    },
    Phase {
        name: "stop",
        speed: 0.0,
    },
];

/// Resolution of the precomputed gait table, seconds.
const TABLE_STEP: f32 = 0.001;

/// The walk → run → sprint → stop sequence as a function of time. Speed
/// follows each phase's target with a 0.08 s lag (so the stop is abrupt enough
/// to make the helpers swing) and the stride phase integrates the cadence;
/// both are tabulated once at 1 kHz, so every input rate samples the same
/// motion.
#[derive(Clone, Debug)]
pub struct Sequence {
    pub seconds_per_phase: f32,
    /// (speed, stride phase) every millisecond.
    table: Vec<(f32, f32)>,
}

impl Sequence {
    #[must_use]
    pub fn new(seconds_per_phase: f32) -> Self {
        let duration = seconds_per_phase * SEQUENCE.len() as f32;
        let samples = (duration / TABLE_STEP).ceil() as usize + 2;
        let mut table = Vec::with_capacity(samples);
        let (mut speed, mut phase) = (0.0f32, 0.0f32);
        let blend = 1.0 - (-TABLE_STEP / 0.08).exp();
        for i in 0..samples {
            table.push((speed, phase));
            let t = i as f32 * TABLE_STEP;
            let index = ((t / seconds_per_phase) as usize).min(SEQUENCE.len() - 1);
            speed += (SEQUENCE[index].speed - speed) * blend;
            // Stride frequency; the pelvis bobs twice per stride.
            let cadence_hz = 0.9 + 0.25 * speed;
            phase = (phase + 2.0 * std::f32::consts::PI * cadence_hz * TABLE_STEP)
                % (4.0 * std::f32::consts::PI);
        }
        Self {
            seconds_per_phase,
            table,
        }
    }

    #[must_use]
    pub fn duration(&self) -> f32 {
        self.seconds_per_phase * SEQUENCE.len() as f32
    }

    /// Index of the phase that time `t` falls in.
    #[must_use]
    pub fn phase_index(&self, t: f32) -> usize {
        ((t / self.seconds_per_phase) as usize).min(SEQUENCE.len() - 1)
    }

    /// Speed (0 standing … 3 sprinting) and stride phase at `t`.
    #[must_use]
    pub fn gait(&self, t: f32) -> (f32, f32) {
        let (s, ph) = self.sample(t);
        (s.max(0.0), ph)
    }

    fn sample(&self, t: f32) -> (f32, f32) {
        let x = (t / TABLE_STEP).max(0.0);
        let i = (x as usize).min(self.table.len() - 2);
        let f = x - i as f32;
        let (s0, p0) = self.table[i];
        let (s1, mut p1) = self.table[i + 1];
        if p1 < p0 {
            p1 += 4.0 * std::f32::consts::PI; // wrapped
        }
        (s0 + (s1 - s0) * f, p0 + (p1 - p0) * f)
    }

    /// Writes the body bones at time `t` into `pose` (helpers keep their
    /// reference local). Locomotion itself moves the character's root in the
    /// world, not the pelvis in component space, as in engines. Every amplitude
    /// scales with speed, so at speed 0 the body stands still; during the stop
    /// the arms fold in front of the chest, which drives BtoB.
    pub fn write_pose(&self, t: f32, pose: &mut [Transform]) {
        let (s, ph) = self.sample(t);
        let s = s.max(0.0);
        // Vertical bob: ±1 cm walking, ±2.25 cm running, ±3.5 cm sprinting.
        let bob_amplitude = if s < 1.0 { s } else { 1.0 + 1.25 * (s - 1.0) };
        let bob = bob_amplitude * (2.0 * ph).sin();
        let sway = 0.6 * s.min(1.0) * ph.sin();
        let crouch = 2.5 * s;
        pose[PELVIS].translation = [sway, 100.0 - crouch + bob, 0.0];
        pose[PELVIS].rotation = (Quat::from_rotation_y(0.04 * s * ph.sin())
            * Quat::from_rotation_x(0.05 * s + 0.01 * s * (2.0 * ph).cos())
            * Quat::from_rotation_z(0.02 * s * ph.sin()))
        .to_array();
        pose[SPINE].rotation = (Quat::from_rotation_y(-0.06 * s * ph.sin())
            * Quat::from_rotation_x(0.04 * s))
        .to_array();
        pose[CHEST].rotation = Quat::from_rotation_z(-0.03 * s * ph.sin()).to_array();
        // Chest points (the constraint targets) bounce with the stride.
        pose[POINT_L].rotation = Quat::from_rotation_x(0.12 * s * (2.0 * ph).sin()).to_array();
        pose[POINT_R].rotation =
            Quat::from_rotation_x(0.12 * s * (2.0 * ph + 0.4).sin()).to_array();

        let stop_start = 3.0 * self.seconds_per_phase;
        let fold = ((t - stop_start - 0.3 * self.seconds_per_phase)
            / (0.25 * self.seconds_per_phase))
            .clamp(0.0, 1.0);
        for (upper, fore, side) in [
            (UPPER_ARM_L, FOREARM_L, 1.0f32),
            (UPPER_ARM_R, FOREARM_R, -1.0),
        ] {
            let swing = 0.25 * s * ph.sin() * side * (1.0 - fold);
            let upper_rotation = Quat::from_rotation_x(swing - 0.5 * fold)
                * Quat::from_rotation_z(-side * 0.3 * fold);
            pose[upper].rotation = upper_rotation.to_array();
            // Forearms across the body toward the other chest, elbows in front of their own.
            let across = Vec3::new(-side * 0.85, 0.3, 0.3).normalize();
            let bend = Quat::from_rotation_arc(Vec3::NEG_Y, upper_rotation.inverse() * across);
            let elbow = Quat::from_rotation_x(-0.35 * s.min(2.0));
            pose[fore].rotation = elbow.slerp(bend, fold).to_array();
        }
    }
}
