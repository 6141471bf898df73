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
    rig_at(params, shape, radius, Vec3::new(0.0, 0.0, off))
}

/// root → head (1.5 m up) → the four-link strand of [`rig`], no collider.
fn strand(params: ChainParams) -> secmo::RigDesc {
    common::chain_rig(
        "head",
        1.5,
        |i| format!("strand_{i}"),
        (Vec3::new(0.0, 0.05, -0.08), Vec3::new(0.0, -0.1, -0.02)),
        4,
        params,
    )
}

/// [`rig`] with the collider's centre `off` from the strand's root.
fn rig_at(params: ChainParams, shape: ColliderShape, radius: f32, off: Vec3) -> Arc<Rig> {
    let mut desc = strand(params);
    let centre = Vec3::new(0.0, 0.05, -0.08) + off;
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
    motion_after_at(rig, still, HZ)
}

/// [`motion_after`] at `hz` input.
fn motion_after_at(rig: &Arc<Rig>, still: f32, hz: f32) -> f32 {
    motion_after_swing(rig, still, hz, 40.0)
}

/// [`motion_after_at`] after the head turning ±`swing` degrees.
fn motion_after_swing(rig: &Arc<Rig>, still: f32, hz: f32, swing: f32) -> f32 {
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    let tip = rig.bone_count() - 1;
    let mut pose = reference.clone();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    let frames = ((2.0 + still + 1.0) * hz) as usize;
    let mut previous = None;
    let mut worst = 0.0f32;
    for f in 0..frames {
        let t = f as f32 / hz;
        let yaw = if t < 2.0 {
            swing.to_radians() * (t * std::f32::consts::PI * 1.5).sin()
        } else {
            0.0
        };
        pose[1].rotation = Quat::from_rotation_y(yaw).to_array();
        let out = common::step(&mut c, 1.0 / hz, &pose);
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

/// Distance from the strand's root to the axis of [`rig_at`]'s collider
/// (a capsule's axis runs 0.15 m up from its centre).
fn root_to_axis(shape: ColliderShape, off: Vec3) -> f32 {
    let root = -off;
    let axis = if shape == ColliderShape::Capsule {
        root.y.clamp(0.0, 0.15)
    } else {
        0.0
    };
    (root - Vec3::new(0.0, axis, 0.0)).length()
}

/// A failure naming `what` if the tip still moves 0.001 mm or more per
/// frame `still` seconds after the input stopped, at `hz` input.
fn still_moving(rig: &Arc<Rig>, still: f32, hz: f32, what: &str) -> Option<String> {
    still_moving_after(rig, still, hz, 40.0, what)
}

/// [`still_moving`] after the head turning ±`swing` degrees.
fn still_moving_after(
    rig: &Arc<Rig>,
    still: f32,
    hz: f32,
    swing: f32,
    what: &str,
) -> Option<String> {
    let moving = motion_after_swing(rig, still, hz, swing);
    (moving >= 1e-6).then(|| {
        format!(
            "{what} at {hz} Hz after ±{swing}°: tip moves {:.4} mm per frame {still} s after \
             the input stopped",
            moving * 1e3
        )
    })
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

/// The same for roots inside spheres and capsules from 2 cm to 1.5 m, the
/// collider's centre below, behind or on the first joint, at 30, 60 and
/// 144 Hz input. Without the contact slack four placements fail (12 runs),
/// each for ever: a hair strand whose first link rests on a sphere or capsule
/// crept in through the contact slack and sprang back out (0.004–0.03 mm
/// per frame; a sphere of r = 0.11 m 3 cm below the root, a sphere and a
/// capsule of r = 0.05 m 4 cm behind it), and a tail whose
/// first link a sphere held away from its bend was pulled back by the
/// coupling and pushed out again (1.8–2 mm per frame; the sphere on the
/// first joint, r = 0.11 m).
#[test]
fn a_root_inside_a_collider_of_any_size_comes_to_rest() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
        ("vrm", ChainParams::vrm(1.0)),
    ] {
        for shape in [ColliderShape::Sphere, ColliderShape::Capsule] {
            for radius in [0.02, 0.05, 0.11, 0.2, 0.6, 1.5] {
                for off in [
                    Vec3::new(0.0, -0.03, 0.0),
                    Vec3::new(0.0, 0.0, -0.04),
                    Vec3::new(0.0, -0.1, -0.02),
                ] {
                    // The root inside: within the radius and the link's.
                    if root_to_axis(shape, off) >= radius + params.radius {
                        continue;
                    }
                    for hz in [30.0, 60.0, 144.0] {
                        runs += 1;
                        let rig = rig_at(params, shape, radius, off);
                        let what = format!("{name} {shape:?} r = {radius} off = {off}");
                        failures.extend(still_moving(&rig, 3.0, hz, &what));
                    }
                }
            }
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert!(runs > 150, "{runs} runs");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A strand rooted deep in a sphere whose surface its first links cannot
/// reach whichever way they point (the root 6 cm from the centre, a link
/// 0.102 m long, the sphere 20 or 35 cm): no direction takes those links
/// out, so they are not pushed and hang as if the sphere were not there
/// (#13 item 4). Pushing their tips toward the one way out they cannot
/// reach, against their rest pose, made them sweep: with the centre
/// a few millimetres off the first link's line the hair strand swept round
/// the sphere, 1–8 mm per frame 3 s after the input stopped.
#[test]
fn a_strand_buried_in_a_sphere_it_cannot_leave_rests_as_if_the_sphere_were_not_there() {
    let link = Vec3::new(0.0, -0.1, -0.02).normalize();
    let across = link.cross(Vec3::X).normalize();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
    ] {
        for radius in [0.2, 0.35] {
            for side in [Vec3::X * 0.004, across * 0.004, across * -0.01] {
                let off = link * 0.06 + side;
                for hz in [30.0, 60.0, 144.0] {
                    runs += 1;
                    let rig = rig_at(params, ColliderShape::Sphere, radius, off);
                    let what = format!("{name} r = {radius} off = {off}");
                    failures.extend(still_moving(&rig, 3.0, hz, &what));
                }
            }
        }
        // A 60 cm sphere holds the whole strand (0.06 + 4 × 0.102 m < 0.61
        // m): it moves bit for bit as the strand without the sphere.
        let off = link * 0.06 + Vec3::X * 0.004;
        let buried = rig_at(params, ColliderShape::Sphere, 0.6, off);
        let free = common::shared(strand(params));
        let mut a = Character::new(Arc::clone(&buried), CharacterOptions::default());
        let mut b = Character::new(free, CharacterOptions::default());
        let mut pose: Vec<Transform> = buried.reference_pose().to_vec();
        for f in 0..(4.0 * HZ) as usize {
            let t = f as f32 / HZ;
            pose[1].rotation =
                Quat::from_rotation_y(40f32.to_radians() * (t * 4.7).sin()).to_array();
            pose[1].translation = [0.3 * t.min(1.0), 1.5, 0.0];
            let (out_a, out_b) = (
                common::step(&mut a, 1.0 / HZ, &pose),
                common::step(&mut b, 1.0 / HZ, &pose),
            );
            assert!(
                out_a == out_b,
                "{name}, frame {f}: the buried strand moved otherwise than the free one"
            );
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert_eq!(runs, 36);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The VRM preset's strand rooted in a shape none of its joints can leave:
/// 3 or 6 cm down its first link and 4 mm or 1 cm to one side of the axis
/// of a capsule of 11 cm, 60 cm or 1.5 m, or of the centre of an 11 cm
/// sphere. three-vrm pushes each joint's tail toward the surface every step
/// and puts it back at its length, and near the axis that turns the strand
/// round its root for ever: tools/three-vrm/vrm.mjs, this rig in the 1.5 m
/// capsule after a ±40° swing at 120 Hz, 5.41 mm per 1/30 s 3–4 s after
/// the input stopped; secmo's VRM preset, the same without its hold, moved
/// 0.12–6.5 mm per frame 3 s after it in these placements (30, 60 and
/// 144 Hz input, ±10° swings). Once the input rests such a joint holds its
/// place (chain::vrm_hold), and the strand stops within 3 s; while the input
/// moves nothing changes (tests/vrm_parity.rs, `root_buried_in_sphere` and
/// `root_buried_in_capsule` among them).
#[test]
fn a_vrm_strand_buried_in_a_shape_stops_turning_round_its_root_once_the_input_rests() {
    let link = Vec3::new(0.0, -0.1, -0.02).normalize();
    let across = link.cross(Vec3::X).normalize();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (shape, radius, along, aside) in [
        (ColliderShape::Capsule, 1.5, 0.03, 0.004),
        (ColliderShape::Capsule, 1.5, 0.06, 0.01),
        (ColliderShape::Capsule, 0.6, 0.03, 0.004),
        (ColliderShape::Capsule, 0.11, 0.06, 0.0),
        (ColliderShape::Capsule, 0.11, 0.06, 0.004),
        (ColliderShape::Sphere, 0.11, 0.06, 0.004),
    ] {
        let off = link * along + across * aside;
        let rig = rig_at(ChainParams::vrm(1.0), shape, radius, off);
        for swing in [10.0, 40.0] {
            for hz in [30.0, 60.0, 144.0] {
                runs += 1;
                let what = format!("vrm {shape:?} r = {radius} off = {off}");
                failures.extend(still_moving_after(&rig, 3.0, hz, swing, &what));
            }
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A hair strand resting on a sphere or capsule near a balance point (the
/// shape's centre, or a capsule's end, on or a few millimetres off the
/// first link's line, the surface within the first link's reach) stops
/// within 3 s of the input: once the input rests, its contacts hold with
/// static friction (`chain::settle_friction`). Without it the strand slid
/// round the shape toward the side nearest its rest pose, which such a
/// placement makes barely nearer than the others: 29 of these 42 runs
/// still moved 3 s after the input stopped, by up to 0.031 mm per frame
/// (a sweep of 1,632 hair runs without friction: 31 moving; with it, none).
#[test]
fn a_hair_strand_resting_near_a_balance_point_on_a_shape_stops_within_3_s() {
    let link = Vec3::new(0.0, -0.1, -0.02).normalize();
    let across = link.cross(Vec3::X).normalize();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (shape, radius, off) in [
        (ColliderShape::Sphere, 0.08, link * 0.06 + Vec3::X * 0.004),
        (ColliderShape::Sphere, 0.08, link * 0.06 + across * 0.004),
        (ColliderShape::Sphere, 0.11, link * 0.06 + Vec3::X * 0.004),
        (ColliderShape::Sphere, 0.11, link * 0.06 + across * 0.004),
        (ColliderShape::Capsule, 0.08, link * 0.06),
        (ColliderShape::Capsule, 0.02, link * 0.03),
        (ColliderShape::Capsule, 0.05, link * 0.03),
    ] {
        let rig = rig_at(ChainParams::hair(1.0), shape, radius, off);
        for hz in [30.0, 60.0, 144.0] {
            for swing in [10.0, 40.0] {
                runs += 1;
                let what = format!("{shape:?} r = {radius} off = {off}");
                failures.extend(still_moving_after(&rig, 3.0, hz, swing, &what));
            }
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert_eq!(runs, 42);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A tail whose first link rests along a thin capsule beside its root (2 cm,
/// the axis 1 cm from the root, its end 6 cm down the first link), the one
/// placement of a sweep of 1,692 tail runs that never rested without friction: the
/// link lies nearly parallel to the axis at its head's distance, so its
/// closest point jumps between the head and the middle of the link, the
/// push at the middle leaves it 10 µm deep once the link is put back to its
/// length, and a second pass fires or not by a hair — a cycle of four
/// substeps, 0.0035–0.0085 mm per frame for ever (without friction). Once
/// the input rests the tail's contacts hold with static friction as the
/// hair's do (`chain::settle_friction`), and it stops within 3 s; the
/// neighbouring placements (4 mm, the other side, the sphere) with it.
#[test]
fn a_tail_resting_along_a_thin_capsule_beside_its_root_stops_within_3_s() {
    let link = Vec3::new(0.0, -0.1, -0.02).normalize();
    let across = link.cross(Vec3::X).normalize();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (shape, side) in [
        (ColliderShape::Capsule, across * -0.01),
        (ColliderShape::Capsule, across * 0.01),
        (ColliderShape::Capsule, across * -0.004),
        (ColliderShape::Sphere, across * -0.01),
    ] {
        let rig = rig_at(ChainParams::tail(1.0), shape, 0.02, link * 0.06 + side);
        for hz in [30.0, 60.0, 120.0, 144.0] {
            for swing in [10.0, 40.0] {
                runs += 1;
                let what = format!("tail {shape:?} r = 0.02 side = {side}");
                failures.extend(still_moving_after(&rig, 3.0, hz, swing, &what));
            }
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert_eq!(runs, 32);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A capsule standing on the chain's first joint, its axis 1–2 cm beside
/// the root (0–2 cm above the joint): the rest pose runs into the end of the
/// axis, where every way out is as short, and the first link is held in the
/// corner between the push that keeps it level with its root and the push
/// that keeps its tip out of the capsule. With the velocity into that
/// corner removed along the first push alone, a tail kept moving
/// 0.007–2.9 mm per frame for ever, a hair strand 0.002–0.005 mm (at 12 s,
/// and as much at 24 s). The tail now rests within 3 s. The hair preset
/// slid round the capsule toward the side nearest its rest pose, barely
/// nearer than the others for these placements, for up to 12 s; since its
/// resting contacts hold with static friction it too rests
/// within 3 s. The VRM preset is three-vrm's verlet, and three-vrm itself
/// (tools/three-vrm, the same rig and motion at 120 Hz) still slides 0.146,
/// 0.037 and 0.009 mm per 1/60 s at 3, 12 and 24 s in the 5 cm capsule, as
/// secmo's VRM preset does without its hold; a joint the capsule cannot push
/// out now holds its place once the input rests (chain::vrm_hold), and it
/// rests within 3 s too.
#[test]
fn a_capsule_standing_on_the_first_joint_lets_every_preset_rest() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, params, still) in [
        ("tail", ChainParams::tail(1.0), 3.0),
        ("hair", ChainParams::hair(1.0), 3.0),
        ("vrm", ChainParams::vrm(1.0), 3.0),
    ] {
        for radius in [0.02, 0.05, 0.11, 0.2, 0.6, 1.5] {
            for off in [
                Vec3::new(0.0, -0.1, -0.02),
                Vec3::new(0.0, -0.1, -0.01),
                Vec3::new(0.0, -0.08, -0.02),
            ] {
                // The root inside: within the radius and the link's.
                if root_to_axis(ColliderShape::Capsule, off) >= radius + params.radius {
                    continue;
                }
                for hz in [30.0, 60.0, 144.0] {
                    runs += 1;
                    let rig = rig_at(params, ColliderShape::Capsule, radius, off);
                    let what = format!("{name} r = {radius} off = {off}");
                    failures.extend(still_moving(&rig, still, hz, &what));
                }
            }
        }
    }
    eprintln!("{runs} runs, {} moving", failures.len());
    assert!(runs > 120, "{runs} runs");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Three copies of a four-link hair strand hanging from the head, side by
/// side 4 cm apart, each over a capsule across its path (a shoulder or a
/// collar): the strand's rest pose passes through it, so it drapes over
/// it. The head sways ±1 cm and turns ±3° as a character idles.
fn draped(capsule: bool) -> Arc<Rig> {
    draped_with(ChainParams::hair(1.0), capsule)
}

/// [`draped`] with the strands on `params`.
fn draped_with(params: ChainParams, capsule: bool) -> Arc<Rig> {
    common::shared(draped_desc(params, capsule))
}

/// [`draped_with`]'s description.
fn draped_desc(params: ChainParams, capsule: bool) -> secmo::RigDesc {
    let mut desc = common::chain_rig(
        "head",
        1.5,
        |i| format!("strand0_{i}"),
        (Vec3::new(0.0, 0.05, -0.08), Vec3::new(0.0, -0.1, -0.02)),
        4,
        params,
    );
    for copy in 1..3 {
        let first = desc.bones.len() as u32;
        for i in 0..4 {
            let (parent, offset) = if i == 0 {
                (1, Vec3::new(0.04 * copy as f32, 0.05, -0.08))
            } else {
                (desc.bones.len() as i32 - 1, Vec3::new(0.0, -0.1, -0.02))
            };
            desc.bones.push(secmo::BoneDesc::new(
                format!("strand{copy}_{i}"),
                parent,
                Transform::from_translation(offset),
            ));
        }
        let mut chain = desc.chains[0].clone();
        chain.joints = (first..first + 4).collect();
        desc.chains.push(chain);
    }
    if capsule {
        let a = Vec3::new(-0.075, -0.2, -0.09);
        desc.colliders.push(Collider {
            bone: 1,
            shape: ColliderShape::Capsule,
            a,
            b: a + Vec3::new(0.23, 0.0, 0.0),
            radius: 0.05,
        });
        for chain in &mut desc.chains {
            chain.colliders = vec![0];
        }
    }
    desc
}

/// The joints of the strands and their tips in the head's frame (what the
/// eye sees on a head that sways) at every frame of 9 s of idling at `hz`.
fn idle(rig: &Arc<Rig>, hz: f32, kernel: secmo::ChainKernel) -> Vec<[[Vec3; 5]; 3]> {
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    c.set_chain_kernel(kernel).expect("a kernel this CPU runs");
    let mut pose: Vec<Transform> = rig.reference_pose().to_vec();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    (0..(9.0 * hz) as usize)
        .map(|f| {
            let t = f as f32 / hz;
            let tau = std::f32::consts::TAU;
            pose[1].translation = [
                0.01 * (0.3 * tau * t).sin(),
                1.5 + 0.003 * (0.5 * tau * t).sin(),
                0.0,
            ];
            pose[1].rotation =
                Quat::from_rotation_y(3f32.to_radians() * (0.25 * tau * t).sin()).to_array();
            let out = common::step(&mut c, 1.0 / hz, &pose);
            forward_kinematics(rig.parents(), &out, &mut component);
            let head = component[1].inverse();
            [2, 6, 10].map(|first| {
                core::array::from_fn(|k| {
                    let world = if k < 4 {
                        component[first + k].translation.into()
                    } else {
                        component[first + 3].transform_point3(Vec3::new(0.0, -0.1, -0.02))
                    };
                    head.transform_point3(world)
                })
            })
        })
        .collect()
}

/// The strands of [`draped`] in the head's frame at every frame of 2 s of
/// the head turning ±40° and 4 s still, at `hz`.
fn turn_then_rest(rig: &Arc<Rig>, hz: f32, kernel: secmo::ChainKernel) -> Vec<[[Vec3; 5]; 3]> {
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    c.set_chain_kernel(kernel).expect("a kernel this CPU runs");
    let mut pose: Vec<Transform> = rig.reference_pose().to_vec();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    (0..(6.0 * hz) as usize)
        .map(|f| {
            let t = f as f32 / hz;
            let yaw = if t < 2.0 {
                40f32.to_radians() * (t * std::f32::consts::PI * 1.5).sin()
            } else {
                0.0
            };
            pose[1].rotation = Quat::from_rotation_y(yaw).to_array();
            let out = common::step(&mut c, 1.0 / hz, &pose);
            forward_kinematics(rig.parents(), &out, &mut component);
            [2, 6, 10].map(|first| {
                core::array::from_fn(|k| {
                    if k < 4 {
                        component[first + k].translation.into()
                    } else {
                        component[first + 3].transform_point3(Vec3::new(0.0, -0.1, -0.02))
                    }
                })
            })
        })
        .collect()
}

/// Three strands draped over a capsule, stepped in lanes, come to rest
/// once the head stops, with the scalar kernel's bits: the static friction
/// that holds a resting contact (`chain::settle_friction`) runs alike in
/// both kernels, for the tail preset too. On the VRM
/// preset these strands settle on the capsule by themselves, so the result
/// does not hang on its hold (`chain::vrm_hold`); the buried strands of the
/// next test do.
#[test]
fn strands_draped_over_a_capsule_rest_alike_in_lanes_and_alone() {
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
        ("vrm", ChainParams::vrm(1.0)),
    ] {
        rest_alike_in_lanes_and_alone(&draped_with(params, true), name);
    }
}

/// [`turn_then_rest`] of the three strands of `rig` at 30, 60 and 144 Hz:
/// the lane kernel gives the scalar kernel's bits, and no tip moves 0.001
/// mm or more over the last frame.
fn rest_alike_in_lanes_and_alone(rig: &Arc<Rig>, name: &str) {
    for hz in [30.0, 60.0, 144.0] {
        let lanes = turn_then_rest(rig, hz, secmo::ChainKernel::detect());
        let scalar = turn_then_rest(rig, hz, secmo::ChainKernel::Scalar);
        assert!(lanes == scalar, "{name}, {hz} Hz: the kernels differ");
        let last = lanes.len() - 1;
        let moving = (0..3)
            .map(|s| lanes[last][s][4].distance(lanes[last - 1][s][4]))
            .fold(0.0f32, f32::max);
        assert!(
            moving < 1e-6,
            "{name}, {hz} Hz: a tip still moves {:.4} mm per frame",
            moving * 1e3
        );
    }
}

/// Three VRM strands of [`draped_with`], each buried in its own 1.5 m
/// capsule standing on its root as in [`rig_at`] (the axis 3 cm down the
/// first link and 4 mm aside), where three-vrm's push turns them round
/// their roots for ever: stepped in lanes they stop once the head does,
/// with the scalar kernel's bits (the hold, `chain::vrm_hold`, decides on
/// every joint of every substep once the input rests).
#[test]
fn vrm_strands_buried_in_capsules_stop_alike_in_lanes_and_alone() {
    let mut desc = draped_desc(ChainParams::vrm(1.0), false);
    let link = Vec3::new(0.0, -0.1, -0.02).normalize();
    let off = link * 0.03 + link.cross(Vec3::X).normalize() * 0.004;
    for (k, chain) in desc.chains.iter_mut().enumerate() {
        let centre = Vec3::new(0.04 * k as f32, 0.05, -0.08) + off;
        chain.colliders = vec![k as u32];
        desc.colliders.push(Collider {
            bone: 1,
            shape: ColliderShape::Capsule,
            a: centre,
            b: centre + Vec3::new(0.0, 0.15, 0.0),
            radius: 1.5,
        });
    }
    rest_alike_in_lanes_and_alone(&common::shared(desc), "vrm, buried");
}

/// After 3 s: the largest jump of a tip off the line through its
/// neighbouring frames (the second difference, m), how far the tips travel
/// (m), and the links' closest approach to the capsule's axis (m).
fn jumps_travel_and_clearance(strands: &[[[Vec3; 5]; 3]], hz: f32) -> (f32, f32, f32) {
    let start = (3.0 * hz) as usize;
    let (a, b) = (
        Vec3::new(-0.075, -0.2, -0.09),
        Vec3::new(0.155, -0.2, -0.09),
    );
    let (mut jump, mut travel, mut clearance) = (0.0f32, 0.0f32, f32::INFINITY);
    for f in start..strands.len() - 1 {
        for (s, strand) in strands[f].iter().enumerate() {
            let tip = |f: usize| strands[f][s][4];
            jump = jump.max((tip(f + 1) - 2.0 * tip(f) + tip(f - 1)).length());
            travel += tip(f).distance(tip(f + 1));
            for link in strand.windows(2) {
                let (u, v) =
                    secmo::solvers::collide::closest_segment_params(link[0], link[1], a, b);
                let gap = (link[0] + (link[1] - link[0]) * u).distance(a + (b - a) * v);
                clearance = clearance.min(gap);
            }
        }
    }
    (jump, travel, clearance)
}

#[test]
fn a_strand_draped_over_a_capsule_neither_sinks_through_nor_pops_as_the_character_idles() {
    // Without the shrunk shape, a link whose head sat on the capsule's surface (where
    // the link before left it, a hair inside or outside by rounding) was
    // tested whole on one side and by its tip alone on the other: the strand
    // sank through the capsule over a second and popped back out by 3 cm in
    // two frames, again and again.
    let kernel = secmo::ChainKernel::detect();
    for hz in [30.0, 60.0, 120.0] {
        let (free_jump, free_travel, _) =
            jumps_travel_and_clearance(&idle(&draped(false), hz, kernel), hz);
        let rig = draped(true);
        let strands = idle(&rig, hz, kernel);
        let (jump, travel, clearance) = jumps_travel_and_clearance(&strands, hz);
        println!(
            "{hz} Hz: largest jump {:.3} mm ({:.3} mm without the capsule), travel {:.1} mm \
             ({:.1} mm), closest link to the axis {:.1} mm",
            jump * 1e3,
            free_jump * 1e3,
            travel * 1e3,
            free_travel * 1e3,
            clearance * 1e3
        );
        // A resting contact still rattles a little (0.3 to 1.4 mm at the
        // tips, against 0.005 to 0.08 mm without the capsule), but nothing
        // pops.
        assert!(jump < 2e-3, "{hz} Hz: a tip jumps {:.2} mm", jump * 1e3);
        assert!(
            travel < 1.25 * free_travel,
            "{hz} Hz: the tips travel {:.1} mm, {:.1} mm without the capsule",
            travel * 1e3,
            free_travel * 1e3
        );
        // No link sinks into the capsule (5 cm, and the hair's 1 cm link
        // radius) by more than a millimetre of resting contact.
        assert!(
            clearance > 0.059,
            "{hz} Hz: a link comes {:.1} mm from the axis",
            clearance * 1e3
        );
        // The lane kernel (three strands in one block) gives the scalar
        // kernel's bits with the new contact rule.
        let scalar = idle(&rig, hz, secmo::ChainKernel::Scalar);
        assert!(scalar == strands, "{hz} Hz: the kernels differ");
    }
}

/// A strand a user might bring with its root inside a collider, from
/// `seed`: 3–8 links of 3–15 cm hanging from the head 1.5 m up, each
/// turned a random way down and back from the one before, with `params`;
/// a sphere or a capsule (up to 30 cm long) of radius 1 cm–1 m on the
/// head whose nearest point to the root lies within 97 % of the radius of
/// it; and the head's motion: a yaw of 5–60° at 0.5–2 Hz, a pitch of up
/// to 30° and a sway of up to 0.3 m, for 2 s, then still.
fn strand_in_a_collider(seed: u64, params: ChainParams) -> (Arc<Rig>, [f32; 4]) {
    let mut g = common::Numbers(seed);
    let links = 3 + (g.between(0.0, 6.0) as usize).min(5);
    let mut bones = vec![
        secmo::BoneDesc::new("root", -1, Transform::IDENTITY),
        secmo::BoneDesc::new(
            "head",
            0,
            Transform::from_translation(Vec3::new(0.0, 1.5, 0.0)),
        ),
    ];
    let first = Vec3::new(
        g.between(-0.05, 0.05),
        g.between(0.0, 0.1),
        g.between(-0.12, -0.04),
    );
    for i in 0..links {
        let offset = if i == 0 {
            first
        } else {
            let mut d = g.direction();
            d.y = -d.y.abs() - 0.3;
            d.z -= 0.2;
            d.normalize() * g.between(0.03, 0.15)
        };
        bones.push(secmo::BoneDesc::new(
            format!("strand_{i}"),
            (i + 1) as i32,
            Transform::from_translation(offset),
        ));
    }
    let shape = if g.between(0.0, 1.0) < 0.5 {
        ColliderShape::Sphere
    } else {
        ColliderShape::Capsule
    };
    let radius = 0.01 * 100f32.powf(g.between(0.0, 1.0));
    let a = first + g.direction() * radius * g.between(0.0, 0.97);
    let b = match shape {
        ColliderShape::Capsule => a + g.direction() * g.between(0.0, 0.3),
        _ => a,
    };
    let motion = common::random_head_motion(&mut g);
    let mut desc = common::strand_on_head(bones, params);
    desc.colliders.push(Collider {
        bone: 1,
        shape,
        a,
        b,
        radius,
    });
    desc.chains[0].colliders = vec![0];
    (common::shared(desc), motion)
}

/// Strands a user might bring, rooted inside a sphere or capsule of any
/// size (#13 item 4), come to rest within 3 s of the last input motion in
/// every preset, at 24, 60 and 144 Hz input. The first nine shapes are
/// those of a sweep of 3,600 (1,200 per preset, seeds 1, 11 and 23 of the
/// scratch test) that still moved 3 s after the stop without the settle
/// window: a hair strand in a 1.3 cm sphere creeping 0.014 mm per frame
/// and slower for 10 s more, a tail creeping over its sphere until 3.5 s,
/// and seven tails in 1 cm–82 cm spheres and capsules cycling for ever at
/// 0.02–2.3 mm per frame; then 19 shapes more.
#[test]
fn random_strands_rooted_inside_a_collider_come_to_rest_within_3_s() {
    let seeds = [
        1_100_127, 100_034, 100_082, 100_360, 1_100_239, 1_100_285, 2_300_077, 2_300_204, 2_300_420,
    ];
    let seeds = seeds.into_iter().chain(300_007..300_026);
    let (runs, failures) = common::strands_still_moving(seeds, strand_in_a_collider, 3.0);
    println!("{runs} runs, {} moving", failures.len());
    assert_eq!(runs, 252);
    assert!(failures.is_empty(), "{failures:#?}");
}
