//! Random call sequences through the C ABI on one character: updates with
//! any pose, dt, flags, lengths and world transform; wind; chain parameters;
//! importance; stage toggles; reset; snapshots restored after a byte flip.
//! Invariants: no panic (libFuzzer aborts on one, even a caught one), every
//! `SECMO_OK` update writes a finite pose, and a failed call leaves the
//! character's snapshot unchanged.

#![no_main]

mod common;

use std::sync::Arc;

use common::Cursor;
use libfuzzer_sys::fuzz_target;
use secmo::ffi::*;
use secmo::Transform;

fn last_error() -> String {
    // SAFETY: the library returns a NUL-terminated thread-local string.
    unsafe { std::ffi::CStr::from_ptr(secmo_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn snapshot(ch: *const SecmoCharacter) -> Vec<u8> {
    let mut written = 0usize;
    let mut size = 0usize;
    let r = unsafe { secmo_character_snapshot_size(ch, &mut size) };
    assert_eq!(r, SECMO_OK);
    let mut buf = vec![0u8; size];
    let r = unsafe { secmo_character_snapshot(ch, buf.as_mut_ptr(), buf.len(), &mut written) };
    assert_eq!(r, SECMO_OK, "a character's own snapshot");
    buf
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor { data };
    let rig = Arc::new(secmo::Rig::new(common::rig_desc()).unwrap());
    let n = rig.bone_count();
    let parents: Vec<i32> = rig.parents().to_vec();
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    // SAFETY: a plain-number C struct; the preset fills it.
    let mut tail: SecmoChainParams = unsafe { std::mem::zeroed() };
    unsafe { secmo_chain_params_tail(1.0, &mut tail) };
    let joints = [6u32, 7, 8, 9];
    let colliders_of_chain = [0u32, 1];
    let colliders = [
        SecmoColliderDesc {
            struct_size: std::mem::size_of::<SecmoColliderDesc>() as u32,
            shape: SECMO_COLLIDER_SPHERE,
            bone: 2,
            a: [0.0; 3],
            b: [0.0; 3],
            radius: 0.1,
        },
        SecmoColliderDesc {
            struct_size: std::mem::size_of::<SecmoColliderDesc>() as u32,
            shape: SECMO_COLLIDER_CAPSULE,
            bone: 1,
            a: [-0.1, -0.3, 0.0],
            b: [0.1, -0.3, 0.0],
            radius: 0.08,
        },
    ];
    let chain = SecmoChainDesc {
        struct_size: std::mem::size_of::<SecmoChainDesc>() as u32,
        anchor: 1,
        joints: joints.as_ptr(),
        joint_count: 4,
        preset: SECMO_CHAIN_TAIL,
        params: &tail,
        radii: std::ptr::null(),
        weights: std::ptr::null(),
        colliders: colliders_of_chain.as_ptr(),
        collider_count: 2,
        has_end_offset: 0,
        end_offset: [0.0; 3],
    };
    // SAFETY: a plain-number C struct; the preset fills it.
    let mut springs: [SecmoSpringDesc; 1] = unsafe { std::mem::zeroed() };
    unsafe { secmo_spring_desc_hip(4, 1.0, &mut springs[0]) };
    // The spine follows the hips halfway (a VRM rotation constraint).
    let node_constraint = SecmoNodeConstraintDesc {
        struct_size: std::mem::size_of::<SecmoNodeConstraintDesc>() as u32,
        kind: SECMO_NODE_CONSTRAINT_ROTATION,
        source: 1,
        destination: 2,
        axis: 0,
        weight: 0.5,
    };
    let desc = SecmoRigDesc {
        bone_count: n as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 1.0,
        springs: springs.as_ptr(),
        spring_count: 1,
        colliders: colliders.as_ptr(),
        collider_count: 2,
        chains: &chain,
        chain_count: 1,
        node_constraints: &node_constraint,
        node_constraint_count: 1,
        ..Default::default()
    };
    let (mut crig, mut ch) = (std::ptr::null_mut(), std::ptr::null_mut());
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut crig), SECMO_OK);
        assert_eq!(
            secmo_character_create(crig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
    }
    let mut pose = reference.clone();
    let mut out = reference.clone();
    let mut steps = 0;
    while !c.is_empty() && steps < 64 {
        steps += 1;
        let before = snapshot(ch);
        let result = match c.u8() % 8 {
            0 | 1 | 2 => {
                // An update: move a few bones by fuzzed amounts.
                for _ in 0..c.u8() % 4 {
                    let b = c.u8() as usize % n;
                    match c.u8() % 3 {
                        0 => pose[b].translation = [c.f32(), c.f32(), c.f32()],
                        1 => pose[b].rotation = [c.f32(), c.f32(), c.f32(), c.f32()],
                        _ => pose[b].scale = [c.f32(), c.f32(), c.f32()],
                    }
                }
                let dt = match c.u8() % 4 {
                    0 => c.raw_f32(),
                    _ => (c.u8() as f32) / 1000.0,
                };
                let flags = c.u8() as u32 & 7;
                let world = Transform::new(
                    glam::Vec3::new(c.f32(), c.f32(), c.f32()),
                    glam::Quat::from_array([c.f32(), c.f32(), c.f32(), c.f32()]),
                    glam::Vec3::splat(1.0 + c.f32().abs()),
                );
                let pose_len = if c.u8() % 16 == 0 {
                    c.u32() as usize
                } else {
                    n
                };
                let input = SecmoFrameInput {
                    struct_size: if c.u8() % 32 == 0 {
                        c.u32()
                    } else {
                        std::mem::size_of::<SecmoFrameInput>() as u32
                    },
                    flags,
                    dt,
                    pose: pose.as_ptr(),
                    pose_len: pose_len.min(n),
                    world,
                    importance: c.f32(),
                };
                let r = if c.u8() % 2 == 0 {
                    unsafe {
                        secmo_character_update(
                            ch,
                            &input,
                            out.as_mut_ptr(),
                            n,
                            std::ptr::null_mut(),
                        )
                    }
                } else {
                    // The same update through the batch entry point.
                    let mut items = [SecmoBatchItem {
                        struct_size: if c.u8() % 32 == 0 {
                            c.u32()
                        } else {
                            std::mem::size_of::<SecmoBatchItem>() as u32
                        },
                        result: u32::MAX,
                        character: ch,
                        input: &input,
                        out_pose: out.as_mut_ptr(),
                        out_pose_len: n,
                        out_info: std::ptr::null_mut(),
                    }];
                    let r = unsafe { secmo_update_batch(items.as_mut_ptr(), 0, 1) };
                    assert_eq!(
                        r, items[0].result,
                        "the batch returns its only item's result"
                    );
                    r
                };
                if r == SECMO_OK {
                    assert!(
                        out.iter().all(Transform::is_finite),
                        "Ok with a non-finite output"
                    );
                }
                r
            }
            3 => {
                let wind = [c.f32(), c.f32(), c.f32()];
                unsafe { secmo_character_set_wind(ch, &wind) }
            }
            4 => {
                let mut p = tail;
                p.integrator = c.u8() as u32 % 4; // spring, exponential, VRM, invalid
                p.vrm_drag_force = c.f32();
                p.gravity = c.f32();
                p.time_factor = c.f32();
                p.wind_factor = c.f32();
                p.radius = c.f32();
                unsafe { secmo_character_set_chain_params(ch, 0, &p) }
            }
            5 => {
                // Restore the current snapshot with one byte changed,
                // sometimes resealed.
                let mut snap = before.clone();
                let at = c.u32() as usize % snap.len();
                snap[at] ^= c.u8() | 1;
                if c.u8() % 2 == 0 {
                    let _ = secmo::reseal_snapshot(&mut snap);
                }
                unsafe { secmo_character_restore(ch, snap.as_ptr(), snap.len()) }
            }
            6 => unsafe {
                secmo_character_set_stage_enabled(ch, c.u8() as u32 % 5, c.u8() as u32 % 2)
            },
            _ => unsafe { secmo_character_reset(ch) },
        };
        if result != SECMO_OK && result != SECMO_ERROR_SNAPSHOT {
            assert_eq!(snapshot(ch), before, "a failed call changed the state");
        }
        assert_ne!(result, SECMO_ERROR_PANIC, "a panic reached the boundary");
    }
    // The character's own snapshot always restores.
    let snap = snapshot(ch);
    unsafe {
        let r = secmo_character_restore(ch, snap.as_ptr(), snap.len());
        assert_eq!(r, SECMO_OK, "own snapshot refused: {}", last_error());
        secmo_character_destroy(ch);
        secmo_rig_destroy(crig);
    }
});
