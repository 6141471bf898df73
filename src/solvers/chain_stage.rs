//! The chain stage (docs/algorithms.md §7, §8): every chain of a character, stepped on the
//! post-corrective pose. Its setup is the Rig's ([`Rig::chains`],
//! `chain_frames`, `colliders`); its per-character [`Stage`] holds the
//! committed state, the scratch an update writes before it is committed, and
//! the per-character parameters; [`step`] runs one update. `Character::solve`
//! only sequences it after the helper-bone stages.

use glam::{Affine3A, Quat, Vec3};

use crate::limits::{unset, MAX_CHAIN_SUBSTEPS, MIN_VELOCITY_DT};
use crate::math::{self, Transform};
use crate::rig::{Rig, NO_SLOT};
use crate::solvers::chain::{
    self, ChainClock, ChainParams, ChainSetup, SubstepFrame, CHAIN_CATCH_UP, CHAIN_STEP,
};
use crate::solvers::collide::PlacedCollider;
use crate::solvers::lanes::{self, ChainKernel};
use crate::solvers::state_range::StateRange;
use crate::solvers::writeback;

/// A chain frame's interpolation for one substep, shared by the chains that
/// read the same frame: reused only when the exact bits of every input
/// match, so sharing never changes a result.
#[derive(Clone, Copy)]
pub(crate) struct Memo<const K: usize, T> {
    key: [u32; K],
    value: T,
}

impl<const K: usize, T: Copy> Memo<K, T> {
    pub(crate) fn new(value: T) -> Self {
        // No input has these bits (the interpolation fraction is in [0, 1]).
        Self {
            key: [u32::MAX; K],
            value,
        }
    }

    #[inline]
    pub(crate) fn get(&mut self, key: [u32; K], compute: impl FnOnce() -> T) -> T {
        // Branch-free over the whole key (`!=` on an array calls memcmp).
        let differs = self
            .key
            .iter()
            .zip(&key)
            .fold(0u32, |d, (a, b)| d | (a ^ b));
        if differs != 0 {
            self.value = compute();
            self.key = key;
        }
        self.value
    }
}

/// Bits of `f32`s as a memo key.
#[inline]
pub(crate) fn key_of<const K: usize>(parts: &[&[f32]]) -> [u32; K] {
    let mut key = [0u32; K];
    let mut i = 0;
    for part in parts {
        for &v in *part {
            key[i] = v.to_bits();
            i += 1;
        }
    }
    debug_assert_eq!(i, K);
    key
}

/// Scratch of the chain stage, sized at creation: each chain frame's world
/// transform this update and the per-substep interpolations.
#[derive(Clone)]
pub(crate) struct FrameScratch {
    /// World frame of each of the rig's chain frames this update.
    pub(crate) now: Vec<Transform>,
    /// Anchor rotation at a substep: previous (4), current (4), fraction.
    pub(crate) anchors: Vec<Memo<9, Quat>>,
    /// Root-parent frame at a substep: previous (10), current (10), fraction.
    pub(crate) parents: Vec<Memo<21, (Affine3A, Quat)>>,
    /// Each collider placed at a substep: [`FrameScratch::collider_epoch`]
    /// (2), fraction, scale.
    pub(crate) colliders: Vec<Memo<4, PlacedCollider>>,
    /// Changes whenever a collider's previous or current frame may have
    /// changed: at every update's start (and a restore or reset before
    /// it). The colliders' frames are the character's, not a chain's, and
    /// no chain changes them within an update (a chain that teleports reads
    /// them at [`CURRENT`] instead), so every chain places a collider at a
    /// fraction identically; this number stands for the 20 floats of the
    /// two frames in the memo key.
    pub(crate) collider_epoch: u64,
}

/// Substeps per update for which a chain records the frames of its joints
/// that other chains hang from (input down to 7.5 Hz at 120 substeps per
/// second); in a longer update (a hitch) the chains hanging there
/// interpolate at every substep, as before.
pub(crate) const RECORDED_SUBSTEPS: usize = 16;

/// A chain joint's world frame after one substep of the chain that owns it,
/// for a chain that hangs from the joint ([`Stage::records`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointRecord {
    /// The substep's end time on the owning chain's clock.
    pub(crate) end: f64,
    pub(crate) rotation: Quat,
    pub(crate) head: Vec3,
}

/// Chain state (docs/algorithms.md §7, §8): flat arrays over all chains, one entry per
/// particle (structure of arrays), so that a SIMD pass needs no redesign.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChainState {
    pub(crate) position: Vec<Vec3>,
    pub(crate) velocity: Vec<Vec3>,
    pub(crate) bend: Vec<Quat>,
    /// Positions before the last substep: the output carries the state
    /// forward along `position − previous` between substeps.
    pub(crate) previous: Vec<Vec3>,
    pub(crate) clocks: Vec<ChainClock>,
    /// World frames of the colliders at the last update (interpolation start).
    pub(crate) previous_colliders: Vec<Transform>,
    /// The simulation origin: every position above (particles, the clocks'
    /// frames, the colliders) is kept relative to it, so that float32
    /// resolves a chain as finely at head height or 10 km out as at the world
    /// origin. Set on a chain's first update and moved (with a shift of the
    /// stored positions) when the first chain frame strays past
    /// [`RECENTRE_M`].
    pub(crate) origin: Vec3,
}

impl ChainState {
    pub(crate) fn new(particles: usize, chains: usize, colliders: usize) -> Self {
        Self {
            position: vec![Vec3::ZERO; particles],
            velocity: vec![Vec3::ZERO; particles],
            bend: vec![Quat::IDENTITY; particles],
            previous: vec![Vec3::ZERO; particles],
            clocks: vec![ChainClock::default(); chains],
            previous_colliders: vec![Transform::IDENTITY; colliders],
            origin: Vec3::ZERO,
        }
    }
}

/// Per-update chain inputs that are not part of the pose.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainInputs {
    pub(crate) world: Transform,
    pub(crate) importance: f32,
    pub(crate) wind: Vec3,
    /// Where the caller's world frame sits in its level: the sum of the
    /// origin moves `Character::shift_world` was told of (its negated
    /// deltas). The floor (`ChainParams::floor_height`, a level height)
    /// is that much lower in the caller's frame.
    pub(crate) level_origin: Vec3,
}

/// How far (metres, at the character's scale) the first chain frame may
/// stray from the simulation origin before the origin follows it.
pub(crate) const RECENTRE_M: f32 = 1.0;

impl ChainState {
    /// Adds `delta` to every position kept (particles, the started chains'
    /// frames, the colliders' frames): the state seen from an origin moved by
    /// `-delta`.
    pub(crate) fn shift_positions(&mut self, params: &[ChainParams], delta: Vec3) {
        let shift = |t: &mut Transform| {
            // A frame not set yet stays so.
            if !unset(t) {
                t.translation = (Vec3::from(t.translation) + delta).to_array();
            }
        };
        for p in self.position.iter_mut().chain(&mut self.previous) {
            *p += delta;
        }
        for (clock, params) in self.clocks.iter_mut().zip(params) {
            if clock.started == 0 {
                continue;
            }
            clock.previous_root = (Vec3::from(clock.previous_root) + delta).to_array();
            shift(&mut clock.previous_parent);
            if params.simulation_space >= 0 {
                shift(&mut clock.previous_space);
            }
        }
        for t in &mut self.previous_colliders {
            shift(t);
        }
    }
}

/// Moves the simulation origin of `stage.state` to the first chain frame when
/// no chain has started yet, or when that frame is more than
/// [`RECENTRE_M`] from it (shifting what is kept by the difference, so
/// nothing moves in the world). `units`: rig units per metre at the
/// character's scale.
fn recentre(
    rig: &Rig,
    stage: &mut Stage,
    (component, world): (&[Affine3A], &Affine3A),
    units: f32,
    range: &StateRange,
) {
    let there = match rig.chain_frames.first() {
        Some(&b) if b >= 0 => world.transform_point3(component[b as usize].translation.into()),
        _ => Vec3::from(world.translation),
    };
    if !range.place(there) {
        return; // keep the origin; the state range check handles the rest
    }
    let w = &mut stage.state;
    if w.clocks.iter().all(|c| c.started == 0) {
        w.origin = there;
        return;
    }
    let radius = RECENTRE_M * units;
    if (there - w.origin).length_squared() > radius * radius {
        let delta = w.origin - there;
        w.shift_positions(&stage.params, delta);
        w.origin = there;
    }
}

/// The chain stage of one character: state, scratch and parameters, all
/// sized at creation.
pub(crate) struct Stage {
    /// The state, changed in place by [`step`], which cannot fail (the
    /// character checks everything else before the stage runs).
    pub(crate) state: ChainState,
    /// Per-character parameters (`Character::set_chain_params`).
    pub(crate) params: Vec<ChainParams>,
    /// Anchor-frame rest directions per particle for the current parameters.
    pub(crate) rest: Vec<Vec3>,
    /// Last substep's rest targets and contact flags, for debug drawing.
    pub(crate) rest_targets: Vec<Vec3>,
    pub(crate) contacts: Vec<u32>,
    /// New bends of one chain's links until the substep is done.
    pub(crate) bend_scratch: Vec<Quat>,
    pub(crate) placed: Vec<PlacedCollider>,
    pub(crate) current_colliders: Vec<Transform>,
    pub(crate) frames: FrameScratch,
    pub(crate) inputs: ChainInputs,
    /// The chain kernel this character runs ([`ChainKernel::detect`]).
    pub(crate) kernel: ChainKernel,
    /// Per chain frame on a chain joint ([`Rig::chain_frames_on`]): the
    /// joint's frame at each substep of this update, recorded by the VRM
    /// chain that owns it, so that a chain hanging from it (a VRM 0.x
    /// branch, a spring whose gravity direction turns) reads it substep by
    /// substep, as three-vrm steps a spring's joints in order, instead of
    /// interpolating the owner's output between updates. Capacity
    /// [`RECORDED_SUBSTEPS`] there, none elsewhere (and no list at all when
    /// no chain hangs from another); cleared every update.
    pub(crate) records: Vec<Vec<JointRecord>>,
    /// Whether a chain's teleport threshold fired this update without a
    /// teleport flag (scratch, cleared when an update begins).
    pub(crate) auto_jumped: bool,
    /// Updates in a row on which [`Stage::auto_jumped`] was set (state).
    pub(crate) jump_streak: u32,
}

impl Stage {
    pub(crate) fn new(rig: &Rig) -> Self {
        let (particles, chains, colliders) =
            (rig.particle_count, rig.chains.len(), rig.colliders.len());
        Self {
            state: ChainState::new(particles, chains, colliders),
            params: rig.chains.iter().map(|c| c.params).collect(),
            rest: {
                let mut rest = vec![Vec3::ZERO; particles];
                for c in &rig.chains {
                    let range = c.particles();
                    chain::rest_directions(c, &c.params, &mut rest[range]);
                }
                rest
            },
            rest_targets: vec![Vec3::ZERO; particles],
            contacts: vec![0; particles],
            bend_scratch: vec![
                Quat::IDENTITY;
                rig.chains.iter().map(|c| c.len()).max().unwrap_or(0)
            ],
            placed: vec![PlacedCollider::default(); colliders],
            current_colliders: vec![Transform::IDENTITY; colliders],
            frames: FrameScratch {
                now: vec![Transform::IDENTITY; rig.chain_frames.len()],
                anchors: vec![Memo::new(Quat::IDENTITY); rig.chain_frames.len()],
                parents: vec![
                    Memo::new((Affine3A::IDENTITY, Quat::IDENTITY));
                    rig.chain_frames.len()
                ],
                colliders: vec![Memo::new(PlacedCollider::default()); colliders],
                collider_epoch: 0,
            },
            inputs: ChainInputs {
                world: Transform::IDENTITY,
                importance: 1.0,
                wind: Vec3::ZERO,
                level_origin: Vec3::ZERO,
            },
            kernel: ChainKernel::detect(),
            records: {
                // Nothing at all for a rig with no chain hanging from another.
                let mut records: Vec<Vec<JointRecord>> = Vec::new();
                for &(slot, _) in rig.chain_frames_on.iter().flatten() {
                    if records.is_empty() {
                        records = (0..rig.chain_frames.len()).map(|_| Vec::new()).collect();
                    }
                    records[slot as usize] = Vec::with_capacity(RECORDED_SUBSTEPS);
                }
                records
            },
            auto_jumped: false,
            jump_streak: 0,
        }
    }

    /// Whether a chain simulates in a bone's space (that bone's component
    /// matrix is read, whichever it is).
    pub(crate) fn any_simulation_space(&self) -> bool {
        self.params.iter().any(|p| p.simulation_space >= 0)
    }
}

/// What every chain of one update reads.
struct Update {
    range: StateRange,
    /// Uniform scale of the character, and rig units per metre at it.
    scale: f32,
    units: f32,
    /// The character's world relative to the simulation origin, and back.
    world: Affine3A,
    world_inverse: Affine3A,
    up: Vec3,
    /// Height of the simulation origin along `up` ([`SubstepFrame::floor_shift`]).
    floor_shift: f32,
    wind: Vec3,
    dt: f32,
    teleport: bool,
}

/// A chain's input frames this update.
#[derive(Clone, Copy)]
struct Now {
    anchor: Quat,
    parent: Transform,
    root: Vec3,
    root_local: [f32; 3],
    space: Transform,
}

/// One chain after its per-update bookkeeping: what its substeps and its
/// writeback read.
#[derive(Clone, Copy)]
struct Prepared {
    now: Now,
    /// Teleported this update: nothing is interpolated across the jump, so
    /// its colliders stand at their current frames ([`CURRENT`]).
    jumped: bool,
    /// Whether substeps run this update (false: a half-rate LOD hold).
    run: bool,
    h: f64,
    decay: chain::StepDecay,
    t0: f64,
    t1: f64,
    previous_anchor: Quat,
    previous_parent: Transform,
    previous_root_local: Vec3,
    gravity_direction: Vec3,
    acceleration: Vec3,
    substeps: u32,
    /// Static friction of the next substep ([`chain::settle_friction`]).
    friction: f32,
    /// Settle-phase repeats left this update.
    extra_budget: u32,
    /// A chain in a simulation space: how the space moved since the
    /// previous update ([`Carry`]).
    carry: Option<Carry>,
}

/// A simulation space's motion over an update. The particles, root,
/// parent and anchor were carried by `carried` (`1 − inertia`) of `delta`
/// at the start of the update; the colliders' previous frames are carried
/// the same way when they are placed, and the world's fixed directions
/// (gravity, wind) turn by the part of the space's turn still ahead at
/// each substep: within the update everything moves relative to the
/// space, in its current frame, as a VRM center's tails do at each
/// three-vrm step.
#[derive(Clone, Copy)]
struct Carry {
    delta: Affine3A,
    carried: f32,
    /// The space's frames at the previous update and now.
    from: Transform,
    to: Transform,
}

/// One character's part of a chain-stage run ([`step_jobs`]).
pub(crate) struct Job<'a> {
    pub(crate) rig: &'a Rig,
    pub(crate) stage: &'a mut Stage,
    pub(crate) local: &'a mut [Transform],
    pub(crate) component: &'a mut [Affine3A],
    pub(crate) dt: f32,
    pub(crate) teleport: bool,
}

/// Most characters whose chains one [`step_jobs`] call runs together.
pub(crate) const JOBS: usize = lanes::W;

/// docs/algorithms.md §7/§8: every chain on the post-corrective pose, particles in world
/// space (or their simulation frame), 120 substeps per second of input
/// time, with the anchor, the chain root and the colliders interpolated
/// between the previous and the current input at every substep; for up to
/// [`JOBS`] characters at once (`None`: no chain stage for that one), of
/// one rig or several.
///
/// Chains run in blocks of up to [`lanes::W`]: a character's consecutive
/// chains that share an integrator and read no other chain's output
/// ([`block_end`]), and blocks of different characters together while they
/// fit (any two characters are independent). A block's substeps run in
/// lockstep through the lane kernel ([`lanes`]), one chain per lane, with
/// each chain's bookkeeping and writeback around them. Each character's
/// blocks run in its chain order, so every chain reads its frames after the
/// chains it hangs from have written them.
pub(crate) fn step_jobs(jobs: &mut [Option<Job<'_>>]) {
    debug_assert!(jobs.len() <= JOBS);
    let mut updates: [Option<Update>; JOBS] = [const { None }; JOBS];
    for (job, update) in jobs.iter_mut().zip(&mut updates) {
        if let Some(job) = job {
            *update = Some(begin(job));
        }
    }
    // Each character's next chain; a pass takes one block of each.
    let mut next = [0usize; JOBS];
    loop {
        let mut block = Block::default();
        let mut any = false;
        for j in 0..jobs.len() {
            let Some(job) = jobs[j].as_ref() else {
                continue;
            };
            let first = next[j];
            if first >= job.rig.chains.len() {
                continue;
            }
            any = true;
            let kernel = job.stage.kernel;
            let end = if kernel == ChainKernel::Scalar {
                first + 1
            } else {
                block_end(job.rig, &job.stage.params, first)
            };
            let key = (kernel, job.stage.params[first].integrator);
            let fits = block.count + (end - first) <= lanes::W
                && block.key == Some(key)
                && kernel != ChainKernel::Scalar;
            if block.count > 0 && !fits {
                run_block(jobs, &updates, &block);
                block = Block::default();
            }
            block.key = Some(key);
            for ci in first..end {
                block.members[block.count] = Member { job: j, ci };
                block.count += 1;
            }
            next[j] = end;
        }
        if block.count > 0 {
            run_block(jobs, &updates, &block);
        }
        if !any {
            break;
        }
    }
    for (job, update) in jobs.iter_mut().zip(&updates) {
        if let (Some(job), Some(update)) = (job, update) {
            end(job.stage, update);
        }
    }
}

/// A chain of a block: its character (index into the jobs) and its index.
#[derive(Clone, Copy, Default)]
struct Member {
    job: usize,
    ci: usize,
}

/// Chains stepped together: up to [`lanes::W`], each character's in chain
/// order, all with one kernel and one integrator.
#[derive(Default)]
struct Block {
    members: [Member; lanes::W],
    count: usize,
    key: Option<(ChainKernel, u32)>,
}

/// A character's per-update setup of the chain stage: the simulation
/// origin, the colliders and chain frames placed, what every chain reads.
fn begin(job: &mut Job<'_>) -> Update {
    let (rig, stage, component) = (job.rig, &mut *job.stage, &*job.component);
    let state_range = StateRange::new(rig.units_per_meter());
    // Everything the stage keeps is relative to the simulation origin: its
    // "world" is the character's world moved by −origin.
    let scale = stage.inputs.world.scale().abs().element_sum() / 3.0;
    // Rig units per metre at this scale (the rest test's floor).
    let units = rig.units_per_meter() * scale;
    let character_world = stage.inputs.world.to_affine();
    recentre(
        rig,
        stage,
        (component, &character_world),
        units,
        &state_range,
    );
    let origin = stage.state.origin;
    let world = Affine3A::from_translation(-origin) * character_world;
    for (k, c) in rig.colliders.iter().enumerate() {
        let m = world * component[c.bone as usize];
        stage.current_colliders[k] = math::decompose(&m, Vec3::ONE).transform;
    }
    // New frames (and any restore or reset since the last update).
    stage.frames.collider_epoch = stage.frames.collider_epoch.wrapping_add(1);
    stage.auto_jumped = false;
    // Each distinct anchor and root parent once, however many chains
    // hang from it. (A frame on a chain joint is read per chain.)
    for ((now, &bone), &moves) in stage
        .frames
        .now
        .iter_mut()
        .zip(&rig.chain_frames)
        .zip(&rig.chain_frame_moves)
    {
        if !moves {
            *now = frame_of(component, &world, bone);
        }
    }
    for r in &mut stage.records {
        r.clear();
    }
    let up = crate::rig::up_vector(rig.up_axis);
    Update {
        range: state_range,
        scale,
        units,
        world,
        world_inverse: world.inverse(),
        up,
        floor_shift: (origin + stage.inputs.level_origin).dot(up),
        wind: stage.inputs.wind,
        dt: job.dt,
        teleport: job.teleport,
    }
}

/// After every chain of a character: the colliders' frames kept for the
/// next update's interpolation.
fn end(stage: &mut Stage, update: &Update) {
    stage.jump_streak = if stage.auto_jumped {
        stage.jump_streak.saturating_add(1)
    } else {
        0
    };
    // A collider frame beyond the state range is kept unset (the chains it
    // touches have been parked or re-seeded above).
    for (kept, now) in stage
        .state
        .previous_colliders
        .iter_mut()
        .zip(&stage.current_colliders)
    {
        *kept = if update.range.transform(now) {
            *now
        } else {
            bytemuck::Zeroable::zeroed()
        };
    }
    // The chain joints' component matrices are current (the writeback
    // keeps them so, for chains hanging from other chains); nothing after
    // this stage reads the others, and the next update starts with FK.
}

/// A member's job and that job's update.
fn job_of<'j, 'a>(
    jobs: &'j mut [Option<Job<'a>>],
    updates: &'j [Option<Update>; JOBS],
    m: Member,
) -> (&'j mut Job<'a>, &'j Update) {
    (
        jobs[m.job].as_mut().expect("a member's job"),
        updates[m.job].as_ref().expect("a member's update"),
    )
}

/// One block: each chain's bookkeeping, the substeps, each chain's output.
fn run_block(jobs: &mut [Option<Job<'_>>], updates: &[Option<Update>; JOBS], block: &Block) {
    let members = &block.members[..block.count];
    let kernel = block.key.map_or(ChainKernel::Scalar, |k| k.0);
    let mut prepared = [None; lanes::W];
    for (slot, m) in prepared.iter_mut().zip(members) {
        let (job, update) = job_of(jobs, updates, *m);
        *slot = prepare(job.rig, job.stage, update, (job.local, job.component), m.ci);
    }
    run_substeps(
        jobs,
        updates,
        members,
        kernel,
        &mut prepared[..members.len()],
    );
    let mut ahead = [None; lanes::W];
    for ((slot, m), ahead) in prepared.iter().zip(members).zip(&mut ahead) {
        if let Some(p) = slot {
            let (job, update) = job_of(jobs, updates, *m);
            *ahead = finish(
                job.rig,
                job.stage,
                update,
                (job.local, job.component),
                m.ci,
                p,
            );
        }
    }
    write_back(jobs, updates, members, kernel, &ahead);
}

/// A bone's world frame (the character's world for −1), scale divided out.
fn frame_of(component: &[Affine3A], world: &Affine3A, bone: i32) -> Transform {
    let m = if bone >= 0 {
        *world * component[bone as usize]
    } else {
        *world
    };
    math::decompose(&m, Vec3::ONE).transform
}

/// One past the last chain of the block that starts at `first`: the chains
/// after it that share its integrator and read no frame a chain of the
/// block moves (their inputs do not depend on the block's own output: what
/// they read is moved, if at all, by chains before `first`, which have
/// run), at most [`lanes::W`]. Hair strands hanging from one branch joint
/// or sliding over one collider on a spring step together. Chains in a
/// simulation space join only chains in the same space with the same
/// inertia, a space no chain from `first` on moves: a character's lanes
/// share its placed colliders, which such a chain places from the space's
/// frame (`interpolate`); the skirt strands of a VRM spring with a center
/// step together.
fn block_end(rig: &Rig, params: &[ChainParams], first: usize) -> usize {
    let (integrator, space) = (params[first].integrator, params[first].simulation_space);
    let same_space = |c: &ChainParams| {
        c.simulation_space == space
            && (space < 0
                || (c.inertia == params[first].inertia && {
                    let mover = rig.bone_mover[space as usize];
                    mover == NO_SLOT || (mover as usize) < first
                }))
    };
    let mut end = first + 1;
    while end < rig.chains.len() && end - first < lanes::W {
        let mover = rig.last_mover[end];
        let independent =
            (mover == NO_SLOT || (mover as usize) < first) && same_space(&params[end]);
        if !independent || params[end].integrator != integrator {
            break;
        }
        end += 1;
    }
    end
}

/// A chain's per-update bookkeeping before its substeps: seeding, LOD,
/// teleport, the settle clock, the simulation space. `None`: the chain is
/// done for this update and keeps its animated pose.
fn prepare(
    rig: &Rig,
    stage: &mut Stage,
    update: &Update,
    (local, component): (&[Transform], &[Affine3A]),
    ci: usize,
) -> Option<Prepared> {
    let setup = &rig.chains[ci];
    let params = &stage.params[ci];
    let (world, scale, dt) = (update.world, update.scale, update.dt);
    let n = setup.len();
    let range = setup.particles();
    // A collider on a chain joint, or below one, as the chain moving it
    // left it this update (its animated pose if that chain comes later):
    // the end of this update's interpolation and, kept by `end`, the start
    // of the next one's. At a substep the moving chain recorded, the
    // record places it instead (`interpolate`).
    if rig.reads_moving_collider[ci] {
        for &c in &setup.colliders {
            let slot = rig.collider_slots[c as usize];
            if slot != NO_SLOT {
                let t = frame_of(component, &world, rig.colliders[c as usize].bone as i32);
                stage.frames.now[slot as usize] = t;
                stage.current_colliders[c as usize] = t;
            }
        }
    }
    // A frame on an earlier chain's joint, or below one, has moved since
    // (the chain hangs from that chain's output).
    let mut frame_now = |slot: u32| {
        let slot = slot as usize;
        if rig.chain_frame_moves[slot] {
            stage.frames.now[slot] = frame_of(component, &world, rig.chain_frames[slot]);
        }
        stage.frames.now[slot]
    };
    let now = Now {
        anchor: frame_now(setup.anchor_slot).rotation(),
        parent: frame_now(setup.parent_slot),
        root: Vec3::from((world * component[setup.joints[0] as usize]).translation),
        root_local: local[setup.joints[0] as usize].translation,
        space: if params.simulation_space >= 0 {
            let m = world * component[params.simulation_space as usize];
            math::decompose(&m, Vec3::ONE).transform
        } else {
            Transform::IDENTITY
        },
    };
    let (clock, mut kept, previous_colliders) = split(&mut stage.state, ci, range);
    if clock.started == 0 {
        // First update: particles start on the animated pose, nothing moves.
        *clock = ChainClock {
            started: 1,
            ..ChainClock::default()
        };
        seed(
            clock,
            kept.reborrow(),
            (local, component),
            &world,
            setup,
            &now,
        );
        // No substep this update: the colliders' previous frames are
        // the character's `end` keeps, untouched here (another chain may
        // read them after this one).
        in_range_or_park((&update.range, params.simulation_space >= 0), clock, kept);
        return None;
    }
    clock.time += dt as f64;
    clock.lod_counter = clock.lod_counter.wrapping_add(1);

    // LOD: below the skip threshold the chain follows the animation,
    // so it resumes from there with no pop.
    if stage.inputs.importance < params.lod_skip_below {
        // Follow the animation, carrying its velocity, so that the
        // chain resumes in step with the body instead of from rest.
        let tips = &mut stage.rest_targets[setup.particles()];
        animated_tips((local, component), &world, setup, tips);
        for ((p, v), tip) in kept
            .position
            .iter_mut()
            .zip(kept.velocity.iter_mut())
            .zip(tips.iter())
        {
            // Below a millisecond a frame defines no velocity (a dt
            // of 1e-40 would make it infinite).
            *v = if dt >= MIN_VELOCITY_DT {
                (*tip - *p) / dt
            } else {
                Vec3::ZERO
            };
            *p = *tip;
        }
        kept.previous.copy_from_slice(kept.position);
        kept.bend.fill(Quat::IDENTITY);
        remember(clock, &now);
        clock.previous_space = now.space;
        clock.simulated = clock.time;
        clock.last_update = clock.time;
        clock.still_since = clock.time;
        clock.sleeping = 0;
        chain::restart_window(clock);
        in_range_or_park((&update.range, params.simulation_space >= 0), clock, kept);
        return None;
    }

    // Teleport: an explicit flag, or the root jumping or turning past
    // the thresholds. Carry (ChainParams::teleport_restart 0): particles
    // move rigidly with the root, keeping their offsets. Restart (1): they
    // start again on the animated pose, at rest, as three-vrm's reset().
    // Either way nothing is interpolated across the jump.
    let previous_anchor = Quat::from_array(clock.previous_anchor);
    let previous_root = Vec3::from_array(clock.previous_root);
    let jumped = update.teleport
        || (now.root - previous_root).length() > params.teleport_distance * scale
        || previous_anchor.angle_between(now.anchor) > params.teleport_angle;
    stage.auto_jumped |= jumped && !update.teleport;
    if jumped && params.teleport_restart == ChainParams::TELEPORT_RESTART {
        seed(
            clock,
            kept.reborrow(),
            (local, component),
            &world,
            setup,
            &now,
        );
        // A new motion from rest: the settle clock starts again too.
        clock.sleeping = 0;
        chain::restart_window(clock);
        clock.still_since = clock.time;
        // The motion starts one substep before the update's end, whatever
        // the input rate: the update's earlier substeps (on the substep
        // loop's own grid) are dropped, as a 120 Hz update would have
        // nothing before the jump to simulate from here. Simulated at
        // 30 Hz input, the chain fell three substeps ahead of the same
        // motion at 120 Hz (5.7 % of its length on the teleport_gravity
        // parity fixture).
        let h = CHAIN_STEP * params.time_factor as f64;
        while clock.simulated + h + h <= clock.time + 1e-9 {
            clock.simulated += h;
        }
    } else if jumped {
        let turn = now.anchor * previous_anchor.conjugate();
        for p in kept.position.iter_mut().chain(kept.previous.iter_mut()) {
            *p = now.root + turn * (*p - previous_root);
        }
        for v in kept.velocity.iter_mut() {
            *v = turn * *v;
        }
        // Carried rigidly, but gravity may now pull another way. Its
        // colliders stand where they are now through the update
        // (`Prepared::jumped`); the character's previous frames stay as
        // they are for the chains that did not jump. A simulation space
        // jumped with the root: the particles are where it put them, so
        // it carries nothing more this update (they moved twice before
        // session 15, 1.4 chain lengths off three-vrm's reset).
        clock.sleeping = 0;
        chain::restart_window(clock);
        clock.still_since = chain::woken_still_since(clock.still_since, clock.time);
        remember(clock, &now);
        clock.previous_space = now.space;
    }

    // The settle phase's clock (ChainParams::settle_speedup): any
    // change of the chain's input restarts it and wakes the chain. A
    // teleport, which carries the particles rigidly (above), only
    // wakes it: it has already moved the previous frame onto this
    // one. Exact comparisons: a held pose gives bit-identical frames.
    let wind = stage.inputs.wind.to_array();
    let input_changed = now.anchor.to_array() != clock.previous_anchor
        || now.root.to_array() != clock.previous_root
        || now.parent != clock.previous_parent
        || (params.simulation_space >= 0 && now.space != clock.previous_space)
        || wind != clock.previous_wind
        || (!jumped
            && setup
                .colliders
                .iter()
                .any(|&c| previous_colliders[c as usize] != stage.current_colliders[c as usize]));
    if input_changed {
        clock.still_since = clock.time;
        clock.sleeping = 0;
        chain::restart_window(clock);
    }
    clock.previous_wind = wind;

    // Simulation space: particles ride along with a bone (a vehicle,
    // a platform), keeping `inertia` of their world motion.
    let mut carry = None;
    if params.simulation_space >= 0 {
        let carried = 1.0 - params.inertia;
        let delta = now.space.to_affine() * clock.previous_space.to_affine().inverse();
        carry = Some(Carry {
            delta,
            carried,
            from: clock.previous_space,
            to: now.space,
        });
        for p in kept.position.iter_mut().chain(kept.previous.iter_mut()) {
            *p = p.lerp(delta.transform_point3(*p), carried);
        }
        for v in kept.velocity.iter_mut() {
            *v = v.lerp(delta.transform_vector3(*v), carried);
        }
        let root = Vec3::from_array(clock.previous_root);
        clock.previous_root = root.lerp(delta.transform_point3(root), carried).to_array();
        clock.previous_parent = carried_frame(&clock.previous_parent, (&delta, carried));
        let anchor = Transform::new(
            Vec3::ZERO,
            Quat::from_array(clock.previous_anchor),
            Vec3::ONE,
        );
        clock.previous_anchor = carried_frame(&anchor, (&delta, carried))
            .rotation()
            .to_array();
        clock.previous_space = now.space;
    }

    // LOD: half rate simulates every other update over both updates'
    // time. On the held update the particles stay where they are and
    // the output is written from them, as a half-rate simulation would
    // show (holding local rotations instead welds the chain to the body
    // for a frame and pops when updates resume).
    let hold = stage.inputs.importance < params.lod_half_below && clock.lod_counter % 2 == 1;
    let h = CHAIN_STEP * params.time_factor as f64;
    let (t0, t1) = (clock.last_update, clock.time);
    if !hold {
        // A long pause costs at most 5 s of input time and at most
        // MAX_CHAIN_SUBSTEPS substeps (a small time factor makes
        // substeps short, not more numerous).
        let backlog = (CHAIN_CATCH_UP).min(f64::from(MAX_CHAIN_SUBSTEPS) * h);
        if t1 - clock.simulated > backlog {
            clock.simulated = t1 - backlog;
        }
    }
    let gravity_direction = params
        .gravity_direction()
        .try_normalize()
        .unwrap_or(-update.up);
    Some(Prepared {
        now,
        jumped,
        run: !hold,
        h,
        decay: chain::StepDecay::new(params, h as f32, n),
        t0,
        t1,
        previous_anchor: Quat::from_array(clock.previous_anchor),
        previous_parent: clock.previous_parent,
        previous_root_local: Vec3::from_array(clock.previous_root_local),
        gravity_direction,
        acceleration: gravity_direction * params.gravity * scale
            + stage.inputs.wind * params.wind_factor,
        substeps: 0,
        friction: 0.0,
        // Settle-phase repeats count against the same budget: one
        // update never runs more than 2 × MAX_CHAIN_SUBSTEPS substeps,
        // however long the pause before it (the extra ones only make
        // a chain settle sooner, so they are the ones dropped).
        extra_budget: MAX_CHAIN_SUBSTEPS,
        carry,
    })
}

/// `frame` moved by `carried` of the space's motion `delta` (a frame the
/// previous update left, seen from the space's current frame).
fn carried_frame(frame: &Transform, (delta, carried): (&Affine3A, f32)) -> Transform {
    let moved = math::decompose(&(*delta * frame.to_affine()), frame.scale()).transform;
    Transform::new(
        frame.translation().lerp(moved.translation(), carried),
        frame.rotation().slerp(moved.rotation(), carried),
        frame.scale(),
    )
}

/// Stores this update's frames as the next update's previous ones.
fn remember(clock: &mut ChainClock, now: &Now) {
    clock.previous_anchor = now.anchor.to_array();
    clock.previous_root = now.root.to_array();
    clock.previous_parent = now.parent;
    clock.previous_root_local = now.root_local;
}

/// Places a chain's particles on its animated pose, at rest.
fn seed(
    clock: &mut ChainClock,
    kept: Kept<'_>,
    pose: (&[Transform], &[Affine3A]),
    world: &Affine3A,
    setup: &ChainSetup,
    now: &Now,
) {
    let Kept {
        position,
        velocity,
        bend,
        previous,
    } = kept;
    animated_tips(pose, world, setup, position);
    previous.copy_from_slice(position);
    velocity.fill(Vec3::ZERO);
    bend.fill(Quat::IDENTITY);
    remember(clock, now);
    clock.previous_space = now.space;
}

/// One substep's interpolated frame of a chain: the anchor, the root, the
/// root's parent (the colliders it reads are placed in `Stage::placed`).
#[derive(Clone, Copy)]
struct Interpolated {
    anchor: Quat,
    root: Vec3,
    parent: Quat,
    /// In a simulation space, what turns the world's fixed directions
    /// into the space's current frame at this substep ([`Carry`]).
    world: Option<Quat>,
    /// In a simulation space, the part of its motion still ahead at this
    /// substep and the part of that which carries the chain: what takes a
    /// world frame of the substep into the chain's frame ([`Stage::records`]
    /// are world frames).
    ahead: Option<(Affine3A, f32)>,
}

/// Interpolates chain `ci`'s frames to fraction `f` of this update, and
/// places its colliders there, each shared with every chain that reads
/// the same frame at the same fraction (FrameScratch).
fn interpolate(
    rig: &Rig,
    stage: &mut Stage,
    update: &Update,
    ci: usize,
    p: &Prepared,
    (end, f): (f64, f32),
) -> Interpolated {
    let setup = &rig.chains[ci];
    let scale = update.scale;
    let fk = [f];
    let epoch = stage.frames.collider_epoch;
    // The colliders' fraction: a chain that jumped reads them where they
    // are now.
    let fc = if p.jumped { CURRENT } else { f };
    let key = [
        epoch as u32,
        (epoch >> 32) as u32,
        fc.to_bits(),
        scale.to_bits(),
    ];
    // The part of the space's motion still ahead at this substep (none at
    // the update's end, so one substep per update moves nothing), and its
    // turn, which the world's fixed directions take.
    let (ahead, world) = match p.carry {
        Some(carry) if fc != CURRENT && f < 1.0 => {
            let at = between((&carry.from, &carry.to), f);
            let turn = carry.to.rotation() * at.rotation().conjugate();
            (
                Some((
                    carry.to.to_affine() * at.to_affine().inverse(),
                    carry.carried,
                )),
                Some(Quat::IDENTITY.slerp(turn, carry.carried)),
            )
        }
        _ => (None, None),
    };
    // A world frame of this substep (another chain's record) in the
    // chain's frame.
    let in_space = |t: Transform| ahead.map_or(t, |(a, c)| carried_frame(&t, (&a, c)));
    let shared = |stage: &mut Stage, c: usize| {
        let frames = (
            &stage.state.previous_colliders[c],
            &stage.current_colliders[c],
        );
        stage.placed[c] = stage.frames.colliders[c].get(key, || {
            rig.colliders[c].place(&between(frames, fc).to_affine(), scale)
        });
    };
    if let (Some(carry), false) = (p.carry, fc == CURRENT) {
        // In a simulation space: each collider between its previous frame
        // seen from the space's current frame and its current one, placed
        // for this chain alone; one riding on another chain's joint where
        // that chain left it at this substep, seen from the space's
        // current frame.
        for &c in &setup.colliders {
            let c = c as usize;
            let previous = carried_frame(
                &stage.state.previous_colliders[c],
                (&carry.delta, carry.carried),
            );
            let frames = (&previous, &stage.current_colliders[c]);
            let (m, recorded) =
                collider_frame(&stage.records, rig.collider_slots[c], frames, (end, fc));
            let m = if recorded { in_space(m) } else { m };
            stage.placed[c] = rig.colliders[c].place(&m.to_affine(), scale);
        }
    } else if rig.reads_moving_collider[ci] {
        for &c in &setup.colliders {
            let (c, slot) = (c as usize, rig.collider_slots[c as usize]);
            if slot == NO_SLOT {
                shared(stage, c);
            } else {
                let frames = (
                    &stage.state.previous_colliders[c],
                    &stage.current_colliders[c],
                );
                stage.placed[c] = riding(rig, &stage.records, (c, slot), frames, (end, fc), scale);
            }
        }
    } else {
        for &c in &setup.colliders {
            shared(stage, c as usize);
        }
    }
    let (previous_parent, parent_now) = (p.previous_parent, p.now.parent);
    let key = key_of(&[
        bytemuck::cast_slice(core::slice::from_ref(&previous_parent)),
        bytemuck::cast_slice(core::slice::from_ref(&parent_now)),
        &fk,
    ]);
    // The root's parent is another chain's joint that recorded this
    // substep: its frame as that chain left it (Stage::records).
    let recorded = recorded_at(&stage.records, setup.parent_slot, end);
    let (parent_affine, parent_rotation) = if let Some(r) = recorded {
        let scale = previous_parent.scale().lerp(parent_now.scale(), f);
        let t = in_space(Transform::new(r.head, r.rotation, scale));
        (t.to_affine(), t.rotation())
    } else {
        stage.frames.parents[setup.parent_slot as usize].get(key, || {
            let parent = Transform::new(
                previous_parent
                    .translation()
                    .lerp(parent_now.translation(), f),
                previous_parent.rotation().slerp(parent_now.rotation(), f),
                previous_parent.scale().lerp(parent_now.scale(), f),
            );
            (parent.to_affine(), parent.rotation())
        })
    };
    let (previous_anchor, anchor_now) = (p.previous_anchor, p.now.anchor);
    let key = key_of(&[&previous_anchor.to_array(), &anchor_now.to_array(), &fk]);
    let anchor = stage.frames.anchors[setup.anchor_slot as usize]
        .get(key, || previous_anchor.slerp(anchor_now, f));
    Interpolated {
        anchor,
        root: {
            let local = p
                .previous_root_local
                .lerp(Vec3::from_array(p.now.root_local), f);
            parent_affine.transform_point3(local)
        },
        parent: parent_rotation,
        world,
        ahead,
    }
}

/// The colliders' fraction of an update for a chain that teleported: their
/// current frames, exactly (no fraction of an update is 2).
const CURRENT: f32 = 2.0;

/// A frame at fraction `f` from `a` to `b` ([`CURRENT`]: `b`).
#[inline(always)]
fn between((a, b): (&Transform, &Transform), f: f32) -> Transform {
    if f == CURRENT {
        return *b;
    }
    Transform::new(
        a.translation().lerp(b.translation(), f),
        a.rotation().slerp(b.rotation(), f),
        a.scale().lerp(b.scale(), f),
    )
}

/// Collider `c`, on a chain joint or below one (chain frame `slot`), placed
/// at the substep ending at `end`: where the chain moving it left it then
/// ([`Stage::records`]), else interpolated to where it left it this update
/// (`frames`: previous and current). Not memoised, since it changes within
/// the update.
#[inline(never)]
fn riding(
    rig: &Rig,
    records: &[Vec<JointRecord>],
    (c, slot): (usize, u32),
    frames: (&Transform, &Transform),
    (end, f): (f64, f32),
    scale: f32,
) -> PlacedCollider {
    let (m, _) = collider_frame(records, slot, frames, (end, f));
    rig.colliders[c].place(&m.to_affine(), scale)
}

/// The frame of a collider on chain frame `slot` at the substep ending at
/// `end`: the moving chain's record then (a world frame, and `true`), else
/// `frames` interpolated to `f`.
fn collider_frame(
    records: &[Vec<JointRecord>],
    slot: u32,
    frames: (&Transform, &Transform),
    (end, f): (f64, f32),
) -> (Transform, bool) {
    match recorded_at(records, slot, end) {
        Some(r) => (
            Transform::new(r.head, r.rotation, between(frames, f).scale()),
            true,
        ),
        None => (between(frames, f), false),
    }
}

/// Chain frame `slot` as the chain owning it left it at the substep ending
/// at `end`, if it recorded that substep ([`Stage::records`]).
fn recorded_at(records: &[Vec<JointRecord>], slot: u32, end: f64) -> Option<JointRecord> {
    records
        .get(slot as usize)
        .and_then(|r| r.iter().find(|r| r.end.to_bits() == end.to_bits()))
        .copied()
}

/// The kernel's view of one chain's substep. Inlined so that the lane step
/// builds each lane's frame in place (returned, it was copied through
/// `memcpy`: 5 instructions per joint-substep).
#[inline(always)]
fn substep_frame<'a>(
    params: &ChainParams,
    update: &Update,
    local: &'a [Transform],
    p: &Prepared,
    at: &Interpolated,
    placed: &'a [PlacedCollider],
) -> SubstepFrame<'a> {
    // In a simulation space the world's gravity and wind as seen from the
    // space's current frame at this substep (the floor stays where it is).
    let world = |v: Vec3| at.world.map_or(v, |turn| turn * v);
    SubstepFrame {
        h: p.h as f32,
        anchor: at.anchor,
        root: at.root,
        up: update.up,
        acceleration: world(p.acceleration),
        scale: update.scale,
        colliders: placed,
        parent: at.parent,
        pose: local,
        gravity_velocity: world(p.gravity_direction * params.vrm_gravity_power),
        gravity_direction: world(p.gravity_direction),
        wind: world(update.wind * params.wind_factor),
        floor_shift: update.floor_shift,
        decay: p.decay,
        friction: p.friction,
    }
}

/// `count` substeps of chain `ci` through the scalar kernel.
#[allow(clippy::too_many_arguments)]
fn run_chain(
    rig: &Rig,
    stage: &mut Stage,
    update: &Update,
    local: &[Transform],
    ci: usize,
    p: &Prepared,
    at: &Interpolated,
    count: u32,
) {
    let setup = &rig.chains[ci];
    let n = setup.len();
    let range = setup.particles();
    let Stage {
        state,
        params,
        rest,
        rest_targets,
        contacts,
        bend_scratch,
        placed,
        ..
    } = stage;
    let frame = substep_frame(&params[ci], update, local, p, at, placed);
    for _ in 0..count {
        chain::substep(
            setup,
            &params[ci],
            &frame,
            &rest[range.clone()],
            &mut chain::Particles {
                position: &mut state.position[range.clone()],
                velocity: &mut state.velocity[range.clone()],
                bend: &mut state.bend[range.clone()],
                bend_scratch: &mut bend_scratch[..n],
                rest_targets: &mut rest_targets[range.clone()],
                contacts: &mut contacts[range.clone()],
            },
        );
    }
}

/// The substeps of a block (`prepared[l]` is `members[l]`'s). The awake
/// chains that take a substep at the same time run it through the lane
/// kernel; chains out of step with them, the settle phase's extra repeats
/// and the scalar kernel run chain by chain. The chains are independent,
/// so the order changes nothing.
fn run_substeps(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    prepared: &mut [Option<Prepared>],
) {
    let len = prepared.len();
    let mut at = [Interpolated {
        anchor: Quat::IDENTITY,
        root: Vec3::ZERO,
        parent: Quat::IDENTITY,
        world: None,
        ahead: None,
    }; lanes::W];
    loop {
        // The chains that take a substep now: when it ends, at what
        // fraction of the update.
        let mut stepping = [None::<(f64, f32)>; lanes::W];
        for (l, slot) in prepared.iter_mut().enumerate() {
            let Some(p) = slot else { continue };
            let m = members[l];
            let job = jobs[m.job].as_ref().expect("a member's job");
            let clock = &job.stage.state.clocks[m.ci];
            if !p.run || clock.simulated + p.h > p.t1 + 1e-9 || p.substeps >= MAX_CHAIN_SUBSTEPS {
                continue;
            }
            p.substeps += 1;
            let end = clock.simulated + p.h;
            let f = if p.t1 > p.t0 {
                ((end - p.t0) / (p.t1 - p.t0)).clamp(0.0, 1.0) as f32
            } else {
                1.0
            };
            stepping[l] = Some((end, f));
        }
        if stepping[..len].iter().all(Option::is_none) {
            break;
        }
        // Each stepping chain's repeats of this substep: 0 asleep, more
        // than 1 in the settle phase.
        let mut repeats = [0u32; lanes::W];
        let mut wanted = [0u32; lanes::W];
        for (l, s) in stepping.iter().enumerate().take(len) {
            let (Some((end, _)), Some(p)) = (*s, prepared[l].as_mut()) else {
                continue;
            };
            let m = members[l];
            let job = jobs[m.job].as_ref().expect("a member's job");
            let clock = &job.stage.state.clocks[m.ci];
            if clock.sleeping == 0 {
                // Once the input has rested, the same substeps run
                // faster (ChainParams::settle_speedup); the input is
                // still, so every one sees the same frame.
                let params = &job.stage.params[m.ci];
                wanted[l] = chain::settle_substeps(params, end - clock.still_since);
                p.friction = chain::settle_friction(end - clock.still_since);
                repeats[l] = 1 + (wanted[l] - 1).min(p.extra_budget);
                p.extra_budget -= repeats[l] - 1;
            }
        }
        // The lanes: the awake chains at the first awake chain's fraction
        // and step (a character's colliders are then placed once for all
        // its lanes), if there are two or more.
        let mut in_lanes = [false; lanes::W];
        if kernel != ChainKernel::Scalar {
            if let Some(l0) = (0..len).find(|&l| repeats[l] > 0) {
                // Lanes of one character share its placed colliders
                // (`interpolate` writes them, `step_lanes` reads them after
                // every lane's interpolation): only chains that place them
                // alike may share lanes, at the same fraction and step, and
                // either all jumped this update (colliders where they are
                // now) or none. A chain that jumped past its own teleport
                // threshold beside one that did not is stepped on its own.
                let key = |l: usize| {
                    (
                        stepping[l].map_or(0, |s| s.1.to_bits()),
                        prepared[l].as_ref().map_or(0, |p| p.h.to_bits()),
                        prepared[l].as_ref().is_some_and(|p| p.jumped),
                    )
                };
                for l in 0..len {
                    in_lanes[l] = repeats[l] > 0 && key(l) == key(l0);
                }
                if in_lanes.iter().filter(|&&b| b).count() < 2 {
                    in_lanes = [false; lanes::W];
                }
            }
        }
        // Chains outside the lanes first, each interpolated and stepped at
        // once (another chain's fraction may place the same collider
        // differently); then the lanes' frames, then the lane kernel.
        for pass in [false, true] {
            for (l, s) in stepping.iter().enumerate().take(len) {
                let Some((end, f)) = *s else { continue };
                if in_lanes[l] != pass {
                    continue;
                }
                let Some(p) = prepared[l].as_ref() else {
                    continue;
                };
                let m = members[l];
                let (job, update) = job_of(jobs, updates, m);
                at[l] = interpolate(job.rig, job.stage, update, m.ci, p, (end, f));
                let range = job.rig.chains[m.ci].particles();
                let ChainState {
                    position, previous, ..
                } = &mut job.stage.state;
                previous[range.clone()].copy_from_slice(&position[range]);
                if !pass && repeats[l] > 0 {
                    run_chain(
                        job.rig, job.stage, update, job.local, m.ci, p, &at[l], repeats[l],
                    );
                }
            }
        }
        if in_lanes[..len].iter().any(|&b| b) {
            let mut lane_of = [0usize; lanes::W];
            let mut count = 0;
            for (l, &member) in in_lanes.iter().enumerate().take(len) {
                if member {
                    lane_of[count] = l;
                    count += 1;
                }
            }
            step_lanes(
                jobs,
                updates,
                members,
                kernel,
                (&lane_of[..count], prepared, &at),
            );
            // The settle phase's extra repeats, chain by chain.
            for &l in &lane_of[..count] {
                if repeats[l] > 1 {
                    let p = prepared[l].as_ref().expect("a lane is prepared");
                    let m = members[l];
                    let (job, update) = job_of(jobs, updates, m);
                    run_chain(
                        job.rig,
                        job.stage,
                        update,
                        job.local,
                        m.ci,
                        p,
                        &at[l],
                        repeats[l] - 1,
                    );
                }
            }
        }
        for (l, s) in stepping.iter().enumerate().take(len) {
            let Some((end, _)) = *s else { continue };
            let m = members[l];
            let (job, update) = job_of(jobs, updates, m);
            let range = job.rig.chains[m.ci].particles();
            let ChainState {
                position,
                previous,
                clocks,
                ..
            } = &mut job.stage.state;
            let clock = &mut clocks[m.ci];
            // At rest to float32 noise, or judged over windows of steps
            // (chain::settle_window): a contact's creep or cycle.
            let still = end - clock.still_since;
            let settled =
                repeats[l] > 1 && repeats[l] == wanted[l] && chain::settle_engagement(still) >= 1.0;
            let (now, before) = (&position[range.clone()], &previous[range]);
            let h = prepared[l].as_ref().map_or(0.0, |p| p.h);
            let asleep = settled
                && (chain::at_rest(now, before, update.units) || {
                    let speed = chain::peak_speed(now, before, h as f32);
                    let step = (still / h).round() as u64;
                    chain::settle_window(clock, step, speed, update.units, still)
                });
            if !settled {
                chain::restart_window(clock);
            }
            if asleep {
                // Asleep, the state is kept exactly as it is
                // (velocities too: a spring held by the coupling
                // or a floor keeps pushing, and zeroing that made
                // a woken tail twitch 0.48°), so waking resumes
                // the same motion.
                clock.sleeping = 1;
            }
            clock.simulated = end;
            if let (false, Some(p)) = (
                job.rig.chain_frames_on[m.ci].is_empty(),
                prepared[l].as_ref(),
            ) {
                // All of the update's substeps or none: a chain hanging
                // here reads the records at every substep or interpolates
                // at every one, never switching mid-update.
                let left = ((p.t1 + 1e-9 - end) / p.h).floor().max(0.0) as usize;
                if p.substeps as usize + left <= RECORDED_SUBSTEPS {
                    record_joints(job.rig, job.stage, update, job.local, m.ci, (&at[l], end));
                }
            }
        }
    }
}

/// After a substep of VRM chain `ci`: the world frame of each of its joints
/// that another chain hangs from ([`Stage::records`]), walked from the
/// chain's frame at the substep (`at`) and its new particles exactly as
/// the VRM kernel walks them. Nothing for other integrators or a weighted
/// chain (its output is not the kernel's frame): a chain hanging there
/// interpolates.
fn record_joints(
    rig: &Rig,
    stage: &mut Stage,
    update: &Update,
    local: &[Transform],
    ci: usize,
    (at, end): (&Interpolated, f64),
) {
    let setup = &rig.chains[ci];
    let params = &stage.params[ci];
    if params.integrator != ChainParams::VRM
        || params.weight < 1.0
        || setup.weights.iter().any(|&w| w < 1.0)
    {
        return;
    }
    let on = &rig.chain_frames_on[ci];
    let deepest = on.iter().map(|&(_, k)| k as usize).max().unwrap_or(0);
    let position = &stage.state.position[setup.particles()];
    let (mut head, mut parent) = (at.root, at.parent);
    for k in 0..=deepest.min(setup.len() - 1) {
        let bind = parent * local[setup.joints[k] as usize].rotation().normalize();
        let joint_head = head;
        let length = setup.lengths[k] * update.scale;
        if length <= 1e-6 {
            parent = bind;
        } else {
            let next = position[k];
            let local_dir = bind.conjugate() * ((next - head) / length);
            parent = bind * math::rotation_arc(setup.axes[k], local_dir);
            head = next;
        }
        for &(slot, _) in on.iter().filter(|&&(_, j)| j as usize == k) {
            let path = &rig.chain_frame_paths[slot as usize];
            let (rotation, head) = if path.is_empty() {
                (parent, joint_head)
            } else {
                // A frame below the joint: the bones down to it, as the
                // writeback composes them. Only through unscaled bones (the
                // joint's scale is then the frame's own, known from the
                // last update); otherwise the frame interpolates.
                let bones = &path[1..];
                if bones
                    .iter()
                    .any(|&b| local[b as usize].scale() != Vec3::ONE)
                {
                    continue;
                }
                let scale = stage.frames.now[slot as usize].scale();
                let mut m = Affine3A::from_scale_rotation_translation(scale, parent, joint_head);
                for &b in bones {
                    m *= local[b as usize].to_affine();
                }
                let t = math::decompose(&m, Vec3::ONE).transform;
                (t.rotation(), t.translation())
            };
            // A chain in a simulation space walks in the space's current
            // frame; the record is the world frame of the substep.
            let (rotation, head) = match at.ahead {
                Some((ahead, c)) => {
                    let t = Transform::new(head, rotation, Vec3::ONE);
                    let t = carried_frame(&t, (&ahead.inverse(), c));
                    (t.rotation(), t.translation())
                }
                None => (rotation, head),
            };
            let records = &mut stage.records[slot as usize];
            // Within capacity: never allocates.
            if records.len() < records.capacity() {
                records.push(JointRecord {
                    end,
                    rotation,
                    head,
                });
            }
        }
    }
}

/// What a character's lanes read: its rig, chain parameters, placed
/// colliders and pose.
type LaneInputs<'a> = (
    &'a Rig,
    &'a [ChainParams],
    &'a [PlacedCollider],
    &'a [Transform],
);

/// One substep of the chains `lanes` (indices into `members`, ascending)
/// through the lane kernel, each character's particle arrays split into
/// its lanes' chains.
fn step_lanes(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    (lane_of, prepared, at): (&[usize], &[Option<Prepared>], &[Interpolated; lanes::W]),
) {
    let count = lane_of.len();
    // Each character's fields, borrowed apart: what the lanes read, and
    // its particle arrays, which its lanes split among them.
    let mut shared: [Option<LaneInputs<'_>>; JOBS] = [None; JOBS];
    let mut arrays: [lanes::Arrays<'_>; lanes::W] = Default::default();
    {
        let mut rest_of: [lanes::Arrays<'_>; JOBS] = Default::default();
        let mut rest_start = [0usize; JOBS];
        // Only the characters with a lane in this step.
        let mut used = [false; JOBS];
        for &l in lane_of {
            used[members[l].job] = true;
        }
        for (j, job) in jobs.iter_mut().enumerate() {
            let (true, Some(job)) = (used[j], job) else {
                continue;
            };
            let Stage {
                state,
                params,
                rest,
                rest_targets,
                contacts,
                placed,
                ..
            } = &mut *job.stage;
            shared[j] = Some((job.rig, &params[..], &placed[..], &job.local[..]));
            rest_of[j] = lanes::Arrays {
                rest,
                position: &mut state.position,
                velocity: &mut state.velocity,
                bend: &mut state.bend,
                rest_targets,
                contacts,
            };
        }
        // A character's lanes come in chain order: each takes its chain's
        // particles off the front of what is left of the arrays.
        for (k, &l) in lane_of.iter().enumerate() {
            let m = members[l];
            let (rig, ..) = shared[m.job].expect("a member's job");
            let range = rig.chains[m.ci].particles();
            let skip = range.start - rest_start[m.job];
            arrays[k] = rest_of[m.job].take_front(skip, range.len());
            rest_start[m.job] = range.end;
        }
    }
    // Each lane's frame written once in place (a lane holds a reference:
    // an array of frames by value was copied lane by lane through memcpy).
    let mut frames: [Option<SubstepFrame<'_>>; lanes::W] = [const { None }; lanes::W];
    for (k, frame) in frames.iter_mut().enumerate().take(count) {
        let l = lane_of[k];
        let m = members[l];
        let (_, params, placed, local) = shared[m.job].expect("a member's job");
        let update = updates[m.job].as_ref().expect("a member's update");
        let p = prepared[l].as_ref().expect("a lane is prepared");
        *frame = Some(substep_frame(
            &params[m.ci],
            update,
            local,
            p,
            &at[l],
            placed,
        ));
    }
    let block: [lanes::Lane<'_>; lanes::W] = core::array::from_fn(|k| {
        let k = k.min(count - 1);
        let m = members[lane_of[k]];
        let (rig, params, ..) = shared[m.job].expect("a member's job");
        lanes::Lane {
            setup: &rig.chains[m.ci],
            params: &params[m.ci],
            frame: frames[k].as_ref().expect("a lane's frame"),
        }
    });
    lanes::substep(kernel, &block[..count], &mut arrays[..count]);
}

/// A chain's clock after its substeps and the range check. Returns the
/// fraction of a substep its output is carried forward by
/// ([`write_back`]), or `None` when the chain was parked (its joints stay
/// on the animation).
fn finish(
    rig: &Rig,
    stage: &mut Stage,
    update: &Update,
    (local, component): (&[Transform], &[Affine3A]),
    ci: usize,
    p: &Prepared,
) -> Option<f32> {
    let setup = &rig.chains[ci];
    let params = &stage.params[ci];
    let range = setup.particles();
    let (clock, mut kept, _) = split(&mut stage.state, ci, range);
    if p.run {
        if clock.simulated + p.h <= p.t1 {
            // Only where float64 lost the step (a clock near its
            // horizon): drop the backlog rather than loop again.
            clock.simulated = p.t1;
        }
        clock.last_update = p.t1;
        remember(clock, &p.now);
    }
    // A chain whose state left the range (particles beyond 1e7 m,
    // not finite, an unusable frame) is re-seeded on the animation,
    // as a teleport would, instead of failing every later update; one
    // whose animated pose itself lies beyond the range is parked on the
    // animation. Speeds past the limit are clamped (docs/c-api.md).
    // The stage changes the committed state in place, so it cannot
    // fail: everything it keeps is in the range when it is done.
    if !in_range(
        (&update.range, params.simulation_space >= 0),
        clock,
        &mut kept,
    ) {
        seed(
            clock,
            kept.reborrow(),
            (local, component),
            &update.world,
            setup,
            &p.now,
        );
        clock.simulated = clock.time;
        clock.last_update = clock.time;
        if !in_range_or_park(
            (&update.range, params.simulation_space >= 0),
            clock,
            kept.reborrow(),
        ) {
            return None;
        }
    }

    // Between substeps (input faster than 120 Hz, or an update that
    // ran none) the output is the state carried forward along the
    // last substep's motion by the fraction of a substep the clock
    // is past it (at most one): every update moves, with no added
    // latency.
    // At input rates that divide 120 Hz the remainder is zero and
    // the output is the state itself (docs/chains.md).
    let step = CHAIN_STEP * f64::from(params.time_factor);
    Some(((clock.time - clock.simulated).clamp(0.0, step) / step) as f32)
}

/// The block's output (`ahead[l]`: [`finish`]'s for member `l`, `None`: no
/// output): each joint turns by the shortest swing from its current link
/// direction to its particle (docs/algorithms.md §7), written through the current
/// parent (path B), blended by the chain and joint weights (authored tracks
/// win, docs/algorithms.md §8).
///
/// Each joint is its successor's parent (rig validation), so when the
/// chain's root parent is a rotation times a uniform scale and the joints
/// are uniformly scaled, every joint's parent is one: such a chain at full
/// weight goes through the lanes' writeback ([`writeback`], several chains
/// at once, no matrix decomposed); any other through [`write_joints`].
fn write_back(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    ahead: &[Option<f32>; lanes::W],
) {
    // Too few chains to fill lanes (the scalar kernel's blocks of one, a
    // character with one or two chains): each through glam, no test.
    let few = members.len() < writeback::LANES_FROM;
    // The members in lanes: their chains, and each one's job and setup.
    let mut chains = [writeback::Chain {
        len: 0,
        parent: Affine3A::IDENTITY,
        world_inverse: Affine3A::IDENTITY,
        ahead: 0.0,
    }; lanes::W];
    let mut lane_of: [Option<(usize, &ChainSetup)>; lanes::W] = [None; lanes::W];
    let mut member_of = [0usize; lanes::W];
    let mut count = 0;
    for (l, m) in members.iter().enumerate() {
        let Some(ahead) = ahead[l] else { continue };
        if few {
            write_member(jobs, updates, *m, ahead);
            continue;
        }
        let (job, update) = job_of(jobs, updates, *m);
        let (rig, setup) = (job.rig, &job.rig.chains[m.ci]);
        let params = &job.stage.params[m.ci];
        let parent = math::parent_matrix(job.component, rig.parents[setup.joints[0] as usize]);
        let (_, upper) = setup.joints.split_last().expect("a chain has joints");
        let qualifies = params.weight >= 1.0
            && setup.weights.iter().all(|&w| w >= 1.0)
            && math::is_similarity(&parent.matrix3)
            && upper
                .iter()
                .all(|&b| math::is_uniform_scale(job.local[b as usize].scale()));
        if qualifies {
            chains[count] = writeback::Chain {
                len: setup.len(),
                parent,
                world_inverse: update.world_inverse,
                ahead,
            };
            lane_of[count] = Some((m.job, setup));
            member_of[count] = l;
            count += 1;
        } else {
            write_member(jobs, updates, *m, ahead);
        }
    }
    if count < writeback::LANES_FROM {
        // One or two chains cost less through glam than a lane step's
        // fixed cost, with the same bits.
        for (&l, chain) in member_of.iter().zip(&chains).take(count) {
            write_member(jobs, updates, members[l], chain.ahead);
        }
    } else {
        writeback::write(
            kernel,
            &chains[..count],
            &mut LaneJoints {
                jobs,
                lanes: &lane_of[..count],
            },
        );
    }
    for (l, m) in members.iter().enumerate() {
        if ahead[l].is_none() {
            continue;
        }
        let job = jobs[m.job].as_mut().expect("a member's job");
        compose_below(job.rig, (job.local, job.component), m.ci);
    }
}

/// [`write_joints`] for member `m`.
fn write_member(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    m: Member,
    ahead: f32,
) {
    let (job, update) = job_of(jobs, updates, m);
    write_joints(
        job.rig,
        job.stage,
        update,
        (job.local, job.component),
        m.ci,
        ahead,
    );
}

/// The chain frames below chain `ci`'s joints (another chain hangs from a
/// bone there), composed down from the matrices its writeback wrote.
fn compose_below(rig: &Rig, (local, component): (&[Transform], &mut [Affine3A]), ci: usize) {
    for &slot in &rig.chain_frames_below[ci] {
        for w in rig.chain_frame_paths[slot as usize].windows(2) {
            let (parent, bone) = (w[0] as usize, w[1] as usize);
            component[bone] = component[parent] * local[bone].to_affine();
        }
    }
}

/// The block's chains in the writeback: lane `l` is chain `lanes[l]`
/// (its job and its setup).
struct LaneJoints<'j, 'a> {
    jobs: &'j mut [Option<Job<'a>>],
    lanes: &'j [Option<(usize, &'a ChainSetup)>],
}

impl writeback::Joints for LaneJoints<'_, '_> {
    #[inline(always)]
    fn joint(&self, l: usize, k: usize) -> writeback::Joint {
        let (j, setup) = self.lanes[l].expect("a lane's chain");
        let job = self.jobs[j].as_ref().expect("a lane's job");
        let first = setup.first_particle;
        let state = &job.stage.state;
        let t = &job.local[setup.joints[k] as usize];
        writeback::Joint {
            rotation: t.rotation,
            scale: Vec3::from(t.scale),
            translation: Vec3::from(t.translation),
            child: match setup.joints.get(k + 1) {
                Some(&next) => Vec3::from(job.local[next as usize].translation),
                None => setup.end_offset,
            },
            position: state.position[first + k],
            previous: state.previous[first + k],
        }
    }

    #[inline(always)]
    fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A) {
        let (j, setup) = self.lanes[l].expect("a lane's chain");
        let job = self.jobs[j].as_mut().expect("a lane's job");
        let b = setup.joints[k] as usize;
        job.local[b].rotation = rotation;
        job.component[b] = component;
    }
}

/// [`write_back`] for one chain, joint by joint: through a similarity
/// parent the swing is taken in the parent's frame with no matrix built
/// for the joint or decomposed ([`math::aim_local_similar`]); otherwise
/// each joint goes through [`math::aim_local`], which tests its parent.
fn write_joints(
    rig: &Rig,
    stage: &Stage,
    update: &Update,
    (local, component): (&mut [Transform], &mut [Affine3A]),
    ci: usize,
    ahead: f32,
) {
    let setup = &rig.chains[ci];
    let params = &stage.params[ci];
    let n = setup.len();
    let range = setup.particles();
    let (position, previous) = (
        &stage.state.position[range.clone()],
        &stage.state.previous[range],
    );
    let mut similar = false;
    for (k, &joint) in setup.joints.iter().enumerate() {
        let b = joint as usize;
        let parent = math::parent_matrix(component, rig.parents[b]);
        let joint_local = local[b];
        similar = if k == 0 {
            math::is_similarity(&parent.matrix3)
        } else {
            similar && math::is_uniform_scale(local[setup.joints[k - 1] as usize].scale())
        };
        let rotation = joint_local.rotation().normalize();
        let scale = joint_local.scale();
        // The joint's head in component space: `parent · local` moves
        // the origin there.
        let head = parent.transform_point3(joint_local.translation());
        let child = if k + 1 < n {
            local[setup.joints[k + 1] as usize].translation()
        } else {
            setup.end_offset
        };
        let carried = position[k] + (position[k] - previous[k]) * ahead;
        let target = update.world_inverse.transform_point3(carried);
        let to = target - head;
        let w = params.weight * setup.weights[k];
        let solved = if w <= 0.0 {
            // Authored tracks win (docs/algorithms.md §8): leave the joint exactly as animated.
            None
        } else if similar {
            math::aim_local_similar(rotation, scale, child, parent.matrix3.transpose() * to)
        } else {
            math::aim_local(&parent, &joint_local, &joint_local.to_affine(), child, to)
        };
        if let Some(solved) = solved {
            let blended = if w >= 1.0 {
                solved
            } else {
                rotation.slerp(solved, w)
            };
            // Never a non-finite output (the stage cannot fail): the
            // joint keeps its animated rotation instead.
            if blended.is_finite() {
                local[b].rotation = blended.to_array();
            }
        }
        // `parent · local`, its translation (the head) already known.
        let r = glam::Mat3A::from_quat(local[b].rotation().normalize());
        component[b] = Affine3A {
            matrix3: parent.matrix3
                * glam::Mat3A::from_cols(
                    r.x_axis * scale.x,
                    r.y_axis * scale.y,
                    r.z_axis * scale.z,
                ),
            translation: head.into(),
        };
    }
}

/// One chain's kept arrays (slices of [`ChainState`]'s).
struct Kept<'a> {
    position: &'a mut [Vec3],
    velocity: &'a mut [Vec3],
    bend: &'a mut [Quat],
    previous: &'a mut [Vec3],
}

impl Kept<'_> {
    /// The same arrays for a shorter borrow.
    fn reborrow(&mut self) -> Kept<'_> {
        Kept {
            position: self.position,
            velocity: self.velocity,
            bend: self.bend,
            previous: self.previous,
        }
    }
}

/// Chain `ci`'s clock, its kept arrays (`range`) and the colliders'
/// previous frames (read only: they are the character's), as one split
/// borrow of the state.
fn split(
    state: &mut ChainState,
    ci: usize,
    range: core::ops::Range<usize>,
) -> (&mut ChainClock, Kept<'_>, &[Transform]) {
    let ChainState {
        position,
        velocity,
        bend,
        previous,
        clocks,
        previous_colliders,
        ..
    } = state;
    (
        &mut clocks[ci],
        Kept {
            position: &mut position[range.clone()],
            velocity: &mut velocity[range.clone()],
            bend: &mut bend[range.clone()],
            previous: &mut previous[range],
        },
        previous_colliders,
    )
}

/// Clamps a chain's speeds to the limit and says whether everything it
/// keeps is inside the state range.
fn in_range(
    (range, space): (&StateRange, bool),
    clock: &mut ChainClock,
    kept: &mut Kept<'_>,
) -> bool {
    rebase_clock(clock);
    // One pass, no early exit: the checks nearly always pass.
    let mut ok = range.clock_of(clock, space);
    for (((p, v), bend), previous) in kept
        .position
        .iter()
        .zip(kept.velocity.iter_mut())
        .zip(kept.bend.iter())
        .zip(kept.previous.iter())
    {
        ok &= range.clamp_and_check_speed(v)
            & range.place(*p)
            & StateRange::frame(*bend)
            & range.place(*previous);
    }
    ok
}

/// [`in_range`], and when it is not, the chain is parked: its animated pose
/// itself lies beyond the state range, so it is not started, its particles
/// sit at the origin and its joints stay on the animation until an update
/// can seed it. Returns whether the chain was in range.
fn in_range_or_park(
    range: (&StateRange, bool),
    clock: &mut ChainClock,
    mut kept: Kept<'_>,
) -> bool {
    let ok = in_range(range, clock, &mut kept);
    if !ok {
        *clock = ChainClock::default();
        kept.position.fill(Vec3::ZERO);
        kept.previous.fill(Vec3::ZERO);
        kept.velocity.fill(Vec3::ZERO);
        kept.bend.fill(Quat::IDENTITY);
    }
    ok
}

/// World positions of a chain's link tips in the current (animated) pose:
/// joint `k+1` for link `k`, the end point for the last link. Composed down
/// the chain from its root's component matrix (FK before the chain stage
/// leaves the joints after the root to the writeback, `Rig::fk_before_chains`);
/// the same products FK forms.
pub(crate) fn animated_tips(
    (local, component): (&[Transform], &[Affine3A]),
    world: &Affine3A,
    setup: &ChainSetup,
    out: &mut [Vec3],
) {
    let n = setup.len();
    let mut joint = component[setup.joints[0] as usize];
    for k in 0..n {
        out[k] = if k + 1 < n {
            joint *= local[setup.joints[k + 1] as usize].to_affine();
            world.transform_point3(joint.translation.into())
        } else {
            world.transform_point3(joint.transform_point3(setup.end_offset))
        };
    }
}

/// A chain clock past 2^29 s (17 years of updates) moves back by 2^28 s:
/// only differences of its times matter, and by Sterbenz's lemma the
/// subtraction is exact for every time within a factor of two of 2^28, so
/// the motion does not change; the clock stays far inside the snapshot
/// horizon ([`crate::limits::snapshot_limits::MAX_CLOCK_SECONDS`]) forever.
pub(crate) fn rebase_clock(c: &mut ChainClock) {
    const REBASE_AT: f64 = (1u64 << 29) as f64;
    const SHIFT: f64 = (1u64 << 28) as f64;
    if c.time > REBASE_AT {
        c.time -= SHIFT;
        c.last_update = (c.last_update - SHIFT).max(0.0);
        c.still_since = (c.still_since - SHIFT).max(0.0);
        c.simulated -= SHIFT;
        if c.simulated < 0.0 {
            c.simulated = c.time; // a backlog of 2^28 s is dropped anyway
        }
    }
}
