//! `secmo bake` (issue #5, docs/algorithms.md §11): simulate a clip with secmo driving
//! the chains, warm up by looping until the chain state comes back to where
//! the pass began, record one pass, and write the chain joints' rotations as
//! keyframes into a copy of the GLB (their authored rotation tracks are
//! replaced, or blended toward secmo's with `BakeOptions::blend`).

use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};
use secmo::{
    ChainDesc, ChainParams, Character, CharacterOptions, FrameInput, Rig, RigDesc, Transform,
};
use serde_json::{json, Value};

use crate::import::{Clip, Imported};
pub use crate::rotation::angle;

/// How to bake.
#[derive(Clone, Debug)]
pub struct BakeOptions {
    /// Samples per second of the baked keys (and of the simulation input).
    pub rate: f32,
    /// Warm-up stops when the chain state after a pass differs from its
    /// start by less than this (metres for positions, m/s for velocities,
    /// in the rig's units scaled to metres).
    pub tolerance: f32,
    /// At most this many warm-up passes (docs/algorithms.md §11: a cap).
    pub max_passes: usize,
    /// Weight of secmo's rotation in the written keys: 1 replaces the
    /// chain joints' authored tracks, 0 keeps them, in between slerps from
    /// the authored rotation toward secmo's (`--blend`).
    pub blend: f32,
    /// `Some(true)`: bake as a loop (`--loop`); `Some(false)`: as a
    /// one-shot (`--once`); `None`: a clip loops when its motion says it is
    /// a cycle ([`crate::import::Wrap::is_cycle`]).
    pub looping: Option<bool>,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            rate: 60.0,
            tolerance: 1e-4,
            max_passes: 30,
            blend: 1.0,
            looping: None,
        }
    }
}

/// One baked clip.
#[derive(Clone, Debug)]
pub struct BakedClip {
    pub name: String,
    /// Baked as a loop (warm-up by playing the clip, last key = first key)
    /// or as a one-shot (warm-up holding the first pose, never wrapped).
    pub looped: bool,
    /// Largest difference between the clip's first and last poses:
    /// rotation (radians) and translation (rig units).
    pub seam: (f32, f32),
    /// How the clip's ends meet, which decides loop or one-shot unless
    /// [`BakeOptions::looping`] does.
    pub wrap: crate::import::Wrap,
    /// Warm-up passes run before recording (0: recorded from a cold start).
    pub passes: usize,
    /// Largest chain-joint (and helper) rotation difference between the
    /// recorded first frame and the frame after the last one (the loop
    /// seam), radians.
    pub closing_error: f32,
    /// Largest helper translation difference at the seam, metres.
    pub closing_offset: f32,
    /// Key times, seconds.
    pub times: Vec<f32>,
    /// Per chain joint (in [`Baker::joints`] order), its local rotation at
    /// every key.
    pub rotations: Vec<Vec<Quat>>,
    /// Per helper bone (in [`Baker::helpers`] order), its local translation
    /// and rotation at every key.
    pub helpers: Vec<Vec<(Vec3, Quat)>>,
    /// Wall-clock time of each update while the keys are recorded (clip
    /// sampling and secmo's update), microseconds.
    pub update_micros: Vec<f32>,
}

/// A character ready to bake: the imported file and a rig whose chains are
/// the file's tail (tail preset) and VRM spring bones.
pub struct Baker {
    pub imported: Imported,
    pub rig: Arc<Rig>,
    /// Chain joints (bone indices) in chain order.
    pub joints: Vec<usize>,
    /// Helper bones moved by springs, constraints or correctives (from the
    /// file's secmo rig settings); baked as translation and rotation keys.
    pub helpers: Vec<usize>,
    /// Counts every simulated frame ([`Baker::work`] plans them); hidden
    /// unless a command sets a bar.
    pub progress: crate::progress::Progress,
}

impl Baker {
    /// The rig for `imported`, in the file's units (`units_per_meter`): the
    /// file's secmo rig settings (`extras.secmo_rig_settings`: helper
    /// springs, constraints, correctives, chains), its VRM spring bones as
    /// chains on the VRM preset (docs/vrm-mapping.md) where those do not already move
    /// the joints, and a tail chain on its tail candidate unless a chain
    /// already moves it (its parameters: [`Baker::tail_params`]). Every
    /// clip bakes on this one rig, through the runtime's own path: around
    /// the clip's animation where the clip animates the tail, around the
    /// rest arc where it does not (docs/chains.md "Around the animation").
    pub fn new(imported: Imported, units_per_meter: f32) -> anyhow::Result<Self> {
        Self::with_tail(
            imported,
            units_per_meter,
            Self::tail_params(units_per_meter),
        )
    }

    /// The added tail's parameters: the runtime's tail preset
    /// ([`ChainParams::tail`], `rest_source` auto) with the modelled arc as
    /// its rest arc for clips that leave the tail on its reference pose:
    /// rest curve 1, no carry and no gravity, which would sag it below the
    /// shape the artist left it in (28° on a Labrador's four-joint tail,
    /// its skin stretched to a p99 of 1.1293 against the still clip's
    /// 1.0000; docs/chains.md "Animals from outside this repository").
    /// Around the animation gravity does not act anyway.
    #[must_use]
    pub fn tail_params(units_per_meter: f32) -> ChainParams {
        ChainParams {
            carry_angle: 0.0,
            rest_curve: 1.0,
            gravity: 0.0,
            ..ChainParams::tail(units_per_meter)
        }
    }

    /// [`Baker::new`] with the added tail's parameters given.
    pub fn with_tail(
        imported: Imported,
        units_per_meter: f32,
        tail_params: ChainParams,
    ) -> anyhow::Result<Self> {
        let path = imported.path.clone();
        let at = |m: &str| anyhow::anyhow!("{}: {m}", path.display());
        // A spring or a tail that starts at a scene root hangs from the
        // identity bone the VRM import adds above the scene roots
        // (`secmo::vrm::SCENE_ROOT`): the whole character goes under it,
        // so clips, skins and chains index one skeleton.
        let springs_lifted = imported
            .spring_bones
            .as_ref()
            .is_some_and(|springs| springs.skeleton != imported.skeleton);
        let tail_at_root = imported
            .tail()
            .first()
            .is_some_and(|&b| imported.skeleton.bones[b].parent < 0);
        let imported = if springs_lifted || tail_at_root {
            let lifted = imported
                .under_scene_root()
                .ok_or_else(|| at("the skeleton already has the scene-root bone"))?;
            if let Some(springs) = &lifted.spring_bones {
                let names = |s: &secmo::vrm::Skeleton| -> Vec<String> {
                    s.bones.iter().map(|b| b.name.clone()).collect()
                };
                if springs.skeleton != imported.skeleton
                    && (names(&lifted.skeleton) != names(&springs.skeleton)
                        || lifted.skeleton.bone_of_node != springs.skeleton.bone_of_node)
                {
                    return Err(at(
                        "the VRM springs' skeleton does not match the file's nodes",
                    ));
                }
            }
            lifted
        } else {
            imported
        };
        // The file's own secmo settings, then its VRM springs.
        let mut settings = imported.rig_settings.clone().unwrap_or_default();
        if let Some(springs) = &imported.spring_bones {
            for chain in &springs.settings.chains {
                let taken = |name: &String| settings.chains.iter().any(|c| c.joints.contains(name));
                if !chain.joints.iter().any(taken) {
                    settings.chains.push(chain.clone());
                }
            }
            settings
                .colliders
                .extend(springs.settings.colliders.iter().cloned());
            // VRMC_node_constraint destinations get keys like the helpers.
            for c in &springs.settings.node_constraints {
                if !settings
                    .node_constraints
                    .iter()
                    .any(|n| n.destination == c.destination)
                {
                    settings.node_constraints.push(c.clone());
                }
            }
        }
        let mut desc = settings
            .to_rig_desc(
                imported.skeleton.bones.clone(),
                units_per_meter,
                secmo::UpAxis::Y,
            )
            .map_err(|e| at(&e.to_string()))?;
        // The tail, unless the VRM springs already move it.
        let tail = imported.tail();
        let sprung = |b: usize| desc.chains.iter().any(|c| c.joints.contains(&(b as u32)));
        if !tail.is_empty() && !tail.iter().any(|&b| sprung(b)) {
            let anchor = imported.skeleton.bones[tail[0]].parent;
            if anchor < 0 {
                return Err(at("the tail has no parent to anchor it"));
            }
            desc.chains.push(ChainDesc::new(
                tail.iter().map(|&j| j as u32).collect(),
                anchor as u32,
                tail_params,
            ));
        }
        // Body colliders fitted to the skin for every tail or hair chain that
        // has none (docs/chains.md "Body colliders"), clear of the chain's
        // own bones and of its root. VRM chains keep what their author gave.
        let bind = bind_world(&desc);
        for c in 0..desc.chains.len() {
            let chain = &desc.chains[c];
            if !chain.colliders.is_empty() || chain.params.integrator == ChainParams::VRM {
                continue;
            }
            let joints: Vec<usize> = chain.joints.iter().map(|&j| j as usize).collect();
            let root: Vec3 = bind[joints[0]].translation.into();
            let first_link = joints.get(1).map_or(0.0, |&next| {
                Vec3::from(bind[next].translation).distance(root)
            });
            for collider in crate::body::fit(&imported, &joints, root, first_link) {
                desc.chains[c].colliders.push(desc.colliders.len() as u32);
                desc.colliders.push(collider);
            }
        }
        if desc.chains.is_empty()
            && desc.springs.is_empty()
            && desc.correctives.is_empty()
            && desc.node_constraints.is_empty()
        {
            return Err(at(
                "nothing for secmo to move: no chain (no bone named *tail*, no VRM spring \
                 bones, no springs in extras.secmo_rig_settings); `secmo rig` grows tail \
                 chains where the skin hangs far from the skeleton",
            ));
        }
        let rig = Rig::new(desc.clone()).map_err(|e| at(&rig_error(&desc, &e)))?;
        let joints: Vec<usize> = rig
            .chains()
            .iter()
            .flat_map(|c| c.joints.iter().map(|&j| j as usize))
            .collect();
        let mut helpers: Vec<usize> = rig
            .springs()
            .iter()
            .map(|s| s.bone as usize)
            .chain(rig.constraints().iter().map(|c| c.bone as usize))
            .chain(
                rig.node_constraints()
                    .iter()
                    .map(|c| c.destination as usize),
            )
            .chain(rig.correctives().iter().map(|c| c.driven as usize))
            .filter(|b| !joints.contains(b))
            .collect();
        helpers.sort_unstable();
        helpers.dedup();
        Ok(Self {
            imported,
            rig: Arc::new(rig),
            joints,
            helpers,
            progress: crate::progress::Progress::hidden(),
        })
    }

    /// Writes into `pose` the rig's reference pose with `clip` sampled at
    /// `time`, and, given a bake's chain-joint tracks and a key index, the
    /// chain joints turned to that key.
    pub fn keyed_pose(
        &self,
        clip: &Clip,
        time: f32,
        keys: Option<(&[Vec<Quat>], usize)>,
        pose: &mut [Transform],
    ) {
        pose.copy_from_slice(self.rig.reference_pose());
        clip.sample(time, pose);
        if let Some((tracks, key)) = keys {
            for (track, &j) in tracks.iter().zip(&self.joints) {
                pose[j].rotation = track[key].to_array();
            }
        }
    }

    /// The glTF node of each helper bone (for [`write_glb`]).
    pub fn helper_nodes(&self) -> Vec<usize> {
        self.nodes(&self.helpers)
    }

    /// The glTF node of each chain joint (for [`write_glb`]).
    pub fn joint_nodes(&self) -> Vec<usize> {
        self.nodes(&self.joints)
    }

    fn nodes(&self, bones: &[usize]) -> Vec<usize> {
        let of_node = &self.imported.skeleton.bone_of_node;
        bones
            .iter()
            .map(|&b| {
                of_node
                    .iter()
                    .position(|&x| x as usize == b)
                    .expect("every bone is a node")
            })
            .collect()
    }

    /// The frames [`Baker::bake`] will simulate for `clip`, as planned
    /// before it runs: one pass to record and
    /// [`crate::progress::WARM_UP_GUESS`] warm-up passes (the bake
    /// corrects the plan when it knows its own count).
    #[must_use]
    pub fn work(&self, clip: &Clip, options: &BakeOptions, warm_up: bool) -> u64 {
        let frames = key_times(clip.duration, self.span(clip, options), options.rate).len() - 1;
        (frames * (1 + Self::warm_up_guess(options, warm_up))) as u64
    }

    fn warm_up_guess(options: &BakeOptions, warm_up: bool) -> usize {
        if warm_up {
            crate::progress::WARM_UP_GUESS.min(options.max_passes)
        } else {
            0
        }
    }

    /// How `clip` wraps, and whether it is baked as a loop (`--loop` and
    /// `--once` decide, else the motion).
    fn looping(&self, clip: &Clip, options: &BakeOptions) -> (crate::import::Wrap, bool) {
        let wrap = clip.wrap(self.rig.reference_pose());
        let looped = options.looping.unwrap_or_else(|| wrap.is_cycle());
        (wrap, looped)
    }

    /// The time a bake of `clip` runs over: the clip's duration, and for a
    /// cycle exported without its closing key one key interval more (its
    /// last interval, back into its first pose). The keys written are
    /// spread evenly over the clip's own duration and end on its end.
    fn span(&self, clip: &Clip, options: &BakeOptions) -> f32 {
        match self.looping(clip, options) {
            (wrap, true) if wrap.lacks_closing_key() => clip.duration + clip.key_interval(),
            _ => clip.duration,
        }
    }

    /// Bakes `clip` (warm-up passes first when `warm_up`).
    pub fn bake(
        &self,
        clip: &Clip,
        options: &BakeOptions,
        warm_up: bool,
    ) -> anyhow::Result<BakedClip> {
        let (wrap, looped) = self.looping(clip, options);
        // A cycle exported without its closing key plays its last interval
        // back into its first pose; the keys written stop at its own end.
        let source = clip;
        let closed;
        let clip = if looped && wrap.lacks_closing_key() {
            closed = source.closed(source.key_interval());
            &closed
        } else {
            source
        };
        // The keys: spread evenly over the source clip, `round(rate ×
        // its duration)` intervals, so that its last key is the clip's
        // end; a cycle closed above has one more, at the closed clip's end
        // (its seam, back to the first key, not written).
        let key_times = key_times(source.duration, clip.duration, options.rate);
        let frames = key_times.len() - 1;
        let rig = Arc::clone(&self.rig);
        let bind: Vec<Transform> = rig.reference_pose().to_vec();
        let mut pose = bind.clone();
        let mut out = bind.clone();
        let mut character = Character::new(Arc::clone(&rig), CharacterOptions::default());
        // The runtime's input: the clip sampled from its own keys (joint
        // space) on a grid no coarser than the 120 Hz substep, the same
        // whatever the output rate. A key between two grid times is an
        // observation, not an input: from a snapshot at the grid time
        // before it, one update to the key's time gives the key, and the
        // snapshot is restored before the grid goes on. So the simulation
        // is the same at every output rate, and bakes at 30, 60 and 120 Hz
        // give the same bits at common times (docs/chains.md "Frame rate").
        let steps = input_steps(clip.duration, &key_times);
        // For each step, the grid step before it (the update's start).
        let from: Vec<usize> = {
            let mut last = 0;
            steps
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let f = last;
                    if s.2 {
                        last = i;
                    }
                    f
                })
                .collect()
        };
        // A key off the grid: the state at the grid time before it, to
        // restore before the next update.
        let mut branch = Branch {
            state: vec![0; character.snapshot_size()],
            pending: false,
        };
        // `frame`: the key the update leads to (named in an error).
        let update = |c: &mut Character,
                      (time, frame): (f32, usize),
                      pose: &mut Vec<Transform>,
                      out: &mut [Transform],
                      dt: f32| {
            pose.copy_from_slice(&bind);
            clip.sample(time, pose);
            c.update(
                &FrameInput {
                    dt,
                    pose,
                    teleport: false,
                },
                out,
            )
            .map(|_| ())
            .map_err(|e| {
                // The bone by name, as the file calls it.
                let bone = match e {
                    secmo::Error::NonFinitePose { bone }
                    | secmo::Error::DegeneratePose { bone, .. }
                    | secmo::Error::NonFiniteResult { bone } => rig
                        .bone_name(bone)
                        .map(|name| format!(" ({name})"))
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                anyhow::anyhow!(
                    "{}: clip {:?} at frame {frame} ({time:.4} s): {e}{bone}",
                    self.imported.path.display(),
                    clip.name
                )
            })
        };
        // The updates from one key to the next (`step`: the index of the
        // step that ends on key `frame`), and the input time at each: a
        // loop samples its end as its start.
        let at = |i: usize| -> f32 {
            let t = steps[i].0;
            if looped && i + 1 == steps.len() {
                0.0
            } else {
                t
            }
        };
        let key_step: Vec<usize> = {
            let mut k = vec![0; frames + 1];
            for (i, s) in steps.iter().enumerate() {
                if let Some(f) = s.1 {
                    k[f] = i;
                }
            }
            k
        };
        // Advances from key `frame - 1` to key `frame`, the input held at
        // time 0 when `hold`.
        let mut micros = Vec::new();
        let advance = |c: &mut Character,
                       frame: usize,
                       pose: &mut Vec<Transform>,
                       out: &mut [Transform],
                       hold: bool,
                       (micros, branch): (&mut Vec<f32>, &mut Branch)|
         -> anyhow::Result<()> {
            if branch.pending {
                branch.pending = false;
                c.restore(&branch.state)
                    .map_err(|e| anyhow::anyhow!("restoring the state of the grid: {e}"))?;
            }
            for i in key_step[frame - 1] + 1..=key_step[frame] {
                let start = std::time::Instant::now();
                if !steps[i].2 {
                    // Off the grid: only a key's own update (the last).
                    debug_assert_eq!(i, key_step[frame]);
                    c.snapshot(&mut branch.state)
                        .map_err(|e| anyhow::anyhow!("keeping the state of the grid: {e}"))?;
                    branch.pending = true;
                }
                let time = if hold { 0.0 } else { at(i) };
                update(c, (time, frame), pose, out, steps[i].0 - steps[from[i]].0)?;
                micros.push(start.elapsed().as_secs_f32() * 1e6);
            }
            Ok(())
        };
        // The first update only seeds the state (dt 0).
        update(&mut character, (0.0, 0), &mut pose, &mut out, 0.0)?;
        let scale = 1.0 / self.rig.units_per_meter();
        // Chain particles, and the helpers' spring states.
        let state = |c: &Character| -> Vec<Vec3> {
            let springs = c
                .spring_states()
                .iter()
                .flat_map(|s| [Vec3::from(s.position), Vec3::from(s.velocity)]);
            c.particle_positions()
                .iter()
                .chain(c.particle_velocities())
                .copied()
                .chain(springs)
                .map(|v| v * scale)
                .collect()
        };
        let seam = source.seam(&bind);
        let mut passes = 0;
        let progress = &self.progress;
        let guess = Self::warm_up_guess(options, warm_up);
        // A one-shot's settled start is held in the rest the clip plays in:
        // a chain on `rest_source` auto that the clip animates anywhere
        // settles around its first pose, not on the rest arc (its first
        // key may hold the chain on its bind pose, which auto reads as not
        // animated; the switch at the next key snapped the tail).
        let held_auto: Vec<(usize, ChainParams)> = if warm_up && !looped {
            rig.chains()
                .iter()
                .enumerate()
                .filter_map(|(ci, setup)| {
                    let params = *character.chain_params(ci)?;
                    (params.rest_source == ChainParams::REST_AUTO
                        && params.integrator != ChainParams::VRM
                        && clip.animates(&bind, &setup.joints))
                    .then_some((ci, params))
                })
                .collect()
        } else {
            Vec::new()
        };
        for &(ci, params) in &held_auto {
            character
                .set_chain_params(
                    ci,
                    ChainParams {
                        rest_source: ChainParams::REST_ANIMATED,
                        ..params
                    },
                )
                .map_err(|e| anyhow::anyhow!("holding the first pose: {e}"))?;
        }
        if warm_up {
            let mut discard = Vec::new();
            while passes < options.max_passes {
                if passes >= guess {
                    progress.plan(frames as u64);
                }
                let start: Vec<Vec3> = state(&character);
                // A one-shot starts from its first pose, settled: hold it
                // for as long as a pass of the clip.
                for frame in 1..=frames {
                    advance(
                        &mut character,
                        frame,
                        &mut pose,
                        &mut out,
                        !looped,
                        (&mut discard, &mut branch),
                    )?;
                    progress.done(1);
                }
                discard.clear();
                passes += 1;
                let end = state(&character);
                let change = start
                    .iter()
                    .zip(&end)
                    .map(|(a, b)| a.distance(*b))
                    .fold(0.0, f32::max);
                if change < options.tolerance {
                    break;
                }
            }
        }
        for &(ci, params) in &held_auto {
            character
                .set_chain_params(ci, params)
                .map_err(|e| anyhow::anyhow!("after the first pose: {e}"))?;
        }
        if passes < guess {
            progress.unplan(((guess - passes) * frames) as u64);
        }
        let mut times = Vec::with_capacity(frames + 1);
        let mut rotations = vec![Vec::with_capacity(frames + 1); self.joints.len()];
        // What a key holds: secmo's rotation, or a blend with the clip's.
        let key = |input: &[Transform], out: &[Transform], j: usize| -> Quat {
            if options.blend >= 1.0 {
                out[j].rotation()
            } else {
                input[j]
                    .rotation()
                    .slerp(out[j].rotation(), options.blend.max(0.0))
            }
        };
        let record = |input: &[Transform], out: &[Transform], rotations: &mut Vec<Vec<Quat>>| {
            for (k, &j) in self.joints.iter().enumerate() {
                rotations[k].push(key(input, out, j));
            }
        };
        record(&pose, &out, &mut rotations);
        let mut helpers = vec![Vec::with_capacity(frames + 1); self.helpers.len()];
        let record_helpers = |out: &[Transform], helpers: &mut Vec<Vec<(Vec3, Quat)>>| {
            for (k, &h) in self.helpers.iter().enumerate() {
                helpers[k].push((out[h].translation(), out[h].rotation()));
            }
        };
        record_helpers(&out, &mut helpers);
        times.push(0.0);
        for (frame, &time) in key_times.iter().enumerate().take(frames).skip(1) {
            advance(
                &mut character,
                frame,
                &mut pose,
                &mut out,
                false,
                (&mut micros, &mut branch),
            )?;
            progress.done(1);
            record(&pose, &out, &mut rotations);
            record_helpers(&out, &mut helpers);
            times.push(time as f32);
        }
        // One more key: a loop's seam back to frame 0, a one-shot's end.
        advance(
            &mut character,
            frames,
            &mut pose,
            &mut out,
            false,
            (&mut micros, &mut branch),
        )?;
        progress.done(1);
        let (closing_error, closing_offset) = if looped {
            let closing_error = self
                .joints
                .iter()
                .enumerate()
                .map(|(k, &j)| angle(key(&pose, &out, j), rotations[k][0]))
                .chain(
                    self.helpers
                        .iter()
                        .enumerate()
                        .map(|(k, &h)| angle(out[h].rotation(), helpers[k][0].1)),
                )
                .fold(0.0, f32::max);
            let closing_offset = self
                .helpers
                .iter()
                .enumerate()
                .map(|(k, &h)| out[h].translation().distance(helpers[k][0].0) * scale)
                .fold(0.0, f32::max);
            // The last key repeats the first so the baked clip loops exactly.
            for r in rotations.iter_mut() {
                r.push(r[0]);
            }
            for h in helpers.iter_mut() {
                h.push(h[0]);
            }
            (closing_error, closing_offset)
        } else {
            // A one-shot ends where the clip ends: the last frame is
            // simulated, never wrapped to the first.
            record(&pose, &out, &mut rotations);
            record_helpers(&out, &mut helpers);
            (0.0, 0.0)
        };
        // Keys in one quaternion hemisphere: q and −q are the same rotation,
        // but an engine interpolating the components turns the long way.
        for track in &mut rotations {
            same_hemisphere(track.iter_mut());
        }
        for track in &mut helpers {
            same_hemisphere(track.iter_mut().map(|(_, r)| r));
        }
        times.push(clip.duration);
        if clip.duration > source.duration {
            // Only the keys within the source clip's own time are written.
            let kept = times
                .iter()
                .take_while(|&&t| t <= source.duration + 1e-4)
                .count();
            times.truncate(kept);
            for track in &mut rotations {
                track.truncate(kept);
            }
            for track in &mut helpers {
                track.truncate(kept);
            }
        }
        Ok(BakedClip {
            name: clip.name.clone(),
            looped,
            wrap,
            seam,
            passes,
            closing_error,
            closing_offset,
            times,
            rotations,
            helpers,
            update_micros: micros,
        })
    }
}

/// A bake's state at the grid time before a key off the grid
/// ([`Baker::bake`]).
struct Branch {
    state: Vec<u8>,
    pending: bool,
}

/// The key times of a bake at `rate` of a clip `source` seconds long
/// that runs over `span` seconds (more than `source` for a cycle closed
/// by one key interval): `round(rate × source)`
/// intervals evenly over the source clip, ending on its end, then the
/// span's end if it is later. A key time is `source × k / n` in `f64`,
/// so two rates whose key counts are multiples give their shared keys the
/// same bits.
fn key_times(source: f32, span: f32, rate: f32) -> Vec<f64> {
    let n = ((source * rate).round() as usize).max(1);
    let mut times: Vec<f64> = (0..=n)
        .map(|k| f64::from(source) * k as f64 / n as f64)
        .collect();
    if span > source {
        times.push(f64::from(span));
    }
    times
}

/// The input updates of a bake of a clip `duration` long (its span) with
/// keys at `keys` (from 0 to `duration`, rising): the times of a grid no
/// coarser than the 120 Hz substep, the same at every output rate, merged
/// with the keys' own times; each with the key it writes, if any, and
/// whether it is a time of the grid.
fn input_steps(duration: f32, keys: &[f64]) -> Vec<(f32, Option<usize>, bool)> {
    // Whole steps of the grid: 120 Hz or finer (a clip a hair longer than
    // a whole number of 120 Hz steps is not given one more).
    let grid = ((f64::from(duration) * 120.0 - 1e-2).ceil() as usize).max(1);
    let frames = keys.len() - 1;
    let (mut i, mut k) = (0usize, 0usize);
    let mut steps = Vec::with_capacity(grid + frames + 2);
    // Merged in order. A key at a grid time (equal `f64`s: the same
    // fraction of the same duration) is that grid step's.
    let at = |i: usize| f64::from(duration) * i as f64 / grid as f64;
    while i <= grid || k <= frames {
        let step = if k > frames || (i <= grid && at(i) < keys[k]) {
            i += 1;
            (at(i - 1) as f32, None, true)
        } else if i <= grid && at(i) == keys[k] {
            (i, k) = (i + 1, k + 1);
            (at(i - 1) as f32, Some(k - 1), true)
        } else {
            k += 1;
            (keys[k - 1] as f32, Some(k - 1), false)
        };
        steps.push(step);
    }
    steps
}

/// Each bone's world transform in the reference pose of `desc`.
/// A rig error with the bone's name, as the file calls it, after its index.
pub(crate) fn rig_error(desc: &RigDesc, e: &secmo::RigError) -> String {
    use secmo::RigError as E;
    let bone = match e {
        E::NonFinite { bone, .. }
        | E::ZeroScale { bone }
        | E::ZeroRotation { bone }
        | E::SingularInverseBind { bone }
        | E::Cycle { bone }
        | E::ParentOutOfRange { bone, .. }
        | E::ParentAfterChild { bone, .. } => desc.bones.get(*bone),
        _ => None,
    };
    match bone {
        Some(b) => format!("{e} ({})", b.name),
        None => e.to_string(),
    }
}

fn bind_world(desc: &RigDesc) -> Vec<glam::Affine3A> {
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let pose: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let mut world = vec![glam::Affine3A::IDENTITY; pose.len()];
    secmo::math::forward_kinematics(&parents, &pose, &mut world);
    world
}

/// Flips each key into the hemisphere of the one before it.
fn same_hemisphere<'a>(keys: impl Iterator<Item = &'a mut Quat>) {
    let mut previous: Option<Quat> = None;
    for q in keys {
        if let Some(p) = previous {
            if p.dot(*q) < 0.0 {
                *q = -*q;
            }
        }
        previous = Some(*q);
    }
}

/// Writes `source` (a GLB) to `out` with each baked clip's chain-joint
/// rotation tracks, and its helpers' rotation and translation tracks,
/// replaced by the baked keys. Clips are matched by name.
pub fn write_glb(
    source: &Path,
    out: &Path,
    baker: &Baker,
    baked: &[BakedClip],
) -> anyhow::Result<Option<String>> {
    let joints_nodes = baker.joint_nodes();
    let helper_nodes = baker.helper_nodes();
    let mut glb = crate::glb::Glb::read(source)?;
    let keyed: Vec<usize> = joints_nodes.iter().chain(&helper_nodes).copied().collect();
    matrices_to_trs(&mut glb.json, &keyed)
        .map_err(|e| anyhow::anyhow!("{}: {e}", source.display()))?;
    let animations = glb.json["animations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut new_animations = Vec::new();
    for (a, animation) in animations.into_iter().enumerate() {
        let name = animation["name"]
            .as_str()
            .map_or_else(|| format!("clip{a}"), str::to_string);
        let Some(clip) = baked.iter().find(|b| b.name == name) else {
            new_animations.push(animation);
            continue;
        };
        let mut animation = animation;
        // Drop the authored rotation tracks of the chain joints.
        let channels: Vec<Value> = animation["channels"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|c| {
                // A KHR_animation_pointer channel on a node's transform
                // counts as that node's channel.
                let (node, path) = match crate::import::pointer_target(c) {
                    Some((node, path)) => (Some(node as usize), path),
                    None => (
                        c["target"]["node"].as_u64().map(|n| n as usize),
                        c["target"]["path"].as_str().unwrap_or(""),
                    ),
                };
                let replaced = |nodes: &[usize]| node.is_some_and(|n| nodes.contains(&n));
                !((path == "rotation" && replaced(&joints_nodes))
                    || ((path == "rotation" || path == "translation") && replaced(&helper_nodes)))
            })
            .collect();
        animation["channels"] = Value::Array(channels);
        let input = glb.push_floats(&clip.times, "SCALAR", true);
        let mut tracks: Vec<(usize, &str, Vec<f32>, &str)> = Vec::new();
        for (k, &node) in joints_nodes.iter().enumerate() {
            let data = clip.rotations[k]
                .iter()
                .flat_map(|q| q.to_array())
                .collect();
            tracks.push((node, "rotation", data, "VEC4"));
        }
        for (k, &node) in helper_nodes.iter().enumerate() {
            let keys = &clip.helpers[k];
            let t = keys.iter().flat_map(|(t, _)| t.to_array()).collect();
            let r = keys.iter().flat_map(|(_, r)| r.to_array()).collect();
            tracks.push((node, "translation", t, "VEC3"));
            tracks.push((node, "rotation", r, "VEC4"));
        }
        for (node, path, data, kind) in tracks {
            let output = glb.push_floats(&data, kind, false);
            let samplers = animation["samplers"]
                .as_array_mut()
                .ok_or_else(|| anyhow::anyhow!("animations[{a}].samplers is not an array"))?;
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            let sampler = samplers.len() - 1;
            animation["channels"]
                .as_array_mut()
                .ok_or_else(|| anyhow::anyhow!("animations[{a}].channels is not an array"))?
                .push(json!({"sampler": sampler, "target": {"node": node, "path": path}}));
        }
        new_animations.push(animation);
    }
    // glTF forbids an empty `animations` array (the validator's EMPTY_ENTITY).
    if new_animations.is_empty() {
        if let Some(root) = glb.json.as_object_mut() {
            root.remove("animations");
        }
    } else {
        glb.json["animations"] = Value::Array(new_animations);
    }
    // The file's VRM spring bones are baked into its clips: a VRM player
    // that still found them would run them again over the baked keys (and
    // three-vrm's and UniVRM's overwrite a joint's keyed rotation). They
    // go when every clip was baked; a clip left out keeps its springs.
    let note = match &baker.imported.spring_bones {
        Some(_)
            if baker
                .imported
                .clips
                .iter()
                .all(|c| baked.iter().any(|b| b.name == c.name)) =>
        {
            drop_spring_bones(&mut glb.json);
            Some(
                "the VRM spring bones are baked into every clip: the copy leaves them out, so \
                 that a VRM player does not run them again over the baked keys"
                    .to_string(),
            )
        }
        Some(_) => Some(
            "the VRM spring bones are kept, since not every clip was baked: a VRM player runs \
             them over the baked clips too"
                .to_string(),
        ),
        None => None,
    };
    glb.conform();
    glb.write(out)?;
    Ok(note)
}

/// The VRM spring bones of a glTF's JSON left out: VRM 1.0's
/// `VRMC_springBone` (with its collider and limit extensions, which live
/// inside it) from `extensions`, `extensionsUsed` and
/// `extensionsRequired`; VRM 0.x's `secondaryAnimation` emptied (its
/// `VRM` extension also holds the humanoid and the meta, which stay).
pub fn drop_spring_bones(json: &mut Value) {
    const SPRING: [&str; 3] = [
        "VRMC_springBone",
        "VRMC_springBone_extended_collider",
        "VRMC_springBone_limit",
    ];
    if let Some(extensions) = json["extensions"].as_object_mut() {
        extensions.remove("VRMC_springBone");
        if let Some(vrm) = extensions.get_mut("VRM").and_then(Value::as_object_mut) {
            if vrm.contains_key("secondaryAnimation") {
                vrm.insert(
                    "secondaryAnimation".into(),
                    json!({"boneGroups": [], "colliderGroups": []}),
                );
            }
        }
    }
    for list in ["extensionsUsed", "extensionsRequired"] {
        let Some(root) = json.as_object_mut() else {
            return;
        };
        if let Some(names) = root.get_mut(list).and_then(Value::as_array_mut) {
            names.retain(|n| !n.as_str().is_some_and(|n| SPRING.contains(&n)));
            if names.is_empty() {
                root.remove(list);
            }
        }
    }
}

/// glTF forbids animating a node given by `matrix` (the validator's
/// ANIMATION_CHANNEL_TARGET_NODE_MATRIX): each of `nodes` that has one gets
/// its translation, rotation and scale instead, the decomposition the
/// importer reads it as. A matrix that is not a translation, rotation and
/// scale (shear, a projective row) cannot be keyed and is refused by name.
pub fn matrices_to_trs(json: &mut Value, nodes: &[usize]) -> Result<(), String> {
    for &n in nodes {
        let Some(node) = json["nodes"].get_mut(n).and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(matrix) = node.get("matrix") else {
            continue;
        };
        let at = format!("nodes[{n}].matrix");
        let m: Vec<f32> = matrix
            .as_array()
            .filter(|a| a.len() == 16)
            .and_then(|a| a.iter().map(|x| x.as_f64().map(|f| f as f32)).collect())
            .ok_or_else(|| format!("{at}: not 16 numbers"))?;
        let m = Mat4::from_cols_slice(&m);
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let back = Mat4::from_scale_rotation_translation(scale, rotation, translation);
        let size = m.to_cols_array().iter().fold(1.0f32, |a, x| a.max(x.abs()));
        let off = (back - m)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, x| a.max(x.abs()));
        if off.is_nan() || off > 1e-5 * size || !rotation.is_finite() {
            return Err(format!(
                "{at}: not a translation, rotation and scale (it has shear or a projective \
                 row); bake keys this node's rotation, which glTF allows only on a node given \
                 by translation, rotation and scale"
            ));
        }
        node.remove("matrix");
        node.insert("translation".into(), json!(translation.to_array()));
        node.insert("rotation".into(), json!(rotation.normalize().to_array()));
        node.insert("scale".into(), json!(scale.to_array()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_flipped_into_one_hemisphere() {
        // A 179.7° turn between keys written as q and −q' reads as a spin
        // the long way in engines that interpolate components.
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.2);
        let c = Quat::from_rotation_y(0.3);
        let mut keys = [a, b, c];
        same_hemisphere(keys.iter_mut());
        assert!(keys.windows(2).all(|w| w[0].dot(w[1]) > 0.0));
        assert!(
            angle(keys[1], Quat::from_rotation_y(0.2)) < 1e-6,
            "same rotation"
        );
    }

    /// The input grid does not depend on the output rate, every key is
    /// written once and in order, and keys at the same time at two rates
    /// have the same bits (so the branches that read them start from the
    /// same grid state).
    #[test]
    fn the_input_grid_is_the_same_at_every_rate() {
        // A 24 Hz clip's length, a 1/30 s one, a cycle closed by one 24 Hz
        // key interval, an odd one; at 30, 60 and 120 Hz and at 25 and 47.
        for (source, span) in [
            (17.0 / 24.0, 17.0 / 24.0),
            (1.5, 1.5),
            (13.0 / 24.0, 14.0 / 24.0),
            (0.6131, 0.6131),
        ] {
            let (source, span): (f32, f32) = (source, span);
            let grid_of = |rate: f32| {
                let keys = key_times(source, span, rate);
                let steps = input_steps(span, &keys);
                let mut written = Vec::new();
                for (i, s) in steps.iter().enumerate() {
                    if let Some(k) = s.1 {
                        written.push(k);
                        assert_eq!(s.0, keys[k] as f32, "{source} {rate}: key {k}'s time");
                    }
                    if i > 0 {
                        assert!(s.0 >= steps[i - 1].0, "{source} {rate}: in order");
                    }
                }
                assert_eq!(written, (0..keys.len()).collect::<Vec<_>>());
                let last = steps.last().unwrap();
                assert!(last.2 && last.1 == Some(keys.len() - 1) && last.0 == span);
                // The source clip's last key is its end.
                assert!(keys.iter().any(|&t| t as f32 == source));
                let grid: Vec<u32> = steps
                    .iter()
                    .filter(|s| s.2)
                    .map(|s| s.0.to_bits())
                    .collect();
                (grid, keys)
            };
            let (grid30, _) = grid_of(30.0);
            for rate in [60.0, 120.0, 25.0, 47.0] {
                assert_eq!(grid_of(rate).0, grid30, "{source} s: the grid at {rate} Hz");
            }
            // n, 2n and 4n keys over the clip (report::study_rates): every
            // key of the first is a key of the others, to the bit.
            let n = (source * 30.0).round();
            let keys: Vec<Vec<f64>> = [1.0, 2.0, 4.0]
                .iter()
                .map(|m| grid_of(m * n / source).1)
                .collect();
            let own = keys[0].len() - 1 - usize::from(span > source);
            assert_eq!(own, n as usize);
            for (m, faster) in [(2, &keys[1]), (4, &keys[2])] {
                for k in 0..=own {
                    assert_eq!(
                        keys[0][k].to_bits(),
                        faster[m * k].to_bits(),
                        "{source} s, key {k}"
                    );
                }
            }
        }
    }
}
