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

/// ρ statistics of `edges` over `frames` (skinned positions per frame).
fn stretch(edges: &[Edge], frames: &[Vec<Vec3>]) -> Option<Stretch> {
    if edges.is_empty() || frames.is_empty() {
        return None;
    }
    let mut all = Vec::with_capacity(edges.len() * frames.len());
    let mut per_edge = vec![0.0f32; edges.len()];
    for z in frames {
        for (e, m) in edges.iter().zip(per_edge.iter_mut()) {
            let rho = z[e.a as usize].distance(z[e.b as usize]) / e.rest;
            all.push(rho);
            *m = m.max(rho);
        }
    }
    let torn = all.iter().filter(|&&r| !(0.67..=1.5).contains(&r)).count();
    all.sort_by(f32::total_cmp);
    per_edge.sort_by(f32::total_cmp);
    Some(Stretch {
        edges: edges.len(),
        p95: quantile(&all, 0.95),
        p99: quantile(&all, 0.99),
        max: *all.last().unwrap(),
        min: all[0],
        torn_percent: 100.0 * torn as f32 / all.len() as f32,
        edge_max_p99: quantile(&per_edge, 0.99),
    })
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
        pose
    };

    let mut reports = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut component = vec![Affine3A::IDENTITY; bind.len()];
    let mut z = Vec::new();
    for mesh in &baker.imported.meshes {
        let weight = chain_weight(mesh, &baker.joints);
        forward_kinematics(rig.parents(), bind, &mut component);
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
        let skinned = |variant: usize| -> Vec<Vec<Vec3>> {
            (0..frames)
                .map(|f| {
                    let pose = pose_at(variant, f);
                    let mut component = vec![Affine3A::IDENTITY; pose.len()];
                    forward_kinematics(rig.parents(), &pose, &mut component);
                    let mut z = Vec::new();
                    skin(mesh, &component, &mut z);
                    z
                })
                .collect()
        };
        let driven = skinned(2);
        reports[0].push(stretch(&chain_edges, &skinned(0)));
        reports[1].push(stretch(&chain_edges, &skinned(1)));
        reports[2].push(stretch(&chain_edges, &driven));
        reports[3].push(stretch(&body_edges, &driven));
    }
    // One mesh is the common case; with several, keep the worst p99.
    let worst = |list: &Vec<Option<Stretch>>| {
        list.iter()
            .flatten()
            .copied()
            .max_by(|a, b| a.p99.total_cmp(&b.p99))
    };
    StretchReport {
        clip: clip.name.clone(),
        frames,
        original: worst(&reports[0]),
        rigid: worst(&reports[1]),
        secmo: worst(&reports[2]),
        body: worst(&reports[3]),
    }
}
