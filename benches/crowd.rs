//! Chains at crowd scale (issue #14; figures in benches/README.md).
//!
//! - `hair_crowd/…`: the workload — 100 characters × 12 hair chains
//!   × 6 joints, a head sphere, a neck sphere and a shoulder capsule per
//!   character, moving root and head, 60 Hz input (2 substeps of 120 Hz per
//!   update), all characters through `update_batch`. Throughput counts
//!   joint-substeps, so criterion's elem/s gives ns per joint-substep
//!   (1e9 / elem_per_s), with and without the colliders, on the detected
//!   chain kernel and on the scalar reference (`…_scalar_kernel`).
//! - `vrm_crowd/…`: the same crowd with its strands on the VRM preset
//!   (what an imported VRM avatar's hair runs; `workload::vrm_rig`), on the
//!   detected kernel.
//! - `one_strand_crowd/…`: 1,200 characters with one 6-joint strand and the
//!   three colliders each (the same 7,200 joints): through `update_batch`,
//!   whose chain stages of 8 consecutive characters share the lanes, and
//!   with one `Character::update` per character (`…_each`), whose lanes hold
//!   one chain. Throughput as above.
//! - `crowd_frame/…`: 1,000 characters × 80 chain joints (10 chains × 8),
//!   60 Hz input, one frame of the whole crowd per iteration, on 1 and 2
//!   threads (the batch split in two ranges under `std::thread::scope`).

#[path = "crowd_workload.rs"]
mod workload;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::sync::Arc;

use secmo::{ChainKernel, Rig};
use workload::{hair_rig, vrm_rig, Crowd, WorldCrowd};

/// A crowd rig of `chains` strands of `joints` joints, with or without the
/// colliders (crowd_workload.rs).
type StrandRig = fn(usize, usize, bool) -> Arc<Rig>;

fn bench(c: &mut Criterion) {
    // The hair crowd on the detected kernel (lanes, AVX2 where the CPU has
    // it), then the scalar reference on the same crowd; the VRM-preset crowd
    // on the detected kernel.
    let presets: [(&str, StrandRig, bool); 2] = [
        ("hair_crowd", hair_rig, true),
        ("vrm_crowd", vrm_rig, false),
    ];
    for (group_name, rig_of, scalar_too) in presets {
        let mut group = c.benchmark_group(group_name);
        for (name, colliders) in [("3_colliders", true), ("no_colliders", false)] {
            let rig = rig_of(12, 6, colliders);
            let mut crowd = Crowd::new(&rig, 100);
            group.throughput(Throughput::Elements(100 * 72 * 2));
            group.bench_function(format!("100x12x6_{name}"), |b| b.iter(|| crowd.step(1)));
            // The same crowd in a World (one plan, one range).
            let mut world = WorldCrowd::new(&rig, 100);
            group.bench_function(format!("100x12x6_{name}_world"), |b| {
                b.iter(|| world.step(1))
            });
            if scalar_too {
                crowd.set_kernel(ChainKernel::Scalar);
                group.bench_function(format!("100x12x6_{name}_scalar_kernel"), |b| {
                    b.iter(|| crowd.step(1))
                });
            }
        }
        group.finish();
    }

    let mut group = c.benchmark_group("one_strand_crowd");
    let rig = hair_rig(1, 6, true);
    let mut crowd = Crowd::new(&rig, 1200);
    group.throughput(Throughput::Elements(1200 * 6 * 2));
    group.bench_function("1200x1x6_3_colliders_batch", |b| b.iter(|| crowd.step(1)));
    group.bench_function("1200x1x6_3_colliders_each", |b| {
        b.iter(|| crowd.step_each())
    });
    group.finish();

    let mut group = c.benchmark_group("crowd_frame");
    group.sample_size(20);
    let rig = hair_rig(10, 8, true);
    let mut crowd = Crowd::new(&rig, 1000);
    for threads in [1, 2] {
        group.bench_function(format!("1000x80_joints_{threads}_threads"), |b| {
            b.iter(|| crowd.step(threads))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
