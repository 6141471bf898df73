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
