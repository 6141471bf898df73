//! Shared by the fuzz targets: a cursor over the fuzzer's bytes and a small
//! rig with every solver (springs, a constraint, a chain with colliders).

#![allow(dead_code)]

use glam::{Quat, Vec3};
use secmo::ffi::*;
use secmo::{
    BoneDesc, ChainDesc, ChainParams, Collider, ColliderShape, ConstraintDesc, RigDesc,
    SpringParams, Transform,
};

/// Reads values off the fuzzer's bytes; zeros once they run out.
pub struct Cursor<'a> {
    pub data: &'a [u8],
}

impl Cursor<'_> {
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Any f32 bit pattern (NaN, infinities, denormals, huge values).
    pub fn raw_f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }

    /// Mostly plausible values, sometimes raw bits.
    pub fn f32(&mut self) -> f32 {
        match self.u8() % 8 {
            0 => self.raw_f32(),
            k => (self.u8() as f32 - 128.0) / 32.0 * k as f32,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// root → hips → spine → chest (constraint target), hips → helper (spring),
/// hips → tail_1..4 (a tail chain with a sphere and a capsule on the spine).
pub fn rig_desc() -> RigDesc {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 1.0, 0.0)),
        BoneDesc::new("spine", 1, t(0.0, 0.2, 0.0)),
        BoneDesc::new("chest", 2, t(0.0, 0.2, 0.0)),
        BoneDesc::new("helper", 1, t(0.1, 0.0, 0.05)),
        BoneDesc::new("chest_helper", 3, t(0.1, 0.0, 0.1)),
    ];
    for i in 0..4 {
        let parent = if i == 0 { 1 } else { 5 + i };
        bones.push(BoneDesc::new(
            format!("tail_{i}"),
            parent,
            Transform::new(
                Vec3::new(0.0, -0.05, -0.15),
                Quat::from_rotation_x(0.1),
                Vec3::ONE,
            ),
        ));
    }
    let mut chain = ChainDesc::new(vec![6, 7, 8, 9], 1, ChainParams::tail(1.0));
    chain.colliders = vec![0, 1];
    RigDesc {
        bones,
        units_per_meter: 1.0,
        springs: vec![SpringParams::hip(4, 1.0)],
        constraints: vec![ConstraintDesc { bone: 5, target: 3 }],
        colliders: vec![
            Collider {
                bone: 2,
                shape: ColliderShape::Sphere,
                a: Vec3::ZERO,
                b: Vec3::ZERO,
                radius: 0.1,
            },
            Collider {
                bone: 1,
                shape: ColliderShape::Capsule,
                a: Vec3::new(-0.1, -0.3, 0.0),
                b: Vec3::new(0.1, -0.3, 0.0),
                radius: 0.08,
            },
        ],
        chains: vec![chain],
        ..Default::default()
    }
}

pub fn collider(shape: u32, bone: u32, a: [f32; 3], b: [f32; 3], radius: f32) -> SecmoColliderDesc {
    SecmoColliderDesc {
        struct_size: std::mem::size_of::<SecmoColliderDesc>() as u32,
        shape,
        bone,
        a,
        b,
        radius,
    }
}

/// Two rigs over the same skeleton (common::rig_desc): a tail against a
/// sphere and a capsule, or two hair chains held by three small inside
/// spheres that cannot all hold them, an inside capsule and a plane.
pub fn c_rig(enclosed: bool, rig: &secmo::Rig) -> *mut SecmoRig {
    let parents: Vec<i32> = rig.parents().to_vec();
    let reference: Vec<Transform> = rig.reference_pose().to_vec();
    // SAFETY: a plain-number C struct; the preset fills it.
    let mut params: SecmoChainParams = unsafe { std::mem::zeroed() };
    unsafe {
        if enclosed {
            secmo_chain_params_hair(1.0, &mut params)
        } else {
            secmo_chain_params_tail(1.0, &mut params)
        }
    };
    let joints = [6u32, 7, 8, 9];
    let colliders = if enclosed {
        vec![
            collider(
                SECMO_COLLIDER_INSIDE_SPHERE,
                1,
                [0.0, -0.1, -0.2],
                [0.0; 3],
                0.12,
            ),
            collider(
                SECMO_COLLIDER_INSIDE_SPHERE,
                1,
                [0.05, -0.2, -0.3],
                [0.0; 3],
                0.1,
            ),
            collider(
                SECMO_COLLIDER_INSIDE_SPHERE,
                1,
                [-0.05, -0.1, -0.45],
                [0.0; 3],
                0.09,
            ),
            collider(
                SECMO_COLLIDER_INSIDE_CAPSULE,
                1,
                [0.0, 0.0, 0.0],
                [0.0, -0.3, -0.5],
                0.15,
            ),
            collider(
                SECMO_COLLIDER_PLANE,
                1,
                [0.0, -0.4, 0.0],
                [0.1, 1.0, 0.2],
                0.0,
            ),
        ]
    } else {
        vec![
            collider(SECMO_COLLIDER_SPHERE, 2, [0.0; 3], [0.0; 3], 0.1),
            collider(
                SECMO_COLLIDER_CAPSULE,
                1,
                [-0.1, -0.3, 0.0],
                [0.1, -0.3, 0.0],
                0.08,
            ),
        ]
    };
    let colliders_of_chain: Vec<u32> = (0..colliders.len() as u32).collect();
    // Enclosed: two hair chains sharing the colliders, one on the first
    // tail joint and one hanging from it, whose roots a turn moves by
    // different amounts (one may pass its teleport distance alone).
    let chain = |first: usize, count: u32| SecmoChainDesc {
        struct_size: std::mem::size_of::<SecmoChainDesc>() as u32,
        anchor: 1,
        joints: joints[first..].as_ptr(),
        joint_count: count,
        preset: if enclosed {
            SECMO_CHAIN_HAIR
        } else {
            SECMO_CHAIN_TAIL
        },
        params: &params,
        radii: std::ptr::null(),
        weights: std::ptr::null(),
        colliders: colliders_of_chain.as_ptr(),
        collider_count: colliders_of_chain.len() as u32,
        has_end_offset: 0,
        end_offset: [0.0; 3],
    };
    let chains = if enclosed {
        vec![chain(0, 1), chain(1, 3)]
    } else {
        vec![chain(0, 4)]
    };
    // SAFETY: a plain-number C struct; the preset fills it.
    let mut springs: [SecmoSpringDesc; 1] = unsafe { std::mem::zeroed() };
    unsafe { secmo_spring_desc_hip(4, 1.0, &mut springs[0]) };
    // The spine follows the hips halfway (a VRM rotation constraint).
    let node_constraint = SecmoNodeConstraintDesc {
        struct_size: std::mem::size_of::<SecmoNodeConstraintDesc>() as u32,
        kind: SECMO_NODE_CONSTRAINT_ROTATION,
        source: 1,
        destination: 2,
        axis: 0,
        weight: 0.5,
    };
    let desc = SecmoRigDesc {
        bone_count: rig.bone_count() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 1.0,
        springs: springs.as_ptr(),
        spring_count: 1,
        colliders: colliders.as_ptr(),
        collider_count: colliders.len() as u32,
        chains: chains.as_ptr(),
        chain_count: chains.len() as u32,
        node_constraints: &node_constraint,
        node_constraint_count: 1,
        ..Default::default()
    };
    let mut out = std::ptr::null_mut();
    // SAFETY: a valid descriptor whose arrays outlive the call.
    unsafe { assert_eq!(secmo_rig_create(&desc, &mut out), SECMO_OK) };
    out
}

pub fn last_error() -> String {
    // SAFETY: the library returns a NUL-terminated thread-local string.
    unsafe { std::ffi::CStr::from_ptr(secmo_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

pub fn snapshot(ch: *const SecmoCharacter) -> Vec<u8> {
    let mut written = 0usize;
    let mut size = 0usize;
    let r = unsafe { secmo_character_snapshot_size(ch, &mut size) };
    assert_eq!(r, SECMO_OK);
    let mut buf = vec![0u8; size];
    let r = unsafe { secmo_character_snapshot(ch, buf.as_mut_ptr(), buf.len(), &mut written) };
    assert_eq!(r, SECMO_OK, "a character's own snapshot: {}", last_error());
    buf
}

/// A pose's floats as bits (outputs compared bit for bit).
pub fn bits(p: &[Transform]) -> Vec<u32> {
    p.iter()
        .flat_map(|t| {
            t.translation
                .iter()
                .chain(&t.rotation)
                .chain(&t.scale)
                .map(|v| v.to_bits())
        })
        .collect()
}
