//! The world (issue #49 items 1 and 4; src/world.rs): characters created
//! and owned by a world, updated in one call or in ranges, give the bits
//! they give alone, in a world of 1, 37 or 100 and in any lane position;
//! stale ids are refused; the CPU budget holds on the crowd. Allocations:
//! tests/alloc.rs. The C ABI at the end; C++: tests/cpp/world.cpp.

mod common;

#[path = "support/kernel_scenes.rs"]
mod scenes;

#[path = "../benches/crowd_workload.rs"]
mod crowd;

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainKernel, ChainParams, Character, CharacterId, Collider, ColliderShape,
    FrameInput, NodeConstraintDesc, NodeConstraintKind, Rig, RigDesc, Transform, World, WorldItem,
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

/// Every probe alone on the scalar kernel, chain by chain: its output at
/// every update. (A world steps its chains in lanes, and a block of VRM
/// chains on one clock keeps its particles in lanes across an update's
/// substeps: the crowd's VRM character compares those with the scalar
/// kernel's bits.)
fn alone(rigs: &Rigs) -> Vec<Vec<Vec<Transform>>> {
    PROBES
        .iter()
        .enumerate()
        .map(|(k, &probe)| {
            let rig = rigs.of(probe);
            let mut c = Character::new(Arc::clone(rig), Default::default());
            c.set_chain_kernel(ChainKernel::Scalar).unwrap();
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
    // A stale id fails; a character listed twice fails both items (which
    // of the two would be meant is not known) and is not updated.
    let before = world.get(b).unwrap().particle_positions();
    assert_eq!(world.update(&mut items), 3);
    let e0 = items[0].result.as_ref().unwrap_err().to_string();
    let e1 = items[1].result.as_ref().unwrap_err().to_string();
    let e2 = items[2].result.as_ref().unwrap_err().to_string();
    assert!(e0.contains("stale"), "{e0}");
    assert!(
        e1.contains("listed twice") && e2.contains("listed twice"),
        "{e1} / {e2}"
    );
    drop(items);
    assert_eq!(world.get(b).unwrap().particle_positions(), before);
    let mut items = [WorldItem::new(b, input, &mut o2)];
    assert_eq!(world.update(&mut items), 0, "alone it updates");
    // Non-finite importance is refused for that item alone.
    drop(items);
    let mut items = [WorldItem::new(b, input, &mut o1)];
    items[0].importance = f32::NAN;
    assert_eq!(world.update(&mut items), 1);
    let e = items[0].result.as_ref().unwrap_err().to_string();
    assert!(e.contains("importance"), "{e}");
}

/// An item refused (a dt out of range at the plan, a NaN pose in its
/// range) costs nothing against the budget and leaves its character's
/// level as it was: every later update of both characters gives the bits
/// of a twin world in which the refused item was never listed.
#[test]
fn a_refused_item_leaves_the_levels_and_the_budget_as_they_were() {
    let rig = common::shared(common::tail_desc(6, ChainParams::tail(1.0)));
    let pose_at = |frame: usize, k: usize| {
        let mut p = rig.reference_pose().to_vec();
        let t = frame as f32 / 60.0 + 0.4 * k as f32;
        p[1].rotation = Quat::from_rotation_y(0.8 * (3.0 * t).sin()).to_array();
        p
    };
    // Character 0 is the more important. From update 20 the budget fits
    // one character at full rate and one at half (12 + 6 joint-substeps),
    // so character 1 degrades.
    let budget = |frame: usize| if frame < 20 { Some(1000) } else { Some(18) };
    // Update 10: character 0's dt is 1e6 s; update 20: character 1's pose
    // is NaN on the update the budget first degrades it.
    let run = |refused: bool| {
        let mut world = World::new();
        let ids = [
            world.add(Arc::clone(&rig), Default::default()),
            world.add(Arc::clone(&rig), Default::default()),
        ];
        let mut outs = vec![rig.reference_pose().to_vec(); 2];
        let mut shown = Vec::new();
        for frame in 0..45 {
            world.set_budget(budget(frame));
            let poses = [pose_at(frame, 0), pose_at(frame, 1)];
            let mut bad = poses[1].clone();
            bad[2].rotation[0] = f32::NAN;
            let mut items = Vec::new();
            for (k, out) in outs.iter_mut().enumerate() {
                let skip = (frame == 10 && k == 0) || (frame == 20 && k == 1);
                if skip && !refused {
                    continue;
                }
                let mut input = FrameInput {
                    dt: if frame == 0 { 0.0 } else { 1.0 / 60.0 },
                    pose: &poses[k],
                    teleport: false,
                };
                if skip && k == 0 {
                    input.dt = 1e6;
                }
                if skip && k == 1 {
                    input.pose = &bad;
                }
                let mut item = WorldItem::new(ids[k], input, out);
                item.importance = 1.0 - k as f32;
                items.push(item);
            }
            world.update(&mut items);
            if refused && frame == 10 {
                let e = items[0].result.as_ref().unwrap_err().to_string();
                assert!(e.contains("dt"), "{e}");
                assert!(items[1].result.is_ok());
            }
            if refused && frame == 20 {
                assert!(items[0].result.is_ok() && items[1].result.is_err());
            }
            drop(items);
            let levels = [world.level(ids[0]).unwrap(), world.level(ids[1]).unwrap()];
            shown.push((frame, outs.clone(), levels));
        }
        shown
    };
    let (with, without) = (run(true), run(false));
    let mut degraded = false;
    for ((frame, a, la), (_, b, lb)) in with.iter().zip(&without) {
        if *frame == 10 || *frame == 20 {
            continue;
        }
        assert_eq!(a, b, "update {frame}: the outputs");
        assert_eq!(la, lb, "update {frame}: the levels");
        assert_eq!(la[0], secmo::Level::Full, "update {frame}");
        degraded |= la[1] != secmo::Level::Full;
    }
    assert!(degraded, "the budget degrades character 1");
}

/// The crowd of benches/crowd_workload.rs: 100 characters × 12 hair
/// strands × 6 joints with head, neck and shoulder colliders, at 60 Hz.
struct CrowdRun {
    /// Joint-substeps executed per update (from each item's info).
    executed: Vec<u64>,
    /// Per followed character: its level and output at every update.
    levels: Vec<Vec<secmo::Level>>,
    outputs: Vec<Vec<Vec<Transform>>>,
}

const CROWD: usize = 100;

/// Importance of crowd character `k`: ten rings of ten around the
/// camera, nearer is more important (ties within a ring: slot order).
fn crowd_importance(k: usize) -> f32 {
    -((k % 10) as f32)
}

fn crowd_input(poses: &[Vec<Vec<Transform>>], k: usize, frame: usize) -> FrameInput<'_> {
    FrameInput {
        dt: if frame == 0 { 0.0 } else { 1.0 / 60.0 },
        pose: &poses[k][frame % 120],
        teleport: false,
    }
}

/// Runs the crowd in one world with `budget(frame)`, following `follow`.
fn run_crowd(
    rig: &Arc<Rig>,
    poses: &[Vec<Vec<Transform>>],
    frames: usize,
    budget: impl Fn(usize) -> Option<u64>,
    follow: &[usize],
) -> CrowdRun {
    let mut world = World::new();
    let ids: Vec<CharacterId> = (0..CROWD)
        .map(|_| world.add(Arc::clone(rig), Default::default()))
        .collect();
    let mut outs = vec![rig.reference_pose().to_vec(); CROWD];
    let mut run = CrowdRun {
        executed: Vec::new(),
        levels: vec![Vec::new(); follow.len()],
        outputs: vec![Vec::new(); follow.len()],
    };
    for frame in 0..frames {
        world.set_budget(budget(frame));
        let mut items: Vec<WorldItem<'_>> = ids
            .iter()
            .zip(&mut outs)
            .enumerate()
            .map(|(k, (id, out))| {
                let mut item = WorldItem::new(*id, crowd_input(poses, k, frame), out);
                item.importance = crowd_importance(k);
                item
            })
            .collect();
        let plan = world.plan(&mut items);
        let failed: usize = items.chunks_mut(17).map(|r| plan.update_range(r)).sum();
        assert_eq!(failed, 0);
        run.executed.push(
            items
                .iter()
                .map(|i| u64::from(i.result.as_ref().unwrap().joint_substeps))
                .sum(),
        );
        drop(items);
        for (f, &k) in follow.iter().enumerate() {
            run.levels[f].push(world.level(ids[k]).unwrap());
            run.outputs[f].push(outs[k].clone());
        }
    }
    run
}

/// Character `k` of the crowd alone in a world of one, pinned at
/// `levels[f]` for update `f`; its output at every update.
fn twin(
    rig: &Arc<Rig>,
    poses: &[Vec<Vec<Transform>>],
    k: usize,
    levels: &[secmo::Level],
) -> Vec<Vec<Transform>> {
    let mut world = World::new();
    let id = world.add(Arc::clone(rig), Default::default());
    let mut out = rig.reference_pose().to_vec();
    let mut outs = Vec::new();
    for (frame, &level) in levels.iter().enumerate() {
        world.pin_level(id, Some(level)).unwrap();
        let mut items = [WorldItem::new(id, crowd_input(poses, k, frame), &mut out)];
        assert_eq!(world.update(&mut items), 0);
        outs.push(out.clone());
    }
    outs
}

fn largest_angle(a: &[Transform], b: &[Transform]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| Quat::from_array(x.rotation).angle_between(Quat::from_array(y.rotation)))
        .fold(0.0f32, f32::max)
}

/// Issue #49 item 4 on the crowd: the executed joint-substeps stay within
/// 5 % of the budget (on average over a second; per update the quarter
/// rate's every-other-update steps show), the least important characters
/// degrade first, and a degradation or restoration moves no joint more
/// than 1° from the same character's output without the transition.
/// Updates the budget test runs: 190 with a budget, then the return.
const FRAMES_CROWD: usize = 250;

#[test]
fn the_budget_holds_on_the_crowd_and_transitions_are_smooth() {
    let rig = crowd::hair_rig(12, 6, true);
    let poses: Vec<Vec<Vec<Transform>>> = (0..CROWD).map(|k| crowd::poses(&rig, k)).collect();
    // Full cost: 100 × 72 joints × 2 substeps.
    let full = (CROWD * 72 * 2) as u64;
    // No budget, then 60 %, then 10 % (quarter rate and held), then
    // none (restored one level per update).
    let schedule = move |frame: usize| match frame {
        0..30 => None,
        30..110 => Some(full * 6 / 10),
        110..190 => Some(full / 10),
        _ => None,
    };
    // Followed: the three least important (slots 99, 89, 79: ring 9, the
    // higher slot first), one of ring 5 and the most important.
    let follow = [99, 89, 79, 55, 0];
    let run = run_crowd(&rig, &poses, FRAMES_CROWD, schedule, &follow);
    println!("executed joint-substeps per update: {:?}", run.executed);
    assert_eq!(
        run.executed[20], full,
        "the crowd runs every substep without a budget"
    );
    // Each window starts once the levels have settled: every level step
    // of the 100 like characters takes at most ARENA_SHARE updates (the
    // arena's room), one step into the 60 % phase, two more into the 10 %.
    let settled = |start: usize, steps: usize| start + steps * secmo::world::ARENA_SHARE + 4;
    for (from, to, budget) in [
        (settled(30, 1), 110, full * 6 / 10),
        (settled(110, 2), 190, full / 10),
    ] {
        assert!(to - from >= 40, "a window of {} updates", to - from);
        let window = &run.executed[from..to];
        let mean = window.iter().sum::<u64>() as f64 / window.len() as f64;
        let (lo, hi) = (window.iter().min().unwrap(), window.iter().max().unwrap());
        println!(
            "budget {budget}: executed {mean:.1} per update on average ({:.2} % off), \
             {lo} to {hi} per update",
            100.0 * (mean - budget as f64) / budget as f64
        );
        assert!(
            (mean - budget as f64).abs() <= 0.05 * budget as f64,
            "budget {budget}: {mean} joint-substeps per update"
        );
    }
    // The least important are degraded first: halved at 60 %, held at
    // 10 %, where the most important is quartered but never held.
    assert_eq!(run.levels[0][100], secmo::Level::Half);
    assert_eq!(run.levels[4][100], secmo::Level::Full);
    assert_eq!(run.levels[0][180], secmo::Level::Held);
    assert_eq!(run.levels[4][180], secmo::Level::Quarter);
    for frame in 0..FRAMES_CROWD {
        assert!(run.levels[4][frame] <= run.levels[3][frame]);
        assert!(run.levels[3][frame] <= run.levels[0][frame]);
    }
    // Back to Full once the budget is gone: one level per update, each
    // level step of the 100 like characters in at most ARENA_SHARE updates
    // (the arena's room), so within 3 × ARENA_SHARE updates of 190.
    let back = 190 + 3 * secmo::world::ARENA_SHARE;
    assert!(back < FRAMES_CROWD);
    assert!(run.levels.iter().all(|l| l[back] == secmo::Level::Full));

    // Every transition of the followed characters against a twin that
    // stays at the previous level: on the update of the change the
    // character shows what the twin shows (the previous level's output,
    // from which the blend starts).
    let blend = usize::from(secmo::world::BLEND_UPDATES);
    let (mut worst, mut worst_step) = (0.0f32, 0.0f32);
    let mut transitions = 0;
    for (f, &k) in follow.iter().enumerate() {
        let levels = &run.levels[f];
        for frame in 1..levels.len() - blend {
            if levels[frame] == levels[frame - 1] {
                continue;
            }
            transitions += 1;
            let mut pinned = levels[..=frame + blend].to_vec();
            for level in &mut pinned[frame..] {
                *level = levels[frame - 1];
            }
            let outs = twin(&rig, &poses, k, &pinned);
            assert_eq!(
                outs[frame - 1],
                run.outputs[f][frame - 1],
                "the twin is the character (same bits) up to update {frame}"
            );
            let angle = largest_angle(&outs[frame], &run.outputs[f][frame]);
            let mut step = 0.0f32;
            let mut last = angle;
            for (twin_out, out) in outs.iter().zip(&run.outputs[f]).skip(frame + 1) {
                let d = largest_angle(twin_out, out);
                step = step.max(d - last);
                last = d;
            }
            println!(
                "character {k}, update {frame}: {:?} → {:?}: {:.3}° from the twin, growing \
                 by at most {:.3}° per update over the blend ({:.3}° after it)",
                levels[frame - 1],
                levels[frame],
                angle.to_degrees(),
                step.to_degrees(),
                last.to_degrees()
            );
            worst = worst.max(angle);
            worst_step = worst_step.max(step);
        }
    }
    assert!(transitions >= 10, "{transitions} transitions");
    assert!(
        worst.to_degrees() <= 1.0,
        "a transition moves a joint {}°",
        worst.to_degrees()
    );
    // Over the blend the character leaves the twin as fast as the two
    // levels' motions part: on this crowd (joints turning up to 23° per
    // update at Full) that is many degrees per update, which the blend
    // spreads but cannot remove. Reported, not bounded.
    println!(
        "over the blends: at most {:.2}° per update away from the twin",
        worst_step.to_degrees()
    );
}

/// The same inputs give the same levels; the budget rule orders by
/// importance, ties by slot (the higher slot first).
#[test]
fn the_plan_is_deterministic_and_orders_by_importance_then_slot() {
    let rig = common::shared(common::tail_desc(4, ChainParams::tail(1.0)));
    let levels = |seed: u32| {
        let mut world = World::new();
        let ids: Vec<CharacterId> = (0..40)
            .map(|_| world.add(Arc::clone(&rig), Default::default()))
            .collect();
        let pose = rig.reference_pose().to_vec();
        let mut outs = vec![pose.clone(); ids.len()];
        let mut all = Vec::new();
        for frame in 0..40usize {
            world.set_budget(Some(40 * 4 * 2 / 3 + (frame as u64 * seed as u64) % 50));
            let mut items: Vec<WorldItem<'_>> = ids
                .iter()
                .zip(&mut outs)
                .enumerate()
                .map(|(k, (id, out))| {
                    let input = FrameInput {
                        dt: if frame == 0 { 0.0 } else { 1.0 / 60.0 },
                        pose: &pose,
                        teleport: false,
                    };
                    let mut item = WorldItem::new(*id, input, out);
                    item.importance = ((k * 7 + frame) % 5) as f32;
                    item
                })
                .collect();
            assert_eq!(world.update(&mut items), 0);
            drop(items);
            all.push(
                ids.iter()
                    .map(|id| world.level(*id).unwrap())
                    .collect::<Vec<_>>(),
            );
        }
        all
    };
    let (a, b) = (levels(3), levels(3));
    assert_eq!(a, b, "same inputs, same levels");
    assert_ne!(a, levels(11), "the budget changes the levels");
    // Steady state: a fixed importance order gives levels that never
    // rise with importance; equal importance, the higher slot degrades first.
    let mut world = World::new();
    let ids: Vec<CharacterId> = (0..10)
        .map(|_| world.add(Arc::clone(&rig), Default::default()))
        .collect();
    let pose = rig.reference_pose().to_vec();
    let mut outs = vec![pose.clone(); ids.len()];
    // Full: 10 × 4 joints × 2 substeps = 80; 64 halves four of them.
    world.set_budget(Some(64));
    for frame in 0..10usize {
        let mut items: Vec<WorldItem<'_>> = ids
            .iter()
            .zip(&mut outs)
            .enumerate()
            .map(|(k, (id, out))| {
                let input = FrameInput {
                    dt: if frame == 0 { 0.0 } else { 1.0 / 60.0 },
                    pose: &pose,
                    teleport: false,
                };
                let mut item = WorldItem::new(*id, input, out);
                item.importance = if k < 5 { 1.0 } else { 0.0 };
                item
            })
            .collect();
        assert_eq!(world.update(&mut items), 0);
    }
    let got: Vec<_> = ids.iter().map(|id| world.level(*id).unwrap()).collect();
    // Slots 5 to 9 are the least important; of them the higher slots give
    // way first.
    use secmo::Level::{Full, Half};
    assert_eq!(
        got,
        [Full, Full, Full, Full, Full, Full, Half, Half, Half, Half]
    );
}

/// A C world item (level and result to be written).
fn c_item(
    character: *mut secmo::ffi::SecmoCharacter,
    input: *const secmo::ffi::SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut secmo::ffi::SecmoUpdateInfo,
    importance: f32,
) -> secmo::ffi::SecmoWorldItem {
    secmo::ffi::SecmoWorldItem {
        struct_size: std::mem::size_of::<secmo::ffi::SecmoWorldItem>() as u32,
        result: 0,
        character,
        input,
        out_pose,
        out_pose_len,
        out_info,
        importance,
        level: 99,
    }
}

/// The C ABI's world: `secmo_world_plan` and two ranges (one item in
/// place) give every output and info bit of one `secmo_character_update`
/// per character; world characters work with the character functions,
/// `secmo_character_destroy` refuses them; bad items fail alone.
#[test]
fn the_c_world_gives_what_one_call_each_gives_and_refuses_bad_items() {
    use secmo::ffi::*;
    use std::ffi::CStr;
    let last_error = || {
        unsafe { CStr::from_ptr(secmo_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    };
    unsafe {
        let live = secmo_live_object_count();
        let rig = common::c_tail_rig(std::ptr::null());
        let mut world: *mut SecmoWorld = std::ptr::null_mut();
        assert_eq!(secmo_world_create(&mut world), SECMO_OK);
        const N: usize = 10;
        let mut in_world = [std::ptr::null_mut::<SecmoCharacter>(); N];
        let mut alone = [std::ptr::null_mut::<SecmoCharacter>(); N];
        for k in 0..N {
            assert_eq!(secmo_world_add(world, rig, &mut in_world[k]), SECMO_OK);
            assert_eq!(
                secmo_character_create(rig, std::ptr::null(), &mut alone[k]),
                SECMO_OK
            );
            // Per-character functions work on a world's character.
            let wind = [0.3 * k as f32, 0.0, 0.0];
            assert_eq!(secmo_character_set_wind(in_world[k], &wind), SECMO_OK);
            assert_eq!(secmo_character_set_wind(alone[k], &wind), SECMO_OK);
        }
        assert_eq!(secmo_live_object_count(), live + 2 + 2 * N);
        // Refused, not freed: the character still updates below.
        secmo_character_destroy(in_world[3]);
        assert!(
            last_error().contains("belongs to a world"),
            "{}",
            last_error()
        );
        assert_eq!(secmo_live_object_count(), live + 2 + 2 * N);

        let bones = 6;
        let reference = secmo::Rig::new(common::tail_desc(4, ChainParams::tail(1.0))).unwrap();
        let mut swing = 0.0f32;
        for frame in 0..90 {
            let poses: Vec<Vec<Transform>> = (0..N)
                .map(|k| {
                    let mut p = reference.reference_pose().to_vec();
                    let t = frame as f32 / 60.0 + 0.3 * k as f32;
                    p[1].rotation = Quat::from_rotation_y(0.8 * (3.0 * t).sin()).to_array();
                    p
                })
                .collect();
            let mut inputs: Vec<SecmoFrameInput> =
                poses.iter().map(|p| common::c_frame_input(p)).collect();
            for (k, input) in inputs.iter_mut().enumerate() {
                if frame == 0 {
                    input.dt = 0.0;
                }
                if k == 2 {
                    input.flags |= SECMO_FRAME_HAS_WORLD;
                    input.world =
                        Transform::from_translation(Vec3::new(0.1 * frame as f32, 0.0, 0.0));
                }
                if k == 5 && frame == 40 {
                    input.flags |= SECMO_FRAME_TELEPORT;
                }
            }
            let info = || SecmoUpdateInfo {
                struct_size: std::mem::size_of::<SecmoUpdateInfo>() as u32,
                ..Default::default()
            };
            let mut expected = vec![vec![Transform::IDENTITY; bones]; N];
            let mut expected_info = [info(); N];
            for k in 0..N {
                assert_eq!(
                    secmo_character_update(
                        alone[k],
                        &inputs[k],
                        expected[k].as_mut_ptr(),
                        bones,
                        &mut expected_info[k]
                    ),
                    SECMO_OK
                );
            }
            // Character 7 in place.
            let mut outs = vec![vec![Transform::IDENTITY; bones]; N];
            let mut in_place = poses[7].clone();
            inputs[7].pose = in_place.as_ptr();
            let mut infos = [info(); N];
            let mut items: Vec<SecmoWorldItem> = (0..N)
                .map(|k| SecmoWorldItem {
                    result: 12345,
                    ..c_item(
                        in_world[k],
                        &inputs[k],
                        if k == 7 {
                            in_place.as_mut_ptr()
                        } else {
                            outs[k].as_mut_ptr()
                        },
                        bones,
                        &mut infos[k],
                        k as f32,
                    )
                })
                .collect();
            assert_eq!(secmo_world_plan(world, items.as_mut_ptr(), N), SECMO_OK);
            assert!(items
                .iter()
                .all(|i| i.result == SECMO_OK && i.level == SECMO_LEVEL_FULL));
            assert_eq!(
                secmo_world_update_range(world, items.as_mut_ptr(), 0, 4),
                SECMO_OK
            );
            assert_eq!(
                secmo_world_update_range(world, items.as_mut_ptr(), 4, N),
                SECMO_OK
            );
            outs[7] = in_place.clone();
            for k in 0..N {
                assert_eq!(items[k].result, SECMO_OK);
                assert_eq!(outs[k], expected[k], "update {frame}, character {k}");
                assert_eq!(infos[k].joint_substeps, expected_info[k].joint_substeps);
                assert_eq!(infos[k].warnings, expected_info[k].warnings);
            }
            // A second run of a planned range is refused and changes nothing.
            assert_eq!(
                secmo_world_update_range(world, items.as_mut_ptr(), 0, 1),
                SECMO_ERROR_INVALID_ARGUMENT
            );
            assert!(
                last_error().contains("already been updated"),
                "{}",
                last_error()
            );
            assert_eq!(outs[0], expected[0]);
            for o in &outs {
                swing = swing.max(
                    Quat::from_array(o[5].rotation)
                        .angle_between(Quat::from_array(reference.reference_pose()[5].rotation)),
                );
            }
        }
        assert!(swing > 0.1, "the tails swing ({swing} rad)");

        // Bad items fail alone: a wrong struct size, a character of no
        // world, one listed twice, a NaN importance; the others run.
        let pose = reference.reference_pose().to_vec();
        let input = common::c_frame_input(&pose);
        let mut outs = vec![vec![Transform::IDENTITY; bones]; 6];
        let item = |c: *mut SecmoCharacter, out: &mut Vec<Transform>| SecmoWorldItem {
            struct_size: std::mem::size_of::<SecmoWorldItem>() as u32,
            result: 0,
            character: c,
            input: &input,
            out_pose: out.as_mut_ptr(),
            out_pose_len: bones,
            out_info: std::ptr::null_mut(),
            importance: 0.0,
            level: 0,
        };
        let mut items: Vec<SecmoWorldItem> = outs
            .iter_mut()
            .enumerate()
            .map(|(k, out)| {
                item(
                    [
                        in_world[0],
                        alone[0],
                        in_world[1],
                        in_world[1],
                        in_world[2],
                        in_world[4],
                    ][k],
                    out,
                )
            })
            .collect();
        items[0].struct_size = 12;
        items[4].importance = f32::NAN;
        let r = secmo_world_update(world, items.as_mut_ptr(), items.len());
        assert_eq!(r, SECMO_ERROR_STRUCT_SIZE);
        let results: Vec<u32> = items.iter().map(|i| i.result).collect();
        assert_eq!(
            results,
            [
                SECMO_ERROR_STRUCT_SIZE,
                SECMO_ERROR_INVALID_ARGUMENT,
                SECMO_ERROR_INVALID_ARGUMENT,
                SECMO_ERROR_INVALID_ARGUMENT,
                SECMO_ERROR_INVALID_ARGUMENT,
                SECMO_OK
            ]
        );
        // NULLs and a reversed range.
        assert_eq!(
            secmo_world_update(std::ptr::null_mut(), items.as_mut_ptr(), 1),
            SECMO_ERROR_NULL_POINTER
        );
        assert_eq!(
            secmo_world_update_range(world, items.as_mut_ptr(), 2, 1),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            secmo_world_add(world, std::ptr::null(), &mut in_world[0]),
            SECMO_ERROR_NULL_POINTER
        );
        // Remove: a character of no world is refused; a world's is freed.
        assert_eq!(
            secmo_world_remove(world, alone[0]),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert!(
            last_error().contains("not a live character of this world"),
            "{}",
            last_error()
        );
        assert_eq!(secmo_world_remove(world, in_world[9]), SECMO_OK);
        assert_eq!(secmo_live_object_count(), live + 2 + 2 * N - 1);
        // A removed character's handle is found by its address alone (the
        // freed character is never read): removing it again, or planning
        // it, is refused.
        assert_eq!(
            secmo_world_remove(world, in_world[9]),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("removed"), "{}", last_error());
        let mut gone = [item(in_world[9], &mut outs[0])];
        assert_eq!(
            secmo_world_update(world, gone.as_mut_ptr(), 1),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(gone[0].result, SECMO_ERROR_INVALID_ARGUMENT);
        // Items no plan wrote: a result that is no error code of this
        // library fails the item, with its own code.
        let mut unplanned = [item(in_world[0], &mut outs[0])];
        unplanned[0].result = 0xDEAD;
        assert_eq!(
            secmo_world_update_range(world, unplanned.as_mut_ptr(), 0, 1),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(unplanned[0].result, SECMO_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains("never writes"), "{}", last_error());
        // The budget: held at 0, every item's level says so on the next
        // plans. A level moves one step per update, and the arena admits
        // at least an ARENA_SHARE-th of these like characters' changes
        // per update: three steps take at most 3 × ARENA_SHARE updates.
        assert_eq!(secmo_world_set_budget(world, 0), SECMO_OK);
        for _ in 0..3 * secmo::world::ARENA_SHARE {
            let mut items: Vec<SecmoWorldItem> = outs
                .iter_mut()
                .zip(&in_world)
                .map(|(o, &c)| item(c, o))
                .collect();
            assert_eq!(
                secmo_world_update(world, items.as_mut_ptr(), items.len()),
                SECMO_OK
            );
        }
        let mut items: Vec<SecmoWorldItem> = outs
            .iter_mut()
            .zip(&in_world)
            .map(|(o, &c)| item(c, o))
            .collect();
        assert_eq!(
            secmo_world_plan(world, items.as_mut_ptr(), items.len()),
            SECMO_OK
        );
        assert!(items.iter().all(|i| i.level == SECMO_LEVEL_HELD));
        assert_eq!(
            secmo_world_set_budget(world, SECMO_WORLD_NO_BUDGET),
            SECMO_OK
        );

        for c in alone {
            secmo_character_destroy(c);
        }
        secmo_world_destroy(world);
        secmo_rig_destroy(rig);
        assert_eq!(secmo_live_object_count(), live);
    }
}

/// An in-place C world update through level changes: the update of a
/// change runs the previous level and then the new one, both reading the
/// input that the first run's output overwrites in the caller's buffer
/// (the world copies it into its level-change arena first). Two worlds,
/// one updated in place, one with separate buffers, under the same
/// budget schedule (held, released, halved, back), give the same bits.
#[test]
fn in_place_c_updates_through_level_changes_give_the_bits_of_separate_buffers() {
    use secmo::ffi::*;
    unsafe {
        let rig = common::c_tail_rig(std::ptr::null());
        let reference = secmo::Rig::new(common::tail_desc(4, ChainParams::tail(1.0))).unwrap();
        let bones = reference.bone_count();
        const N: usize = 3;
        let mut worlds = [std::ptr::null_mut::<SecmoWorld>(); 2];
        let mut chars = [[std::ptr::null_mut::<SecmoCharacter>(); N]; 2];
        for (w, c) in worlds.iter_mut().zip(&mut chars) {
            assert_eq!(secmo_world_create(w), SECMO_OK);
            for ch in c.iter_mut() {
                assert_eq!(secmo_world_add(*w, rig, ch), SECMO_OK);
            }
        }
        let mut levels_seen = [false; 4];
        let mut changes = 0;
        let mut last = [SECMO_LEVEL_FULL; N];
        for frame in 0..160 {
            let budget = match frame {
                20..50 => 0,
                70..100 => 12,
                _ => SECMO_WORLD_NO_BUDGET,
            };
            let poses: Vec<Vec<Transform>> = (0..N)
                .map(|k| {
                    let mut p = reference.reference_pose().to_vec();
                    let t = frame as f32 / 60.0 + 0.4 * k as f32;
                    p[1].rotation = Quat::from_rotation_y(0.9 * (3.0 * t).sin()).to_array();
                    p
                })
                .collect();
            let mut results: Vec<Vec<Vec<Transform>>> = Vec::new();
            for (w, in_place) in [(0, true), (1, false)] {
                assert_eq!(secmo_world_set_budget(worlds[w], budget), SECMO_OK);
                let mut bufs: Vec<Vec<Transform>> = poses.clone();
                let mut outs = vec![vec![Transform::IDENTITY; bones]; N];
                let mut inputs: Vec<SecmoFrameInput> =
                    poses.iter().map(|p| common::c_frame_input(p)).collect();
                for (k, input) in inputs.iter_mut().enumerate() {
                    if frame == 0 {
                        input.dt = 0.0;
                    }
                    if in_place {
                        input.pose = bufs[k].as_ptr();
                    }
                }
                let mut infos = [SecmoUpdateInfo {
                    struct_size: std::mem::size_of::<SecmoUpdateInfo>() as u32,
                    ..Default::default()
                }; N];
                let mut items: Vec<SecmoWorldItem> = (0..N)
                    .map(|k| {
                        c_item(
                            chars[w][k],
                            &inputs[k],
                            if in_place {
                                bufs[k].as_mut_ptr()
                            } else {
                                outs[k].as_mut_ptr()
                            },
                            bones,
                            &mut infos[k],
                            k as f32,
                        )
                    })
                    .collect();
                assert_eq!(
                    secmo_world_update(worlds[w], items.as_mut_ptr(), N),
                    SECMO_OK
                );
                if w == 0 {
                    for (k, item) in items.iter().enumerate() {
                        levels_seen[item.level as usize] = true;
                        if item.level != last[k] {
                            changes += 1;
                            last[k] = item.level;
                        }
                    }
                }
                results.push(if in_place { bufs } else { outs });
            }
            assert_eq!(results[0], results[1], "update {frame}");
        }
        assert!(levels_seen.iter().all(|&s| s), "{levels_seen:?}");
        assert!(changes >= 3 * N, "{changes} level changes");
        for (w, c) in worlds.iter().zip(&chars) {
            for &ch in c {
                assert_eq!(secmo_world_remove(*w, ch), SECMO_OK);
            }
            secmo_world_destroy(*w);
        }
        secmo_rig_destroy(rig);
    }
}

/// `secmo_world_update` with an item whose character is NULL: that item
/// fails with NULL_POINTER (the call returns it) and every other item
/// still runs (found by fuzz/fuzz_targets/world.rs: the others were marked
/// OK and not updated).
#[test]
fn a_null_item_fails_alone_in_a_c_world_update() {
    use secmo::ffi::*;
    unsafe {
        let rig = common::c_tail_rig(std::ptr::null());
        let reference = secmo::Rig::new(common::tail_desc(4, ChainParams::tail(1.0))).unwrap();
        let bones = reference.bone_count();
        let mut world: *mut SecmoWorld = std::ptr::null_mut();
        assert_eq!(secmo_world_create(&mut world), SECMO_OK);
        let mut ch = std::ptr::null_mut();
        assert_eq!(secmo_world_add(world, rig, &mut ch), SECMO_OK);
        let mut alone = std::ptr::null_mut();
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut alone),
            SECMO_OK
        );
        for frame in 0..3 {
            let mut pose = reference.reference_pose().to_vec();
            pose[1].rotation = Quat::from_rotation_y(0.3 * frame as f32).to_array();
            let mut input = common::c_frame_input(&pose);
            input.dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
            let mut expected = vec![Transform::IDENTITY; bones];
            assert_eq!(
                secmo_character_update(
                    alone,
                    &input,
                    expected.as_mut_ptr(),
                    bones,
                    std::ptr::null_mut()
                ),
                SECMO_OK
            );
            let mut out = vec![Transform::IDENTITY; bones];
            let mut spare = vec![Transform::IDENTITY; bones];
            let null = std::ptr::null_mut();
            let mut items = [
                c_item(null, &input, spare.as_mut_ptr(), bones, null.cast(), 1.0),
                c_item(ch, &input, out.as_mut_ptr(), bones, null.cast(), 0.0),
            ];
            assert_eq!(
                secmo_world_update(world, items.as_mut_ptr(), 2),
                SECMO_ERROR_NULL_POINTER
            );
            assert_eq!(items[0].result, SECMO_ERROR_NULL_POINTER);
            assert_eq!(items[1].result, SECMO_OK);
            assert_eq!(out, expected, "update {frame}: the valid item ran");
        }
        assert_eq!(secmo_world_remove(world, ch), SECMO_OK);
        secmo_world_destroy(world);
        secmo_character_destroy(alone);
        secmo_rig_destroy(rig);
    }
}

/// A level change while a chain joint is passed through (a scale the chain
/// cannot simulate) with an input rotation far from unit length (any the
/// input check accepts): the blend normalizes before it multiplies, and
/// the output stays finite (found by fuzz/fuzz_targets/world.rs: the
/// blend's offset of two such rotations was not a unit quaternion and its
/// slerp gave NaN).
#[test]
fn a_level_change_over_a_passed_through_joint_stays_finite() {
    let rig = common::shared(common::tail_desc(4, ChainParams::tail(1.0)));
    let mut world = World::new();
    let id = world.add(Arc::clone(&rig), Default::default());
    let mut pose = rig.reference_pose().to_vec();
    pose[3].scale = [-3.97, -130.0, 27.8];
    let mut out = pose.clone();
    for (frame, level) in [secmo::Level::Full, secmo::Level::Half, secmo::Level::Full]
        .into_iter()
        .enumerate()
    {
        if frame > 0 {
            pose[3].rotation = [2.0888075e18 * frame as f32, 6.4375, 2.625, 2.625];
            pose[3].translation = [-1.8e38, -11.5, 0.6];
        }
        world.pin_level(id, Some(level)).unwrap();
        let input = FrameInput {
            dt: if frame == 0 { 0.0 } else { 0.17 },
            pose: &pose,
            teleport: false,
        };
        let mut items = [WorldItem::new(id, input, &mut out)];
        // A moving world frame of scale 23.5.
        items[0].world = Some(Transform {
            translation: [6.4 * frame as f32, 16.1, 22.5],
            rotation: [0.5, 0.5, 0.5, 0.5],
            scale: [23.5; 3],
        });
        assert_eq!(world.update(&mut items), 0, "update {frame}");
        assert!(
            out.iter().all(Transform::is_finite),
            "update {frame}: {:?}",
            out[3]
        );
    }
}

/// Issue #49 item 4 (transitions) on a keyed tail: released from `Held`
/// (pinned there for a second while its keys swing on), a tail resting on
/// its input's pose starts on its keys and the blend turns it there from
/// the held pose over `BLEND_UPDATES` updates, an eighth of the way each.
/// Seeded on the held pose, it was pulled part of the way onto its keys in
/// one update (14° against the keys' 1.2° on a held-out fox) and here
/// stayed 28° off them after the blend.
#[test]
fn a_keyed_tail_released_from_held_blends_onto_its_keys() {
    let rig = common::shared(common::tail_desc(6, ChainParams::tail(1.0)));
    let mut world = World::new();
    let id = world.add(Arc::clone(&rig), Default::default());
    let dt = 1.0 / 60.0;
    let pose_at = |f: usize| {
        let t = f as f32 * dt;
        let mut pose = rig.reference_pose().to_vec();
        let a = 0.6 * (t * std::f32::consts::TAU * 0.7).sin();
        for joint in &mut pose[common::FIRST_TAIL..] {
            joint.rotation = (Quat::from_rotation_x(0.3 + a * 0.5)
                * Quat::from_array(joint.rotation))
            .to_array();
        }
        pose
    };
    let turn = |a: &Transform, b: &Transform| {
        Quat::from_array(a.rotation)
            .angle_between(Quat::from_array(b.rotation))
            .to_degrees()
    };
    let mut last: Option<(Vec<Transform>, Vec<Transform>)> = None;
    let (mut shown, mut keys, mut offset, mut after) = (0f32, 0f32, 0f32, f32::NAN);
    let release = 120;
    for f in 0..release + 30 {
        let level = match f {
            60..120 => Some(secmo::Level::Held),
            _ => None,
        };
        world.pin_level(id, level).unwrap();
        let pose = pose_at(f);
        let mut out = pose.clone();
        let input = FrameInput {
            dt: if f == 0 { 0.0 } else { dt },
            pose: &pose,
            teleport: false,
        };
        let mut items = [WorldItem::new(id, input, &mut out)];
        assert_eq!(world.update(&mut items), 0);
        if f == release - 1 {
            assert_eq!(world.level(id).unwrap(), secmo::Level::Held);
        }
        if let Some((p, o)) = &last {
            if f == release {
                offset = (common::FIRST_TAIL..out.len())
                    .map(|j| turn(&out[j], &pose[j]))
                    .fold(0.0, f32::max);
            }
            let blended = release + usize::from(secmo::world::BLEND_UPDATES) + 2;
            if f == blended {
                after = (common::FIRST_TAIL..out.len())
                    .map(|j| turn(&out[j], &pose[j]))
                    .fold(0.0, f32::max);
            }
            if (release..release + 12).contains(&f) {
                for j in common::FIRST_TAIL..out.len() {
                    shown = shown.max(turn(&o[j], &out[j]));
                    keys = keys.max(turn(&p[j], &pose[j]));
                }
            }
        }
        last = Some((pose, out));
    }
    let eighth = offset / f32::from(secmo::world::BLEND_UPDATES);
    println!(
        "released {offset:.1}° off its keys: steps up to {shown:.2}° (an eighth of the offset \
         {eighth:.2}°, the keys' own {keys:.2}°), {after:.2}° off them after the blend"
    );
    assert!(
        offset > 10.0,
        "the hold left the tail {offset}° off its keys"
    );
    assert!(after < 1.0, "{after}° off its keys after the blend");
    assert!(
        shown <= eighth + keys + 0.5,
        "steps {shown}° after the release (offset {offset}°, keys {keys}°)"
    );
}

/// Three tails the input animates (their rest turns to its pose at every
/// substep), two VRM buns with a hair strand hanging from each one's
/// second joint (the buns record that joint's frame at every substep) and
/// a head sphere, all on one clock: their blocks take each substep
/// together.
fn lockstep_rig() -> Arc<Rig> {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("hips", 0, t(0.0, 1.0, 0.0)),
        BoneDesc::new("head", 1, t(0.0, 0.6, 0.0)),
    ];
    let mut chains = Vec::new();
    let mut strand = |bones: &mut Vec<BoneDesc>,
                      anchor: usize,
                      joints: usize,
                      (first, step): (Transform, Transform),
                      params: ChainParams| {
        let start = bones.len();
        for j in 0..joints {
            let (parent, offset) = if j == 0 {
                (anchor, first)
            } else {
                (bones.len() - 1, step)
            };
            let name = format!("b{}", bones.len());
            bones.push(BoneDesc::new(name, parent as i32, offset));
        }
        let mut chain = ChainDesc::new(
            (start as u32..(start + joints) as u32).collect(),
            anchor as u32,
            params,
        );
        chain.colliders = vec![0];
        chains.push(chain);
        start
    };
    for c in 0..3 {
        let x = 0.06 * (c as f32 - 1.0);
        strand(
            &mut bones,
            1,
            5,
            (t(x, -0.05, -0.1), t(0.0, -0.05, -0.15)),
            ChainParams::tail(1.0),
        );
    }
    let mut buns = Vec::new();
    for c in 0..2 {
        let x = 0.05 * (c as f32 - 0.5);
        buns.push(strand(
            &mut bones,
            2,
            3,
            (t(x, 0.05, -0.1), t(0.0, -0.04, -0.05)),
            ChainParams::vrm(1.0),
        ));
    }
    for bun in buns {
        strand(
            &mut bones,
            bun + 1,
            3,
            (t(0.0, -0.03, -0.02), t(0.0, -0.05, 0.0)),
            ChainParams::hair(1.0),
        );
    }
    common::shared(RigDesc {
        bones,
        units_per_meter: 1.0,
        colliders: vec![Collider {
            bone: 2,
            shape: ColliderShape::Sphere,
            a: Vec3::new(0.0, 0.05, 0.0),
            b: Vec3::ZERO,
            radius: 0.09,
        }],
        chains,
        ..Default::default()
    })
}

#[test]
fn animated_tails_and_chains_hanging_from_chains_give_the_scalar_kernels_bits() {
    let rig = lockstep_rig();
    // The hips turn; each tail joint's key swings about its bind pose.
    let pose = |frame: usize| {
        let t = frame as f32 / 60.0;
        let mut pose = rig.reference_pose().to_vec();
        pose[1].rotation = (Quat::from_rotation_y(0.7 * (2.5 * t).sin())
            * Quat::from_rotation_z(0.2 * (4.0 * t).sin()))
        .to_array();
        for c in 0..3 {
            for j in 0..5 {
                let b = 3 + 5 * c + j;
                let key = Quat::from_rotation_x(0.25 * (3.0 * t + j as f32 + c as f32).sin());
                pose[b].rotation = (Quat::from_array(pose[b].rotation) * key).to_array();
            }
        }
        pose
    };
    let run = |kernel: Option<ChainKernel>| -> Vec<Vec<Transform>> {
        let mut c = Character::new(Arc::clone(&rig), Default::default());
        if let Some(k) = kernel {
            c.set_chain_kernel(k).unwrap();
        }
        let mut out = rig.reference_pose().to_vec();
        (0..120)
            .map(|frame| {
                let dt = if frame == 0 { 0.0 } else { 1.0 / 60.0 };
                let input = pose(frame);
                c.update(
                    &FrameInput {
                        dt,
                        pose: &input,
                        teleport: false,
                    },
                    &mut out,
                )
                .unwrap();
                out.clone()
            })
            .collect()
    };
    let scalar = run(Some(ChainKernel::Scalar));
    let lanes = run(None);
    // The tails and strands move off their keys (the test compares motion).
    let off = |b: usize| {
        scalar
            .iter()
            .enumerate()
            .map(|(frame, out)| {
                Quat::from_array(out[b].rotation)
                    .angle_between(Quat::from_array(pose(frame)[b].rotation))
            })
            .fold(0.0f32, f32::max)
    };
    // Tail tips 4° and more, the buns and strands (under gravity) much more.
    for (b, least) in [
        (7, 0.02),
        (12, 0.02),
        (17, 0.02),
        (19, 0.3),
        (22, 0.3),
        (25, 0.3),
        (28, 0.3),
    ] {
        assert!(
            off(b) > least,
            "bone {b} moves off its key ({} rad)",
            off(b)
        );
    }
    for (frame, (a, b)) in lanes.iter().zip(&scalar).enumerate() {
        let same = a
            .iter()
            .zip(b)
            .all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y));
        assert!(
            same,
            "the lane kernel differs from the scalar at update {frame}"
        );
    }
}
