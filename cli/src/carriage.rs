//! The tail's carriage and swing against the artist's (issue #17 item 1,
//! docs/chains.md "Around the animation"): where the tail's tip sits on
//! average in the frame of the bone that carries it, and how far it swings
//! about that mean.

use glam::{Affine3A, Quat, Vec3};
use secmo::math::forward_kinematics;

use crate::bake::Baker;
use crate::import::Clip;

/// Samples per clip, evenly over its keys (as the issue measured).
pub const SAMPLES: usize = 24;

/// A chain's tip over a clip, in its anchor's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carriage {
    /// Mean tip position relative to the chain's first joint, rig units.
    pub mean: Vec3,
    /// RMS distance of the tip from that mean, rig units.
    pub swing: f32,
}

impl Carriage {
    /// Degrees between this carriage's mean direction and `other`'s.
    #[must_use]
    pub fn direction_error(&self, other: &Carriage) -> f32 {
        self.mean.angle_between(other.mean).to_degrees()
    }
}

/// The carriage of the baker's `chain` over `clip` at the key `times`: as the
/// clip animates it (`rotations` None), or with the chain joints' keys
/// `rotations` (a bake's, one track per baker joint).
#[must_use]
pub fn carriage(
    baker: &Baker,
    chain: usize,
    clip: &Clip,
    times: &[f32],
    rotations: Option<&[Vec<Quat>]>,
) -> Carriage {
    let rig = &baker.rig;
    let setup = &rig.chains()[chain];
    let (anchor, first) = (setup.anchor as usize, setup.joints[0] as usize);
    let tip = *setup.joints.last().expect("chains have joints") as usize;
    let mut component = vec![Affine3A::IDENTITY; rig.bone_count()];
    let mut pose = rig.reference_pose().to_vec();
    let keys = times.len().saturating_sub(1).max(1);
    let tips: Vec<Vec3> = (0..SAMPLES)
        .map(|s| {
            let f = (s * keys / SAMPLES).min(times.len() - 1);
            baker.keyed_pose(clip, times[f], rotations.map(|r| (r, f)), &mut pose);
            forward_kinematics(rig.parents(), &pose, &mut component);
            let local = component[anchor].inverse();
            local.transform_point3(component[tip].translation.into())
                - local.transform_point3(component[first].translation.into())
        })
        .collect();
    let mean = tips.iter().copied().sum::<Vec3>() / SAMPLES as f32;
    let swing = (tips
        .iter()
        .map(|t| (*t - mean).length_squared())
        .sum::<f32>()
        / SAMPLES as f32)
        .sqrt();
    Carriage { mean, swing }
}

/// A tail chain run through the C ABI on a clip against the clip's own
/// keys (issue #48's measures; docs/chains.md "Around the animation").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fidelity {
    /// Degrees between the mean root→tip directions, secmo's and the
    /// clip's, in the tail root's parent frame.
    pub carriage_error: f32,
    /// Tip swing (RMS of the tip about its mean, in that frame), secmo's
    /// over the clip's.
    pub swing_ratio: f32,
    /// The clip's tip swing over the tail's length (its mean root-to-tip
    /// distance): issue #48 holds the swing ratio only where this is above
    /// 1 % (a tail the clip keys still has no swing to keep).
    pub artist_swing_share: f32,
    /// The largest turn of a chain joint's local rotation from one key to
    /// the next, degrees: secmo's and the clip's.
    pub largest_step: (f32, f32),
    /// Share of keys on which some link's turn from the clip's pose,
    /// relative to the link before it, is within 0.5° of the chain's bend
    /// limit.
    pub limit_share: f32,
    /// How far secmo's tip sits from the clip's, mean over the keys, rig
    /// units (positive: below it, along the parent frame's up).
    pub mean_tip_offset: Vec3,
}

/// Runs the file's tail (bones named *tail*) on the tail preset (or
/// `params`) through `secmo_rig_create` / `secmo_character_update`, the
/// clip sampled at `rate` Hz by the tool's sampler and fed frame by frame,
/// twice over (the second pass is measured, `SAMPLES`-independent: every
/// frame).
///
/// # Panics
/// When the file has no tail or the library refuses the rig or a frame.
#[must_use]
pub fn runtime_fidelity(
    imported: &crate::import::Imported,
    clip: &Clip,
    (rate, units_per_meter): (f32, f32),
    params: Option<secmo::ChainParams>,
) -> Fidelity {
    use secmo::ffi::*;
    let bones = &imported.skeleton.bones;
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    let reference: Vec<secmo::Transform> = bones.iter().map(|b| b.reference).collect();
    let tail: Vec<u32> = imported.tail().iter().map(|&b| b as u32).collect();
    assert!(!tail.is_empty(), "no tail");
    let anchor = bones[tail[0] as usize].parent;
    let params = params.unwrap_or_else(|| secmo::ChainParams::tail(units_per_meter));
    // As `bake` holds it: a one-shot's first pose is held in the rest the
    // clip plays in (`rest_source` auto over the whole clip).
    let wrap = clip.wrap(&reference);
    let held = (!wrap.is_cycle()
        && params.rest_source == secmo::ChainParams::REST_AUTO
        && clip.animates(&reference, &tail))
    .then_some(secmo::ChainParams {
        rest_source: secmo::ChainParams::REST_ANIMATED,
        ..params
    });
    let chain = SecmoChainDesc {
        struct_size: core::mem::size_of::<SecmoChainDesc>() as u32,
        anchor: anchor as u32,
        joints: tail.as_ptr(),
        joint_count: tail.len() as u32,
        preset: SECMO_CHAIN_TAIL,
        params: held.as_ref().unwrap_or(&params),
        radii: core::ptr::null(),
        weights: core::ptr::null(),
        colliders: core::ptr::null(),
        collider_count: 0,
        has_end_offset: 0,
        end_offset: [0.0; 3],
    };
    // SAFETY: every pointer is live for the calls and sized as declared.
    let desc = SecmoRigDesc {
        struct_size: core::mem::size_of::<SecmoRigDesc>() as u32,
        bone_count: bones.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter,
        up_axis: SECMO_UP_AXIS_Y,
        chains: &chain,
        chain_count: 1,
        ..SecmoRigDesc::default()
    };
    // As `bake` plays it: a cycle without its closing key plays its last
    // interval back into its first pose; a one-shot starts from its first
    // pose, held for one pass (an engine cuts into it from a still tail).
    let looped = wrap.is_cycle();
    let closed;
    let clip = if looped && wrap.lacks_closing_key() {
        closed = clip.closed(clip.key_interval());
        &closed
    } else {
        clip
    };
    let frames = ((clip.duration * rate).round() as usize).max(1);
    let dt = clip.duration / frames as f32;
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    unsafe {
        let mut rig = core::ptr::null_mut();
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        let mut character = core::ptr::null_mut();
        assert_eq!(
            secmo_character_create(rig, core::ptr::null(), &mut character),
            SECMO_OK
        );
        let mut pose = reference.clone();
        let mut out = reference.clone();
        for pass in 0..2 {
            if pass == 1 && held.is_some() {
                assert_eq!(
                    secmo_character_set_chain_params(character, 0, &params),
                    SECMO_OK
                );
            }
            for f in 0..frames {
                pose.copy_from_slice(&reference);
                let t = if pass == 0 && !looped {
                    0.0
                } else {
                    f as f32 * dt
                };
                clip.sample(t, &mut pose);
                let input = SecmoFrameInput {
                    struct_size: core::mem::size_of::<SecmoFrameInput>() as u32,
                    flags: 0,
                    dt: if pass == 0 && f == 0 { 0.0 } else { dt },
                    pose: pose.as_ptr(),
                    pose_len: pose.len(),
                    world: secmo::Transform::IDENTITY,
                    importance: 1.0,
                };
                assert_eq!(
                    secmo_character_update(
                        character,
                        &input,
                        out.as_mut_ptr(),
                        out.len(),
                        core::ptr::null_mut()
                    ),
                    SECMO_OK
                );
                if pass == 1 {
                    inputs.push(pose.clone());
                    outputs.push(out.clone());
                }
            }
        }
        secmo_character_destroy(character);
        secmo_rig_destroy(rig);
    }
    let parent = anchor as usize;
    let (root, tip) = (tail[0] as usize, *tail.last().expect("a tail") as usize);
    let mut component = vec![Affine3A::IDENTITY; bones.len()];
    let mut along = |poses: &[Vec<secmo::Transform>]| -> (Vec<Vec3>, Vec<Vec<Vec3>>) {
        poses
            .iter()
            .map(|pose| {
                forward_kinematics(&parents, pose, &mut component);
                // The parent's frame without its scale: offsets in the
                // file's units (a rig under a ×0.01 node measured in its
                // parent's scaled units read 100 times too long).
                let (_, rotation, translation) = component[parent].to_scale_rotation_translation();
                let local =
                    glam::Affine3A::from_rotation_translation(rotation, translation).inverse();
                let at = |b: usize| local.transform_point3(component[b].translation.into());
                let links = tail
                    .windows(2)
                    .map(|w| (at(w[1] as usize) - at(w[0] as usize)).normalize_or_zero())
                    .collect();
                (at(tip) - at(root), links)
            })
            .unzip()
    };
    let (artist, keyed) = along(&inputs);
    let (ours, links) = along(&outputs);
    let mean = |v: &[Vec3]| v.iter().copied().sum::<Vec3>() / v.len() as f32;
    let mean_dir = |v: &[Vec3]| mean(&v.iter().map(|d| d.normalize_or_zero()).collect::<Vec<_>>());
    let swing = |v: &[Vec3]| {
        let m = mean(v);
        (v.iter().map(|t| (*t - m).length_squared()).sum::<f32>() / v.len() as f32).sqrt()
    };
    let step = |poses: &[Vec<secmo::Transform>]| {
        let mut largest = 0f32;
        for w in poses.windows(2) {
            for &j in &tail {
                let (a, b) = (w[0][j as usize].rotation(), w[1][j as usize].rotation());
                largest = largest.max(crate::bake::angle(a, b).to_degrees());
            }
        }
        largest
    };
    let limit = params.bend_limit;
    // The bend limit acts on each link's turn from its rest relative to the
    // link before it (the first against the anchor); around the animation
    // the rest is the clip's pose.
    let near = links
        .iter()
        .zip(&keyed)
        .filter(|(l, k)| {
            let turns: Vec<Quat> = l
                .iter()
                .zip(k.iter())
                .map(|(d, r)| secmo::math::rotation_arc(*r, *d))
                .collect();
            (0..turns.len()).any(|i| {
                let before = if i == 0 { Quat::IDENTITY } else { turns[i - 1] };
                crate::bake::angle(before, turns[i]) > limit - 0.5f32.to_radians()
            })
        })
        .count();
    Fidelity {
        carriage_error: mean_dir(&ours)
            .angle_between(mean_dir(&artist))
            .to_degrees(),
        swing_ratio: swing(&ours) / swing(&artist),
        artist_swing_share: swing(&artist)
            / mean(
                &artist
                    .iter()
                    .map(|d| Vec3::splat(d.length()))
                    .collect::<Vec<_>>(),
            )
            .x,
        largest_step: (step(&outputs), step(&inputs)),
        limit_share: near as f32 / links.len() as f32,
        mean_tip_offset: mean(&artist) - mean(&ours),
    }
}

/// Issue #48's acceptance measures of one clip (docs/chains.md "The
/// animals, bar by bar"): the runtime's, through the C ABI at 60 Hz input
/// ([`runtime_fidelity`]), and the bake's, as `secmo report` measures it.
#[derive(Clone, Debug)]
pub struct Acceptance {
    /// Through the C ABI at 60 Hz, on the tail preset.
    pub fidelity: Fidelity,
    /// Tail stretch p99 (docs/algorithms.md §10): the bake's and the clip's.
    pub stretch: (f32, f32),
    /// Torn share of the tail's edge samples, percent: the bake's and the clip's.
    pub torn: (f32, f32),
    /// The deepest a skinned tail vertex goes into a body capsule, as a
    /// share of that capsule's radius (0 without capsules): the bake's and
    /// the clip's.
    pub skin_depth: (f32, f32),
    /// Largest tail rotation difference between the bakes at the report's
    /// three rates (about 30, 60 and 120 Hz, whole keys per clip), degrees.
    pub rate: f32,
    /// A looped bake's wrap: the tail's largest turn across the seam, and
    /// the clip's own across its last interval, degrees (None: a one-shot).
    pub wrap: Option<(f32, f32)>,
}

impl Acceptance {
    /// Measures `clip` of `baker`'s file (`units_per_meter` as the tool
    /// inferred it).
    ///
    /// # Errors
    /// When the bake or the report fails.
    pub fn measure(baker: &Baker, clip: &Clip, units_per_meter: f32) -> anyhow::Result<Self> {
        let options = crate::bake::BakeOptions::default();
        let fidelity = runtime_fidelity(&baker.imported, clip, (60.0, units_per_meter), None);
        let report = crate::report::measure(baker, clip, &options)?;
        let (ours, artist) = (
            report
                .secmo
                .ok_or_else(|| anyhow::anyhow!("{}: no tail edges", clip.name))?,
            report
                .original
                .ok_or_else(|| anyhow::anyhow!("{}: no tail edges", clip.name))?,
        );
        let baked = baker.bake(clip, &options, true)?;
        let wrap = baked.looped.then(|| {
            // The clip's own wrap: its last pose against its first (a
            // cycle that lacks its closing key steps one key interval).
            let bind = baker.rig.reference_pose();
            let (mut first, mut last) = (bind.to_vec(), bind.to_vec());
            clip.sample(0.0, &mut first);
            clip.sample(clip.duration, &mut last);
            let artist = baker
                .joints
                .iter()
                .map(|&j| crate::rotation::angle(first[j].rotation(), last[j].rotation()))
                .fold(0.0f32, f32::max);
            (baked.closing_error.to_degrees(), artist.to_degrees())
        });
        Ok(Self {
            fidelity,
            stretch: (ours.p99, artist.p99),
            torn: (ours.torn_percent, artist.torn_percent),
            skin_depth: report
                .skin_penetration
                .map_or((0.0, 0.0), |[artist, ours]| (ours.share, artist.share)),
            rate: report.rate_difference[0]
                .max(report.rate_difference[1])
                .to_degrees(),
            wrap,
        })
    }

    /// The bars of issue #48 this clip misses, by name (empty: it meets
    /// every one).
    #[must_use]
    pub fn misses(&self) -> Vec<&'static str> {
        let f = &self.fidelity;
        let mut out = Vec::new();
        if f.carriage_error > 10.0 {
            out.push("carriage");
        }
        if f.artist_swing_share > 0.01 && !(0.5..=1.5).contains(&f.swing_ratio) {
            out.push("swing");
        }
        if f.largest_step.0 > 2.0 * f.largest_step.1 + 2.0 {
            out.push("step");
        }
        if f.limit_share > 0.2 {
            out.push("limit");
        }
        if self.stretch.0 > self.stretch.1 + Self::STRETCH_RESOLUTION {
            out.push("stretch");
        }
        if self.torn.0 > self.torn.1 {
            out.push("torn");
        }
        if self.skin_depth.0 > 0.1 {
            out.push("body");
        }
        if self.rate > 0.5 {
            out.push("rate");
        }
        if self.wrap.is_some_and(|(ours, artist)| ours > artist + 1.0) {
            out.push("wrap");
        }
        out
    }

    /// How far above the clip's stretch p99 the tail's may be and still
    /// count as no more: the measure's own resolution. A tail that rides
    /// its keys (`animation_inertia` 0) reproduces them within float
    /// rounding, and the measure then differs from the clip's by up to
    /// 2.0e-5 either way on the 76 clips of tests/assets (docs/chains.md
    /// "The animals, bar by bar"); 1e-4 of an edge's length is five times
    /// that, and the last of the four decimals the table shows.
    pub const STRETCH_RESOLUTION: f32 = 1e-4;

    /// The table's header ([`Acceptance::row`]).
    pub const HEADER: &'static str = "| animal | clip | carriage off | swing | largest step (artist's) \
        | at the limit | stretch p99 (artist's) | torn (artist's) | skin into a capsule (artist's) \
        | 30/60/120 Hz | loop wrap (artist's) | misses |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";

    /// One markdown row.
    #[must_use]
    pub fn row(&self, animal: &str, clip: &str) -> String {
        let f = &self.fidelity;
        let misses = self.misses();
        format!(
            "| {animal} | {clip} | {:.1}° | {} | {:.1}° ({:.1}°) | {:.0} % | {:.4} ({:.4}) | {:.2} % ({:.2} %) | {:.0} % ({:.0} %) | {:.2}° | {} | {} |\n",
            f.carriage_error,
            if f.artist_swing_share > 0.01 {
                format!("{:.0} %", 100.0 * f.swing_ratio)
            } else {
                format!("— ({:.1} % of the tail)", 100.0 * f.artist_swing_share)
            },
            f.largest_step.0,
            f.largest_step.1,
            100.0 * f.limit_share,
            self.stretch.0,
            self.stretch.1,
            self.torn.0,
            self.torn.1,
            100.0 * self.skin_depth.0,
            100.0 * self.skin_depth.1,
            self.rate,
            self.wrap
                .map_or_else(|| "one-shot".to_owned(), |(o, a)| format!("{o:.1}° ({a:.1}°)")),
            if misses.is_empty() {
                "—".to_owned()
            } else {
                misses.join(", ")
            },
        )
    }
}
