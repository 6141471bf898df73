//! Update cost of the helper-bone pipeline. Throughput is counted in
//! spring-substeps, so criterion's "elem/s" converts directly to ns per
//! spring-substep (1e9 / elem_per_s). At 30 Hz input every update runs
//! exactly 4 substeps per spring (docs/algorithms.md §2; tested in clock.rs).

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Quat;
use secmo::{Character, FrameInput, Rig, Transform};

const SUBSTEPS_PER_UPDATE: u64 = 4;

// The same 8-bone helper skeleton (4 springs) the integration tests use.
#[path = "../tests/common/mod.rs"]
mod common;

fn rig() -> Arc<Rig> {
    common::helper_rig()
}

fn poses(rig: &Rig) -> Vec<Vec<Transform>> {
    (0..64)
        .map(|i| {
            let t = i as f32 / 30.0;
            let mut p = rig.reference_pose().to_vec();
            p[1].translation = [
                2.0 * (t * 5.0).sin(),
                100.0 + 5.0 * (t * 11.0).sin(),
                200.0 * t,
            ];
            p[1].rotation = Quat::from_rotation_y(0.2 * (t * 5.0).sin()).to_array();
            p
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rig = rig();
    let poses = poses(&rig);
    let springs = rig.springs().len() as u64;
    let mut group = c.benchmark_group("helper_springs_update_30hz");
    for characters in [1usize, 1000] {
        let mut crowd: Vec<Character> = (0..characters)
            .map(|_| Character::new(rig.clone(), Default::default()))
            .collect();
        let mut out = vec![Transform::IDENTITY; rig.bone_count()];
        // Warm every character past its first (dt = 0) update.
        for c in &mut crowd {
            common::advance(c, 0.0, &poses[0], &mut out);
        }
        group.throughput(Throughput::Elements(
            characters as u64 * springs * SUBSTEPS_PER_UPDATE,
        ));
        let mut frame = 0usize;
        group.bench_function(BenchmarkId::new("characters", characters), |b| {
            b.iter(|| {
                frame = (frame + 1) % poses.len();
                for c in crowd.iter_mut() {
                    common::advance(c, 1.0 / 30.0, &poses[frame], &mut out);
                }
                black_box(&out);
            })
        });
    }
    group.finish();
}

/// The whole docs/algorithms.md §6 helper pipeline on the 16-bone body: 2 rotation
/// constraints, 4 springs, 2 BtoB correctives (14 probes), arms folding so the
/// correctives are active, with and without stage records. Throughput counts
/// updates (characters × frames).
fn bench_pipeline(c: &mut Criterion) {
    use secmo::StageRecords;
    let rig = common::full_body();
    let poses: Vec<Vec<Transform>> = (0..64)
        .map(|i| common::full_body_pose(&rig, 4.0 + i as f32 / 30.0, 4.0))
        .collect();
    let mut group = c.benchmark_group("helper_pipeline_update_30hz");
    for (name, recorded) in [("plain", false), ("recorded", true)] {
        let mut character = Character::new(rig.clone(), Default::default());
        let mut out = vec![Transform::IDENTITY; rig.bone_count()];
        let mut records = StageRecords::new(&rig);
        common::advance(&mut character, 0.0, &poses[0], &mut out);
        group.throughput(Throughput::Elements(1));
        let mut frame = 0usize;
        group.bench_function(name, |b| {
            b.iter(|| {
                frame = (frame + 1) % poses.len();
                let input = FrameInput {
                    dt: 1.0 / 30.0,
                    pose: &poses[frame],
                    teleport: false,
                };
                if recorded {
                    character
                        .update_recorded(&input, &mut out, &mut records)
                        .unwrap();
                } else {
                    character.update(&input, &mut out).unwrap();
                }
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_pipeline);
criterion_main!(benches);
