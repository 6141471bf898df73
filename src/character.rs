//! The Character: per-instance solver state and the update pipeline
//! (docs/architecture.md "One update", docs/algorithms.md §6). Everything is sized at creation; an
//! update only walks preallocated flat arrays and never allocates.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3};

use crate::clock;
use crate::error::Error;
use crate::limits::unset;
pub use crate::limits::{snapshot_limits, MAX_CHAIN_SUBSTEPS, MIN_VELOCITY_DT};
use crate::math::{self, Frame, Transform, MAX_SCALE, MIN_SCALE};
use crate::rig::Rig;
use crate::solvers::chain::{ChainClock, ChainParams};
use crate::solvers::chain_stage;
use crate::solvers::constraint;
use crate::solvers::corrective::{self, CorrectiveRecord, CorrectiveState};
use crate::solvers::lanes::ChainKernel;
pub use crate::solvers::spring::SpringRecord;
use crate::solvers::spring::{self, SpringState};
use crate::solvers::state_range::StateRange;
use crate::solvers::Pose;

/// How targets are chosen for the substeps of one update (docs/algorithms.md §2 DECISION).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum SubstepTarget {
    /// Every substep uses this update's target, as the article's kernel did (the default).
    #[default]
    Hold = 0,
    /// Each substep's target is interpolated between the previous and the
    /// current input at the substep's time.
    Interpolate = 1,
}

/// Per-character options.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct CharacterOptions {
    pub substep_target: SubstepTarget,
}

/// The stages of docs/algorithms.md §6 that can be switched off at runtime. A stage that is
/// off passes its input through and keeps its state untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Stage {
    Constraints = 0,
    Springs = 1,
    Correctives = 2,
    /// Tail and hair chains (docs/algorithms.md §7, §8).
    Chains = 3,
}

/// One update's input.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// Seconds since the previous update (the first update after creation or
    /// reset counts as 0, docs/algorithms.md §2).
    pub dt: f32,
    /// Source local pose, one transform per rig bone.
    pub pose: &'a [Transform],
    /// Reset before this update (teleport): springs snap to their targets and
    /// corrective accumulators return to 0.
    pub teleport: bool,
}

/// Summary of one update.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct UpdateInfo {
    /// Largest substep count executed by any spring.
    pub max_substeps: u32,
    /// Number of springs that hit their reset threshold.
    pub snapped_springs: u32,
    /// Bit set of `WARNING_*`.
    pub warnings: u32,
    /// Joint-substeps the chain kernels executed: every chain's substeps
    /// (the settle phase's repeats included, none while asleep) times its
    /// joints. What a [`crate::World`] budget counts.
    pub joint_substeps: u32,
}

/// A line for debug drawing (world space).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, Pod, Zeroable)]
pub struct DebugLine {
    pub a: [f32; 3],
    pub b: [f32; 3],
    /// One of the `DEBUG_*` kinds.
    pub kind: u32,
}

/// A sphere for debug drawing (world space).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, Pod, Zeroable)]
pub struct DebugSphere {
    pub center: [f32; 3],
    pub radius: f32,
    /// One of the `DEBUG_*` kinds.
    pub kind: u32,
}

/// Debug-draw kinds: a chain particle, its rest target, a link, the rest
/// arc of a link, a collider, a link or particle in contact.
pub const DEBUG_PARTICLE: u32 = 1;
pub const DEBUG_REST_TARGET: u32 = 2;
pub const DEBUG_LINK: u32 = 3;
pub const DEBUG_REST_LINK: u32 = 4;
pub const DEBUG_COLLIDER: u32 = 5;
pub const DEBUG_CONTACT: u32 = 6;

/// `UpdateInfo::warnings`: a constraint wrote through a sheared parent chain;
/// TRS dropped the shear (docs/algorithms.md §1 DECISION: reported, never silent).
pub const WARNING_SHEAR: u32 = 1;
/// `UpdateInfo::warnings`: the chains' teleport threshold fired without a
/// teleport flag on this update and the [`TELEPORT_STREAK`]` − 1` before it
/// (wrong units, or a world transform that jumps every frame).
pub const WARNING_TELEPORT_STREAK: u32 = 8;
/// Updates in a row whose chains jumped without a teleport flag before
/// [`WARNING_TELEPORT_STREAK`] is raised.
pub const TELEPORT_STREAK: u32 = 3;

/// Caller-owned buffers that receive the stage-by-stage records of docs/algorithms.md §6.
/// Create once with [`StageRecords::new`]; pass to [`Character::update_recorded`].
#[derive(Clone, Debug, Default)]
pub struct StageRecords {
    /// Local pose as given.
    pub source: Vec<Transform>,
    /// After the rotation constraints.
    pub constrained: Vec<Transform>,
    /// After the translation springs.
    pub post_spring: Vec<Transform>,
    /// After the proximity correctives.
    pub post_corrective: Vec<Transform>,
    /// As written to the output.
    pub final_pose: Vec<Transform>,
    pub springs: Vec<SpringRecord>,
    pub correctives: Vec<CorrectiveRecord>,
    /// Probe distances of all correctives; `CorrectiveRecord::first_probe` indexes it.
    pub probe_distances: Vec<f32>,
}

impl StageRecords {
    /// Buffers sized for `rig`.
    #[must_use]
    pub fn new(rig: &Rig) -> Self {
        let n = rig.bone_count();
        Self {
            source: vec![Transform::IDENTITY; n],
            constrained: vec![Transform::IDENTITY; n],
            post_spring: vec![Transform::IDENTITY; n],
            post_corrective: vec![Transform::IDENTITY; n],
            final_pose: vec![Transform::IDENTITY; n],
            springs: vec![Zeroable::zeroed(); rig.springs.len()],
            correctives: vec![CorrectiveRecord::default(); rig.correctives.len()],
            probe_distances: vec![0.0; rig.probe_count],
        }
    }

    pub(crate) fn sink(&mut self) -> RecordSink<'_> {
        RecordSink {
            source: Some(&mut self.source),
            constrained: Some(&mut self.constrained),
            post_spring: Some(&mut self.post_spring),
            post_corrective: Some(&mut self.post_corrective),
            final_pose: Some(&mut self.final_pose),
            springs: Some(&mut self.springs),
            correctives: Some(&mut self.correctives),
            probe_distances: Some(&mut self.probe_distances),
        }
    }
}

/// Borrowed record destinations; any may be absent (the C API lets callers
/// ask for only some).
#[derive(Default)]
pub(crate) struct RecordSink<'a> {
    pub source: Option<&'a mut [Transform]>,
    pub constrained: Option<&'a mut [Transform]>,
    pub post_spring: Option<&'a mut [Transform]>,
    pub post_corrective: Option<&'a mut [Transform]>,
    pub final_pose: Option<&'a mut [Transform]>,
    pub springs: Option<&'a mut [SpringRecord]>,
    pub correctives: Option<&'a mut [CorrectiveRecord]>,
    pub probe_distances: Option<&'a mut [f32]>,
}

impl RecordSink<'_> {
    fn validate(&self, rig: &Rig) -> Result<(), Error> {
        let n = rig.bone_count();
        let poses = [
            ("records.source", self.source.as_deref()),
            ("records.constrained", self.constrained.as_deref()),
            ("records.post_spring", self.post_spring.as_deref()),
            ("records.post_corrective", self.post_corrective.as_deref()),
            ("records.final_pose", self.final_pose.as_deref()),
        ];
        for (what, pose) in poses {
            check_len(what, pose.map(<[Transform]>::len), n)?;
        }
        check_len(
            "records.springs",
            self.springs.as_deref().map(<[_]>::len),
            rig.springs.len(),
        )?;
        check_len(
            "records.correctives",
            self.correctives.as_deref().map(<[_]>::len),
            rig.correctives.len(),
        )?;
        check_len(
            "records.probe_distances",
            self.probe_distances.as_deref().map(<[_]>::len),
            rig.probe_count,
        )
    }
}

fn check_len(what: &'static str, got: Option<usize>, expected: usize) -> Result<(), Error> {
    match got {
        Some(got) if got != expected => Err(Error::BufferLength {
            what,
            expected,
            got,
        }),
        _ => Ok(()),
    }
}

/// What each recorded stage left in the bones it writes
/// ([`Rig::stage_bones`]), kept while recording (scratch, sized at
/// creation): a stage's pose is the one before it with these bones
/// replaced, so a rig without springs, constraints or correctives keeps
/// nothing here.
struct StageScratch {
    /// After the constraints, the springs and the correctives.
    written: [Vec<Transform>; 3],
}

/// Per-character state and scratch.
pub struct Character {
    rig: Arc<Rig>,
    options: CharacterOptions,
    enabled: [bool; 4],
    springs: Vec<SpringState>,
    /// The chain stage's state, scratch and parameters.
    chain: chain_stage::Stage,
    correctives: Vec<CorrectiveState>,
    /// 0 until the first update after creation or reset (docs/algorithms.md §2: its dt is 0).
    started: u32,
    spring_records: Vec<SpringRecord>,
    corrective_records: Vec<CorrectiveRecord>,
    probe_distances: Vec<f32>,
    // Scratch, sized at creation. The update writes here and commits to the
    // state above only when everything succeeded.
    work_springs: Vec<SpringState>,
    work_correctives: Vec<CorrectiveState>,
    work_spring_records: Vec<SpringRecord>,
    work_corrective_records: Vec<CorrectiveRecord>,
    work_distances: Vec<f32>,
    stages: StageScratch,
    local: Vec<Transform>,
    /// Component matrices, packed ([`math::Frame`]: 48 bytes a bone).
    component: Vec<Frame>,
    /// The [`crate::World`] slot that owns this character, or `u32::MAX`.
    pub(crate) world_slot: u32,
}

/// Largest wind acceleration, metres per second squared (scaled by the
/// rig's units per metre): a thousand times gravity.
pub const MAX_WIND_M_PER_S2: f32 = 1e4;

/// One character's update in [`update_batch`].
pub struct BatchItem<'a> {
    pub character: &'a mut Character,
    pub input: FrameInput<'a>,
    pub output: &'a mut [Transform],
    /// Written by [`update_batch`]; `Ok` before the first call.
    pub result: Result<UpdateInfo, Error>,
}

impl<'a> BatchItem<'a> {
    #[must_use]
    pub fn new(
        character: &'a mut Character,
        input: FrameInput<'a>,
        output: &'a mut [Transform],
    ) -> Self {
        Self {
            character,
            input,
            output,
            result: Ok(UpdateInfo::default()),
        }
    }
}

/// Updates many characters, each as [`Character::update`] would, and
/// returns how many failed (each item's `result` says how). A job system
/// splits the slice (`chunks_mut`) and runs the pieces on its workers: the
/// borrow checker already guarantees that no character is in two pieces.
/// No locks, no atomics, no allocation.
///
/// Up to [`BATCH_CHAINS_TOGETHER`] consecutive items run their chain stages
/// together, so that chains of different characters (of one rig or several)
/// share the lane kernel's lanes: a crowd of one-tail characters fills them
/// as well as one character with many strands. Each item's result and
/// output are exactly those of [`Character::update`].
pub fn update_batch(items: &mut [BatchItem<'_>]) -> usize {
    let mut failed = 0;
    for window in items.chunks_mut(chain_stage::JOBS) {
        let count = window.len();
        // Whether each item's chain stage is still to run.
        let mut chains = [false; chain_stage::JOBS];
        for (item, chains) in window.iter_mut().zip(&mut chains) {
            item.result = item
                .character
                .begin_update(&item.input, item.output.len())
                .map(|(info, run)| {
                    *chains = run;
                    info
                });
        }
        {
            let mut jobs: [Option<chain_stage::Job<'_>>; chain_stage::JOBS] =
                [const { None }; chain_stage::JOBS];
            for ((item, job), &run) in window.iter_mut().zip(&mut jobs).zip(&chains) {
                if run {
                    let (dt, teleport) = (item.input.dt, item.input.teleport);
                    *job = Some(item.character.chain_job(dt, teleport));
                }
            }
            chain_stage::step_jobs(&mut jobs[..count]);
        }
        for (item, &ran) in window.iter_mut().zip(&chains) {
            if let Ok(info) = &mut item.result {
                if ran {
                    info.warnings |= item.character.chain_warnings();
                    info.joint_substeps = item.character.joint_substeps();
                }
                item.character.finish_update(item.output);
            } else {
                failed += 1;
            }
        }
    }
    failed
}

/// How many consecutive items of [`update_batch`] run their chain stages
/// together (their chains share the lane kernel's lanes).
pub const BATCH_CHAINS_TOGETHER: usize = chain_stage::JOBS;

/// Forward kinematics from bone `start` on (parents precede children, so
/// every later bone reads its parent's fresh matrix).
/// Snapshot header magic, "SMSN" little-endian.
const SNAPSHOT_MAGIC: u32 = u32::from_le_bytes(*b"SMSN");
/// Bumped whenever the snapshot layout changes (CHANGELOG.md lists the
/// layouts). 8: the character's settings that later updates read (world
/// transform, importance, wind, stage switches, substep target, chain
/// parameters), and no collider frames in a rig without chains. 9: each
/// chain particle's rest direction (the input's pose turns it,
/// [`ChainParams::rest_source`]). 10: the chain parameters' `key_margin`
/// ([`ChainParams::key_margin`]). 11: each chain clock's skin-guard fade
/// (`ChainClock::guard`). 12: each chain clock's level between the rest
/// arc and the input's pose (`ChainClock::on_pose`). 13: each chain
/// clock's `animated_left` counts ticks of 2.5/65535 s (0.5/65535 s
/// before: the same bytes would hold a chain on its pose five times
/// longer).
pub const SNAPSHOT_VERSION: u32 = 13;

/// What later updates read besides the solver state: the inputs an update
/// keeps when its flags leave them out (world transform, importance, wind),
/// the stage switches, the substep target, the teleport streak and the
/// level origin. 96 bytes.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SnapshotSettings {
    world: Transform,
    wind: [f32; 3],
    importance: f32,
    enabled: [u32; 4],
    substep_target: u32,
    /// Updates in a row whose chains jumped without a teleport flag.
    jump_streak: u32,
    /// Where the caller's frame sits in its level (`shift_world`).
    level_origin: [f32; 3],
    reserved: u32,
}

/// Bytes of the character settings that follow the correctives in a snapshot.
pub const SNAPSHOT_SETTINGS_SIZE: usize = core::mem::size_of::<SnapshotSettings>();
const SETTINGS_SIZE: usize = SNAPSHOT_SETTINGS_SIZE;
const _: () = assert!(SETTINGS_SIZE == 96);

/// The chains' simulation origin in a snapshot: x, y, z and a zero.
const ORIGIN_BYTES: usize = 16;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SnapshotHeader {
    magic: u32,
    version: u32,
    fingerprint: u64,
    spring_count: u32,
    spring_state_size: u32,
    corrective_count: u32,
    started: u32,
    total_size: u64,
    /// FNV-1a 64 over the header (this field zeroed) and the payload.
    checksum: u64,
}

/// FNV-1a 64 of `bytes`, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The checksum of a snapshot: the header with its checksum zeroed, then the
/// payload.
fn snapshot_checksum(header: &SnapshotHeader, payload: &[u8]) -> u64 {
    let mut h = *header;
    h.checksum = 0;
    fnv1a(
        fnv1a(0xcbf2_9ce4_8422_2325, bytemuck::bytes_of(&h)),
        payload,
    )
}

/// Recomputes the checksum of a snapshot whose bytes were edited on
/// purpose (tools, tests). Restore still checks every field's range.
pub fn reseal_snapshot(buffer: &mut [u8]) -> Result<(), Error> {
    if buffer.len() < HEADER_SIZE {
        return Err(Error::Snapshot("buffer shorter than the snapshot header"));
    }
    let mut header: SnapshotHeader = bytemuck::pod_read_unaligned(&buffer[..HEADER_SIZE]);
    let end = usize::try_from(header.total_size)
        .ok()
        .filter(|&n| n >= HEADER_SIZE && n <= buffer.len())
        .ok_or(Error::Snapshot("snapshot is truncated or corrupted"))?;
    header.checksum = snapshot_checksum(&header, &buffer[HEADER_SIZE..end]);
    buffer[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
    Ok(())
}

/// Bytes before the first spring state in a snapshot.
pub const SNAPSHOT_HEADER_SIZE: usize = core::mem::size_of::<SnapshotHeader>();
const HEADER_SIZE: usize = SNAPSHOT_HEADER_SIZE;

impl Character {
    /// Creates a character for `rig`. All memory the character will ever use is
    /// allocated here.
    #[must_use]
    pub fn new(rig: Arc<Rig>, options: CharacterOptions) -> Character {
        let n = rig.bone_count();
        let s = rig.springs.len();
        let k = rig.correctives.len();
        let spring_records: Vec<SpringRecord> = rig
            .springs
            .iter()
            .map(|p| SpringRecord {
                bone: p.bone,
                h: p.step_length(),
                ..Zeroable::zeroed()
            })
            .collect();
        let corrective_records: Vec<CorrectiveRecord> = rig
            .correctives
            .iter()
            .zip(&rig.first_probe)
            .map(|(c, &first)| CorrectiveRecord {
                driven: c.driven,
                probe_count: c.probes.len() as u32,
                first_probe: first,
                ..Default::default()
            })
            .collect();
        Character {
            options,
            enabled: [true; 4],
            springs: vec![SpringState::default(); s],
            chain: chain_stage::Stage::new(&rig.chain_rig()),
            correctives: vec![CorrectiveState::default(); k],
            started: 0,
            work_springs: vec![SpringState::default(); s],
            work_correctives: vec![CorrectiveState::default(); k],
            work_spring_records: spring_records.clone(),
            spring_records,
            work_corrective_records: corrective_records.clone(),
            corrective_records,
            probe_distances: vec![0.0; rig.probe_count],
            work_distances: vec![0.0; rig.probe_count],
            stages: StageScratch {
                written: rig
                    .stage_bones
                    .clone()
                    .map(|bones| vec![Transform::IDENTITY; bones.len()]),
            },
            local: vec![Transform::IDENTITY; n],
            component: vec![Frame::IDENTITY; n],
            world_slot: u32::MAX,
            rig,
        }
    }

    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.rig
    }

    #[must_use]
    pub fn options(&self) -> CharacterOptions {
        self.options
    }

    /// Changes options without touching state.
    pub fn set_options(&mut self, options: CharacterOptions) {
        self.options = options;
    }

    /// Turns a stage on or off at runtime. Its state is kept either way: a
    /// stage that is off passes its input through and does not advance.
    pub fn set_stage_enabled(&mut self, stage: Stage, enabled: bool) {
        self.enabled[stage as usize] = enabled;
    }

    #[must_use]
    pub fn stage_enabled(&self, stage: Stage) -> bool {
        self.enabled[stage as usize]
    }

    /// Spring states, in the rig's spring order (by bone index).
    #[must_use]
    pub fn spring_states(&self) -> &[SpringState] {
        &self.springs
    }

    /// Corrective accumulators, in the rig's corrective order.
    #[must_use]
    pub fn corrective_states(&self) -> &[CorrectiveState] {
        &self.correctives
    }

    /// Records of the last successful update, one per spring.
    #[must_use]
    pub fn spring_records(&self) -> &[SpringRecord] {
        &self.spring_records
    }

    /// Records of the last successful update, one per corrective.
    #[must_use]
    pub fn corrective_records(&self) -> &[CorrectiveRecord] {
        &self.corrective_records
    }

    /// Probe distances of the last successful update (see [`CorrectiveRecord::first_probe`]).
    #[must_use]
    pub fn probe_distances(&self) -> &[f32] {
        &self.probe_distances
    }

    /// Teleport: the next update seeds every spring at its target with zero
    /// velocity, an empty ring and no carried time, and every corrective
    /// accumulator at 0, as a first update does.
    pub fn reset(&mut self) {
        self.springs.fill(SpringState::default());
        self.correctives.fill(CorrectiveState::default());
        self.chain.state.clocks.fill(ChainClock::default());
        self.chain.jump_streak = 0;
        self.started = 0;
    }

    pub(crate) fn chain_inputs(&self) -> chain_stage::ChainInputs {
        self.chain.inputs
    }

    pub(crate) fn restore_chain_inputs(&mut self, inputs: chain_stage::ChainInputs) {
        self.chain.inputs = inputs;
    }

    /// Checks a world transform the way [`Character::set_world_transform`] does.
    pub fn validate_world_transform(&self, world: &Transform) -> Result<(), Error> {
        if !world.is_finite() || !math::usable_rotation(world.rotation()) {
            return Err(Error::InvalidParameter(
                "world transform is not finite or has a rotation that cannot be normalised",
            ));
        }
        if world
            .scale
            .iter()
            .any(|s| !(MIN_SCALE..=MAX_SCALE).contains(&s.abs()))
        {
            return Err(Error::InvalidParameter(
                "world transform has a zero scale or one beyond 1e4",
            ));
        }
        let far = snapshot_limits::MAX_DISTANCE_M * self.rig.units_per_meter();
        if world.translation().length() > far {
            return Err(Error::InvalidParameter(
                "world translation is beyond 1e7 m (keep the simulation near its origin)",
            ));
        }
        Ok(())
    }

    /// The character's world transform for the next updates (chains live in
    /// world space; docs/algorithms.md §7). Its uniform scale is the runtime scale applied to
    /// chain lengths, radii and gravity. Default identity.
    pub fn set_world_transform(&mut self, world: Transform) -> Result<(), Error> {
        self.validate_world_transform(&world)?;
        self.chain.inputs.world = world;
        Ok(())
    }

    /// Moves every world-space position the character keeps (chain
    /// particles, the chains' last root and frames, the colliders' last
    /// frames, the world transform) by `delta`, world units. An engine that
    /// passes world transforms relative to a moving origin (large worlds:
    /// `secmo::bridge::SimulationOrigin`) calls it with `old_origin −
    /// new_origin` when the origin moves, so the motion continues exactly
    /// instead of seeing a jump, and once before the first update with
    /// `−first_origin` (the origin it starts from, old origin 0): the floor
    /// (`ChainParams::floor_height`) is a height in the level, which the
    /// character then finds wherever its frame's origin is. On error
    /// (`delta` not finite, or a position would leave the state range)
    /// nothing changes.
    pub fn shift_world(&mut self, delta: Vec3) -> Result<(), Error> {
        if !delta.is_finite() {
            return Err(Error::InvalidParameter("shift is not finite"));
        }
        // Everything the chains keep is relative to their simulation origin,
        // so the shift moves the origin alone (exactly: no kept position is
        // rounded) and the character's world frame with it.
        let range = StateRange::new(self.rig.units_per_meter());
        let origin = self.chain.state.origin + delta;
        let level_origin = self.chain.inputs.level_origin - delta;
        if !(range.place(origin)
            && range.place(level_origin)
            && range.place(Vec3::from(self.chain.inputs.world.translation) + delta))
        {
            return Err(Error::InvalidParameter(
                "the shift moves a position beyond the state range",
            ));
        }
        self.chain.state.origin = origin;
        self.chain.inputs.level_origin = level_origin;
        let world = &mut self.chain.inputs.world;
        if !unset(world) {
            world.translation = (Vec3::from(world.translation) + delta).to_array();
        }
        Ok(())
    }

    /// How important this character is on screen, for chain LOD (see
    /// `ChainParams::lod_skip_below`, `lod_half_below`). Default 1.
    pub fn set_importance(&mut self, importance: f32) -> Result<(), Error> {
        if !importance.is_finite() {
            return Err(Error::InvalidParameter("importance is not finite"));
        }
        self.chain.inputs.importance = importance;
        Ok(())
    }

    /// The chain kernel this character runs: the fastest this CPU has
    /// ([`ChainKernel::detect`]) unless [`Character::set_chain_kernel`]
    /// chose another.
    #[must_use]
    pub fn chain_kernel(&self) -> ChainKernel {
        self.chain.kernel
    }

    /// Selects the chain kernel: the scalar reference, or chains in lanes
    /// (`Lanes`, or `LanesAvx2` where this CPU has AVX2). Every kernel
    /// gives the same bits (docs/chains.md "Chains in lanes"); this exists
    /// to compare and measure them.
    pub fn set_chain_kernel(&mut self, kernel: ChainKernel) -> Result<(), Error> {
        if !kernel.supported() {
            return Err(Error::InvalidParameter(
                "this CPU cannot run that chain kernel",
            ));
        }
        self.chain.kernel = kernel;
        Ok(())
    }

    /// Wind and other external acceleration on chains, world units/s²,
    /// scaled by each chain's `wind_factor`. Default zero.
    pub fn set_wind(&mut self, wind: Vec3) -> Result<(), Error> {
        if !wind.is_finite() {
            return Err(Error::InvalidParameter("wind is not finite"));
        }
        if wind.length() > MAX_WIND_M_PER_S2 * self.rig.units_per_meter() {
            return Err(Error::InvalidParameter(
                "wind is beyond 1e4 m/s² (MAX_WIND_M_PER_S2)",
            ));
        }
        self.chain.inputs.wind = wind;
        Ok(())
    }

    /// Changes a chain's parameters at runtime, keeping its particles and
    /// velocities (no reset; docs/algorithms.md §13.8).
    pub fn set_chain_params(&mut self, chain: usize, params: ChainParams) -> Result<(), Error> {
        let setup = self
            .rig
            .chains
            .get(chain)
            .ok_or(Error::InvalidParameter("chain index out of range"))?;
        params.validate().map_err(Error::InvalidParameter)?;
        if params.simulation_space < -1 || params.simulation_space >= self.rig.bone_count() as i32 {
            return Err(Error::InvalidParameter(
                "simulation_space must be -1 or a bone index",
            ));
        }
        self.chain.set_rest_arc(setup, &params, chain);
        // The same parameters again change nothing and copy nothing.
        if bytemuck::bytes_of(&params) != bytemuck::bytes_of(&self.chain.params[chain]) {
            self.chain.params_mut()[chain] = params;
        }
        // New parameters are a change of input: the chain wakes and runs at
        // normal speed again (ChainParams::settle_speedup).
        let clock = &mut self.chain.state.clocks[chain];
        clock.sleeping = 0;
        crate::solvers::chain::restart_window(clock);
        clock.still_since = clock.time;
        Ok(())
    }

    /// A chain's current parameters.
    #[must_use]
    pub fn chain_params(&self, chain: usize) -> Option<&ChainParams> {
        self.chain.params.get(chain)
    }

    /// Particle positions in the world, all chains. (Kept relative to the
    /// chains' simulation origin; this adds it, so it returns a new vector.)
    #[must_use]
    pub fn particle_positions(&self) -> Vec<Vec3> {
        let origin = self.chain.state.origin;
        self.chain
            .state
            .position
            .iter()
            .map(|p| *p + origin)
            .collect()
    }

    /// Particle velocities, all chains.
    #[must_use]
    pub fn particle_velocities(&self) -> &[Vec3] {
        &self.chain.state.velocity
    }

    /// Rest targets of the last substep in the world, all chains.
    #[must_use]
    pub fn rest_targets(&self) -> Vec<Vec3> {
        let origin = self.chain.state.origin;
        self.chain
            .rest_targets
            .iter()
            .map(|p| *p + origin)
            .collect()
    }

    /// 1 where a link touched a collider or the floor in the last substep.
    #[must_use]
    pub fn contacts(&self) -> &[u8] {
        &self.chain.contacts
    }

    /// Buffer sizes that always hold everything [`Character::debug_draw`]
    /// writes: (lines, spheres). An upper bound; the exact count depends on
    /// the collider shapes.
    #[must_use]
    pub fn debug_draw_capacity(&self) -> (usize, usize) {
        let particles = self.rig.particle_count;
        let colliders = self.rig.colliders.len();
        (particles * 2 + colliders, particles * 2 + colliders * 2)
    }

    /// Writes what the chains look like after the last update, in world space,
    /// for an engine to draw: links (and the rest arc) as lines, particles,
    /// rest targets and colliders as spheres, contacts marked by kind. Writes
    /// at most the buffers' lengths and returns (lines, spheres) written. Does
    /// not allocate.
    pub fn debug_draw(
        &self,
        lines: &mut [DebugLine],
        spheres: &mut [DebugSphere],
    ) -> (usize, usize) {
        let mut nl = 0;
        let mut ns = 0;
        // What the chains keep is relative to their simulation origin.
        let origin = self.chain.state.origin;
        let mut line = |a: Vec3, b: Vec3, kind: u32| {
            if let Some(slot) = lines.get_mut(nl) {
                *slot = DebugLine {
                    a: (a + origin).to_array(),
                    b: (b + origin).to_array(),
                    kind,
                };
                nl += 1;
            }
        };
        let mut sphere = |c: Vec3, r: f32, kind: u32| {
            if let Some(slot) = spheres.get_mut(ns) {
                *slot = DebugSphere {
                    center: (c + origin).to_array(),
                    radius: r,
                    kind,
                };
                ns += 1;
            }
        };
        let scale = self.chain.inputs.world.scale().abs().element_sum() / 3.0;
        for (ci, setup) in self.rig.chains.iter().enumerate() {
            let clock = &self.chain.state.clocks[ci];
            if clock.started == 0 {
                continue;
            }
            let mut head = Vec3::from_array(clock.previous_root);
            for k in 0..setup.len() {
                let i = setup.first_particle + k;
                let p = self.chain.state.position[i];
                let touching = self.chain.contacts[i] == 1;
                line(head, p, if touching { DEBUG_CONTACT } else { DEBUG_LINK });
                line(head, self.chain.rest_targets[i], DEBUG_REST_LINK);
                sphere(
                    p,
                    setup.radii[k] * scale,
                    if touching {
                        DEBUG_CONTACT
                    } else {
                        DEBUG_PARTICLE
                    },
                );
                sphere(
                    self.chain.rest_targets[i],
                    0.25 * setup.radii[k] * scale,
                    DEBUG_REST_TARGET,
                );
                head = p;
            }
        }
        for (c, frame) in self
            .rig
            .colliders
            .iter()
            .zip(&self.chain.state.previous_colliders)
        {
            let placed = c.place(&frame.to_affine(), scale);
            match placed.shape {
                crate::ColliderShape::Sphere | crate::ColliderShape::InsideSphere => {
                    sphere(placed.a, placed.radius, DEBUG_COLLIDER);
                }
                crate::ColliderShape::Capsule | crate::ColliderShape::InsideCapsule => {
                    sphere(placed.a, placed.radius, DEBUG_COLLIDER);
                    sphere(placed.b, placed.radius, DEBUG_COLLIDER);
                    line(placed.a, placed.b, DEBUG_COLLIDER);
                }
                crate::ColliderShape::Plane => {
                    let size = 0.1 * self.rig.units_per_meter * scale;
                    line(placed.a, placed.a + placed.b * size, DEBUG_COLLIDER);
                }
            }
        }
        (nl, ns)
    }

    /// Checks an update's inputs without touching any state.
    pub fn validate_input(&self, input: &FrameInput<'_>, output_len: usize) -> Result<(), Error> {
        let n = self.rig.bone_count();
        if input.pose.len() != n {
            return Err(Error::BufferLength {
                what: "input pose",
                expected: n,
                got: input.pose.len(),
            });
        }
        if output_len != n {
            return Err(Error::BufferLength {
                what: "output pose",
                expected: n,
                got: output_len,
            });
        }
        if !clock::dt_accepted(input.dt) {
            return Err(Error::InvalidDt(input.dt));
        }
        // Branch-free passes over the pose, the bone and the reason looked
        // for only when something is wrong: the finite test over the whole
        // pose as floats first; with no NaN left, the shape tests are plain
        // comparisons.
        // A zero scale is refused only on a bone secmo reads
        // (`Rig::reads_bone`): elsewhere it hides a part, and the bone is
        // passed through.
        let usable = |t: &Transform, reads: bool| {
            let scale = Vec3::from_array(t.scale).abs();
            ((scale.min_element() >= MIN_SCALE) | !reads)
                & (scale.max_element() <= MAX_SCALE)
                & math::usable_rotation(t.rotation())
        };
        let reads = &self.rig.reads;
        if math::all_finite(input.pose)
            && input
                .pose
                .iter()
                .zip(reads)
                .fold(true, |ok, (t, &r)| ok & usable(t, r))
        {
            return Ok(());
        }
        for (bone, t) in input.pose.iter().enumerate() {
            if !t.is_finite() {
                return Err(Error::NonFinitePose { bone });
            }
            if reads[bone] && t.scale.iter().any(|s| s.abs() < MIN_SCALE) {
                return Err(Error::DegeneratePose {
                    bone,
                    what: "scale has a zero component",
                });
            }
            if t.scale.iter().any(|s| s.abs() > MAX_SCALE) {
                return Err(Error::DegeneratePose {
                    bone,
                    what: "scale has a component beyond 1e4 (math::MAX_SCALE)",
                });
            }
            if !math::usable_rotation(t.rotation()) {
                return Err(Error::DegeneratePose {
                    bone,
                    what: "rotation quaternion cannot be normalised (zero length, or a squared length beyond float32's range)",
                });
            }
        }
        Ok(())
    }

    /// Runs one update: source local pose in, final local pose out (docs/algorithms.md §6).
    /// On error nothing is written and the state is unchanged.
    pub fn update(
        &mut self,
        input: &FrameInput<'_>,
        output: &mut [Transform],
    ) -> Result<UpdateInfo, Error> {
        self.update_with_sink(input, output, None)
    }

    /// [`Character::update`] that also fills `records` with every stage's
    /// transforms and the solver records (docs/algorithms.md §6). Without it, nothing is
    /// recorded and nothing costs.
    pub fn update_recorded(
        &mut self,
        input: &FrameInput<'_>,
        output: &mut [Transform],
        records: &mut StageRecords,
    ) -> Result<UpdateInfo, Error> {
        let mut sink = records.sink();
        self.update_with_sink(input, output, Some(&mut sink))
    }

    /// [`Character::update_with_sink`] without records up to the chain stage
    /// ([`update_batch`] runs the chain stages of several characters
    /// together, then [`Character::finish_update`]s each). Also returns
    /// whether the chain stage runs ([`Character::chain_job`]).
    pub(crate) fn begin_update(
        &mut self,
        input: &FrameInput<'_>,
        output_len: usize,
    ) -> Result<(UpdateInfo, bool), Error> {
        self.validate_input(input, output_len)?;
        self.local.copy_from_slice(input.pose);
        self.solve_before_chains(input.dt, input.teleport, false)
    }

    pub(crate) fn update_with_sink(
        &mut self,
        input: &FrameInput<'_>,
        output: &mut [Transform],
        sink: Option<&mut RecordSink<'_>>,
    ) -> Result<UpdateInfo, Error> {
        self.validate_input(input, output.len())?;
        if let Some(sink) = sink.as_deref() {
            sink.validate(&self.rig)?;
        }
        self.local.copy_from_slice(input.pose);
        let info = self.solve(input.dt, input.teleport, sink.is_some())?;
        output.copy_from_slice(&self.local);
        if let Some(sink) = sink {
            self.write_records(input.pose, sink);
        }
        Ok(info)
    }

    /// [`Character::update`] reading and writing one buffer (engines that keep a
    /// single pose array). On error the buffer and the state are unchanged.
    pub fn update_in_place(
        &mut self,
        dt: f32,
        teleport: bool,
        pose: &mut [Transform],
    ) -> Result<UpdateInfo, Error> {
        self.update_in_place_with_sink(dt, teleport, pose, None)
    }

    pub(crate) fn update_in_place_with_sink(
        &mut self,
        dt: f32,
        teleport: bool,
        pose: &mut [Transform],
        sink: Option<&mut RecordSink<'_>>,
    ) -> Result<UpdateInfo, Error> {
        let len = pose.len();
        self.validate_input(&FrameInput { dt, pose, teleport }, len)?;
        if let Some(sink) = sink.as_deref() {
            sink.validate(&self.rig)?;
        }
        self.local.copy_from_slice(pose);
        let info = self.solve(dt, teleport, sink.is_some())?;
        if let Some(sink) = sink {
            // The input is still in `pose`: the source record is taken
            // before the output replaces it.
            self.write_records(pose, sink);
        }
        pose.copy_from_slice(&self.local);
        Ok(info)
    }

    /// Runs the stages of docs/algorithms.md §6 on `self.local`. The helper-bone stages
    /// work on scratch state, and everything they produce is checked before
    /// the chain stage runs; the chain stage cannot fail and changes its
    /// state in place. So the state is committed only when the update
    /// succeeds, without a second copy of the chain state.
    fn solve(&mut self, dt: f32, teleport: bool, recording: bool) -> Result<UpdateInfo, Error> {
        let (info, chains_run) = self.solve_before_chains(dt, teleport, recording)?;
        let mut info = info;
        if chains_run {
            chain_stage::step_jobs(&mut [Some(self.chain_job(dt, teleport))]);
            info.warnings |= self.chain_warnings();
            info.joint_substeps = self.joint_substeps();
        }
        self.commit();
        Ok(info)
    }

    /// [`Character::solve`] up to the chain stage: the helper-bone stages on
    /// scratch state, checked. Returns whether the chain stage runs.
    fn solve_before_chains(
        &mut self,
        dt: f32,
        teleport: bool,
        recording: bool,
    ) -> Result<(UpdateInfo, bool), Error> {
        self.chain.inputs.reseed = false;
        self.work_springs.copy_from_slice(&self.springs);
        self.work_correctives.copy_from_slice(&self.correctives);
        let chains_run = self.enabled[Stage::Chains as usize] && !self.rig.chains.is_empty();
        let mut started = self.started;
        if teleport {
            self.work_springs.fill(SpringState::default());
            self.work_correctives.fill(CorrectiveState::default());
            started = 0;
        }
        // docs/algorithms.md §2: the first update after creation or reset has dt 0.
        let stage_dt = if started == 0 { 0.0 } else { dt };
        let mut info = UpdateInfo::default();

        // Rotation constraints (docs/algorithms.md §4), before the springs.
        let constraints_ran = self.enabled[Stage::Constraints as usize]
            && !(self.rig.constraints.is_empty() && self.rig.node_constraints.is_empty());
        if constraints_ran {
            let sheared = constraint::step(
                &self.rig.constraint_setup(),
                Pose {
                    local: &mut self.local,
                    component: &mut self.component,
                },
            );
            if sheared {
                info.warnings |= WARNING_SHEAR;
            }
        }
        if recording {
            self.record_stage(0);
        }

        // Translation springs (docs/algorithms.md §3); their pass is also the FK the
        // correctives read. A spring stage that is off leaves its state alone.
        let correctives_ran = self.correctives_run();
        let springs_ran = self.enabled[Stage::Springs as usize] && !self.rig.springs.is_empty();
        if !springs_ran && !correctives_ran && chains_run && !self.chain.any_simulation_space() {
            // Only the chains read the component matrices: FK leaves the
            // chain joints after each root to the chain writeback, which
            // composes them from their parents (ChainPlan::fk_before_chains).
            math::forward_kinematics_of(
                &self.rig.parents,
                &self.local,
                &mut self.component,
                &self.rig.chain_plan.fk_before_chains,
            );
        } else if self.enabled[Stage::Springs as usize] {
            let springs = spring::step(
                &self.rig.spring_setup(),
                spring::Stage {
                    states: &mut self.work_springs,
                    records: &mut self.work_spring_records,
                },
                Pose {
                    local: &mut self.local,
                    component: &mut self.component,
                },
                dt,
                self.options.substep_target == SubstepTarget::Interpolate,
            )?;
            info.max_substeps = info.max_substeps.max(springs.max_substeps);
            info.snapped_springs += springs.snapped;
        } else {
            math::forward_kinematics(&self.rig.parents, &self.local, &mut self.component);
        }
        if recording {
            self.record_stage(1);
        }

        // Proximity correctives (docs/algorithms.md §5), on post-spring component positions.
        if correctives_ran {
            corrective::step(
                &self.rig.corrective_setup(),
                corrective::Stage {
                    states: &mut self.work_correctives,
                    records: &mut self.work_corrective_records,
                    distances: &mut self.work_distances,
                },
                Pose {
                    local: &mut self.local,
                    component: &mut self.component,
                },
                stage_dt,
            )?;
        }
        if recording {
            self.record_stage(2);
        }

        // SECMO_OK means finite: every output transform and every piece of
        // state committed. Here for everything but the chains, whose stage
        // keeps its own state in range (re-seeding or parking a chain that
        // leaves it) and never writes a non-finite rotation.
        // When no helper stage ran, the pose is the validated input and
        // the helper state the committed one (or reset): nothing to check.
        if constraints_ran || springs_ran || correctives_ran {
            self.check_finite()?;
        }

        Ok((info, chains_run))
    }

    /// The chain stage of this update (docs/algorithms.md §7, §8): tails and hair, last.
    /// A teleport carries the particles instead of resetting them, so the
    /// frame's time still counts.
    pub(crate) fn chain_job(&mut self, dt: f32, teleport: bool) -> chain_stage::Job<'_> {
        self.chain_job_at(dt, teleport, 0)
    }

    /// [`Character::chain_job`] whose substeps are `2^rate_shift` times as
    /// long (the world's budget, src/world.rs).
    pub(crate) fn chain_job_at(
        &mut self,
        dt: f32,
        teleport: bool,
        rate_shift: u32,
    ) -> chain_stage::Job<'_> {
        self.chain.inputs.rate_shift = rate_shift;
        chain_stage::Job {
            rig: self.rig.chain_rig(),
            stage: &mut self.chain,
            local: &mut self.local,
            component: &mut self.component,
            dt: if self.started == 0 { 0.0 } else { dt },
            teleport,
        }
    }

    /// Joint-substeps the chain stage ran in the update just run.
    pub(crate) fn joint_substeps(&self) -> u32 {
        u32::try_from(self.chain.joint_substeps).unwrap_or(u32::MAX)
    }

    /// Joint-substeps the chain stage would run in an update of `dt` with
    /// substeps `2^rate_shift` times as long: each awake chain's substeps by
    /// its clock (the loop of `run_substeps`, its backlog cap and LOD) times
    /// its joints. Settle repeats are not foreseen (they run only once the
    /// input rests). Reads the state only.
    pub(crate) fn planned_joint_substeps(&self, dt: f32, rate_shift: u32) -> u64 {
        if !self.enabled[Stage::Chains as usize] || self.started == 0 {
            return 0;
        }
        let mut inputs = self.chain.inputs;
        inputs.rate_shift = rate_shift;
        let mut total = 0u64;
        for ((setup, params), clock) in self
            .rig
            .chains
            .iter()
            .zip(self.chain.params.iter())
            .zip(&self.chain.state.clocks)
        {
            if clock.started == 0 || inputs.importance < params.lod_skip_below {
                continue;
            }
            if inputs.importance < params.lod_half_below
                && clock.lod_counter.wrapping_add(1) % 2 == 1
            {
                continue;
            }
            let h = inputs.step(params);
            let t1 = clock.time + dt as f64;
            let mut simulated = clock.simulated;
            let backlog =
                crate::solvers::chain::CHAIN_CATCH_UP.min(f64::from(MAX_CHAIN_SUBSTEPS) * h);
            if t1 - simulated > backlog {
                simulated = t1 - backlog;
            }
            let mut n = 0u64;
            while simulated + h <= t1 + 1e-9 && n < u64::from(MAX_CHAIN_SUBSTEPS) {
                simulated += h;
                n += 1;
            }
            let awake = if clock.sleeping == 0 { 1 } else { 0 };
            total += n * setup.len() as u64 * awake;
        }
        total
    }

    /// After [`Character::begin_update`]: turns the chain joints to
    /// `rotations` (one per chain particle, in the rig's chain order) and
    /// restarts every chain, so that this update's chain stage seeds its
    /// particles on that pose at rest (a world's held character released).
    /// A chain its input animates keeps the input's pose and is seeded on
    /// it (its clock marks it).
    pub(crate) fn reseed_chains(&mut self, rotations: &[[f32; 4]]) {
        self.chain.state.clocks.fill(ChainClock::default());
        let mut k = 0;
        for (ci, setup) in self.rig.chains.iter().enumerate() {
            let params = &self.chain.params[ci];
            let on_input =
                chain_stage::animates(self.rig.reference_pose(), params, &self.local, setup)
                    == Some(true);
            if on_input {
                // A chain on its input's pose starts on the input: the
                // world's blend turns it there from the held pose (seeded
                // on the held pose, it was pulled onto its keys on the
                // next update, up to 14° in one).
                self.chain.state.clocks[ci].animated_left = u16::MAX;
                k += setup.joints.len();
                continue;
            }
            for &j in &setup.joints {
                self.local[j as usize].rotation = rotations[k];
                k += 1;
            }
        }
        math::forward_kinematics(&self.rig.parents, &self.local, &mut self.component);
        self.chain.jump_streak = 0;
        self.chain.inputs.reseed = true;
    }

    /// The chain stage's warnings of the update just run.
    pub(crate) fn chain_warnings(&self) -> u32 {
        if self.chain.jump_streak >= TELEPORT_STREAK {
            WARNING_TELEPORT_STREAK
        } else {
            0
        }
    }

    /// Ends an update begun with [`Character::begin_update`] (its chain
    /// stage run): commits it and writes its pose into `output`.
    pub(crate) fn finish_update(&mut self, output: &mut [Transform]) {
        self.commit();
        output.copy_from_slice(&self.local);
    }

    /// The local pose the last update finished with.
    pub(crate) fn pose(&self) -> &[Transform] {
        &self.local
    }

    /// Whether the corrective stage runs (it is on and the rig has some).
    fn correctives_run(&self) -> bool {
        self.enabled[Stage::Correctives as usize] && !self.rig.correctives.is_empty()
    }

    /// Commits a successful update by swapping scratch and state: the next
    /// update copies the state into scratch again, and a stage that ran
    /// rewrote every record. Without an output the result stays in
    /// [`Character::pose`] (a world's extra run of a level change).
    pub(crate) fn commit(&mut self) {
        let correctives_ran = self.correctives_run();
        std::mem::swap(&mut self.springs, &mut self.work_springs);
        std::mem::swap(&mut self.correctives, &mut self.work_correctives);
        if self.enabled[Stage::Springs as usize] {
            std::mem::swap(&mut self.spring_records, &mut self.work_spring_records);
        }
        if correctives_ran {
            std::mem::swap(
                &mut self.corrective_records,
                &mut self.work_corrective_records,
            );
            std::mem::swap(&mut self.probe_distances, &mut self.work_distances);
        }
        self.started = 1;
    }

    /// Holds the pose and the helper-bone state about to be committed to
    /// [`StateRange`] before the chain stage runs: speeds beyond the limit
    /// are clamped to it (a documented rule, docs/c-api.md); anything else
    /// out of range or not finite fails the update with the first bone it
    /// concerns.
    fn check_finite(&mut self) -> Result<(), Error> {
        if !math::all_finite(&self.local) {
            let bone = self.local.iter().position(|t| !t.is_finite());
            return Err(Error::NonFiniteResult {
                bone: bone.unwrap_or_default(),
            });
        }
        let range = StateRange::new(self.rig.units_per_meter());
        let clamp = |v: &mut Vec3| {
            if v.is_finite() && v.length_squared() > range.max_speed_sq {
                *v = v.normalize() * range.max_speed;
            }
        };
        for (state, params) in self.work_springs.iter_mut().zip(&self.rig.springs) {
            let mut v = Vec3::from(state.velocity);
            clamp(&mut v);
            state.velocity = v.to_array();
            for r in &mut state.ring {
                let mut v = Vec3::from(*r);
                clamp(&mut v);
                *r = v.to_array();
            }
            if !range.spring(state, params.history_length) {
                return Err(Error::NonFiniteResult {
                    bone: params.bone as usize,
                });
            }
        }
        for (state, c) in self.work_correctives.iter().zip(&self.rig.correctives) {
            if !range.corrective(state) {
                return Err(Error::NonFiniteResult {
                    bone: c.driven as usize,
                });
            }
        }
        Ok(())
    }

    /// `source` is the update's input pose (the caller's, not kept here).
    fn write_records(&self, source: &[Transform], sink: &mut RecordSink<'_>) {
        let copy = |dst: &mut Option<&mut [Transform]>, src: &[Transform]| {
            if let Some(d) = dst.as_deref_mut() {
                d.copy_from_slice(src);
            }
        };
        copy(&mut sink.source, source);
        // Stage k's pose: the input with the bones of stages 0..=k replaced
        // by what each of those stages left in them.
        let stages = [
            &mut sink.constrained,
            &mut sink.post_spring,
            &mut sink.post_corrective,
        ];
        for (k, dst) in stages.into_iter().enumerate() {
            if let Some(d) = dst.as_deref_mut() {
                d.copy_from_slice(source);
                for (bones, written) in self.rig.stage_bones[..=k].iter().zip(&self.stages.written)
                {
                    for (&b, t) in bones.iter().zip(written) {
                        d[b as usize] = *t;
                    }
                }
            }
        }
        copy(&mut sink.final_pose, &self.local);
        if let Some(d) = sink.springs.as_deref_mut() {
            d.copy_from_slice(&self.spring_records);
        }
        if let Some(d) = sink.correctives.as_deref_mut() {
            d.copy_from_slice(&self.corrective_records);
        }
        if let Some(d) = sink.probe_distances.as_deref_mut() {
            d.copy_from_slice(&self.probe_distances);
        }
    }

    /// Keeps what stage `k` left in the bones it writes, for the records.
    fn record_stage(&mut self, k: usize) {
        for (t, &b) in self.stages.written[k]
            .iter_mut()
            .zip(&self.rig.stage_bones[k])
        {
            *t = self.local[b as usize];
        }
    }

    /// Bytes a snapshot of this character takes.
    #[must_use]
    pub fn snapshot_size(&self) -> usize {
        HEADER_SIZE
            + self.springs.len() * core::mem::size_of::<SpringState>()
            + self.correctives.len() * core::mem::size_of::<CorrectiveState>()
            + SETTINGS_SIZE
            + self.chain_bytes()
    }

    /// Bytes of the chain section: each chain's parameters, its clock, then
    /// per particle position, velocity, bend, position before the last
    /// substep and rest direction at the last update, then the previous collider frames and the simulation
    /// origin. None in a rig without chains (its colliders move nothing).
    fn chain_bytes(&self) -> usize {
        let c = &self.chain.state;
        if c.clocks.is_empty() {
            return 0;
        }
        c.clocks.len() * (core::mem::size_of::<ChainClock>() + core::mem::size_of::<ChainParams>())
            + c.position.len() * (4 * core::mem::size_of::<Vec3>() + core::mem::size_of::<Quat>())
            + c.previous_colliders.len() * core::mem::size_of::<Transform>()
            + ORIGIN_BYTES
    }

    fn snapshot_settings(&self) -> SnapshotSettings {
        let inputs = &self.chain.inputs;
        SnapshotSettings {
            world: inputs.world,
            wind: inputs.wind.to_array(),
            importance: inputs.importance,
            enabled: self.enabled.map(u32::from),
            substep_target: self.options.substep_target as u32,
            jump_streak: self.chain.jump_streak,
            level_origin: inputs.level_origin.to_array(),
            reserved: 0,
        }
    }

    /// Writes the full solver state (ring contents, indices, remainders and
    /// corrective accumulators included) into `buffer`; returns the bytes
    /// written. Versioned and tied to the rig's structure.
    pub fn snapshot(&self, buffer: &mut [u8]) -> Result<usize, Error> {
        let size = self.snapshot_size();
        if buffer.len() < size {
            return Err(Error::BufferLength {
                what: "snapshot buffer",
                expected: size,
                got: buffer.len(),
            });
        }
        let header = SnapshotHeader {
            magic: SNAPSHOT_MAGIC,
            version: SNAPSHOT_VERSION,
            fingerprint: self.rig.fingerprint(),
            spring_count: self.springs.len() as u32,
            spring_state_size: core::mem::size_of::<SpringState>() as u32,
            corrective_count: self.correctives.len() as u32,
            started: self.started,
            total_size: size as u64,
            checksum: 0,
        };
        let springs_end = HEADER_SIZE + self.springs.len() * core::mem::size_of::<SpringState>();
        buffer[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
        buffer[HEADER_SIZE..springs_end].copy_from_slice(bytemuck::cast_slice(&self.springs));
        let correctives_end =
            springs_end + self.correctives.len() * core::mem::size_of::<CorrectiveState>();
        buffer[springs_end..correctives_end]
            .copy_from_slice(bytemuck::cast_slice(&self.correctives));
        let settings_end = correctives_end + SETTINGS_SIZE;
        buffer[correctives_end..settings_end]
            .copy_from_slice(bytemuck::bytes_of(&self.snapshot_settings()));
        let mut at = settings_end;
        let c = &self.chain.state;
        let origin = [c.origin.x, c.origin.y, c.origin.z, 0.0];
        let with_chains = !c.clocks.is_empty();
        let chain_sections: [&[u8]; 9] = if with_chains {
            [
                bytemuck::cast_slice::<ChainParams, u8>(&self.chain.params),
                bytemuck::cast_slice(&c.clocks),
                bytemuck::cast_slice(&c.position),
                bytemuck::cast_slice(&c.velocity),
                bytemuck::cast_slice(&c.bend),
                bytemuck::cast_slice(&c.previous),
                bytemuck::cast_slice(&self.chain.rest),
                bytemuck::cast_slice(&c.previous_colliders),
                bytemuck::bytes_of(&origin),
            ]
        } else {
            [&[]; 9]
        };
        for bytes in chain_sections {
            buffer[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        }
        debug_assert_eq!(at, size);
        let mut header = header;
        header.checksum = snapshot_checksum(&header, &buffer[HEADER_SIZE..size]);
        buffer[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
        Ok(size)
    }

    /// Restores a snapshot taken from a character of the same rig. The buffer
    /// is checked completely before anything is changed.
    pub fn restore(&mut self, buffer: &[u8]) -> Result<(), Error> {
        if buffer.len() < HEADER_SIZE {
            return Err(Error::Snapshot("buffer shorter than the snapshot header"));
        }
        let header: SnapshotHeader = bytemuck::pod_read_unaligned(&buffer[..HEADER_SIZE]);
        if header.magic != SNAPSHOT_MAGIC {
            return Err(Error::Snapshot("not a secmo snapshot (bad magic)"));
        }
        if header.version != SNAPSHOT_VERSION {
            return Err(Error::Snapshot(
                "snapshot version not supported by this library",
            ));
        }
        if header.fingerprint != self.rig.fingerprint()
            || header.spring_count as usize != self.springs.len()
            || header.spring_state_size as usize != core::mem::size_of::<SpringState>()
            || header.corrective_count as usize != self.correctives.len()
        {
            return Err(Error::Snapshot("snapshot was taken from a different rig"));
        }
        let size = self.snapshot_size();
        if header.total_size != size as u64 || buffer.len() < size || header.started > 1 {
            return Err(Error::Snapshot("snapshot is truncated or corrupted"));
        }
        if header.checksum != snapshot_checksum(&header, &buffer[HEADER_SIZE..size]) {
            return Err(Error::Snapshot(
                "snapshot checksum does not match (corrupted or edited)",
            ));
        }
        let range = StateRange::new(self.rig.units_per_meter());
        // Validate into scratch first, then commit.
        let state_size = core::mem::size_of::<SpringState>();
        let springs_end = HEADER_SIZE + self.springs.len() * state_size;
        for (i, chunk) in buffer[HEADER_SIZE..springs_end]
            .chunks_exact(state_size)
            .enumerate()
        {
            let s: SpringState = bytemuck::pod_read_unaligned(chunk);
            if !range.spring(&s, self.rig.springs[i].history_length) {
                return Err(Error::Snapshot(
                    "snapshot spring state is out of range or corrupted",
                ));
            }
            self.work_springs[i] = s;
        }
        let corrective_size = core::mem::size_of::<CorrectiveState>();
        let correctives_end = springs_end + self.correctives.len() * corrective_size;
        for (i, chunk) in buffer[springs_end..correctives_end]
            .chunks_exact(corrective_size)
            .enumerate()
        {
            let c: CorrectiveState = bytemuck::pod_read_unaligned(chunk);
            if !range.corrective(&c) {
                return Err(Error::Snapshot(
                    "snapshot corrective state is out of range or corrupted",
                ));
            }
            self.work_correctives[i] = c;
        }
        let settings_end = correctives_end + SETTINGS_SIZE;
        let settings: SnapshotSettings =
            bytemuck::pod_read_unaligned(&buffer[correctives_end..settings_end]);
        let substep_target = match settings.substep_target {
            0 => SubstepTarget::Hold,
            1 => SubstepTarget::Interpolate,
            _ => return Err(Error::Snapshot("snapshot substep target is out of range")),
        };
        let wind = Vec3::from(settings.wind);
        if settings.enabled.iter().any(|&e| e > 1)
            || settings.reserved != 0
            || !StateRange::new(self.rig.units_per_meter()).place(Vec3::from(settings.level_origin))
            || !settings.importance.is_finite()
            || !wind.is_finite()
            || wind.length() > MAX_WIND_M_PER_S2 * self.rig.units_per_meter()
            || self.validate_world_transform(&settings.world).is_err()
        {
            return Err(Error::Snapshot(
                "snapshot character settings (world transform, importance, wind, stages) are out of range or corrupted",
            ));
        }
        // Chains: check every section straight from the buffer (there is no
        // second copy of the chain state to read it into), then copy.
        let c = &self.chain.state;
        let (n_clocks, n_particles) = (c.clocks.len(), c.position.len());
        // A rig without chains keeps no collider frames.
        let n_colliders = if n_clocks > 0 {
            c.previous_colliders.len()
        } else {
            0
        };
        let params_at = settings_end;
        let clocks_at = params_at + n_clocks * core::mem::size_of::<ChainParams>();
        let position_at = clocks_at + n_clocks * core::mem::size_of::<ChainClock>();
        let velocity_at = position_at + n_particles * core::mem::size_of::<Vec3>();
        let bend_at = velocity_at + n_particles * core::mem::size_of::<Vec3>();
        let previous_at = bend_at + n_particles * core::mem::size_of::<Quat>();
        let rest_at = previous_at + n_particles * core::mem::size_of::<Vec3>();
        let colliders_at = rest_at + n_particles * core::mem::size_of::<Vec3>();
        let origin_at = colliders_at + n_colliders * core::mem::size_of::<Transform>();
        fn item<T: Pod>(buffer: &[u8], at: usize, i: usize) -> T {
            let size = core::mem::size_of::<T>();
            bytemuck::pod_read_unaligned(&buffer[at + i * size..at + (i + 1) * size])
        }
        // Clock times within the library's horizon, the simulated time and
        // the last update not after the input time (the simulated time may
        // lag: an LOD hold does not simulate, and the next update catches up
        // at most MAX_CHAIN_SUBSTEPS substeps); positions, speeds and frames
        // in range.
        let params_ok = (0..n_clocks).all(|i| {
            let p: ChainParams = item(buffer, params_at, i);
            p.validate().is_ok() && (-1..self.rig.bone_count() as i32).contains(&p.simulation_space)
        });
        if !params_ok {
            return Err(Error::Snapshot(
                "snapshot chain parameters are out of range or corrupted",
            ));
        }
        let clocks_ok = (0..n_clocks).all(|i| range.clock(&item(buffer, clocks_at, i)));
        let particles_ok = (0..n_particles).all(|i| {
            range.particle(
                item(buffer, position_at, i),
                item(buffer, velocity_at, i),
                item(buffer, bend_at, i),
            ) && range.place(item(buffer, previous_at, i))
                && {
                    // A direction.
                    let r: Vec3 = item(buffer, rest_at, i);
                    r.is_finite() && (r.length() - 1.0).abs() < 1e-3
                }
        }) && (0..n_colliders)
            .all(|i| range.transform(&item(buffer, colliders_at, i)));
        if !clocks_ok {
            return Err(Error::Snapshot(
                "snapshot chain clock is out of range or corrupted",
            ));
        }
        if !particles_ok {
            return Err(Error::Snapshot(
                "snapshot chain particles are out of range or corrupted",
            ));
        }
        let origin = if n_clocks > 0 {
            let o: [f32; 4] = item(buffer, origin_at, 0);
            let origin = Vec3::new(o[0], o[1], o[2]);
            if !(range.place(origin) && o[3] == 0.0) {
                return Err(Error::Snapshot(
                    "snapshot chain origin is out of range or corrupted",
                ));
            }
            origin
        } else {
            Vec3::ZERO
        };
        self.springs.copy_from_slice(&self.work_springs);
        self.correctives.copy_from_slice(&self.work_correctives);
        self.chain.inputs = chain_stage::ChainInputs {
            world: settings.world,
            importance: settings.importance,
            wind,
            level_origin: Vec3::from(settings.level_origin),
            rate_shift: 0,
            reseed: false,
        };
        self.enabled = settings.enabled.map(|e| e == 1);
        self.chain.jump_streak = settings.jump_streak;
        self.options.substep_target = substep_target;
        if n_clocks > 0 {
            let stage = &mut self.chain;
            // The character's parameters are copied only where the
            // snapshot's differ (an unchanged character keeps sharing the
            // rig's list).
            let bytes = core::mem::size_of_val(&stage.params[..]);
            let saved = &buffer[params_at..params_at + bytes];
            if saved != bytemuck::cast_slice::<ChainParams, u8>(&stage.params) {
                bytemuck::cast_slice_mut(stage.params_mut()).copy_from_slice(saved);
            }
            let w = &mut stage.state;
            let mut at = params_at + bytes;
            let mut read = |dst: &mut [u8]| {
                dst.copy_from_slice(&buffer[at..at + dst.len()]);
                at += dst.len();
            };
            read(bytemuck::cast_slice_mut(&mut w.clocks));
            read(bytemuck::cast_slice_mut(&mut w.position));
            read(bytemuck::cast_slice_mut(&mut w.velocity));
            read(bytemuck::cast_slice_mut(&mut w.bend));
            read(bytemuck::cast_slice_mut(&mut w.previous));
            read(bytemuck::cast_slice_mut(&mut stage.rest));
            read(bytemuck::cast_slice_mut(&mut w.previous_colliders));
            w.origin = origin;
        }
        self.started = header.started;
        Ok(())
    }
}
