//! Edge stretch on the skinned mesh (SPEC §10): for each mesh edge with bind
//! length ℓ⁰, ρ = |z_a − z_b| / ℓ⁰ at every sampled frame. Chain edges (both
//! ends skinned at least half to chain joints) are compared with the body's
//! own edges (no chain weight) as the baseline.

use glam::{Affine3A, Quat, Vec3};
use secmo::math::forward_kinematics;

use crate::bake::{BakeOptions, Baker};
use crate::import::{Clip, SkinnedMesh};

/// Distribution of ρ over all sampled frames and edges, and of each edge's
/// maximum over time. `None` when there were no edges (SPEC §10: empty is
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
    /// Q₀.₉₉ of the per-edge maxima over time (SPEC §10, 003).
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
    /// at 30 and 60 Hz and at 30 and 120 Hz input, at the 30 Hz keys. The
    /// inputs differ too: the clip is sampled at each rate and secmo
    /// interpolates linearly between samples.
    pub rate_difference: [f32; 2],
    /// Per-frame update time (clip sampling + secmo), p50 and p95, µs.
    pub update_micros: [f32; 2],
    /// Each chain's tip: the clip's target against secmo's output, and the
    /// output at 30/60/120 Hz input.
    pub tips: Vec<TipTrace>,
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
    /// Settling (SPEC §10): the largest tip motion between frames in the
    /// clip's last 2 s, metres; `None` for a clip shorter than 2 s.
    pub settling: Option<f32>,
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
    let scale = 1.0 / rig.units_per_meter();
    for (f, &t) in times.iter().enumerate() {
        let mut pose = rig.reference_pose().to_vec();
        clip.sample(t, &mut pose);
        if let Some(r) = rotations {
            for (k, &j) in baker.joints.iter().enumerate() {
                pose[j].rotation = r[k][f].to_array();
            }
        }
        forward_kinematics(rig.parents(), &pose, &mut component);
        for (path, &tip) in paths.iter_mut().zip(&tips) {
            path.push(Vec3::from(component[tip].translation) * scale);
        }
    }
    paths
}

/// The largest difference between two bakes of one clip at `a`'s key
/// times, `b` (a faster bake) slerped between its surrounding keys.
fn bake_difference(a: &crate::bake::BakedClip, b: &crate::bake::BakedClip) -> f32 {
    let mut worst = 0.0f32;
    for (ja, jb) in a.rotations.iter().zip(&b.rotations) {
        for (&t, &q) in a.times.iter().zip(ja) {
            let k = b
                .times
                .partition_point(|&x| x <= t)
                .clamp(1, b.times.len() - 1);
            let (t0, t1) = (b.times[k - 1], b.times[k]);
            let u = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
            worst = worst.max(crate::bake::angle(q, jb[k - 1].slerp(jb[k], u)));
        }
    }
    worst
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

/// The mesh's chain edges (both ends skinned at least half to `chain`) and
/// body edges (no chain weight), with their bind lengths.
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
            if wa >= 0.5 && wb >= 0.5 {
                chain_edges.push(Edge { a, b, rest });
            } else if wa == 0.0 && wb == 0.0 {
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

/// Measures `clip` on the baker's character: original, rigid and
/// secmo-driven chain, and the body baseline, over every baked key.
pub fn measure(baker: &Baker, clip: &Clip, options: &BakeOptions) -> StretchReport {
    let rig = &baker.rig;
    let bind = rig.reference_pose();
    let baked = baker.bake(clip, options, true);
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
    for mesh in &baker.imported.meshes {
        let (chain_edges, body_edges) = edge_sets(mesh, &baker.rig, &baker.joints);
        let skinned = |variant: usize| -> Vec<Vec<Vec3>> {
            (0..frames)
                .map(|f| skin_pose(mesh, rig, &pose_at(variant, f)))
                .collect()
        };
        let driven = skinned(2);
        sample(&chain_edges, &skinned(0), &mut samples[0]);
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
            baked.clone()
        } else {
            baker.bake(clip, &BakeOptions { rate, ..*options }, true)
        }
    };
    let bakes = [at(30.0), at(60.0), at(120.0)];
    let rate_difference = [
        bake_difference(&bakes[0], &bakes[1]),
        bake_difference(&bakes[0], &bakes[2]),
    ];
    let target = tip_paths(baker, clip, &baked.times, None);
    let output = tip_paths(baker, clip, &baked.times, Some(&baked.rotations));
    let rates: Vec<Vec<Vec<Vec3>>> = bakes
        .iter()
        .map(|b| tip_paths(baker, clip, &b.times, Some(&b.rotations)))
        .collect();
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
            }
        })
        .collect();
    let mut micros = baked.update_micros.clone();
    micros.sort_by(f32::total_cmp);
    let update_micros = if micros.is_empty() {
        [f32::NAN; 2]
    } else {
        [quantile(&micros, 0.5), quantile(&micros, 0.95)]
    };
    StretchReport {
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
    }
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
    let mut md = format!(
        "# secmo report: {}\n\nEdge stretch ρ = skinned length / bind length (SPEC §10), \
         every baked key of each clip. Chain edges: both ends skinned ≥ 50 % to the chain; \
         body edges: no chain weight. Torn: ρ > 1.5 or ρ < 0.67.\n",
        source.display()
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
        let file: String = r
            .clip
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let svg = dir.join(format!("stretch_{file}.svg"));
        plot(&svg, r)?;
        let _ = writeln!(
            md,
            "\nInput rate: the chain rotations differ by at most {:.2e} rad (30 vs 60 Hz) and \
             {:.2e} rad (30 vs 120 Hz) at the 30 Hz keys.",
            r.rate_difference[0], r.rate_difference[1]
        );
        let _ = writeln!(
            md,
            "\nUpdate cost per frame (clip sampling + secmo, this build): p50 {:.1} µs, p95 {:.1} µs.",
            r.update_micros[0], r.update_micros[1]
        );
        let _ = writeln!(
            md,
            "\nSettling (SPEC §10): the largest tip motion between baked keys in the clip's last 2 s."
        );
        for t in &r.tips {
            let _ = match t.settling {
                Some(m) => writeln!(md, "- chain from {}: {:.3} mm", t.chain, m * 1000.0),
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
            "\nSettling: the chain particles move at most {:.2e} mm between frames in the last 2 s.",
            h.settling * 1000.0
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

fn plot(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    use plotters::style::RGBColor;
    let (lo, hi, bins) = (0.6f32, 1.6f32, 50usize);
    let width = (hi - lo) / bins as f32;
    let share = |all: &[f32]| -> Vec<(f32, f32)> {
        let mut counts = vec![0usize; bins];
        for &x in all {
            let b = ((x - lo) / width).floor();
            if (0.0..bins as f32).contains(&b) {
                counts[b as usize] += 1;
            }
        }
        let n = all.len().max(1) as f32;
        counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (lo + (i as f32 + 0.5) * width, 100.0 * c as f32 / n))
            .collect()
    };
    let lines = vec![
        (
            "chains, original".to_string(),
            RGBColor(150, 150, 150),
            share(&r.samples[0].all),
        ),
        ("chains, secmo".to_string(), AMBER, share(&r.samples[2].all)),
        ("body baseline".to_string(), CYAN, share(&r.samples[3].all)),
    ];
    plot_panels(
        path,
        &format!("{}: edge stretch ρ (share of samples per 0.02)", r.clip),
        ("ρ (1 = bind length)", "% of samples"),
        &[(String::new(), lines)],
    )
}

/// The head-turn benchmark (SPEC §10, 003) on a character with chains and
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
    let frames = (12.0 * rate) as usize;
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
    }
    let mut samples: [Samples; 2] = Default::default();
    for mesh in &baker.imported.meshes {
        let (chain_edges, body_edges) = edge_sets(mesh, rig, &baker.joints);
        let skinned: Vec<Vec<Vec3>> = poses.iter().map(|p| skin_pose(mesh, rig, p)).collect();
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
        samples,
    })
}

/// Edge stretch (SPEC §10) of a region of the skin under a clip's own
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

/// Panels of time series: one per (title, y label, lines); each line is
/// (legend, colour, points).
type Line = (String, plotters::style::RGBColor, Vec<(f32, f32)>);

fn plot_panels(
    path: &std::path::Path,
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    panels: &[(String, Vec<Line>)],
) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let err = crate::demo::plot_error(path);
    let height = 40 + 260 * panels.len() as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(caption, ("sans-serif", 20))
        .map_err(|e| err(&e))?;
    for (area, (title, lines)) in root.split_evenly((panels.len(), 1)).iter().zip(panels) {
        let points = lines.iter().flat_map(|l| l.2.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for &(x, y) in points {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            continue;
        }
        let pad = ((y1 - y0) * 0.1).max(1e-3);
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1.max(x0 + 1e-3), (y0 - pad)..(y1 + pad))
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| err(&e))?;
        for (label, color, pts) in lines {
            let color = *color;
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color));
        }
        crate::demo::draw_legend(&mut chart, path)?;
    }
    root.present().map_err(|e| err(&e))
}

const CYAN: plotters::style::RGBColor = plotters::style::RGBColor(0, 170, 200);
const AMBER: plotters::style::RGBColor = plotters::style::RGBColor(240, 160, 0);

/// `tips_<clip>.svg`: each chain tip's lateral (x) and vertical (y)
/// position, the clip's target in cyan and secmo's output in amber.
fn plot_tips(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    let mut panels = Vec::new();
    for t in &r.tips {
        for (axis, get) in [("x (lateral)", 0usize), ("y (up)", 1)] {
            let series = |path: &[Vec3]| -> Vec<(f32, f32)> {
                t.times
                    .iter()
                    .zip(path)
                    .map(|(&x, p)| (x, p[get]))
                    .collect()
            };
            panels.push((
                format!("chain from {}: tip {axis}", t.chain),
                vec![
                    ("target".to_string(), CYAN, series(&t.target)),
                    ("secmo".to_string(), AMBER, series(&t.output)),
                ],
            ));
        }
    }
    plot_panels(
        path,
        &format!("{}: chain tips, target vs output", r.clip),
        ("time (s)", "m"),
        &panels,
    )
}

/// `rates_<clip>.svg`: each chain tip's lateral position from the bakes at
/// 30, 60 and 120 Hz input.
fn plot_rates(path: &std::path::Path, r: &StretchReport) -> anyhow::Result<()> {
    use plotters::style::RGBColor;
    let colours = [RGBColor(120, 120, 120), AMBER, RGBColor(40, 90, 220)];
    let panels: Vec<(String, Vec<Line>)> = r
        .tips
        .iter()
        .map(|t| {
            let lines = t
                .rates
                .iter()
                .zip(["30 Hz", "60 Hz", "120 Hz"])
                .zip(colours)
                .map(|(((times, path), label), colour)| {
                    let pts = times.iter().zip(path).map(|(&x, p)| (x, p.x)).collect();
                    (label.to_string(), colour, pts)
                })
                .collect();
            (format!("chain from {}: tip x (lateral)", t.chain), lines)
        })
        .collect();
    plot_panels(
        path,
        &format!("{}: secmo at 30/60/120 Hz input", r.clip),
        ("time (s)", "m"),
        &panels,
    )
}
