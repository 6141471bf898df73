//! Random call sequences through the C ABI on three characters, each with a
//! twin: updates with any pose, dt, flags, lengths and world transform;
//! wind; chain parameters; importance; stage toggles; reset; snapshots
//! restored after a byte flip. The three run their updates through one
//! `secmo_update_batch` call (their chains share the lane kernel's lanes),
//! their twins through one `secmo_character_update` each.
//! Invariants: no panic (libFuzzer aborts on one, even a caught one), every
//! `SECMO_OK` update writes a finite pose, a failed call leaves the
//! character's snapshot unchanged, and a character and its twin give the
//! same result, the same output bits and the same snapshot after every call
//! (batch ≡ serial, whatever the batch's composition and lane positions).

#![no_main]

mod common;

use std::sync::Arc;

use common::{bits, c_rig, last_error, snapshot, Cursor};
use libfuzzer_sys::fuzz_target;
use secmo::ffi::*;
use secmo::Transform;

/// How many characters run in one batch (each with a twin updated alone).
const COUNT: usize = 3;

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor { data };
    let rig = Arc::new(secmo::Rig::new(common::rig_desc()).unwrap());
    let n = rig.bone_count();
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    let rigs = [c_rig(false, &rig), c_rig(true, &rig)];
    // Character k runs on rigs[rig_of(k)]: the two enclosed ones share lanes.
    let rig_of = |k: usize| usize::from(k > 0);
    let (mut batched, mut alone) = ([std::ptr::null_mut(); COUNT], [std::ptr::null_mut(); COUNT]);
    for k in 0..COUNT {
        unsafe {
            for ch in [&mut batched[k], &mut alone[k]] {
                assert_eq!(
                    secmo_character_create(rigs[rig_of(k)], std::ptr::null(), ch),
                    SECMO_OK
                );
            }
        }
    }
    let mut poses = vec![reference.clone(); COUNT];
    let mut outs = vec![reference.clone(); COUNT];
    let mut twin_outs = vec![reference.clone(); COUNT];
    let mut steps = 0;
    while !c.is_empty() && steps < 48 {
        steps += 1;
        let before: Vec<Vec<u8>> = batched.iter().map(|&ch| snapshot(ch)).collect();
        // The character a non-update call is made on (and its twin).
        let k = c.u8() as usize % COUNT;
        let call = c.u8() % 8;
        // One call on `ch` (a character or its twin), from the same bytes.
        let mut results = [[SECMO_OK; COUNT]; 2];
        if call <= 2 {
            // An update of every character: move a few bones by fuzzed
            // amounts, each its own dt, flags and world.
            let mut inputs = Vec::with_capacity(COUNT);
            for pose in poses.iter_mut() {
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
                let pose_len = if c.u8().is_multiple_of(16) {
                    c.u32() as usize
                } else {
                    n
                };
                let struct_size = if c.u8().is_multiple_of(32) {
                    c.u32()
                } else {
                    std::mem::size_of::<SecmoFrameInput>() as u32
                };
                let importance = c.f32();
                inputs.push((struct_size, flags, dt, pose_len.min(n), world, importance));
            }
            let c_inputs: Vec<SecmoFrameInput> = inputs
                .iter()
                .zip(&poses)
                .map(
                    |(&(struct_size, flags, dt, pose_len, world, importance), pose)| {
                        SecmoFrameInput {
                            struct_size,
                            flags,
                            dt,
                            pose: pose.as_ptr(),
                            pose_len,
                            world,
                            importance,
                        }
                    },
                )
                .collect();
            let mut items: Vec<SecmoBatchItem> = (0..COUNT)
                .map(|k| SecmoBatchItem {
                    struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
                    result: u32::MAX,
                    character: batched[k],
                    input: &c_inputs[k],
                    out_pose: outs[k].as_mut_ptr(),
                    out_pose_len: n,
                    out_info: std::ptr::null_mut(),
                })
                .collect();
            let r = unsafe { secmo_update_batch(items.as_mut_ptr(), 0, COUNT) };
            let first_failure = items
                .iter()
                .map(|i| i.result)
                .find(|&r| r != SECMO_OK)
                .unwrap_or(SECMO_OK);
            assert_eq!(r, first_failure, "the batch returns its first failure");
            for k in 0..COUNT {
                results[0][k] = items[k].result;
                results[1][k] = unsafe {
                    secmo_character_update(
                        alone[k],
                        &c_inputs[k],
                        twin_outs[k].as_mut_ptr(),
                        n,
                        std::ptr::null_mut(),
                    )
                };
                if results[0][k] == SECMO_OK {
                    assert!(
                        outs[k].iter().all(Transform::is_finite),
                        "Ok with a non-finite output"
                    );
                    assert!(
                        bits(&outs[k]) == bits(&twin_outs[k]),
                        "character {k}: the batch's output differs from one call alone"
                    );
                }
            }
        } else {
            for (side, ch) in [batched[k], alone[k]].into_iter().enumerate() {
                // The same bytes for both: read them from a copy of the cursor.
                let mut cc = Cursor { data: c.data };
                results[side][k] = match call {
                    3 => {
                        let wind = [cc.f32(), cc.f32(), cc.f32()];
                        unsafe { secmo_character_set_wind(ch, &wind) }
                    }
                    4 => {
                        // SAFETY: a plain-number C struct; the preset fills it.
                        let mut p: SecmoChainParams = unsafe { std::mem::zeroed() };
                        unsafe { secmo_chain_params_tail(1.0, &mut p) };
                        p.integrator = cc.u8() as u32 % 4; // spring, exponential, VRM, invalid
                        p.vrm_drag_force = cc.f32();
                        p.gravity = cc.f32();
                        p.time_factor = cc.f32();
                        p.wind_factor = cc.f32();
                        p.radius = cc.f32();
                        p.lod_half_below = cc.f32();
                        // carry, restart, invalid
                        p.teleport_restart = cc.u8() as u32 % 3;
                        // Per-chain thresholds: one chain of a character may
                        // jump while another does not.
                        // auto, bind, animated, invalid
                        p.rest_source = cc.u8() as u32 % 4;
                        p.teleport_distance = cc.f32().abs();
                        let chain = u32::from(cc.u8() % 2);
                        unsafe { secmo_character_set_chain_params(ch, chain, &p) }
                    }
                    5 => {
                        // Restore the current snapshot with one byte changed,
                        // sometimes resealed.
                        let mut snap = before[k].clone();
                        let at = cc.u32() as usize % snap.len();
                        snap[at] ^= cc.u8() | 1;
                        if cc.u8().is_multiple_of(2) {
                            let _ = secmo::reseal_snapshot(&mut snap);
                        }
                        unsafe { secmo_character_restore(ch, snap.as_ptr(), snap.len()) }
                    }
                    6 => unsafe {
                        secmo_character_set_stage_enabled(
                            ch,
                            cc.u8() as u32 % 5,
                            cc.u8() as u32 % 2,
                        )
                    },
                    _ => unsafe { secmo_character_reset(ch) },
                };
                if side == 1 {
                    c = cc;
                }
            }
        }
        for k in 0..COUNT {
            let (result, twin) = (results[0][k], results[1][k]);
            assert_ne!(result, SECMO_ERROR_PANIC, "a panic reached the boundary");
            assert_eq!(result, twin, "character {k}: batch and alone disagree");
            let now = snapshot(batched[k]);
            if result != SECMO_OK && result != SECMO_ERROR_SNAPSHOT {
                assert!(now == before[k], "a failed call changed the state");
            }
            assert!(
                now == snapshot(alone[k]),
                "character {k}: the batched character's state differs from its twin's"
            );
        }
    }
    // A character's own snapshot always restores.
    unsafe {
        for ch in batched.into_iter().chain(alone) {
            let snap = snapshot(ch);
            let r = secmo_character_restore(ch, snap.as_ptr(), snap.len());
            assert_eq!(r, SECMO_OK, "own snapshot refused: {}", last_error());
            secmo_character_destroy(ch);
        }
        for r in rigs {
            secmo_rig_destroy(r);
        }
    }
});
