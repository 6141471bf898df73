//! The chain stage's per-character state and scratch ([`Stage`]), and the
//! frame memos the chains of one update share.

use super::*;

/// A chain frame's interpolation for one substep, shared by the chains that
/// read the same frame: reused only when the exact bits of every input
/// match, so sharing never changes a result.
#[derive(Clone, Copy)]
pub(crate) struct Memo<const K: usize, T> {
    pub(super) key: [u32; K],
    pub(super) value: T,
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
    /// The world's CPU budget (src/world.rs): substeps this update are
    /// `2^rate_shift` times as long (0, the full rate, outside a world).
    pub(crate) rate_shift: u32,
    /// This update re-seeds the chains on the pose given (a world's held
    /// character released): that pose is not the input's animation.
    pub(crate) reseed: bool,
}

impl ChainInputs {
    /// A chain's substep length this update, seconds.
    pub(crate) fn step(&self, params: &ChainParams) -> f64 {
        CHAIN_STEP * params.time_factor as f64 * f64::from(1u32 << self.rate_shift.min(4))
    }
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
pub(super) fn recentre(
    rig: &ChainRig<'_>,
    stage: &mut Stage,
    (component, world): (&[Frame], &Affine3A),
    units: f32,
    range: &StateRange,
) {
    let there = match rig.plan.chain_frames.first() {
        Some(&b) if b >= 0 => world.transform_point3(component[b as usize].translation()),
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
    /// The state, changed in place by [`step_jobs`], which cannot fail (the
    /// character checks everything else before the stage runs).
    pub(crate) state: ChainState,
    /// Per-character parameters (`Character::set_chain_params`): the rig's
    /// list, shared, until one changes; then the character's own copy
    /// ([`Stage::params_mut`]).
    pub(crate) params: std::sync::Arc<Vec<ChainParams>>,
    /// Anchor-frame rest directions per particle at the last substep (what
    /// the kernels read): the rest arc for the current parameters, or
    /// where the input's pose had turned it ([`ChainParams::rest_source`]).
    /// Part of the snapshot.
    pub(crate) rest: Vec<Vec3>,
    /// Last substep's rest targets and contact flags, for debug drawing.
    pub(crate) rest_targets: Vec<Vec3>,
    pub(crate) contacts: Vec<u8>,
    /// New bends of one chain's links until the substep is done.
    pub(crate) bend_scratch: Vec<Quat>,
    pub(crate) placed: Vec<PlacedCollider>,
    pub(crate) current_colliders: Vec<Transform>,
    pub(crate) frames: FrameScratch,
    pub(crate) inputs: ChainInputs,
    /// The chain kernel this character runs ([`ChainKernel::detect`]).
    pub(crate) kernel: ChainKernel,
    /// Per chain frame on a chain joint ([`ChainPlan::chain_frames_on`]): the
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
    /// Joint-substeps the kernels ran in the last update (each chain's
    /// substeps, settle repeats included, times its joints).
    pub(crate) joint_substeps: u64,
}

impl Stage {
    /// The parameters to change: the character's own copy, made from the
    /// shared list the first time (the only allocation a parameter change
    /// makes, once per character).
    pub(crate) fn params_mut(&mut self) -> &mut [ChainParams] {
        let own: &mut Vec<ChainParams> = std::sync::Arc::make_mut(&mut self.params);
        own
    }

    pub(crate) fn new(rig: &ChainRig<'_>) -> Self {
        let (particles, chains, colliders) =
            (rig.particle_count, rig.chains.len(), rig.colliders.len());
        Self {
            state: ChainState::new(particles, chains, colliders),
            params: rig.params.clone(),
            rest: {
                let mut rest = vec![Vec3::ZERO; particles];
                for c in rig.chains {
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
                now: vec![Transform::IDENTITY; rig.plan.chain_frames.len()],
                anchors: vec![Memo::new(Quat::IDENTITY); rig.plan.chain_frames.len()],
                parents: vec![
                    Memo::new((Affine3A::IDENTITY, Quat::IDENTITY));
                    rig.plan.chain_frames.len()
                ],
                colliders: vec![Memo::new(PlacedCollider::default()); colliders],
                collider_epoch: 0,
            },
            inputs: ChainInputs {
                world: Transform::IDENTITY,
                importance: 1.0,
                wind: Vec3::ZERO,
                level_origin: Vec3::ZERO,
                rate_shift: 0,
                reseed: false,
            },
            kernel: ChainKernel::detect(),
            records: {
                // Nothing at all for a rig with no chain hanging from another.
                let mut records: Vec<Vec<JointRecord>> = Vec::new();
                for &(slot, _) in rig.plan.chain_frames_on.iter().flatten() {
                    if records.is_empty() {
                        records = (0..rig.plan.chain_frames.len())
                            .map(|_| Vec::new())
                            .collect();
                    }
                    records[slot as usize] = Vec::with_capacity(RECORDED_SUBSTEPS);
                }
                records
            },
            auto_jumped: false,
            jump_streak: 0,
            joint_substeps: 0,
        }
    }

    /// Chain `ci`'s new parameters: a chain on its rest arc takes the new
    /// one at once (one on its input's pose turns toward it over the next
    /// update if it leaves the pose).
    pub(crate) fn set_rest_arc(&mut self, setup: &ChainSetup, params: &ChainParams, ci: usize) {
        let clock = &self.state.clocks[ci];
        if clock.on_pose == 0.0 {
            chain::rest_directions(setup, params, &mut self.rest[setup.particles()]);
        }
    }

    /// Whether a chain simulates in a bone's space (that bone's component
    /// matrix is read, whichever it is).
    pub(crate) fn any_simulation_space(&self) -> bool {
        self.params.iter().any(|p| p.simulation_space >= 0)
    }
}
