//! The batch entry point (`update_batch`, `secmo_update_batch`; issue #14
//! item 3): many characters in one call, splittable into ranges; each item
//! gets its own result, a failing item changes nothing of its character and
//! does not stop the others, and a batch gives what one call per character
//! gives. Threads and helgrind: tests/cpp/concurrency.cpp; allocations:
//! tests/alloc.rs.

mod common;

use std::ffi::CStr;
use std::sync::Arc;

use glam::Quat;
use secmo::ffi::*;
use secmo::{update_batch, BatchItem, ChainParams, Character, FrameInput, Transform};

fn pose_at(rig: &secmo::Rig, k: usize, frame: usize) -> Vec<Transform> {
    let mut p = rig.reference_pose().to_vec();
    let t = frame as f32 / 60.0 + 0.3 * k as f32;
    p[1].rotation = Quat::from_rotation_y(0.7 * (3.0 * t).sin()).to_array();
    p
}

#[test]
fn a_batch_gives_what_one_call_per_character_gives_and_isolates_failures() {
    let rig = common::shared(common::tail_desc(4, ChainParams::tail(1.0)));
    let n = rig.bone_count();
    let mut one_by_one: Vec<Character> = (0..6)
        .map(|_| Character::new(Arc::clone(&rig), Default::default()))
        .collect();
    let mut batched: Vec<Character> = (0..6)
        .map(|_| Character::new(Arc::clone(&rig), Default::default()))
        .collect();
    for frame in 0..120 {
        let poses: Vec<Vec<Transform>> = (0..6).map(|k| pose_at(&rig, k, frame)).collect();
        let mut bad = poses[3].clone();
        if frame == 60 {
            bad[1].rotation = [f32::NAN; 4]; // character 3 fails this frame
        }
        let dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
        let mut expected = vec![vec![Transform::IDENTITY; n]; 6];
        for (k, (c, out)) in one_by_one.iter_mut().zip(&mut expected).enumerate() {
            let pose = if k == 3 { &bad } else { &poses[k] };
            let _ = c.update(
                &FrameInput {
                    dt,
                    pose,
                    teleport: false,
                },
                out,
            );
        }
        let mut outs = vec![vec![Transform::IDENTITY; n]; 6];
        let mut items: Vec<BatchItem<'_>> = batched
            .iter_mut()
            .zip(&mut outs)
            .enumerate()
            .map(|(k, (c, out))| {
                BatchItem::new(
                    c,
                    FrameInput {
                        dt,
                        pose: if k == 3 { &bad } else { &poses[k] },
                        teleport: false,
                    },
                    out,
                )
            })
            .collect();
        let (a, b) = items.split_at_mut(2);
        let failed = update_batch(a) + update_batch(b);
        assert_eq!(failed, usize::from(frame == 60), "frame {frame}");
        if frame == 60 {
            assert!(items[3].result.is_err());
        }
        drop(items);
        assert_eq!(outs, expected, "frame {frame}: batch = one call each");
    }
}

#[test]
fn the_c_batch_writes_each_result_and_refuses_bad_arguments() {
    let bones = common::tail_desc(4, ChainParams::tail(1.0)).bones;
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = bones.iter().map(|b| b.reference).collect();
    let desc = SecmoRigDesc {
        bone_count: bones.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        ..Default::default()
    };
    let mut rig = std::ptr::null_mut();
    let mut chars = [std::ptr::null_mut(); 3];
    // SAFETY: valid descriptors and out-pointers.
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        for c in &mut chars {
            assert_eq!(secmo_character_create(rig, std::ptr::null(), c), SECMO_OK);
        }
    }
    let mut bad_pose = reference.clone();
    bad_pose[1].translation[0] = f32::INFINITY;
    let inputs = [
        common::c_frame_input(&reference),
        common::c_frame_input(&bad_pose),
        common::c_frame_input(&reference),
    ];
    let mut outs = vec![vec![Transform::IDENTITY; bones.len()]; 3];
    let mut items: Vec<SecmoBatchItem> = (0..3)
        .map(|k| SecmoBatchItem {
            struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
            result: u32::MAX,
            character: chars[k],
            input: &inputs[k],
            out_pose: outs[k].as_mut_ptr(),
            out_pose_len: bones.len(),
            out_info: std::ptr::null_mut(),
        })
        .collect();
    items[2].struct_size = 12;
    // SAFETY: `items` holds 3 valid items.
    unsafe {
        let r = secmo_update_batch(items.as_mut_ptr(), 0, 3);
        assert_eq!(
            r, SECMO_ERROR_NON_FINITE_POSE,
            "the first failing item's code"
        );
        assert_eq!(items[0].result, SECMO_OK);
        assert_eq!(items[1].result, SECMO_ERROR_NON_FINITE_POSE);
        assert_eq!(items[2].result, SECMO_ERROR_STRUCT_SIZE);
        let message = CStr::from_ptr(secmo_last_error_message()).to_string_lossy();
        assert!(message.contains("items[2].struct_size"), "{message}");
        // A range runs only its items.
        items[0].result = u32::MAX;
        assert_eq!(secmo_update_batch(items.as_mut_ptr(), 2, 2), SECMO_OK);
        assert_eq!(items[0].result, u32::MAX);
        assert_eq!(
            secmo_update_batch(items.as_mut_ptr(), 2, 1),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            secmo_update_batch(std::ptr::null_mut(), 0, 1),
            SECMO_ERROR_NULL_POINTER
        );
        assert_eq!(secmo_update_batch(std::ptr::null_mut(), 0, 0), SECMO_OK);
        for c in chars {
            secmo_character_destroy(c);
        }
        secmo_rig_destroy(rig);
    }
}

/// Chains of different characters share the lane kernel's lanes in a batch
/// (`update_batch` runs the chain stages of up to BATCH_CHAINS_TOGETHER
/// items together). That must change no output bit against one
/// `Character::update` each on the scalar kernel, whatever mix the batch
/// holds: three rigs (a one-chain tail, three VRM strands, ten hair strands
/// with a collider, so in two blocks), more characters than run together,
/// one at 30 Hz beside 60 Hz ones (out of step), one on the scalar kernel,
/// one at half rate (LOD), one with its chain stage off, one failing an
/// update and one teleporting, each in its own place, size and wind.
#[test]
fn chains_of_different_characters_in_lanes_change_no_output_bit() {
    use secmo::{BoneDesc, ChainDesc, ChainKernel, Collider, ColliderShape, RigDesc, Stage};
    assert_eq!(secmo::BATCH_CHAINS_TOGETHER, 8);
    let strands = |count: usize, params: ChainParams, collider: bool| {
        let mut bones = vec![
            BoneDesc::new("root", -1, Transform::IDENTITY),
            BoneDesc::new(
                "head",
                0,
                Transform::from_translation(glam::Vec3::new(0.0, 1.6, 0.0)),
            ),
        ];
        let mut chains = Vec::new();
        for c in 0..count {
            let first = bones.len() as u32;
            let a = c as f32 * 1.3;
            for j in 0..3 + c % 3 {
                let offset = if j == 0 {
                    glam::Vec3::new(0.08 * a.sin(), 0.05, 0.08 * a.cos())
                } else {
                    glam::Vec3::new(0.0, -0.06, 0.01)
                };
                let parent = if j == 0 { 1 } else { bones.len() - 1 };
                bones.push(BoneDesc::new(
                    format!("s{c}_{j}"),
                    parent as i32,
                    Transform::from_translation(offset),
                ));
            }
            let mut chain = ChainDesc::new((first..bones.len() as u32).collect(), 1, params);
            if collider {
                chain.colliders = vec![0];
            }
            chains.push(chain);
        }
        common::shared(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders: if collider {
                vec![Collider {
                    bone: 1,
                    shape: ColliderShape::Sphere,
                    a: glam::Vec3::new(0.0, -0.05, 0.0),
                    b: glam::Vec3::ZERO,
                    radius: 0.12,
                }]
            } else {
                Vec::new()
            },
            chains,
            ..Default::default()
        })
    };
    let rigs = [
        common::shared(common::tail_desc(4, ChainParams::tail(1.0))),
        strands(3, ChainParams::vrm(1.0), false),
        strands(10, ChainParams::hair(1.0), true),
    ];
    const COUNT: usize = 11;
    // Four tails, four VRM characters, three with hair: neighbours share a
    // rig, so their chains share lanes.
    let rig_of = |k: usize| &rigs[k / 4];
    // The reference runs every character alone on the scalar kernel, which
    // the lane kernel matches bit for bit (tests/sweeps.rs).
    let make = |reference: bool| -> Vec<Character> {
        (0..COUNT)
            .map(|k| {
                let mut c = Character::new(Arc::clone(rig_of(k)), Default::default());
                if k == 4 || reference {
                    c.set_chain_kernel(ChainKernel::Scalar).unwrap();
                }
                // Each in its own place, size and wind.
                c.set_world_transform(Transform::new(
                    glam::Vec3::new(3.0 * k as f32, 0.0, -2.0),
                    Quat::from_rotation_y(0.4 * k as f32),
                    glam::Vec3::splat(0.8 + 0.05 * k as f32),
                ))
                .unwrap();
                c.set_wind(glam::Vec3::new(0.5 * k as f32, 0.0, 0.2))
                    .unwrap();
                if k == 5 {
                    for ci in 0..rig_of(k).chains().len() {
                        let mut p = *c.chain_params(ci).unwrap();
                        p.lod_half_below = 0.5;
                        c.set_chain_params(ci, p).unwrap();
                    }
                    c.set_importance(0.3).unwrap();
                }
                if k == 7 {
                    c.set_stage_enabled(Stage::Chains, false);
                }
                c
            })
            .collect()
    };
    let (mut one_by_one, mut batched) = (make(true), make(false));
    let pose = |k: usize, frame: usize| {
        let rig = rig_of(k);
        let mut p = rig.reference_pose().to_vec();
        let t = frame as f32 / 60.0 + 0.3 * k as f32;
        p[1].rotation = Quat::from_rotation_y(0.9 * (3.0 * t).sin()).to_array();
        p[1].translation[0] += 0.2 * (2.0 * t).sin();
        if k == 9 && frame == 50 {
            p[1].rotation = [f32::NAN; 4]; // character 9 fails this update
        }
        p
    };
    let mut moved = 0f32;
    for frame in 0..180 {
        let inputs: Vec<(Vec<Transform>, f32, bool)> = (0..COUNT)
            .map(|k| {
                let dt = match (frame, k) {
                    (0, _) => 0.0,
                    (_, 2) => 1.0 / 30.0,
                    _ => 1.0 / 60.0,
                };
                (pose(k, frame), dt, k == 6 && frame == 90)
            })
            .collect();
        let mut expected: Vec<Vec<Transform>> = (0..COUNT)
            .map(|k| vec![Transform::IDENTITY; rig_of(k).bone_count()])
            .collect();
        let mut expected_ok = Vec::new();
        for (c, (out, (p, dt, teleport))) in
            one_by_one.iter_mut().zip(expected.iter_mut().zip(&inputs))
        {
            let input = FrameInput {
                dt: *dt,
                pose: p,
                teleport: *teleport,
            };
            expected_ok.push(c.update(&input, out).is_ok());
        }
        let mut outs = expected
            .iter()
            .map(|e| vec![Transform::IDENTITY; e.len()])
            .collect::<Vec<_>>();
        let mut items: Vec<BatchItem<'_>> = batched
            .iter_mut()
            .zip(&mut outs)
            .zip(&inputs)
            .map(|((c, out), (p, dt, teleport))| {
                BatchItem::new(
                    c,
                    FrameInput {
                        dt: *dt,
                        pose: p,
                        teleport: *teleport,
                    },
                    out,
                )
            })
            .collect();
        let failed = update_batch(&mut items);
        let ok: Vec<bool> = items.iter().map(|i| i.result.is_ok()).collect();
        drop(items);
        assert_eq!(ok, expected_ok, "update {frame}");
        assert_eq!(failed, usize::from(frame == 50), "update {frame}");
        for k in 0..COUNT {
            if !ok[k] {
                continue;
            }
            assert_eq!(outs[k], expected[k], "update {frame}, character {k}");
            let rest = rig_of(k).reference_pose();
            for (o, r) in outs[k].iter().zip(rest) {
                moved = moved
                    .max(Quat::from_array(o.rotation).angle_between(Quat::from_array(r.rotation)));
            }
        }
    }
    // And the states match too: one more update of each from a snapshot.
    for (a, b) in one_by_one.iter().zip(&batched) {
        let (mut sa, mut sb) = (vec![0u8; a.snapshot_size()], vec![0u8; b.snapshot_size()]);
        a.snapshot(&mut sa).unwrap();
        b.snapshot(&mut sb).unwrap();
        assert_eq!(
            sa, sb,
            "the batched character's state is the one-by-one one's"
        );
    }
    assert!(moved > 0.3, "the chains swing ({moved} rad)");
}

/// `secmo_update_batch` runs the chain stages of up to 8 consecutive items
/// together too: through the C ABI, a batch of 11 tailed characters (one
/// updated in place, one with its own world each frame, one failing an
/// update, one item of a wrong struct size) gives every output, info and
/// result bit of one `secmo_character_update` per character.
#[test]
fn the_c_batch_shares_lanes_and_gives_what_one_call_each_gives() {
    const COUNT: usize = 11;
    let (reference, n) = tail_reference();
    let rig = common::c_tail_rig(std::ptr::null());
    let (mut alone, mut batched) = ([std::ptr::null_mut(); COUNT], [std::ptr::null_mut(); COUNT]);
    // SAFETY: a valid rig and out-pointers; handles destroyed below.
    unsafe {
        for c in alone.iter_mut().chain(batched.iter_mut()) {
            assert_eq!(secmo_character_create(rig, std::ptr::null(), c), SECMO_OK);
        }
    }
    let info = || SecmoUpdateInfo {
        struct_size: std::mem::size_of::<SecmoUpdateInfo>() as u32,
        max_substeps: u32::MAX,
        snapped_springs: u32::MAX,
        warnings: u32::MAX,
        joint_substeps: u32::MAX,
    };
    let pose_rig = secmo::Rig::new(common::tail_desc(4, ChainParams::tail(1.0))).unwrap();
    let mut swing = 0f32;
    for frame in 0..150 {
        let poses: Vec<Vec<Transform>> = (0..COUNT)
            .map(|k| {
                let mut p = pose_at(&pose_rig, k, frame);
                if k == 5 && frame == 70 {
                    p[1].translation[0] = f32::NAN; // fails this update
                }
                p
            })
            .collect();
        let inputs: Vec<SecmoFrameInput> = (0..COUNT)
            .map(|k| {
                let mut input = common::c_frame_input(&poses[k]);
                input.dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
                if k == 3 {
                    input.flags |= SECMO_FRAME_HAS_WORLD;
                    input.world = Transform::new(
                        glam::Vec3::new(0.02 * frame as f32, 0.0, 1.0),
                        Quat::from_rotation_y(0.01 * frame as f32),
                        glam::Vec3::splat(1.5),
                    );
                }
                input
            })
            .collect();
        // One call each; character 7 in place.
        let mut expected = poses.clone();
        let mut expected_info: Vec<SecmoUpdateInfo> = (0..COUNT).map(|_| info()).collect();
        let mut expected_result = Vec::new();
        for k in 0..COUNT {
            // SAFETY: valid handles, inputs and buffers of the rig's length.
            expected_result.push(unsafe {
                secmo_character_update(
                    alone[k],
                    &inputs[k],
                    expected[k].as_mut_ptr(),
                    n,
                    &mut expected_info[k],
                )
            });
        }
        let mut in_place = poses[7].clone();
        let mut in_place_input = inputs[7];
        in_place_input.pose = in_place.as_ptr();
        let mut outs = vec![vec![Transform::IDENTITY; n]; COUNT];
        let mut infos: Vec<SecmoUpdateInfo> = (0..COUNT).map(|_| info()).collect();
        let mut items: Vec<SecmoBatchItem> = (0..COUNT)
            .map(|k| SecmoBatchItem {
                struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
                result: u32::MAX,
                character: batched[k],
                input: if k == 7 { &in_place_input } else { &inputs[k] },
                out_pose: if k == 7 {
                    in_place.as_mut_ptr()
                } else {
                    outs[k].as_mut_ptr()
                },
                out_pose_len: n,
                out_info: &mut infos[k],
            })
            .collect();
        let wrong_size = frame == 40;
        if wrong_size {
            items[9].struct_size = 12;
        }
        // SAFETY: `items` holds COUNT valid items.
        let status = unsafe { secmo_update_batch(items.as_mut_ptr(), 0, COUNT) };
        for k in 0..COUNT {
            let result = items[k].result;
            if k == 9 && wrong_size {
                assert_eq!(result, SECMO_ERROR_STRUCT_SIZE);
                // The character was not updated: run it alone to stay in step.
                // SAFETY: as above.
                unsafe {
                    secmo_character_update(
                        batched[9],
                        &inputs[9],
                        outs[9].as_mut_ptr(),
                        n,
                        &mut infos[9],
                    );
                }
                continue;
            }
            assert_eq!(result, expected_result[k], "update {frame}, item {k}");
            if result != SECMO_OK {
                continue;
            }
            let out = if k == 7 { &in_place } else { &outs[k] };
            assert_eq!(out, &expected[k], "update {frame}, item {k}");
            assert_eq!(infos[k].warnings, expected_info[k].warnings);
            assert_eq!(infos[k].max_substeps, expected_info[k].max_substeps);
            for (o, r) in out.iter().zip(&reference) {
                swing = swing
                    .max(Quat::from_array(o.rotation).angle_between(Quat::from_array(r.rotation)));
            }
        }
        let first_failure = items
            .iter()
            .map(|i| i.result)
            .find(|&r| r != SECMO_OK)
            .unwrap_or(SECMO_OK);
        assert_eq!(status, first_failure, "update {frame}");
        assert_eq!(
            status != SECMO_OK,
            frame == 40 || frame == 70,
            "update {frame}"
        );
    }
    assert!(swing > 0.2, "the tails swing ({swing} rad)");
    // SAFETY: handles made above, destroyed once.
    unsafe {
        for c in alone.into_iter().chain(batched) {
            secmo_character_destroy(c);
        }
        secmo_rig_destroy(rig);
    }
}

/// A C array that lists one character twice breaks the once-per-batch rule
/// but stays defined: the character is updated twice, one update after the
/// other, exactly as two `secmo_character_update` calls would (the window of
/// items whose chains run together ends before a character it holds).
#[test]
fn a_character_listed_twice_in_a_c_batch_is_updated_twice_in_order() {
    let (_, n) = tail_reference();
    let pose_rig = secmo::Rig::new(common::tail_desc(4, ChainParams::tail(1.0))).unwrap();
    let rig = common::c_tail_rig(std::ptr::null());
    let (mut a, mut b, mut other) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    // SAFETY: a valid rig and out-pointers; handles destroyed below.
    unsafe {
        for c in [&mut a, &mut b, &mut other] {
            assert_eq!(secmo_character_create(rig, std::ptr::null(), c), SECMO_OK);
        }
    }
    for frame in 0..60 {
        // `a` alone: two calls; `b` in a batch listing it twice, around
        // another character.
        let first = pose_at(&pose_rig, 0, 2 * frame);
        let second = pose_at(&pose_rig, 0, 2 * frame + 1);
        let (in1, in2) = (
            common::c_frame_input(&first),
            common::c_frame_input(&second),
        );
        let mut expected = [vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]];
        let mut outs = [
            vec![Transform::IDENTITY; n],
            vec![Transform::IDENTITY; n],
            vec![Transform::IDENTITY; n],
        ];
        let item = |character, input: &SecmoFrameInput, out: &mut Vec<Transform>| SecmoBatchItem {
            struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
            result: u32::MAX,
            character,
            input,
            out_pose: out.as_mut_ptr(),
            out_pose_len: n,
            out_info: std::ptr::null_mut(),
        };
        let [o0, o1, o2] = &mut outs;
        let mut items = [item(b, &in1, o0), item(other, &in1, o1), item(b, &in2, o2)];
        // SAFETY: valid handles, inputs and buffers.
        unsafe {
            let [e0, e1] = &mut expected;
            for (input, out) in [(&in1, e0), (&in2, e1)] {
                let r = secmo_character_update(a, input, out.as_mut_ptr(), n, std::ptr::null_mut());
                assert_eq!(r, SECMO_OK);
            }
            assert_eq!(secmo_update_batch(items.as_mut_ptr(), 0, 3), SECMO_OK);
        }
        assert!(items.iter().all(|i| i.result == SECMO_OK));
        assert_eq!(outs[0], expected[0], "update {frame}: the first of the two");
        assert_eq!(
            outs[2], expected[1],
            "update {frame}: the second of the two"
        );
    }
    // SAFETY: handles made above, destroyed once.
    unsafe {
        for c in [a, b, other] {
            secmo_character_destroy(c);
        }
        secmo_rig_destroy(rig);
    }
}

/// The 4-joint tail rig's reference pose and bone count.
fn tail_reference() -> (Vec<Transform>, usize) {
    let bones = common::tail_desc(4, ChainParams::tail(1.0)).bones;
    let reference: Vec<Transform> = bones.iter().map(|b| b.reference).collect();
    let n = reference.len();
    (reference, n)
}

/// Every collider shape gives the same bits in a batch as alone, whatever
/// shares the lane block: two one-joint hair strands, each against small
/// inside spheres (which cannot all hold the particle, so the two collision
/// passes keep pushing), an inside capsule and a plane, driven by random
/// head motion. A strand's second collision pass must not depend on whether
/// its neighbour in the block needed one.
#[test]
fn inside_and_plane_colliders_give_the_same_bits_in_a_batch_as_alone() {
    use glam::Vec3;
    use secmo::{BoneDesc, ChainDesc, Collider, ColliderShape, RigDesc};
    let rig = |seed: u64, preset: fn(f32) -> ChainParams, spheres: usize, joints: usize| {
        let mut g = common::Numbers(seed);
        let bones = vec![
            BoneDesc::new("root", -1, Transform::IDENTITY),
            BoneDesc::new(
                "head",
                0,
                Transform::from_translation(Vec3::new(0.0, 1.6, 0.0)),
            ),
            BoneDesc::new(
                "s0",
                1,
                Transform::from_translation(Vec3::new(0.0, -0.05, 0.02)),
            ),
            BoneDesc::new(
                "s1",
                2,
                Transform::from_translation(Vec3::new(0.0, -0.12, 0.03)),
            ),
        ];
        let mut colliders = Vec::new();
        for _ in 0..spheres {
            colliders.push(Collider {
                bone: 1,
                shape: ColliderShape::InsideSphere,
                a: Vec3::new(0.0, -0.17, 0.05) + 0.1 * g.direction(),
                b: Vec3::ZERO,
                radius: g.between(0.03, 0.06),
            });
        }
        colliders.push(Collider {
            bone: 1,
            shape: ColliderShape::InsideCapsule,
            a: Vec3::new(-0.05, -0.1, 0.0),
            b: Vec3::new(0.05, -0.2, 0.06),
            radius: g.between(0.06, 0.1),
        });
        colliders.push(Collider {
            bone: 1,
            shape: ColliderShape::Plane,
            a: Vec3::new(0.0, -0.16, 0.0),
            b: g.direction() + Vec3::Y,
            radius: 0.0,
        });
        let mut chain = ChainDesc::new((2..2 + joints as u32).collect(), 1, preset(1.0));
        chain.colliders = (0..colliders.len() as u32).collect();
        common::shared(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders,
            chains: vec![chain],
            ..Default::default()
        })
    };
    let presets: [fn(f32) -> ChainParams; 3] =
        [ChainParams::hair, ChainParams::tail, ChainParams::vrm];
    let mut worst = 0f32;
    for (p, preset) in presets.iter().enumerate() {
        let rigs = [
            rig(11 + p as u64, *preset, 3, 1),
            rig(29 + p as u64, *preset, 4, 1),
            rig(5 + p as u64, *preset, 4, 2),
        ];
        let make = || -> Vec<Character> {
            rigs.iter()
                .map(|r| Character::new(Arc::clone(r), Default::default()))
                .collect()
        };
        let (mut alone, mut batched) = (make(), make());
        let mut g = common::Numbers(7 + p as u64);
        for frame in 0..3000 {
            let inputs: Vec<Vec<Transform>> = rigs
                .iter()
                .map(|r| {
                    let mut pose = r.reference_pose().to_vec();
                    pose[1].rotation =
                        Quat::from_scaled_axis(g.direction() * g.between(0.0, 1.2)).to_array();
                    pose[1].translation[0] = g.between(-0.2, 0.2);
                    pose
                })
                .collect();
            let dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
            let mut expected: Vec<Vec<Transform>> = rigs
                .iter()
                .map(|r| vec![Transform::IDENTITY; r.bone_count()])
                .collect();
            for ((c, out), pose) in alone.iter_mut().zip(&mut expected).zip(&inputs) {
                c.update(
                    &FrameInput {
                        dt,
                        pose,
                        teleport: false,
                    },
                    out,
                )
                .unwrap();
            }
            let mut outs = expected.clone();
            let mut items: Vec<BatchItem<'_>> = batched
                .iter_mut()
                .zip(&mut outs)
                .zip(&inputs)
                .map(|((c, out), pose)| {
                    BatchItem::new(
                        c,
                        FrameInput {
                            dt,
                            pose,
                            teleport: false,
                        },
                        out,
                    )
                })
                .collect();
            assert_eq!(update_batch(&mut items), 0);
            drop(items);
            for (k, (o, e)) in outs.iter().zip(&expected).enumerate() {
                for (a, b) in o.iter().zip(e) {
                    for i in 0..4 {
                        worst = worst.max((a.rotation[i] - b.rotation[i]).abs());
                    }
                }
                assert_eq!(
                    o, e,
                    "preset {p}, update {frame}, character {k}: worst {worst}"
                );
            }
        }
    }
}

/// Two chains of one character share a collider, and a head turn moves one
/// chain's root past its teleport distance while the other's stays: the
/// chain that jumped reads the collider where it is now, the other at the
/// substep's fraction. Such chains must not share lanes (a character's
/// lanes share its placed colliders). Before, they did when the character
/// was updated alone, and not in a batch beside a character at another dt:
/// batch and serial differed on the chain that did not jump (with any
/// collider shape), and so did the lane and scalar kernels.
#[test]
fn chains_that_jump_apart_give_the_same_bits_alone_in_a_batch_and_in_every_kernel() {
    use glam::Vec3;
    use secmo::ChainKernel;
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let parents = [-1i32, 0, 1, 1];
    let reference = [
        t(0.0, 0.0, 0.0),
        t(0.0, 1.5, 0.0),
        t(0.0, 0.1, 0.0),
        t(1.5, 0.0, 0.0),
    ];
    for shape in [
        SECMO_COLLIDER_SPHERE,
        SECMO_COLLIDER_PLANE,
        SECMO_COLLIDER_INSIDE_SPHERE,
    ] {
        let colliders = [SecmoColliderDesc {
            struct_size: std::mem::size_of::<SecmoColliderDesc>() as u32,
            shape,
            bone: 1,
            a: [0.03, 0.2, 0.0],
            b: [0.0, 1.0, 0.0],
            radius: 0.05,
        }];
        let (j0, j1, col) = ([2u32], [3u32], [0u32]);
        let chain = |j: &[u32; 1]| SecmoChainDesc {
            anchor: 1,
            joints: j.as_ptr(),
            joint_count: 1,
            preset: SECMO_CHAIN_HAIR,
            colliders: col.as_ptr(),
            collider_count: 1,
            ..Default::default()
        };
        let chains = [chain(&j0), chain(&j1)];
        let desc = SecmoRigDesc {
            bone_count: 4,
            parents: parents.as_ptr(),
            reference_pose: reference.as_ptr(),
            colliders: colliders.as_ptr(),
            collider_count: 1,
            chains: chains.as_ptr(),
            chain_count: 2,
            ..Default::default()
        };
        let input = |pose: &[Transform], dt: f32| SecmoFrameInput {
            struct_size: std::mem::size_of::<SecmoFrameInput>() as u32,
            flags: 0,
            dt,
            pose: pose.as_ptr(),
            pose_len: 4,
            world: Transform::IDENTITY,
            importance: 1.0,
        };
        // SAFETY: valid descriptors and buffers; handles destroyed below.
        unsafe {
            let mut rig = std::ptr::null_mut();
            let [mut x, mut y, mut y_alone] = [std::ptr::null_mut(); 3];
            assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
            for c in [&mut x, &mut y, &mut y_alone] {
                assert_eq!(secmo_character_create(rig, std::ptr::null(), c), SECMO_OK);
            }
            // The same rig through the Rust API on each kernel.
            let rust_rig = {
                use secmo::{BoneDesc, ChainDesc, Collider, ColliderShape, RigDesc};
                let bones = (0..4)
                    .map(|b| BoneDesc::new(format!("b{b}"), parents[b], reference[b]))
                    .collect();
                let shape = match shape {
                    SECMO_COLLIDER_SPHERE => ColliderShape::Sphere,
                    SECMO_COLLIDER_PLANE => ColliderShape::Plane,
                    _ => ColliderShape::InsideSphere,
                };
                let chains = [2u32, 3]
                    .map(|j| {
                        let mut c = ChainDesc::new(vec![j], 1, ChainParams::hair(1.0));
                        c.colliders = vec![0];
                        c
                    })
                    .to_vec();
                common::shared(RigDesc {
                    bones,
                    units_per_meter: 1.0,
                    colliders: vec![Collider {
                        bone: 1,
                        shape,
                        a: Vec3::new(0.03, 0.2, 0.0),
                        b: Vec3::Y,
                        radius: 0.05,
                    }],
                    chains,
                    ..Default::default()
                })
            };
            let mut kernels: Vec<Character> = [
                ChainKernel::Scalar,
                ChainKernel::Lanes,
                ChainKernel::LanesAvx2,
            ]
            .iter()
            .filter(|k| k.supported())
            .map(|&k| {
                let mut c = Character::new(Arc::clone(&rust_rig), Default::default());
                c.set_chain_kernel(k).unwrap();
                c
            })
            .collect();
            let mut moved = 0f32;
            for frame in 0..40 {
                let mut pose = reference.to_vec();
                let turn = if frame == 0 {
                    0.0
                } else {
                    45f32.to_radians() * (frame % 2) as f32
                };
                pose[1].rotation = Quat::from_rotation_z(turn).to_array();
                let dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
                let (ix, iy) = (input(&pose, 2.0 * dt), input(&pose, dt));
                let (mut alone, mut ox, mut oy) =
                    (reference.to_vec(), reference.to_vec(), reference.to_vec());
                let r = secmo_character_update(
                    y_alone,
                    &iy,
                    alone.as_mut_ptr(),
                    4,
                    std::ptr::null_mut(),
                );
                assert_eq!(r, SECMO_OK);
                let item = |c, i: &SecmoFrameInput, o: &mut Vec<Transform>| SecmoBatchItem {
                    struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
                    result: u32::MAX,
                    character: c,
                    input: i,
                    out_pose: o.as_mut_ptr(),
                    out_pose_len: 4,
                    out_info: std::ptr::null_mut(),
                };
                let mut items = [item(x, &ix, &mut ox), item(y, &iy, &mut oy)];
                assert_eq!(secmo_update_batch(items.as_mut_ptr(), 0, 2), SECMO_OK);
                assert_eq!(
                    alone, oy,
                    "shape {shape}, frame {frame}: alone against in a batch"
                );
                for c in &mut kernels {
                    let mut out = reference.to_vec();
                    c.update(
                        &FrameInput {
                            dt,
                            pose: &pose,
                            teleport: false,
                        },
                        &mut out,
                    )
                    .unwrap();
                    assert_eq!(
                        out,
                        alone,
                        "shape {shape}, frame {frame}: kernel {:?}",
                        c.chain_kernel()
                    );
                }
                moved =
                    moved.max(Quat::from_array(alone[2].rotation).angle_between(Quat::IDENTITY));
            }
            assert!(moved > 0.1, "the near chain swings ({moved} rad)");
            for c in [x, y, y_alone] {
                secmo_character_destroy(c);
            }
            secmo_rig_destroy(rig);
        }
    }
}
