//! A small procedural helper-bone skeleton shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{BoneDesc, Character, CharacterOptions, Rig, RigDesc, SpringParams, Transform};

pub const UPM: f32 = 100.0; // centimetres, as the helper-bone article

pub const PELVIS: usize = 1;
pub const HIP_L: usize = 4;
pub const HIP_R: usize = 5;

/// root, pelvis, spine, chest, hip helpers L/R (pelvis), chest helpers L/R (chest).
pub fn helper_rig_desc() -> RigDesc {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("pelvis", 0, t(0.0, 100.0, 0.0)),
        BoneDesc::new("spine", 1, t(0.0, 15.0, 0.0)),
        BoneDesc::new("chest", 2, t(0.0, 25.0, 0.0)),
        BoneDesc::new("hip_helper_l", 1, t(10.0, -5.0, 5.0)),
        BoneDesc::new("hip_helper_r", 1, t(-10.0, -5.0, 5.0)),
        BoneDesc::new("chest_helper_l", 3, t(8.0, 5.0, 10.0)),
        BoneDesc::new("chest_helper_r", 3, t(-8.0, 5.0, 10.0)),
    ];
    RigDesc {
        bones,
        units_per_meter: UPM,
        springs: vec![
            SpringParams::hip(4, UPM),
            SpringParams::hip(5, UPM),
            SpringParams::chest(6, UPM),
            SpringParams::chest(7, UPM),
        ],
        ..Default::default()
    }
}

pub fn helper_rig() -> Arc<Rig> {
    Arc::new(Rig::new(helper_rig_desc()).expect("valid rig"))
}

pub fn character() -> Character {
    Character::new(helper_rig(), CharacterOptions::default())
}

/// A walk-like motion of the pelvis and spine at time `t` (seconds), with a
/// cadence `speed` (1 = walk).
pub fn pose_at(rig: &Rig, t: f32, speed: f32) -> Vec<Transform> {
    let mut pose = rig.reference_pose().to_vec();
    let w = 2.0 * std::f32::consts::PI * 1.8 * speed;
    let pelvis = &mut pose[PELVIS];
    pelvis.translation = [
        3.0 * speed * (w * 0.5 * t).sin(),
        100.0 + 4.0 * speed * (w * t).sin(),
        60.0 * speed * t,
    ];
    pelvis.rotation = (Quat::from_rotation_y(0.15 * speed * (w * 0.5 * t).sin())
        * Quat::from_rotation_x(0.05 * speed * (w * t).cos()))
    .to_array();
    pose[2].rotation = Quat::from_rotation_y(-0.2 * speed * (w * 0.5 * t).sin()).to_array();
    pose
}
