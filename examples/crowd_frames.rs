//! Runs issue #14's hair-crowd workload (100 characters × 12 strands × 6
//! joints, 60 Hz input) for a fixed number of frames and prints the wall
//! time per joint-substep. Timing on a shared machine is noisy; the stable
//! figure is the instruction count per joint-substep, the difference of two
//! runs under cachegrind (benches/README.md):
//!
//! ```text
//! cargo build --release --example crowd_frames
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/crowd_frames colliders 0
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/crowd_frames colliders 40
//! # (I refs of the second − I refs of the first) / (40 × 100 × 72 × 2)
//! ```
//!
//! Arguments: `colliders` or `none`, then the number of frames (default 200),
//! then the chain kernel: `detected` (default), `scalar`, `lanes` or `avx2`,
//! then the strands per character (default 12; the crowd keeps 7,200 joints:
//! 1,200 / strands characters, so the divisor above stays), then `batch`
//! (default, `update_batch`) or `each` (one `Character::update` per
//! character: no chains of different characters share lanes) or `world`
//! (the crowd in a `secmo::World`: one plan and one range), then
//! optionally `vrm` (the strands on the VRM preset instead of hair, with a
//! 2 cm hit radius: [`workload::vrm_rig`]), then optionally `budget
//! PERCENT` (`world` only: a budget of that share of the full cost, which
//! still counts in the divisor), then optionally `dump PATH`:
//! write the output poses after the frames to PATH
//! (every character's transforms as little-endian f32: translation,
//! rotation, scale) instead of printing the time; tests/aarch64.rs compares
//! an aarch64 run's against the host's.

#[path = "../benches/crowd_workload.rs"]
mod workload;

fn main() {
    let mut args = std::env::args().skip(1);
    let colliders = match args.next().as_deref() {
        None | Some("colliders") => true,
        Some("none") => false,
        Some(other) => {
            eprintln!("crowd_frames: first argument must be `colliders` or `none`, not `{other}`");
            std::process::exit(2);
        }
    };
    let frames: usize = match args.next().map(|a| a.parse()) {
        None => 200,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("crowd_frames: the number of frames must be a whole number");
            std::process::exit(2);
        }
    };
    let kernel = match args.next().as_deref() {
        None | Some("detected") => secmo::ChainKernel::detect(),
        Some("scalar") => secmo::ChainKernel::Scalar,
        Some("lanes") => secmo::ChainKernel::Lanes,
        Some("avx2") if secmo::ChainKernel::LanesAvx2.supported() => secmo::ChainKernel::LanesAvx2,
        Some(other) => {
            eprintln!(
                "crowd_frames: the kernel must be `detected`, `scalar`, `lanes` or `avx2` \
                 (on a CPU with AVX2), not `{other}`"
            );
            std::process::exit(2);
        }
    };
    let strands: usize = match args.next().map(|a| a.parse()) {
        None => 12,
        Some(Ok(n)) if n > 0 && 1200 % n == 0 => n,
        Some(_) => {
            eprintln!("crowd_frames: the strands per character must divide 1,200");
            std::process::exit(2);
        }
    };
    let mode = match args.next().as_deref() {
        None | Some("batch") => "batch",
        Some("each") => "each",
        Some("world") => "world",
        Some(other) => {
            eprintln!(
                "crowd_frames: the last argument must be `batch`, `each` or `world`, not `{other}`"
            );
            std::process::exit(2);
        }
    };
    let (mut dump, mut vrm, mut budget) = (None, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "vrm" => vrm = true,
            "budget" => match args.next().map(|a| a.parse::<u64>()) {
                Some(Ok(percent)) => budget = Some(percent),
                _ => {
                    eprintln!("crowd_frames: `budget` needs a percentage of the full cost");
                    std::process::exit(2);
                }
            },
            "dump" => match args.next() {
                Some(path) => dump = Some(path),
                None => {
                    eprintln!("crowd_frames: `dump` needs the path to write the poses to");
                    std::process::exit(2);
                }
            },
            other => {
                eprintln!(
                    "crowd_frames: after `batch`, `each` or `world` come `vrm`, `budget PERCENT` and `dump PATH`, not `{other}`"
                );
                std::process::exit(2);
            }
        }
    }
    let rig = if vrm {
        workload::vrm_rig(strands, 6, colliders)
    } else {
        workload::hair_rig(strands, 6, colliders)
    };
    let count = 1200 / strands;
    let (mut crowd, mut world) = if mode == "world" {
        (None, Some(workload::WorldCrowd::new(&rig, count)))
    } else {
        (Some(workload::Crowd::new(&rig, count)), None)
    };
    if let Some(c) = crowd.as_mut() {
        c.set_kernel(kernel);
    }
    if let Some(w) = world.as_mut() {
        w.set_kernel(kernel);
        if let Some(percent) = budget {
            w.set_budget(Some(100 * 72 * 2 * percent / 100));
            // The levels settle within three updates.
            for _ in 0..10 {
                w.step(1);
            }
        }
    }
    let start = std::time::Instant::now();
    for _ in 0..frames {
        match (crowd.as_mut(), world.as_mut()) {
            (Some(c), _) if mode == "batch" => c.step(1),
            (Some(c), _) => c.step_each(),
            (_, Some(w)) => w.step(1),
            _ => unreachable!(),
        }
    }
    let outputs = match (&crowd, &world) {
        (Some(c), _) => c.outputs(),
        (_, Some(w)) => w.outputs(),
        _ => unreachable!(),
    };
    let joint_substeps = frames as f64 * 100.0 * 72.0 * 2.0;
    if let Some(path) = dump {
        let bytes: Vec<u8> = outputs
            .iter()
            .flatten()
            .flat_map(|t| t.translation.iter().chain(&t.rotation).chain(&t.scale))
            .flat_map(|x| x.to_le_bytes())
            .collect();
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("crowd_frames: cannot write {path}: {e}");
            std::process::exit(1);
        }
    } else if frames > 0 {
        println!(
            "{:.1} ns per joint-substep (wall, {frames} frames, colliders: {colliders}, {kernel:?})",
            start.elapsed().as_secs_f64() * 1e9 / joint_substeps
        );
    }
}
