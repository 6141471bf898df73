//! VRMC_springBone_limit (docs/vrm-mapping.md "Angle limits",
//! docs/settings.md): secmo's VRM preset with cone, hinge and spherical
//! limits against a test double written here from the extension's formulas
//! (its reference-implementation appendix) and VRMC_springBone's joint
//! update, in double precision, over a motion that drives every limited
//! joint into its limit; and the lane kernel against the scalar one.

mod common;

use std::sync::Arc;

use glam::{DQuat, DVec3, Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainKernel, ChainParams, Character, FrameInput, JointLimit, LimitShape,
    RigDesc, Transform,
};

const STIFFNESS: f32 = 0.8;
const DRAG: f32 = 0.3;
const GRAVITY: f32 = 0.6;
const H: f64 = 1.0 / 120.0;

/// root, head (1.5 m up), then four joints hanging back and down from it,
/// some with a rest rotation, and `strands` such chains side by side.
fn rig(limits: &[JointLimit], strands: usize) -> RigDesc {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new(
            "head",
            0,
            Transform::from_translation(Vec3::new(0.0, 1.5, 0.0)),
        ),
    ];
    let mut chains = Vec::new();
    for s in 0..strands {
        let first = bones.len() as u32;
        for k in 0..4 {
            let (parent, t) = if k == 0 {
                (1, Vec3::new(0.05 * s as f32, -0.05, -0.08))
            } else {
                (bones.len() - 1, Vec3::new(0.01, -0.1, -0.02))
            };
            let rotation = match k {
                1 => Quat::from_rotation_x(0.2),
                2 => Quat::from_rotation_z(-0.15),
                _ => Quat::IDENTITY,
            };
            bones.push(BoneDesc::new(
                format!("s{s}_{k}"),
                parent as i32,
                Transform::new(t, rotation, Vec3::ONE),
            ));
        }
        let mut params = ChainParams::vrm(1.0);
        params.vrm_stiffness = STIFFNESS;
        params.vrm_drag_force = DRAG;
        params.vrm_gravity_power = GRAVITY;
        let mut chain = ChainDesc::new((first..first + 4).collect(), 1, params);
        chain.end_offset = Some(Vec3::new(0.0, -0.1, 0.0));
        chain.limits = limits.to_vec();
        chains.push(chain);
    }
    RigDesc {
        bones,
        units_per_meter: 1.0,
        chains,
        ..Default::default()
    }
}

fn limits() -> Vec<JointLimit> {
    vec![
        JointLimit {
            shape: LimitShape::Cone,
            angle: 0.35,
            yaw: 0.0,
            rotation: [0.0, 0.0, 0.0, 1.0],
        },
        JointLimit {
            shape: LimitShape::Hinge,
            angle: 0.5,
            yaw: 0.0,
            rotation: Quat::from_rotation_y(0.6).to_array(),
        },
        JointLimit {
            shape: LimitShape::Spherical,
            angle: 0.4,
            yaw: 0.15,
            rotation: Quat::from_rotation_x(-0.2).to_array(),
        },
        JointLimit {
            shape: LimitShape::Cone,
            angle: 0.25,
            yaw: 0.0,
            rotation: Quat::from_rotation_z(0.3).to_array(),
        },
    ]
}

/// The head's frame at step `n`: it turns, nods and sways hard enough to
/// swing every joint against its limit.
fn head_at(n: usize) -> (DVec3, DQuat) {
    let t = n as f64 * H;
    let q = DQuat::from_rotation_y(1.2 * (2.1 * t).sin())
        * DQuat::from_rotation_x(0.7 * (3.3 * t).sin())
        * DQuat::from_rotation_z(0.5 * (1.7 * t + 0.4).sin());
    let p = DVec3::new(
        0.4 * (2.7 * t).sin(),
        1.5 + 0.2 * (4.1 * t).sin(),
        0.3 * (1.9 * t).cos(),
    );
    (p, q)
}

/// The double: VRMC_springBone's joint update and VRMC_springBone_limit's
/// limits, written from the two specifications in f64.
struct Double {
    /// Per joint: its local translation (in its parent), rest rotation,
    /// bone axis and length (to its child, or the end offset).
    local: Vec<(DVec3, DQuat, DVec3, f64)>,
    limits: Vec<JointLimit>,
    current: Vec<DVec3>,
    previous: Vec<DVec3>,
    /// How many steps each joint's limit changed the tail.
    pub clamped: Vec<usize>,
}

fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

fn dq(q: [f32; 4]) -> DQuat {
    DQuat::from_xyzw(q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64).normalize()
}

impl Double {
    fn new(desc: &RigDesc, limits: &[JointLimit]) -> Self {
        let chain = &desc.chains[0];
        let mut local = Vec::new();
        for (k, &j) in chain.joints.iter().enumerate() {
            let b = &desc.bones[j as usize];
            let child = match chain.joints.get(k + 1) {
                Some(&c) => d3(Vec3::from(desc.bones[c as usize].reference.translation)),
                None => d3(chain.end_offset.unwrap()),
            };
            local.push((
                d3(Vec3::from(b.reference.translation)),
                dq(b.reference.rotation),
                child.normalize(),
                child.length(),
            ));
        }
        let mut d = Self {
            local,
            limits: limits.to_vec(),
            current: Vec::new(),
            previous: Vec::new(),
            clamped: vec![0; 4],
        };
        // Tails start at the rest pose.
        let (mut position, mut rotation) = head_at(0);
        for &(t, r, axis, length) in &d.local.clone() {
            position += rotation * t;
            rotation *= r;
            d.current.push(position + rotation * axis * length);
        }
        d.previous = d.current.clone();
        d
    }

    /// The shortest turn from +Y onto `axis` (half a turn about X when
    /// opposite), then the limit's rotation.
    fn limit_frame(axis: DVec3, limit: &JointLimit) -> DQuat {
        let dot = axis.y;
        let arc = if dot + 1.0 < 1e-8 {
            DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0)
        } else {
            DQuat::from_xyzw(axis.z, 0.0, -axis.x, dot + 1.0).normalize()
        };
        arc * dq(limit.rotation)
    }

    fn apply(limit: &JointLimit, mut d: DVec3) -> DVec3 {
        let angle = (limit.angle as f64).min(std::f64::consts::PI);
        match limit.shape {
            LimitShape::None => d,
            LimitShape::Cone => {
                let c = angle.cos();
                if d.y < c {
                    let ratio = ((1.0 - c * c) / (1.0 - d.y * d.y)).sqrt();
                    d.x *= ratio;
                    d.z *= ratio;
                    d.y = c;
                }
                d
            }
            LimitShape::Hinge => {
                d.x = 0.0;
                d = d.normalize();
                let c = angle.cos();
                if d.y < c {
                    let ratio = ((1.0 - c * c) / (1.0 - d.y * d.y)).sqrt();
                    d.z *= ratio;
                    d.y = c;
                }
                d
            }
            LimitShape::Spherical => {
                let yaw_max = (limit.yaw as f64).min(std::f64::consts::FRAC_PI_2);
                let mut pitch = d.z.atan2(d.y);
                let mut yaw = d.x.asin();
                if pitch.abs() > angle {
                    pitch = angle * pitch.signum();
                }
                if yaw.abs() > yaw_max {
                    yaw = yaw_max * yaw.signum();
                }
                DVec3::new(yaw.sin(), yaw.cos() * pitch.cos(), yaw.cos() * pitch.sin())
            }
        }
    }

    fn step(&mut self, n: usize) {
        let (mut position, mut parent) = head_at(n);
        let gravity = DVec3::NEG_Y * GRAVITY as f64;
        for k in 0..self.local.len() {
            let (t, r, axis, length) = self.local[k];
            let head = if k == 0 {
                position + parent * t
            } else {
                position
            };
            let bind = parent * r;
            let inertia = (self.current[k] - self.previous[k]) * (1.0 - DRAG as f64);
            let stiffness = bind * axis * (H * STIFFNESS as f64);
            let mut next = self.current[k] + inertia + stiffness + gravity * H;
            next = head + (next - head).normalize() * length;
            if self.limits[k].shape != LimitShape::None {
                let frame = bind * Self::limit_frame(axis, &self.limits[k]);
                let d = frame.inverse() * (next - head).normalize();
                let limited = Self::apply(&self.limits[k], d);
                if (limited - d).length() > 1e-9 {
                    self.clamped[k] += 1;
                }
                next = head + frame * limited * length;
            }
            self.previous[k] = self.current[k];
            self.current[k] = next;
            let to = bind.inverse() * (next - head).normalize();
            parent = bind * DQuat::from_rotation_arc(axis, to);
            position = next;
        }
    }
}

fn pose_at(rig: &secmo::Rig, n: usize) -> Vec<Transform> {
    let mut pose = rig.reference_pose().to_vec();
    let (p, q) = head_at(n);
    pose[1] = Transform::new(p.as_vec3(), q.as_quat(), Vec3::ONE);
    pose
}

/// secmo's tails of the first chain after each update at 120 Hz.
fn secmo_run(rig: &Arc<secmo::Rig>, kernel: Option<ChainKernel>, steps: usize) -> Vec<Vec<Vec3>> {
    let mut c = Character::new(Arc::clone(rig), Default::default());
    if let Some(k) = kernel {
        c.set_chain_kernel(k).unwrap();
    }
    let mut out = rig.reference_pose().to_vec();
    let mut tails = Vec::new();
    for n in 0..=steps {
        let pose = pose_at(rig, n);
        let dt = if n == 0 { 0.0 } else { 1.0 / 120.0 };
        c.update(
            &FrameInput {
                dt,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
        tails.push(c.particle_positions());
    }
    tails
}

#[test]
fn cone_hinge_and_spherical_limits_match_the_specifications_double() {
    const STEPS: usize = 1200; // 10 s
    let limits = limits();
    let desc = rig(&limits, 1);
    let rig = common::shared(desc.clone());
    let run = secmo_run(&rig, Some(ChainKernel::Scalar), STEPS);
    let mut double = Double::new(&desc, &limits);
    let chain_length: f64 = double.local.iter().map(|l| l.3).sum();
    let mut worst = 0f64;
    for (n, tails) in run.iter().enumerate() {
        if n > 0 {
            double.step(n);
        }
        for (a, b) in tails.iter().zip(&double.current) {
            worst = worst.max((d3(*a) - *b).length() / chain_length);
        }
    }
    // Every joint spends part of the motion on its limit.
    for (k, &c) in double.clamped.iter().enumerate() {
        assert!(
            c > STEPS / 20,
            "joint {k} met its limit in {c} of {STEPS} steps"
        );
    }
    assert!(
        worst < 2e-5,
        "secmo differs from the double by {worst} of the chain"
    );
    // And the limits matter: without them the tails go elsewhere.
    let free = secmo_run(
        &common::shared(rig_desc_without_limits()),
        Some(ChainKernel::Scalar),
        STEPS,
    );
    let apart = run
        .iter()
        .zip(&free)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(p, q)| (*p - *q).length()))
        .fold(0f32, f32::max);
    assert!(
        apart as f64 > 0.2 * chain_length,
        "limits moved the tails by {apart} m"
    );
}

fn rig_desc_without_limits() -> RigDesc {
    rig(&[], 1)
}

#[test]
fn limited_chains_give_the_same_bits_in_lanes() {
    let rig = common::shared(rig(&limits(), 3));
    let scalar = secmo_run(&rig, Some(ChainKernel::Scalar), 600);
    let lanes = secmo_run(&rig, None, 600);
    assert_eq!(scalar, lanes);
}
