//! Rig creation cost (issue #18: 60,000 one-joint chains took 48 s with a
//! quadratic shared-joint check). Reported per chain: criterion's elem/s
//! converts to ns per chain (1e9 / elem_per_s).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use glam::Vec3;
use secmo::{BoneDesc, ChainDesc, ChainParams, Rig, RigDesc, Transform};

fn many_chains(count: usize) -> RigDesc {
    let mut bones = vec![BoneDesc::new("anchor", -1, Transform::IDENTITY)];
    let mut chains = Vec::new();
    for i in 0..count {
        bones.push(BoneDesc::new(
            format!("strand_{i}"),
            0,
            Transform::from_translation(Vec3::new(0.0, -0.1, 0.0)),
        ));
        chains.push(ChainDesc::new(
            vec![(i + 1) as u32],
            0,
            ChainParams::hair(1.0),
        ));
    }
    RigDesc {
        bones,
        chains,
        ..Default::default()
    }
}

fn rig_creation(c: &mut Criterion) {
    let mut group = c.benchmark_group("rig_create");
    group.sample_size(10);
    for count in [1_000usize, 60_000] {
        let desc = many_chains(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(format!("{count}_one_joint_chains"), |b| {
            b.iter(|| Rig::new(black_box(desc.clone())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, rig_creation);
criterion_main!(benches);
