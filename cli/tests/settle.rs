//! Issue #17 item 3 on the demo character: its tail (tail preset) and its
//! ponytail (hair preset, with gravity 0 and 1 m/s²) come to rest — < 0.001
//! mm of motion per frame — within 2 s of the last input motion
//! (docs/chains.md "Coming to rest"). The body walks, runs and sprints, and
//! its animation freezes mid-sprint (the hardest stop: the sequence's own
//! stop phase slows down first).

use std::sync::Arc;

use glam::Vec3;
use secmo::math::Transform;
use secmo::{ChainDesc, ChainParams, Character, CharacterOptions, FrameInput, Rig};
use secmo_cli::demo_character::{self as demo, HEAD, PONYTAIL, TAIL};
use secmo_cli::procedural::{Sequence, PELVIS, UNITS_PER_METER};

const HZ: f32 = 60.0;

/// Seconds from the last input change until every particle of `chain` stays
/// under 0.001 mm per frame, and the largest motion in the last frame.
fn settle(gravity: f32) -> [(f32, f32); 2] {
    let m = UNITS_PER_METER;
    let mut desc = demo::meshed_body();
    desc.units_per_meter = m;
    desc.chains = vec![
        ChainDesc::new(
            TAIL[..5].iter().map(|&b| b as u32).collect(),
            PELVIS as u32,
            ChainParams::tail(m),
        ),
        ChainDesc::new(
            PONYTAIL[..4].iter().map(|&b| b as u32).collect(),
            HEAD as u32,
            ChainParams {
                gravity: gravity * m,
                ..ChainParams::hair(m)
            },
        ),
    ];
    let rig = Arc::new(Rig::new(desc).expect("the demo rig builds"));
    let sequence = Sequence::new(3.0);
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let mut pose: Vec<Transform> = rig.reference_pose().to_vec();
    let mut out = pose.clone();
    let (mut last_input, mut last_moving) = (0.0f32, [0.0f32; 2]);
    let mut previous_pose = pose.clone();
    let mut previous: Vec<Vec3> = Vec::new();
    // The end of the sprint phase, at full speed.
    let end = 3.0 * 3.0;
    assert!(end < sequence.duration());
    let mut worst_last = [0.0f32; 2];
    for f in 0..((end + 6.0) * HZ) as usize {
        let t = f as f32 / HZ;
        demo::write_pose(&sequence, t.min(end), &mut pose);
        if pose != previous_pose {
            last_input = t;
        }
        previous_pose.clone_from(&pose);
        let dt = if f == 0 { 0.0 } else { 1.0 / HZ };
        c.update(
            &FrameInput {
                dt,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
        let particles = c.particle_positions().to_vec();
        if !previous.is_empty() {
            for (k, chain) in rig.chains().iter().enumerate() {
                let range = chain.first_particle..chain.first_particle + chain.len();
                let moved = range
                    .map(|i| particles[i].distance(previous[i]) / m)
                    .fold(0.0f32, f32::max);
                if moved >= 1e-6 {
                    last_moving[k] = t;
                }
                worst_last[k] = moved;
            }
        }
        previous = particles;
    }
    assert!(
        (last_input - end).abs() < 1.0 / HZ,
        "the body moves until the freeze: {last_input} s"
    );
    [0, 1].map(|k| ((last_moving[k] - last_input).max(0.0), worst_last[k]))
}

#[test]
fn the_demo_tail_and_ponytail_settle_within_two_seconds_of_the_stop() {
    for gravity in [0.0, 1.0] {
        let [tail, ponytail] = settle(gravity);
        println!(
            "ponytail gravity {gravity} m/s²: tail settled {:.2} s after the last input motion, ponytail {:.2} s (last frames: {:.1e} / {:.1e} m)",
            tail.0, ponytail.0, tail.1, ponytail.1
        );
        assert!(tail.0 < 2.0, "tail: {} s", tail.0);
        assert!(
            ponytail.0 < 2.0,
            "ponytail, gravity {gravity}: {} s",
            ponytail.0
        );
    }
}
