//! Hair (SPEC §8) and the chain behaviours users of KawaiiPhysics and VRM
//! spring bones expect (SPEC §13): frame-rate independence, teleport, pauses,
//! degenerate input, snapshots.

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainParams, Character, CharacterOptions, Collider, ColliderShape,
    FrameInput, Rig, RigDesc, Transform,
};

const HEAD: usize = 1;
const STRAND: usize = 2;
const LINKS: usize = 6;

/// root, head at 1.6 m, and a strand of 6 × 5 cm hanging down and back.
fn hair_desc(params: ChainParams) -> RigDesc {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new(
            "head",
            0,
            Transform::from_translation(Vec3::new(0.0, 1.6, 0.0)),
        ),
    ];
    for i in 0..LINKS {
        let offset = if i == 0 {
            Vec3::new(0.03, 0.05, -0.09)
        } else {
            Vec3::new(0.0, -0.048, -0.014)
        };
        bones.push(BoneDesc::new(
            format!("hair_{i}"),
            if i == 0 {
                HEAD as i32
            } else {
                (STRAND + i - 1) as i32
            },
            Transform::from_translation(offset),
        ));
    }
    RigDesc {
        bones,
        units_per_meter: 1.0,
        chains: vec![ChainDesc::new(
            (0..LINKS).map(|i| (STRAND + i) as u32).collect(),
            HEAD as u32,
            params,
        )],
        ..Default::default()
    }
}

fn rig(desc: RigDesc) -> Arc<Rig> {
    Arc::new(Rig::new(desc).expect("valid rig"))
}

fn head_pose(rig: &Rig, rotation: Quat, offset: Vec3) -> Vec<Transform> {
    let mut pose = rig.reference_pose().to_vec();
    pose[HEAD].rotation = rotation.to_array();
    pose[HEAD].translation = (Vec3::new(0.0, 1.6, 0.0) + offset).to_array();
    pose
}

fn step(c: &mut Character, dt: f32, pose: &[Transform]) -> Vec<Transform> {
    let mut out = pose.to_vec();
    c.update(
        &FrameInput {
            dt,
            pose,
            teleport: false,
        },
        &mut out,
    )
    .unwrap();
    out
}

/// SPEC §10 head-turn benchmark: 4 s of head motion, then still.
fn head_turn(t: f32) -> Quat {
    if t >= 4.0 {
        return Quat::IDENTITY;
    }
    let fade = (std::f32::consts::PI * t / 4.0).sin();
    Quat::from_rotation_y(1.0 * fade * (2.0 * t).sin())
        * Quat::from_rotation_x(0.4 * fade * (3.0 * t).sin())
}

/// Largest angle between a strand segment and its rest arc in the head's
/// current frame (SPEC §8: the rest arc is kept in the attachment frame).
fn worst_angle_to_rest(c: &Character, head_rotation: Quat, head_offset: Vec3) -> f32 {
    let rig = c.rig();
    let setup = &rig.chains()[0];
    let mut rest = vec![Vec3::ZERO; LINKS];
    secmo::solvers::chain::rest_directions(setup, c.chain_params(0).unwrap(), &mut rest);
    let p = c.particle_positions();
    let mut head =
        Vec3::new(0.0, 1.6, 0.0) + head_offset + head_rotation * Vec3::new(0.03, 0.05, -0.09);
    let mut worst = 0.0f32;
    for k in 0..LINKS {
        let angle = (p[k] - head)
            .normalize()
            .angle_between(head_rotation * rest[k]);
        worst = worst.max(angle.to_degrees());
        head = p[k];
    }
    worst
}

#[test]
fn hair_settles_on_its_rest_arc_without_tentacle_curl() {
    // SPEC §8/§10: 4 s of head motion, 8 s settling, 120 Hz simulation, 30 Hz sampling.
    let rig = rig(hair_desc(ChainParams::hair(1.0)));
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut tip_track: Vec<Vec3> = Vec::new();
    let mut swing = 0.0f32;
    for i in 0..(12 * 30) {
        let t = i as f32 / 30.0;
        let head = head_turn(t);
        step(&mut c, 1.0 / 30.0, &head_pose(&rig, head, Vec3::ZERO));
        if t < 4.0 {
            swing = swing.max(worst_angle_to_rest(&c, head, Vec3::ZERO));
        }
        tip_track.push(c.particle_positions()[LINKS - 1]);
    }
    let settled = worst_angle_to_rest(&c, Quat::IDENTITY, Vec3::ZERO);
    // Tip motion between 30 Hz samples in the last 2 s.
    let still = tip_track[tip_track.len() - 60..]
        .windows(2)
        .map(|w| (w[1] - w[0]).length())
        .fold(0.0f32, f32::max);
    println!(
        "largest angle to the rest arc during the turn {swing:.1}°, after settling {settled:.4}°, \
         tip motion in the last 2 s {:.2e} mm",
        still * 1000.0
    );
    assert!(
        swing > 5.0,
        "the head turn must swing the strand off its rest arc: {swing}°"
    );
    assert!(settled < 1.0, "tentacle curl: {settled}°");
    assert!(
        still * 1000.0 < 0.001,
        "tip still moving {} mm",
        still * 1000.0
    );
}

fn strand_with_collider(
    shape: ColliderShape,
    a: Vec3,
    b: Vec3,
    radius: f32,
    radii: Vec<f32>,
) -> RigDesc {
    let mut params = ChainParams::hair(1.0);
    params.gravity = 9.8;
    let mut desc = hair_desc(params);
    desc.colliders = vec![Collider {
        bone: HEAD as u32,
        shape,
        a,
        b,
        radius,
    }];
    desc.chains[0].colliders = vec![0];
    desc.chains[0].radii = radii;
    desc
}

#[test]
fn a_link_crossing_a_capsule_is_pushed_out_along_its_whole_length() {
    // A capsule lying across the strand's rest arc, between two particles.
    let rig = rig(strand_with_collider(
        ColliderShape::Capsule,
        Vec3::new(-0.2, -0.02, -0.09),
        Vec3::new(0.2, -0.02, -0.09),
        0.012,
        vec![0.004; LINKS],
    ));
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    for _ in 0..240 {
        step(
            &mut c,
            1.0 / 60.0,
            &head_pose(&rig, Quat::IDENTITY, Vec3::ZERO),
        );
    }
    let capsule = rig.colliders()[0];
    let (a, b) = (
        capsule.a + Vec3::new(0.0, 1.6, 0.0),
        capsule.b + Vec3::new(0.0, 1.6, 0.0),
    );
    let p = c.particle_positions();
    let setup = &rig.chains()[0];
    let mut head = Vec3::new(0.03, 1.65, -0.09); // the strand root in world space
    let mut closest = f32::MAX;
    for (tip, radius) in p.iter().zip(&setup.radii) {
        let (u, v) = secmo::solvers::collide::closest_segment_params(head, *tip, a, b);
        let d = ((head + (*tip - head) * u) - (a + (b - a) * v)).length();
        closest = closest.min(d - radius);
        head = *tip;
    }
    println!("closest link surface to capsule axis: {closest:.5} (capsule radius 0.012)");
    assert!(
        closest >= 0.012 - 5e-4,
        "a link passes through the capsule: {closest}"
    );
    assert!(c.contacts().contains(&1));
}

#[test]
fn a_resting_strand_stays_on_the_contact_and_does_not_bounce() {
    // A 3 cm ball just behind the strand's rest arc (which hangs straight down
    // at z ≈ −0.11, 1.5 cm inside the ball): the restoring force keeps
    // pressing the strand against it. It must come to rest there, touching on
    // every frame, without hopping off (SPEC §8 contact without bounce).
    let rig = rig(strand_with_collider(
        ColliderShape::Sphere,
        Vec3::new(0.03, -0.10, -0.125),
        Vec3::ZERO,
        0.03,
        vec![],
    ));
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let pose = head_pose(&rig, Quat::IDENTITY, Vec3::ZERO);
    let center = Vec3::new(0.03, 1.50, -0.125);
    let link_radius = rig.chains()[0].radii[0];
    let mut widest_gap = 0.0f32;
    for i in 0..600 {
        step(&mut c, 1.0 / 60.0, &pose);
        if i >= 60 {
            assert!(
                c.contacts().contains(&1),
                "frame {i}: the strand left the ball"
            );
            // The gap between the ball and the nearest particle never opens up.
            let gap = c
                .particle_positions()
                .iter()
                .map(|p| (*p - center).length() - 0.03 - link_radius)
                .fold(f32::MAX, f32::min);
            widest_gap = widest_gap.max(gap);
        }
    }
    let fastest = c
        .particle_velocities()
        .iter()
        .map(|v| v.length())
        .fold(0.0f32, f32::max);
    println!("widest gap after settling {widest_gap:.2e} m, final speed {fastest:.2e} m/s");
    assert!(widest_gap < 1e-3, "the strand hopped off by {widest_gap} m");
    assert!(fastest < 1e-3, "still moving at {fastest} m/s");
}

#[test]
fn segment_radius_is_read_from_its_own_joint() {
    // Only the last segment has a large radius; a sphere near the last link
    // must touch it. Reading joint i+1 would give the last segment radius 0.
    let mut radii = vec![0.001; LINKS];
    radii[LINKS - 1] = 0.03;
    let base = Rig::new(hair_desc(ChainParams::hair(1.0))).unwrap();
    let p_last_head = {
        let mut c = vec![glam::Affine3A::IDENTITY; base.bone_count()];
        secmo::math::forward_kinematics(base.parents(), base.reference_pose(), &mut c);
        Vec3::from(c[STRAND + LINKS - 1].translation) - Vec3::new(0.0, 1.6, 0.0)
    };
    // A ball 4 cm beside the middle of the last link: 0.03 + 0.015 > 0.04.
    let rig = rig(strand_with_collider(
        ColliderShape::Sphere,
        p_last_head + Vec3::new(0.0, -0.024, -0.007) + Vec3::new(0.04, 0.0, 0.0),
        Vec3::ZERO,
        0.015,
        radii,
    ));
    assert_eq!(rig.chains()[0].radii[LINKS - 1], 0.03);
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut last_touched = false;
    for _ in 0..30 {
        step(
            &mut c,
            1.0 / 60.0,
            &head_pose(&rig, Quat::IDENTITY, Vec3::ZERO),
        );
        last_touched |= c.contacts()[LINKS - 1] == 1;
    }
    assert!(
        last_touched,
        "the last segment's own radius must reach the ball"
    );
}
