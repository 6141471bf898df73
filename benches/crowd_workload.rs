//! Issue #14's crowd workload, shared by `benches/crowd.rs` (criterion) and
//! `examples/crowd_frames.rs` (a fixed number of frames, for instruction
//! counts under cachegrind) and tests/aarch64.rs (the same crowd on two
//! targets).
#![allow(dead_code)]

use std::sync::Arc;

use std::hint::black_box;

use glam::{Quat, Vec3};
use secmo::{
    update_batch, BatchItem, BoneDesc, ChainDesc, ChainKernel, ChainParams, Character, Collider,
    ColliderShape, FrameInput, Rig, RigDesc, Transform,
};

fn t(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

/// root → hips → chest → neck → head, `chains` strands of `joints` joints
/// around the head; with `colliders`, a head sphere, a neck sphere and a
/// shoulder capsule on every strand.
pub fn hair_rig(chains: usize, joints: usize, colliders: bool) -> Arc<Rig> {
    strand_rig(chains, joints, colliders, ChainParams::hair(1.0))
}

/// [`hair_rig`] with the strands on the VRM preset (VRMC_springBone's
/// defaults, gravity power 0.5, a 2 cm hit radius): what an imported VRM
/// avatar's hair runs.
pub fn vrm_rig(chains: usize, joints: usize, colliders: bool) -> Arc<Rig> {
    let mut params = ChainParams::vrm(1.0);
    params.vrm_gravity_power = 0.5;
    params.radius = 0.02;
    strand_rig(chains, joints, colliders, params)
}

fn strand_rig(chains: usize, joints: usize, colliders: bool, params: ChainParams) -> Arc<Rig> {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 1.0, 0.0)),
        BoneDesc::new("chest", 1, t(0.0, 0.35, 0.0)),
        BoneDesc::new("neck", 2, t(0.0, 0.2, 0.0)),
        BoneDesc::new("head", 3, t(0.0, 0.1, 0.0)),
    ];
    let mut chain_descs = Vec::new();
    for c in 0..chains {
        let angle = std::f32::consts::TAU * c as f32 / chains as f32;
        let (s, co) = angle.sin_cos();
        let first = bones.len() as u32;
        for j in 0..joints {
            let (parent, offset) = if j == 0 {
                (4, t(0.08 * s, 0.06, 0.08 * co))
            } else {
                (bones.len() - 1, t(0.01 * s, -0.045, 0.01 * co))
            };
            bones.push(BoneDesc::new(format!("hair{c}_{j}"), parent as i32, offset));
        }
        let mut chain = ChainDesc::new((first..first + joints as u32).collect(), 4, params);
        if colliders {
            chain.colliders = vec![0, 1, 2];
        }
        chain_descs.push(chain);
    }
    let colliders = vec![
        Collider {
            bone: 4,
            shape: ColliderShape::Sphere,
            a: Vec3::new(0.0, 0.08, 0.0),
            b: Vec3::ZERO,
            radius: 0.09,
        },
        Collider {
            bone: 3,
            shape: ColliderShape::Sphere,
            a: Vec3::ZERO,
            b: Vec3::ZERO,
            radius: 0.06,
        },
        Collider {
            bone: 2,
            shape: ColliderShape::Capsule,
            a: Vec3::new(-0.18, 0.15, 0.0),
            b: Vec3::new(0.18, 0.15, 0.0),
            radius: 0.06,
        },
    ];
    Arc::new(
        Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders,
            chains: chain_descs,
            ..Default::default()
        })
        .unwrap(),
    )
}

/// 120 frames of a walking, head-turning body, different per character.
pub fn poses(rig: &Rig, character: usize) -> Vec<Vec<Transform>> {
    (0..120)
        .map(|i| {
            let t = i as f32 / 60.0 + 0.37 * character as f32;
            let mut p = rig.reference_pose().to_vec();
            p[1].translation = [0.3 * (1.5 * t).sin(), 1.0 + 0.03 * (6.0 * t).sin(), 0.0];
            p[4].rotation = (Quat::from_rotation_y(0.8 * (2.0 * t).sin())
                * Quat::from_rotation_x(0.3 * (3.1 * t).sin()))
            .to_array();
            p
        })
        .collect()
}

pub struct Crowd {
    characters: Vec<Character>,
    poses: Vec<Vec<Vec<Transform>>>,
    outs: Vec<Vec<Transform>>,
    frame: usize,
}

impl Crowd {
    pub fn new(rig: &Arc<Rig>, count: usize) -> Self {
        let mut crowd = Self {
            characters: (0..count)
                .map(|_| Character::new(Arc::clone(rig), Default::default()))
                .collect(),
            poses: (0..count).map(|k| poses(rig, k)).collect(),
            outs: vec![rig.reference_pose().to_vec(); count],
            frame: 0,
        };
        for _ in 0..60 {
            crowd.step(1);
        }
        crowd
    }

    /// Runs every character on `kernel`.
    pub fn set_kernel(&mut self, kernel: ChainKernel) {
        for c in &mut self.characters {
            c.set_chain_kernel(kernel).expect("a kernel this CPU runs");
        }
    }

    /// One 60 Hz frame of every character, the batch split over `threads`.
    pub fn step(&mut self, threads: usize) {
        self.frame = (self.frame + 1) % 120;
        let frame = self.frame;
        let mut items: Vec<BatchItem<'_>> = self
            .characters
            .iter_mut()
            .zip(&mut self.outs)
            .zip(&self.poses)
            .map(|((c, out), poses)| {
                BatchItem::new(
                    c,
                    FrameInput {
                        dt: 1.0 / 60.0,
                        pose: &poses[frame],
                        teleport: false,
                    },
                    out,
                )
            })
            .collect();
        if threads <= 1 {
            assert_eq!(update_batch(&mut items), 0);
        } else {
            // As a job system runs it: the calling thread takes a range too.
            let per = items.len().div_ceil(threads);
            std::thread::scope(|s| {
                let mut ranges = items.chunks_mut(per);
                let own = ranges.next();
                for range in ranges {
                    s.spawn(move || assert_eq!(update_batch(range), 0));
                }
                if let Some(range) = own {
                    assert_eq!(update_batch(range), 0);
                }
            });
        }
        black_box(&self.outs);
    }

    /// Every character's output pose after the last step.
    pub fn outputs(&self) -> &[Vec<Transform>] {
        &self.outs
    }

    /// [`Crowd::step`] on one thread with one `Character::update` per
    /// character instead of the batch (no chains of different characters
    /// share lanes).
    pub fn step_each(&mut self) {
        self.frame = (self.frame + 1) % 120;
        let frame = self.frame;
        for ((c, out), poses) in self
            .characters
            .iter_mut()
            .zip(&mut self.outs)
            .zip(&self.poses)
        {
            let input = FrameInput {
                dt: 1.0 / 60.0,
                pose: &poses[frame],
                teleport: false,
            };
            c.update(&input, out).expect("a valid update");
        }
        black_box(&self.outs);
    }
}

/// The crowd in a [`secmo::World`]: the same characters, poses and frames
/// as [`Crowd`], updated as one plan and ranges (optionally on a budget).
pub struct WorldCrowd {
    world: secmo::World,
    ids: Vec<secmo::CharacterId>,
    poses: Vec<Vec<Vec<Transform>>>,
    outs: Vec<Vec<Transform>>,
    frame: usize,
}

impl WorldCrowd {
    pub fn new(rig: &Arc<Rig>, count: usize) -> Self {
        let mut world = secmo::World::new();
        let ids = (0..count)
            .map(|_| world.add(Arc::clone(rig), Default::default()))
            .collect();
        let mut crowd = Self {
            world,
            ids,
            poses: (0..count).map(|k| poses(rig, k)).collect(),
            outs: vec![rig.reference_pose().to_vec(); count],
            frame: 0,
        };
        for _ in 0..60 {
            crowd.step(1);
        }
        crowd
    }

    pub fn set_kernel(&mut self, kernel: ChainKernel) {
        for id in &self.ids {
            let c = self.world.get_mut(*id).expect("a live character");
            c.set_chain_kernel(kernel).expect("a kernel this CPU runs");
        }
    }

    /// The world's budget in joint-substeps per update.
    pub fn set_budget(&mut self, budget: Option<u64>) {
        self.world.set_budget(budget);
    }

    /// One 60 Hz frame: one plan, then the items in `threads` ranges.
    pub fn step(&mut self, threads: usize) {
        self.frame = (self.frame + 1) % 120;
        let frame = self.frame;
        let mut items: Vec<secmo::WorldItem<'_>> = self
            .ids
            .iter()
            .zip(&mut self.outs)
            .zip(&self.poses)
            .enumerate()
            .map(|(k, ((id, out), poses))| {
                let mut item = secmo::WorldItem::new(
                    *id,
                    FrameInput {
                        dt: 1.0 / 60.0,
                        pose: &poses[frame],
                        teleport: false,
                    },
                    out,
                );
                item.importance = -((k % 10) as f32);
                item
            })
            .collect();
        let plan = self.world.plan(&mut items);
        if threads <= 1 {
            assert_eq!(plan.update_range(&mut items), 0);
        } else {
            let per = items.len().div_ceil(threads);
            let plan = &plan;
            std::thread::scope(|s| {
                for range in items.chunks_mut(per) {
                    s.spawn(move || assert_eq!(plan.update_range(range), 0));
                }
            });
        }
        black_box(&self.outs);
    }

    pub fn outputs(&self) -> &[Vec<Transform>] {
        &self.outs
    }
}
