//! The chain stage (SPEC §7, §8): every chain of a character, stepped on the
//! post-corrective pose. Its setup is the Rig's ([`Rig::chains`],
//! `chain_frames`, `colliders`); its per-character [`Stage`] holds the
//! committed state, the scratch an update writes before it is committed, and
//! the per-character parameters; [`step`] runs one update. `Character::solve`
//! only sequences it after the helper-bone stages.

use glam::{Affine3A, Quat, Vec3};

use crate::character::{rebase_clock, unset, StateRange, MAX_CHAIN_SUBSTEPS, MIN_VELOCITY_DT};
use crate::math::{self, Transform};
use crate::rig::Rig;
use crate::solvers::chain::{
    self, ChainClock, ChainParams, ChainSetup, SubstepFrame, CHAIN_CATCH_UP, CHAIN_STEP,
};
use crate::solvers::collide::PlacedCollider;
use crate::solvers::Pose;

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
        if self.key != key {
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
    /// Each collider placed at a substep: previous (10), current (10),
    /// fraction, scale.
    pub(crate) colliders: Vec<Memo<22, PlacedCollider>>,
}

/// Chain state (SPEC §7, §8): flat arrays over all chains, one entry per
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
                    let range = c.first_particle..c.first_particle + c.len();
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
            },
            inputs: ChainInputs {
                world: Transform::IDENTITY,
                importance: 1.0,
                wind: Vec3::ZERO,
            },
        }
    }
}

/// SPEC §7/§8: every chain on the post-corrective pose, particles in world
/// space (or their simulation frame), 120 substeps per second of input
/// time, with the anchor, the chain root and the colliders interpolated
/// between the previous and the current input at every substep.
pub(crate) fn step(rig: &Rig, stage: &mut Stage, pose: Pose<'_>, dt: f32, teleport: bool) {
    let Pose { local, component } = pose;
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
    let world_inverse = world.inverse();
    let up = crate::rig::up_vector(rig.up_axis);
    for (k, c) in rig.colliders.iter().enumerate() {
        let m = world * component[c.bone as usize];
        stage.current_colliders[k] = math::decompose(&m, Vec3::ONE).transform;
    }
    // Each distinct anchor and root parent once, however many chains
    // hang from it.
    let frame_of = |component: &[Affine3A], bone: i32| {
        let m = if bone >= 0 {
            world * component[bone as usize]
        } else {
            world
        };
        math::decompose(&m, Vec3::ONE).transform
    };
    // (A frame on a chain joint is read per chain, below.)
    for ((now, &bone), &moves) in stage
        .frames
        .now
        .iter_mut()
        .zip(&rig.chain_frames)
        .zip(&rig.chain_frame_moves)
    {
        if !moves {
            *now = frame_of(component, bone);
        }
    }
    for (ci, setup) in rig.chains.iter().enumerate() {
        let params = stage.params[ci];
        let n = setup.len();
        let range = setup.first_particle..setup.first_particle + n;
        // A frame on an earlier chain's joint has moved since (the
        // chain hangs from that chain's output).
        let mut frame_now = |slot: u32| {
            let slot = slot as usize;
            if rig.chain_frame_moves[slot] {
                stage.frames.now[slot] = frame_of(component, rig.chain_frames[slot]);
            }
            stage.frames.now[slot]
        };
        let anchor_now = frame_now(setup.anchor_slot).rotation();
        let parent_now = frame_now(setup.parent_slot);
        let root_now = Vec3::from((world * component[setup.joints[0] as usize]).translation);
        let root_joint = setup.joints[0] as usize;
        let root_local_now = local[root_joint].translation;
        let space_now = if params.simulation_space >= 0 {
            let m = world * component[params.simulation_space as usize];
            math::decompose(&m, Vec3::ONE).transform
        } else {
            Transform::IDENTITY
        };
        let ChainState {
            position,
            velocity,
            bend,
            previous,
            clocks,
            previous_colliders,
            ..
        } = &mut stage.state;
        let clock = &mut clocks[ci];
        // This chain's kept arrays, as one borrow.
        macro_rules! kept {
            () => {
                Kept {
                    position: &mut position[range.clone()],
                    velocity: &mut velocity[range.clone()],
                    bend: &mut bend[range.clone()],
                    previous: &mut previous[range.clone()],
                }
            };
        }
        let seed = |clock: &mut ChainClock, kept: Kept<'_>| {
            let Kept {
                position,
                velocity,
                bend,
                previous,
            } = kept;
            animated_tips(component, &world, setup, position);
            previous.copy_from_slice(position);
            velocity.fill(Vec3::ZERO);
            bend.fill(Quat::IDENTITY);
            clock.previous_anchor = anchor_now.to_array();
            clock.previous_root = root_now.to_array();
            clock.previous_space = space_now;
            clock.previous_parent = parent_now;
            clock.previous_root_local = root_local_now;
        };
        if clock.started == 0 {
            // First update: particles start on the animated pose, nothing moves.
            *clock = ChainClock {
                started: 1,
                ..ChainClock::default()
            };
            seed(clock, kept!());
            for &c in &setup.colliders {
                previous_colliders[c as usize] = stage.current_colliders[c as usize];
            }
            in_range_or_park(&state_range, clock, kept!());
            continue;
        }
        clock.time += dt as f64;
        clock.lod_counter = clock.lod_counter.wrapping_add(1);

        // LOD: below the skip threshold the chain follows the animation,
        // so it resumes from there with no pop.
        if stage.inputs.importance < params.lod_skip_below {
            // Follow the animation, carrying its velocity, so that the
            // chain resumes in step with the body instead of from rest.
            let tips = &mut stage.rest_targets[range.clone()];
            animated_tips(component, &world, setup, tips);
            for ((p, v), tip) in position[range.clone()]
                .iter_mut()
                .zip(&mut velocity[range.clone()])
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
            previous[range.clone()].copy_from_slice(&position[range.clone()]);
            bend[range.clone()].fill(Quat::IDENTITY);
            clock.previous_anchor = anchor_now.to_array();
            clock.previous_root = root_now.to_array();
            clock.previous_space = space_now;
            clock.previous_parent = parent_now;
            clock.previous_root_local = root_local_now;
            clock.simulated = clock.time;
            clock.last_update = clock.time;
            clock.still_since = clock.time;
            clock.sleeping = 0;
            in_range_or_park(&state_range, clock, kept!());
            continue;
        }

        // Teleport: an explicit flag, or the root jumping or turning past
        // the thresholds. Particles move rigidly with the root, keeping
        // their offsets, and nothing is interpolated across the jump.
        let previous_anchor = Quat::from_array(clock.previous_anchor);
        let previous_root = Vec3::from_array(clock.previous_root);
        let jumped = teleport
            || (root_now - previous_root).length() > params.teleport_distance * scale
            || previous_anchor.angle_between(anchor_now) > params.teleport_angle;
        if jumped {
            let turn = anchor_now * previous_anchor.conjugate();
            for p in position[range.clone()]
                .iter_mut()
                .chain(&mut previous[range.clone()])
            {
                *p = root_now + turn * (*p - previous_root);
            }
            for v in &mut velocity[range.clone()] {
                *v = turn * *v;
            }
            // Carried rigidly, but gravity may now pull another way.
            clock.sleeping = 0;
            clock.previous_anchor = anchor_now.to_array();
            clock.previous_root = root_now.to_array();
            clock.previous_parent = parent_now;
            clock.previous_root_local = root_local_now;
            for &c in &setup.colliders {
                previous_colliders[c as usize] = stage.current_colliders[c as usize];
            }
        }

        // The settle phase's clock (ChainParams::settle_speedup): any
        // change of the chain's input restarts it and wakes the chain. A
        // teleport, which carries the particles rigidly (above), only
        // wakes it: it has already moved the previous frame onto this
        // one. Exact comparisons: a held pose gives bit-identical frames.
        let wind = stage.inputs.wind.to_array();
        let input_changed = anchor_now.to_array() != clock.previous_anchor
            || root_now.to_array() != clock.previous_root
            || parent_now != clock.previous_parent
            || (params.simulation_space >= 0 && space_now != clock.previous_space)
            || wind != clock.previous_wind
            || setup
                .colliders
                .iter()
                .any(|&c| previous_colliders[c as usize] != stage.current_colliders[c as usize]);
        if input_changed {
            clock.still_since = clock.time;
            clock.sleeping = 0;
        }
        clock.previous_wind = wind;

        // Simulation space: particles ride along with a bone (a vehicle,
        // a platform), keeping `inertia` of their world motion.
        if params.simulation_space >= 0 {
            let carried = 1.0 - params.inertia;
            let delta = space_now.to_affine() * clock.previous_space.to_affine().inverse();
            for p in position[range.clone()]
                .iter_mut()
                .chain(&mut previous[range.clone()])
            {
                *p = p.lerp(delta.transform_point3(*p), carried);
            }
            for v in &mut velocity[range.clone()] {
                *v = v.lerp(delta.transform_vector3(*v), carried);
            }
            let root = Vec3::from_array(clock.previous_root);
            clock.previous_root = root.lerp(delta.transform_point3(root), carried).to_array();
            let parent = clock.previous_parent;
            let moved = math::decompose(&(delta * parent.to_affine()), parent.scale()).transform;
            clock.previous_parent = Transform::new(
                parent.translation().lerp(moved.translation(), carried),
                parent.rotation().slerp(moved.rotation(), carried),
                parent.scale(),
            );
            clock.previous_space = space_now;
        }

        // LOD: half rate simulates every other update over both updates'
        // time. On the held update the particles stay where they are and
        // the output is written from them, as a half-rate simulation would
        // show (holding local rotations instead welds the chain to the body
        // for a frame and pops when updates resume).
        let hold = stage.inputs.importance < params.lod_half_below && clock.lod_counter % 2 == 1;

        if !hold {
            let h = CHAIN_STEP * params.time_factor as f64;
            let decay = chain::StepDecay::new(&params, h as f32, n);
            let (t0, t1) = (clock.last_update, clock.time);
            // A long pause costs at most 5 s of input time and at most
            // MAX_CHAIN_SUBSTEPS substeps (a small time factor makes
            // substeps short, not more numerous).
            let backlog = (CHAIN_CATCH_UP).min(f64::from(MAX_CHAIN_SUBSTEPS) * h);
            if t1 - clock.simulated > backlog {
                clock.simulated = t1 - backlog;
            }
            let previous_anchor = Quat::from_array(clock.previous_anchor);
            let previous_parent = clock.previous_parent;
            let previous_root_local = Vec3::from_array(clock.previous_root_local);
            let gravity_direction = params.gravity_direction().try_normalize().unwrap_or(-up);
            let acceleration =
                gravity_direction * params.gravity * scale + stage.inputs.wind * params.wind_factor;
            let collider_count = setup.colliders.len();
            let mut substeps = 0u32;
            // Settle-phase repeats count against the same budget: one
            // update never runs more than 2 × MAX_CHAIN_SUBSTEPS substeps,
            // however long the pause before it (the extra ones only make
            // a chain settle sooner, so they are the ones dropped).
            let mut extra_budget = MAX_CHAIN_SUBSTEPS;
            while clock.simulated + h <= t1 + 1e-9 && substeps < MAX_CHAIN_SUBSTEPS {
                substeps += 1;
                let end = clock.simulated + h;
                let f = if t1 > t0 {
                    ((end - t0) / (t1 - t0)).clamp(0.0, 1.0) as f32
                } else {
                    1.0
                };
                // Interpolated frames, shared with every chain that
                // reads the same frame at the same fraction (FrameScratch).
                let fk = [f];
                for (slot, &c) in setup.colliders.iter().enumerate() {
                    let a = previous_colliders[c as usize];
                    let b = stage.current_colliders[c as usize];
                    let key = key_of(&[
                        bytemuck::cast_slice(core::slice::from_ref(&a)),
                        bytemuck::cast_slice(core::slice::from_ref(&b)),
                        &fk,
                        &[scale],
                    ]);
                    stage.placed[slot] = stage.frames.colliders[c as usize].get(key, || {
                        let m = Transform::new(
                            a.translation().lerp(b.translation(), f),
                            a.rotation().slerp(b.rotation(), f),
                            a.scale().lerp(b.scale(), f),
                        )
                        .to_affine();
                        rig.colliders[c as usize].place(&m, scale)
                    });
                }
                let key = key_of(&[
                    bytemuck::cast_slice(core::slice::from_ref(&previous_parent)),
                    bytemuck::cast_slice(core::slice::from_ref(&parent_now)),
                    &fk,
                ]);
                let (parent_affine, parent_rotation) =
                    stage.frames.parents[setup.parent_slot as usize].get(key, || {
                        let parent = Transform::new(
                            previous_parent
                                .translation()
                                .lerp(parent_now.translation(), f),
                            previous_parent.rotation().slerp(parent_now.rotation(), f),
                            previous_parent.scale().lerp(parent_now.scale(), f),
                        );
                        (parent.to_affine(), parent.rotation())
                    });
                let key = key_of(&[&previous_anchor.to_array(), &anchor_now.to_array(), &fk]);
                let anchor = stage.frames.anchors[setup.anchor_slot as usize]
                    .get(key, || previous_anchor.slerp(anchor_now, f));
                let frame = SubstepFrame {
                    h: h as f32,
                    anchor,
                    root: {
                        let local = previous_root_local.lerp(Vec3::from_array(root_local_now), f);
                        parent_affine.transform_point3(local)
                    },
                    up,
                    acceleration,
                    scale,
                    colliders: &stage.placed[..collider_count],
                    parent: parent_rotation,
                    pose: local,
                    gravity_velocity: gravity_direction * params.vrm_gravity_power,
                    wind: stage.inputs.wind * params.wind_factor,
                    floor_shift: origin.dot(up),
                    decay,
                };
                previous[range.clone()].copy_from_slice(&position[range.clone()]);
                if clock.sleeping == 0 {
                    // Once the input has rested, the same substeps run
                    // faster (ChainParams::settle_speedup); the input is
                    // still, so every one sees the same frame.
                    let still = end - clock.still_since;
                    let wanted = chain::settle_substeps(&params, still);
                    let repeats = 1 + (wanted - 1).min(extra_budget);
                    extra_budget -= repeats - 1;
                    for _ in 0..repeats {
                        chain::substep(
                            setup,
                            &params,
                            &frame,
                            &stage.rest[range.clone()],
                            &mut chain::Particles {
                                position: &mut position[range.clone()],
                                velocity: &mut velocity[range.clone()],
                                bend: &mut bend[range.clone()],
                                bend_scratch: &mut stage.bend_scratch[..n],
                                rest_targets: &mut stage.rest_targets[range.clone()],
                                contacts: &mut stage.contacts[range.clone()],
                            },
                        );
                    }
                    if repeats > 1
                        && repeats == wanted
                        && chain::settle_engagement(still) >= 1.0
                        && chain::at_rest(&position[range.clone()], &previous[range.clone()], units)
                    {
                        // Asleep, the state is kept exactly as it is
                        // (velocities too: a spring held by the coupling
                        // or a floor keeps pushing, and zeroing that made
                        // a woken tail twitch 0.48°), so waking resumes
                        // the same motion.
                        clock.sleeping = 1;
                    }
                }
                clock.simulated = end;
            }
            if clock.simulated + h <= t1 {
                // Only where float64 lost the step (a clock near its
                // horizon): drop the backlog rather than loop again.
                clock.simulated = t1;
            }
            clock.last_update = t1;
            clock.previous_anchor = anchor_now.to_array();
            clock.previous_root = root_now.to_array();
            clock.previous_parent = parent_now;
            clock.previous_root_local = root_local_now;
        }
        // A chain whose state left the range (particles beyond 1e7 m,
        // not finite, an unusable frame) is re-seeded on the animation,
        // as a teleport would, instead of failing every later update; one
        // whose animated pose itself lies beyond the range is parked on the
        // animation. Speeds past the limit are clamped (docs/c-api.md).
        // The stage changes the committed state in place, so it cannot
        // fail: everything it keeps is in the range when it is done.
        if !in_range(&state_range, clock, &mut kept!()) {
            seed(clock, kept!());
            clock.simulated = clock.time;
            clock.last_update = clock.time;
            if !in_range_or_park(&state_range, clock, kept!()) {
                continue;
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
        let ahead = ((clock.time - clock.simulated).clamp(0.0, step) / step) as f32;
        // Output: each joint turns by the shortest swing from its current
        // link direction to its particle (SPEC §7), written through the
        // current parent (path B), blended by the chain and joint weights
        // (authored tracks win, SPEC §8).
        for (k, &joint) in setup.joints.iter().enumerate() {
            let b = joint as usize;
            let parent = math::parent_matrix(component, rig.parents[b]);
            let local_affine = local[b].to_affine();
            let current = parent * local_affine;
            let child = if k + 1 < n {
                local[setup.joints[k + 1] as usize].translation()
            } else {
                setup.end_offset
            };
            let particle = setup.first_particle + k;
            let carried = position[particle] + (position[particle] - previous[particle]) * ahead;
            let target = world_inverse.transform_point3(carried);
            let to = target - Vec3::from(current.translation);
            let w = params.weight * setup.weights[k];
            if w <= 0.0 {
                // Authored tracks win (SPEC §8): leave the joint exactly as animated.
                component[b] = current;
                continue;
            }
            if let Some(solved) = math::aim_local(&parent, &local[b], &local_affine, child, to) {
                let rotation = if w >= 1.0 {
                    solved
                } else {
                    local[b].rotation().normalize().slerp(solved, w)
                };
                // Never a non-finite output (the stage cannot fail): the
                // joint keeps its animated rotation instead.
                if rotation.is_finite() {
                    local[b].rotation = rotation.to_array();
                }
            }
            component[b] = parent * local[b].to_affine();
        }
    }
    // A collider frame beyond the state range is kept unset (the chains it
    // touches have been parked or re-seeded above).
    for (kept, now) in stage
        .state
        .previous_colliders
        .iter_mut()
        .zip(&stage.current_colliders)
    {
        *kept = if state_range.transform(now) {
            *now
        } else {
            bytemuck::Zeroable::zeroed()
        };
    }
    // The chain joints' component matrices are current (the writeback
    // keeps them so, for chains hanging from other chains); nothing after
    // this stage reads the others, and the next update starts with FK.
}

/// One chain's kept arrays (slices of [`ChainState`]'s).
struct Kept<'a> {
    position: &'a mut [Vec3],
    velocity: &'a mut [Vec3],
    bend: &'a mut [Quat],
    previous: &'a mut [Vec3],
}

/// Clamps a chain's speeds to the limit and says whether everything it
/// keeps is inside the state range.
fn in_range(range: &StateRange, clock: &mut ChainClock, kept: &mut Kept<'_>) -> bool {
    rebase_clock(clock);
    for v in kept.velocity.iter_mut() {
        range.clamp_speed(v);
    }
    range.clock(clock)
        && (0..kept.position.len()).all(|i| {
            range.particle(kept.position[i], kept.velocity[i], kept.bend[i])
                & range.place(kept.previous[i])
        })
}

/// [`in_range`], and when it is not, the chain is parked: its animated pose
/// itself lies beyond the state range, so it is not started, its particles
/// sit at the origin and its joints stay on the animation until an update
/// can seed it. Returns whether the chain was in range.
fn in_range_or_park(range: &StateRange, clock: &mut ChainClock, mut kept: Kept<'_>) -> bool {
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
/// joint `k+1` for link `k`, the end point for the last link.
pub(crate) fn animated_tips(
    component: &[Affine3A],
    world: &Affine3A,
    setup: &ChainSetup,
    out: &mut [Vec3],
) {
    let n = setup.len();
    for k in 0..n {
        out[k] = if k + 1 < n {
            world.transform_point3(component[setup.joints[k + 1] as usize].translation.into())
        } else {
            let last = component[setup.joints[n - 1] as usize];
            world.transform_point3(last.transform_point3(setup.end_offset))
        };
    }
}
