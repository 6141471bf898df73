//! Zero allocations per update, asserted with a counting global allocator
//! that counts only on the thread being measured.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use secmo::{FrameInput, Transform};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size.saturating_sub(layout.size()));
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

fn note(bytes: usize) {
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            let _ = COUNT.try_with(|n| n.set(n.get() + 1));
            let _ = BYTES.try_with(|n| n.set(n.get() + bytes));
        }
    });
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated by `f` on this thread (frees not subtracted).
fn count_bytes(f: impl FnOnce()) -> usize {
    BYTES.with(|n| n.set(0));
    count_allocations(f);
    BYTES.with(|n| n.get())
}

fn count_allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    COUNT.with(|n| n.get())
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the guard: a test that could not fail would prove nothing.
    let n = count_allocations(|| {
        let v: Vec<u64> = Vec::with_capacity(16);
        std::hint::black_box(v);
    });
    assert_eq!(n, 1);
}

#[test]
fn a_thousand_updates_allocate_nothing() {
    let mut c = common::character();
    let rig = c.rig().clone();
    // Inputs prepared up front: the measurement covers only secmo's work.
    let poses: Vec<Vec<Transform>> = (0..1000)
        .map(|i| common::pose_at(&rig, i as f32 / 60.0, 1.0 + (i / 250) as f32))
        .collect();
    let mut out = vec![Transform::IDENTITY; rig.bone_count()];
    let mut snapshot = vec![0u8; c.snapshot_size()];
    let mut in_place = poses[0].clone();
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            let dt = if i % 3 == 0 { 1.0 / 30.0 } else { 1.0 / 60.0 };
            c.update(
                &FrameInput {
                    dt,
                    pose,
                    teleport: i == 500,
                },
                &mut out,
            )
            .unwrap();
            if i == 700 {
                c.snapshot(&mut snapshot).unwrap();
                c.restore(&snapshot).unwrap();
                c.reset();
                c.update_in_place(1.0 / 60.0, false, &mut in_place).unwrap();
            }
            // Errors do not allocate either (the Rust API's errors are plain data).
            let _ = c.update(
                &FrameInput {
                    dt: -1.0,
                    pose,
                    teleport: false,
                },
                &mut out,
            );
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 updates");
}

#[test]
fn c_abi_updates_allocate_nothing() {
    use secmo::ffi::*;
    let rig_desc = common::helper_rig_desc();
    let parents: Vec<i32> = rig_desc.bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = rig_desc.bones.iter().map(|b| b.reference).collect();
    let mut springs = [SecmoSpringDesc {
        struct_size: 0,
        bone: 0,
        stiffness: 0.0,
        damping: 0.0,
        max_offset: 0.0,
        max_substep_displacement: 0.0,
        history_length: 0,
        reset_threshold: 0.0,
        time_factor: 0.0,
        extra_velocity: [0.0; 3],
        alpha: 0.0,
    }; 2];
    unsafe {
        assert_eq!(secmo_spring_desc_hip(4, 100.0, &mut springs[0]), SECMO_OK);
        assert_eq!(secmo_spring_desc_chest(6, 100.0, &mut springs[1]), SECMO_OK);
    }
    let desc = SecmoRigDesc {
        bone_count: parents.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 100.0,
        springs: springs.as_ptr(),
        spring_count: 2,
        ..Default::default()
    };
    let mut rig = std::ptr::null_mut();
    let mut ch = std::ptr::null_mut();
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
    }
    let rust_rig = secmo::Rig::new(rig_desc).unwrap();
    let poses: Vec<Vec<Transform>> = (0..1000)
        .map(|i| common::pose_at(&rust_rig, i as f32 / 60.0, 2.0))
        .collect();
    let mut out = vec![Transform::IDENTITY; parents.len()];
    let mut info = SecmoUpdateInfo {
        struct_size: std::mem::size_of::<SecmoUpdateInfo>() as u32,
        ..Default::default()
    };
    let n = count_allocations(|| {
        for pose in &poses {
            let input = common::c_frame_input(pose);
            let r = unsafe {
                secmo_character_update(ch, &input, out.as_mut_ptr(), out.len(), &mut info)
            };
            assert_eq!(r, SECMO_OK);
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 C ABI updates");
    // The same character through secmo_update_batch.
    let n = count_allocations(|| {
        for pose in &poses {
            let input = common::c_frame_input(pose);
            let mut items = [SecmoBatchItem {
                struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
                result: u32::MAX,
                character: ch,
                input: &input,
                out_pose: out.as_mut_ptr(),
                out_pose_len: out.len(),
                out_info: &mut info,
            }];
            let r = unsafe { secmo_update_batch(items.as_mut_ptr(), 0, 1) };
            assert_eq!((r, items[0].result), (SECMO_OK, SECMO_OK));
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 batched C ABI updates");
    unsafe {
        secmo_character_destroy(ch);
        secmo_rig_destroy(rig);
    }
}

#[test]
fn full_pipeline_allocates_nothing_with_records_on_or_off() {
    use secmo::{Character, StageRecords};
    let rig = common::full_body();
    let mut c = Character::new(rig.clone(), Default::default());
    let poses: Vec<Vec<Transform>> = (0..1000)
        .map(|i| common::full_body_pose(&rig, i as f32 / 60.0, 4.0))
        .collect();
    let mut out = vec![Transform::IDENTITY; rig.bone_count()];
    let mut records = StageRecords::new(&rig);
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            let input = FrameInput {
                dt: 1.0 / 60.0,
                pose,
                teleport: false,
            };
            if i % 2 == 0 {
                c.update(&input, &mut out).unwrap();
            } else {
                c.update_recorded(&input, &mut out, &mut records).unwrap();
            }
            if i == 500 {
                c.set_stage_enabled(secmo::Stage::Springs, false);
            }
            if i == 600 {
                c.set_stage_enabled(secmo::Stage::Springs, true);
            }
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 full-pipeline updates");
    assert!(
        c.corrective_states()[0].translation[0] != 0.0,
        "BtoB was active"
    );
}

#[test]
fn chains_allocate_nothing() {
    use glam::{Quat, Vec3};
    use secmo::{
        BoneDesc, ChainDesc, ChainParams, Character, Collider, ColliderShape, RigDesc, StageRecords,
    };
    // Hips with a 4-joint tail (floor on) and a head with a 6-joint strand
    // colliding with 2 spheres and 1 capsule.
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 1.0, 0.0)),
        BoneDesc::new("head", 1, t(0.0, 0.6, 0.0)),
    ];
    for i in 0..4 {
        bones.push(BoneDesc::new(
            format!("tail{i}"),
            if i == 0 { 1 } else { 2 + i },
            t(0.0, -0.05, -0.15),
        ));
    }
    for i in 0..6 {
        bones.push(BoneDesc::new(
            format!("hair{i}"),
            if i == 0 { 2 } else { 6 + i },
            t(0.0, -0.05, -0.01),
        ));
    }
    let colliders = vec![
        Collider {
            bone: 2,
            shape: ColliderShape::Sphere,
            a: Vec3::new(0.0, 0.0, 0.0),
            b: Vec3::ZERO,
            radius: 0.09,
        },
        Collider {
            bone: 1,
            shape: ColliderShape::Sphere,
            a: Vec3::new(0.0, 0.3, 0.1),
            b: Vec3::ZERO,
            radius: 0.12,
        },
        Collider {
            bone: 1,
            shape: ColliderShape::Capsule,
            a: Vec3::new(0.0, 0.1, 0.0),
            b: Vec3::new(0.0, 0.5, 0.0),
            radius: 0.15,
        },
    ];
    let mut hair = ChainDesc::new((7..13).collect(), 2, ChainParams::hair(1.0));
    hair.colliders = vec![0, 1, 2];
    let rig = std::sync::Arc::new(
        secmo::Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders,
            chains: vec![
                ChainDesc::new((3..7).collect(), 1, ChainParams::tail(1.0)),
                hair,
            ],
            ..Default::default()
        })
        .unwrap(),
    );
    let mut c = Character::new(rig.clone(), Default::default());
    let poses: Vec<Vec<Transform>> = (0..1000)
        .map(|i| {
            let mut p = rig.reference_pose().to_vec();
            p[1].rotation = Quat::from_rotation_y(0.8 * (i as f32 / 9.0).sin()).to_array();
            p[2].rotation = Quat::from_rotation_x(0.4 * (i as f32 / 7.0).sin()).to_array();
            p
        })
        .collect();
    let mut out = vec![Transform::IDENTITY; rig.bone_count()];
    let mut records = StageRecords::new(&rig);
    let mut snapshot = vec![0u8; c.snapshot_size()];
    let params = *c.chain_params(0).unwrap();
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            c.set_world_transform(Transform::from_translation(Vec3::new(
                i as f32 * 0.01,
                0.0,
                0.0,
            )))
            .unwrap();
            c.set_importance(if (400..500).contains(&i) { 0.0 } else { 1.0 })
                .unwrap();
            let input = FrameInput {
                dt: 1.0 / 60.0,
                pose,
                teleport: i == 300,
            };
            if i % 3 == 0 {
                c.update_recorded(&input, &mut out, &mut records).unwrap();
            } else {
                c.update(&input, &mut out).unwrap();
            }
            if i == 700 {
                c.snapshot(&mut snapshot).unwrap();
                c.restore(&snapshot).unwrap();
                c.set_chain_params(0, params).unwrap();
            }
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 chain updates");
    assert!(c.particle_positions().iter().all(|p| p.is_finite()));
}

/// VRM chains hanging from another VRM chain's joint (a VRM 0.x branch)
/// and below one (a spring that skips a node), with per-joint numbers, and
/// colliders on a joint and below one, at 30 Hz input: the joint frames
/// recorded at each substep for the chains hanging there or touching those
/// colliders fit the space made at creation.
#[test]
fn dependent_vrm_chains_allocate_nothing() {
    use glam::{Quat, Vec3};
    use secmo::{BoneDesc, ChainDesc, ChainParams, Character, RigDesc};
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("head", 0, t(0.0, 1.5, 0.0)),
        BoneDesc::new("hair", 1, t(0.0, 0.1, -0.08)),
        BoneDesc::new("a1", 2, t(0.03, -0.08, -0.02)),
        BoneDesc::new("a2", 3, t(0.0, -0.08, -0.02)),
        BoneDesc::new("b1", 2, t(-0.03, -0.08, -0.02)),
        BoneDesc::new("helper", 5, Transform::IDENTITY),
        BoneDesc::new("b2", 6, t(0.0, -0.08, -0.02)),
    ];
    let mut first = ChainDesc::new(vec![2, 3, 4], 1, ChainParams::vrm(1.0));
    first.vrm_offsets = vec![[0.0; 3], [0.5, -0.1, 0.1], [1.0, -0.2, 0.2]];
    let mut last = ChainDesc::new(vec![7], 6, ChainParams::vrm(1.0));
    last.colliders = vec![0, 1];
    let chains = vec![
        first,
        ChainDesc::new(vec![5], 2, ChainParams::vrm(1.0)),
        last,
    ];
    let sphere = |bone: u32| secmo::Collider {
        bone,
        shape: secmo::ColliderShape::Sphere,
        a: Vec3::new(0.0, -0.04, 0.0),
        b: Vec3::ZERO,
        radius: 0.03,
    };
    let rig = std::sync::Arc::new(
        secmo::Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            // On joint a1 of the first chain, and on the helper below b1.
            colliders: vec![sphere(3), sphere(6)],
            chains,
            ..Default::default()
        })
        .unwrap(),
    );
    assert!(rig.warnings().is_empty(), "{:?}", rig.warnings());
    let mut c = Character::new(rig.clone(), Default::default());
    let poses: Vec<Vec<Transform>> = (0..300)
        .map(|i| {
            let mut p = rig.reference_pose().to_vec();
            p[1].rotation = Quat::from_rotation_x(0.8 * (i as f32 / 5.0).sin()).to_array();
            p
        })
        .collect();
    let mut out = vec![Transform::IDENTITY; rig.bone_count()];
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            let input = FrameInput {
                // 30 Hz, then a pause longer than the recorded substeps.
                dt: if i == 150 { 0.5 } else { 1.0 / 30.0 },
                pose,
                teleport: false,
            };
            c.update(&input, &mut out).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in 300 updates");
    assert!(c.particle_positions().iter().all(|p| p.is_finite()));
}

#[test]
fn batches_allocate_nothing_with_every_chain_option() {
    use glam::{Quat, Vec3};
    use secmo::{update_batch, BatchItem, ChainParams, Character, FrameInput};
    // Sixteen characters of a rig with a tail, a VRM strand and a hair
    // strand, through the batch in two ranges, with LOD, teleport,
    // a simulation space, wind, node constraints and 240 Hz updates.
    let mut desc = common::tail_desc(4, ChainParams::tail(1.0));
    let head = desc.bones.len() as u32;
    desc.bones.push(secmo::BoneDesc::new(
        "head",
        1,
        Transform::from_translation(Vec3::new(0.0, 0.6, 0.0)),
    ));
    for (k, params) in [ChainParams::vrm(1.0), ChainParams::hair(1.0)]
        .into_iter()
        .enumerate()
    {
        let first = desc.bones.len() as u32;
        for i in 0..3u32 {
            desc.bones.push(secmo::BoneDesc::new(
                format!("strand{k}_{i}"),
                if i == 0 {
                    head as i32
                } else {
                    (first + i - 1) as i32
                },
                Transform::from_translation(Vec3::new(0.02 * k as f32, -0.08, -0.02)),
            ));
        }
        let mut p = params;
        p.simulation_space = if k == 0 { 1 } else { -1 };
        desc.chains.push(secmo::ChainDesc::new(
            vec![first, first + 1, first + 2],
            head,
            p,
        ));
    }
    desc.node_constraints.push(secmo::NodeConstraintDesc {
        kind: secmo::NodeConstraintKind::Rotation,
        source: 1,
        destination: head,
        weight: 0.5,
    });
    let rig = std::sync::Arc::new(secmo::Rig::new(desc).unwrap());
    let mut characters: Vec<Character> = (0..16)
        .map(|_| Character::new(rig.clone(), Default::default()))
        .collect();
    let bones = rig.bone_count();
    let poses: Vec<Vec<Transform>> = (0..240)
        .map(|i| {
            let mut p = rig.reference_pose().to_vec();
            p[1].rotation = Quat::from_rotation_y(0.8 * (i as f32 / 9.0).sin()).to_array();
            p
        })
        .collect();
    let mut outs = vec![Transform::IDENTITY; bones * characters.len()];
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            for (k, c) in characters.iter_mut().enumerate() {
                c.set_importance(if (100..140).contains(&i) && k % 2 == 0 {
                    0.0
                } else {
                    1.0
                })
                .unwrap();
                c.set_wind(Vec3::new(0.5 * (i as f32 / 20.0).sin(), 0.0, 0.0))
                    .unwrap();
            }
            let mut items: [Option<BatchItem<'_>>; 16] = Default::default();
            let mut outs_left: &mut [Transform] = &mut outs;
            for (slot, c) in items.iter_mut().zip(characters.iter_mut()) {
                let (out, rest) = std::mem::take(&mut outs_left).split_at_mut(bones);
                outs_left = rest;
                *slot = Some(BatchItem::new(
                    c,
                    FrameInput {
                        dt: if i == 0 { 0.0 } else { 1.0 / 240.0 },
                        pose,
                        teleport: i == 180,
                    },
                    out,
                ));
            }
            let mut batch: [BatchItem<'_>; 16] = items.map(Option::unwrap);
            let (a, b) = batch.split_at_mut(8);
            assert_eq!(update_batch(a) + update_batch(b), 0);
        }
    });
    assert_eq!(
        n, 0,
        "{n} allocations in 240 batched updates of 16 characters"
    );
    assert!(outs.iter().all(Transform::is_finite));
}

/// The world's update, in one call and as a plan and two ranges, through
/// every budget level (full, half, quarter, held and released), allocates
/// nothing.
#[test]
fn world_updates_allocate_nothing_at_every_budget_level() {
    use glam::Quat;
    use secmo::{ChainParams, Level, World, WorldItem};
    let rig = common::shared(common::tail_desc(5, ChainParams::tail(1.0)));
    let bones = rig.bone_count();
    let mut world = World::new();
    let ids: Vec<_> = (0..16)
        .map(|_| world.add(rig.clone(), Default::default()))
        .collect();
    let poses: Vec<Vec<Transform>> = (0..240)
        .map(|i| {
            let mut p = rig.reference_pose().to_vec();
            p[1].rotation = Quat::from_rotation_y(0.8 * (i as f32 / 9.0).sin()).to_array();
            p
        })
        .collect();
    let mut outs = vec![Transform::IDENTITY; bones * ids.len()];
    let mut seen = [false; 4];
    let n = count_allocations(|| {
        for (i, pose) in poses.iter().enumerate() {
            // No budget, then none at all (every character held), then a
            // quarter of the cost, then none again (released).
            world.set_budget(match i / 60 {
                0 => None,
                1 => Some(0),
                2 => Some(16 * 5 * 2 / 4),
                _ => None,
            });
            let mut items: [Option<WorldItem<'_>>; 16] = Default::default();
            let mut outs_left: &mut [Transform] = &mut outs;
            for (k, (slot, id)) in items.iter_mut().zip(&ids).enumerate() {
                let (out, rest) = std::mem::take(&mut outs_left).split_at_mut(bones);
                outs_left = rest;
                let mut item = WorldItem::new(
                    *id,
                    FrameInput {
                        dt: if i == 0 { 0.0 } else { 1.0 / 60.0 },
                        pose,
                        teleport: i == 200,
                    },
                    out,
                );
                item.importance = k as f32;
                *slot = Some(item);
            }
            let mut batch: [WorldItem<'_>; 16] = items.map(Option::unwrap);
            if i % 2 == 0 {
                assert_eq!(world.update(&mut batch), 0);
            } else {
                let plan = world.plan(&mut batch);
                let (a, b) = batch.split_at_mut(5);
                assert_eq!(plan.update_range(a) + plan.update_range(b), 0);
            }
            for id in &ids {
                seen[world.level(*id).unwrap() as usize] = true;
            }
        }
    });
    assert_eq!(seen, [true; 4], "every level ran");
    assert_eq!(
        n, 0,
        "{n} allocations in 240 world updates of 16 characters"
    );
    assert!(outs.iter().all(Transform::is_finite));
    assert_eq!(world.level(ids[0]).unwrap(), Level::Full);
}

#[test]
fn character_state_per_simulated_joint() {
    // Issue #14's workload: 12 hair strands × 6 joints, three colliders.
    // Everything a Character allocates, over its simulated joints: the
    // figure benches/README.md reports (target ≤ 256 B; see there).
    use glam::Vec3;
    use secmo::{BoneDesc, ChainDesc, ChainParams, Character, Collider, ColliderShape, RigDesc};
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("head", 0, t(0.0, 1.6, 0.0)),
    ];
    let mut chains = Vec::new();
    for c in 0..12 {
        let first = bones.len() as u32;
        for j in 0..6 {
            let parent = if j == 0 { 1 } else { bones.len() - 1 };
            bones.push(BoneDesc::new(
                format!("h{c}_{j}"),
                parent as i32,
                t(0.0, -0.05, 0.01),
            ));
        }
        let mut chain = ChainDesc::new((first..first + 6).collect(), 1, ChainParams::hair(1.0));
        chain.colliders = vec![0, 1, 2];
        chains.push(chain);
    }
    let sphere = |r: f32| Collider {
        bone: 1,
        shape: ColliderShape::Sphere,
        a: Vec3::ZERO,
        b: Vec3::ZERO,
        radius: r,
    };
    let colliders = vec![
        sphere(0.09),
        sphere(0.06),
        Collider {
            shape: ColliderShape::Capsule,
            b: Vec3::X,
            ..sphere(0.05)
        },
    ];
    let rig = std::sync::Arc::new(
        secmo::Rig::new(RigDesc {
            bones,
            colliders,
            chains,
            ..Default::default()
        })
        .unwrap(),
    );
    let mut character = None;
    let bytes = count_bytes(|| character = Some(Character::new(rig.clone(), Default::default())));
    let per_joint = bytes as f32 / rig.particle_count() as f32;
    eprintln!(
        "Character state: {bytes} B for {} simulated joints ({} bones): {per_joint:.0} B per joint",
        rig.particle_count(),
        rig.bone_count()
    );
    // Issue #14's target, 256 B (benches/README.md gives the measured figure). The local
    // pose (40 B a bone) and the packed component matrices (48 B) cost 90 B per joint of it;
    // the chain parameters are the rig's, shared until one changes.
    assert!(per_joint <= 256.0, "{per_joint} B per simulated joint");

    // The same character in a world (issue #49's target is 256 B per
    // simulated joint on every path): everything a new world allocates for
    // 16 of them. Besides each character (boxed in its slot), a slot keeps
    // one rotation per chain joint (the held pose or a level change's blend
    // offset: 16 B) and the world a level-change arena of a sixteenth of the
    // characters' snapshots and chain rotations (src/world.rs).
    let mut world = secmo::World::new();
    let bytes = count_bytes(|| {
        for _ in 0..16 {
            world.add(rig.clone(), Default::default());
        }
    });
    let in_world = bytes as f32 / (16 * rig.particle_count()) as f32;
    eprintln!("In a world: {in_world:.0} B per simulated joint");
    assert!(
        in_world <= 256.0,
        "{in_world} B per simulated joint in a world"
    );
    // A parameter change copies the rig's parameters into the character
    // once (156 B a chain); the same parameters again copy nothing.
    let mut c = character.expect("created");
    let same = *c.chain_params(0).expect("a chain");
    assert_eq!(count_bytes(|| c.set_chain_params(0, same).unwrap()), 0);
    let mut changed = same;
    changed.weight = 0.5 * same.weight;
    let copied = count_bytes(|| c.set_chain_params(0, changed).unwrap());
    let list = 12 * std::mem::size_of::<ChainParams>();
    // The list and the shared pointer's counts.
    assert!(
        (list..list + 64).contains(&copied),
        "{copied} B for a first parameter change"
    );
    assert_eq!(count_bytes(|| c.set_chain_params(1, changed).unwrap()), 0);
    assert_eq!(c.chain_params(0), Some(&changed));
    assert_eq!(c.chain_params(2), Some(&same));
}
