//! Contact never adds energy: a chain whose root starts inside a collider
//! (sphere or capsule, thinner or thicker than the first link, every
//! preset) comes to rest once its input stops. Before the fix, whole-link
//! contact pushed the tip of a link whose head was inside the shape
//! sideways by `overlap / u` every substep and the tip orbited the head
//! forever (issue: 48–142 mm per frame for 12 s with no input).

mod common;

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use secmo::math::{forward_kinematics, Transform};
use secmo::{ChainParams, Character, CharacterOptions, Collider, ColliderShape, Rig};

const HZ: f32 = 60.0;

/// root → head (1.5 m up) → a four-link strand hanging down and back; the
/// collider on the head, its centre (capsule: its axis) `off` from the
/// strand's root (0: the root on the axis, where a sideways push has no
/// preferred direction and used to make the tip orbit).
fn rig(params: ChainParams, shape: ColliderShape, radius: f32, off: f32) -> Arc<Rig> {
    let mut desc = common::chain_rig(
        "head",
        1.5,
        |i| format!("strand_{i}"),
        (Vec3::new(0.0, 0.05, -0.08), Vec3::new(0.0, -0.1, -0.02)),
        4,
        params,
    );
    let centre = Vec3::new(0.0, 0.05, -0.08 + off);
    desc.colliders.push(Collider {
        bone: 1,
        shape,
        a: centre,
        b: if shape == ColliderShape::Capsule {
            centre + Vec3::new(0.0, 0.15, 0.0)
        } else {
            centre
        },
        radius,
    });
    desc.chains[0].colliders = vec![0];
    common::shared(desc)
}

/// Per-frame tip motion (m) over the second after `still` seconds of no
/// input, following 2 s of the head turning ±40°.
fn motion_after(rig: &Arc<Rig>, still: f32) -> f32 {
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    let tip = rig.bone_count() - 1;
    let mut pose = reference.clone();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    let frames = ((2.0 + still + 1.0) * HZ) as usize;
    let mut previous = None;
    let mut worst = 0.0f32;
    for f in 0..frames {
        let t = f as f32 / HZ;
        let yaw = if t < 2.0 {
            40f32.to_radians() * (t * std::f32::consts::PI * 1.5).sin()
        } else {
            0.0
        };
        pose[1].rotation = Quat::from_rotation_y(yaw).to_array();
        let out = common::step(&mut c, 1.0 / HZ, &pose);
        forward_kinematics(rig.parents(), &out, &mut component);
        let end = component[tip].transform_point3(Vec3::new(0.0, -0.1, -0.02));
        if t >= 2.0 + still {
            if let Some(p) = previous {
                worst = worst.max(end.distance(p));
            }
        }
        previous = Some(end);
    }
    worst
}

#[test]
fn a_root_inside_a_collider_comes_to_rest_in_every_preset() {
    let mut failures = Vec::new();
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
        ("vrm", ChainParams::vrm(1.0)),
    ] {
        for shape in [ColliderShape::Sphere, ColliderShape::Capsule] {
            // 3 cm: the root just inside; 14 cm: thicker than the first link.
            for (radius, off) in [(0.03, 0.02), (0.14, 0.02), (0.03, 0.0), (0.14, 0.0)] {
                let moving = motion_after(&rig(params, shape, radius, off), 3.0);
                if moving >= 1e-6 {
                    failures.push(format!(
                        "{name} {shape:?} r = {radius} off = {off}: tip moves {:.4} mm per frame 3 s after the input stopped",
                        moving * 1e3
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
