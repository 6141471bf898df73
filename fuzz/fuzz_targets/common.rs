//! Shared by the fuzz targets: a cursor over the fuzzer's bytes and a small
//! rig with every solver (springs, a constraint, a chain with colliders).

#![allow(dead_code)]

use glam::{Quat, Vec3};
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
            parent as i32,
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
