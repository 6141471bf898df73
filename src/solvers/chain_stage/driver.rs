//! One update of the chain stage: the blocks of chains stepped together
//! ([`step_jobs`]), each character's setup and teardown, and each chain's
//! bookkeeping before its substeps.

use super::*;

/// What every chain of one update reads.
pub(super) struct Update {
    pub(super) range: StateRange,
    /// Uniform scale of the character, and rig units per metre at it.
    pub(super) scale: f32,
    pub(super) units: f32,
    /// The character's world relative to the simulation origin, and back.
    pub(super) world: Affine3A,
    pub(super) world_inverse: Affine3A,
    pub(super) up: Vec3,
    /// Height of the simulation origin along `up` ([`SubstepFrame::floor_shift`]).
    pub(super) floor_shift: f32,
    pub(super) wind: Vec3,
    pub(super) dt: f32,
    pub(super) teleport: bool,
}

/// A chain's input frames this update.
#[derive(Clone, Copy)]
pub(super) struct Now {
    pub(super) anchor: Quat,
    pub(super) parent: Transform,
    pub(super) root: Vec3,
    pub(super) root_local: [f32; 3],
    pub(super) space: Transform,
}

/// One chain after its per-update bookkeeping: what its substeps and its
/// writeback read.
#[derive(Clone, Copy)]
pub(super) struct Prepared {
    pub(super) now: Now,
    /// Teleported this update: nothing is interpolated across the jump, so
    /// its colliders stand at their current frames ([`CURRENT`]).
    pub(super) jumped: bool,
    /// Whether substeps run this update (false: a half-rate LOD hold).
    pub(super) run: bool,
    pub(super) h: f64,
    pub(super) decay: chain::StepDecay,
    pub(super) t0: f64,
    pub(super) t1: f64,
    pub(super) previous_anchor: Quat,
    pub(super) previous_parent: Transform,
    pub(super) previous_root_local: Vec3,
    pub(super) gravity_direction: Vec3,
    pub(super) acceleration: Vec3,
    pub(super) substeps: u32,
    /// Static friction of the next substep ([`chain::settle_friction`]).
    pub(super) friction: f32,
    /// Settle-phase repeats left this update.
    pub(super) extra_budget: u32,
    /// A chain in a simulation space: how the space moved since the
    /// previous update ([`Carry`]).
    pub(super) carry: Option<Carry>,
    /// The rest turns during this update, toward the input's pose or the
    /// rest arc ([`rest_at`]).
    pub(super) rest_moves: bool,
    /// The fraction of the update at the last substep that turned it.
    pub(super) rest_fraction: f32,
    /// The chain rests on the input's pose this update
    /// ([`ChainParams::rest_source`]).
    pub(super) animated: bool,
    /// How far its rest lies from the rest arc toward the input's pose
    /// this update (the [`chain::smoothstep`] of `ChainClock::on_pose`).
    pub(super) share: f32,
    /// The forward plane's rest direction ([`SubstepFrame::plane_rest`]).
    pub(super) plane_rest: Vec3,
    /// The input animates the chain (on the first such update, while its
    /// rest turns from the arc), or its rest is on the way back to the rest
    /// arc: the links turn with their rest and ride the chain frame's
    /// motion ([`rest_at`]). (On the rest arc the springs carry the
    /// chain.)
    pub(super) carries: bool,
    /// The chain's frame (anchor rotation, root) at the last substep that
    /// carried it ([`rest_at`]).
    pub(super) frame_at: (Quat, Vec3),
    /// Its particles were found in the state range in lanes after its
    /// last substep ([`lanes::Resident::in_range`]): the range check
    /// after the substeps ([`finish`]) tests its clock only.
    pub(super) particles_in_range: bool,
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
pub(super) struct Carry {
    pub(super) delta: Affine3A,
    pub(super) carried: f32,
    /// The space's frames at the previous update and now.
    pub(super) from: Transform,
    pub(super) to: Transform,
}

/// One character's part of a chain-stage run ([`step_jobs`]).
pub(crate) struct Job<'a> {
    pub(crate) rig: ChainRig<'a>,
    pub(crate) stage: &'a mut Stage,
    pub(crate) local: &'a mut [Transform],
    pub(crate) component: &'a mut [Frame],
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
/// ([`ChainPlan::block_end`]), and blocks of different characters together while they
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
                job.rig.plan.block_end(&job.stage.params, first)
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
pub(super) struct Member {
    pub(super) job: usize,
    pub(super) ci: usize,
}

/// Chains stepped together: up to [`lanes::W`], each character's in chain
/// order, all with one kernel and one integrator.
#[derive(Default)]
pub(super) struct Block {
    pub(super) members: [Member; lanes::W],
    pub(super) count: usize,
    pub(super) key: Option<(ChainKernel, u32)>,
}

/// A character's per-update setup of the chain stage: the simulation
/// origin, the colliders and chain frames placed, what every chain reads.
pub(super) fn begin(job: &mut Job<'_>) -> Update {
    let (rig, stage, component) = (&job.rig, &mut *job.stage, &*job.component);
    let state_range = StateRange::new(rig.units_per_meter);
    // Everything the stage keeps is relative to the simulation origin: its
    // "world" is the character's world moved by −origin.
    let scale = stage.inputs.world.scale().abs().element_sum() / 3.0;
    // Rig units per metre at this scale (the rest test's floor).
    let units = rig.units_per_meter * scale;
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
        let m = world * component[c.bone as usize].load();
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
        .zip(&rig.plan.chain_frames)
        .zip(&rig.plan.chain_frame_moves)
    {
        if !moves {
            *now = frame_of(component, &world, bone);
        }
    }
    for r in &mut stage.records {
        r.clear();
    }
    stage.joint_substeps = 0;
    let up = rig.up;
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
pub(super) fn end(stage: &mut Stage, update: &Update) {
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
pub(super) fn job_of<'j, 'a>(
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
pub(super) fn run_block(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    block: &Block,
) {
    let members = &block.members[..block.count];
    let kernel = block.key.map_or(ChainKernel::Scalar, |k| k.0);
    let mut prepared = [None; lanes::W];
    for (slot, m) in prepared.iter_mut().zip(members) {
        let (job, update) = job_of(jobs, updates, *m);
        prepare(
            &job.rig,
            job.stage,
            update,
            (job.local, job.component),
            m.ci,
            slot,
        );
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
                &job.rig,
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
pub(super) fn frame_of(component: &[Frame], world: &Affine3A, bone: i32) -> Transform {
    let m = if bone >= 0 {
        *world * component[bone as usize].load()
    } else {
        *world
    };
    math::decompose(&m, Vec3::ONE).transform
}

/// A chain's per-update bookkeeping before its substeps: seeding, LOD,
/// teleport, the settle clock, the simulation space, written into `out`
/// (the block's slot: returned, the 512 bytes were built apart and copied
/// in). `None`: the chain is done for this update and keeps its animated
/// pose.
pub(super) fn prepare(
    rig: &ChainRig<'_>,
    stage: &mut Stage,
    update: &Update,
    (local, component): (&[Transform], &[Frame]),
    ci: usize,
    out: &mut Option<Prepared>,
) {
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
    if rig.plan.reads_moving_collider[ci] {
        for &c in &setup.colliders {
            let slot = rig.plan.collider_slots[c as usize];
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
        if rig.plan.chain_frame_moves[slot] {
            stage.frames.now[slot] = frame_of(component, &world, rig.plan.chain_frames[slot]);
        }
        stage.frames.now[slot]
    };
    let now = Now {
        anchor: frame_now(setup.anchor_slot).rotation(),
        parent: frame_now(setup.parent_slot),
        root: Vec3::from((world * component[setup.joints[0] as usize].load()).translation),
        root_local: local[setup.joints[0] as usize].translation,
        space: if params.simulation_space >= 0 {
            let m = world * component[params.simulation_space as usize].load();
            math::decompose(&m, Vec3::ONE).transform
        } else {
            Transform::IDENTITY
        },
    };
    // This update's rest: the input's pose where it animates the chain
    // (ChainParams::rest_source), the rest arc elsewhere.
    let input_animates = if stage.inputs.reseed {
        // Released from a hold (`Character::reseed_chains`): a chain its
        // input animates kept its input and is seeded on it (its clock
        // says so); the others were turned to the held pose and restart
        // on it, on their rest arc.
        (stage.state.clocks[ci].animated_left > 0).then_some(true)
    } else {
        animates(rig.reference, params, local, setup)
    };
    let (clock, mut kept, previous_colliders) = split(&mut stage.state, ci, range.clone());
    let first = clock.started == 0;
    // Whether the last update rested on the input's pose.
    let was_animated = !first && clock.animated_left > 0;
    if first {
        *clock = ChainClock::default();
    } else {
        clock.time += dt as f64;
        // (Nothing left, nothing to count down: most chains, every VRM
        // chain, skip the rounding.)
        if clock.animated_left > 0 {
            clock.animated_left = clock.animated_left.saturating_sub(chain::hold_ticks(dt));
        }
    }
    // ChainClock::animated_left: a clip that passes through the reference
    // pose keeps the chain on its pose.
    let animated = match input_animates {
        Some(true) => {
            clock.animated_left = u16::MAX;
            true
        }
        Some(false) => clock.animated_left > 0,
        None => false,
    };
    // ChainClock::on_pose: the rest turns from the rest arc onto the
    // input's pose while the input animates the chain, its joint farthest
    // from the keys at ONTO_POSE_SPEED (at once, the bend limit brought
    // the links onto the keys in one update: up to 90° where the arc lay
    // far from them), and back to the arc over RETURN_TO_ARC, or at the
    // same pace where that is slower, after it (at once, the springs swung
    // the chain back in about 0.15 s, up to 58° per update at 60 Hz, and
    // 30 Hz and 120 Hz input parted by up to 130°).
    let toward = if animated { 1.0 } else { 0.0 };
    let was_on_pose = clock.on_pose;
    let mut target = RestTarget {
        share: 0.0,
        pose: (local, component),
        world: &world,
        anchor: now.anchor,
    };
    // A chain that follows its animation below the LOD skip threshold, or
    // is seeded on its input's pose after a jump (below), is on the pose
    // at once.
    let previous_anchor = Quat::from_array(clock.previous_anchor);
    let previous_root = Vec3::from_array(clock.previous_root);
    let jumped = update.teleport
        || (now.root - previous_root).length() > params.teleport_distance * scale
        || previous_anchor.angle_between(now.anchor) > params.teleport_angle;
    let lod_skip = stage.inputs.importance < params.lod_skip_below;
    // The rest's turn between the arc and the pose, walked once per update
    // (the level and the guard's fade may both need it).
    let mut turn = None;
    let mut farthest_turn =
        |target: &RestTarget<'_>| *turn.get_or_insert_with(|| target.farthest_turn(setup, params));
    clock.on_pose = if first || (animated && (jumped || lod_skip)) || clock.on_pose == toward {
        toward
    } else if animated {
        chain::on_pose_onto(clock.on_pose, farthest_turn(&target), dt)
    } else {
        chain::on_pose_back(clock.on_pose, farthest_turn(&target), dt)
    };
    let share = chain::smoothstep(clock.on_pose);
    target.share = share;
    // The skin guard comes on once the rest is on the input's pose, and
    // goes off as it leaves it, over GUARD_FADE (none shown before the
    // first update: it starts where it is headed). On the way from the
    // arc it would hold each joint in its keys' box while the rest still
    // turns toward them (turned on with the rest, it pulled the links
    // onto the keys at 275°/s where the rest turned at 172°/s).
    let guard_toward = if animated && clock.on_pose >= 1.0 {
        1.0
    } else {
        0.0
    };
    clock.guard = if first {
        toward
    } else if guard_toward > clock.guard {
        // Coming on as slowly as the rest turned onto the pose: the links
        // lag their keys by as much (over GUARD_FADE after a turn of 65°,
        // the guard stepped a horse's tail 9° in an update at 30 Hz).
        chain::guard_onto(clock.guard, farthest_turn(&target), dt)
    } else {
        chain::guard_toward(clock.guard, guard_toward, dt)
    };
    let rest = &mut stage.rest[range.clone()];
    if first {
        target.write(setup, params, rest);
        // First update: particles start on the animated pose, nothing moves.
        clock.started = 1;
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
        *out = None;
        return;
    }
    clock.lod_counter = clock.lod_counter.wrapping_add(1);

    // LOD: below the skip threshold the chain follows the animation,
    // so it resumes from there with no pop.
    if lod_skip {
        // Follow the animation, carrying its velocity, so that the
        // chain resumes in step with the body instead of from rest. A
        // chain on its input's pose keeps none of its own: from the update
        // it resumes on, it rides its pose's motion (`Prepared::carries`),
        // and with the pose's velocity as well it moved twice, up to half
        // its length off its keys for a second and a half.
        let keeps_velocity = !animated;
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
            *v = if keeps_velocity && dt >= MIN_VELOCITY_DT {
                (*tip - *p) / dt
            } else {
                Vec3::ZERO
            };
            *p = *tip;
        }
        kept.previous.copy_from_slice(kept.position);
        kept.bend.fill(Quat::IDENTITY);
        target.write(setup, params, rest);
        remember(clock, &now);
        clock.previous_space = now.space;
        clock.simulated = clock.time;
        clock.last_update = clock.time;
        clock.still_since = clock.time;
        clock.sleeping = 0;
        chain::restart_window(clock);
        in_range_or_park((&update.range, params.simulation_space >= 0), clock, kept);
        *out = None;
        return;
    }

    // Teleport: an explicit flag, or the root jumping or turning past
    // the thresholds. Carry (ChainParams::teleport_restart 0): particles
    // move rigidly with the root, keeping their offsets. Restart (1): they
    // start again on the animated pose, at rest, as three-vrm's reset().
    // Either way nothing is interpolated across the jump.
    stage.auto_jumped |= jumped && !update.teleport;
    if jumped {
        // Nothing is interpolated across a jump, the rest neither.
        target.write(setup, params, rest);
    }
    // A chain on its input's pose restarts whatever teleport_restart
    // says: the pose is its equilibrium, and the shape it had belongs to
    // the keys before the jump (carried, a cut to another clip kept the
    // last clip's tail for a second or two).
    if jumped && (params.teleport_restart == ChainParams::TELEPORT_RESTART || animated) {
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
        let h = stage.inputs.step(params);
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
        // it carries nothing more this update (carrying them again would
        // move them twice, 1.4 chain lengths off three-vrm's reset).
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
    // On the rest arc at both ends of the update the rest stays as it is.
    let rest_moves =
        (clock.on_pose > 0.0 || was_on_pose > 0.0) && target.moves(setup, params, rest);
    let input_changed = rest_moves
        || now.anchor.to_array() != clock.previous_anchor
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
    let h = stage.inputs.step(params);
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
    // Around the animation its pose is the chain's equilibrium: gravity
    // would only sag the chain below the pose the animation keys (on the
    // way between the rest arc and the pose, the share still on the arc).
    let gravity = params.gravity * (1.0 - share);
    *out = Some(Prepared {
        now,
        jumped,
        run: !hold,
        h,
        // The VRM kernel reads none of the decays (they are the tail and
        // hair kernel's), so a VRM chain's update computes no exponential
        // for them.
        decay: if params.integrator == ChainParams::VRM {
            chain::StepDecay {
                velocity: 1.0,
                floor: 1.0,
                bend_alpha: 0.0,
            }
        } else {
            chain::StepDecay::new(params, h as f32, n)
        },
        t0,
        t1,
        previous_anchor: Quat::from_array(clock.previous_anchor),
        previous_parent: clock.previous_parent,
        previous_root_local: Vec3::from_array(clock.previous_root_local),
        gravity_direction,
        acceleration: gravity_direction * gravity * scale + stage.inputs.wind * params.wind_factor,
        substeps: 0,
        friction: 0.0,
        // Settle-phase repeats count against the same budget: one
        // update never runs more than 2 × MAX_CHAIN_SUBSTEPS substeps,
        // however long the pause before it (the extra ones only make
        // a chain settle sooner, so they are the ones dropped).
        extra_budget: MAX_CHAIN_SUBSTEPS,
        carry,
        rest_moves,
        rest_fraction: 0.0,
        animated,
        share,
        plane_rest: if params.forward_plane != 0 && !setup.is_empty() {
            chain::rest_direction(setup, params, 0)
        } else {
            Vec3::ZERO
        },
        // From the update on which the input starts animating the chain
        // where its rest turns from the arc gradually: left to the springs
        // on that update, the links lagged the body's motion, 23-33° at
        // the root of a stag's or a shiba's tail on a cut into a walk. (A
        // rest that lands on the pose within the update would carry them
        // by its whole turn.) On the way back to the arc as well: left to
        // the springs, the links caught up with the turning rest on the
        // bend limit, a horse's tail 18° in one update at 60 Hz.
        carries: (animated && (was_animated || clock.on_pose < 1.0))
            || (!animated && was_on_pose > 0.0),
        frame_at: (
            Quat::from_array(clock.previous_anchor),
            Vec3::from_array(clock.previous_root),
        ),
        particles_in_range: false,
    });
}

/// Whether the input pose `local` animates chain `setup`
/// ([`ChainParams::rest_source`]: a joint turned from its `reference` pose,
/// or always for `REST_ANIMATED`); `None` where the chain always rests on
/// its rest arc (`REST_BIND`, the VRM integrator).
pub(crate) fn animates(
    reference: &[Transform],
    params: &ChainParams,
    local: &[Transform],
    setup: &ChainSetup,
) -> Option<bool> {
    if params.integrator == ChainParams::VRM || params.rest_source == ChainParams::REST_BIND {
        return None;
    }
    if params.rest_source == ChainParams::REST_ANIMATED {
        return Some(true);
    }
    Some(setup.joints.iter().any(|&j| {
        chain::turned_from_reference(
            reference[j as usize].rotation(),
            local[j as usize].rotation(),
        )
    }))
}

/// Where a chain's rest is headed this update: each link's direction in
/// the input's pose, in the anchor frame (`anchor`: its world rotation
/// now), the rest arc, or between them (`share`: 0 on the rest arc, 1 on
/// the input's pose; [`Prepared::share`]).
pub(super) struct RestTarget<'a> {
    pub(super) share: f32,
    pub(super) pose: (&'a [Transform], &'a [Frame]),
    pub(super) world: &'a Affine3A,
    pub(super) anchor: Quat,
}

impl RestTarget<'_> {
    /// Calls `each(k, direction)` for every link, root first.
    #[inline]
    fn each(&self, setup: &ChainSetup, params: &ChainParams, mut each: impl FnMut(usize, Vec3)) {
        let n = setup.len();
        if self.share <= 0.0 {
            for k in 0..n {
                each(k, chain::rest_direction(setup, params, k));
            }
            return;
        }
        let (local, component) = self.pose;
        let to_anchor = self.anchor.conjugate();
        if self.share < 1.0 {
            self.between(setup, params, each);
            return;
        }
        // The same products as `animated_tips`.
        let mut joint = component[setup.joints[0] as usize].load();
        let mut head = self.world.transform_point3(joint.translation.into());
        for k in 0..n {
            let tip = if k + 1 < n {
                joint *= local[setup.joints[k + 1] as usize].to_affine();
                self.world.transform_point3(joint.translation.into())
            } else {
                self.world
                    .transform_point3(joint.transform_point3(setup.end_offset))
            };
            each(
                k,
                (to_anchor * (tip - head)).normalize_or(setup.authored[k]),
            );
            head = tip;
        }
    }

    /// On the way between the rest arc and the input's pose: each joint's
    /// local rotation `share` of the way from the one that lays its link
    /// on the rest arc (below the rest arc's joints) to the input's, as a
    /// crossfade between the two poses blends them, and the links of that
    /// pose. Blending the links' directions instead swept a link through
    /// the far side of its joint where the arc lies far from the keys.
    /// Returns the largest turn, radians, between a joint's local rotation
    /// on the rest arc and the input's ([`RestTarget::farthest_turn`]).
    fn between(
        &self,
        setup: &ChainSetup,
        params: &ChainParams,
        mut each: impl FnMut(usize, Vec3),
    ) -> f32 {
        let n = setup.len();
        let mut nearest = 1f32;
        let (local, component) = self.pose;
        let to_anchor = self.anchor.conjugate();
        let j0 = setup.joints[0] as usize;
        // The root's parent in the world.
        let parent = *self.world * component[j0].load() * local[j0].to_affine().inverse();
        let (mut arc_frame, mut frame) = (parent, parent);
        for k in 0..n {
            let joint = local[setup.joints[k] as usize];
            let child = if k + 1 < n {
                local[setup.joints[k + 1] as usize].translation()
            } else {
                setup.end_offset
            };
            let rotation = joint.rotation().normalize();
            let scale = joint.scale();
            // The local rotation that lays link k along the rest arc under
            // the arc's joint k − 1: the input's, swung.
            let arc = self.anchor * chain::rest_direction(setup, params, k);
            let from = (rotation * (scale * child)).normalize_or(Vec3::Y);
            let to = (arc_frame.matrix3.inverse() * glam::Vec3A::from(arc))
                .normalize_or(glam::Vec3A::from(from));
            nearest = nearest.min(from.dot(Vec3::from(to)));
            let on_arc = (math::rotation_arc(from, Vec3::from(to)) * rotation).normalize();
            let blended = on_arc.slerp(rotation, self.share).normalize();
            let place = |frame: &Affine3A, r: Quat| {
                *frame * Affine3A::from_scale_rotation_translation(scale, r, joint.translation())
            };
            arc_frame = place(&arc_frame, on_arc);
            frame = place(&frame, blended);
            let link = Vec3::from(frame.matrix3 * glam::Vec3A::from(child));
            let on_pose = (to_anchor * link).normalize_or(setup.authored[k]);
            each(k, on_pose);
        }
        nearest.clamp(-1.0, 1.0).acos()
    }

    /// How far the rest has to turn from the arc onto the input's pose:
    /// the largest turn, radians, between a joint's local rotation on the
    /// rest arc (as [`RestTarget::between`] lays it) and the input's.
    pub(super) fn farthest_turn(&self, setup: &ChainSetup, params: &ChainParams) -> f32 {
        self.between(setup, params, |_, _| {})
    }

    /// The rest set on the target at once.
    fn write(&self, setup: &ChainSetup, params: &ChainParams, rest: &mut [Vec3]) {
        self.each(setup, params, |k, d| rest[k] = d);
    }

    /// Whether `rest` is anywhere other than on the target (bit for bit).
    fn moves(&self, setup: &ChainSetup, params: &ChainParams, rest: &[Vec3]) -> bool {
        let mut moves = false;
        self.each(setup, params, |k, d| {
            moves |= d.to_array().map(f32::to_bits) != rest[k].to_array().map(f32::to_bits);
        });
        moves
    }
}

/// Chain `ci`'s rest at the substep `f` of the way through the update
/// (`p.rest_fraction` at the last): turned from where it is toward the
/// target ([`RestTarget`]) by the part of the update's remaining way this
/// substep covers, as a collider's frame turns between inputs. Around the
/// animation on this update and the last (`p.carries`) the links turn with
/// their rest, velocities too (`anchor`, `root`: the chain's frame at this
/// substep): the animation's own motion is carried, as a simulation space
/// carries its bone's. They also ride the chain frame's motion since the
/// last substep (`p.frame_at`) but for `animation_inertia`, graded along
/// the chain, which the springs act on around it.
pub(super) fn rest_at(
    (rig, stage, update): (&ChainRig<'_>, &mut Stage, &Update),
    pose: (&[Transform], &[Frame]),
    ci: usize,
    p: &mut Prepared,
    (f, anchor, root): (f32, Quat, Vec3),
    to_end: bool,
) {
    let setup = &rig.chains[ci];
    let range = setup.particles();
    let Stage {
        state,
        rest,
        params,
        ..
    } = stage;
    let g = if p.rest_fraction < 1.0 {
        ((f - p.rest_fraction) / (1.0 - p.rest_fraction)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    p.rest_fraction = f;
    let target = RestTarget {
        share: p.share,
        pose,
        world: &update.world,
        anchor: p.now.anchor,
    };
    let rest = &mut rest[range.clone()];
    let position = &mut state.position[range.clone()];
    let previous = &mut state.previous[range.clone()];
    let velocity = &mut state.velocity[range];
    let mut head = root;
    let mut moved_head = root;
    let carries = p.carries;
    // The share of the chain's frame motion since the last substep the
    // links ride with (ChainParams::animation_inertia: the rest acts on
    // the springs).
    let (last_anchor, last_root) = p.frame_at;
    p.frame_at = (anchor, root);
    let inertia = params[ci].animation_inertia;
    if carries
        && inertia < 1.0
        && (last_anchor.to_array() != anchor.to_array() || last_root.to_array() != root.to_array())
    {
        let turn = anchor * last_anchor.conjugate();
        let n = setup.len() as f32;
        for k in 0..setup.len() {
            // Graded along the chain: link k keeps `inertia · s³` of the
            // body's motion, s = (k + 1) / n, so the root rides the body
            // and only the tip keeps all of `animation_inertia`.
            let along = (k + 1) as f32 / n;
            let follow = 1.0 - inertia * along * along * along;
            let q = position[k];
            position[k] = q.lerp(root + turn * (q - last_root), follow);
            velocity[k] = velocity[k].lerp(turn * velocity[k], follow);
            if to_end {
                let q = previous[k];
                previous[k] = q.lerp(root + turn * (q - last_root), follow);
            }
        }
    }
    if !p.rest_moves {
        return;
    }
    target.each(setup, &params[ci], |k, to| {
        let from = rest[k];
        // The whole way lands on the target exactly (a resting input then
        // leaves the rest still, and the chain can settle).
        let new = if g >= 1.0 {
            to
        } else {
            (Quat::IDENTITY.slerp(math::rotation_arc(from, to), g) * from).normalize_or(to)
        };
        rest[k] = new;
        if carries {
            let step = anchor * math::rotation_arc(from, new) * anchor.conjugate();
            let p = position[k];
            position[k] = moved_head + step * (p - head);
            velocity[k] = step * velocity[k];
            if to_end {
                previous[k] = moved_head + step * (previous[k] - head);
            }
            head = p;
            moved_head = position[k];
        }
    });
}

/// `frame` moved by `carried` of the space's motion `delta` (a frame the
/// previous update left, seen from the space's current frame).
pub(super) fn carried_frame(frame: &Transform, (delta, carried): (&Affine3A, f32)) -> Transform {
    let moved = math::decompose(&(*delta * frame.to_affine()), frame.scale()).transform;
    Transform::new(
        frame.translation().lerp(moved.translation(), carried),
        frame.rotation().slerp(moved.rotation(), carried),
        frame.scale(),
    )
}

/// Stores this update's frames as the next update's previous ones.
pub(super) fn remember(clock: &mut ChainClock, now: &Now) {
    clock.previous_anchor = now.anchor.to_array();
    clock.previous_root = now.root.to_array();
    clock.previous_parent = now.parent;
    clock.previous_root_local = now.root_local;
}

/// Places a chain's particles on its animated pose, at rest.
pub(super) fn seed(
    clock: &mut ChainClock,
    kept: Kept<'_>,
    pose: (&[Transform], &[Frame]),
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
