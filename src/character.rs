//! The Character: per-instance solver state and the update pipeline
//! (DESIGN.md "One update", SPEC §6). Everything is sized at creation; an
//! update only walks preallocated flat arrays and never allocates.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use glam::{Affine3A, Vec3};

use crate::clock;
use crate::error::Error;
use crate::math::{self, Transform, MIN_SCALE};
use crate::rig::Rig;
use crate::solvers::spring::{self, SpringState};

/// How targets are chosen for the substeps of one update (SPEC §2 DECISION).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum SubstepTarget {
    /// Every substep uses this update's target, as the article's kernel did. [default]
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

/// One update's input.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// Seconds since the previous update (the first update after creation or
    /// reset counts as 0, SPEC §2).
    pub dt: f32,
    /// Source local pose, one transform per rig bone.
    pub pose: &'a [Transform],
    /// Reset before this update (teleport): springs snap to their targets.
    pub teleport: bool,
}

/// What happened to one spring in the last update (SPEC §2 diagnostics).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SpringRecord {
    pub bone: u32,
    /// Substeps executed this update.
    pub substeps: u32,
    /// dt as used (0 on a first update or after reset).
    pub dt: f32,
    /// Substep length h.
    pub h: f32,
    pub remaining_before: f32,
    pub remaining_after: f32,
    /// Target x (component space).
    pub target: [f32; 3],
    /// Integrated position p after the length clamp.
    pub position: [f32; 3],
    pub velocity: [f32; 3],
    /// Blended output position (component space).
    pub output: [f32; 3],
    /// 1 if the reset threshold snapped the spring during this update.
    pub snapped: u32,
}

const _: () = assert!(core::mem::size_of::<SpringRecord>() == 76);

/// Summary of one update.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct UpdateInfo {
    /// Largest substep count executed by any spring.
    pub max_substeps: u32,
    /// Number of springs that hit their reset threshold.
    pub snapped_springs: u32,
}

/// Per-character state and scratch.
pub struct Character {
    rig: Arc<Rig>,
    options: CharacterOptions,
    springs: Vec<SpringState>,
    records: Vec<SpringRecord>,
    // Scratch, sized at creation. The update writes here and commits to the
    // state above only when everything succeeded.
    work_springs: Vec<SpringState>,
    work_records: Vec<SpringRecord>,
    local: Vec<Transform>,
    component: Vec<Affine3A>,
}

/// Snapshot header magic, "SMSN" little-endian.
const SNAPSHOT_MAGIC: u32 = u32::from_le_bytes(*b"SMSN");
/// Bumped whenever the snapshot layout changes.
pub const SNAPSHOT_VERSION: u32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SnapshotHeader {
    magic: u32,
    version: u32,
    fingerprint: u64,
    spring_count: u32,
    spring_state_size: u32,
    total_size: u64,
}

const HEADER_SIZE: usize = core::mem::size_of::<SnapshotHeader>();

impl Character {
    /// Creates a character for `rig`. All memory the character will ever use is
    /// allocated here.
    #[must_use]
    pub fn new(rig: Arc<Rig>, options: CharacterOptions) -> Character {
        let n = rig.bone_count();
        let s = rig.springs.len();
        let records: Vec<SpringRecord> = rig
            .springs
            .iter()
            .map(|p| SpringRecord {
                bone: p.bone,
                h: p.step_length(),
                ..Zeroable::zeroed()
            })
            .collect();
        Character {
            options,
            springs: vec![SpringState::default(); s],
            work_springs: vec![SpringState::default(); s],
            work_records: records.clone(),
            records,
            local: vec![Transform::IDENTITY; n],
            component: vec![Affine3A::IDENTITY; n],
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

    /// Spring states, in the rig's spring order (by bone index).
    #[must_use]
    pub fn spring_states(&self) -> &[SpringState] {
        &self.springs
    }

    /// Records of the last successful update, one per spring.
    #[must_use]
    pub fn spring_records(&self) -> &[SpringRecord] {
        &self.records
    }

    /// Teleport: the next update seeds every spring at its target with zero
    /// velocity, an empty ring and no carried time, as a first update does.
    pub fn reset(&mut self) {
        for s in &mut self.springs {
            *s = SpringState::default();
        }
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
        if !(input.dt.is_finite() && input.dt >= 0.0 && input.dt <= clock::MAX_DT) {
            return Err(Error::InvalidDt(input.dt));
        }
        for (bone, t) in input.pose.iter().enumerate() {
            if !t.is_finite() {
                return Err(Error::NonFinitePose { bone });
            }
            if t.scale.iter().any(|s| s.abs() < MIN_SCALE) {
                return Err(Error::DegeneratePose {
                    bone,
                    what: "scale has a zero component",
                });
            }
            if t.rotation().length_squared() < 1e-12 {
                return Err(Error::DegeneratePose {
                    bone,
                    what: "rotation quaternion has zero length",
                });
            }
        }
        Ok(())
    }

    /// Runs one update: source local pose in, final local pose out (SPEC §6).
    /// On error nothing is written and the state is unchanged.
    pub fn update(
        &mut self,
        input: &FrameInput<'_>,
        output: &mut [Transform],
    ) -> Result<UpdateInfo, Error> {
        self.validate_input(input, output.len())?;
        self.local.copy_from_slice(input.pose);
        let info = self.solve(input.dt, input.teleport)?;
        output.copy_from_slice(&self.local);
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
        let len = pose.len();
        self.validate_input(&FrameInput { dt, pose, teleport }, len)?;
        self.local.copy_from_slice(pose);
        let info = self.solve(dt, teleport)?;
        pose.copy_from_slice(&self.local);
        Ok(info)
    }

    /// Runs the stages on `self.local` against scratch state; commits the state
    /// only when every stage succeeded.
    fn solve(&mut self, dt: f32, teleport: bool) -> Result<UpdateInfo, Error> {
        self.work_springs.copy_from_slice(&self.springs);
        if teleport {
            for s in &mut self.work_springs {
                *s = SpringState::default();
            }
        }
        let info = self.run_springs(dt)?;
        self.springs.copy_from_slice(&self.work_springs);
        self.records.copy_from_slice(&self.work_records);
        Ok(info)
    }

    /// Forward kinematics with the translation springs inline (SPEC §1, §3, §6):
    /// one parents-first pass, so every spring and every descendant reads the
    /// **current** parent, already modified this frame.
    fn run_springs(&mut self, dt: f32) -> Result<UpdateInfo, Error> {
        let rig = &*self.rig;
        let interpolate = self.options.substep_target == SubstepTarget::Interpolate;
        let mut info = UpdateInfo::default();
        for bone in 0..rig.parents.len() {
            let parent_index = rig.parents[bone];
            let parent = math::parent_matrix(&self.component, parent_index);
            let mut c = parent * self.local[bone].to_affine();
            let spring_index = rig.spring_of_bone[bone];
            if spring_index != u32::MAX {
                let params = &rig.springs[spring_index as usize];
                let state = &mut self.work_springs[spring_index as usize];
                let record = &mut self.work_records[spring_index as usize];
                let target: Vec3 = c.translation.into();
                let h = params.step_length();
                let remaining_before = state.remaining;
                let mut substeps = 0u32;
                let mut snapped = false;
                let used_dt;
                if state.initialized == 0 {
                    // SPEC §2: the first update's dt is 0; seed p = x.
                    state.snap_to(target);
                    state.remaining = 0.0;
                    state.initialized = 1;
                    used_dt = 0.0;
                } else {
                    used_dt = dt;
                    let previous = Vec3::from_array(state.previous_target);
                    // SPEC §2 loop, strict `>`, remaining capped at 5 s.
                    let mut remaining = clock::accumulate(state.remaining, dt);
                    while remaining > h {
                        let x = if interpolate && dt > 0.0 {
                            // Substep k ends (k+1)·h after the simulation time
                            // the carried remainder left us at.
                            let t = ((substeps + 1) as f32 * h - remaining_before) / dt;
                            previous.lerp(target, t.clamp(0.0, 1.0))
                        } else {
                            target
                        };
                        snapped |= spring::substep(params, state, x, h);
                        remaining -= h;
                        substeps += 1;
                    }
                    state.remaining = remaining;
                }
                let out = spring::finish(params, state, target);
                state.previous_target = target.to_array();
                if !out.is_finite() || !state.position().is_finite() {
                    return Err(Error::NonFiniteResult { bone });
                }
                // SPEC §1 path A: Δ_L = linear(inverse(C_parent)) · Δ_C.
                let delta_local = math::component_delta_to_local(&parent, out - target);
                let t = &mut self.local[bone].translation;
                t[0] += delta_local.x;
                t[1] += delta_local.y;
                t[2] += delta_local.z;
                c.translation = out.into();
                *record = SpringRecord {
                    bone: params.bone,
                    substeps,
                    dt: used_dt,
                    h,
                    remaining_before,
                    remaining_after: state.remaining,
                    target: target.to_array(),
                    position: state.position,
                    velocity: state.velocity,
                    output: out.to_array(),
                    snapped: snapped as u32,
                };
                info.max_substeps = info.max_substeps.max(substeps);
                info.snapped_springs += snapped as u32;
            }
            self.component[bone] = c;
        }
        Ok(info)
    }

    /// Bytes a snapshot of this character takes.
    #[must_use]
    pub fn snapshot_size(&self) -> usize {
        HEADER_SIZE + self.springs.len() * core::mem::size_of::<SpringState>()
    }

    /// Writes the full solver state (ring contents, indices and remainders
    /// included) into `buffer`; returns the bytes written. Versioned and tied to
    /// the rig's structure.
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
            total_size: size as u64,
        };
        buffer[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
        buffer[HEADER_SIZE..size].copy_from_slice(bytemuck::cast_slice(&self.springs));
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
        {
            return Err(Error::Snapshot("snapshot was taken from a different rig"));
        }
        let size = self.snapshot_size();
        if header.total_size != size as u64 || buffer.len() < size {
            return Err(Error::Snapshot("snapshot is truncated"));
        }
        // Validate into scratch first, then commit.
        let body = &buffer[HEADER_SIZE..size];
        let state_size = core::mem::size_of::<SpringState>();
        for (i, chunk) in body.chunks_exact(state_size).enumerate() {
            let s: SpringState = bytemuck::pod_read_unaligned(chunk);
            let len = self.rig.springs[i].history_length;
            let floats_ok = s
                .position
                .iter()
                .chain(&s.velocity)
                .chain(&s.previous_target)
                .all(|v| v.is_finite())
                && s.ring.iter().flatten().all(|v| v.is_finite())
                && s.remaining.is_finite()
                && (0.0..=clock::REMAINING_CAP).contains(&s.remaining);
            if !floats_ok || s.ring_index >= len || s.ring_fill > len || s.initialized > 1 {
                return Err(Error::Snapshot("snapshot contents are corrupted"));
            }
            self.work_springs[i] = s;
        }
        self.springs.copy_from_slice(&self.work_springs);
        Ok(())
    }
}
