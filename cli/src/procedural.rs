//! A built-in procedural character so that a new user sees secmo work with no
//! files: pelvis, spine, chest, hip and chest helper bones (centimetres,
//! Y-up), and a gait generator for walk → run → sprint → stop.

use glam::{Quat, Vec3};
use secmo::{BoneDesc, RigDesc, SpringParams, Transform};

pub const UNITS_PER_METER: f32 = 100.0;

pub const ROOT: usize = 0;
pub const PELVIS: usize = 1;
pub const SPINE: usize = 2;
pub const CHEST: usize = 3;

/// Names of the helper bones, in bone order after the four body bones.
pub const HELPERS: [&str; 4] = [
    "hip_helper_l",
    "hip_helper_r",
    "chest_helper_l",
    "chest_helper_r",
];

/// The demo skeleton with the article's hip and chest springs (SPEC §3 defaults).
#[must_use]
pub fn helper_body() -> RigDesc {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("pelvis", ROOT as i32, t(0.0, 100.0, 0.0)),
        BoneDesc::new("spine", PELVIS as i32, t(0.0, 15.0, 0.0)),
        BoneDesc::new("chest", SPINE as i32, t(0.0, 25.0, 0.0)),
        BoneDesc::new(HELPERS[0], PELVIS as i32, t(10.0, -6.0, 6.0)),
        BoneDesc::new(HELPERS[1], PELVIS as i32, t(-10.0, -6.0, 6.0)),
        BoneDesc::new(HELPERS[2], CHEST as i32, t(8.0, 4.0, 11.0)),
        BoneDesc::new(HELPERS[3], CHEST as i32, t(-8.0, 4.0, 11.0)),
    ];
    RigDesc {
        bones,
        units_per_meter: UNITS_PER_METER,
        springs: vec![
            SpringParams::hip(4, UNITS_PER_METER),
            SpringParams::hip(5, UNITS_PER_METER),
            SpringParams::chest(6, UNITS_PER_METER),
            SpringParams::chest(7, UNITS_PER_METER),
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

/// Gait state: integrates the stride phase so that cadence changes are smooth.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gait {
    pub stride_phase: f32,
    pub speed: f32,
    pub distance: f32,
}

impl Gait {
    /// Advances by `dt` toward `target_speed` (blended over ≈0.25 s, so a stop
    /// is abrupt enough to make the helpers swing and settle).
    pub fn advance(&mut self, dt: f32, target_speed: f32) {
        let blend = 1.0 - (-dt / 0.08).exp();
        self.speed += (target_speed - self.speed) * blend;
        // Stride frequency; the pelvis bobs twice per stride.
        let cadence_hz = 0.9 + 0.25 * self.speed;
        self.stride_phase = (self.stride_phase + 2.0 * std::f32::consts::PI * cadence_hz * dt)
            % (4.0 * std::f32::consts::PI);
        self.distance += 140.0 * self.speed * dt;
    }

    /// Source local pose for the current gait state.
    #[must_use]
    pub fn pose(&self, reference: &[Transform]) -> Vec<Transform> {
        let mut pose = reference.to_vec();
        self.write_pose(&mut pose);
        pose
    }

    /// Writes the body bones into `pose` (helpers keep their reference local).
    /// Locomotion itself moves the character's root in the world, not the
    /// pelvis in component space, as in engines; `distance` is for the caller.
    /// Every amplitude scales with speed, so at speed 0 the body stands still.
    pub fn write_pose(&self, pose: &mut [Transform]) {
        let s = self.speed.max(0.0);
        let ph = self.stride_phase;
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
    }
}
