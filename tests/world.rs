//! The world (issue #49 items 1 and 4; src/world.rs): characters created
//! and owned by a world, updated in one call or in ranges, give the bits
//! they give alone, in a world of 1, 37 or 100 and in any lane position;
//! stale ids are refused; the CPU budget holds on the crowd. Allocations:
//! tests/alloc.rs. The C ABI: tests/world_c.rs.

mod common;

#[path = "support/kernel_scenes.rs"]
mod scenes;

#[path = "../benches/crowd_workload.rs"]
mod crowd;

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainParams, Character, CharacterId, FrameInput, NodeConstraintDesc,
    NodeConstraintKind, Rig, Transform, World, WorldItem,
};

/// A tail rig whose free bone copies the hips' rotation (a node
/// constraint), with the tail's chain.
fn node_constraint_rig() -> Arc<Rig> {
    let mut desc = common::tail_desc(5, ChainParams::tail(1.0));
    desc.bones.push(BoneDesc::new(
        "follower",
        0,
        Transform::from_translation(Vec3::new(0.3, 1.0, 0.0)),
    ));
    let follower = (desc.bones.len() - 1) as u32;
    desc.node_constraints = vec![NodeConstraintDesc {
        kind: NodeConstraintKind::Rotation,
        source: 1,
        destination: follower,
        weight: 1.0,
    }];
    common::shared(desc)
}

/// The characters a test follows: a rig, how it is set up, its input.
#[derive(Clone, Copy)]
enum Probe {
    /// tests/support/kernel_scenes.rs: hair, tails, VRM strands, a skirt,
    /// every collider shape (sphere, capsule, plane, inside sphere and
    /// capsule), the floor; teleported at update 100, still from 1.5 s
    /// (settle and sleep).
    Scene,
    /// The scene at LOD: half rate on every chain (importance 0.3).
    SceneLod,
    /// A tail under a node constraint.
    NodeConstraint,
    /// The crowd's VRM hair with head, neck and shoulder colliders.
    CrowdVrm,
}

const PROBES: [Probe; 4] = [
    Probe::Scene,
    Probe::SceneLod,
    Probe::NodeConstraint,
    Probe::CrowdVrm,
];

struct Rigs {
    scene: Arc<Rig>,
    node: Arc<Rig>,
    vrm: Arc<Rig>,
    hair: Arc<Rig>,
}

impl Rigs {
    fn new() -> Self {
        Rigs {
            scene: scenes::rig(),
            node: node_constraint_rig(),
            vrm: crowd::vrm_rig(12, 6, true),
            hair: crowd::hair_rig(4, 4, true),
        }
    }

    fn of(&self, probe: Probe) -> &Arc<Rig> {
        match probe {
            Probe::Scene | Probe::SceneLod => &self.scene,
            Probe::NodeConstraint => &self.node,
            Probe::CrowdVrm => &self.vrm,
        }
    }
}

/// Sets up a probe's character (world transform, wind, LOD).
fn setup(c: &mut Character, probe: Probe, k: usize) {
    c.set_world_transform(Transform::new(
        Vec3::new(3.0, 0.0, -2.0 + k as f32),
        Quat::from_rotation_y(0.7),
        Vec3::splat(1.0 + 0.1 * k as f32),
    ))
    .unwrap();
    c.set_wind(Vec3::new(0.4, 0.0, 0.1 * k as f32)).unwrap();
    if let Probe::SceneLod = probe {
        for ci in 0..c.rig().chains().len() {
            let mut p = *c.chain_params(ci).unwrap();
            p.lod_half_below = 0.5;
            c.set_chain_params(ci, p).unwrap();
        }
        c.set_importance(0.3).unwrap();
    }
}

/// A probe's input at `frame`: moving, then still from 1.5 s.
fn input(rig: &Rig, probe: Probe, frame: usize) -> (Vec<Transform>, f32, bool) {
    let t = (frame as f32 / 60.0).min(1.5);
    let pose = match probe {
        Probe::Scene | Probe::SceneLod => scenes::pose(rig, t + 0.5),
        _ => {
            let mut p = rig.reference_pose().to_vec();
            p[1].rotation = (Quat::from_rotation_y(0.8 * (3.0 * t).sin())
                * Quat::from_rotation_x(0.3 * (2.0 * t).sin()))
            .to_array();
            p[1].translation[0] += 0.3 * (2.0 * t).sin();
            p
        }
    };
    let dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
    (pose, dt, frame == 100)
}

const FRAMES: usize = 150;

/// Every probe alone: its output at every update.
fn alone(rigs: &Rigs) -> Vec<Vec<Vec<Transform>>> {
    PROBES
        .iter()
        .enumerate()
        .map(|(k, &probe)| {
            let rig = rigs.of(probe);
            let mut c = Character::new(Arc::clone(rig), Default::default());
            setup(&mut c, probe, k);
            let mut out = rig.reference_pose().to_vec();
            (0..FRAMES)
                .map(|frame| {
                    let (pose, dt, teleport) = input(rig, probe, frame);
                    c.update(
                        &FrameInput {
                            dt,
                            pose: &pose,
                            teleport,
                        },
                        &mut out,
                    )
                    .unwrap();
                    out.clone()
                })
                .collect()
        })
        .collect()
}

/// The probes in a world of `size` characters, probe `k` in slot
/// `slots[k]` (the others: crowd hair and VRM characters and node
/// constraint tails, moving), updated in ranges of `range` items (0: one
/// `World::update`). A filler is removed and another added at update 60
/// (its slot reused). Each probe's outputs.
fn in_world(rigs: &Rigs, size: usize, slots: [usize; 4], range: usize) -> Vec<Vec<Vec<Transform>>> {
    let mut world = World::new();
    let filler_rig = |i: usize| match i % 3 {
        0 => &rigs.hair,
        1 => &rigs.vrm,
        _ => &rigs.node,
    };
    let mut ids: Vec<(CharacterId, Option<Probe>, Arc<Rig>)> = Vec::new();
    for slot in 0..size {
        let probe = slots.iter().position(|&s| s == slot).map(|k| PROBES[k]);
        let rig = probe.map_or(filler_rig(slot), |p| rigs.of(p));
        let id = world.add(Arc::clone(rig), Default::default());
        assert_eq!(id.slot() as usize, slot);
        if let Some(p) = probe {
            let k = slots.iter().position(|&s| s == slot).unwrap();
            setup(world.get_mut(id).unwrap(), p, k);
        }
        ids.push((id, probe, Arc::clone(rig)));
    }
    let mut outs: Vec<Vec<Transform>> = ids
        .iter()
        .map(|(_, _, r)| r.reference_pose().to_vec())
        .collect();
    let mut result = vec![Vec::new(); 4];
    for frame in 0..FRAMES {
        if frame == 60 && size > 1 {
            // A filler leaves and another takes its slot.
            let at = (0..size).find(|s| !slots.contains(s)).unwrap();
            world.remove(ids[at].0).unwrap();
            let rig = Arc::clone(&rigs.hair);
            let id = world.add(Arc::clone(&rig), Default::default());
            assert_eq!(id.slot() as usize, at, "the slot is reused");
            assert!(world.get(ids[at].0).is_err(), "the old id is stale");
            outs[at] = rig.reference_pose().to_vec();
            ids[at] = (id, None, rig);
        }
        let inputs: Vec<(Vec<Transform>, f32, bool)> = ids
            .iter()
            .enumerate()
            .map(|(slot, (_, probe, rig))| match probe {
                Some(p) => input(rig, *p, frame),
                None => input(rig, Probe::NodeConstraint, frame + 7 * slot),
            })
            .map(|(p, dt, _)| (p, dt, false))
            .collect();
        let mut items: Vec<WorldItem<'_>> = ids
            .iter()
            .zip(&mut outs)
            .zip(&inputs)
            .map(|(((id, probe, _), out), (pose, dt, teleport))| {
                let teleport = *teleport || (probe.is_some() && frame == 100);
                WorldItem::new(
                    *id,
                    FrameInput {
                        dt: *dt,
                        pose,
                        teleport,
                    },
                    out,
                )
            })
            .collect();
        let failed = if range == 0 {
            world.update(&mut items)
        } else {
            let plan = world.plan(&mut items);
            items.chunks_mut(range).map(|r| plan.update_range(r)).sum()
        };
        assert_eq!(failed, 0, "update {frame}");
        drop(items);
        for (k, &slot) in slots.iter().enumerate() {
            result[k].push(outs[slot].clone());
        }
    }
    result
}

#[test]
fn a_character_gives_the_same_bits_alone_and_in_worlds_of_1_37_and_100() {
    let rigs = Rigs::new();
    let expected = alone(&rigs);
    // The chains swing (the test compares motion, not rest poses).
    let rest = rigs.scene.reference_pose();
    let swing = expected[0][80]
        .iter()
        .zip(rest)
        .map(|(a, b)| Quat::from_array(a.rotation).angle_between(Quat::from_array(b.rotation)))
        .fold(0.0f32, f32::max);
    assert!(swing > 0.3, "the scene moves ({swing} rad)");
    let check = |got: Vec<Vec<Vec<Transform>>>, what: &str| {
        for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
            for (frame, (a, b)) in g.iter().zip(e).enumerate() {
                let same = a
                    .iter()
                    .zip(b)
                    .all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y));
                assert!(same, "{what}: probe {k} differs at update {frame}");
            }
        }
    };
    // A world of one for each probe.
    for (k, &probe) in PROBES.iter().enumerate() {
        let mut world = World::new();
        let rig = rigs.of(probe);
        let id = world.add(Arc::clone(rig), Default::default());
        setup(world.get_mut(id).unwrap(), probe, k);
        let mut out = rig.reference_pose().to_vec();
        for (frame, expected) in expected[k].iter().enumerate() {
            let (pose, dt, teleport) = input(rig, probe, frame);
            let mut items = [WorldItem::new(
                id,
                FrameInput {
                    dt,
                    pose: &pose,
                    teleport,
                },
                &mut out,
            )];
            assert_eq!(world.update(&mut items), 0);
            let info = items[0].result.as_ref().unwrap();
            // (At LOD half rate every other update runs no substep.)
            if frame > 1 && frame < 90 && (k != 1 || frame % 2 == 0) {
                assert!(
                    info.joint_substeps > 0,
                    "probe {k}'s chains ran at update {frame}"
                );
            }
            drop(items);
            let same = out
                .iter()
                .zip(expected)
                .all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y));
            assert!(same, "world of 1: probe {k} differs at update {frame}");
        }
    }
    // Lane positions 0, 3, 6, 4 (of 8) in 37, in ranges of 5; then
    // 3, 2, 5, 3 in 100, in one call; then 7, 1, 0, 6 in 100 in ranges of 13.
    check(in_world(&rigs, 37, [0, 11, 22, 36], 5), "world of 37");
    check(in_world(&rigs, 100, [3, 50, 77, 99], 0), "world of 100");
    check(
        in_world(&rigs, 100, [7, 9, 40, 94], 13),
        "world of 100, ranges of 13",
    );
}

#[test]
fn stale_and_repeated_ids_are_refused_and_change_nothing() {
    let rig = common::shared(common::tail_desc(4, ChainParams::tail(1.0)));
    let mut world = World::new();
    let a = world.add(Arc::clone(&rig), Default::default());
    let b = world.add(Arc::clone(&rig), Default::default());
    assert_eq!((a.slot(), b.slot(), world.len()), (0, 1, 2));
    world.remove(a).unwrap();
    let err = world.remove(a).unwrap_err().to_string();
    assert!(err.contains("stale"), "{err}");
    assert!(world.get_mut(a).is_err());
    let c = world.add(Arc::clone(&rig), Default::default());
    assert_eq!(c.slot(), 0, "the slot is reused");
    assert_ne!(c, a, "with a new generation");
    assert!(world.get(a).is_err() && world.get(c).is_ok());
    assert_eq!(world.ids().collect::<Vec<_>>(), vec![c, b]);

    let pose = rig.reference_pose().to_vec();
    let (mut o1, mut o2, mut o3) = (pose.clone(), pose.clone(), pose.clone());
    let input = FrameInput {
        dt: 1.0 / 60.0,
        pose: &pose,
        teleport: false,
    };
    let mut items = [
        WorldItem::new(a, input, &mut o1),
        WorldItem::new(b, input, &mut o2),
        WorldItem::new(b, input, &mut o3),
    ];
    assert_eq!(world.update(&mut items), 2);
    let e0 = items[0].result.as_ref().unwrap_err().to_string();
    let e2 = items[2].result.as_ref().unwrap_err().to_string();
    assert!(e0.contains("stale"), "{e0}");
    assert!(e2.contains("listed twice"), "{e2}");
    assert!(items[1].result.is_ok());
    // Non-finite importance is refused for that item alone.
    drop(items);
    let mut items = [WorldItem::new(b, input, &mut o1)];
    items[0].importance = f32::NAN;
    assert_eq!(world.update(&mut items), 1);
    let e = items[0].result.as_ref().unwrap_err().to_string();
    assert!(e.contains("importance"), "{e}");
}
