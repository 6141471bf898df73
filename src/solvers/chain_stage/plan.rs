//! The chain stage's schedule ([`ChainPlan`]): which frames the chains read,
//! which chain moves what another reads, and so which chains may step
//! together. Built once per rig from its chains ([`ChainPlan::new`]).

use glam::Vec3;

use crate::solvers::chain::{ChainParams, ChainSetup};
use crate::solvers::collide::Collider;
use crate::solvers::lanes;

/// "None" in the plan's per-bone, per-chain and per-collider tables.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// The chain stage's schedule, built once from a rig's chains.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ChainPlan {
    /// Bones (or -1, the world frame) whose world frame the chain stage
    /// reads; [`ChainSetup::anchor_slot`] and `parent_slot` index it.
    pub(crate) chain_frames: Vec<i32>,
    /// Per collider, its chain frame when its bone is a chain joint or lies
    /// below one ([`NO_SLOT`] otherwise).
    pub(crate) collider_slots: Vec<u32>,
    /// Per chain, whether one of its colliders has such a frame.
    pub(crate) reads_moving_collider: Vec<bool>,
    /// Per chain, the last chain that moves a bone it reads (its anchor,
    /// its root's parent, its colliders' bones), or [`NO_SLOT`]: a lane
    /// block that starts after that chain may take it.
    pub(crate) last_mover: Vec<u32>,
    /// Per bone, the chain that moves it (the owner of the bone or of its
    /// nearest ancestor that is a chain joint), or [`NO_SLOT`].
    pub(crate) bone_mover: Vec<u32>,
    /// Whether each chain frame is another chain's joint or lies below
    /// one (it moves when that chain writes its output).
    pub(crate) chain_frame_moves: Vec<bool>,
    /// For a moving chain frame that is no chain joint: the nearest chain
    /// joint above it, then the bones from there down to the frame's own,
    /// whose component matrices the chain owning that joint recomposes
    /// after its writeback (FK before the chains saw the animated joint).
    /// Empty otherwise.
    pub(crate) chain_frame_paths: Vec<Vec<u32>>,
    /// Per chain, the chain frames (slots of `chain_frame_paths`) below
    /// one of its joints.
    pub(crate) chain_frames_below: Vec<Vec<u32>>,
    /// Per chain, the chain frames on its joints or below one, with the
    /// joint's index in the chain: a chain hanging there reads the frame
    /// as the owning chain moved it at each substep ([`super::Stage::records`]).
    pub(crate) chain_frames_on: Vec<Vec<(u32, u32)>>,
    /// The bones, parents first, whose component matrices the chain stage
    /// reads before writing them: all but the chain joints after each
    /// chain's root, which the writeback composes from their parent. FK
    /// before the chains computes only these when nothing else reads the
    /// rest (`Character::solve`).
    pub(crate) fk_before_chains: Vec<u32>,
}

/// A chain that reads a bone which a chain not listed before it moves: it
/// sees the bone's animated pose (the rig reports it as a warning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LateRead {
    pub(crate) chain: usize,
    pub(crate) bone: usize,
    pub(crate) moved_by: usize,
}

/// What the chain stage reads of the rig: its chains, colliders and
/// hierarchy, and the plan built from them.
#[derive(Clone, Copy)]
pub(crate) struct ChainRig<'a> {
    pub(crate) parents: &'a [i32],
    pub(crate) chains: &'a [ChainSetup],
    pub(crate) colliders: &'a [Collider],
    pub(crate) plan: &'a ChainPlan,
    /// The chains' parameters as created, shared with the characters that
    /// have not changed them.
    pub(crate) params: &'a std::sync::Arc<Vec<ChainParams>>,
    pub(crate) particle_count: usize,
    pub(crate) units_per_meter: f32,
    /// The rig's up direction.
    pub(crate) up: Vec3,
    /// The rig's reference pose (local): a chain whose joints the input
    /// turns from it is animated ([`ChainParams::rest_source`]).
    pub(crate) reference: &'a [crate::math::Transform],
}

impl ChainPlan {
    /// The plan of `chains` (validated: in range, no joint shared) over the
    /// bones `parents` (parents first), with the rig's `colliders`. Sets
    /// each chain's `anchor_slot` and `parent_slot`. Also returns the
    /// chains that read a bone moved by a chain listed after them, in
    /// chain order.
    pub(crate) fn new(
        chains: &mut [ChainSetup],
        parents: &[i32],
        colliders: &[Collider],
    ) -> (ChainPlan, Vec<LateRead>) {
        let joint_owner = joint_owners(chains, parents.len());
        let mover = movers(&joint_owner, parents);
        let moved = |bone: i32| moved_by(&mover, bone).is_some();
        // The distinct bones whose world frame the chain stage reads (each
        // chain's anchor and its root's parent; -1 is the character's world
        // frame itself), so that chains sharing a head decompose it once.
        let mut slots = FrameSlots::new(parents.len());
        for setup in chains.iter_mut() {
            setup.anchor_slot = slots.slot_of(setup.anchor as i32);
            setup.parent_slot = slots.slot_of(parents[setup.joints[0] as usize]);
        }
        // A collider on a chain joint or below one (a bust spring's sphere
        // that hair slides over) is a chain frame too: the chain moving it
        // records it at each substep, and the chains it touches read it
        // there, as three-vrm steps a spring after the springs its
        // colliders ride on. Other colliders follow the pose.
        let collider_slots: Vec<u32> = colliders
            .iter()
            .map(|c| {
                if moved(c.bone as i32) {
                    slots.slot_of(c.bone as i32)
                } else {
                    NO_SLOT
                }
            })
            .collect();
        let chain_frames = slots.frames;
        let reads_moving_collider = chains
            .iter()
            .map(|c| {
                c.colliders
                    .iter()
                    .any(|&k| collider_slots[k as usize] != NO_SLOT)
            })
            .collect();
        let (last_mover, late) = last_movers(chains, parents, colliders, &mover);
        let chain_frame_paths = frame_paths(&chain_frames, &joint_owner, parents);
        let chain_frames_on = frames_on(chains, &chain_frames, &chain_frame_paths, &joint_owner);
        // Of those, the ones below a joint (a path to recompose).
        let chain_frames_below: Vec<Vec<u32>> = chain_frames_on
            .iter()
            .map(|on| {
                on.iter()
                    .map(|&(slot, _)| slot)
                    .filter(|&slot| !chain_frame_paths[slot as usize].is_empty())
                    .collect()
            })
            .collect();
        let chain_frame_moves = chain_frames
            .iter()
            .zip(&chain_frame_paths)
            .map(|(&b, path)| b >= 0 && (joint_owner[b as usize] != NO_SLOT || !path.is_empty()))
            .collect();
        let fk_before_chains = fk_before_chains(chains, &chain_frames, colliders, parents);
        let plan = ChainPlan {
            chain_frames,
            collider_slots,
            reads_moving_collider,
            last_mover,
            bone_mover: mover,
            chain_frame_moves,
            chain_frame_paths,
            chain_frames_below,
            chain_frames_on,
            fk_before_chains,
        };
        (plan, late)
    }

    /// One past the last chain of the block that starts at `first`: the
    /// chains after it that share its integrator and read no frame a chain
    /// of the block moves (their inputs do not depend on the block's own
    /// output: what they read is moved, if at all, by chains before
    /// `first`, which have run), at most [`lanes::W`]. Hair strands hanging
    /// from one branch joint or sliding over one collider on a spring step
    /// together. Chains in a simulation space join only chains in the same
    /// space with the same inertia, a space no chain from `first` on moves:
    /// a character's lanes share its placed colliders, which such a chain
    /// places from the space's frame (`interpolate`); the skirt strands of
    /// a VRM spring with a center step together. `params`: the character's
    /// parameters of every chain.
    pub(crate) fn block_end(&self, params: &[ChainParams], first: usize) -> usize {
        let (integrator, space) = (params[first].integrator, params[first].simulation_space);
        let same_space = |c: &ChainParams| {
            c.simulation_space == space
                && (space < 0
                    || (c.inertia == params[first].inertia && {
                        let mover = self.bone_mover[space as usize];
                        mover == NO_SLOT || (mover as usize) < first
                    }))
        };
        let mut end = first + 1;
        while end < self.last_mover.len() && end - first < lanes::W {
            let mover = self.last_mover[end];
            let independent =
                (mover == NO_SLOT || (mover as usize) < first) && same_space(&params[end]);
            if !independent || params[end].integrator != integrator {
                break;
            }
            end += 1;
        }
        end
    }
}

/// The chain frames in the order they are first read, and each bone's
/// slot among them.
struct FrameSlots {
    frames: Vec<i32>,
    /// Each bone's slot (index bone + 1; -1 is the world frame), so a rig
    /// of thousands of chains is not quadratic in them.
    slots: Vec<u32>,
}

impl FrameSlots {
    fn new(bones: usize) -> Self {
        Self {
            frames: Vec::new(),
            slots: vec![NO_SLOT; bones + 1],
        }
    }

    /// `bone`'s slot (-1: the world frame), a new one on its first read.
    fn slot_of(&mut self, bone: i32) -> u32 {
        let entry = &mut self.slots[(bone + 1) as usize];
        if *entry == NO_SLOT {
            self.frames.push(bone);
            *entry = (self.frames.len() - 1) as u32;
        }
        *entry
    }
}

/// The chain owning each bone as a joint (NO_SLOT: none).
fn joint_owners(chains: &[ChainSetup], bones: usize) -> Vec<u32> {
    let mut joint_owner = vec![NO_SLOT; bones];
    for (i, setup) in chains.iter().enumerate() {
        for &j in &setup.joints {
            joint_owner[j as usize] = i as u32;
        }
    }
    joint_owner
}

/// The chain that moves each bone: the owner of the bone or of its
/// nearest ancestor that is a chain joint (one pass, parents first).
fn movers(joint_owner: &[u32], parents: &[i32]) -> Vec<u32> {
    let mut mover = joint_owner.to_vec();
    for b in 0..mover.len() {
        if mover[b] == NO_SLOT {
            if let Ok(p) = usize::try_from(parents[b]) {
                mover[b] = mover[p];
            }
        }
    }
    mover
}

/// The chain that moves `bone` (none for the world frame, -1).
fn moved_by(mover: &[u32], bone: i32) -> Option<usize> {
    let m = *mover.get(usize::try_from(bone).ok()?)?;
    (m != NO_SLOT).then_some(m as usize)
}

/// Per chain, the last chain that moves what it reads (the lane blocks
/// start after it). A chain reading a frame that a chain not listed before
/// it moves sees the frame's animated pose (chains run in list order): a
/// late read, each listed once per chain.
fn last_movers(
    chains: &[ChainSetup],
    parents: &[i32],
    colliders: &[Collider],
    mover: &[u32],
) -> (Vec<u32>, Vec<LateRead>) {
    let mut last_mover = vec![NO_SLOT; chains.len()];
    let mut late = Vec::new();
    for (ci, setup) in chains.iter().enumerate() {
        let read = [setup.anchor as i32, parents[setup.joints[0] as usize]]
            .into_iter()
            .chain(
                setup
                    .colliders
                    .iter()
                    .map(|&c| colliders[c as usize].bone as i32),
            );
        let this_chain = late.len();
        for bone in read {
            let Some(owner) = moved_by(mover, bone) else {
                continue;
            };
            if last_mover[ci] == NO_SLOT || owner as u32 > last_mover[ci] {
                last_mover[ci] = owner as u32;
            }
            if owner >= ci {
                let read = LateRead {
                    chain: ci,
                    bone: bone as usize,
                    moved_by: owner,
                };
                if !late[this_chain..].contains(&read) {
                    late.push(read);
                }
            }
        }
    }
    (last_mover, late)
}

/// A frame on another chain's joint, or below one, moves when that chain
/// writes its output, so it is read afresh for each chain; one below a
/// joint is composed down from it (a VRM spring whose next joint is a
/// grandchild continues as a chain hanging from the node in between): its
/// path is the joint, then the bones down to the frame's own. Empty for
/// every other frame.
fn frame_paths(chain_frames: &[i32], joint_owner: &[u32], parents: &[i32]) -> Vec<Vec<u32>> {
    chain_frames
        .iter()
        .map(|&b| {
            let Ok(bone) = usize::try_from(b) else {
                return Vec::new();
            };
            if joint_owner[bone] != NO_SLOT {
                return Vec::new();
            }
            let mut path = vec![bone as u32];
            let mut cur = parents[bone];
            while let Ok(p) = usize::try_from(cur) {
                path.push(p as u32);
                if joint_owner[p] != NO_SLOT {
                    path.reverse();
                    return path;
                }
                cur = parents[p];
            }
            Vec::new()
        })
        .collect()
}

/// Per chain, the frames on its joints or below one, with the joint's
/// index in the chain.
fn frames_on(
    chains: &[ChainSetup],
    chain_frames: &[i32],
    chain_frame_paths: &[Vec<u32>],
    joint_owner: &[u32],
) -> Vec<Vec<(u32, u32)>> {
    let mut chain_frames_on: Vec<Vec<(u32, u32)>> = vec![Vec::new(); chains.len()];
    for (slot, &b) in chain_frames.iter().enumerate() {
        // The joint itself, or the joint the path below starts from.
        let joint = chain_frame_paths[slot].first().map_or(b, |&j| j as i32);
        let Ok(joint) = usize::try_from(joint) else {
            continue;
        };
        let owner = joint_owner[joint];
        let Some(setup) = chains.get(owner as usize) else {
            continue; // NO_SLOT: no chain owns the joint
        };
        // The joint's index in its owner (the owner has it: it is the chain
        // `joint_owner` was filled from).
        if let Some(k) = setup.joints.iter().position(|&j| j as usize == joint) {
            chain_frames_on[owner as usize].push((slot as u32, k as u32));
        }
    }
    chain_frames_on
}

/// The bones whose component matrices the chain stage reads before it
/// writes them itself: every bone but the chain joints after each chain's
/// root (their writeback composes them from their parent), unless a chain
/// frame or a collider sits on one, and then every ancestor of a bone
/// kept. Parents first.
fn fk_before_chains(
    chains: &[ChainSetup],
    chain_frames: &[i32],
    colliders: &[Collider],
    parents: &[i32],
) -> Vec<u32> {
    let n = parents.len();
    let mut needed = vec![true; n];
    for setup in chains {
        for &j in &setup.joints[1..] {
            needed[j as usize] = false;
        }
    }
    for &b in chain_frames {
        if let Ok(b) = usize::try_from(b) {
            needed[b] = true;
        }
    }
    for c in colliders {
        needed[c.bone as usize] = true;
    }
    for i in (0..n).rev() {
        if let (true, Ok(p)) = (needed[i], usize::try_from(parents[i])) {
            needed[p] = true;
        }
    }
    (0..n as u32).filter(|&b| needed[b as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;
    use crate::rig::{BoneDesc, Rig, RigDesc};
    use crate::solvers::chain::ChainDesc;
    use crate::solvers::collide::ColliderShape;

    /// 0 pelvis ─ 1 head; tail A = 2, 3 (from the pelvis); hair B = 4, 5
    /// and C = 6, 7 (from the head); 8 a helper below the tail's joint 3,
    /// and D = 9, 10 hanging from it.
    fn bones() -> Vec<BoneDesc> {
        let parents = [-1, 0, 0, 2, 1, 4, 1, 6, 3, 8, 9];
        parents
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let t = if p < 0 { Vec3::ZERO } else { -Vec3::Y * 0.1 };
                BoneDesc::new(format!("b{i}"), p, Transform::from_translation(t))
            })
            .collect()
    }

    fn chain(joints: [u32; 2], anchor: u32) -> ChainDesc {
        ChainDesc::new(joints.to_vec(), anchor, ChainParams::vrm(1.0))
    }

    fn rig(chains: Vec<ChainDesc>, colliders: Vec<Collider>) -> Rig {
        Rig::new(RigDesc {
            bones: bones(),
            chains,
            colliders,
            ..Default::default()
        })
        .expect("a valid rig")
    }

    fn sphere(bone: u32) -> Collider {
        Collider {
            bone,
            shape: ColliderShape::Sphere,
            a: Vec3::ZERO,
            b: Vec3::ZERO,
            radius: 0.05,
        }
    }

    /// The plan built again from the rig's chains, as `Rig::new` built it.
    fn rebuilt(rig: &Rig) -> (ChainPlan, Vec<LateRead>, Vec<ChainSetup>) {
        let mut chains = rig.chains().to_vec();
        let (plan, late) = ChainPlan::new(&mut chains, rig.parents(), rig.colliders());
        (plan, late, chains)
    }

    #[test]
    fn frames_are_slotted_once_each_in_chain_order() {
        let rig = rig(
            vec![
                chain([2, 3], 0),
                chain([4, 5], 1),
                chain([6, 7], 1),
                chain([9, 10], 0),
            ],
            Vec::new(),
        );
        let plan = &rig.chain_plan;
        // The pelvis (A's anchor and root parent), the head (B and C share
        // it), then the helper D hangs from.
        assert_eq!(plan.chain_frames, [0, 1, 8]);
        let slots: Vec<(u32, u32)> = rig
            .chains()
            .iter()
            .map(|c| (c.anchor_slot, c.parent_slot))
            .collect();
        assert_eq!(slots, [(0, 0), (1, 1), (1, 1), (0, 2)]);
        // The helper moves with A's joint 3: the path composes it from there,
        // and A records it at its joint 1.
        assert_eq!(plan.chain_frame_moves, [false, false, true]);
        assert_eq!(plan.chain_frame_paths, [vec![], vec![], vec![3, 8]]);
        assert_eq!(plan.chain_frames_on, [vec![(2, 1)], vec![], vec![], vec![]]);
        assert_eq!(plan.chain_frames_below, [vec![2], vec![], vec![], vec![]]);
        // Movers: each joint's chain, the helper below A's joint too.
        let n = NO_SLOT;
        assert_eq!(plan.bone_mover, [n, n, 0, 0, 1, 1, 2, 2, 0, 3, 3]);
        assert_eq!(plan.last_mover, [n, n, n, 0]);
        // FK before the chains skips the joints after each root, but keeps
        // 3: the helper D hangs from lies below it.
        assert_eq!(plan.fk_before_chains, [0, 1, 2, 3, 4, 6, 8, 9]);
        assert!(plan.collider_slots.is_empty());
        assert_eq!(plan.reads_moving_collider, [false; 4]);
        // Built from the chains alone, the plan is the rig's, slots and all.
        let (again, late, chains) = rebuilt(&rig);
        assert_eq!(&again, plan);
        assert!(late.is_empty());
        assert_eq!(chains, rig.chains());
    }

    #[test]
    fn blocks_end_before_a_chain_that_reads_the_blocks_output() {
        let rig = rig(
            vec![
                chain([2, 3], 0),
                chain([4, 5], 1),
                chain([6, 7], 1),
                chain([9, 10], 0),
            ],
            Vec::new(),
        );
        let plan = &rig.chain_plan;
        let params: Vec<ChainParams> = rig.chains().iter().map(|c| c.params).collect();
        // D reads what A moves: a block from A stops before it; one from
        // B on takes it (A has run by then).
        assert_eq!(plan.block_end(&params, 0), 3);
        assert_eq!(plan.block_end(&params, 1), 4);
        assert_eq!(plan.block_end(&params, 3), 4);
        // Another integrator starts a block of its own.
        let mut mixed = params.clone();
        mixed[2].integrator = ChainParams::SPRING;
        assert_eq!(plan.block_end(&mixed, 0), 2);
        assert_eq!(plan.block_end(&mixed, 2), 3);
        // A block never holds more than one lane per chain of the kernel.
        for first in 0..params.len() {
            let end = plan.block_end(&params, first);
            assert!(end > first && end - first <= lanes::W);
        }
    }

    #[test]
    fn a_collider_on_a_chain_joint_is_a_frame_of_its_own() {
        // A sphere on B's tip joint 5 that C slides over.
        let mut c = chain([6, 7], 1);
        c.colliders = vec![0];
        let rig = rig(vec![chain([2, 3], 0), chain([4, 5], 1), c], vec![sphere(5)]);
        let plan = &rig.chain_plan;
        assert_eq!(plan.chain_frames, [0, 1, 5]);
        assert_eq!(plan.collider_slots, [2]);
        assert_eq!(plan.reads_moving_collider, [false, false, true]);
        // B records the frame at its joint 1 for C, which waits for B.
        assert_eq!(plan.chain_frames_on, [vec![], vec![(2, 1)], vec![]]);
        assert!(plan.chain_frames_below.iter().all(Vec::is_empty));
        assert_eq!(plan.last_mover, [NO_SLOT, NO_SLOT, 1]);
        let params: Vec<ChainParams> = rig.chains().iter().map(|c| c.params).collect();
        assert_eq!(plan.block_end(&params, 0), 2);
        // FK before the chains keeps the collider's bone.
        assert!(plan.fk_before_chains.contains(&5));
        assert!(!plan.fk_before_chains.contains(&7));
    }

    #[test]
    fn a_chain_listed_before_the_chain_moving_its_frame_is_a_late_read() {
        // D before A: it reads the helper 8 that A, listed after it, moves.
        let rig = rig(vec![chain([9, 10], 0), chain([2, 3], 0)], Vec::new());
        let (plan, late, _) = rebuilt(&rig);
        assert_eq!(
            late,
            [LateRead {
                chain: 0,
                bone: 8,
                moved_by: 1
            }]
        );
        assert_eq!(plan.last_mover, [1, NO_SLOT]);
        assert_eq!(
            rig.warnings(),
            [crate::rig::RigWarning::ChainOrder {
                chain: 0,
                bone: 8,
                moved_by: 1
            }]
        );
        // A reads nothing D moves, so the two step together (D sees the
        // helper's animated pose either way).
        let params: Vec<ChainParams> = rig.chains().iter().map(|c| c.params).collect();
        assert_eq!(plan.block_end(&params, 0), 2);
    }
}
