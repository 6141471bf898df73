//! How long chains take to come to rest (docs/chains.md "Coming to rest").
//! The hips of a 0.8 m chain yaw ±40° at 0.75 Hz for 2 s, then hold still;
//! input at 60 Hz. Settling time is the last time after the stop at which the
//! tip moved at least 0.001 mm in a frame (issue #17 asks for 2 s; the
//! presets do not reach it yet, and docs/chains.md says why). Run with
//! `--nocapture` for the table.

mod common;

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use secmo::math::{forward_kinematics, Transform};
use secmo::{ChainParams, Character, CharacterOptions};

const HZ: f32 = 60.0;
const STOP: f32 = 2.0;
const WINDOW: f32 = 12.0;

/// (seconds after the stop until the tip stays under 0.001 mm per frame,
/// tip motion 2 s after the stop in mm per frame).
fn settling(params: ChainParams, links: usize) -> (f32, f32) {
    let rig = common::shared(common::tail_desc(links, params));
    let link = 0.8 / links as f32;
    let tip_end = Vec3::new(0.0, -0.35 * link, -0.94 * link);
    let tip = rig.bone_count() - 1;
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let mut pose: Vec<Transform> = rig.reference_pose().to_vec();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    let (mut last_moving, mut at_two, mut previous) = (0.0f32, 0.0f32, None);
    for f in 0..((STOP + WINDOW) * HZ) as usize {
        let t = f as f32 / HZ;
        let yaw = if t < STOP {
            40f32.to_radians() * (t * std::f32::consts::PI * 1.5).sin()
        } else {
            0.0
        };
        pose[common::TAIL_HIPS].rotation = Quat::from_rotation_y(yaw).to_array();
        let out = common::step(&mut c, 1.0 / HZ, &pose);
        forward_kinematics(rig.parents(), &out, &mut component);
        let end = component[tip].transform_point3(tip_end);
        if let Some(p) = previous {
            let moved = end.distance(p) * 1e3;
            if t >= STOP && moved >= 1e-3 {
                last_moving = t - STOP;
            }
            if (t - STOP - 2.0).abs() < 0.5 / HZ {
                at_two = moved;
            }
        }
        previous = Some(end);
    }
    (last_moving, at_two)
}

#[test]
fn settling_times_and_the_hair_damping_that_minimises_them() {
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
        (
            "tail, bend_rate 0",
            ChainParams {
                bend_rate: 0.0,
                ..ChainParams::tail(1.0)
            },
        ),
    ] {
        for links in [4, 8] {
            let (time, at_two) = settling(params, links);
            let time = if time > WINDOW - 0.1 {
                format!("not within {WINDOW} s")
            } else {
                format!("{time:.2} s")
            };
            println!("{name}, {links} links: {time} ({at_two:.3} mm per frame 2 s after the stop)");
        }
    }
    // docs/chains.md: more or less damping than the preset's c = 10 /s only
    // slows the strand's settling (its slow mode is shared by the links).
    for links in [4, 8] {
        let at = |damping: f32| {
            settling(
                ChainParams {
                    damping,
                    ..ChainParams::hair(1.0)
                },
                links,
            )
            .0
        };
        let (lower, preset, higher) = (at(8.0), at(10.0), at(12.6));
        println!(
            "hair, {links} links, c = 8 / 10 / 12.6: {lower:.2} / {preset:.2} / {higher:.2} s"
        );
        assert!(
            preset < lower && preset < higher && preset < WINDOW - 1.0,
            "{links} links: c = 10 settles in {preset} s, c = 8 in {lower} s, c = 12.6 in {higher} s"
        );
    }
}
