//! Update cost of the helper-bone pipeline. Throughput is counted in
//! spring-substeps, so criterion's "elem/s" converts directly to ns per
//! spring-substep (1e9 / elem_per_s). At 30 Hz input every update runs
//! exactly 4 substeps per spring (SPEC §2; tested in clock.rs).

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Quat, Vec3};
use secmo::{BoneDesc, Character, FrameInput, Rig, RigDesc, SpringParams, Transform};

const UPM: f32 = 100.0;
const SUBSTEPS_PER_UPDATE: u64 = 4;

fn rig() -> Arc<Rig> {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    Arc::new(
        Rig::new(RigDesc {
            bones: vec![
                BoneDesc::new("root", -1, Transform::IDENTITY),
                BoneDesc::new("pelvis", 0, t(0.0, 100.0, 0.0)),
                BoneDesc::new("spine", 1, t(0.0, 15.0, 0.0)),
                BoneDesc::new("chest", 2, t(0.0, 25.0, 0.0)),
                BoneDesc::new("hip_helper_l", 1, t(10.0, -5.0, 5.0)),
                BoneDesc::new("hip_helper_r", 1, t(-10.0, -5.0, 5.0)),
                BoneDesc::new("chest_helper_l", 3, t(8.0, 5.0, 10.0)),
                BoneDesc::new("chest_helper_r", 3, t(-8.0, 5.0, 10.0)),
            ],
            units_per_meter: UPM,
            springs: vec![
                SpringParams::hip(4, UPM),
                SpringParams::hip(5, UPM),
                SpringParams::chest(6, UPM),
                SpringParams::chest(7, UPM),
            ],
            ..Default::default()
        })
        .unwrap(),
    )
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
            c.update(
                &FrameInput {
                    dt: 0.0,
                    pose: &poses[0],
                    teleport: false,
                },
                &mut out,
            )
            .unwrap();
        }
        group.throughput(Throughput::Elements(
            characters as u64 * springs * SUBSTEPS_PER_UPDATE,
        ));
        let mut frame = 0usize;
        group.bench_function(BenchmarkId::new("characters", characters), |b| {
            b.iter(|| {
                frame = (frame + 1) % poses.len();
                for c in crowd.iter_mut() {
                    c.update(
                        &FrameInput {
                            dt: 1.0 / 30.0,
                            pose: &poses[frame],
                            teleport: false,
                        },
                        &mut out,
                    )
                    .unwrap();
                }
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
