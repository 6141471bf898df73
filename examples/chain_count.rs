//! One character with `chains` hair strands of 6 joints (a head sphere, a
//! neck sphere and a shoulder capsule), 60 Hz input, for `frames` updates
//! after 100 of warm-up: how the cost per joint-substep depends on how many
//! chains a character has (the lane kernel fills one lane per chain). The
//! stable figure is the instruction count, the difference of two runs
//! under cachegrind (benches/README.md):
//!
//! ```text
//! cargo build --release --example chain_count
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/chain_count 4 0
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/chain_count 4 200
//! # (I refs of the second − I refs of the first) / (200 × 4 × 6 × 2)
//! ```
//!
//! Arguments: the number of chains, the number of frames, then `scalar`
//! for the scalar kernel (default: the detected one).

#[path = "../benches/crowd_workload.rs"]
mod workload;

use std::sync::Arc;

use secmo::{ChainKernel, Character, FrameInput};

fn number(arg: Option<String>, what: &str) -> usize {
    match arg.map(|a| a.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("chain_count: {what} must be a whole number (usage: chain_count CHAINS FRAMES [scalar])");
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let chains = number(args.next(), "the number of chains").max(1);
    let frames = number(args.next(), "the number of frames");
    let rig = workload::hair_rig(chains, 6, true);
    let mut c = Character::new(Arc::clone(&rig), Default::default());
    if args.next().as_deref() == Some("scalar") {
        c.set_chain_kernel(ChainKernel::Scalar)
            .expect("scalar runs everywhere");
    }
    let mut out = rig.reference_pose().to_vec();
    let mut pose = rig.reference_pose().to_vec();
    for i in 0..(100 + frames) {
        let t = i as f32 / 60.0;
        pose[4].rotation = glam::Quat::from_rotation_y(0.8 * (2.0 * t).sin()).to_array();
        c.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .expect("update");
    }
    std::hint::black_box(&out);
}
