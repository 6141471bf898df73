//! Rig creation cost (issue #18: 60,000 one-joint chains took 48 s with a
//! quadratic shared-joint check). Reported per chain: criterion's elem/s
//! converts to ns per chain (1e9 / elem_per_s).

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use secmo::Rig;

fn rig_creation(c: &mut Criterion) {
    let mut group = c.benchmark_group("rig_create");
    group.sample_size(10);
    for count in [1_000usize, 60_000] {
        let desc = common::many_chains(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(format!("{count}_one_joint_chains"), |b| {
            b.iter(|| Rig::new(black_box(desc.clone())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, rig_creation);
criterion_main!(benches);
