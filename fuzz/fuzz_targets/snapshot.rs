//! Snapshot restore as untrusted input: the fuzzer's bytes are XORed onto a
//! real snapshot (near-valid inputs reach the range checks; resealed ones get
//! past the checksum), then the character updates. Invariants: no panic, a
//! refused restore changes nothing, an accepted one never makes the next
//! updates fail or hang, and their output is finite.

#![no_main]

mod common;

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use secmo::{Character, FrameInput, Transform};

fuzz_target!(|data: &[u8]| {
    let rig = Arc::new(secmo::Rig::new(common::rig_desc()).unwrap());
    let mut ch = Character::new(rig.clone(), Default::default());
    let mut pose = rig.reference_pose().to_vec();
    let mut out = pose.clone();
    for f in 0..20 {
        pose[1].translation[0] = (f as f32 * 0.3).sin() * 0.2;
        ch.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
    }
    let mut snap = vec![0u8; ch.snapshot_size()];
    ch.snapshot(&mut snap).unwrap();
    let original = snap.clone();
    let (mode, rest) = data.split_first().unwrap_or((&0, &[]));
    for (i, b) in rest.iter().enumerate() {
        let at = (i * 7919 + *b as usize) % snap.len();
        snap[at] ^= *b;
    }
    if mode & 1 == 1 {
        let _ = secmo::reseal_snapshot(&mut snap);
    }
    if mode & 2 == 2 {
        snap.truncate(rest.len() % (snap.len() + 1));
    }
    let mut other = Character::new(rig.clone(), Default::default());
    let mut before = vec![0u8; other.snapshot_size()];
    other.snapshot(&mut before).unwrap();
    match other.restore(&snap) {
        Err(_) => {
            let mut after = vec![0u8; other.snapshot_size()];
            other.snapshot(&mut after).unwrap();
            assert_eq!(before, after, "a refused restore changed the state");
        }
        Ok(()) => {
            for f in 0..4 {
                pose[1].translation[0] = f as f32 * 0.01;
                let dt = if mode & 4 == 4 { 5.0 } else { 1.0 / 30.0 };
                other
                    .update(
                        &FrameInput {
                            dt,
                            pose: &pose,
                            teleport: false,
                        },
                        &mut out,
                    )
                    .expect("an accepted snapshot never makes an update fail");
                assert!(out.iter().all(Transform::is_finite));
            }
        }
    }
    let _ = original;
});
