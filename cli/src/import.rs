//! glTF 2.0 / GLB / VRM import for the tool (issue #5): the skeleton (the
//! same bones and names as `secmo::vrm`), skins, animation clips with their
//! interpolation, VRM spring bones when present, and a tail found by name.
//! Meshes are not read yet.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use glam::Quat;
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use secmo::vrm::{self, Skeleton, VrmImport};
use secmo::Transform;

/// One animated property of one bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub bone: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Key times, seconds, increasing.
    pub times: Vec<f32>,
    /// One value per key (xyz in 0..3 for translation and scale, xyzw for
    /// rotation); three per key for cubic splines (in-tangent, value,
    /// out-tangent), as glTF stores them.
    pub values: Vec<[f32; 4]>,
}

/// How a clip's ends meet ([`Clip::wrap`]), in units of the clip's median
/// key-to-key motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wrap {
    /// The median whole-body motion between consecutive keys, radians.
    pub step: f32,
    /// From the last pose to the first.
    pub closed: f32,
    /// From the last pose extrapolated by one key interval to the first.
    pub open: f32,
}

impl Wrap {
    /// At most this many key steps apart, the ends meet as a cycle's do.
    /// Measured on 90 clips (the Fox, RobotExpressive, the seven animals):
    /// cycles meet within 1.1 steps (a walk without its closing key), while
    /// one-shots end 3.5 (a jump to idle) to 16 (a death) steps away.
    pub const CYCLE_STEPS: f32 = 2.0;

    /// Whether the clip is a cycle.
    #[must_use]
    pub fn is_cycle(&self) -> bool {
        self.closed.min(self.open) <= Self::CYCLE_STEPS
    }

    /// A cycle whose last pose is at least this many key steps from its
    /// first lacks its closing key (with it, the two coincide).
    pub const CLOSING_KEY_STEPS: f32 = 0.25;

    /// Whether a cycle lacks its closing key: its last pose is a fraction
    /// of a step or more from its first, where a closing key would repeat
    /// the first.
    #[must_use]
    pub fn lacks_closing_key(&self) -> bool {
        self.closed >= Self::CLOSING_KEY_STEPS
    }
}

/// An animation clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub name: String,
    /// The last key time over all channels.
    pub duration: f32,
    pub channels: Vec<Channel>,
}

/// What the tool imported from one file.
#[derive(Clone, Debug)]
pub struct Imported {
    pub path: PathBuf,
    pub skeleton: Skeleton,
    /// Bone indices of each skin's joints.
    pub skins: Vec<Vec<usize>>,
    pub clips: Vec<Clip>,
    /// VRM spring bones, when the file has them (its skeleton then may have
    /// the extra scene-root bone; `skeleton` above never does).
    pub spring_bones: Option<VrmImport>,
    /// Skinned triangle meshes (one per primitive).
    pub meshes: Vec<SkinnedMesh>,
    /// What was read only in part, e.g. a mesh whose buffer is missing.
    pub warnings: Vec<String>,
    /// secmo rig settings stored in the file (`extras.secmo_rig_settings`,
    /// written by `secmo rig` and the demo).
    pub rig_settings: Option<secmo::RigSettings>,
    /// Corners of the bounding boxes of the meshes that are not skinned
    /// (rigid parts parented to bones), in their node's rest world frame,
    /// and of skinned meshes secmo cannot read (Draco), placed at rest by
    /// their first joint.
    pub rigid_corners: Vec<glam::Vec3>,
    /// The tail's first bone as the user named it (`--tail BONE`):
    /// [`Imported::tail`] follows it to its tip instead of looking for
    /// bones named *tail* ([`Imported::name_tail`]).
    pub tail_bone: Option<String>,
}

/// A skinned triangle primitive, ready for linear blend skinning.
#[derive(Clone, Debug, Default)]
pub struct SkinnedMesh {
    pub name: String,
    /// Where it came from: glTF mesh, primitive and skin indices.
    pub mesh: usize,
    pub primitive: usize,
    pub skin: usize,
    pub positions: Vec<glam::Vec3>,
    /// Four (bone, weight) influences per vertex; bones are skeleton indices.
    pub influences: Vec<[(u32, f32); 4]>,
    /// The inverse bind matrix of each bone this mesh uses (identity for
    /// the others), indexed by bone.
    pub inverse_bind: Vec<glam::Affine3A>,
    pub triangles: Vec<[u32; 3]>,
}

/// Words that name a tail bone, lowercase: English, and the German,
/// French, Japanese and Chinese words rigs from those tools use (a wolf
/// rigged with `Schwanz_1` … `Schwanz_4` had no tail).
const TAIL_WORDS: [&str; 6] = ["tail", "schwanz", "queue", "しっぽ", "尻尾", "尾巴"];

impl Imported {
    /// The tail chain, root first: from the bone named with `--tail`
    /// ([`Imported::name_tail`]) down to its tip, each bone's child being
    /// the one with the longest line of descendants; otherwise the longest
    /// parent-linked run of bones whose names contain a word for tail
    /// (any case; `TAIL_WORDS`). Unskinned end bones are left out.
    pub fn tail(&self) -> Vec<usize> {
        let bones = &self.skeleton.bones;
        if let Some(start) = self
            .tail_bone
            .as_ref()
            .and_then(|name| bones.iter().position(|b| &b.name == name))
        {
            return self.without_end_nubs(self.line_down(start));
        }
        let is_tail: Vec<bool> = bones
            .iter()
            .map(|b| {
                let name = b.name.to_lowercase();
                TAIL_WORDS.iter().any(|w| name.contains(w))
            })
            .collect();
        // The first tail child of each bone: linear in the bone count.
        let mut tail_child = vec![usize::MAX; bones.len()];
        for (c, b) in bones.iter().enumerate().rev() {
            if let Ok(p) = usize::try_from(b.parent) {
                if is_tail[c] && p < bones.len() {
                    tail_child[p] = c;
                }
            }
        }
        let mut best: Vec<usize> = Vec::new();
        for start in (0..bones.len()).filter(|&i| is_tail[i]) {
            let parent = bones[start].parent;
            if parent >= 0 && is_tail[parent as usize] {
                continue; // not the start of a run
            }
            let mut run = vec![start];
            let mut at = start;
            while let Some(&next) = tail_child.get(at).filter(|&&c| c != usize::MAX) {
                run.push(next);
                at = next;
            }
            if run.len() > best.len() {
                best = run;
            }
        }
        self.without_end_nubs(best)
    }

    /// [`import`], then [`Imported::name_tail`] where `tail` names a bone
    /// (`--tail BONE`).
    pub fn with_tail(path: &Path, tail: Option<&str>) -> anyhow::Result<Self> {
        let mut imported = import(path)?;
        if let Some(bone) = tail {
            imported.name_tail(bone)?;
        }
        Ok(imported)
    }

    /// Names the tail's first bone (`--tail BONE`): [`Imported::tail`]
    /// then follows it to its tip. An error names the file and the bone
    /// when no bone has that name (listing the bones) or the bone has no
    /// child (a chain needs two joints); the tail is then left as it was.
    pub fn name_tail(&mut self, bone: &str) -> anyhow::Result<()> {
        let bones = &self.skeleton.bones;
        let Some(start) = bones.iter().position(|b| b.name == bone) else {
            let names: Vec<&str> = bones.iter().map(|b| b.name.as_str()).collect();
            anyhow::bail!(
                "{}: --tail {bone:?}: no bone has that name; its {} bones: {}",
                self.path.display(),
                bones.len(),
                names.join(", ")
            );
        };
        if self.line_down(start).len() < 2 {
            anyhow::bail!(
                "{}: --tail {bone:?}: the bone has no child; name the tail's first bone",
                self.path.display()
            );
        }
        self.tail_bone = Some(bone.to_owned());
        Ok(())
    }

    /// `start` and its descendants down one line: at each bone the child
    /// with the most generations below it (the first such child on a tie).
    fn line_down(&self, start: usize) -> Vec<usize> {
        let bones = &self.skeleton.bones;
        // Generations below each bone; parents precede children in the
        // skeleton's order, so one pass from the end fills them.
        let mut below = vec![0usize; bones.len()];
        let mut best_child = vec![usize::MAX; bones.len()];
        for (c, b) in bones.iter().enumerate().rev() {
            let Ok(p) = usize::try_from(b.parent) else {
                continue;
            };
            let depth = below[c] + 1;
            if p < c && (depth > below[p] || (depth == below[p] && c < best_child[p])) {
                best_child[p] = c;
                below[p] = depth;
            }
        }
        let mut line = vec![start];
        let mut at = start;
        // Each child comes after its parent: the line ends.
        while best_child[at] != usize::MAX {
            at = best_child[at];
            line.push(at);
        }
        line
    }

    /// `run` without the unskinned end bones an export appends to a chain
    /// (`Tail4_end`, `Tail4_end_end`, …): after the last bone with skin
    /// weight, the next bone stays as the chain's tip marker where its link
    /// is at least a quarter as long as the link before it (Quaternius'
    /// `Tail6_end`); the rest go. A 1 cm nub aiming the last joint let
    /// gravity hang that joint on its bend limit. Without a marker the
    /// last joint extends along its incoming tangent (docs/algorithms.md
    /// §7, the missing end helper).
    fn without_end_nubs(&self, mut run: Vec<usize>) -> Vec<usize> {
        if self.meshes.is_empty() || run.len() < 3 {
            return run;
        }
        let skinned = |b: usize| {
            self.meshes.iter().any(|m| {
                m.influences
                    .iter()
                    .any(|inf| inf.iter().any(|&(j, w)| j as usize == b && w > 0.0))
            })
        };
        let Some(last) = run.iter().rposition(|&b| skinned(b)) else {
            return run;
        };
        if last < 1 || last + 1 >= run.len() {
            return run;
        }
        let bones = &self.skeleton.bones;
        let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
        let local: Vec<Transform> = bones.iter().map(|b| b.reference).collect();
        let mut component = vec![glam::Affine3A::IDENTITY; bones.len()];
        secmo::math::forward_kinematics(&parents, &local, &mut component);
        let at = |b: usize| glam::Vec3::from(component[b].translation);
        let before = at(run[last]).distance(at(run[last - 1]));
        let marker = at(run[last + 1]).distance(at(run[last]));
        run.truncate(if marker >= 0.25 * before {
            last + 2
        } else {
            last + 1
        });
        run
    }

    /// The same character with [`vrm::SCENE_ROOT`], an identity bone, above
    /// the glTF scene roots, as `secmo::vrm` adds it when a spring starts at
    /// a scene root (a chain needs a parent frame to hold its rest arc in):
    /// every bone index (skins, clip channels, mesh influences, inverse
    /// binds) moves up by one, so the file's springs, clips and meshes drive
    /// one rig. Nothing changes for the nodes: the added bone has none.
    /// `None` when the skeleton already has it.
    #[must_use]
    pub fn under_scene_root(&self) -> Option<Imported> {
        if self
            .skeleton
            .bones
            .first()
            .is_some_and(|b| b.name == vrm::SCENE_ROOT)
        {
            return None;
        }
        let mut out = self.clone();
        let root = secmo::BoneDesc::new(vrm::SCENE_ROOT, -1, Transform::IDENTITY);
        out.skeleton.bones = std::iter::once(root)
            .chain(self.skeleton.bones.iter().map(|b| secmo::BoneDesc {
                parent: b.parent.max(-1) + 1,
                ..b.clone()
            }))
            .collect();
        for b in &mut out.skeleton.bone_of_node {
            *b += 1;
        }
        for skin in &mut out.skins {
            for b in skin {
                *b += 1;
            }
        }
        for channel in out.clips.iter_mut().flat_map(|c| &mut c.channels) {
            channel.bone += 1;
        }
        for mesh in &mut out.meshes {
            for (b, _) in mesh.influences.iter_mut().flatten() {
                *b += 1;
            }
            mesh.inverse_bind.insert(0, glam::Affine3A::IDENTITY);
        }
        Some(out)
    }
}

impl Clip {
    /// Largest rotation (radians) and translation (rig units) difference
    /// between the clip's first and last poses, over every bone it animates.
    #[must_use]
    pub fn seam(&self, bind: &[Transform]) -> (f32, f32) {
        let (mut first, mut last) = (bind.to_vec(), bind.to_vec());
        self.sample(0.0, &mut first);
        self.sample(self.duration, &mut last);
        first
            .iter()
            .zip(&last)
            .fold((0.0f32, 0.0f32), |(r, t), (a, b)| {
                (
                    r.max(crate::rotation::angle(a.rotation(), b.rotation())),
                    t.max(a.translation().distance(b.translation())),
                )
            })
    }

    /// The clip's key interval: the median interval between consecutive
    /// keys over all its channels (1/30 s for a clip with one key).
    #[must_use]
    pub fn key_interval(&self) -> f32 {
        let mut intervals: Vec<f32> = self
            .channels
            .iter()
            .flat_map(|c| c.times.windows(2).map(|w| w[1] - w[0]))
            .filter(|d| *d > 0.0)
            .collect();
        intervals.sort_by(f32::total_cmp);
        intervals
            .get(intervals.len() / 2)
            .copied()
            .unwrap_or(1.0 / 30.0)
    }

    /// How the clip's ends meet, over the whole body, in units of its own
    /// motion (docs/tool.md "Loops"). The body's pose is sampled at every
    /// key interval; the distance between two poses is the root sum of
    /// squares of the animated bones' rotation angles. [`Wrap::closed`] is
    /// the distance from the last pose to the first, [`Wrap::open`] from
    /// the last pose extrapolated by one interval (a cycle exported without
    /// its closing key), both over the median distance between consecutive
    /// poses.
    #[must_use]
    pub fn wrap(&self, bind: &[Transform]) -> Wrap {
        let h = self.key_interval();
        let n = ((self.duration / h).round() as usize).max(1);
        let mut bones: Vec<usize> = self
            .channels
            .iter()
            .filter(|c| c.property == Property::Rotation && c.bone < bind.len())
            .map(|c| c.bone)
            .collect();
        bones.sort_unstable();
        bones.dedup();
        let pose = |t: f32| {
            let mut p = bind.to_vec();
            self.sample(t, &mut p);
            bones
                .iter()
                .map(|&b| p[b].rotation())
                .collect::<Vec<Quat>>()
        };
        let poses: Vec<Vec<Quat>> = (0..=n)
            .map(|k| pose((k as f32 * h).min(self.duration)))
            .collect();
        let distance = |a: &[Quat], b: &[Quat]| -> f32 {
            a.iter()
                .zip(b)
                .map(|(x, y)| crate::rotation::angle(*x, *y).powi(2))
                .sum::<f32>()
                .sqrt()
        };
        let mut steps: Vec<f32> = poses.windows(2).map(|w| distance(&w[0], &w[1])).collect();
        steps.sort_by(f32::total_cmp);
        let step = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
        let (first, last) = (&poses[0], &poses[n]);
        let before = &poses[n.saturating_sub(1)];
        let extrapolated: Vec<Quat> = last
            .iter()
            .zip(before)
            .map(|(l, p)| (*l * (p.inverse() * *l)).normalize())
            .collect();
        // A clip that does not move has no motion to measure by: its ends
        // meet whatever they are.
        let unit = step.max(1e-4);
        Wrap {
            step,
            closed: distance(first, last) / unit,
            open: distance(first, &extrapolated) / unit,
        }
    }

    /// The clip with a closing key: every channel gets a key one interval
    /// `h` after the clip's end holding its value at time 0, so that a
    /// cycle exported without that key plays its last interval back into
    /// its first pose. The duration grows by `h`.
    #[must_use]
    pub fn closed(&self, h: f32) -> Clip {
        let end = self.duration + h;
        Clip {
            name: self.name.clone(),
            duration: end,
            channels: self
                .channels
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    let first = c.sample(c.times[0]);
                    c.times.push(end);
                    if c.interpolation == Interpolation::CubicSpline {
                        c.values.extend([[0.0; 4], first, [0.0; 4]]);
                    } else {
                        c.values.push(first);
                    }
                    c
                })
                .collect(),
        }
    }

    /// The clip keyed at `rate` Hz (every channel sampled at `k / rate`,
    /// linear between): what an engine sampling at `rate` feeds secmo,
    /// made a clip so every update rate can be given the same input.
    #[must_use]
    pub fn rekeyed(&self, rate: f32) -> Clip {
        let frames = ((self.duration * rate).round() as usize).max(1);
        let times: Vec<f32> = (0..=frames)
            .map(|k| k as f32 * self.duration / frames as f32)
            .collect();
        Clip {
            name: self.name.clone(),
            duration: self.duration,
            channels: self
                .channels
                .iter()
                .map(|c| Channel {
                    bone: c.bone,
                    property: c.property,
                    interpolation: Interpolation::Linear,
                    values: times.iter().map(|&t| c.sample(t)).collect(),
                    times: times.clone(),
                })
                .collect(),
        }
    }

    /// Whether the clip turns any of `joints` from its `bind` rotation at
    /// any key interval as far as `rest_source` auto calls animated
    /// ([`secmo::solvers::chain::turned_from_reference`]): the runtime's
    /// frame-by-frame question, over the whole clip (a one-shot whose first key holds
    /// the tail on its bind pose still animates it).
    #[must_use]
    pub fn animates(&self, bind: &[Transform], joints: &[u32]) -> bool {
        let h = self.key_interval();
        let n = ((self.duration / h).round() as usize).max(1);
        let mut pose = bind.to_vec();
        (0..=n).any(|k| {
            pose.copy_from_slice(bind);
            self.sample((k as f32 * h).min(self.duration), &mut pose);
            joints.iter().any(|&j| {
                secmo::solvers::chain::turned_from_reference(
                    bind[j as usize].rotation(),
                    pose[j as usize].rotation(),
                )
            })
        })
    }

    /// Writes the clip's value at `time` (clamped to its keys) into `pose`,
    /// leaving bones it does not animate alone.
    pub fn sample(&self, time: f32, pose: &mut [Transform]) {
        for c in &self.channels {
            let v = c.sample(time);
            let t = &mut pose[c.bone];
            match c.property {
                Property::Translation => t.translation = [v[0], v[1], v[2]],
                Property::Rotation => t.rotation = Quat::from_array(v).normalize().to_array(),
                Property::Scale => t.scale = [v[0], v[1], v[2]],
                Property::MorphTargetWeights => {}
            }
        }
    }
}

impl Channel {
    fn sample(&self, time: f32) -> [f32; 4] {
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| {
            if cubic {
                self.values[3 * k + 1]
            } else {
                self.values[k]
            }
        };
        if n == 1 || time <= self.times[0] {
            return value(0);
        }
        if time >= self.times[n - 1] {
            return value(n - 1);
        }
        let k = self.times.partition_point(|&t| t <= time) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let u = (time - t0) / dt;
        let (a, b) = (value(k), value(k + 1));
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Step => a,
            Interpolation::Linear if rotation => {
                Quat::from_array(a).slerp(Quat::from_array(b), u).to_array()
            }
            Interpolation::Linear => std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u),
            Interpolation::CubicSpline => {
                // glTF 2.0 Appendix C: Hermite with tangents scaled by dt.
                let out_a = self.values[3 * k + 2];
                let in_b = self.values[3 * (k + 1)];
                let (u2, u3) = (u * u, u * u * u);
                let h = [
                    2.0 * u3 - 3.0 * u2 + 1.0,
                    u3 - 2.0 * u2 + u,
                    -2.0 * u3 + 3.0 * u2,
                    u3 - u2,
                ];
                std::array::from_fn(|i| {
                    h[0] * a[i] + h[1] * dt * out_a[i] + h[2] * b[i] + h[3] * dt * in_b[i]
                })
            }
        }
    }
}

/// What the importer accepts, so that a file from the internet cannot make
/// the tool run for minutes or fill the machine (docs/tool.md).
pub mod limits {
    /// Bytes of all buffers together, decoded.
    pub const MAX_TOTAL_BUFFER_BYTES: u64 = 1 << 30;
    /// Keys in one animation channel.
    pub const MAX_KEYS_PER_CHANNEL: usize = 1_000_000;
    /// The last key of any clip, seconds.
    pub const MAX_CLIP_SECONDS: f32 = 3600.0;
    /// Largest |translation| component of a key, file units.
    pub const MAX_TRANSLATION: f32 = 1e9;
}

/// Imports `path` (.gltf, .glb or .vrm). Errors name the file and the part
/// that is wrong. A malformed file is an error, never a panic: references are
/// checked before the glTF reader follows them, and a panic inside it is
/// reported as an error naming the file.
pub fn import(path: &Path) -> anyhow::Result<Imported> {
    match std::panic::catch_unwind(|| import_checked(path)) {
        Ok(result) => result,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(anyhow::anyhow!(
                "{}: malformed glTF: the reader failed ({why})",
                path.display()
            ))
        }
    }
}

fn import_checked(path: &Path) -> anyhow::Result<Imported> {
    let at = |what: String| anyhow::anyhow!("{}: {what}", path.display());
    let bytes = std::fs::read(path).map_err(|e| at(e.to_string()))?;
    check_format(&bytes).map_err(at)?;
    let mut json = vrm::gltf_json(&bytes).map_err(|e| at(e.to_string()))?;
    check_version(&json).map_err(at)?;
    let pointer_notes = animation_pointers(&mut json);
    check_references(&json).map_err(at)?;
    let mut extension_notes = required_extensions(&json);
    extension_notes.extend(pointer_notes);
    let skeleton = vrm::gltf_skeleton(&bytes).map_err(|e| at(e.to_string()))?;
    let gltf = read_document(&bytes, &json).map_err(at)?;
    // A missing buffer is only an error for the data that needs it (the
    // three-vrm fixtures ship without their mesh .bin).
    let mut buffers = load_buffers(&gltf, path);
    decompress_views(&json, &mut buffers).map_err(at)?;
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index())?.as_deref().ok();
    let unreadable = |accessor: gltf::Accessor<'_>| {
        let buffer = accessor.view()?.buffer().index();
        buffers.get(buffer)?.as_ref().err().cloned()
    };
    let data_notes = check_data(&gltf, data).map_err(at)?;
    extension_notes.extend(data_notes);
    let bone = |node: gltf::Node<'_>| skeleton.bone_of_node[node.index()] as usize;

    let skins = gltf
        .skins()
        .map(|s| s.joints().map(bone).collect())
        .collect();

    let mut clips = Vec::new();
    for (a, animation) in gltf.animations().enumerate() {
        let mut channels = Vec::new();
        for (c, channel) in animation.channels().enumerate() {
            let what = |m: &str| at(format!("animations[{a}].channels[{c}]: {m}"));
            let reader = channel.reader(data);
            let cannot_read = |accessor: gltf::Accessor<'_>, part: &str| {
                let why = unreadable(accessor).unwrap_or_else(|| "no data".into());
                what(&format!("{part} cannot be read: {why}"))
            };
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| cannot_read(channel.sampler().input(), "key times"))?
                .collect();
            let values: Vec<[f32; 4]> = match reader
                .read_outputs()
                .ok_or_else(|| cannot_read(channel.sampler().output(), "key values"))?
            {
                ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => {
                    v.map(|[x, y, z]| [x, y, z, 0.0]).collect()
                }
                ReadOutputs::Rotations(r) => r.into_f32().collect(),
                ReadOutputs::MorphTargetWeights(_) => continue,
            };
            let interpolation = channel.sampler().interpolation();
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            if times.is_empty() || values.len() != per_key * times.len() {
                return Err(what(&format!(
                    "{} key times but {} values",
                    times.len(),
                    values.len()
                )));
            }
            if times.len() > limits::MAX_KEYS_PER_CHANNEL {
                return Err(what(&format!(
                    "{} keys; the limit is {}",
                    times.len(),
                    limits::MAX_KEYS_PER_CHANNEL
                )));
            }
            if let Some(k) = times.iter().position(|t| !t.is_finite()) {
                return Err(what(&format!("key time {k} is NaN or infinite")));
            }
            if let Some(k) = times.iter().position(|&t| t < 0.0) {
                return Err(what(&format!("key {k} has a negative time")));
            }
            if let Some(k) = times.iter().position(|&t| t > limits::MAX_CLIP_SECONDS) {
                return Err(what(&format!(
                    "key {k} at {:e} s; the limit is {} s",
                    times[k],
                    limits::MAX_CLIP_SECONDS
                )));
            }
            if times.windows(2).any(|w| w[1] < w[0]) {
                return Err(what("key times decrease"));
            }
            if let Some(k) = values.iter().position(|v| v.iter().any(|x| !x.is_finite())) {
                return Err(what(&format!("key {} has NaN or infinity", k / per_key)));
            }
            // Values a pose cannot take: checked here so that no later
            // update fails on them (tangents of cubic splines are exempt).
            let property = channel.target().property();
            for (k, v) in values.iter().enumerate() {
                if per_key == 3 && k % 3 != 1 {
                    continue;
                }
                let key = k / per_key;
                match property {
                    Property::Rotation if Quat::from_array(*v).length_squared() < 1e-12 => {
                        return Err(what(&format!("key {key} is a zero-length rotation")));
                    }
                    // A zero scale hides a part; the update refuses it
                    // only on a bone a chain or another stage reads.
                    Property::Scale if v[..3].iter().any(|s| s.abs() > secmo::math::MAX_SCALE) => {
                        return Err(what(&format!(
                            "key {key} scale {:?} is beyond 1e4",
                            &v[..3]
                        )));
                    }
                    Property::Translation
                        if v[..3].iter().any(|x| x.abs() > limits::MAX_TRANSLATION) =>
                    {
                        return Err(what(&format!(
                            "key {key} translation {:?} is beyond {:e} units",
                            &v[..3],
                            limits::MAX_TRANSLATION
                        )));
                    }
                    _ => {}
                }
            }
            channels.push(Channel {
                bone: bone(channel.target().node()),
                property: channel.target().property(),
                interpolation,
                times,
                values,
            });
        }
        let duration = channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0, f32::max);
        clips.push(Clip {
            name: animation
                .name()
                .map_or_else(|| format!("clip{a}"), str::to_string),
            duration,
            channels,
        });
    }

    let mut meshes = Vec::new();
    let mut warnings = extension_notes;
    let mut rigid_boxes = Vec::new();
    // Bind-space boxes of skinned meshes secmo cannot read (Draco): joint,
    // its inverse bind, min, max.
    let mut skinned_boxes = Vec::new();
    for node in gltf.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            if let Some(mesh) = node.mesh() {
                for primitive in mesh.primitives() {
                    let b = primitive.bounding_box();
                    rigid_boxes.push((bone(node.clone()), b.min, b.max));
                }
            }
            continue;
        };
        let mut inverse_bind = vec![glam::Affine3A::IDENTITY; skeleton.bones.len()];
        let joints: Vec<usize> = skin.joints().map(bone).collect();
        // Data glTF 2.0 reads as zeros (an accessor with neither a buffer
        // view nor sparse values); inverse binds cannot be (check_data).
        let zeros = |a: &gltf::Accessor<'_>| a.view().is_none() && a.sparse().is_none();
        if let Some(ibms) = skin.reader(data).read_inverse_bind_matrices() {
            for (j, m) in ibms.enumerate() {
                if let Some(&b) = joints.get(j) {
                    inverse_bind[b] = glam::Affine3A::from_mat4(glam::Mat4::from_cols_array_2d(&m));
                }
            }
        }
        for (p, primitive) in mesh.primitives().enumerate() {
            let name = format!("{}[{p}]", mesh.name().unwrap_or("mesh"));
            if primitive.mode() != gltf::mesh::Mode::Triangles {
                continue;
            }
            // A Draco-compressed primitive without the optional
            // uncompressed copy: its accessors have no buffer view.
            let draco = json["meshes"][mesh.index()]["primitives"][p]["extensions"]
                .get(DRACO)
                .is_some()
                && [
                    gltf::Semantic::Positions,
                    gltf::Semantic::Joints(0),
                    gltf::Semantic::Weights(0),
                ]
                .iter()
                .filter_map(|s| primitive.get(s))
                .chain(primitive.indices())
                .any(|a| zeros(&a));
            if draco {
                // Its box (POSITION's min and max, which glTF requires) in
                // bind space, placed as its first joint places it at rest,
                // still tells the character's size (units inference).
                if let Some(&j) = joints.first() {
                    let b = primitive.bounding_box();
                    skinned_boxes.push((j, inverse_bind[j], b.min, b.max));
                }
                warnings.push(format!(
                    "mesh {name}: Draco-compressed ({DRACO}), which secmo cannot decode; skipped"
                ));
                continue;
            }
            let reader = primitive.reader(data);
            let (Some(position_accessor), Some(joint_sets), Some(weight_sets)) = (
                primitive.get(&gltf::Semantic::Positions),
                reader.read_joints(0),
                reader.read_weights(0),
            ) else {
                warnings.push(format!(
                    "mesh {name}: positions or skin weights cannot be read; skipped"
                ));
                continue;
            };
            let positions =
                read_vec3(&position_accessor, data).map_err(|e| at(format!("mesh {name}: {e}")))?;
            let influences: Vec<[(u32, f32); 4]> = joint_sets
                .into_u16()
                .zip(weight_sets.into_f32())
                .map(|(j, w)| {
                    // A vertex without weight follows its first influence's
                    // joint (check_data's note; Glb::conform writes it so).
                    // Only the first set is read here, as for every vertex.
                    let w = if w == [0.0; 4] {
                        [1.0, 0.0, 0.0, 0.0]
                    } else {
                        w
                    };
                    std::array::from_fn(|k| {
                        let b = joints.get(j[k] as usize).copied().unwrap_or(0) as u32;
                        (b, w[k])
                    })
                })
                .collect();
            let indices: Vec<u32> = match reader.read_indices() {
                Some(i) => i.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            let n = positions.len() as u32;
            if influences.len() != positions.len() || indices.iter().any(|&i| i >= n) {
                return Err(at(format!(
                    "mesh {name}: skin weights or indices do not match its {n} vertices"
                )));
            }
            meshes.push(SkinnedMesh {
                name,
                mesh: mesh.index(),
                primitive: p,
                skin: skin.index(),
                positions,
                influences,
                inverse_bind: inverse_bind.clone(),
                triangles: indices
                    .chunks_exact(3)
                    .map(|t| [t[0], t[1], t[2]])
                    .collect(),
            });
        }
    }

    let rig_settings = match vrm::gltf_json(&bytes)
        .ok()
        .and_then(|j| j.get("extras")?.get("secmo_rig_settings").cloned())
    {
        Some(v) => Some(
            secmo::RigSettings::from_json(&v.to_string())
                .map_err(|e| at(format!("extras.secmo_rig_settings: {e}")))?,
        ),
        None => None,
    };
    let spring_bones = match vrm::import(&bytes) {
        Ok(v) => Some(v),
        Err(e) if e.path == "extensions" => None, // a glTF without spring bones
        Err(e) => return Err(at(e.to_string())),
    };
    let mut imported = Imported {
        path: path.to_path_buf(),
        skeleton,
        skins,
        clips,
        spring_bones,
        meshes,
        warnings,
        rig_settings,
        rigid_corners: Vec::new(),
        tail_bone: None,
    };
    check_floats(&gltf, &json, data).map_err(at)?;
    let world = imported.rest_world();
    imported.rigid_corners = rigid_boxes
        .iter()
        .map(|&(b, lo, hi)| (world[b], lo, hi))
        .chain(
            skinned_boxes
                .iter()
                .map(|&(b, inverse_bind, lo, hi)| (world[b] * inverse_bind, lo, hi)),
        )
        .flat_map(|(m, lo, hi)| {
            (0..8).map(move |c| {
                let pick = |k: usize| if c >> k & 1 == 1 { hi[k] } else { lo[k] };
                m.transform_point3(glam::Vec3::new(pick(0), pick(1), pick(2)))
            })
        })
        .filter(|p| p.is_finite())
        .collect();
    Ok(imported)
}

/// The data checks the Khronos validator makes on what secmo reads and
/// writes back, made before anything is read, so that every command refuses
/// the same files by the same field: each skin's joints are distinct and its
/// inverse binds finite, invertible and affine, one per joint; a skinned
/// primitive's joints name joints of its skin and its weights are finite and
/// not negative; animation key times do not go back; sparse indices
/// increase and stay within their accessor. Data in a buffer that cannot be
/// read is left to its use. Two things the validator refuses but engines
/// read are accepted with a note each, returned: a vertex whose weights are
/// all 0 (it follows the joint its first influence names, as files secmo
/// writes give it: docs/tool.md "Data the validator refuses") and a key
/// time repeated (a step to the later key; three.js's `KeyframeTrack`
/// refuses only a time before the one it follows).
fn check_data<'s, F>(gltf: &gltf::Gltf, data: F) -> Result<Vec<String>, String>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let mut notes = Vec::new();
    for skin in gltf.skins() {
        let k = skin.index();
        let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
        // Each node once (the validator's DUPLICATE_ELEMENTS); a repeated
        // list also made `rig` quadratic in its length.
        let mut first = std::collections::HashMap::with_capacity(joints.len());
        for (e, &node) in joints.iter().enumerate() {
            if let Some(f) = first.insert(node, e) {
                return Err(format!(
                    "skins[{k}].joints: entry {e} repeats node {node} (entry {f}); \
                     a skin lists each joint once"
                ));
            }
        }
        let Some(accessor) = skin.inverse_bind_matrices() else {
            continue;
        };
        let at = format!("skins[{k}].inverseBindMatrices");
        if accessor.view().is_none() && accessor.sparse().is_none() {
            return Err(format!(
                "{at}: accessors[{}] has no buffer view, so every matrix is zero \
                 (not invertible)",
                accessor.index()
            ));
        }
        if accessor.count() < joints.len() {
            return Err(format!(
                "{at}: {} matrices for {} joints",
                accessor.count(),
                joints.len()
            ));
        }
        let Some(matrices) = gltf::accessor::Iter::<[[f32; 4]; 4]>::new(accessor, data.clone())
        else {
            continue;
        };
        for (i, m) in matrices.enumerate() {
            let flat = m.as_flattened();
            if flat.iter().any(|x| x.is_nan()) {
                return Err(format!("{at}: matrix {i} has NaN"));
            }
            if flat.iter().any(|x| x.is_infinite()) {
                return Err(format!("{at}: matrix {i} has infinity"));
            }
            let row = [m[0][3], m[1][3], m[2][3], m[3][3]];
            if row != [0.0, 0.0, 0.0, 1.0] {
                return Err(format!(
                    "{at}: matrix {i} has the last row {row:?}, not [0, 0, 0, 1]"
                ));
            }
            let m = glam::Mat4::from_cols_array_2d(&m);
            let det = m.determinant();
            if !(det.is_normal() && m.inverse().is_finite()) {
                return Err(format!(
                    "{at}: matrix {i} is not invertible (determinant {det:e})"
                ));
            }
        }
    }
    for node in gltf.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let joints = skin.joints().len();
        for primitive in mesh.primitives() {
            let at = format!(
                "meshes[{}].primitives[{}].attributes",
                mesh.index(),
                primitive.index()
            );
            let reader = primitive.reader(data.clone());
            for set in 0.. {
                let Some(sets) = reader.read_joints(set) else {
                    break;
                };
                for (v, j) in sets.into_u16().enumerate() {
                    if let Some(&bad) = j.iter().find(|&&j| usize::from(j) >= joints) {
                        return Err(format!(
                            "{at}.JOINTS_{set}: vertex {v} names joint {bad}; skins[{}] has {joints} joints",
                            skin.index()
                        ));
                    }
                }
            }
            // Each vertex's weights over all its sets, for the check that
            // some weight is not 0 (the validator's sum-to-1 rule; no
            // rescaling can give a vertex without weight one).
            let mut totals: Vec<f32> = Vec::new();
            for set in 0.. {
                let Some(weights) = reader.read_weights(set) else {
                    break;
                };
                for (v, w) in weights.into_f32().enumerate() {
                    if totals.len() <= v {
                        totals.resize(v + 1, 0.0);
                    }
                    totals[v] += w.iter().sum::<f32>();
                    let what = if w.iter().any(|x| x.is_nan()) {
                        "NaN"
                    } else if w.iter().any(|x| x.is_infinite()) {
                        "infinity"
                    } else if w.iter().any(|&x| x < 0.0) {
                        "a negative weight"
                    } else {
                        continue;
                    };
                    return Err(format!("{at}.WEIGHTS_{set}: vertex {v} has {what}"));
                }
            }
            let weightless = totals.iter().filter(|&&t| t == 0.0).count();
            if let Some(v) = totals.iter().position(|&t| t == 0.0) {
                notes.push(format!(
                    "{at}.WEIGHTS_0: {weightless} vertices have no weight (every weight is 0; \
                     the first is vertex {v}): each follows the joint its first influence \
                     names, and files secmo writes give it that joint's weight 1"
                ));
            }
        }
    }
    // Animation key times do not go back (the validator's
    // ACCESSOR_ANIMATION_INPUT_NON_INCREASING refuses a repeated time too):
    // an earlier time has no interval to sample in; a repeated one is a
    // step, which the sampler plays from the later key on.
    let (mut repeats, mut first_repeat) = (0, None::<String>);
    for animation in gltf.animations() {
        for sampler in animation.samplers() {
            let input = sampler.input();
            let Some(times) = gltf::accessor::Iter::<f32>::new(input.clone(), data.clone()) else {
                continue;
            };
            let mut previous: Option<f32> = None;
            let mut repeated: Option<(usize, f32)> = None;
            for (k, t) in times.enumerate() {
                if let Some(p) = previous.filter(|&p| t < p) {
                    return Err(format!(
                        "animations[{}].samplers[{}].input: key {k} at {t} s comes before \
                         key {} at {p} s (accessors[{}]); key times must increase",
                        animation.index(),
                        sampler.index(),
                        k - 1,
                        input.index()
                    ));
                }
                if previous == Some(t) && repeated.is_none() {
                    repeated = Some((k, t));
                }
                previous = Some(t);
            }
            if let Some((k, t)) = repeated {
                repeats += 1;
                first_repeat.get_or_insert_with(|| {
                    format!(
                        "animations[{}].samplers[{}].input: key {k} repeats key {}'s time, \
                         {t} s (accessors[{}])",
                        animation.index(),
                        sampler.index(),
                        k - 1,
                        input.index()
                    )
                });
            }
        }
    }
    if let Some(first) = first_repeat {
        let more = match repeats {
            1 => String::new(),
            n => format!(" and {} more samplers", n - 1),
        };
        notes.push(format!(
            "{first}{more}: a repeated key time is read as a step to the later key; files \
             secmo writes move it up by one float step, so that their key times increase"
        ));
    }
    for accessor in gltf.accessors() {
        let Some(sparse) = accessor.sparse() else {
            continue;
        };
        let at = format!("accessors[{}].sparse.indices", accessor.index());
        let indices = sparse.indices();
        let view = indices.view();
        let Some(buffer) = data(view.buffer()) else {
            continue;
        };
        let size = match indices.index_type() {
            gltf::accessor::sparse::IndexType::U8 => 1,
            gltf::accessor::sparse::IndexType::U16 => 2,
            gltf::accessor::sparse::IndexType::U32 => 4,
        };
        let bytes = view
            .offset()
            .checked_add(indices.offset())
            .and_then(|start| Some((start, start.checked_add(sparse.count().checked_mul(size)?)?)))
            .filter(|&(_, end)| Some(end) <= view.offset().checked_add(view.length()))
            .and_then(|(start, end)| buffer.get(start..end))
            .ok_or_else(|| {
                format!(
                    "{at}: {} indices do not fit in bufferViews[{}]",
                    sparse.count(),
                    view.index()
                )
            })?;
        let mut previous = None;
        for (e, b) in bytes.chunks_exact(size).enumerate() {
            let index = b.iter().rev().fold(0u64, |n, &x| n << 8 | u64::from(x));
            if index >= accessor.count() as u64 {
                return Err(format!(
                    "{at}: entry {e} is {index}; the accessor has {} elements",
                    accessor.count()
                ));
            }
            if previous.is_some_and(|p| index <= p) {
                return Err(format!("{at}: entry {e} ({index}) does not increase"));
            }
            previous = Some(index);
        }
    }
    Ok(notes)
}

/// The validator's ACCESSOR_INVALID_FLOAT for what the checks of its use
/// did not name: no float accessor holds NaN or infinity. A mesh
/// attribute's is named by its field and vertex.
fn check_floats<'a, 's, F>(
    gltf: &'a gltf::Gltf,
    json: &serde_json::Value,
    data: F,
) -> Result<(), String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    use gltf::accessor::{DataType, Dimensions, Item, Iter};
    fn first_bad<'a, 's, T: Item + AsRef<[f32]>>(
        accessor: gltf::Accessor<'a>,
        data: impl Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
    ) -> Option<usize> {
        Iter::<T>::new(accessor, data)?.position(|v| v.as_ref().iter().any(|x| !x.is_finite()))
    }
    let mut attribute = std::collections::HashMap::new();
    let list = |v: &serde_json::Value, key: &str| v[key].as_array().cloned().unwrap_or_default();
    for (m, mesh) in list(json, "meshes").iter().enumerate() {
        for (p, primitive) in list(mesh, "primitives").iter().enumerate() {
            for (name, a) in primitive["attributes"].as_object().into_iter().flatten() {
                if let Some(a) = a.as_u64() {
                    attribute.entry(a as usize).or_insert_with(|| {
                        format!("meshes[{m}].primitives[{p}].attributes.{name}")
                    });
                }
            }
        }
    }
    for accessor in gltf.accessors() {
        if accessor.data_type() != DataType::F32 {
            continue;
        }
        let i = accessor.index();
        // Float matrices have no padding: a MAT2 reads as four floats.
        let bad = match accessor.dimensions() {
            Dimensions::Scalar => Iter::<f32>::new(accessor, data.clone())
                .and_then(|mut it| it.position(|x| !x.is_finite())),
            Dimensions::Vec2 => first_bad::<[f32; 2]>(accessor, data.clone()),
            Dimensions::Vec3 => first_bad::<[f32; 3]>(accessor, data.clone()),
            Dimensions::Vec4 | Dimensions::Mat2 => first_bad::<[f32; 4]>(accessor, data.clone()),
            Dimensions::Mat3 => {
                Iter::<[[f32; 3]; 3]>::new(accessor, data.clone()).and_then(|mut it| {
                    it.position(|m| m.as_flattened().iter().any(|x| !x.is_finite()))
                })
            }
            Dimensions::Mat4 => {
                Iter::<[[f32; 4]; 4]>::new(accessor, data.clone()).and_then(|mut it| {
                    it.position(|m| m.as_flattened().iter().any(|x| !x.is_finite()))
                })
            }
        };
        if let Some(e) = bad {
            return Err(match attribute.get(&i) {
                Some(field) => format!("{field}: vertex {e} has NaN or infinity (accessors[{i}])"),
                None => format!("accessors[{i}]: element {e} has NaN or infinity"),
            });
        }
    }
    Ok(())
}

/// The node and property a `KHR_animation_pointer` channel animates, when
/// it is a node's translation, rotation or scale (`/nodes/N/rotation`).
pub fn pointer_target(channel: &serde_json::Value) -> Option<(u64, &'static str)> {
    let pointer = channel["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str()?;
    let (node, property) = pointer.strip_prefix("/nodes/")?.split_once('/')?;
    let property = ["translation", "rotation", "scale"]
        .into_iter()
        .find(|p| *p == property)?;
    Some((node.parse().ok()?, property))
}

/// Channels of `KHR_animation_pointer` (target path `pointer`): one that
/// points at a node's translation, rotation or scale is read as the
/// ordinary channel it is; any other (a material's colour, a camera, a
/// light, morph weights by pointer) animates no bone and is left out, with
/// a note per animation. Without this a file using the extension for any
/// property was refused whole (the path is not one of core glTF's four).
fn animation_pointers(json: &mut serde_json::Value) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(animations) = json.get_mut("animations").and_then(|a| a.as_array_mut()) else {
        return notes;
    };
    for (a, animation) in animations.iter_mut().enumerate() {
        let Some(channels) = animation.get_mut("channels").and_then(|c| c.as_array_mut()) else {
            continue;
        };
        let before = channels.len();
        let mut targetless = 0;
        channels.retain_mut(|channel| {
            if channel["target"]["path"] != "pointer" {
                // glTF 2.0 makes animation.channel.target's `node`
                // optional: without it the target is an extension's
                // business, and the channel is ignored.
                let has_node = channel["target"].get("node").is_some();
                targetless += usize::from(!has_node);
                return has_node;
            }
            match pointer_target(channel) {
                Some((node, path)) => {
                    channel["target"] = serde_json::json!({"node": node, "path": path});
                    true
                }
                None => false,
            }
        });
        if targetless > 0 {
            notes.push(format!(
                "note: animations[{a}]: {targetless} channel(s) without a target node \
                 (an extension's target) animate no bone; ignored"
            ));
        }
        if channels.len() + targetless < before {
            notes.push(format!(
                "note: animations[{a}]: {} KHR_animation_pointer channel(s) animate no bone \
                 (materials, cameras, lights, weights); ignored",
                before - channels.len() - targetless
            ));
        }
    }
    notes
}

/// The glTF document, validated as the glTF reader validates it, except
/// for `extensionsRequired`: `gltf::Gltf::from_slice` refuses every file
/// that requires an extension the reader does not know (VRMC_vrm,
/// KHR_texture_transform, ...), and [`required_extensions`] decides that
/// instead. Validation stays on: the reader unwraps what it validated.
fn read_document(bytes: &[u8], json: &serde_json::Value) -> Result<gltf::Gltf, String> {
    let mut json = json.clone();
    if let Some(root) = json.as_object_mut() {
        root.remove("extensionsRequired");
        // glTF 2.0 makes a scene's `nodes` optional (an empty scene); the
        // reader wants the list.
        for scene in root
            .get_mut("scenes")
            .and_then(|s| s.as_array_mut())
            .into_iter()
            .flatten()
        {
            if let Some(scene) = scene.as_object_mut() {
                scene
                    .entry("nodes")
                    .or_insert_with(|| serde_json::json!([]));
            }
        }
    }
    // The error names where it is (`animations[0].channels[2].target:
    // missing field `node``), not only what.
    let root: gltf::json::Root = serde_path_to_error::deserialize(json).map_err(|e| {
        let path = e.path().to_string();
        let what = e.into_inner().to_string();
        if path == "." {
            what
        } else {
            format!("{path}: {what}")
        }
    })?;
    // The reader's own checks, but for one: it wants a buffer view on every
    // accessor that is not sparse, where glTF 2.0 (§5.1.1) lets an accessor
    // go without one (zeros, or data an extension supplies: a Draco
    // primitive's). The glTF reader reads no data from such an accessor.
    let mut errors = Vec::new();
    {
        use gltf::json::validation::{Error, Validate};
        root.validate(&root, gltf::json::Path::new, &mut |path, error| {
            let path = path();
            let viewless = matches!(error, Error::Missing)
                && path.as_str().starts_with("accessors[")
                && path.as_str().ends_with("].bufferView");
            if !viewless {
                errors.push(format!(" {}: {error};", path.as_str()));
            }
        });
    }
    if !errors.is_empty() {
        return Err(format!("invalid glTF:{}", errors.concat()));
    }
    let document = gltf::Document::from_json_without_validation(root);
    // The glTF reader's own GLB parser overflows on some malformed headers
    // (a fuzz finding); secmo's checks every length.
    let blob = if secmo::glb::is_glb(bytes) {
        secmo::glb::split(bytes)?.bin.map(<[u8]>::to_vec)
    } else {
        None
    };
    Ok(gltf::Gltf { document, blob })
}

/// The extension that stores a mesh primitive's vertices Draco-compressed.
/// Only those primitives are compressed (their accessors have no buffer
/// view); the skeleton, skins, clips and springs are plain accessors and
/// JSON, so a file requiring it opens without those meshes.
const DRACO: &str = "KHR_draco_mesh_compression";

/// The extensions that compress buffer views ([`decompress_views`]).
const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// Required extensions secmo reads: KHR_mesh_quantization (integer
/// positions, [`read_vec3`]), meshopt ([`decompress_views`]) and the VRM
/// ones (src/vrm.rs).
const READ_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    MESHOPT[0],
    MESHOPT[1],
    "VRM",
    "VRMC_vrm",
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    "VRMC_node_constraint",
];

/// What secmo does with each extension a file requires (glTF 2.0 §3.12):
/// Draco-compressed meshes are left out with a note (everything else is
/// read; the commands that need a mesh say why there is none); extensions
/// secmo reads pass (meshopt-compressed views are decoded); any other
/// (materials, textures, lights, VRM's own) changes nothing secmo reads
/// and gets a one-line note. No required extension is refused.
pub fn required_extensions(json: &serde_json::Value) -> Vec<String> {
    let required = json
        .get("extensionsRequired")
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut notes = Vec::new();
    for name in required.iter().filter_map(serde_json::Value::as_str) {
        if name == DRACO {
            notes.push(format!(
                "note: requires {DRACO}: its Draco-compressed meshes are left out \
                 (the skeleton, skins, clips and springs are read); `rig` and the skin \
                 measures need the file exported without it"
            ));
        } else if !READ_EXTENSIONS.contains(&name) {
            notes.push(format!(
                "note: requires {name}, which changes nothing secmo reads (skeleton, skins, clips); ignored"
            ));
        }
    }
    notes
}

/// Reads a VEC3 accessor of any component type glTF allows for positions:
/// float, or (KHR_mesh_quantization) signed/unsigned byte or short, raw or
/// normalized. The node transforms carry the dequantization, as the
/// extension specifies.
pub fn read_vec3<'a>(
    accessor: &gltf::Accessor<'a>,
    data: impl Fn(gltf::Buffer<'a>) -> Option<&'a [u8]> + Clone,
) -> Result<Vec<glam::Vec3>, String> {
    use gltf::accessor::DataType;
    let index = accessor.index();
    if accessor.data_type() == DataType::F32 {
        let iter = gltf::accessor::Iter::<[f32; 3]>::new(accessor.clone(), data)
            .ok_or_else(|| format!("accessors[{index}] cannot be read"))?;
        return Ok(iter.map(glam::Vec3::from).collect());
    }
    if accessor.sparse().is_some() {
        return Err(format!(
            "accessors[{index}]: sparse quantized positions are not supported"
        ));
    }
    let view = accessor
        .view()
        .ok_or_else(|| format!("accessors[{index}] has no buffer view"))?;
    let buffer = data(view.buffer())
        .ok_or_else(|| format!("accessors[{index}]: its buffer cannot be read"))?;
    let size = accessor.data_type().size();
    let stride = view.stride().unwrap_or(3 * size);
    let start = view.offset() + accessor.offset();
    let normalized = accessor.normalized();
    let component = |at: usize| -> Option<f32> {
        let b = buffer.get(at..at + size)?;
        Some(match accessor.data_type() {
            DataType::I8 => {
                let v = b[0] as i8 as f32;
                if normalized {
                    (v / 127.0).max(-1.0)
                } else {
                    v
                }
            }
            DataType::U8 => {
                let v = f32::from(b[0]);
                if normalized {
                    v / 255.0
                } else {
                    v
                }
            }
            DataType::I16 => {
                let v = f32::from(i16::from_le_bytes([b[0], b[1]]));
                if normalized {
                    (v / 32767.0).max(-1.0)
                } else {
                    v
                }
            }
            DataType::U16 => {
                let v = f32::from(u16::from_le_bytes([b[0], b[1]]));
                if normalized {
                    v / 65535.0
                } else {
                    v
                }
            }
            _ => return None,
        })
    };
    (0..accessor.count())
        .map(|i| {
            let at = start + i * stride;
            match (component(at), component(at + size), component(at + 2 * size)) {
                (Some(x), Some(y), Some(z)) => Ok(glam::Vec3::new(x, y, z)),
                _ => Err(format!(
                    "accessors[{index}]: element {i} is outside its buffer or of componentType {:?}",
                    accessor.data_type()
                )),
            }
        })
        .collect()
}

/// Whether `bytes` can be a glTF (JSON) or GLB/VRM (binary) file; if not,
/// says what was found instead, so a user who passed an FBX, an OBJ or a
/// PNG reads that rather than a JSON parser's complaint.
pub fn check_format(bytes: &[u8]) -> Result<(), String> {
    if bytes.starts_with(b"glTF") {
        return Ok(());
    }
    let text = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|i| &bytes[i..]);
    let Some(start) = text else {
        return Err(if bytes.is_empty() {
            "not a glTF or GLB file: the file is empty".into()
        } else {
            "not a glTF or GLB file: it holds only white space".into()
        });
    };
    // A UTF-8 byte-order mark before the JSON is allowed by some readers.
    let start = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    if start.first() == Some(&b'{') {
        return Ok(());
    }
    let known: [(&[u8], &str); 8] = [
        (b"Kaydara FBX Binary", "an FBX file"),
        (b"; FBX", "an ASCII FBX file"),
        (b"\x89PNG", "a PNG image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"%PDF", "a PDF document"),
        (
            b"BLENDER",
            "a .blend file (export it as glTF or GLB from Blender)",
        ),
        (b"solid ", "an ASCII STL file"),
    ];
    let what = known
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic) || start.starts_with(magic))
        .map(|(_, what)| (*what).to_string())
        .or_else(|| {
            let line = start.split(|&b| b == b'\n').next().unwrap_or(start);
            let obj = [&b"v "[..], b"vn ", b"o ", b"mtllib", b"#"];
            if obj.iter().any(|p| line.starts_with(p)) {
                return Some("what looks like an OBJ file".into());
            }
            None
        })
        .unwrap_or_else(|| {
            let head: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
            format!(
                "{} bytes starting with {} (a GLB starts with `glTF`, a .gltf with `{{`)",
                bytes.len(),
                head.join(" ")
            )
        });
    Err(format!("not a glTF or GLB file: found {what}"))
}

/// Each buffer's bytes (the GLB binary chunk, a base64 data URI, or a file
/// beside the glTF), or why they cannot be had. A buffer URI may only name a
/// regular file in the glTF's folder or below it: no scheme, no absolute
/// path, no `..`, no device or directory. All buffers together may decode to
/// at most [`limits::MAX_TOTAL_BUFFER_BYTES`], checked against each buffer's
/// declared length before it is read.
fn load_buffers(gltf: &gltf::Gltf, path: &Path) -> Vec<Result<Vec<u8>, String>> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut budget = limits::MAX_TOTAL_BUFFER_BYTES;
    gltf.buffers()
        .map(|b| {
            let what = |m: String| format!("buffers[{}]: {m}", b.index());
            let length = b.length() as u64;
            if length > budget {
                return Err(what(format!(
                    "{length} bytes; the limit for all buffers together is {} bytes",
                    limits::MAX_TOTAL_BUFFER_BYTES
                )));
            }
            budget -= length;
            let bytes = match b.source() {
                // glTF 2.0 §4.4.3.3: only the first buffer may leave out its
                // uri to stand for a GLB's binary chunk (the reader calls
                // every uri-less buffer `Bin`). A meshopt placeholder is
                // rebuilt by decompress_views whatever this says.
                gltf::buffer::Source::Bin if b.index() > 0 => {
                    return Err(what(
                        "has no uri, and only buffers[0] may stand for a GLB's binary chunk".into(),
                    ))
                }
                gltf::buffer::Source::Bin => gltf
                    .blob
                    .clone()
                    .ok_or_else(|| what("the GLB has no binary chunk".into()))?,
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    let encoded = uri
                        .split_once(";base64,")
                        .ok_or_else(|| what("only base64 data URIs are read".into()))?
                        .1;
                    if encoded.len() as u64 / 4 * 3 > length + 3 {
                        return Err(what(format!(
                            "the data URI holds more than the declared {length} bytes"
                        )));
                    }
                    base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .map_err(|e| what(format!("data URI: {e}")))?
                }
                gltf::buffer::Source::Uri(uri) => {
                    let file = buffer_file(base, uri).map_err(&what)?;
                    read_prefix(&file, length)
                        .map_err(|e| what(format!("{}: {e}", file.display())))?
                }
            };
            if (bytes.len() as u64) < length {
                return Err(what(format!(
                    "{} bytes, but the file says {}",
                    bytes.len(),
                    length
                )));
            }
            Ok(bytes)
        })
        .collect()
}

/// Decodes every meshopt-compressed buffer view (`EXT_meshopt_compression`,
/// `KHR_meshopt_compression`; [`crate::meshopt`]) into the buffer the view
/// names, so that the glTF reader reads it as any other view. That buffer
/// is usually a placeholder without data (a "fallback"); it is rebuilt
/// from zeros, its length already counted against the limit on all
/// buffers. An error names the view and what is wrong.
fn decompress_views(
    json: &serde_json::Value,
    buffers: &mut [Result<Vec<u8>, String>],
) -> Result<(), String> {
    use serde_json::Value;
    let views = json["bufferViews"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut rebuilt: Vec<Option<Vec<u8>>> = vec![None; buffers.len()];
    for (v, view) in views.iter().enumerate() {
        let Some((name, ext)) = MESHOPT
            .iter()
            .find_map(|n| Some((*n, view["extensions"].get(*n)?)))
        else {
            continue;
        };
        let what = |m: String| format!("bufferViews[{v}].extensions.{name}: {m}");
        let number = |value: &Value, field: &str, default: Option<u64>| {
            value
                .get(field)
                .map_or(default, Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| what(format!("{field} is missing or not a count")))
        };
        let source = number(ext, "buffer", None)?;
        let offset = number(ext, "byteOffset", Some(0))?;
        let length = number(ext, "byteLength", None)?;
        let stride = number(ext, "byteStride", None)?;
        let count = number(ext, "count", None)?;
        let mode = ext.get("mode").and_then(Value::as_str).unwrap_or("");
        let filter = ext.get("filter").and_then(Value::as_str).unwrap_or("NONE");
        let target = number(view, "buffer", None)?;
        let target_offset = number(view, "byteOffset", Some(0))?;
        let target_length = number(view, "byteLength", None)?;
        if stride.checked_mul(count) != Some(target_length) {
            return Err(what(format!(
                "{count} elements of {stride} bytes are not the view's byteLength {target_length}"
            )));
        }
        let compressed = match buffers.get(source) {
            Some(Ok(bytes)) => offset
                .checked_add(length)
                .and_then(|end| bytes.get(offset..end))
                .ok_or_else(|| {
                    what(format!(
                        "bytes {offset}.. (+{length}) lie outside buffers[{source}]"
                    ))
                })?,
            Some(Err(e)) => return Err(what(format!("buffers[{source}] cannot be read: {e}"))),
            None => return Err(what(format!("buffers[{source}] does not exist"))),
        };
        let decoded =
            crate::meshopt::decode_view(compressed, count, stride, mode, filter).map_err(&what)?;
        let into = match rebuilt.get_mut(target) {
            None => return Err(what(format!("buffers[{target}] does not exist"))),
            Some(Some(into)) => into,
            Some(slot) => {
                // A buffer with data of its own (a URI, or the GLB's binary
                // chunk) keeps its other views; a placeholder starts as
                // zeros of its declared length, which load_buffers has
                // counted against the limit on all buffers.
                let has_data = target == 0 || json["buffers"][target].get("uri").is_some();
                let start = match &buffers[target] {
                    Ok(bytes) if has_data => bytes.clone(),
                    Err(e) if e.contains("limit") => return Err(what(e.clone())),
                    _ => {
                        let declared = json["buffers"][target]["byteLength"]
                            .as_u64()
                            .filter(|&n| n <= limits::MAX_TOTAL_BUFFER_BYTES)
                            .ok_or_else(|| {
                                what(format!(
                                    "buffers[{target}] has no byteLength within the limit"
                                ))
                            })?;
                        vec![0; declared as usize]
                    }
                };
                slot.insert(start)
            }
        };
        target_offset
            .checked_add(target_length)
            .and_then(|end| into.get_mut(target_offset..end))
            .ok_or_else(|| what(format!("the view lies outside buffers[{target}]")))?
            .copy_from_slice(&decoded);
    }
    for (slot, bytes) in buffers.iter_mut().zip(rebuilt) {
        if let Some(bytes) = bytes {
            *slot = Ok(bytes);
        }
    }
    Ok(())
}

/// The file a relative buffer URI names beside the glTF in `base`.
fn buffer_file(base: &Path, uri: &str) -> Result<PathBuf, String> {
    // glTF URIs are percent-encoded (RFC 3986): spaces, and the UTF-8 bytes
    // of non-ASCII names (a Japanese VRM tool's `%E9%AB%AA.bin`).
    let decoded = percent_decode(uri)
        .ok_or_else(|| format!("uri {uri:?} is not a percent-encoded UTF-8 path"))?;
    let is_scheme = decoded.split_once(':').is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if is_scheme {
        return Err(format!(
            "uri {uri:?} has a scheme; only relative file names and data: URIs are read"
        ));
    }
    let relative = Path::new(&decoded);
    let windows_drive = decoded.len() >= 2 && decoded.as_bytes()[1] == b':';
    if relative.is_absolute()
        || decoded.starts_with('/')
        || decoded.starts_with('\\')
        || windows_drive
    {
        return Err(format!(
            "uri {uri:?} is an absolute path; buffers must be beside the glTF"
        ));
    }
    if relative
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
        || decoded.split(['/', '\\']).any(|part| part == "..")
    {
        return Err(format!(
            "uri {uri:?} goes up with ..; buffers must be beside the glTF"
        ));
    }
    let file = base.join(relative);
    let meta = std::fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", file.display()));
    }
    Ok(file)
}

/// `uri` with every `%XX` replaced by its byte, or `None` when the bytes
/// are not UTF-8 or a `%` does not start an escape of two hex digits: such a
/// `%` is refused rather than read as itself, as `percent-encoding` would.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let escapes_are_whole = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    });
    if !escapes_are_whole {
        return None;
    }
    percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .ok()
        .map(|decoded| decoded.into_owned())
}

/// The first `length` bytes of `file` (never more, whatever the file holds).
fn read_prefix(file: &Path, length: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(file)?
        .take(length)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Accessor and buffer-view layout (glTF 2.0 §3.6): every accessor the
/// importer reads lies inside its view with a stride at least its element,
/// every view inside its buffer, and each accessor has the type and
/// component type its use requires (the glTF reader asserts these and would
/// panic on a file that breaks them).
fn check_layout(json: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let list = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let uint = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    let quantized = list(json, "extensionsUsed")
        .iter()
        .any(|e| e == "KHR_mesh_quantization");
    let buffers = list(json, "buffers");
    let views = list(json, "bufferViews");
    let accessors = list(json, "accessors");
    for (i, view) in views.iter().enumerate() {
        let at = format!("bufferViews[{i}]");
        let buffer = uint(view, "buffer").unwrap_or(0) as usize;
        let length = uint(view, "byteLength").ok_or(format!("{at}.byteLength is missing"))?;
        let end = uint(view, "byteOffset").unwrap_or(0).checked_add(length);
        let buffer_length = buffers
            .get(buffer)
            .and_then(|b| uint(b, "byteLength"))
            .unwrap_or(0);
        if end.is_none_or(|e| e > buffer_length) {
            return Err(format!(
                "{at}: extends past the end of buffers[{buffer}] ({buffer_length} bytes)"
            ));
        }
        if let Some(stride) = uint(view, "byteStride") {
            if !(4..=252).contains(&stride) || stride % 4 != 0 {
                return Err(format!(
                    "{at}.byteStride {stride} is not a multiple of 4 in [4, 252]"
                ));
            }
        }
    }
    let component_size = |t: u64| match t {
        5120 | 5121 => Some(1u64),
        5122 | 5123 => Some(2),
        5125 | 5126 => Some(4),
        _ => None,
    };
    let components = |t: &str| match t {
        "SCALAR" => Some(1u64),
        "VEC2" => Some(2),
        "VEC3" => Some(3),
        "VEC4" | "MAT2" => Some(4),
        "MAT3" => Some(9),
        "MAT4" => Some(16),
        _ => None,
    };
    for (i, a) in accessors.iter().enumerate() {
        let at = format!("accessors[{i}]");
        let ctype = uint(a, "componentType").unwrap_or(0);
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("");
        let (Some(size), Some(n)) = (component_size(ctype), components(kind)) else {
            return Err(format!(
                "{at}: componentType {ctype} / type {kind:?} is not a glTF accessor type"
            ));
        };
        let count = uint(a, "count").unwrap_or(0);
        if count == 0 || count > 1 << 28 {
            return Err(format!("{at}.count {count} is not in [1, 2^28]"));
        }
        let Some(view) = uint(a, "bufferView").and_then(|v| views.get(v as usize)) else {
            continue;
        };
        let element = size * n;
        let stride = uint(view, "byteStride").unwrap_or(element);
        if stride < element {
            return Err(format!(
                "{at}: its view's byteStride {stride} is shorter than one element ({element} bytes)"
            ));
        }
        let offset = uint(a, "byteOffset").unwrap_or(0);
        let last = offset + stride * (count - 1) + element;
        let view_length = uint(view, "byteLength").unwrap_or(0);
        if last > view_length {
            return Err(format!(
                "{at}: {count} elements need {last} bytes of a {view_length}-byte view"
            ));
        }
    }
    // What each use requires.
    let expect = |index: Option<&Value>,
                  path: String,
                  kinds: &[&str],
                  types: &[u64]|
     -> Result<(), String> {
        // A dangling index is reported by the reference checks.
        let Some((i, a)) = index
            .and_then(Value::as_u64)
            .and_then(|i| Some((i, accessors.get(usize::try_from(i).ok()?)?)))
        else {
            return Ok(());
        };
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("");
        let ctype = uint(a, "componentType").unwrap_or(0);
        if kinds.contains(&kind) && types.contains(&ctype) {
            Ok(())
        } else {
            Err(format!(
                "{path}: accessors[{i}] is {kind} of componentType {ctype}; this use needs {kinds:?} of {types:?}"
            ))
        }
    };
    for (m, mesh) in list(json, "meshes").iter().enumerate() {
        for (p, prim) in list(mesh, "primitives").iter().enumerate() {
            let at = format!("meshes[{m}].primitives[{p}]");
            let attributes = prim.get("attributes");
            let attr = |name: &str| attributes.and_then(|a| a.get(name));
            let pos = format!("{at}.attributes.POSITION");
            // KHR_mesh_quantization: positions may be (normalized) integers.
            let position_types: &[u64] = if quantized {
                &[5126, 5120, 5121, 5122, 5123]
            } else {
                &[5126]
            };
            expect(attr("POSITION"), pos, &["VEC3"], position_types)?;
            // Every set, not only the first: the data checks read them all.
            for (name, a) in attributes.and_then(Value::as_object).into_iter().flatten() {
                let path = format!("{at}.attributes.{name}");
                if name.starts_with("JOINTS_") {
                    expect(Some(a), path, &["VEC4"], &[5121, 5123])?;
                } else if name.starts_with("WEIGHTS_") {
                    expect(Some(a), path, &["VEC4"], &[5126, 5121, 5123])?;
                }
            }
            let indices = format!("{at}.indices");
            expect(
                prim.get("indices"),
                indices,
                &["SCALAR"],
                &[5121, 5123, 5125],
            )?;
        }
    }
    for (k, skin) in list(json, "skins").iter().enumerate() {
        let at = format!("skins[{k}].inverseBindMatrices");
        expect(skin.get("inverseBindMatrices"), at, &["MAT4"], &[5126])?;
    }
    let ints: &[u64] = &[5126, 5120, 5121, 5122, 5123];
    for (a, animation) in list(json, "animations").iter().enumerate() {
        let samplers = list(animation, "samplers");
        for (c, channel) in list(animation, "channels").iter().enumerate() {
            let at = format!("animations[{a}].channels[{c}]");
            let sampler = channel
                .get("sampler")
                .and_then(Value::as_u64)
                .and_then(|k| samplers.get(k as usize));
            let Some(sampler) = sampler else {
                continue;
            };
            let input = format!("{at}: sampler input");
            expect(sampler.get("input"), input, &["SCALAR"], &[5126])?;
            let path = channel
                .get("target")
                .and_then(|t| t.get("path"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let output = sampler.get("output");
            let out = format!("{at}: sampler output");
            match path {
                "translation" | "scale" => expect(output, out, &["VEC3"], &[5126])?,
                "rotation" => expect(output, out, &["VEC4"], ints)?,
                "weights" => expect(output, out, &["SCALAR"], ints)?,
                other => {
                    return Err(format!(
                        "{at}.target.path {other:?} is not translation, rotation, scale or weights"
                    ))
                }
            }
        }
    }
    Ok(())
}

/// glTF 2.0, "Asset" (asset.schema.json): a reader refuses a file of another major
/// version, or one whose `minVersion` is above the version it implements
/// (2.0); any 2.x file is read as 2.0.
pub fn check_version(json: &serde_json::Value) -> Result<(), String> {
    let asset = &json["asset"];
    let version = |key: &str| -> Result<Option<(u64, u64)>, String> {
        let Some(v) = asset.get(key) else {
            return Ok(None);
        };
        let parsed = v.as_str().and_then(|t| {
            let (major, minor) = t.split_once('.')?;
            Some((major.parse().ok()?, minor.parse().ok()?))
        });
        parsed
            .map(Some)
            .ok_or_else(|| format!("asset.{key}: {v} is not <major>.<minor>"))
    };
    match version("version")? {
        None => return Err("asset.version: missing".into()),
        Some((2, _)) => {}
        Some((major, minor)) => {
            return Err(format!(
                "asset.version: {major}.{minor}; secmo reads glTF 2.x files"
            ))
        }
    }
    if let Some((major, minor)) = version("minVersion")? {
        if (major, minor) > (2, 0) {
            return Err(format!(
                "asset.minVersion: {major}.{minor}; this file needs a glTF reader newer \
                 than secmo's (2.0)"
            ));
        }
    }
    Ok(())
}

/// Checks every index the importer follows (nodes, skins, meshes,
/// accessors, buffer views, buffers, animation samplers and targets)
/// before the glTF reader does, which would panic on a dangling one.
pub fn check_references(json: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let count = |key: &str| json.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    let (nodes, meshes, skins, accessors, views, buffers) = (
        count("nodes"),
        count("meshes"),
        count("skins"),
        count("accessors"),
        count("bufferViews"),
        count("buffers"),
    );
    let list = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let check =
        |value: Option<&Value>, limit: usize, path: String, what: &str| -> Result<(), String> {
            match value {
                None => Ok(()),
                Some(v) => match v.as_u64() {
                    Some(i) if (i as usize) < limit && i <= u32::MAX as u64 => Ok(()),
                    _ => Err(format!(
                        "{path}: {v} is not one of the file's {limit} {what}"
                    )),
                },
            }
        };
    for (i, node) in list(json, "nodes").iter().enumerate() {
        check(
            node.get("mesh"),
            meshes,
            format!("nodes[{i}].mesh"),
            "meshes",
        )?;
        check(node.get("skin"), skins, format!("nodes[{i}].skin"), "skins")?;
        for (k, c) in list(node, "children").iter().enumerate() {
            check(Some(c), nodes, format!("nodes[{i}].children[{k}]"), "nodes")?;
        }
    }
    for (i, skin) in list(json, "skins").iter().enumerate() {
        check(
            skin.get("inverseBindMatrices"),
            accessors,
            format!("skins[{i}].inverseBindMatrices"),
            "accessors",
        )?;
        check(
            skin.get("skeleton"),
            nodes,
            format!("skins[{i}].skeleton"),
            "nodes",
        )?;
        for (k, j) in list(skin, "joints").iter().enumerate() {
            check(Some(j), nodes, format!("skins[{i}].joints[{k}]"), "nodes")?;
        }
    }
    for (m, mesh) in list(json, "meshes").iter().enumerate() {
        for (p, prim) in list(mesh, "primitives").iter().enumerate() {
            let at = format!("meshes[{m}].primitives[{p}]");
            check(
                prim.get("indices"),
                accessors,
                format!("{at}.indices"),
                "accessors",
            )?;
            if let Some(attributes) = prim.get("attributes").and_then(Value::as_object) {
                for (name, a) in attributes {
                    check(
                        Some(a),
                        accessors,
                        format!("{at}.attributes.{name}"),
                        "accessors",
                    )?;
                }
            }
            for (t, target) in list(prim, "targets").iter().enumerate() {
                if let Some(attributes) = target.as_object() {
                    for (name, a) in attributes {
                        check(
                            Some(a),
                            accessors,
                            format!("{at}.targets[{t}].{name}"),
                            "accessors",
                        )?;
                    }
                }
            }
        }
    }
    for (i, accessor) in list(json, "accessors").iter().enumerate() {
        check(
            accessor.get("bufferView"),
            views,
            format!("accessors[{i}].bufferView"),
            "buffer views",
        )?;
        if let Some(sparse) = accessor.get("sparse") {
            for part in ["indices", "values"] {
                check(
                    sparse.get(part).and_then(|p| p.get("bufferView")),
                    views,
                    format!("accessors[{i}].sparse.{part}.bufferView"),
                    "buffer views",
                )?;
            }
        }
    }
    for (i, view) in list(json, "bufferViews").iter().enumerate() {
        check(
            view.get("buffer"),
            buffers,
            format!("bufferViews[{i}].buffer"),
            "buffers",
        )?;
    }
    for (a, animation) in list(json, "animations").iter().enumerate() {
        let samplers = list(animation, "samplers");
        for (k, sampler) in samplers.iter().enumerate() {
            for part in ["input", "output"] {
                check(
                    sampler.get(part),
                    accessors,
                    format!("animations[{a}].samplers[{k}].{part}"),
                    "accessors",
                )?;
            }
        }
        for (c, channel) in list(animation, "channels").iter().enumerate() {
            check(
                channel.get("sampler"),
                samplers.len(),
                format!("animations[{a}].channels[{c}].sampler"),
                "samplers of the animation",
            )?;
            let target = channel.get("target").and_then(|t| t.get("node"));
            let at = format!("animations[{a}].channels[{c}].target.node");
            check(target, nodes, at.clone(), "nodes")?;
            // The validator's ANIMATION_CHANNEL_TARGET_NODE_MATRIX (morph
            // weights may animate such a node).
            let node = target
                .and_then(Value::as_u64)
                .map(|n| &json["nodes"][n as usize]);
            let weights = channel["target"]["path"] == "weights";
            if !weights && node.is_some_and(|n| n.get("matrix").is_some()) {
                return Err(format!(
                    "{at}: {} is given by `matrix`, which glTF lets no animation target",
                    target.unwrap_or(&Value::Null)
                ));
            }
        }
    }
    check_layout(json)?;
    Ok(())
}

/// A character's assumed size when a file does not say its units: the
/// largest extent of a standing humanoid, or a quadruped's length, is taken
/// to be about this many metres ([`Imported::infer_units`]).
pub const ASSUMED_SIZE_M: f32 = 1.7;

/// The unit scales [`Imported::infer_units`] chooses from: metres (glTF's
/// own unit), centimetres and millimetres.
pub const UNIT_CANDIDATES: [(f32, &str); 3] = [(1.0, "m"), (100.0, "cm"), (1000.0, "mm")];

/// The sizes, metres, a character's largest extent is taken to lie in when
/// a unit of [`UNIT_CANDIDATES`] reads it: from a small dog's length to a
/// large horse's or a tall humanoid's height. A file whose size no such
/// unit puts in this range (a cartoon animal exported 4 m long, a T-rex
/// 31 units long, which would be 31 m or 0.31 m) is scaled to
/// [`ASSUMED_SIZE_M`] instead ([`Imported::infer_units`]).
pub const PLAUSIBLE_SIZE_M: (f32, f32) = (0.5, 3.0);

/// Units per metre inferred from a file's skinned mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct InferredUnits {
    pub units_per_meter: f32,
    /// The skinned mesh's largest world-space extent at rest, file units
    /// (armature and other ancestor scales included).
    pub size: f32,
    /// One line saying what was assumed.
    pub note: String,
}

impl Imported {
    /// Every bone's rest (reference) world transform.
    #[must_use]
    pub fn rest_world(&self) -> Vec<glam::Affine3A> {
        let mut world: Vec<glam::Affine3A> = Vec::with_capacity(self.skeleton.bones.len());
        for b in &self.skeleton.bones {
            let t = &b.reference;
            let local = glam::Affine3A::from_scale_rotation_translation(
                glam::Vec3::from(t.scale),
                Quat::from_array(t.rotation).normalize(),
                glam::Vec3::from(t.translation),
            );
            let m = match usize::try_from(b.parent).ok().and_then(|p| world.get(p)) {
                Some(parent) => *parent * local,
                None => local,
            };
            world.push(m);
        }
        world
    }

    /// The character's largest world-space extent at rest, in file units:
    /// each skinned vertex skinned by its joints' rest world matrices times
    /// their inverse binds (glTF ignores a skinned mesh node's own
    /// transform), so an armature's scale counts, together with the boxes
    /// of rigid meshes parented to bones. `None` without a mesh.
    #[must_use]
    pub fn world_size(&self) -> Option<f32> {
        let world = self.rest_world();
        let mut lo = glam::Vec3::INFINITY;
        let mut hi = glam::Vec3::NEG_INFINITY;
        for mesh in &self.meshes {
            for (p, inf) in mesh.positions.iter().zip(&mesh.influences) {
                let (mut sum, mut total) = (glam::Vec3::ZERO, 0.0);
                for &(b, w) in inf {
                    let b = b as usize;
                    if w > 0.0 && b < world.len() {
                        sum += w * (world[b] * mesh.inverse_bind[b]).transform_point3(*p);
                        total += w;
                    }
                }
                if total > 0.0 && (sum / total).is_finite() {
                    lo = lo.min(sum / total);
                    hi = hi.max(sum / total);
                }
            }
        }
        for p in &self.rigid_corners {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        let size = (hi - lo).max_element();
        (size.is_finite() && size > 0.0).then_some(size)
    }

    /// Units per metre for a file whose units were not given: glTF says
    /// metres, but many exporters write centimetres or millimetres without
    /// a scale, and some export a character out of scale in any unit. Of
    /// [`UNIT_CANDIDATES`], the units that put the skinned mesh's world size
    /// within [`PLAUSIBLE_SIZE_M`] are candidates, and the one nearest (in
    /// ratio) [`ASSUMED_SIZE_M`] wins; with none, the character is scaled to
    /// [`ASSUMED_SIZE_M`]. `None` without a skinned mesh (the caller then
    /// uses glTF's metres and says so).
    #[must_use]
    pub fn infer_units(&self) -> Option<InferredUnits> {
        let size = self.world_size()?;
        let (lo, hi) = PLAUSIBLE_SIZE_M;
        let distance = |u: f32| (size / u / ASSUMED_SIZE_M).ln().abs();
        let plausible = UNIT_CANDIDATES
            .iter()
            .copied()
            .filter(|&(u, _)| (lo..=hi).contains(&(size / u)))
            .min_by(|a, b| distance(a.0).total_cmp(&distance(b.0)));
        let (units_per_meter, note) = match plausible {
            Some((units_per_meter, unit)) => (
                units_per_meter,
                format!(
                    "units: {units_per_meter} per metre ({unit}), inferred from the character's size, \
                     {size:.3} units = {:.2} m (a character is assumed about {ASSUMED_SIZE_M} m); \
                     pass --units-per-meter to override",
                    size / units_per_meter
                ),
            ),
            // Out of scale in every unit (a cartoon animal exported 4 m
            // long, a T-rex 31 m long): the character is taken to be the
            // size of the animal its names say (crate::species), else the
            // assumed size.
            None => {
                let (metres, why) = match self.animal() {
                    Some((animal, metres)) => {
                        let a = if animal.starts_with(['a', 'e', 'i', 'o', 'u']) {
                            "an"
                        } else {
                            "a"
                        };
                        (
                            metres,
                            format!("and its names say {a} {animal}, about {metres} m long"),
                        )
                    }
                    None => (
                        ASSUMED_SIZE_M,
                        format!("so it is taken to be about {ASSUMED_SIZE_M} m"),
                    ),
                };
                let units_per_meter = size / metres;
                (
                    units_per_meter,
                    format!(
                        "units: {units_per_meter:.3} per metre (scaled), {size:.3} units = \
                         {metres:.2} m: no unit (m, cm, mm) puts the character's size between \
                         {lo} and {hi} m, {why}; pass --units-per-meter to override"
                    ),
                )
            }
        };
        Some(InferredUnits {
            units_per_meter,
            size,
            note,
        })
    }

    /// The animal the file's names say the character is, and its typical
    /// size in metres ([`crate::species::known_size`]): the file's name
    /// first, then its meshes', its nodes' and its clips'.
    #[must_use]
    pub fn animal(&self) -> Option<(&'static str, f32)> {
        let stem = self.path.file_stem().and_then(|s| s.to_str());
        crate::species::known_size(
            stem.into_iter()
                .chain(self.meshes.iter().map(|m| m.name.as_str()))
                .chain(self.skeleton.bones.iter().map(|b| b.name.as_str()))
                .chain(self.clips.iter().map(|c| c.name.as_str())),
        )
    }

    /// The units per metre to use: `given`, else a VRM's metres, else
    /// inferred, else glTF's metres. The note says which and why.
    #[must_use]
    pub fn units(&self, given: Option<f32>) -> (f32, String) {
        match (given, self.infer_units()) {
            (Some(u), _) => (u, format!("units: {u} per metre (given)")),
            // VRM is in metres by its specification, whatever the size of
            // the character (a mascot under half a metre is not rescaled).
            (None, inferred) if self.spring_bones.is_some() => (
                1.0,
                format!(
                    "units: 1 per metre (VRM, in metres by its specification){}",
                    inferred.map_or(String::new(), |i| format!(
                        ", {:.3} units = {:.2} m",
                        i.size, i.size
                    ))
                ),
            ),
            (None, Some(i)) => (i.units_per_meter, i.note),
            (None, None) => (
                1.0,
                "units: 1 per metre (glTF's metres; no mesh to infer the size from)".into(),
            ),
        }
    }
}

impl Imported {
    /// A few lines for the terminal: what the file holds.
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let skins = match self.skins.len() {
            0 => "no skin".to_string(),
            n => format!(
                "{n} skin(s) with {} joints",
                self.skins
                    .iter()
                    .map(|s| s.len().to_string())
                    .collect::<Vec<_>>()
                    .join("/")
            ),
        };
        let clips = match self.clips.len() {
            0 => ", no animation clips".to_string(),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "{}: {} bones (nodes), {skins}{clips}",
            self.path.display(),
            self.skeleton.bones.len(),
        );
        let _ = writeln!(s, "{}", self.units(None).1);
        for c in &self.clips {
            let _ = writeln!(
                s,
                "clip {:?}: {:.2} s, {} channels",
                c.name,
                c.duration,
                c.channels.len()
            );
        }
        let tail = self.tail();
        if !tail.is_empty() {
            let names: Vec<&str> = tail
                .iter()
                .map(|&b| self.skeleton.bones[b].name.as_str())
                .collect();
            let _ = writeln!(s, "tail candidate: {}", names.join(" → "));
        }
        if let Some(v) = &self.spring_bones {
            let _ = writeln!(
                s,
                "VRM {} spring bones: {} chains, {} joints, {} colliders (secmo vrm-settings writes them)",
                if v.version == 0 { "0.x" } else { "1.0" },
                v.settings.chains.len(),
                v.joints,
                v.collider_shapes.len()
            );
            for c in &v.settings.node_constraints {
                let _ = writeln!(
                    s,
                    "node constraint: {} {} ← {}{} (weight {})",
                    c.kind,
                    c.destination,
                    c.source,
                    c.axis
                        .as_deref()
                        .map_or(String::new(), |a| format!(", axis {a}")),
                    c.weight
                );
            }
            for note in &v.notes {
                let _ = writeln!(s, "note: {note}");
            }
        }
        for w in &self.warnings {
            let _ = writeln!(s, "{w}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(interpolation: Interpolation, values: Vec<[f32; 4]>) -> Channel {
        Channel {
            bone: 0,
            property: Property::Translation,
            interpolation,
            times: vec![1.0, 3.0],
            values,
        }
    }

    #[test]
    fn step_holds_and_cubic_spline_follows_the_hermite_basis() {
        let step = channel(Interpolation::Step, vec![[1.0; 4], [5.0; 4]]);
        assert_eq!(step.sample(2.9)[0], 1.0);
        assert_eq!(step.sample(3.0)[0], 5.0);
        // glTF Appendix C at u = 0.5, dt = 2: 0.5·a + 0.125·dt·out_a + 0.5·b − 0.125·dt·in_b.
        // a = 0, b = 1, out_a = 2, in_b = 0 → 0 + 0.5 + 0.5 − 0 = 1.0.
        let cubic = channel(
            Interpolation::CubicSpline,
            vec![[9.0; 4], [0.0; 4], [2.0; 4], [0.0; 4], [1.0; 4], [9.0; 4]],
        );
        assert!((cubic.sample(2.0)[0] - 1.0).abs() < 1e-6);
        // Ends are the values, never the tangents.
        assert_eq!(cubic.sample(0.0)[0], 0.0);
        assert_eq!(cubic.sample(4.0)[0], 1.0);
    }
}
