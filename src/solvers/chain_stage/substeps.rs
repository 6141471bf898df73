//! A chain's substeps: its frames interpolated to each substep, the lane
//! kernel over a block, and the joint frames recorded for chains hanging
//! from another.

use super::*;

/// One substep's interpolated frame of a chain: the anchor, the root, the
/// root's parent (the colliders it reads are placed in `Stage::placed`).
#[derive(Clone, Copy)]
pub(super) struct Interpolated {
    pub(super) anchor: Quat,
    pub(super) root: Vec3,
    pub(super) parent: Quat,
    /// In a simulation space, what turns the world's fixed directions
    /// into the space's current frame at this substep ([`Carry`]).
    pub(super) world: Option<Quat>,
    /// In a simulation space, the part of its motion still ahead at this
    /// substep and the part of that which carries the chain: what takes a
    /// world frame of the substep into the chain's frame ([`Stage::records`]
    /// are world frames).
    pub(super) ahead: Option<(Affine3A, f32)>,
}

/// Interpolates chain `ci`'s frames to fraction `f` of this update, and
/// places its colliders there, each shared with every chain that reads
/// the same frame at the same fraction (FrameScratch). Written into `out`
/// (returned, out of line, it was copied into its caller's array through
/// `memcpy`).
pub(super) fn interpolate(
    rig: &ChainRig<'_>,
    stage: &mut Stage,
    update: &Update,
    ci: usize,
    p: &Prepared,
    (end, f): (f64, f32),
    out: &mut Interpolated,
) {
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
            let (m, recorded) = collider_frame(
                &stage.records,
                rig.plan.collider_slots[c],
                frames,
                (end, fc),
            );
            let m = if recorded { in_space(m) } else { m };
            stage.placed[c] = rig.colliders[c].place(&m.to_affine(), scale);
        }
    } else if rig.plan.reads_moving_collider[ci] {
        for &c in &setup.colliders {
            let (c, slot) = (c as usize, rig.plan.collider_slots[c as usize]);
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
    // The anchor frame holds the rest arc, which the VRM kernel does not
    // have (its rest is each joint's initial local rotation): a VRM chain
    // whose rest stays put (`rest_at` reads the anchor) neither reads nor
    // interpolates it.
    let anchor = if stage.params[ci].integrator == ChainParams::VRM && !p.rest_moves && !p.carries {
        Quat::IDENTITY
    } else {
        let (previous_anchor, anchor_now) = (p.previous_anchor, p.now.anchor);
        let key = key_of(&[&previous_anchor.to_array(), &anchor_now.to_array(), &fk]);
        stage.frames.anchors[setup.anchor_slot as usize]
            .get(key, || previous_anchor.slerp(anchor_now, f))
    };
    *out = Interpolated {
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
    };
}

/// The colliders' fraction of an update for a chain that teleported: their
/// current frames, exactly (no fraction of an update is 2).
pub(super) const CURRENT: f32 = 2.0;

/// A frame at fraction `f` from `a` to `b` ([`CURRENT`]: `b`).
#[inline(always)]
pub(super) fn between((a, b): (&Transform, &Transform), f: f32) -> Transform {
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
pub(super) fn riding(
    rig: &ChainRig<'_>,
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
pub(super) fn collider_frame(
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
pub(super) fn recorded_at(
    records: &[Vec<JointRecord>],
    slot: u32,
    end: f64,
) -> Option<JointRecord> {
    records
        .get(slot as usize)
        .and_then(|r| r.iter().find(|r| r.end.to_bits() == end.to_bits()))
        .copied()
}

/// The kernel's view of one chain's substep. Inlined so that the lane step
/// builds each lane's frame in place (returned, it was copied through
/// `memcpy`: 5 instructions per joint-substep).
#[inline(always)]
pub(super) fn substep_frame<'a>(
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
        forward_plane: params.forward_plane != 0 && !p.animated,
        yields_to_keys: p.animated,
        plane_rest: p.plane_rest,
    }
}

/// `count` substeps of chain `ci` through the scalar kernel.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_chain(
    rig: &ChainRig<'_>,
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
        lanes::substep_chain(
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

/// The substeps of a block (`prepared[l]` is `members[l]`'s). A block
/// whose chains are on one clock for the whole update decides each
/// substep once for all of them ([`block_schedule`], [`run_lockstep`]).
/// Otherwise the awake chains that take a substep at the same time run it
/// through the lane kernel; chains out of step with them, the settle
/// phase's extra repeats and the scalar kernel run chain by chain. The
/// chains are independent, so the order changes nothing.
pub(super) fn run_substeps(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    prepared: &mut [Option<Prepared>],
) {
    // A VRM block whose chains all step together keeps its links and
    // particles in lanes across those substeps (`lanes::Resident`):
    // gathered before the first, scattered after the last, the kernel the
    // same.
    RESIDENT.with_borrow_mut(|resident| {
        run_substeps_with(jobs, updates, members, kernel, prepared, resident);
    });
}

thread_local! {
    /// The lanes a VRM block's particles stay in across its substeps, one
    /// per thread (12 KiB; zeroed once, never allocated).
    static RESIDENT: core::cell::RefCell<lanes::Resident> =
        const { core::cell::RefCell::new(lanes::Resident::new()) };
}

/// [`run_substeps`] with the thread's [`lanes::Resident`].
fn run_substeps_with(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    prepared: &mut [Option<Prepared>],
    resident: &mut lanes::Resident,
) {
    let len = prepared.len();
    let (residable, lockstep) = block_schedule(jobs, members, kernel, prepared);
    if lockstep {
        // (A residable block's chains neither turn their rest nor record
        // their joints.)
        if residable {
            run_lockstep::<true>(jobs, updates, members, kernel, prepared, resident);
        } else {
            run_lockstep::<false>(jobs, updates, members, kernel, prepared, resident);
        }
        return;
    }
    let mut resident_active = false;
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
            stepping[l] = Some((end, fraction(end, p.t0, p.t1)));
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
        // Every chain of a residable block in the lanes, stepping once: the
        // particles stay in lanes (gathered on the first such substep);
        // otherwise they go back to their arrays first.
        let all_resident = residable && (0..len).all(|l| in_lanes[l] && repeats[l] == 1);
        if resident_active && !all_resident {
            scatter_resident(jobs, members, resident);
            resident_active = false;
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
                let Some(p) = prepared[l].as_mut() else {
                    continue;
                };
                let m = members[l];
                let (job, update) = job_of(jobs, updates, m);
                begin_chain_substep(
                    (job, update, m.ci, p),
                    (end, f, repeats[l]),
                    &mut at[l],
                    (!all_resident, true),
                );
                if !pass && repeats[l] > 0 {
                    run_chain(
                        &job.rig, job.stage, update, job.local, m.ci, p, &at[l], repeats[l],
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
            step_in_lanes(
                jobs,
                updates,
                members,
                kernel,
                (&lane_of[..count], prepared, &at),
                all_resident.then_some((&mut *resident, &mut resident_active)),
            );
            // The settle phase's extra repeats, chain by chain.
            for &l in &lane_of[..count] {
                if repeats[l] > 1 {
                    let p = prepared[l].as_ref().expect("a lane is prepared");
                    let m = members[l];
                    let (job, update) = job_of(jobs, updates, m);
                    run_chain(
                        &job.rig,
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
            if let Some(p) = prepared[l].as_ref() {
                record_if_hung(job, update, m.ci, p, (&at[l], end));
            }
        }
    }
    if resident_active {
        finish_resident(jobs, updates, members, prepared, resident);
    }
}

/// Two things about a block (two or more chains, on a lane kernel), found
/// in one pass over its chains:
///
/// - **residable**: its particles may stay in lanes (`lanes::Resident`):
///   every chain on the VRM integrator (per-joint parameters aside, 16
///   links at most), and nothing between the substeps reading their
///   arrays (no moving rest, no chain recording its joints). They do on
///   the substeps that every chain takes in the lanes, once.
/// - **in lockstep**: its chains take every substep of this update
///   together, each once: each awake and running, on the same clock (time
///   simulated, step, the update's span and substeps taken, to the bit),
///   all jumped or none, and none entering the settle phase before the
///   update's end (a VRM chain never does: `chain::settle_substeps`; the
///   settle engagement only grows with the time the input has rested).
///   Then no chain falls asleep during the update, every substep puts
///   every chain in the lanes, and [`run_lockstep`] runs what
///   [`run_substeps_with`] would, once per substep instead of chain by
///   chain.
fn block_schedule(
    jobs: &[Option<Job<'_>>],
    members: &[Member],
    kernel: ChainKernel,
    prepared: &[Option<Prepared>],
) -> (bool, bool) {
    if prepared.len() < 2 || kernel == ChainKernel::Scalar {
        return (false, false);
    }
    let (Some(first), Some(job)) = (prepared[0].as_ref(), jobs[members[0].job].as_ref()) else {
        return (false, false);
    };
    let simulated = job.stage.state.clocks[members[0].ci].simulated.to_bits();
    let (mut residable, mut lockstep) = (true, true);
    for (p, m) in prepared.iter().zip(members) {
        let (Some(p), Some(job)) = (p, jobs[m.job].as_ref()) else {
            return (false, false);
        };
        let clock = &job.stage.state.clocks[m.ci];
        let setup = &job.rig.chains[m.ci];
        let vrm = job.stage.params[m.ci].integrator == ChainParams::VRM;
        residable &= vrm
            && !p.rest_moves
            && !p.carries
            && job.rig.plan.chain_frames_on[m.ci].is_empty()
            && setup.len() <= lanes::RESIDENT_LINKS
            && setup.vrm_offsets.is_empty();
        lockstep &= p.run
            && clock.sleeping == 0
            && clock.simulated.to_bits() == simulated
            && p.h.to_bits() == first.h.to_bits()
            && p.t0.to_bits() == first.t0.to_bits()
            && p.t1.to_bits() == first.t1.to_bits()
            && p.substeps == first.substeps
            && p.jumped == first.jumped
            && (vrm || chain::settle_engagement(p.t1 + 1e-9 - clock.still_since) == 0.0);
    }
    (residable, lockstep)
}

/// [`run_substeps_with`] for a block in lockstep ([`block_schedule`]): the substeps' end
/// and fraction computed once; at each, every chain interpolated (its rest
/// turned where it moves), all stepped in lanes (on resident particles if
/// `RESIDENT`), each clock moved on and its joints recorded where a chain
/// hangs from them. The same operations in the same order per chain, so the
/// same bits. `RESIDENT`: the block is residable (its particles stay in
/// lanes; no chain of it turns its rest or records its joints).
fn run_lockstep<const RESIDENT: bool>(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    prepared: &mut [Option<Prepared>],
    resident: &mut lanes::Resident,
) {
    let len = prepared.len();
    let (h, t0, t1, mut substeps, mut simulated) = {
        let p = prepared[0].as_ref().expect("a lockstep chain is prepared");
        let m = members[0];
        let job = jobs[m.job].as_ref().expect("a member's job");
        (
            p.h,
            p.t0,
            p.t1,
            p.substeps,
            job.stage.state.clocks[m.ci].simulated,
        )
    };
    let lane_of: [usize; lanes::W] = core::array::from_fn(|l| l);
    let mut at = [Interpolated {
        anchor: Quat::IDENTITY,
        root: Vec3::ZERO,
        parent: Quat::IDENTITY,
        world: None,
        ahead: None,
    }; lanes::W];
    let mut gathered = false;
    while simulated + h <= t1 + 1e-9 && substeps < MAX_CHAIN_SUBSTEPS {
        substeps += 1;
        let end = simulated + h;
        let f = fraction(end, t0, t1);
        for (l, slot) in prepared.iter_mut().enumerate() {
            let p = slot.as_mut().expect("a lockstep chain is prepared");
            let m = members[l];
            let (job, update) = job_of(jobs, updates, m);
            p.substeps = substeps;
            p.friction = chain::settle_friction(end - job.stage.state.clocks[m.ci].still_since);
            begin_chain_substep(
                (job, update, m.ci, p),
                (end, f, 1),
                &mut at[l],
                (!RESIDENT, !RESIDENT),
            );
        }
        step_in_lanes(
            jobs,
            updates,
            members,
            kernel,
            (&lane_of[..len], prepared, &at),
            RESIDENT.then_some((&mut *resident, &mut gathered)),
        );
        for (l, m) in members.iter().enumerate() {
            let (job, update) = job_of(jobs, updates, *m);
            let clock = &mut job.stage.state.clocks[m.ci];
            chain::restart_window(clock);
            clock.simulated = end;
            if !RESIDENT {
                let p = prepared[l].as_ref().expect("a lockstep chain is prepared");
                record_if_hung(job, update, m.ci, p, (&at[l], end));
            }
        }
        simulated = end;
    }
    if gathered {
        finish_resident(jobs, updates, members, prepared, resident);
    }
}

/// The fraction of its update (`t0` to `t1`) at which a substep ending at
/// `end` stands.
fn fraction(end: f64, t0: f64, t1: f64) -> f32 {
    if t1 > t0 {
        ((end - t0) / (t1 - t0)).clamp(0.0, 1.0) as f32
    } else {
        1.0
    }
}

/// A chain's start of a substep ending at `end` (fraction `f`), stepped
/// `repeats` times: its joint-substeps counted, its frames interpolated
/// into `at`, its positions kept as `previous` (`copy_previous`: its
/// particles are in its arrays, not resident in lanes), and its rest
/// turned where it moves (`may_turn_rest`: false where the block's chains
/// are known not to).
#[inline(always)]
fn begin_chain_substep(
    (job, update, ci, p): (&mut Job<'_>, &Update, usize, &mut Prepared),
    (end, f, repeats): (f64, f32, u32),
    at: &mut Interpolated,
    (copy_previous, may_turn_rest): (bool, bool),
) {
    job.stage.joint_substeps += u64::from(repeats) * job.rig.chains[ci].len() as u64;
    interpolate(&job.rig, job.stage, update, ci, p, (end, f), at);
    if copy_previous {
        let range = job.rig.chains[ci].particles();
        let ChainState {
            position, previous, ..
        } = &mut job.stage.state;
        previous[range.clone()].copy_from_slice(&position[range]);
    }
    if may_turn_rest && (p.rest_moves || p.carries) {
        rest_at(
            (&job.rig, job.stage, update),
            (job.local, job.component),
            ci,
            p,
            (f, at.anchor, at.root),
            false,
        );
    }
}

/// One substep of the chains `lane_of` in the lanes; `resident`: the
/// block's particles stay in lanes, gathered on the first such substep
/// (the flag says whether they are).
#[inline(always)]
fn step_in_lanes(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    (lane_of, prepared, at): (&[usize], &[Option<Prepared>], &[Interpolated; lanes::W]),
    resident: Option<(&mut lanes::Resident, &mut bool)>,
) {
    let kept = resident.map(|(resident, gathered)| {
        if !*gathered {
            gather_resident(jobs, updates, members, kernel, resident);
            *gathered = true;
        }
        resident.begin_substep();
        resident
    });
    step_lanes(
        jobs,
        updates,
        members,
        kernel,
        (lane_of, prepared, at),
        kept,
    );
}

/// After a substep of chain `ci` ending at `end`, its joints' frames
/// recorded where another chain hangs from them ([`record_joints`]): at
/// all of the update's substeps or none, so a chain hanging there reads
/// the records at every substep or interpolates at every one, never
/// switching mid-update.
#[inline(always)]
fn record_if_hung(
    job: &mut Job<'_>,
    update: &Update,
    ci: usize,
    p: &Prepared,
    (at, end): (&Interpolated, f64),
) {
    if job.rig.plan.chain_frames_on[ci].is_empty() {
        return;
    }
    let left = ((p.t1 + 1e-9 - end) / p.h).floor().max(0.0) as usize;
    if p.substeps as usize + left <= RECORDED_SUBSTEPS {
        record_joints(&job.rig, job.stage, update, job.local, ci, (at, end));
    }
}

/// After a block's last resident substep: the lanes back into their
/// chains' arrays, and the range check of what that substep left, in
/// lanes (a chain found in range skips the per-particle check,
/// [`finish`]).
fn finish_resident(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    prepared: &mut [Option<Prepared>],
    resident: &lanes::Resident,
) {
    scatter_resident(jobs, members, resident);
    let (mut distance, mut speed) = (lanes::F::splat(0.0), lanes::F::splat(0.0));
    for (l, m) in members.iter().enumerate() {
        let range = &updates[m.job].as_ref().expect("a member's update").range;
        distance.0[l] = range.max_distance_sq;
        speed.0[l] = range.max_speed_sq;
    }
    let ok = resident.in_range(distance, speed);
    for (l, p) in prepared.iter_mut().enumerate() {
        if let Some(p) = p {
            p.particles_in_range = ok.get(l);
        }
    }
}

/// The block's links and particles into lanes ([`lanes::Resident`]: lane
/// `l` is `members[l]`'s chain).
fn gather_resident(
    jobs: &[Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    r: &mut lanes::Resident,
) {
    let chains: [Option<lanes::ResidentChain<'_>>; lanes::W] = core::array::from_fn(|l| {
        let m = members.get(l)?;
        let job = jobs[m.job].as_ref().expect("a member's job");
        let update = updates[m.job].as_ref().expect("a member's update");
        let setup = &job.rig.chains[m.ci];
        let range = setup.particles();
        Some(lanes::ResidentChain {
            setup,
            pose: job.local,
            scale: update.scale,
            position: &job.stage.state.position[range.clone()],
            velocity: &job.stage.state.velocity[range],
        })
    });
    lanes::gather_resident(kernel, r, &chains);
}

/// The lanes back into each chain's arrays, as the kernel leaves them
/// after a substep (`previous`: the positions before the last one).
fn scatter_resident(jobs: &mut [Option<Job<'_>>], members: &[Member], r: &lanes::Resident) {
    for (l, m) in members.iter().enumerate() {
        let job = jobs[m.job].as_mut().expect("a member's job");
        let range = job.rig.chains[m.ci].particles();
        let Stage {
            state,
            rest,
            rest_targets,
            contacts,
            ..
        } = &mut *job.stage;
        let ChainState {
            position,
            velocity,
            bend,
            previous,
            ..
        } = state;
        r.scatter(
            l,
            &mut lanes::Arrays {
                rest: &rest[range.clone()],
                position: &mut position[range.clone()],
                velocity: &mut velocity[range.clone()],
                bend: &mut bend[range.clone()],
                rest_targets: &mut rest_targets[range.clone()],
                contacts: &mut contacts[range.clone()],
            },
            &mut previous[range],
        );
    }
}

/// After a substep of VRM chain `ci`: the world frame of each of its joints
/// that another chain hangs from ([`Stage::records`]), walked from the
/// chain's frame at the substep (`at`) and its new particles exactly as
/// the VRM kernel walks them. Nothing for other integrators or a weighted
/// chain (its output is not the kernel's frame): a chain hanging there
/// interpolates.
pub(super) fn record_joints(
    rig: &ChainRig<'_>,
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
    let on = &rig.plan.chain_frames_on[ci];
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
            let path = &rig.plan.chain_frame_paths[slot as usize];
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
pub(super) type LaneInputs<'a> = (
    &'a ChainRig<'a>,
    &'a [ChainParams],
    &'a [PlacedCollider],
    &'a [Transform],
);

/// One substep of the chains `lanes` (indices into `members`, ascending)
/// through the lane kernel, each character's particle arrays split into
/// its lanes' chains.
pub(super) fn step_lanes(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    (lane_of, prepared, at): (&[usize], &[Option<Prepared>], &[Interpolated; lanes::W]),
    resident: Option<&mut lanes::Resident>,
) {
    let count = lane_of.len();
    // Only the characters with a lane in this step.
    let mut used = [false; JOBS];
    for &l in lane_of {
        used[members[l].job] = true;
    }
    // Each character's fields, borrowed apart: what the lanes read, and
    // (unless the particles stay in lanes) its particle arrays, which its
    // lanes split among them.
    let mut shared: [Option<LaneInputs<'_>>; JOBS] = [None; JOBS];
    let block = BlockStep {
        members,
        updates,
        kernel,
        lane_of,
        prepared,
        at,
    };
    if let Some(resident) = resident {
        for (j, job) in jobs.iter().enumerate() {
            let (true, Some(job)) = (used[j], job) else {
                continue;
            };
            let stage = &*job.stage;
            shared[j] = Some((
                &job.rig,
                &stage.params[..],
                &stage.placed[..],
                &job.local[..],
            ));
        }
        step_block(block, &shared, Particles::Resident(resident));
    } else {
        let mut rest_of: [lanes::Arrays<'_>; JOBS] = Default::default();
        let mut rest_start = [0usize; JOBS];
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
            shared[j] = Some((&job.rig, &params[..], &placed[..], &job.local[..]));
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
        let mut taken: [lanes::Arrays<'_>; lanes::W] = Default::default();
        for (k, &l) in lane_of.iter().enumerate() {
            let m = members[l];
            let (rig, ..) = shared[m.job].expect("a member's job");
            let range = rig.chains[m.ci].particles();
            let skip = range.start - rest_start[m.job];
            taken[k] = rest_of[m.job].take_front(skip, range.len());
            rest_start[m.job] = range.end;
        }
        step_block(block, &shared, Particles::Arrays(&mut taken[..count]));
    }
}

/// Where a lane step's particles are: kept in lanes across the substeps,
/// or each lane's chain's arrays.
enum Particles<'r, 'a> {
    Resident(&'r mut lanes::Resident),
    Arrays(&'r mut [lanes::Arrays<'a>]),
}

/// What a lane step reads besides the characters' fields ([`step_lanes`]'s
/// arguments).
#[derive(Clone, Copy)]
struct BlockStep<'b> {
    members: &'b [Member],
    updates: &'b [Option<Update>; JOBS],
    kernel: ChainKernel,
    lane_of: &'b [usize],
    prepared: &'b [Option<Prepared>],
    at: &'b [Interpolated; lanes::W],
}

/// [`step_lanes`] once each character's fields are borrowed apart: each
/// lane's substep frame, then the kernel.
#[inline(always)]
fn step_block(
    step: BlockStep<'_>,
    shared: &[Option<LaneInputs<'_>>; JOBS],
    particles: Particles<'_, '_>,
) {
    let count = step.lane_of.len();
    // Each lane's frame written once in place (a lane holds a reference:
    // an array of frames by value was copied lane by lane through memcpy).
    let mut frames: [Option<SubstepFrame<'_>>; lanes::W] = [const { None }; lanes::W];
    for (k, frame) in frames.iter_mut().enumerate().take(count) {
        let l = step.lane_of[k];
        let m = step.members[l];
        let (_, params, placed, local) = shared[m.job].expect("a member's job");
        let update = step.updates[m.job].as_ref().expect("a member's update");
        let p = step.prepared[l].as_ref().expect("a lane is prepared");
        *frame = Some(substep_frame(
            &params[m.ci],
            update,
            local,
            p,
            &step.at[l],
            placed,
        ));
    }
    let block: [lanes::Lane<'_>; lanes::W] = core::array::from_fn(|k| {
        let k = k.min(count - 1);
        let m = step.members[step.lane_of[k]];
        let (rig, params, ..) = shared[m.job].expect("a member's job");
        lanes::Lane {
            setup: &rig.chains[m.ci],
            params: &params[m.ci],
            frame: frames[k].as_ref().expect("a lane's frame"),
        }
    });
    match particles {
        Particles::Resident(r) => lanes::substep_resident(step.kernel, &block[..count], r),
        Particles::Arrays(arrays) => lanes::substep(step.kernel, &block[..count], arrays),
    }
}
