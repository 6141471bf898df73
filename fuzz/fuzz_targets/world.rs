//! Random call sequences on two C worlds that are told the same things:
//! characters added and removed (on either of two rigs), budgets from 0 to
//! none, per-character calls on world characters (wind, reset, a snapshot
//! restored after a byte flip), and updates of lists in any order, with
//! any pose, dt, flags, lengths, struct sizes, world transform and
//! importance, a character listed twice, a character of the other world,
//! a null character. World A plans and runs two ranges split anywhere,
//! some items in place (input and output one buffer); world B runs
//! `secmo_world_update` on separate buffers.
//! Invariants: no panic reaches the boundary, the two worlds give every
//! item the same result, level and output bits, an `SECMO_OK` item's pose
//! is finite, a failed in-place item leaves its buffer as it was, and the
//! two worlds' characters keep the same snapshots.

#![no_main]

mod common;

use std::sync::Arc;

use common::{bits, c_rig, snapshot, Cursor};
use libfuzzer_sys::fuzz_target;
use secmo::ffi::*;
use secmo::Transform;

/// Most characters alive in each world at once.
const MAX_LIVE: usize = 4;

/// A world character in A and in B, and its input pose.
struct Pair {
    ch: [*mut SecmoCharacter; 2],
    pose: Vec<Transform>,
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor { data };
    let rig = Arc::new(secmo::Rig::new(common::rig_desc()).unwrap());
    let n = rig.bone_count();
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    let rigs = [c_rig(false, &rig), c_rig(true, &rig)];
    let mut worlds = [std::ptr::null_mut::<SecmoWorld>(); 2];
    for w in &mut worlds {
        unsafe { assert_eq!(secmo_world_create(w), SECMO_OK) };
    }
    let mut live: Vec<Pair> = Vec::new();
    let mut steps = 0;
    while !c.is_empty() && steps < 48 {
        steps += 1;
        match c.u8() % 8 {
            0 if live.len() < MAX_LIVE => {
                let r = rigs[usize::from(c.u8() % 2)];
                let mut ch = [std::ptr::null_mut(); 2];
                for (w, out) in worlds.iter().zip(&mut ch) {
                    unsafe { assert_eq!(secmo_world_add(*w, r, out), SECMO_OK) };
                }
                live.push(Pair {
                    ch,
                    pose: reference.clone(),
                });
            }
            1 if !live.is_empty() => {
                let k = c.u8() as usize % live.len();
                let pair = live.remove(k);
                for (w, ch) in worlds.iter().zip(pair.ch) {
                    unsafe { assert_eq!(secmo_world_remove(*w, ch), SECMO_OK) };
                }
            }
            2 => {
                let budget = match c.u8() % 4 {
                    0 => 0,
                    1 => u64::from(c.u8()),
                    2 => u64::from(c.u32()),
                    _ => SECMO_WORLD_NO_BUDGET,
                };
                for w in worlds {
                    unsafe { assert_eq!(secmo_world_set_budget(w, budget), SECMO_OK) };
                }
            }
            3 if !live.is_empty() => {
                let k = c.u8() as usize % live.len();
                let call = c.u8() % 3;
                let mut results = [SECMO_OK; 2];
                for (side, &ch) in live[k].ch.iter().enumerate() {
                    let mut cc = Cursor { data: c.data };
                    results[side] = match call {
                        0 => {
                            let wind = [cc.f32(), cc.f32(), cc.f32()];
                            unsafe { secmo_character_set_wind(ch, &wind) }
                        }
                        1 => {
                            let mut snap = snapshot(ch);
                            let at = cc.u32() as usize % snap.len();
                            snap[at] ^= cc.u8() | 1;
                            if cc.u8().is_multiple_of(2) {
                                let _ = secmo::reseal_snapshot(&mut snap);
                            }
                            unsafe { secmo_character_restore(ch, snap.as_ptr(), snap.len()) }
                        }
                        _ => unsafe { secmo_character_reset(ch) },
                    };
                    if side == 1 {
                        c = cc;
                    }
                }
                assert_ne!(
                    results[0], SECMO_ERROR_PANIC,
                    "a panic reached the boundary"
                );
                assert_eq!(results[0], results[1], "the two worlds disagree on a call");
            }
            _ => {
                // An update: the live characters in a shuffled order, maybe
                // one twice, one of the other world or a null one.
                let mut order: Vec<Option<usize>> = (0..live.len()).map(Some).collect();
                for i in 0..order.len() {
                    let j = c.u8() as usize % order.len();
                    order.swap(i, j);
                }
                let mut foreign = usize::MAX;
                match c.u8() % 16 {
                    0 if !live.is_empty() => order.push(Some(c.u8() as usize % live.len())),
                    1 => order.push(None),
                    2 if !live.is_empty() => {
                        foreign = order.len();
                        order.push(Some(c.u8() as usize % live.len()));
                    }
                    _ => {}
                }
                for pair in &mut live {
                    for _ in 0..c.u8() % 4 {
                        let b = c.u8() as usize % n;
                        match c.u8() % 3 {
                            0 => pair.pose[b].translation = [c.f32(), c.f32(), c.f32()],
                            1 => pair.pose[b].rotation = [c.f32(), c.f32(), c.f32(), c.f32()],
                            _ => pair.pose[b].scale = [c.f32(), c.f32(), c.f32()],
                        }
                    }
                }
                let count = order.len();
                let mut inputs = Vec::with_capacity(count);
                let mut in_place = Vec::with_capacity(count);
                let mut importance = Vec::with_capacity(count);
                let mut item_size = Vec::with_capacity(count);
                for _ in 0..count {
                    let dt = match c.u8() % 4 {
                        0 => c.raw_f32(),
                        _ => f32::from(c.u8()) / 1000.0,
                    };
                    let flags = u32::from(c.u8()) & 7;
                    let world = Transform::new(
                        glam::Vec3::new(c.f32(), c.f32(), c.f32()),
                        glam::Quat::from_array([c.f32(), c.f32(), c.f32(), c.f32()]),
                        glam::Vec3::splat(1.0 + c.f32().abs()),
                    );
                    let pose_len = if c.u8().is_multiple_of(16) {
                        (c.u32() as usize).min(n)
                    } else {
                        n
                    };
                    let struct_size = if c.u8().is_multiple_of(32) {
                        c.u32()
                    } else {
                        std::mem::size_of::<SecmoFrameInput>() as u32
                    };
                    inputs.push((struct_size, flags, dt, pose_len, world));
                    in_place.push(pose_len == n && c.u8().is_multiple_of(2));
                    importance.push(c.f32());
                    item_size.push(if c.u8().is_multiple_of(32) {
                        c.u32()
                    } else {
                        std::mem::size_of::<SecmoWorldItem>() as u32
                    });
                }
                let split = if count == 0 {
                    0
                } else {
                    c.u8() as usize % (count + 1)
                };
                // Per world: the items' buffers (A's in-place ones hold the
                // input), inputs and items.
                let mut outs: [Vec<Vec<Transform>>; 2] = Default::default();
                let mut items: [Vec<SecmoWorldItem>; 2] = Default::default();
                let mut c_inputs: [Vec<SecmoFrameInput>; 2] = Default::default();
                for w in 0..2 {
                    outs[w] = order
                        .iter()
                        .enumerate()
                        .map(|(i, k)| match k {
                            Some(k) if w == 0 && in_place[i] => live[*k].pose.clone(),
                            _ => reference.clone(),
                        })
                        .collect();
                    c_inputs[w] = (0..count)
                        .map(|i| {
                            let (struct_size, flags, dt, pose_len, world) = inputs[i];
                            let pose = match order[i] {
                                Some(_) if w == 0 && in_place[i] => outs[w][i].as_ptr(),
                                Some(k) => live[k].pose.as_ptr(),
                                None => reference.as_ptr(),
                            };
                            SecmoFrameInput {
                                struct_size,
                                flags,
                                dt,
                                pose,
                                pose_len,
                                world,
                                importance: 0.0,
                            }
                        })
                        .collect();
                }
                for w in 0..2 {
                    items[w] = (0..count)
                        .map(|i| SecmoWorldItem {
                            struct_size: item_size[i],
                            result: u32::MAX,
                            character: match order[i] {
                                // The other world's character.
                                Some(k) if i == foreign => live[k].ch[1 - w],
                                Some(k) => live[k].ch[w],
                                None => std::ptr::null_mut(),
                            },
                            input: &c_inputs[w][i],
                            out_pose: outs[w][i].as_mut_ptr(),
                            out_pose_len: n,
                            out_info: std::ptr::null_mut(),
                            importance: importance[i],
                            level: 99,
                        })
                        .collect();
                }
                unsafe {
                    let a = items[0].as_mut_ptr();
                    secmo_world_plan(worlds[0], a, count);
                    secmo_world_update_range(worlds[0], a, 0, split);
                    secmo_world_update_range(worlds[0], a, split, count);
                    secmo_world_update(worlds[1], items[1].as_mut_ptr(), count);
                }
                for i in 0..count {
                    let (a, b) = (&items[0][i], &items[1][i]);
                    assert_ne!(a.result, SECMO_ERROR_PANIC, "a panic reached the boundary");
                    assert_eq!(a.result, b.result, "item {i}: the two worlds disagree");
                    if a.result == SECMO_OK {
                        assert_eq!(a.level, b.level, "item {i}: levels differ");
                        assert!(
                            outs[0][i].iter().all(Transform::is_finite),
                            "Ok with a non-finite output"
                        );
                        assert!(
                            bits(&outs[0][i]) == bits(&outs[1][i]),
                            "item {i}: in place and ranges against one call differ"
                        );
                    } else if let (true, Some(k)) = (in_place[i], order[i]) {
                        assert!(
                            bits(&outs[0][i]) == bits(&live[k].pose),
                            "item {i}: a failed in-place update changed its buffer"
                        );
                    }
                }
            }
        }
        for pair in &live {
            assert!(
                snapshot(pair.ch[0]) == snapshot(pair.ch[1]),
                "the two worlds' characters differ"
            );
        }
    }
    unsafe {
        for pair in live {
            for (w, ch) in worlds.iter().zip(pair.ch) {
                assert_eq!(secmo_world_remove(*w, ch), SECMO_OK);
            }
        }
        for w in worlds {
            secmo_world_destroy(w);
        }
        for r in rigs {
            secmo_rig_destroy(r);
        }
    }
});
