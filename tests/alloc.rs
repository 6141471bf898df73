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
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

fn note() {
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        }
    });
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
            let input = SecmoFrameInput {
                struct_size: std::mem::size_of::<SecmoFrameInput>() as u32,
                flags: 0,
                dt: 1.0 / 60.0,
                pose: pose.as_ptr(),
                pose_len: pose.len(),
                world: Transform::IDENTITY,
                importance: 1.0,
            };
            let r = unsafe {
                secmo_character_update(ch, &input, out.as_mut_ptr(), out.len(), &mut info)
            };
            assert_eq!(r, SECMO_OK);
        }
    });
    assert_eq!(n, 0, "{n} allocations in 1000 C ABI updates");
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
