//! After the substeps: each chain's clock and range check, and the
//! writeback of its particles into the pose.

use super::*;

/// A chain's clock after its substeps and the range check. Returns the
/// fraction of a substep its output is carried forward by
/// ([`write_back`]), or `None` when the chain was parked (its joints stay
/// on the animation).
pub(super) fn finish(
    rig: &ChainRig<'_>,
    stage: &mut Stage,
    update: &Update,
    (local, component): (&[Transform], &[Frame]),
    ci: usize,
    p: &Prepared,
) -> Option<f32> {
    let setup = &rig.chains[ci];
    if p.run && (p.rest_moves || p.carries) {
        // On the target at the update's end, whatever the rate: the rest
        // turns the rest of the way (and the links with it, their positions
        // before the last substep too, so that the output between substeps
        // shows the input's pose of this update).
        let mut to_end = *p;
        let (anchor, root) = (p.now.anchor, p.now.root);
        rest_at(
            (rig, stage, update),
            (local, component),
            ci,
            &mut to_end,
            (1.0, anchor, root),
            true,
        );
    }
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
        p.particles_in_range,
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
    //
    // Around the animation (`p.carries`) the rest's turn to the update's
    // end (above) has already carried the links to the input's pose of
    // this update; the last substep's motion is mostly the animation's
    // own, and carrying it forward again would count the remainder's turn
    // twice: at 60 Hz input with 16.57 ms updates, a tail following its
    // keys exactly (`animation_inertia` 0) came out up to 5° ahead of
    // them (tests/chains.rs).
    if p.carries {
        return Some(0.0);
    }
    let step = CHAIN_STEP * f64::from(params.time_factor);
    Some(((clock.time - clock.simulated).clamp(0.0, step) / step) as f32)
}

/// The block's output (`ahead[l]`: [`finish`]'s for member `l`, `None`: no
/// output): each joint turns by the shortest swing from its current link
/// direction to its particle (docs/algorithms.md §7), written through the current
/// parent (path B), blended by the chain and joint weights (authored tracks
/// win, docs/algorithms.md §8) and held by the skin guard ([`guarded`]).
/// Every chain goes through the one writeback ([`writeback`]): blocks of
/// [`writeback::LANES_FROM`] chains or more several chains at once, the
/// others one lane wide.
pub(super) fn write_back(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    ahead: &[Option<f32>; lanes::W],
) {
    // The members with an output: their chains, and each one's job and setup.
    let mut chains = [writeback::Chain {
        len: 0,
        parent: Affine3A::IDENTITY,
        world_inverse: Affine3A::IDENTITY,
        ahead: 0.0,
        weight: 1.0,
        guard: None,
    }; lanes::W];
    let mut lane_of: [Option<(usize, &ChainSetup)>; lanes::W] = [None; lanes::W];
    let mut count = 0;
    for (l, m) in members.iter().enumerate() {
        let Some(ahead) = ahead[l] else { continue };
        let (job, update) = job_of(jobs, updates, *m);
        let (rig, setup) = (&job.rig, &job.rig.chains[m.ci]);
        let params = &job.stage.params[m.ci];
        chains[count] = writeback::Chain {
            len: setup.len(),
            parent: math::parent_matrix(job.component, rig.parents[setup.joints[0] as usize]),
            world_inverse: update.world_inverse,
            ahead,
            weight: params.weight,
            guard: guarded(job.stage, m.ci).then(|| {
                (
                    (params.key_margin * 0.5).sin(),
                    chain::smoothstep(job.stage.state.clocks[m.ci].guard),
                )
            }),
        };
        lane_of[count] = Some((m.job, setup));
        count += 1;
    }
    if count < writeback::LANES_FROM {
        // One or two chains: the same writeback one lane wide (a lane
        // step's fixed cost is more than their writeback).
        for (chain, lane) in chains.iter().zip(&lane_of).take(count) {
            writeback::write_one(
                chain,
                &mut LaneJoints {
                    jobs,
                    lanes: core::slice::from_ref(lane),
                },
            );
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
        compose_below(&job.rig, (job.local, job.component), m.ci);
    }
}

/// The chain frames below chain `ci`'s joints (another chain hangs from a
/// bone there), composed down from the matrices its writeback wrote.
pub(super) fn compose_below(
    rig: &ChainRig<'_>,
    (local, component): (&[Transform], &mut [Frame]),
    ci: usize,
) {
    for &slot in &rig.plan.chain_frames_below[ci] {
        for w in rig.plan.chain_frame_paths[slot as usize].windows(2) {
            let (parent, bone) = (w[0] as usize, w[1] as usize);
            component[bone] = Frame::store(&(component[parent].load() * local[bone].to_affine()));
        }
    }
}

/// The block's chains in the writeback: lane `l` is chain `lanes[l]`
/// (its job and its setup).
pub(super) struct LaneJoints<'j, 'a> {
    pub(super) jobs: &'j mut [Option<Job<'a>>],
    pub(super) lanes: &'j [Option<(usize, &'a ChainSetup)>],
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
            weight: setup.weights[k],
        }
    }

    #[inline(always)]
    fn reference(&self, l: usize, k: usize) -> Quat {
        let (j, setup) = self.lanes[l].expect("a lane's chain");
        let job = self.jobs[j].as_ref().expect("a lane's job");
        job.rig.reference[setup.joints[k] as usize].rotation()
    }

    #[inline(always)]
    fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A) {
        let (j, setup) = self.lanes[l].expect("a lane's chain");
        let job = self.jobs[j].as_mut().expect("a lane's job");
        let b = setup.joints[k] as usize;
        job.local[b].rotation = rotation;
        job.component[b] = Frame::store(&component);
    }
}

/// Whether chain `ci`'s output goes through the skin guard
/// ([`ChainParams::key_margin`]): it rests on the input's pose
/// ([`ChainParams::rest_source`]; never under the VRM integrator) and its
/// margin is below a half turn. Every joint of such a chain is guarded,
/// those the input leaves at their reference pose too: they stay there, as
/// the clip keeps them.
pub(super) fn guarded(stage: &Stage, ci: usize) -> bool {
    stage.state.clocks[ci].guard > 0.0 && stage.params[ci].key_margin < core::f32::consts::PI
}

/// One chain's kept arrays (slices of [`ChainState`]'s).
pub(super) struct Kept<'a> {
    pub(super) position: &'a mut [Vec3],
    pub(super) velocity: &'a mut [Vec3],
    pub(super) bend: &'a mut [Quat],
    pub(super) previous: &'a mut [Vec3],
}

impl Kept<'_> {
    /// The same arrays for a shorter borrow.
    pub(super) fn reborrow(&mut self) -> Kept<'_> {
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
pub(super) fn split(
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
/// keeps is inside the state range. With `particles_checked` (the lanes
/// found its particles in range after its last substep,
/// [`lanes::Resident::in_range`], so no speed needs a clamp) only its
/// clock is checked.
pub(super) fn in_range(
    (range, space): (&StateRange, bool),
    clock: &mut ChainClock,
    kept: &mut Kept<'_>,
    particles_checked: bool,
) -> bool {
    rebase_clock(clock);
    // One pass, no early exit: the checks nearly always pass.
    let mut ok = range.clock_of(clock, space);
    if particles_checked {
        return ok;
    }
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
pub(super) fn in_range_or_park(
    range: (&StateRange, bool),
    clock: &mut ChainClock,
    mut kept: Kept<'_>,
) -> bool {
    let ok = in_range(range, clock, &mut kept, false);
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
/// leaves the joints after the root to the writeback, [`ChainPlan::fk_before_chains`]);
/// the same products FK forms.
pub(crate) fn animated_tips(
    (local, component): (&[Transform], &[Frame]),
    world: &Affine3A,
    setup: &ChainSetup,
    out: &mut [Vec3],
) {
    let n = setup.len();
    let mut joint = component[setup.joints[0] as usize].load();
    for k in 0..n {
        out[k] = if k + 1 < n {
            joint *= local[setup.joints[k + 1] as usize].to_affine();
            world.transform_point3(joint.translation.into())
        } else {
            world.transform_point3(joint.transform_point3(setup.end_offset))
        };
    }
}
