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
/// win, docs/algorithms.md §8).
///
/// Each joint is its successor's parent (rig validation), so when the
/// chain's root parent is a rotation times a uniform scale and the joints
/// are uniformly scaled, every joint's parent is one: such a chain at full
/// weight goes through the lanes' writeback ([`writeback`], several chains
/// at once, no matrix decomposed); any other, and a chain under the skin
/// guard ([`guarded`]), through [`write_joints`].
pub(super) fn write_back(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    members: &[Member],
    kernel: ChainKernel,
    ahead: &[Option<f32>; lanes::W],
) {
    // The members in lanes: their chains, and each one's job and setup.
    let mut chains = [writeback::Chain {
        len: 0,
        parent: Affine3A::IDENTITY,
        world_inverse: Affine3A::IDENTITY,
        ahead: 0.0,
    }; lanes::W];
    let mut lane_of: [Option<(usize, &ChainSetup)>; lanes::W] = [None; lanes::W];
    let mut count = 0;
    for (l, m) in members.iter().enumerate() {
        let Some(ahead) = ahead[l] else { continue };
        let (job, update) = job_of(jobs, updates, *m);
        let (rig, setup) = (&job.rig, &job.rig.chains[m.ci]);
        let params = &job.stage.params[m.ci];
        let parent = math::parent_matrix(job.component, rig.parents[setup.joints[0] as usize]);
        // Every joint but the last.
        let upper = &setup.joints[..setup.joints.len().saturating_sub(1)];
        let qualifies = !guarded(job.stage, m.ci)
            && params.weight >= 1.0
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
            count += 1;
        } else {
            write_member(jobs, updates, *m, ahead);
        }
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

/// [`write_joints`] for member `m`.
pub(super) fn write_member(
    jobs: &mut [Option<Job<'_>>],
    updates: &[Option<Update>; JOBS],
    m: Member,
    ahead: f32,
) {
    let (job, update) = job_of(jobs, updates, m);
    write_joints(
        &job.rig,
        job.stage,
        update,
        (job.local, job.component),
        m.ci,
        ahead,
    );
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
        }
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

/// [`write_back`] for one chain, joint by joint: through a similarity
/// parent the swing is taken in the parent's frame with no matrix built
/// for the joint or decomposed ([`math::aim_local_similar`]); otherwise
/// each joint goes through [`math::aim_local`], which tests its parent.
pub(super) fn write_joints(
    rig: &ChainRig<'_>,
    stage: &Stage,
    update: &Update,
    (local, component): (&mut [Transform], &mut [Frame]),
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
    let guard = guarded(stage, ci).then(|| {
        (
            (params.key_margin * 0.5).sin(),
            chain::smoothstep(stage.state.clocks[ci].guard),
        )
    });
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
            let mut blended = if w >= 1.0 {
                solved
            } else {
                rotation.slerp(solved, w)
            };
            if let Some((margin, share)) = guard {
                let held = skin_guard(rig.reference[b].rotation(), rotation, blended, margin);
                // Coming on or going off (ChainClock::guard): part of the
                // way from the unguarded rotation to the held one.
                blended = if share >= 1.0 {
                    held
                } else {
                    blended.slerp(held, share)
                };
            }
            // Never a non-finite output (the stage cannot fail): the
            // joint keeps its animated rotation instead.
            if blended.is_finite() {
                local[b].rotation = blended.to_array();
            }
        }
        // `parent · local`, its translation (the head) already known.
        let r = glam::Mat3A::from_quat(local[b].rotation().normalize());
        component[b] = Frame::store(&Affine3A {
            matrix3: parent.matrix3
                * glam::Mat3A::from_cols(
                    r.x_axis * scale.x,
                    r.y_axis * scale.y,
                    r.z_axis * scale.z,
                ),
            translation: head.into(),
        });
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

/// The skin guard (docs/algorithms.md §7 "The skin guard"): `rotation`, a
/// joint's output local rotation, held within the box that the input's
/// local rotation `key` spans about the reference rotation `reference`,
/// axis by axis of the reference frame. With `q = reference⁻¹ · rotation`
/// and `k = reference⁻¹ · key` (each with w ≥ 0), every component of q's
/// vector part (the sine of half the turn times the axis) is clamped to
/// the interval from 0 to k's component, widened by `margin` on each side
/// (`margin`: the sine of half [`ChainParams::key_margin`]), and w
/// recomputed: about no axis does the joint turn farther from its
/// reference than the input, nor to the other side of it. A rotation
/// within the box comes back unchanged, bit for bit. Products, a clamp and
/// square roots only: the same bits on every path that calls it.
pub(crate) fn skin_guard(reference: Quat, key: Quat, rotation: Quat, margin: f32) -> Quat {
    let reference = reference.normalize();
    let inverse = reference.conjugate();
    let half = |q: Quat| {
        let q = inverse * q;
        if q.w < 0.0 {
            -q
        } else {
            q
        }
    };
    let (k, q) = (half(key), half(rotation));
    let kv = Vec3::new(k.x, k.y, k.z);
    let v = Vec3::new(q.x, q.y, q.z);
    let held = v.clamp(
        kv.min(Vec3::ZERO) - Vec3::splat(margin),
        kv.max(Vec3::ZERO) + Vec3::splat(margin),
    );
    if held == v {
        return rotation;
    }
    let w = (1.0 - held.length_squared()).max(0.0).sqrt();
    let out = (reference * Quat::from_xyzw(held.x, held.y, held.z, w)).normalize();
    // On the input's hemisphere, so that keys baked from it interpolate
    // the short way.
    if out.dot(rotation) < 0.0 {
        -out
    } else {
        out
    }
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
/// keeps is inside the state range.
pub(super) fn in_range(
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
pub(super) fn in_range_or_park(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(q: Quat) -> Vec3 {
        let q = if q.w < 0.0 { -q } else { q };
        Vec3::new(q.x, q.y, q.z)
    }

    #[test]
    fn the_skin_guard_holds_each_axis_between_the_reference_and_the_key() {
        let reference = Quat::from_rotation_z(0.4) * Quat::from_rotation_x(-0.2);
        let key = reference * Quat::from_rotation_x(0.6) * Quat::from_rotation_y(-0.3);
        let k = vector(reference.conjugate() * key);
        // Inside the box: the same bits back.
        let inside = reference * Quat::from_rotation_x(0.3) * Quat::from_rotation_y(-0.1);
        assert_eq!(skin_guard(reference, key, inside, 0.0), inside);
        assert_eq!(skin_guard(reference, key, -inside, 0.0), -inside);
        // Past the key about x, across the reference about y, off about z.
        let outside = reference * Quat::from_euler(glam::EulerRot::XYZ, 0.9, 0.2, 0.3);
        let held = skin_guard(reference, key, outside, 0.0);
        let h = vector(reference.conjugate() * held);
        assert!((h.x - k.x).abs() < 1e-6, "{h} against {k}");
        assert!(h.y.abs() < 1e-6 && h.z.abs() < 1e-6, "{h}");
        assert!((held.length() - 1.0).abs() < 1e-6);
        // On the input's hemisphere.
        assert!(skin_guard(reference, key, -outside, 0.0).dot(-outside) > 0.0);
        // A margin widens each side by its half-angle sine.
        let m = 0.05f32;
        let h = vector(reference.conjugate() * skin_guard(reference, key, outside, m));
        let o = vector(reference.conjugate() * outside);
        assert!((h.x - (k.x + m)).abs() < 1e-6, "{h}");
        assert!(
            o.y < m && (h.y - o.y).abs() < 1e-6,
            "within the margin: {h} {o}"
        );
        assert!(o.z > m && (h.z - m).abs() < 1e-6, "{h} {o}");
        // A key at the reference holds the joint there.
        let at_reference = skin_guard(reference, reference, outside, 0.0);
        assert!(at_reference.angle_between(reference) < 1e-3);
    }
}
