//! Chain cost per joint-substep (issue: a 6-joint hair chain with 2 spheres
//! and 1 capsule; a 4-joint tail with the floor). At 60 Hz input each update
//! runs 2 substeps of 1/120 s, so throughput counts joints × 2 per update and
//! criterion's elem/s converts to ns per joint-substep (1e9 / elem_per_s).
//! The figure includes the whole update: input validation, forward
//! kinematics of the small rig, and writing the joint rotations back.

use std::sync::Arc;

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainParams, Character, Collider, ColliderShape, Rig, RigDesc, Transform,
};

const SUBSTEPS_PER_UPDATE: u64 = 2;

fn t(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

fn hair_rig() -> Arc<Rig> {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("head", 0, t(0.0, 1.6, 0.0)),
    ];
    for i in 0..6 {
        let offset = if i == 0 {
            t(0.03, 0.05, -0.09)
        } else {
            t(0.0, -0.048, -0.014)
        };
        bones.push(BoneDesc::new(
            format!("hair{i}"),
            if i == 0 { 1 } else { 1 + i },
            offset,
        ));
    }
    let mut chain = ChainDesc::new((2..8).collect(), 1, ChainParams::hair(1.0));
    chain.colliders = vec![0, 1, 2];
    Arc::new(
        Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders: vec![
                Collider {
                    bone: 1,
                    shape: ColliderShape::Sphere,
                    a: Vec3::ZERO,
                    b: Vec3::ZERO,
                    radius: 0.09,
                },
                Collider {
                    bone: 0,
                    shape: ColliderShape::Sphere,
                    a: Vec3::new(0.0, 1.35, 0.05),
                    b: Vec3::ZERO,
                    radius: 0.12,
                },
                Collider {
                    bone: 0,
                    shape: ColliderShape::Capsule,
                    a: Vec3::new(0.0, 1.1, -0.12),
                    b: Vec3::new(0.0, 1.5, -0.12),
                    radius: 0.05,
                },
            ],
            chains: vec![chain],
            ..Default::default()
        })
        .unwrap(),
    )
}

fn tail_rig() -> Arc<Rig> {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 0.4, 0.0)),
    ];
    for i in 0..4 {
        let offset = if i == 0 {
            t(0.0, -0.05, -0.1)
        } else {
            t(0.0, -0.1, -0.15)
        };
        bones.push(BoneDesc::new(
            format!("tail{i}"),
            if i == 0 { 1 } else { 1 + i },
            offset,
        ));
    }
    let mut params = ChainParams::tail(1.0);
    params.carry_angle = 0.0; // a low-hanging tail that rests on the floor
    params.rest_curve = 1.0;
    Arc::new(
        Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            chains: vec![ChainDesc::new((2..6).collect(), 1, params)],
            ..Default::default()
        })
        .unwrap(),
    )
}

fn bench_chain(c: &mut Criterion, name: &str, rig: Arc<Rig>, moving: usize) {
    let poses: Vec<Vec<Transform>> = (0..120)
        .map(|i| {
            let mut p = rig.reference_pose().to_vec();
            p[moving].rotation = (Quat::from_rotation_y(0.8 * (i as f32 / 9.0).sin())
                * Quat::from_rotation_x(0.3 * (i as f32 / 7.0).sin()))
            .to_array();
            p
        })
        .collect();
    let joints = rig.particle_count() as u64;
    let mut character = Character::new(rig.clone(), Default::default());
    let mut out = poses[0].clone();
    for p in poses.iter().take(60) {
        common::advance(&mut character, 1.0 / 60.0, p, &mut out);
    }
    let mut group = c.benchmark_group("chain_update_60hz");
    group.throughput(Throughput::Elements(joints * SUBSTEPS_PER_UPDATE));
    let mut frame = 0usize;
    group.bench_function(name, |b| {
        b.iter(|| {
            frame = (frame + 1) % poses.len();
            common::advance(&mut character, 1.0 / 60.0, &poses[frame], &mut out);
            black_box(&out);
        })
    });
    // The same update with the chain stage off: what the rest of the
    // pipeline (validation, forward kinematics, commit) costs on this rig.
    character.set_stage_enabled(secmo::Stage::Chains, false);
    group.throughput(Throughput::Elements(1));
    group.bench_function(format!("{name}_without_chains"), |b| {
        b.iter(|| {
            frame = (frame + 1) % poses.len();
            common::advance(&mut character, 1.0 / 60.0, &poses[frame], &mut out);
            black_box(&out);
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    bench_chain(c, "hair_6_joints_2_spheres_1_capsule", hair_rig(), 1);
    bench_chain(c, "tail_4_joints_floor", tail_rig(), 1);
}

criterion_group!(benches, bench);
criterion_main!(benches);
