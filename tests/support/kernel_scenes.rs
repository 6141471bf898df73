//! The scene tests/lanes.rs and tests/sweeps.rs run every chain kernel on:
//! a body with hair, tails, VRM strands and a skirt, colliders of every
//! shape, over 10 s of motion (docs/architecture.md, "Invariants").

#![allow(dead_code)]

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainKernel, ChainParams, Character, Collider, ColliderShape, FrameInput,
    Rig, RigDesc, Transform,
};

pub fn t(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

pub const HIPS: usize = 1;
pub const HEAD: usize = 4;

/// A body with hair strands (3 to 7 joints) around the head, three tails of
/// different lengths on the hips, a VRM bun with strands hanging from it and
/// sliding over a sphere on it, four VRM strands, a VRM skirt partly in the
/// hips' space, and a collider of every shape.
pub fn rig() -> Arc<Rig> {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 1.0, 0.0)),
        BoneDesc::new("chest", 1, t(0.0, 0.35, 0.0)),
        BoneDesc::new("neck", 2, t(0.0, 0.2, 0.0)),
        BoneDesc::new("head", 3, t(0.0, 0.1, 0.0)),
    ];
    let mut chains = Vec::new();
    let mut strand = |bones: &mut Vec<BoneDesc>,
                      name: &str,
                      anchor: usize,
                      joints: usize,
                      first: Transform,
                      step: Transform,
                      params: ChainParams,
                      colliders: Vec<u32>| {
        let start = bones.len() as u32;
        for j in 0..joints {
            let (parent, offset) = if j == 0 {
                (anchor, first)
            } else {
                (bones.len() - 1, step)
            };
            bones.push(BoneDesc::new(format!("{name}_{j}"), parent as i32, offset));
        }
        let mut chain = ChainDesc::new(
            (start..start + joints as u32).collect(),
            anchor as u32,
            params,
        );
        chain.colliders = colliders;
        chains.push(chain);
    };
    // Per-joint VRM numbers (a spring that tapers), on two of the four VRM
    // strands: a block mixes tapered and uniform lanes.
    let taper = |chain: &mut ChainDesc| {
        chain.vrm_offsets = (0..chain.joints.len())
            .map(|k| [0.6 * k as f32, -0.05 * k as f32, 0.2 * k as f32])
            .collect();
    };
    // Hair: the first five in one block; the sixth in slow motion, so it
    // steps out of its block's time; the seventh at half rate.
    for c in 0..7 {
        let a = std::f32::consts::TAU * c as f32 / 7.0;
        let (s, co) = a.sin_cos();
        let mut params = ChainParams::hair(1.0);
        if c == 5 {
            params.time_factor = 0.5;
        }
        if c == 6 {
            params.lod_half_below = 2.0;
        }
        strand(
            &mut bones,
            &format!("hair{c}"),
            HEAD,
            3 + c % 5,
            t(0.08 * s, 0.06, 0.08 * co),
            t(0.012 * s, -0.05, 0.012 * co),
            params,
            // Two strands with more colliders than the lane kernel loads
            // for a substep (8): the rest are loaded per link, among them
            // a plane (the scalar function's shape).
            if c == 1 || c == 3 {
                vec![0, 1, 2, 7, 8, 9, 10, 11, 12, 13]
            } else {
                vec![0, 1, 2]
            },
        );
    }
    // Tails: floor, forward plane, bend coupling and limit, the legs.
    for (c, joints) in [4, 5, 6].into_iter().enumerate() {
        let link = 0.8 / joints as f32;
        let x = 0.06 * (c as f32 - 1.0);
        strand(
            &mut bones,
            &format!("tail{c}"),
            HIPS,
            joints,
            t(x, -0.05, -0.1),
            t(0.0, -0.35 * link, -0.94 * link),
            ChainParams::tail(1.0),
            vec![3, 4],
        );
    }
    // A bun spring behind the head with a sphere on its first joint
    // (collider 14), three VRM strands hanging from its second joint and
    // three sliding over its sphere in the head's space: once the bun has
    // run, each three read only what it moved and step in one lane block.
    let bun = bones.len();
    let vrm = |gravity: f32| {
        let mut params = ChainParams::vrm(1.0);
        params.vrm_stiffness = 0.4;
        params.vrm_drag_force = 0.3;
        params.vrm_gravity_power = gravity;
        params.radius = 0.015;
        params
    };
    strand(
        &mut bones,
        "bun",
        HEAD,
        2,
        t(0.0, 0.0, -0.1),
        t(0.0, -0.02, -0.08),
        vrm(1.0),
        vec![],
    );
    for c in 0..3 {
        let x = 0.02 * (c as f32 - 1.0);
        strand(
            &mut bones,
            &format!("branch{c}"),
            bun + 1,
            3,
            t(x, -0.03, -0.02),
            t(0.0, -0.05, 0.0),
            vrm(0.3),
            vec![],
        );
        // In the head's space (a VRM center): the sphere comes from the
        // bun's per-substep record, moved into the space's frame.
        let mut slide = vrm(0.3);
        slide.simulation_space = HEAD as i32;
        strand(
            &mut bones,
            &format!("slide{c}"),
            HEAD,
            4,
            t(x * 1.5, 0.05, -0.08),
            t(0.0, -0.05, -0.01),
            slide,
            vec![14],
        );
    }
    // VRM strands: sphere, capsule, plane and inside colliders.
    for c in 0..4 {
        let a = std::f32::consts::TAU * (c as f32 + 0.5) / 4.0;
        let (s, co) = a.sin_cos();
        let mut params = ChainParams::vrm(1.0);
        params.vrm_stiffness = 0.5 + 0.5 * c as f32;
        params.vrm_drag_force = 0.2 + 0.2 * c as f32;
        params.vrm_gravity_power = 0.3 * c as f32;
        params.radius = 0.015;
        // Two of them restart on their pose at the teleport, two are carried.
        params.teleport_restart = (c % 2) as u32;
        strand(
            &mut bones,
            &format!("vrm{c}"),
            HEAD,
            4 + c,
            t(0.09 * s, 0.02, 0.09 * co),
            t(0.01 * s, -0.05, 0.01 * co),
            params,
            if c == 2 {
                vec![0, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13]
            } else {
                vec![0, 2, 5, 6]
            },
        );
    }
    // A skirt: three VRM strands in the hips' space (a VRM spring's
    // center) over the leg capsules, which such a chain places from the
    // space's frame, then one in world space over the same capsules: the
    // three step in one block, the fourth apart.
    for c in 0..4 {
        let a = std::f32::consts::TAU * (c as f32 + 0.25) / 4.0;
        let (s, co) = a.sin_cos();
        let mut params = ChainParams::vrm(1.0);
        params.vrm_stiffness = 0.8;
        params.vrm_drag_force = 0.5;
        params.vrm_gravity_power = 0.2;
        params.radius = 0.02;
        if c < 3 {
            params.simulation_space = HIPS as i32;
        }
        params.teleport_restart = u32::from(c == 1 || c == 3);
        strand(
            &mut bones,
            &format!("skirt{c}"),
            HIPS,
            3,
            t(0.12 * s, -0.02, 0.12 * co),
            t(0.03 * s, -0.09, 0.03 * co),
            params,
            vec![3, 4],
        );
    }
    // The VRM strands are the four chains before the skirt's four.
    let n = chains.len() - 4;
    taper(&mut chains[n - 3]);
    taper(&mut chains[n - 1]);
    let collider = |bone, shape, a, b, radius| Collider {
        bone,
        shape,
        a,
        b,
        radius,
    };
    let colliders = vec![
        collider(
            4,
            ColliderShape::Sphere,
            Vec3::new(0.0, 0.08, 0.0),
            Vec3::ZERO,
            0.09,
        ),
        collider(3, ColliderShape::Sphere, Vec3::ZERO, Vec3::ZERO, 0.06),
        collider(
            2,
            ColliderShape::Capsule,
            Vec3::new(-0.18, 0.15, 0.0),
            Vec3::new(0.18, 0.15, 0.0),
            0.06,
        ),
        collider(
            1,
            ColliderShape::Capsule,
            Vec3::new(-0.1, -0.1, 0.0),
            Vec3::new(-0.1, -0.9, 0.0),
            0.07,
        ),
        collider(
            1,
            ColliderShape::Capsule,
            Vec3::new(0.1, -0.1, 0.0),
            Vec3::new(0.1, -0.9, 0.0),
            0.07,
        ),
        collider(
            2,
            ColliderShape::Plane,
            Vec3::new(0.0, 0.0, 0.1),
            Vec3::Z,
            0.0,
        ),
        collider(4, ColliderShape::InsideSphere, Vec3::ZERO, Vec3::ZERO, 0.45),
        // 7..=13: more shapes around the head and shoulders.
        collider(
            4,
            ColliderShape::Sphere,
            Vec3::new(0.07, 0.02, 0.0),
            Vec3::ZERO,
            0.05,
        ),
        collider(
            4,
            ColliderShape::Sphere,
            Vec3::new(-0.07, 0.02, 0.0),
            Vec3::ZERO,
            0.05,
        ),
        collider(
            3,
            ColliderShape::Capsule,
            Vec3::new(0.0, 0.0, 0.06),
            Vec3::new(0.0, -0.1, 0.06),
            0.04,
        ),
        collider(
            4,
            ColliderShape::Sphere,
            Vec3::new(0.0, 0.02, -0.08),
            Vec3::ZERO,
            0.04,
        ),
        collider(
            2,
            ColliderShape::Capsule,
            Vec3::new(-0.15, 0.1, -0.05),
            Vec3::new(0.15, 0.1, -0.05),
            0.05,
        ),
        collider(
            3,
            ColliderShape::Sphere,
            Vec3::new(0.0, -0.05, 0.05),
            Vec3::ZERO,
            0.05,
        ),
        collider(
            2,
            ColliderShape::Plane,
            Vec3::new(0.0, 0.0, -0.12),
            Vec3::NEG_Z,
            0.0,
        ),
        // 14: on the bun's first joint.
        collider(
            bun as u32,
            ColliderShape::Sphere,
            Vec3::new(0.0, -0.02, -0.06),
            Vec3::ZERO,
            0.04,
        ),
    ];
    Arc::new(
        Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders,
            chains,
            ..Default::default()
        })
        .expect("valid rig"),
    )
}

/// A body that walks, crouches (the tails reach the floor), turns its head
/// hard (hair on the head and shoulders), and stands still for the last
/// three seconds (the settle phase and sleep).
pub fn pose(rig: &Rig, time: f32) -> Vec<Transform> {
    let mut p = rig.reference_pose().to_vec();
    let t = time.min(7.0);
    let crouch = 0.9 * (0.5 - 0.5 * (1.3 * t).cos());
    p[HIPS].translation = [
        0.4 * (1.1 * t).sin(),
        1.0 - crouch,
        0.5 * t + 0.05 * (5.0 * t).sin(),
    ];
    p[HIPS].rotation = (Quat::from_rotation_y(0.9 * (2.1 * t).sin())
        * Quat::from_rotation_x(1.2 * (2.9 * t).sin()))
    .to_array();
    p[HEAD].rotation = (Quat::from_rotation_y(1.2 * (2.3 * t).sin())
        * Quat::from_rotation_x(0.5 * (3.7 * t).sin()))
    .to_array();
    p
}

/// The character's world scale and wind.
#[derive(Clone, Copy, Debug)]
pub struct Scene {
    pub scale: f32,
    pub wind: Vec3,
    /// The input turns every chain joint (the tail and hair chains then
    /// rest on the input's pose, `ChainParams::rest_source`).
    pub animated: bool,
}

/// Runs 10 s at 60 Hz with `kernel`; every frame's particle positions and
/// output pose, and how many link contacts there were.
pub fn run(
    rig: &Arc<Rig>,
    kernel: ChainKernel,
    scene: Scene,
) -> (Vec<Vec<Vec3>>, Vec<Vec<Transform>>, usize) {
    let mut c = Character::new(Arc::clone(rig), Default::default());
    c.set_chain_kernel(kernel).expect("a kernel this CPU runs");
    c.set_world_transform(Transform::new(
        Vec3::new(3.0, 0.0, -2.0),
        Quat::from_rotation_y(0.7),
        Vec3::splat(scene.scale),
    ))
    .expect("world");
    c.set_wind(scene.wind).expect("wind");
    assert_eq!(c.chain_kernel(), kernel);
    let mut out = rig.reference_pose().to_vec();
    let (mut positions, mut outputs, mut contacts) = (Vec::new(), Vec::new(), 0);
    for frame in 0..600 {
        let time = frame as f32 / 60.0;
        let mut input = pose(rig, time);
        if scene.animated {
            for chain in rig.chains() {
                for (k, &j) in chain.joints.iter().enumerate() {
                    let turn = Quat::from_rotation_z(0.4 * (2.3 * time + k as f32).sin())
                        * Quat::from_rotation_x(0.3 * (1.7 * time).cos());
                    let r = turn * Quat::from_array(input[j as usize].rotation);
                    input[j as usize].rotation = r.normalize().to_array();
                }
            }
        }
        c.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &input,
                // A teleport of the whole body at 4 s.
                teleport: frame == 240,
            },
            &mut out,
        )
        .expect("update");
        positions.push(c.particle_positions());
        outputs.push(out.clone());
        contacts += c.contacts().iter().filter(|&&k| k != 0).count();
    }
    (positions, outputs, contacts)
}

/// Every lane kernel this CPU runs against the scalar kernel in `scene`:
/// the worst particle difference (fraction of chain length) and output
/// rotation difference, and the contacts.
pub fn compare(rig: &Arc<Rig>, scene: Scene) -> usize {
    let (reference, reference_out, contacts) = run(rig, ChainKernel::Scalar, scene);
    // Each particle's chain length (at the world scale), for the relative bound.
    let mut chain_length = vec![0.0f32; reference[0].len()];
    for chain in rig.chains() {
        let length: f32 = chain.lengths.iter().sum::<f32>() * scene.scale;
        for k in 0..chain.len() {
            chain_length[chain.first_particle + k] = length;
        }
    }
    let mut kernels = vec![ChainKernel::Lanes];
    if ChainKernel::LanesAvx2.supported() {
        kernels.push(ChainKernel::LanesAvx2);
    }
    for kernel in kernels {
        let (positions, outputs, lane_contacts) = run(rig, kernel, scene);
        let mut worst = 0.0f32;
        for (a, b) in reference.iter().zip(&positions) {
            for (k, (p, q)) in a.iter().zip(b).enumerate() {
                worst = worst.max((*p - *q).length() / chain_length[k]);
            }
        }
        let mut worst_rotation = 0.0f32;
        for (a, b) in reference_out.iter().zip(&outputs) {
            for (p, q) in a.iter().zip(b) {
                // Componentwise (angle_between reads 1e-3 rad between a
                // quaternion and itself when its norm is 1 − 1e-6).
                let (p, q) = (p.rotation(), q.rotation());
                let d = (p - q).length().min((p + q).length());
                worst_rotation = worst_rotation.max(d);
            }
        }
        println!(
            "{kernel:?} against Scalar over 10 s, {scene:?}: particles {worst:e} of chain \
             length, output rotations {worst_rotation:e} (quaternion distance), {contacts} link \
             contacts"
        );
        assert!(
            worst <= 1e-5,
            "{kernel:?}, {scene:?}: {worst:e} of chain length"
        );
        assert!(
            worst_rotation <= 1e-5,
            "{kernel:?}, {scene:?}: {worst_rotation:e}"
        );
        assert_eq!(
            lane_contacts, contacts,
            "{kernel:?}, {scene:?}: contacts differ"
        );
        // Stronger than the bar, and what the stage relies on (a
        // chain gives the same output in any block and on any kernel): the
        // lane kernel performs the scalar kernel's IEEE operations in its
        // order, so the two agree bit for bit.
        assert!(
            worst == 0.0 && worst_rotation == 0.0,
            "{kernel:?}, {scene:?}: not the scalar kernel's bits ({worst:e}, {worst_rotation:e})"
        );
    }
    contacts
}
