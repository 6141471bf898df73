//! Edge stretch on the skinned mesh (docs/algorithms.md §10): for each mesh edge with bind
//! length ℓ⁰, ρ = |z_a − z_b| / ℓ⁰ at every sampled frame. Chain edges (both
//! ends skinned at least half to chain joints) are compared with the body's
//! own edges (no chain weight) as the baseline.

use glam::{Affine3A, Quat, Vec3};
use secmo::math::forward_kinematics;

use crate::bake::{BakeOptions, Baker};
use crate::import::{Clip, SkinnedMesh};

/// Distribution of ρ over all sampled frames and edges, and of each edge's
/// maximum over time. `None` when there were no edges (docs/algorithms.md §10: empty is
/// reported as empty, never as zero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stretch {
    pub edges: usize,
    pub p95: f32,
    pub p99: f32,
    pub max: f32,
    pub min: f32,
    /// Percentage of (frame, edge) samples with ρ > 1.5 or ρ < 0.67.
    pub torn_percent: f32,
    /// Q₀.₉₉ of the per-edge maxima over time (docs/algorithms.md §10, 003).
    pub edge_max_p99: f32,
}

/// The three ways the chain can move, and the body baseline.
#[derive(Clone, Debug)]
pub struct StretchReport {
    pub clip: String,
    pub frames: usize,
    /// The file's own animation of the chain joints.
    pub original: Option<Stretch>,
    /// Chain joints held at their bind rotation (rigid with their parent):
    /// 1.00 by construction, which checks the harness.
    pub rigid: Option<Stretch>,
    /// Chain joints driven by secmo (warmed-up bake).
    pub secmo: Option<Stretch>,
    /// The body's own edges under the same animation.
    pub body: Option<Stretch>,
    /// Each chain's own edges driven by secmo, named by its first joint
    /// (a file with a tail and VRM hair gets a row for each).
    pub per_chain: Vec<(String, Option<Stretch>)>,
    /// The sorted ρ samples behind the four figures above, in that order.
    pub samples: [Samples; 4],
    /// Largest chain-joint rotation difference (radians) between the bakes
    /// with keys at 30 and 60 Hz and at 30 and 120 Hz, at the 30 Hz keys.
    /// Each bake feeds secmo the clip on its own 120 Hz grid plus the
    /// output's key times, so they differ only by those added updates.
    pub rate_difference: [f32; 2],
    /// The same on the clip keyed at 30 Hz first (identical input at every
    /// rate), largest chain rotation difference at the
    /// 30 Hz keys, radians: [30 vs 60, 30 vs 120].
    pub solver_rate_difference: [f32; 2],
    /// Per-frame update time (clip sampling + secmo), p50 and p95, µs.
    pub update_micros: [f32; 2],
    /// The deepest the chains driven by secmo go into their capsule
    /// colliders (the body colliders `bake` fits), rig units; None without
    /// capsules. The links, as the solver sees them.
    pub penetration: Option<f32>,
    /// The same on the skinned mesh, as a viewer sees it: the deepest a
    /// chain vertex (skinned more than half to the chains' joints) goes
    /// into one of the chains' capsules: the clip's own chain first, then
    /// secmo's. None without capsules.
    pub skin_penetration: Option<[SkinDepth; 2]>,
    /// Each chain's tip: the clip's target against secmo's output, and the
    /// output at 30/60/120 Hz input.
    pub tips: Vec<TipTrace>,
    /// The rig's units per metre: plots and the report speak in the rig's
    /// own unit.
    pub units_per_meter: f32,
}

/// A chain tip's path (component space, metres) over one baked clip.
#[derive(Clone, Debug)]
pub struct TipTrace {
    /// The chain's first joint.
    pub chain: String,
    pub times: Vec<f32>,
    /// Where the clip alone puts the tip (the chain rigid on its anchor when
    /// the clip does not animate it).
    pub target: Vec<Vec3>,
    /// Where secmo puts it.
    pub output: Vec<Vec3>,
    /// secmo's tip at 30, 60 and 120 Hz input: (times, positions).
    pub rates: [(Vec<f32>, Vec<Vec3>); 3],
    /// Settling (docs/algorithms.md §10): the largest tip motion between frames in the
    /// clip's last 2 s, metres; `None` for a clip shorter than 2 s.
    pub settling: Option<f32>,
    /// The tip's distance (metres) from its 120 Hz-input path at every key
    /// of the 30 Hz and of the 60 Hz run ([`tip_gaps`]): (time, distance).
    pub gaps: [Vec<(f32, f32)>; 2],
}

/// The last joint of each chain, per frame (metres), with the chain joints
/// at `rotations` (in [`Baker::joints`] order) or as the clip poses them.
fn tip_paths(
    baker: &Baker,
    clip: &Clip,
    times: &[f32],
    rotations: Option<&[Vec<Quat>]>,
) -> Vec<Vec<Vec3>> {
    let rig = &baker.rig;
    let tips: Vec<usize> = rig
        .chains()
        .iter()
        .map(|c| *c.joints.last().expect("chains have joints") as usize)
        .collect();
    let mut paths = vec![Vec::with_capacity(times.len()); tips.len()];
    let mut component = vec![Affine3A::IDENTITY; rig.bone_count()];
    let mut pose = rig.reference_pose().to_vec();
    let scale = 1.0 / rig.units_per_meter();
    for (f, &t) in times.iter().enumerate() {
        baker.keyed_pose(clip, t, rotations.map(|r| (r, f)), &mut pose);
        forward_kinematics(rig.parents(), &pose, &mut component);
        for (path, &tip) in paths.iter_mut().zip(&tips) {
            path.push(Vec3::from(component[tip].translation) * scale);
        }
    }
    paths
}

/// `b`'s chain-joint rotations at `times`: its own key where one lies within
/// 0.1 ms (the runs [`study_rates`] makes share every key of the slowest),
/// otherwise slerped between its surrounding keys.
fn rotations_at(b: &crate::bake::BakedClip, times: &[f32]) -> Vec<Vec<Quat>> {
    b.rotations
        .iter()
        .map(|track| {
            times
                .iter()
                .map(|&t| {
                    let k = b
                        .times
                        .partition_point(|&x| x <= t)
                        .clamp(1, b.times.len() - 1);
                    let (t0, t1) = (b.times[k - 1], b.times[k]);
                    if (t - t0).abs() < 1e-4 {
                        return track[k - 1];
                    }
                    if (t1 - t).abs() < 1e-4 {
                        return track[k];
                    }
                    let u = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
                    track[k - 1].slerp(track[k], u)
                })
                .collect()
        })
        .collect()
}

/// Each chain tip's distance (metres) between bake `a` at its key times
/// and bake `b` (a faster rate) at the same times (`rotations_at`: `b`'s
/// key there, or its rotations slerped), the clip's body sampled at each
/// time. Per chain, (time, distance).
#[must_use]
pub fn tip_gaps(
    baker: &Baker,
    clip: &Clip,
    a: &crate::bake::BakedClip,
    b: &crate::bake::BakedClip,
) -> Vec<Vec<(f32, f32)>> {
    let at_a = tip_paths(baker, clip, &a.times, Some(&a.rotations));
    let b_at_a = tip_paths(baker, clip, &a.times, Some(&rotations_at(b, &a.times)));
    at_a.iter()
        .zip(&b_at_a)
        .map(|(pa, pb)| {
            a.times
                .iter()
                .zip(pa.iter().zip(pb))
                .map(|(&t, (p, q))| (t, p.distance(*q)))
                .collect()
        })
        .collect()
}

/// The input rates of the 30/60/120 Hz study for a clip of `duration`
/// seconds: the 30 Hz run's key count n = round(30 × duration), and n, 2n
/// and 4n keys over the clip (a bake spreads its keys evenly over the
/// clip, ending on its end), so that every key of the 30 Hz run is a key
/// of the 60 and 120 Hz runs and the runs are compared where each has a
/// key.
/// (A bake takes round(rate × duration) keys: at exactly 30 and 120 Hz the
/// Fox's 24 Hz clips give runs whose keys coincide only at the ends, 0.71 s
/// Walk has 21 and 85 intervals. Slerping the 120 Hz run between its keys
/// instead errs as much as the difference shown: its keys slerped over
/// twice their spacing miss its own keys by up to 0.16 cm on Walk and
/// 0.58 cm on Run, where the 30 and 120 Hz runs differ by at most 0.12 and
/// 0.39 cm.)
/// A clip whose length is a whole number of 1/30 s runs at exactly 30, 60
/// and 120 Hz.
#[must_use]
pub fn study_rates(duration: f32) -> [f32; 3] {
    let n = (duration * 30.0).round().max(1.0);
    let rate = |m: f32| {
        if duration > 0.0 {
            m * n / duration
        } else {
            30.0 * m
        }
    };
    [rate(1.0), rate(2.0), rate(4.0)]
}

/// The largest difference between two bakes of one clip at `a`'s key
/// times ([`rotations_at`]: `b`'s key there, or `b` slerped).
fn bake_difference(a: &crate::bake::BakedClip, b: &crate::bake::BakedClip) -> f32 {
    a.rotations
        .iter()
        .zip(rotations_at(b, &a.times))
        .flat_map(|(ja, jb)| {
            ja.iter()
                .zip(jb)
                .map(|(&p, q)| crate::rotation::angle(p, q))
        })
        .fold(0.0f32, f32::max)
}

struct Edge {
    a: u32,
    b: u32,
    rest: f32,
}

/// Linear blend skinning of `mesh` for the component-space bone frames.
fn skin(mesh: &SkinnedMesh, component: &[Affine3A], out: &mut Vec<Vec3>) {
    out.clear();
    out.extend(mesh.positions.iter().zip(&mesh.influences).map(|(p, inf)| {
        inf.iter()
            .filter(|(_, w)| *w > 0.0)
            .map(|&(b, w)| {
                let b = b as usize;
                (component[b] * mesh.inverse_bind[b]).transform_point3(*p) * w
            })
            .sum::<Vec3>()
    }));
}

/// Chain weight of each vertex (sum of its weights on `chain` bones).
fn chain_weight(mesh: &SkinnedMesh, chain: &[usize]) -> Vec<f32> {
    mesh.influences
        .iter()
        .map(|inf| {
            inf.iter()
                .filter(|(b, _)| chain.contains(&(*b as usize)))
                .map(|(_, w)| w)
                .sum()
        })
        .collect()
}

fn quantile(sorted: &[f32], q: f32) -> f32 {
    let i = ((sorted.len() - 1) as f32 * q).round() as usize;
    sorted[i]
}

/// ρ samples of `edges` over `frames` (skinned positions per frame), added
/// to `pool`.
fn sample(edges: &[Edge], frames: &[Vec<Vec3>], pool: &mut Samples) {
    let mut per_edge = vec![0.0f32; edges.len()];
    for z in frames {
        for (e, m) in edges.iter().zip(per_edge.iter_mut()) {
            let rho = z[e.a as usize].distance(z[e.b as usize]) / e.rest;
            pool.all.push(rho);
            *m = m.max(rho);
        }
    }
    pool.edges += edges.len();
    pool.edge_max.extend(per_edge);
}

/// Every ρ of one variant, over all meshes and frames.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    pub edges: usize,
    /// Sorted once measured.
    pub all: Vec<f32>,
    edge_max: Vec<f32>,
}

impl Samples {
    fn summarize(&mut self) -> Option<Stretch> {
        if self.all.is_empty() {
            return None;
        }
        self.all.sort_by(f32::total_cmp);
        self.edge_max.sort_by(f32::total_cmp);
        let torn = self
            .all
            .iter()
            .filter(|&&r| !(0.67..=1.5).contains(&r))
            .count();
        Some(Stretch {
            edges: self.edges,
            p95: quantile(&self.all, 0.95),
            p99: quantile(&self.all, 0.99),
            max: *self.all.last().unwrap(),
            min: self.all[0],
            torn_percent: 100.0 * torn as f32 / self.all.len() as f32,
            edge_max_p99: quantile(&self.edge_max, 0.99),
        })
    }
}

/// The mesh's chain edges and body edges with their bind lengths, as
/// docs/algorithms.md §10 defines them: an edge is the chain's when at least one of its ends
/// is skinned more than half to the chain's bones (so the ring where the
/// tail meets the body counts); every other edge is the body's.
fn edge_sets(mesh: &SkinnedMesh, rig: &secmo::Rig, chain: &[usize]) -> (Vec<Edge>, Vec<Edge>) {
    let weight = chain_weight(mesh, chain);
    let mut component = vec![Affine3A::IDENTITY; rig.bone_count()];
    forward_kinematics(rig.parents(), rig.reference_pose(), &mut component);
    let mut z = Vec::new();
    skin(mesh, &component, &mut z);
    let mut chain_edges = Vec::new();
    let mut body_edges = Vec::new();
    for t in &mesh.triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            let rest = z[a as usize].distance(z[b as usize]);
            if rest < 1e-6 * rig.units_per_meter() {
                continue;
            }
            let (wa, wb) = (weight[a as usize], weight[b as usize]);
            if wa > 0.5 || wb > 0.5 {
                chain_edges.push(Edge { a, b, rest });
            } else {
                body_edges.push(Edge { a, b, rest });
            }
        }
    }
    (chain_edges, body_edges)
}

/// Skinned positions of `mesh` for a local pose.
fn skin_pose(mesh: &SkinnedMesh, rig: &secmo::Rig, pose: &[secmo::Transform]) -> Vec<Vec3> {
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    forward_kinematics(rig.parents(), pose, &mut component);
    let mut z = Vec::new();
    skin(mesh, &component, &mut z);
    z
}

/// The frames [`measure`] will simulate (its bakes, [`Baker::work`]) and
/// skin (three variants per mesh and key), for the progress bar.
#[must_use]
pub fn work(baker: &Baker, clip: &Clip, options: &BakeOptions) -> u64 {
    let at = |rate: f32| BakeOptions { rate, ..*options };
    let study = study_rates(clip.duration);
    let mut work = baker.work(clip, options, true);
    for rate in study {
        if rate != options.rate {
            work += baker.work(clip, &at(rate), true);
        }
        // The same input (the clip keyed at 30 Hz) at each rate.
        work += baker.work(clip, &at(rate), true);
    }
    let frames = ((clip.duration * options.rate).round() as u64).max(1);
    work + 3 * frames * baker.imported.meshes.len() as u64
}

/// The frames [`measure_head_turn`] simulates and skins.
#[must_use]
pub fn head_turn_work(baker: &Baker) -> u64 {
    HEAD_TURN_FRAMES as u64 * (1 + baker.imported.meshes.len() as u64)
}

/// The head-turn sequence's frames: 12 s at 30 Hz.
const HEAD_TURN_FRAMES: usize = 360;

/// Measures `clip` on the baker's character: original, rigid and
/// secmo-driven chain, and the body baseline, over every baked key.
pub fn measure(baker: &Baker, clip: &Clip, options: &BakeOptions) -> anyhow::Result<StretchReport> {
    let rig = &baker.rig;
    let bind = rig.reference_pose();
    let baked = baker.bake(clip, options, true)?;
    let frames = baked.times.len() - 1; // the last key repeats the first
                                        // The chain joints' rotation at frame f, by variant; None keeps the clip's.
    let chain_rotation = |variant: usize, f: usize, k: usize| -> Option<Quat> {
        match variant {
            0 => None,
            1 => Some(bind[baker.joints[k]].rotation()),
            _ => Some(baked.rotations[k][f]),
        }
    };
    let pose_at = |variant: usize, f: usize| {
        let mut pose = bind.to_vec();
        clip.sample(baked.times[f], &mut pose);
        for (k, &j) in baker.joints.iter().enumerate() {
            if let Some(r) = chain_rotation(variant, f, k) {
                pose[j].rotation = r.to_array();
            }
        }
        // The helpers move only in secmo's variant.
        if variant == 2 {
            for (k, &h) in baker.helpers.iter().enumerate() {
                let (t, r) = baked.helpers[k][f];
                pose[h].translation = t.to_array();
                pose[h].rotation = r.to_array();
            }
        }
        pose
    };

    let chains: Vec<Vec<usize>> = rig
        .chains()
        .iter()
        .map(|c| c.joints.iter().map(|&j| j as usize).collect())
        .collect();
    let mut per_chain_samples = vec![Samples::default(); chains.len()];
    let mut samples: [Samples; 4] = Default::default();
    // The chains' capsule colliders (the body capsules bake fits), and
    // each frame's component-space bones, by variant (0 the clip's, 2
    // secmo's).
    let capsules: Vec<&secmo::Collider> = {
        let mut ids: Vec<u32> = rig
            .chains()
            .iter()
            .flat_map(|c| c.colliders.clone())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.iter()
            .map(|&k| &rig.colliders()[k as usize])
            .filter(|c| c.shape == secmo::ColliderShape::Capsule)
            .collect()
    };
    let components = |variant: usize| -> Vec<Vec<Affine3A>> {
        if capsules.is_empty() {
            return Vec::new();
        }
        (0..frames)
            .map(|f| {
                let mut component = vec![Affine3A::IDENTITY; bind.len()];
                forward_kinematics(rig.parents(), &pose_at(variant, f), &mut component);
                component
            })
            .collect()
    };
    let (original_frames, driven_frames) = (components(0), components(2));
    let mut skin_depth = [SkinDepth::default(); 2];
    for mesh in &baker.imported.meshes {
        let (chain_edges, body_edges) = edge_sets(mesh, &baker.rig, &baker.joints);
        let skinned = |variant: usize| -> Vec<Vec<Vec3>> {
            (0..frames)
                .map(|f| {
                    let z = skin_pose(mesh, rig, &pose_at(variant, f));
                    baker.progress.done(1);
                    z
                })
                .collect()
        };
        let driven = skinned(2);
        let original_skin = skinned(0);
        if !capsules.is_empty() {
            let on_chain: Vec<bool> = chain_weight(mesh, &baker.joints)
                .iter()
                .map(|&w| w > 0.5)
                .collect();
            skin_depth[0].add(&on_chain, &capsules, &original_frames, &original_skin);
            skin_depth[1].add(&on_chain, &capsules, &driven_frames, &driven);
        }
        sample(&chain_edges, &original_skin, &mut samples[0]);
        sample(&chain_edges, &skinned(1), &mut samples[1]);
        sample(&chain_edges, &driven, &mut samples[2]);
        sample(&body_edges, &driven, &mut samples[3]);
        if chains.len() > 1 {
            for (joints, pool) in chains.iter().zip(&mut per_chain_samples) {
                let (edges, _) = edge_sets(mesh, &baker.rig, joints);
                sample(&edges, &driven, pool);
            }
        }
    }
    let per_chain = chains
        .iter()
        .zip(&mut per_chain_samples)
        .filter(|_| chains.len() > 1)
        .map(|(joints, pool)| {
            let name = rig.bone_name(joints[0]).unwrap_or("chain").to_string();
            (name, pool.summarize())
        })
        .collect();
    let [original, rigid, secmo, body] = samples.each_mut().map(Samples::summarize);
    // The bake above already covers its own rate.
    let at = |rate: f32| {
        if rate == options.rate {
            Ok(baked.clone())
        } else {
            baker.bake(clip, &BakeOptions { rate, ..*options }, true)
        }
    };
    let study = study_rates(clip.duration);
    let bakes = [at(study[0])?, at(study[1])?, at(study[2])?];
    let rate_difference = [
        bake_difference(&bakes[0], &bakes[1]),
        bake_difference(&bakes[0], &bakes[2]),
    ];
    // The same input at every rate: the clip keyed at 30 Hz, so the
    // remaining difference is the solver's, not the input's resampling.
    let keyed = clip.rekeyed(30.0);
    let same = |rate: f32| baker.bake(&keyed, &BakeOptions { rate, ..*options }, true);
    let same_input = [same(study[0])?, same(study[1])?, same(study[2])?];
    let solver_rate_difference = [
        bake_difference(&same_input[0], &same_input[1]),
        bake_difference(&same_input[0], &same_input[2]),
    ];
    let target = tip_paths(baker, clip, &baked.times, None);
    let output = tip_paths(baker, clip, &baked.times, Some(&baked.rotations));
    let rates: Vec<Vec<Vec<Vec3>>> = bakes
        .iter()
        .map(|b| tip_paths(baker, clip, &b.times, Some(&b.rotations)))
        .collect();
    let gaps = [
        tip_gaps(baker, clip, &bakes[0], &bakes[2]),
        tip_gaps(baker, clip, &bakes[1], &bakes[2]),
    ];
    let tips = rig
        .chains()
        .iter()
        .enumerate()
        .map(|(c, chain)| {
            let last = |path: &[Vec3]| -> Option<f32> {
                (clip.duration >= 2.0).then(|| {
                    baked
                        .times
                        .windows(2)
                        .zip(path.windows(2))
                        .filter(|(t, _)| t[0] >= clip.duration - 2.0)
                        .map(|(_, p)| p[0].distance(p[1]))
                        .fold(0.0, f32::max)
                })
            };
            TipTrace {
                chain: rig
                    .bone_name(chain.joints[0] as usize)
                    .unwrap_or("chain")
                    .to_string(),
                times: baked.times.clone(),
                target: target[c].clone(),
                settling: last(&output[c]),
                output: output[c].clone(),
                rates: std::array::from_fn(|r| (bakes[r].times.clone(), rates[r][c].clone())),
                gaps: std::array::from_fn(|k| gaps[k][c].clone()),
            }
        })
        .collect();
    let driven: Vec<Vec<secmo::Transform>> = (0..frames).map(|f| pose_at(2, f)).collect();
    let penetration = (0..rig.chains().len())
        .filter(|&c| {
            rig.chains()[c]
                .colliders
                .iter()
                .any(|&k| rig.colliders()[k as usize].shape == secmo::ColliderShape::Capsule)
        })
        .map(|c| crate::body::worst_penetration(rig, c, driven.iter().map(Vec::as_slice)))
        .reduce(f32::max);
    let mut micros = baked.update_micros.clone();
    micros.sort_by(f32::total_cmp);
    let update_micros = if micros.is_empty() {
        [f32::NAN; 2]
    } else {
        [quantile(&micros, 0.5), quantile(&micros, 0.95)]
    };
    Ok(StretchReport {
        units_per_meter: rig.units_per_meter(),
        update_micros,
        tips,
        clip: clip.name.clone(),
        frames,
        original,
        rigid,
        secmo,
        body,
        per_chain,
        samples,
        rate_difference,
        solver_rate_difference,
        penetration,
        skin_penetration: (!capsules.is_empty()).then_some(skin_depth),
    })
}

/// How deep chain vertices go into body capsules ([`StretchReport::skin_penetration`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkinDepth {
    /// The deepest a chain vertex goes into a capsule, rig units.
    pub depth: f32,
    /// The deepest as a share of that capsule's radius.
    pub share: f32,
}

impl SkinDepth {
    /// Takes in the vertices `on_chain` of a mesh's skinned `frames` (one
    /// position list per frame), against `capsules` placed by each frame's
    /// component-space bones `bones`.
    fn add(
        &mut self,
        on_chain: &[bool],
        capsules: &[&secmo::Collider],
        bones: &[Vec<Affine3A>],
        frames: &[Vec<Vec3>],
    ) {
        for (component, positions) in bones.iter().zip(frames) {
            for c in capsules {
                let Some(m) = component.get(c.bone as usize) else {
                    continue;
                };
                let (a, b) = (m.transform_point3(c.a), m.transform_point3(c.b));
                let radius = c.radius;
                if radius <= 0.0 {
                    continue;
                }
                let axis = b - a;
                let length2 = axis.length_squared();
                for (v, _) in positions.iter().zip(on_chain).filter(|(_, on)| **on) {
                    let t = if length2 > 0.0 {
                        ((*v - a).dot(axis) / length2).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let depth = radius - v.distance(a + axis * t);
                    if depth > self.depth {
                        self.depth = depth;
                    }
                    if depth / radius > self.share {
                        self.share = depth / radius;
                    }
                }
            }
        }
    }
}

/// A clip's name as it appears in the report's file names.
fn file_stem(clip: &str) -> String {
    clip.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Every file [`write()`] writes into `dir` for these clips.
#[must_use]
pub fn files(dir: &std::path::Path, clips: &[&str]) -> Vec<std::path::PathBuf> {
    let mut files = vec![dir.join("report.md")];
    for clip in clips {
        let stem = file_stem(clip);
        for kind in ["stretch", "tips", "rates"] {
            files.push(dir.join(format!("{kind}_{stem}.svg")));
        }
    }
    files
}

/// Writes `dir/report.md` (a table per clip) and `dir/stretch_<clip>.svg`
/// (the share of ρ samples per 0.02 bin: original chains grey, secmo-driven chains
/// amber, the body cyan). Returns the files written.
pub fn write(
    source: &std::path::Path,
    reports: &[StretchReport],
    head_turn: Option<&HeadTurnReport>,
    dir: &std::path::Path,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let upm = reports.first().map_or_else(
        || head_turn.map_or(1.0, |h| h.units_per_meter),
        |r| r.units_per_meter,
    );
    let unit = crate::plot::unit_name(upm);
    let mut md = format!(
        "# secmo report: {}\n\n\
         Lengths are in the rig's own unit, **{unit}** ({upm} per metre).\n\n\
         ## Terms\n\n\
         - **ρ (edge stretch)**: an edge's skinned length divided by its length in the bind \
         pose (docs/algorithms.md §10); 1 is unstretched. Every edge of the skinned mesh is sampled at every \
         baked key of the clip.\n\
         - **chain edges** (docs/algorithms.md §10): edges with at least one end skinned more than 50 % to \
         the chain's bones, so the ring where the chain meets the body counts; **body edges** \
         (the body baseline): every other edge, under the same animation, to show what the \
         rest of the character already does.\n\
         - **original animation**: the chain as the file's clip animates it; **rigid (harness \
         check)**: the chain joints held at their bind rotation, which must read 1.000 (it \
         checks the measurement); **secmo**: the chain joints driven by secmo after the loop \
         warm-up.\n\
         - **count**: edges in the set; **p95 / p99**: the 95th / 99th percentile of ρ over all \
         (key, edge) samples; **max**: the largest ρ; **torn %**: the share of samples with \
         ρ > {} or ρ < {} (a visible tear or crease); **Q0.99 of per-edge max**: the 99th \
         percentile over edges of each edge's largest ρ over the clip.\n\
         - **target**: where the clip alone puts a chain's tip (its authored keys, or the chain \
         held rigid on its parent where the clip does not animate it); **output**: where secmo \
         puts it. The difference is secmo's lag, swing and follow-through.\n\
         - **input rate**: the clip is baked with keys at 30, 60 and 120 Hz; each bake feeds \
         secmo (which steps at a fixed ≈120 Hz) the clip's own keys on a grid of at least \
         120 Hz plus its key times, and reads its keys from that trajectory. The bakes write \
         n, 2n and 4n keys over the clip (n its length × 30 Hz, rounded), so every 30 Hz key \
         is a key of the faster bakes and they are compared there. The rates plot shows how \
         far the tips are apart, with the float32 noise floor (4 ulp of the tip position). \
         They differ only by the updates the key times add between the grid's; the same \
         study on the clip keyed at 30 Hz first (identical input) is given apart.\n\
         - **settling**: the largest tip motion between consecutive keys in the clip's last \
         2 s (docs/algorithms.md §10); \"empty\" for clips shorter than 2 s.\n\
         - **update cost**: wall time per frame for sampling the clip and updating secmo, in \
         this build, on this machine.\n",
        source.display(),
        TORN.1,
        TORN.0
    );
    let mut written = Vec::new();
    for r in reports {
        let _ = write!(
            md,
            "\n## {} ({} frames)\n\n| edges | count | p95 | p99 | max | torn % | Q0.99 of per-edge max |\n|---|---|---|---|---|---|---|\n",
            r.clip, r.frames
        );
        table_rows(
            &mut md,
            &[
                ("chains, original animation", r.original),
                ("chains, rigid (harness check)", r.rigid),
                ("chains, secmo", r.secmo),
                ("body baseline", r.body),
            ],
            3,
        );
        let rows: Vec<(String, Option<Stretch>)> = r
            .per_chain
            .iter()
            .map(|(name, s)| (format!("chain from {name}, secmo"), *s))
            .collect();
        let rows: Vec<(&str, Option<Stretch>)> =
            rows.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        table_rows(&mut md, &rows, 3);
        let file = file_stem(&r.clip);
        let svg = dir.join(format!("stretch_{file}.svg"));
        plot(&svg, r)?;
        let _ = writeln!(
            md,
            "\nInput rate: with keys at each rate, the chain rotations differ by at most \
             {:.2e} rad (30 vs 60 Hz) and {:.2e} rad (30 vs 120 Hz) at the 30 Hz keys. On the \
             clip keyed at 30 Hz first (identical input) they differ by {:.2e} and {:.2e} rad.",
            r.rate_difference[0],
            r.rate_difference[1],
            r.solver_rate_difference[0],
            r.solver_rate_difference[1]
        );
        let _ = writeln!(
            md,
            "\nUpdate cost per frame (clip sampling + secmo, this build): p50 {:.1} µs, p95 {:.1} µs.",
            r.update_micros[0], r.update_micros[1]
        );
        let _ = writeln!(
            md,
            "\nSettling (docs/algorithms.md §10): the largest tip motion between baked keys in the clip's last 2 s."
        );
        for t in &r.tips {
            let _ = match t.settling {
                Some(m) => writeln!(md, "- chain from {}: {:.3e} {unit}", t.chain, m * upm),
                None => writeln!(
                    md,
                    "- chain from {}: empty (the clip is shorter than 2 s)",
                    t.chain
                ),
            };
        }
        let tips = dir.join(format!("tips_{file}.svg"));
        plot_tips(&tips, r)?;
        let rates = dir.join(format!("rates_{file}.svg"));
        plot_rates(&rates, r)?;
        for (what, path) in [
            ("stretch", svg),
            ("tip: target vs secmo", tips),
            ("tip at 30/60/120 Hz", rates),
        ] {
            let _ = writeln!(
                md,
                "\n![{what}, {}]({})",
                r.clip,
                path.file_name().unwrap().to_string_lossy()
            );
            written.push(path);
        }
    }
    if let Some(h) = head_turn {
        let _ = write!(
            md,
            "\n## Head-turn sequence ({}: 4 s of motion, 8 s still; {} frames at 30 Hz)\n\n\
             | edges | count | p95 | p99 | max | torn % | Q0.99 of per-edge max |\n|---|---|---|---|---|---|---|\n",
            h.head, h.frames
        );
        table_rows(
            &mut md,
            &[("chains, secmo", h.chain), ("body baseline", h.body)],
            4,
        );
        let _ = writeln!(
            md,
            "\nSettling: the chain particles move at most {:.2e} {unit} between frames in the last 2 s.",
            h.settling * upm
        );
    }
    let path = dir.join("report.md");
    std::fs::write(&path, md).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    written.insert(0, path);
    Ok(written)
}

/// One Markdown table row per labelled figure set; "empty" for no edges.
fn table_rows(md: &mut String, rows: &[(&str, Option<Stretch>)], decimals: usize) {
    use std::fmt::Write as _;
    let d = decimals;
    for (label, s) in rows {
        let _ = match s {
            Some(s) => writeln!(
                md,
                "| {label} | {} | {:.d$} | {:.d$} | {:.d$} | {:.2} | {:.d$} |",
                s.edges, s.p95, s.p99, s.max, s.torn_percent, s.edge_max_p99
            ),
            None => writeln!(
                md,
                "| {label} | 0 | empty | empty | empty | empty | empty |"
            ),
        };
    }
}

/// The torn thresholds of docs/algorithms.md §10: an edge stretched past 1.5× or
/// squashed below 0.67× its bind length is a visible tear.
pub const TORN: (f32, f32) = (0.67, 1.5);

/// `stretch_<clip>.svg`: the share of ρ samples per 0.02 bin on a log axis
/// (so the tail of the distribution shows next to the spike at 1), with
/// the torn thresholds drawn.
fn plot(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    use crate::plot::{Mark, Panel, Series, AMBER, CYAN, GREY, RED};
    let width = 0.02f32;
    let all = [&r.samples[0].all, &r.samples[2].all, &r.samples[3].all];
    let (mut lo, mut hi) = (0.6f32, 1.6f32);
    for x in all.iter().flat_map(|s| s.iter()).filter(|x| x.is_finite()) {
        lo = lo.min(*x);
        hi = hi.max(*x);
    }
    let lo = (lo / width).floor() * width;
    let bins = (((hi - lo) / width).ceil() as usize + 1).min(5000);
    // Half of one sample of the largest pool: the floor of the log axis.
    let floor = 50.0 / all.iter().map(|s| s.len()).max().unwrap_or(1).max(1) as f64;
    // A staircase: each bin's share held across the bin, zero bins at the floor.
    let share = |samples: &[f32]| -> Vec<(f64, f64)> {
        let mut counts = vec![0usize; bins];
        for &x in samples {
            let b = ((x - lo) / width).floor();
            if b >= 0.0 && (b as usize) < bins {
                counts[b as usize] += 1;
            }
        }
        let n = samples.len().max(1) as f64;
        counts
            .iter()
            .enumerate()
            .flat_map(|(i, &c)| {
                let x = f64::from(lo + i as f32 * width);
                let y = if c == 0 { floor } else { 100.0 * c as f64 / n };
                [(x, y), (x + f64::from(width), y)]
            })
            .collect()
    };
    let panel = Panel {
        title: format!(
            "edge stretch ρ; bins of {width}; log scale (a single sample of {} shows at ≈{:.0e} %)",
            r.samples[2].all.len(),
            100.0 / r.samples[2].all.len().max(1) as f64
        ),
        x_label: "ρ = skinned length / bind length (1 = unstretched)".into(),
        y_label: "% of samples (log)".into(),
        series: vec![
            Series::new("chains, original animation", GREY, share(&r.samples[0].all)),
            Series::new("chains, secmo", AMBER, share(&r.samples[2].all)),
            Series::new("body baseline", CYAN, share(&r.samples[3].all)),
        ],
        marks: vec![
            Mark::vertical(format!("torn: ρ < {}", TORN.0), RED, f64::from(TORN.0)),
            Mark::vertical(format!("torn: ρ > {}", TORN.1), RED, f64::from(TORN.1)),
        ],
        log_y: true,
        x_range: Some((f64::from(lo), f64::from(lo + bins as f32 * width))),
        y_range: Some((floor, 100.0)),
        ..Default::default()
    };
    crate::plot::draw(
        path,
        &format!("{}: edge stretch (docs/algorithms.md §10)", r.clip),
        &[panel],
    )
}

/// The head-turn benchmark (docs/algorithms.md §10, 003) on a character with chains and
/// no clips: 4 s of head motion, then 8 s of stillness, input at 30 Hz
/// (secmo substeps at 120 Hz), the mesh sampled at every input frame.
#[derive(Clone, Debug)]
pub struct HeadTurnReport {
    pub head: String,
    pub frames: usize,
    /// Chain (hair) edges, driven by secmo.
    pub chain: Option<Stretch>,
    /// The body's own edges.
    pub body: Option<Stretch>,
    /// Largest chain-particle motion between sampled frames in the last 2 s,
    /// metres.
    pub settling: f32,
    /// The rig's units per metre.
    pub units_per_meter: f32,
    pub samples: [Samples; 2],
}

/// The head: the first bone named *head* that carries a chain anchor or is
/// above one.
fn find_head(rig: &secmo::Rig) -> Option<usize> {
    let parents = rig.parents();
    let above = |mut b: i32, head: usize| {
        while b >= 0 {
            if b as usize == head {
                return true;
            }
            b = parents[b as usize];
        }
        false
    };
    (0..rig.bone_count()).find(|&h| {
        rig.bone_name(h)
            .is_some_and(|n| n.to_lowercase().contains("head"))
            && rig.chains().iter().any(|c| above(c.anchor as i32, h))
    })
}

/// Runs the head-turn sequence and measures stretch and settling.
pub fn measure_head_turn(baker: &Baker) -> anyhow::Result<HeadTurnReport> {
    let rig = &baker.rig;
    let head = find_head(rig).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: no bone named *head* above a chain for the head-turn sequence",
            baker.imported.path.display()
        )
    })?;
    let bind = rig.reference_pose();
    let rate = 30.0;
    let frames = HEAD_TURN_FRAMES;
    let mut character = secmo::Character::new(
        std::sync::Arc::clone(rig),
        secmo::CharacterOptions::default(),
    );
    let mut pose = bind.to_vec();
    let mut out = bind.to_vec();
    let mut poses = Vec::with_capacity(frames);
    let mut settling = 0.0f32;
    let mut previous: Vec<Vec3> = Vec::new();
    for f in 0..frames {
        let t = f as f32 / rate;
        // 40° of yaw at 0.5 Hz and 15° of pitch at 0.75 Hz, both back to 0 at 4 s.
        let (yaw, pitch) = if t < 4.0 {
            let tau = std::f32::consts::TAU;
            (
                40f32.to_radians() * (tau * 0.5 * t).sin(),
                15f32.to_radians() * (tau * 0.75 * t).sin(),
            )
        } else {
            (0.0, 0.0)
        };
        pose[head].rotation =
            (bind[head].rotation() * Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch))
                .to_array();
        let dt = if f == 0 { 0.0 } else { 1.0 / rate };
        character
            .update(
                &secmo::FrameInput {
                    dt,
                    pose: &pose,
                    teleport: false,
                },
                &mut out,
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let particles = character.particle_positions().to_vec();
        if t >= 10.0 && !previous.is_empty() {
            let moved = particles
                .iter()
                .zip(&previous)
                .map(|(a, b)| a.distance(*b))
                .fold(0.0, f32::max);
            settling = settling.max(moved / rig.units_per_meter());
        }
        previous = particles;
        poses.push(out.clone());
        baker.progress.done(1);
    }
    let mut samples: [Samples; 2] = Default::default();
    for mesh in &baker.imported.meshes {
        let (chain_edges, body_edges) = edge_sets(mesh, rig, &baker.joints);
        let skinned: Vec<Vec<Vec3>> = poses
            .iter()
            .map(|p| {
                let z = skin_pose(mesh, rig, p);
                baker.progress.done(1);
                z
            })
            .collect();
        sample(&chain_edges, &skinned, &mut samples[0]);
        sample(&body_edges, &skinned, &mut samples[1]);
    }
    let [chain, body] = samples.each_mut().map(Samples::summarize);
    Ok(HeadTurnReport {
        head: rig.bone_name(head).unwrap_or("?").to_string(),
        frames,
        chain,
        body,
        settling,
        units_per_meter: rig.units_per_meter(),
        samples,
    })
}

/// Edge stretch (docs/algorithms.md §10) of a region of the skin under a clip's own
/// animation, sampled at `rate`: the edges whose two ends are both in
/// `region` (per mesh of `imported`, per vertex). `secmo rig` uses it to
/// measure an appendage before it has a chain.
pub fn region_stretch(
    imported: &crate::import::Imported,
    clip: &Clip,
    rate: f32,
    region: &[Vec<bool>],
) -> anyhow::Result<Option<Stretch>> {
    let rig = secmo::Rig::new(secmo::RigDesc {
        bones: imported.skeleton.bones.clone(),
        ..Default::default()
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", imported.path.display()))?;
    let frames = ((clip.duration * rate).round() as usize).max(1);
    let mut pool = Samples::default();
    for (mesh, inside) in imported.meshes.iter().zip(region) {
        let bind = skin_pose(mesh, &rig, rig.reference_pose());
        let mut edges = Vec::new();
        for t in &mesh.triangles {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                let rest = bind[a as usize].distance(bind[b as usize]);
                if inside[a as usize] && inside[b as usize] && rest > 0.0 {
                    edges.push(Edge { a, b, rest });
                }
            }
        }
        let skinned: Vec<Vec<Vec3>> = (0..frames)
            .map(|f| {
                let mut pose = rig.reference_pose().to_vec();
                clip.sample(f as f32 * clip.duration / frames as f32, &mut pose);
                skin_pose(mesh, &rig, &pose)
            })
            .collect();
        sample(&edges, &skinned, &mut pool);
    }
    Ok(pool.summarize())
}

/// `tips_<clip>.svg`: each chain tip's lateral (x) and vertical (y)
/// position in the rig's units: the target (where the clip alone puts the
/// tip) in cyan and secmo's output in amber.
fn plot_tips(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    use crate::plot::{Panel, Series, AMBER, CYAN};
    let unit = crate::plot::unit_name(r.units_per_meter);
    let scale = f64::from(r.units_per_meter);
    let mut panels = Vec::new();
    for t in &r.tips {
        for (axis, get) in [("x, lateral", 0usize), ("y, up", 1)] {
            let series = |path: &[Vec3]| -> Vec<(f64, f64)> {
                t.times
                    .iter()
                    .zip(path)
                    .map(|(&x, p)| (f64::from(x), f64::from(p[get]) * scale))
                    .collect()
            };
            panels.push(Panel {
                title: format!("chain from {}: tip {axis}", t.chain),
                x_label: "clip time (s)".into(),
                y_label: format!("tip {} ({unit})", &axis[..1]),
                series: vec![
                    Series::new("target (clip alone)", CYAN, series(&t.target)),
                    Series::new("output (secmo)", AMBER, series(&t.output)),
                ],
                ..Default::default()
            });
        }
    }
    crate::plot::draw(
        path,
        &format!("{}: chain tips, target vs output", r.clip),
        &panels,
    )
}

/// The float32 noise floor of a tip position: a few ulps of its largest
/// coordinate (rig units). Differences below it are rounding, not motion.
#[must_use]
pub fn float_noise(positions: &[Vec3], units_per_meter: f32) -> f64 {
    let largest = positions
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0f32, f32::max);
    4.0 * f64::from(f32::EPSILON) * f64::from(largest * units_per_meter).max(1e-30)
}

/// `rates_<clip>.svg`: for each chain tip, the distance between secmo's
/// output at 30 and at 60 Hz input and its output at 120 Hz, at the 30 Hz
/// keys, on a log axis with the float32 noise floor drawn.
fn plot_rates(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    use crate::plot::{Mark, Panel, Series, AMBER, BLUE, GREY};
    let unit = crate::plot::unit_name(r.units_per_meter);
    let scale = f64::from(r.units_per_meter);
    let panels: Vec<Panel> = r
        .tips
        .iter()
        .map(|t| {
            let noise = float_noise(&t.rates[2].1, r.units_per_meter);
            let series: Vec<Series> = [
                (0usize, "30 Hz − 120 Hz input", BLUE),
                (1, "60 Hz − 120 Hz input", AMBER),
            ]
            .iter()
            .map(|&(k, label, color)| {
                let pts = t.gaps[k]
                    .iter()
                    .map(|&(time, d)| (f64::from(time), f64::from(d) * scale))
                    .collect();
                Series::new(label, color, pts)
            })
            .collect();
            let worst = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .fold(0.0f64, f64::max);
            let verdict = if worst < noise {
                format!("all below float32 noise ({noise:.1e} {unit})")
            } else {
                format!("largest {worst:.2e} {unit}")
            };
            Panel {
                title: format!(
                    "chain from {}: tip distance between input rates; {verdict}",
                    t.chain
                ),
                x_label: "clip time (s)".into(),
                y_label: format!("distance ({unit}, log)"),
                series,
                marks: vec![Mark::horizontal("float32 noise (4 ulp)", GREY, noise)],
                log_y: true,
                ..Default::default()
            }
        })
        .collect();
    crate::plot::draw(
        path,
        &format!(
            "{}: secmo's tip at 30 and 60 Hz input against 120 Hz",
            r.clip
        ),
        &panels,
    )
}
