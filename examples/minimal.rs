//! The smallest Rust program that uses secmo: a rig with a four-bone tail,
//! one character, two seconds of updates at 60 Hz while the hips sway, then
//! the tail tip's local rotation. `cargo run --example minimal`; the C
//! version is examples/minimal.c.

use std::sync::Arc;

use glam::Vec3;
use secmo::{
    BoneDesc, ChainDesc, ChainParams, Character, CharacterOptions, FrameInput, Rig, RigDesc,
    Transform,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // root, hips 1 m up, then a tail of four bones hanging back (metres, Y up).
    let at = |x, y, z| Transform::from_translation(Vec3::new(x, y, z));
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, at(0.0, 1.0, 0.0)),
        BoneDesc::new("tail_1", 1, at(0.0, -0.05, -0.1)),
    ];
    for i in 2..=4 {
        bones.push(BoneDesc::new(format!("tail_{i}"), i, at(0.0, -0.05, -0.15)));
    }
    let desc = RigDesc {
        bones,
        units_per_meter: 1.0,
        // The tail's joints, from the root; the hips hold its rest arc.
        chains: vec![ChainDesc::new(vec![2, 3, 4, 5], 1, ChainParams::tail(1.0))],
        ..Default::default()
    };

    // Once per model: the rig, shared. Once per instance: the character.
    let rig = Arc::new(Rig::new(desc)?);
    let mut character = Character::new(rig.clone(), CharacterOptions::default());

    // Every frame: the animation's local pose in, the final local pose out.
    let mut pose = rig.reference_pose().to_vec();
    let mut out = pose.clone();
    for frame in 0..120 {
        pose[1].translation[0] = 0.2 * (6.0 * frame as f32 / 60.0).sin();
        let input = FrameInput {
            dt: 1.0 / 60.0,
            pose: &pose,
            teleport: false,
        };
        character.update(&input, &mut out)?;
    }
    let [x, y, z, w] = out[5].rotation;
    println!("tail tip rotation: {x:.4} {y:.4} {z:.4} {w:.4}");
    Ok(())
}
