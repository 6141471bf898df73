//! `secmo rig` (issue #6, docs/algorithms.md §12): find the appendages a humanoid
//! auto-rigger left without bones (a tail handed to the nearest leg), grow a
//! bone chain along each one that hangs from the pelvis, write its skin
//! weights, and give the file a secmo tail chain.
//!
//! The pass works in the skin's bind space (the space the inverse bind
//! matrices map from), on every skinned triangle primitive of the first skin.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use glam::{Affine3A, Mat3, Mat4, Quat, Vec3};
use secmo::settings::{ChainSettings, RigSettings};
use serde_json::{json, Value};

use crate::glb::Glb;
use crate::import::Imported;

/// docs/algorithms.md §12.6: weights of a vertex at fraction `f` ∈ [0, 1] along its
/// segment, as `[previous bone, own bone, next bone]`: the root quarter
/// blends toward the previous bone, the tip quarter toward the next, 50/50
/// at the joints.
#[must_use]
pub fn segment_weights(f: f32) -> [f32; 3] {
    let w_prev = (0.5 - 2.0 * f).clamp(0.0, 0.5);
    let w_next = (2.0 * f - 1.5).clamp(0.0, 0.5);
    [w_prev, 1.0 - w_prev - w_next, w_next]
}

/// Thresholds of the pass. The defaults are docs/algorithms.md §12's.
#[derive(Clone, Debug)]
pub struct GrowOptions {
    /// Far from the skeleton: more than this fraction of the model height
    /// (docs/algorithms.md §12.1: 7 %).
    pub far_fraction: f32,
    /// The far limit is at least this many times the median skeleton
    /// distance of the skin (our addition for bodies thicker than 7 %).
    pub thickness_factor: f32,
    /// Stub past an end joint, as a fraction of its parent bone's length.
    pub stub_fraction: f32,
    /// Appendage: skeleton distance of the centroid at least this fraction
    /// of the component's reach (docs/algorithms.md §12.4: 40 %).
    pub centroid_fraction: f32,
    /// Appendage: elongation √(λ1/λ2) at least this (docs/algorithms.md §12.4: tail ≈ 2.6,
    /// cape ≈ 1; the threshold between them is ours).
    pub min_elongation: f32,
    /// Components with fewer welded vertices than this are noise.
    pub min_vertices: usize,
    /// Rigid fallback (docs/algorithms.md §12.7): the appendage follows the hips, no chain.
    pub rigid: bool,
}

impl Default for GrowOptions {
    fn default() -> Self {
        Self {
            far_fraction: 0.07,
            thickness_factor: 2.0,
            stub_fraction: 0.25,
            centroid_fraction: 0.4,
            min_elongation: 1.8,
            min_vertices: 8,
            rigid: false,
        }
    }
}

/// Which part of the body a component hangs from (docs/algorithms.md §12.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The hips or a thigh.
    Pelvis,
    Spine,
    /// The neck or head.
    Head,
    /// An arm, a lower leg or anything else.
    Limb,
}

/// What the pass did with a component.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// A bone chain was grown.
    Chain,
    /// Weighted 1.0 to its attachment bone (spine-hanging parts, and
    /// pelvis-hanging ones under `--rigid`).
    Rigid,
    /// Left as it was, with the reason.
    Untouched(String),
}

/// One far component and what became of it.
#[derive(Clone, Debug)]
pub struct Appendage {
    /// Welded vertices in the component.
    pub vertices: usize,
    /// Its raw vertices as (index into `Imported::meshes`, vertex).
    pub members: Vec<(usize, usize)>,
    /// The bone it attaches to (skeleton index) and that bone's name.
    pub attachment: usize,
    pub attachment_name: String,
    pub region: Region,
    /// Skeleton distance of the centroid / the component's reach.
    pub centroid_ratio: f32,
    /// √(λ1/λ2) of the vertex covariance.
    pub elongation: f32,
    /// Whether it passes the docs/algorithms.md §12.4 appendage tests (centroid distance
    /// and elongation), wherever it hangs from.
    pub is_appendage: bool,
    /// p99 geodesic distance from the collar (file units).
    pub length: f32,
    /// Segments (0 unless a chain was grown).
    pub segments: usize,
    /// Bind-space joint positions J_0..J_K of the grown chain.
    pub joints: Vec<Vec3>,
    /// Each member's chain coordinate `s = K·g/L` (docs/algorithms.md §12.6; chains only).
    pub coordinates: Vec<f32>,
    /// Mean weighted vertex-to-bone distance over the component before and
    /// after the pass (file units).
    pub mean_distance: [f32; 2],
    pub fate: Fate,
}

/// A bone the pass adds.
#[derive(Clone, Debug)]
pub struct NewBone {
    pub name: String,
    /// Skeleton index of an existing bone, or `!index` into the new bones.
    pub parent: isize,
    /// Local translation in the parent's frame (rotation identity, scale 1).
    pub local: Vec3,
    /// Bind-space transform.
    pub bind: Affine3A,
}

/// The pass's result.
#[derive(Clone, Debug)]
pub struct Grown {
    /// Model size H: the character's largest extent in its scene (a
    /// standing humanoid's height, a quadruped's length), in the skin's
    /// bind-space units.
    pub height: f32,
    /// Scene units per bind-space unit (an armature's scale: 100 on
    /// RobotExpressive, 1 on most files); the summary prints scene units.
    pub scene_scale: f32,
    /// The scene's units per metre as inferred for the units line.
    pub units_per_meter: f32,
    /// Vertices farther than this from the skeleton are far (file units).
    pub far_limit: f32,
    pub appendages: Vec<Appendage>,
    /// The hips bone the chains hang from.
    pub hips: Option<usize>,
    /// Skin joints that carry no weight, nor do any below them: they count
    /// as no rigging (their skin is measured against the weighted bones).
    pub weightless: Vec<String>,
    pub new_bones: Vec<NewBone>,
    /// New influences per skinned mesh (index into `Imported::meshes`) and
    /// vertex; bones ≥ the skeleton's bone count are new bones.
    pub influences: Vec<Vec<[(u32, f32); 4]>>,
    /// The file's own rig settings plus the grown chains (tail preset).
    pub settings: RigSettings,
}

/// A bone's bind-space segments: to each child joint, or a stub past an end
/// joint. Distances are to the nearest segment of the nearest bone.
///
/// Queries are sublinear in the skeleton: segments are indexed by bone, and
/// by a uniform grid over the model's box for the nearest-segment search
/// (rings of cells around the query until no unvisited cell can be nearer),
/// so the pass is linear in the mesh rather than in vertices × joints. Ties
/// go to the segment listed first, as a plain scan would.
struct Segments {
    list: Vec<(usize, Vec3, Vec3)>,
    by_bone: HashMap<usize, Vec<usize>>,
    grid: Option<SegmentGrid>,
}

struct SegmentGrid {
    lo: Vec3,
    cell: f32,
    dims: [usize; 3],
    cells: Vec<Vec<u32>>,
}

impl SegmentGrid {
    fn coord(&self, p: Vec3) -> [usize; 3] {
        let c = ((p - self.lo) / self.cell).floor();
        std::array::from_fn(|k| (c[k].max(0.0) as usize).min(self.dims[k] - 1))
    }

    fn index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    fn contains(&self, p: Vec3) -> bool {
        let hi = self.lo
            + Vec3::new(
                self.dims[0] as f32,
                self.dims[1] as f32,
                self.dims[2] as f32,
            ) * self.cell;
        p.cmpge(self.lo).all() && p.cmplt(hi).all()
    }
}

impl Segments {
    /// Segments with a search grid over `bounds` (the box the queries come
    /// from, e.g. the skin's), when there are enough segments to need one.
    fn new(list: Vec<(usize, Vec3, Vec3)>, bounds: Option<(Vec3, Vec3)>) -> Self {
        let mut by_bone: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, s) in list.iter().enumerate() {
            by_bone.entry(s.0).or_default().push(i);
        }
        let grid = bounds.filter(|_| list.len() > 16).and_then(|(lo, hi)| {
            let (mut lo, mut hi) = (lo, hi);
            for &(_, a, b) in &list {
                lo = lo.min(a).min(b);
                hi = hi.max(a).max(b);
            }
            let extent = (hi - lo).max_element();
            if !(extent.is_finite() && extent > 0.0) {
                return None;
            }
            let cell = extent / 32.0;
            let dims: [usize; 3] =
                std::array::from_fn(|k| (((hi[k] - lo[k]) / cell).floor() as usize + 1).min(64));
            let mut grid = SegmentGrid {
                lo,
                cell,
                dims,
                cells: vec![Vec::new(); dims[0] * dims[1] * dims[2]],
            };
            for (i, &(_, a, b)) in list.iter().enumerate() {
                let (c0, c1) = (grid.coord(a.min(b)), grid.coord(a.max(b)));
                for z in c0[2]..=c1[2] {
                    for y in c0[1]..=c1[1] {
                        for x in c0[0]..=c1[0] {
                            let at = grid.index([x, y, z]);
                            grid.cells[at].push(i as u32);
                        }
                    }
                }
            }
            Some(grid)
        });
        Self {
            list,
            by_bone,
            grid,
        }
    }

    fn nearest(&self, p: Vec3) -> (f32, usize) {
        let Some(grid) = self.grid.as_ref().filter(|g| g.contains(p)) else {
            return self.scan(p);
        };
        let c = grid.coord(p);
        let mut best = (f32::INFINITY, usize::MAX); // (distance, list index)
        let max_r = grid.dims.iter().copied().max().unwrap_or(1);
        for r in 0..=max_r {
            let lo: [isize; 3] = std::array::from_fn(|k| c[k] as isize - r as isize);
            let hi: [isize; 3] = std::array::from_fn(|k| c[k] as isize + r as isize);
            for z in lo[2].max(0)..=hi[2].min(grid.dims[2] as isize - 1) {
                for y in lo[1].max(0)..=hi[1].min(grid.dims[1] as isize - 1) {
                    for x in lo[0].max(0)..=hi[0].min(grid.dims[0] as isize - 1) {
                        let on_shell = [x, y, z]
                            .iter()
                            .zip(lo.iter().zip(&hi))
                            .any(|(v, (l, h))| v == l || v == h);
                        if !on_shell {
                            continue;
                        }
                        for &i in &grid.cells[grid.index([x as usize, y as usize, z as usize])] {
                            let (_, a, b) = self.list[i as usize];
                            let d = segment_distance(p, a, b);
                            if (d, i as usize) < best {
                                best = (d, i as usize);
                            }
                        }
                    }
                }
            }
            // Every segment not seen yet lies in cells at least r whole
            // cells away from the query's cell.
            if best.0 < r as f32 * grid.cell {
                break;
            }
        }
        if best.1 == usize::MAX {
            return self.scan(p);
        }
        (best.0, self.list[best.1].0)
    }

    /// The plain scan (queries outside the grid, few segments).
    fn scan(&self, p: Vec3) -> (f32, usize) {
        let mut best = (f32::INFINITY, usize::MAX);
        for &(bone, a, b) in &self.list {
            let d = segment_distance(p, a, b);
            if d < best.0 {
                best = (d, bone);
            }
        }
        best
    }

    /// Distance from `p` to `bone`'s own segments.
    fn to_bone(&self, p: Vec3, bone: usize) -> f32 {
        self.by_bone.get(&bone).map_or(f32::INFINITY, |list| {
            list.iter()
                .map(|&i| {
                    let (_, a, b) = self.list[i];
                    segment_distance(p, a, b)
                })
                .fold(f32::INFINITY, f32::min)
        })
    }
}

/// docs/algorithms.md §12.1: `t = clamp(((p−a)·(b−a))/|b−a|², 0, 1)`, distance to a + t(b−a).
fn segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + t * ab)
}

fn name_has(name: &str, words: &[&str]) -> bool {
    let n = name.to_lowercase();
    words.iter().any(|w| n.contains(w))
}

/// Every skinned primitive of one skin, welded into one graph.
struct Surface {
    positions: Vec<Vec3>,
    /// (mesh index, vertex index) of each vertex.
    origin: Vec<(usize, usize)>,
    /// Weld id of each vertex, and the welded positions.
    weld: Vec<usize>,
    welded: Vec<Vec3>,
    /// Welded adjacency with edge lengths.
    adjacency: Vec<Vec<(usize, f32)>>,
}

fn surface(imported: &Imported, skin: usize, height_hint: f32) -> anyhow::Result<Surface> {
    let mut positions = Vec::new();
    let mut origin = Vec::new();
    let mut triangles = Vec::new();
    for (m, mesh) in imported.meshes.iter().enumerate() {
        if mesh.skin != skin {
            continue;
        }
        let base = positions.len() as u32;
        for (v, p) in mesh.positions.iter().enumerate() {
            if !p.is_finite() {
                return Err(anyhow::anyhow!(
                    "mesh {}: vertex {v} has a NaN or infinite position",
                    mesh.name
                ));
            }
            positions.push(*p);
            origin.push((m, v));
        }
        for (t, tri) in mesh.triangles.iter().enumerate() {
            if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
                return Err(anyhow::anyhow!(
                    "mesh {}: triangle {t} is degenerate (vertex indices {tri:?})",
                    mesh.name
                ));
            }
            triangles.push(tri.map(|i| base + i));
        }
    }
    // docs/algorithms.md §12.2: weld by position (exporters split at UV and normal seams).
    let cell = (height_hint * 1e-5).max(f32::MIN_POSITIVE);
    let mut by_cell: HashMap<[i64; 3], usize> = HashMap::new();
    let mut welded = Vec::new();
    let weld: Vec<usize> = positions
        .iter()
        .map(|p| {
            let key = (*p / cell).round().as_i64vec3().to_array();
            *by_cell.entry(key).or_insert_with(|| {
                welded.push(*p);
                welded.len() - 1
            })
        })
        .collect();
    let mut adjacency: Vec<Vec<(usize, f32)>> = vec![Vec::new(); welded.len()];
    for t in &triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            let (a, b) = (weld[a as usize], weld[b as usize]);
            if a != b && !adjacency[a].iter().any(|e| e.0 == b) {
                let d = welded[a].distance(welded[b]);
                adjacency[a].push((b, d));
                adjacency[b].push((a, d));
            }
        }
    }
    Ok(Surface {
        positions,
        origin,
        weld,
        welded,
        adjacency,
    })
}

/// Eigenvalues of a symmetric 3×3 matrix, largest first (cyclic Jacobi).
fn symmetric_eigenvalues(m: Mat3) -> [f32; 3] {
    let mut a = [[0.0f64; 3]; 3];
    for (c, col) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
        for (r, v) in col.to_array().iter().enumerate() {
            a[r][c] = f64::from(*v);
        }
    }
    for _ in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off < 1e-15 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            for k in 0..3 {
                a[p][k] = c * rp[k] - s * rq[k];
                a[q][k] = s * rp[k] + c * rq[k];
            }
        }
    }
    let mut e = [a[0][0] as f32, a[1][1] as f32, a[2][2] as f32];
    e.sort_by(|x, y| y.total_cmp(x));
    e
}

/// √(λ1/λ2) of the covariance of `points` (docs/algorithms.md §12.4).
#[must_use]
pub fn elongation(points: &[Vec3]) -> f32 {
    let n = points.len().max(1) as f32;
    let mean = points.iter().copied().sum::<Vec3>() / n;
    let mut cov = Mat3::ZERO;
    for p in points {
        let d = *p - mean;
        cov += Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    }
    let [l1, l2, _] = symmetric_eigenvalues(cov * (1.0 / n));
    if l2 <= 0.0 {
        f32::INFINITY
    } else {
        (l1 / l2).sqrt()
    }
}

#[derive(PartialEq)]
struct Queued(f32, usize);
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0) // a min-heap
    }
}

/// docs/algorithms.md §12.5: Dijkstra geodesics (edge cost = length) from `sources`
/// through the vertices `allowed`.
fn geodesics(s: &Surface, sources: &[usize], allowed: &[bool]) -> Vec<f32> {
    let mut g = vec![f32::INFINITY; s.welded.len()];
    let mut heap = BinaryHeap::new();
    for &v in sources {
        g[v] = 0.0;
        heap.push(Queued(0.0, v));
    }
    while let Some(Queued(d, v)) = heap.pop() {
        if d > g[v] {
            continue;
        }
        for &(w, len) in &s.adjacency[v] {
            if allowed[w] && d + len < g[w] {
                g[w] = d + len;
                heap.push(Queued(d + len, w));
            }
        }
    }
    g
}

fn quantile(sorted: &[f32], q: f32) -> f32 {
    if sorted.is_empty() {
        return f32::NAN;
    }
    let i = ((sorted.len() - 1) as f32 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Component {
    members: Vec<usize>,
    collar: Vec<usize>,
    attachment: usize,
}

/// Runs docs/algorithms.md §12 on `imported` (its first skin).
/// Scene units per bind-space unit of skin `skin`: the median scale of its
/// joints' rest world matrix times inverse bind (1 when the skin's bind
/// space is the scene's; an armature's scale otherwise).
fn bind_scene_scale(imported: &Imported, skin: usize, joints: &[usize]) -> f32 {
    let world = imported.rest_world();
    let Some(mesh) = imported.meshes.iter().find(|m| m.skin == skin) else {
        return 1.0;
    };
    let mut scales: Vec<f32> = joints
        .iter()
        .filter_map(|&b| Some(*world.get(b)? * *mesh.inverse_bind.get(b)?))
        .map(|m| m.matrix3.determinant().abs().cbrt())
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    if scales.is_empty() {
        return 1.0;
    }
    scales.sort_by(f32::total_cmp);
    scales[scales.len() / 2]
}

pub fn grow(imported: &Imported, options: &GrowOptions) -> anyhow::Result<Grown> {
    let at = |m: String| anyhow::anyhow!("{}: {m}", imported.path.display());
    let skeleton = &imported.skeleton;
    let bones = &skeleton.bones;
    let Some(first) = imported.meshes.first() else {
        // Say why the file's meshes were left out (Draco, a missing buffer).
        let skipped: Vec<&str> = imported
            .warnings
            .iter()
            .filter(|w| w.ends_with("skipped"))
            .map(String::as_str)
            .collect();
        let why = if skipped.is_empty() {
            String::new()
        } else {
            format!(" ({})", skipped.join("; "))
        };
        return Err(at(format!(
            "no skinned triangle mesh (a skin with JOINTS_0/WEIGHTS_0) to grow chains on{why}"
        )));
    };
    let skin = first.skin;
    let joints = imported.skins.get(skin).cloned().unwrap_or_default();
    if joints.is_empty() {
        return Err(at(format!("skins[{skin}] has no joints")));
    }
    // Bind-space joint positions from the inverse binds.
    let bind: Vec<Affine3A> = (0..bones.len())
        .map(|b| first.inverse_bind[b].inverse())
        .collect();
    for &b in &joints {
        if !bind[b].is_finite() {
            return Err(at(format!(
                "skins[{skin}]: the inverse bind matrix of {} is singular",
                bones[b].name
            )));
        }
    }
    let pos = |b: usize| Vec3::from(bind[b].translation);
    // Indexed, so that the pass stays linear in the skin's joints.
    let mut skin_member = vec![false; bones.len()];
    for &b in &joints {
        skin_member[b] = true;
    }
    let in_skin = |b: usize| skin_member[b];

    // Weightless joints are no rigging: a bone counts for the skeleton's
    // distance field only if it, or a joint below it, carries skin weight
    // (a tail whose bones were kept but emptied is a tail without bones).
    let mut weighted = vec![false; bones.len()];
    for mesh in imported.meshes.iter().filter(|m| m.skin == skin) {
        for inf in &mesh.influences {
            for &(b, w) in inf {
                if w > 0.0 {
                    if let Some(x) = weighted.get_mut(b as usize) {
                        *x = true;
                    }
                }
            }
        }
    }
    let mut carries = weighted.clone();
    // Bones are parents-first: children propagate up in reverse.
    for b in (0..bones.len()).rev() {
        if carries[b] && bones[b].parent >= 0 {
            carries[bones[b].parent as usize] = true;
        }
    }
    let weightless: Vec<String> = joints
        .iter()
        .filter(|&&b| !carries[b])
        .map(|&b| bones[b].name.clone())
        .collect();
    // docs/algorithms.md §12.1: segments, with a stub past each end joint.
    let mut list = Vec::new();
    let mut children_of = vec![Vec::new(); bones.len()];
    for &c in joints.iter().filter(|&&c| carries[c]) {
        if bones[c].parent >= 0 {
            children_of[bones[c].parent as usize].push(c);
        }
    }
    for &b in joints.iter().filter(|&&b| carries[b]) {
        let children = &children_of[b];
        for &c in children {
            list.push((b, pos(b), pos(c)));
        }
        if children.is_empty() {
            let parent = bones[b].parent;
            let stub = if parent >= 0 && in_skin(parent as usize) {
                (pos(b) - pos(parent as usize)) * options.stub_fraction
            } else {
                Vec3::ZERO
            };
            list.push((b, pos(b), pos(b) + stub));
        }
    }
    let all: Vec<Vec3> = imported
        .meshes
        .iter()
        .filter(|m| m.skin == skin)
        .flat_map(|m| m.positions.iter().copied())
        .collect();
    // The skin's box in bind space (for the segment grid and the weld).
    let (lo, hi) = all
        .iter()
        .filter(|p| p.is_finite())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let extent = (hi - lo).max_element();
    let segments = Segments::new(list, Some((lo, hi)));
    if !(extent.is_finite() && extent > 0.0) && all.iter().all(|p| p.is_finite()) {
        return Err(at("the skinned mesh has no extent".into()));
    }
    // The model's size H (a standing humanoid's height, a quadruped's
    // length): the character's largest extent in its scene, rigid parts on
    // bones and an armature's scale included, as the units line measures
    // it ([`Imported::world_size`]), in the skin's bind-space units.
    // (RobotExpressive's skin is in hundredths under a ×100 armature, and
    // most of its body is rigid meshes: its skin alone spans 0.019 bind
    // units, the robot 4.60 m.)
    let scene_scale = bind_scene_scale(imported, skin, &joints);
    let height = imported
        .world_size()
        .map(|w| w / scene_scale)
        .filter(|h| h.is_finite() && *h >= extent)
        .unwrap_or(extent);
    let surface = surface(imported, skin, extent).map_err(|e| at(format!("{e:#}")))?;
    let n = surface.welded.len();
    let field: Vec<(f32, usize)> = surface
        .welded
        .iter()
        .map(|p| segments.nearest(*p))
        .collect();
    // docs/algorithms.md §12.1 says 7 % of the height, for a humanoid. A quadruped's body
    // is thicker than that around its spine, so the limit is at least twice
    // the median skeleton distance (docs/rig.md).
    let mut sorted: Vec<f32> = field.iter().map(|f| f.0).collect();
    sorted.sort_by(f32::total_cmp);
    let thickness = quantile(&sorted, 0.5);
    let far_limit = (options.far_fraction * height).max(options.thickness_factor * thickness);
    let far: Vec<bool> = field.iter().map(|f| f.0 > far_limit).collect();

    // docs/algorithms.md §12.2: connected components of the far vertices.
    let mut label = vec![usize::MAX; n];
    let mut components = Vec::new();
    for start in 0..n {
        if !far[start] || label[start] != usize::MAX {
            continue;
        }
        let id = components.len();
        let mut members = vec![start];
        label[start] = id;
        let mut i = 0;
        while i < members.len() {
            let v = members[i];
            for &(w, _) in &surface.adjacency[v] {
                if far[w] && label[w] == usize::MAX {
                    label[w] = id;
                    members.push(w);
                }
            }
            i += 1;
        }
        components.push(members);
    }

    // docs/algorithms.md §12.3: hips, attachment with the torso/thigh bias.
    let hips = joints
        .iter()
        .copied()
        .find(|&b| name_has(&bones[b].name, &["hips", "pelvis"]))
        .or_else(|| {
            joints
                .iter()
                .copied()
                .find(|&b| name_has(&bones[b].name, &["hip"]))
        });
    let is_spine = |b: usize| name_has(&bones[b].name, &["spine", "chest", "torso"]);
    let region = |b: usize| -> Region {
        if Some(b) == hips || (hips.is_some_and(|h| bones[b].parent == h as i32) && !is_spine(b)) {
            return Region::Pelvis;
        }
        let mut a = b as i32;
        while a >= 0 {
            if name_has(&bones[a as usize].name, &["head", "neck"]) {
                return Region::Head;
            }
            a = bones[a as usize].parent;
        }
        if is_spine(b) {
            Region::Spine
        } else {
            Region::Limb
        }
    };
    // The nearest joint, unless a torso joint (hips, spine) or else a
    // thigh is within 1.5× its distance: a tail's collar sits between the
    // hips and both hip sockets, and belongs to the hips.
    let torso = |b: usize| Some(b) == hips || is_spine(b);
    let thigh = |b: usize| region(b) == Region::Pelvis;
    let attach = |centre: Vec3| -> usize {
        let nearest = |filter: &dyn Fn(usize) -> bool| {
            joints
                .iter()
                .copied()
                .filter(|&b| filter(b))
                .map(|b| (pos(b).distance(centre), b))
                .min_by(|a, b| a.0.total_cmp(&b.0))
        };
        let (d, b) = nearest(&|_| true).expect("the skin has joints");
        [nearest(&torso), nearest(&thigh)]
            .into_iter()
            .flatten()
            .find(|&(dt, _)| dt <= 1.5 * d)
            .map_or(b, |(_, t)| t)
    };
    let mut found: Vec<Component> = Vec::new();
    for members in components {
        if members.len() < options.min_vertices {
            continue;
        }
        let mut collar: Vec<usize> = members
            .iter()
            .flat_map(|&v| surface.adjacency[v].iter().map(|e| e.0))
            .filter(|&w| !far[w])
            .collect();
        collar.sort_unstable();
        collar.dedup();
        if collar.is_empty() {
            // A separate shell: its nearest tenth to the skeleton stands in.
            let mut by_distance = members.clone();
            by_distance.sort_by(|a, b| field[*a].0.total_cmp(&field[*b].0));
            collar = by_distance[..(by_distance.len() / 10).max(1)].to_vec();
        }
        let centre = collar.iter().map(|&v| surface.welded[v]).sum::<Vec3>() / collar.len() as f32;
        found.push(Component {
            members,
            collar,
            attachment: attach(centre),
        });
    }
    // docs/algorithms.md §12.4: merge shells at one attachment whose boxes overlap by
    // more than half of the smaller one (fur over skin).
    let bounds = |c: &Component| {
        c.members.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &v| (lo.min(surface.welded[v]), hi.max(surface.welded[v])),
        )
    };
    let volume = |(lo, hi): (Vec3, Vec3)| (hi - lo).max(Vec3::ZERO).element_product();
    let mut merged = true;
    while merged {
        merged = false;
        'outer: for i in 0..found.len() {
            for j in i + 1..found.len() {
                if found[i].attachment != found[j].attachment {
                    continue;
                }
                let (a, b) = (bounds(&found[i]), bounds(&found[j]));
                let overlap = volume((a.0.max(b.0), a.1.min(b.1)));
                if overlap > 0.5 * volume(a).min(volume(b)) {
                    let other = found.remove(j);
                    found[i].members.extend(other.members);
                    found[i].collar.extend(other.collar);
                    found[i].collar.sort_unstable();
                    found[i].collar.dedup();
                    merged = true;
                    break 'outer;
                }
            }
        }
    }

    let bone_count = bones.len();
    let mut influences: Vec<Vec<[(u32, f32); 4]>> = imported
        .meshes
        .iter()
        .map(|m| m.influences.clone())
        .collect();
    let mut new_bones: Vec<NewBone> = Vec::new();
    let mut appendages = Vec::new();
    // The file's own settings are kept; grown chains are added to them.
    let mut settings = imported.rig_settings.clone().unwrap_or_default();
    // Raw vertices of each welded vertex.
    let mut raw_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, &w) in surface.weld.iter().enumerate() {
        raw_of[w].push(v);
    }
    let mut chains = 0;
    for c in &found {
        let points: Vec<Vec3> = c.members.iter().map(|&v| surface.welded[v]).collect();
        let centroid = points.iter().copied().sum::<Vec3>() / points.len() as f32;
        let reach = c.members.iter().map(|&v| field[v].0).fold(0.0, f32::max);
        let centroid_ratio = segments.nearest(centroid).0 / reach;
        let elongation = elongation(&points);
        let region = region(c.attachment);
        let mut allowed = vec![false; n];
        for &v in c.members.iter().chain(&c.collar) {
            allowed[v] = true;
        }
        let g = geodesics(&surface, &c.collar, &allowed);
        let mut along: Vec<f32> = c
            .members
            .iter()
            .map(|&v| g[v])
            .filter(|x| x.is_finite())
            .collect();
        along.sort_by(f32::total_cmp);
        let length = quantile(&along, 0.99);
        // Raw vertices of the component, with their mesh and index.
        let raw: Vec<usize> = c
            .members
            .iter()
            .flat_map(|&v| raw_of[v].iter().copied())
            .collect();
        let mean_distance = |inf: &Vec<Vec<[(u32, f32); 4]>>, extra: &Segments| -> f32 {
            let mut sum = 0.0;
            for &r in &raw {
                let (m, v) = surface.origin[r];
                let p = surface.positions[r];
                for &(b, w) in &inf[m][v] {
                    if w > 0.0 {
                        let b = b as usize;
                        let d = if b < bone_count {
                            segments.to_bone(p, b).min(extra.to_bone(p, b))
                        } else {
                            extra.to_bone(p, b)
                        };
                        sum += w * d;
                    }
                }
            }
            sum / raw.len().max(1) as f32
        };
        let before = mean_distance(&influences, &Segments::new(Vec::new(), None));
        let mut appendage = Appendage {
            vertices: c.members.len(),
            members: raw.iter().map(|&r| surface.origin[r]).collect(),
            attachment: c.attachment,
            attachment_name: bones[c.attachment].name.clone(),
            region,
            centroid_ratio,
            elongation,
            is_appendage: centroid_ratio >= options.centroid_fraction
                && elongation >= options.min_elongation,
            length,
            segments: 0,
            joints: Vec::new(),
            coordinates: Vec::new(),
            mean_distance: [before, before],
            fate: Fate::Untouched(String::new()),
        };
        let untouched = |why: &str| Fate::Untouched(why.to_string());
        // Skin that already follows a bone chain is rigged: bones on one
        // line from the root each hold a tenth of its vertices, three or
        // more, or two whose line runs the way the skin does, from its
        // collar to its far end (back fur weighted across the spine, a tail
        // with its bones). A tail a humanoid rigger handed to the hips and a
        // thigh is not: that line runs down the leg, across the tail.
        let skin_direction = {
            let mut by_g: Vec<usize> = c
                .members
                .iter()
                .copied()
                .filter(|&v| g[v].is_finite())
                .collect();
            by_g.sort_by(|a, b| g[*a].total_cmp(&g[*b]));
            let tip = &by_g[by_g.len() * 4 / 5..];
            let far_end =
                tip.iter().map(|&v| surface.welded[v]).sum::<Vec3>() / tip.len().max(1) as f32;
            let collar =
                c.collar.iter().map(|&v| surface.welded[v]).sum::<Vec3>() / c.collar.len() as f32;
            (far_end - collar).normalize_or_zero()
        };
        let followed = {
            let mut dominant: HashMap<usize, usize> = HashMap::new();
            for &r in &raw {
                let (m, v) = surface.origin[r];
                if let Some(&(b, _)) = influences[m][v]
                    .iter()
                    .filter(|(_, w)| *w > 0.0)
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                {
                    *dominant.entry(b as usize).or_default() += 1;
                }
            }
            let mut held: Vec<usize> = dominant
                .iter()
                .filter(|&(&b, &count)| b < bone_count && count * 10 >= raw.len())
                .map(|(&b, _)| b)
                .collect();
            held.sort_unstable();
            let below = |a: usize, b: usize| {
                let mut x = bones[b].parent;
                while x >= 0 {
                    if x as usize == a {
                        return true;
                    }
                    x = bones[x as usize].parent;
                }
                false
            };
            held.iter()
                .map(|&a| {
                    let mut line: Vec<usize> = held
                        .iter()
                        .copied()
                        .filter(|&b| b == a || below(a, b) || below(b, a))
                        .collect();
                    line.sort_by_key(|&b| {
                        let mut depth = 0;
                        let mut x = bones[b].parent;
                        while x >= 0 {
                            depth += 1;
                            x = bones[x as usize].parent;
                        }
                        depth
                    });
                    line
                })
                .filter(|line| {
                    let along = line.len() >= 2 && {
                        let run = pos(line[line.len() - 1]) - pos(line[0]);
                        run.normalize_or_zero().dot(skin_direction) > 0.7
                    };
                    line.windows(2).all(|w| below(w[0], w[1])) && (line.len() >= 3 || along)
                })
                .max_by_key(Vec::len)
        };
        appendage.fate = if let Some(line) = &followed {
            let names: Vec<&str> = line.iter().map(|&b| bones[b].name.as_str()).collect();
            Fate::Untouched(format!(
                "already follows the bones {}: its weights are kept",
                names.join(" → ")
            ))
        } else if region == Region::Head {
            untouched("hangs from the head")
        } else if region == Region::Limb {
            untouched("hangs from a limb")
        } else if centroid_ratio < options.centroid_fraction {
            untouched("hugs the body (centroid close to the skeleton)")
        } else if elongation < options.min_elongation {
            untouched("not elongated (a cape or skirt)")
        } else if !length.is_finite() || length <= 0.0 {
            untouched("no geodesic from its collar")
        } else if region == Region::Spine || options.rigid {
            Fate::Rigid
        } else if hips.is_none() {
            untouched("no hips bone to hang a chain from")
        } else {
            Fate::Chain
        };
        match appendage.fate {
            Fate::Rigid => {
                // docs/algorithms.md §12.7: every vertex 1.0 on its bone (the hips for a
                // pelvis part).
                let bone = if region == Region::Pelvis {
                    hips.unwrap_or(c.attachment)
                } else {
                    c.attachment
                };
                for &r in &raw {
                    let (m, v) = surface.origin[r];
                    influences[m][v] = [(bone as u32, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)];
                }
                appendage.mean_distance[1] =
                    mean_distance(&influences, &Segments::new(Vec::new(), None));
            }
            Fate::Chain => {
                let hips = hips.expect("checked above");
                let k = ((length / (0.1 * height)).round() as usize).clamp(3, 8);
                // docs/algorithms.md §12.5: J_0 at the collar, J_i at the centroid of the
                // skin whose geodesic is within half a segment of iL/K.
                let mut js = vec![
                    c.collar.iter().map(|&v| surface.welded[v]).sum::<Vec3>()
                        / c.collar.len() as f32,
                ];
                let half = 0.5 * length / k as f32;
                for i in 1..=k {
                    let target = i as f32 * length / k as f32;
                    let near: Vec<Vec3> = c
                        .members
                        .iter()
                        .filter(|&&v| (g[v] - target).abs() <= half)
                        .map(|&v| surface.welded[v])
                        .collect();
                    let j = if near.is_empty() {
                        // A gap in the skin: continue the last segment.
                        let last = js[i - 1];
                        let step = if i >= 2 { last - js[i - 2] } else { Vec3::ZERO };
                        last + step
                    } else {
                        near.iter().copied().sum::<Vec3>() / near.len() as f32
                    };
                    js.push(j);
                }
                for _ in 0..2 {
                    let prev = js.clone();
                    for i in 1..k {
                        js[i] = 0.5 * prev[i] + 0.25 * (prev[i - 1] + prev[i + 1]);
                    }
                }
                // Bones: Tail_1..Tail_K at J_0..J_{K-1}, Tail_End at J_K,
                // with the hips' bind rotation and scale.
                chains += 1;
                let prefix = if chains == 1 {
                    "Tail".to_string()
                } else {
                    format!("Tail{chains}")
                };
                let (hs, hr, _) = bind[hips].to_scale_rotation_translation();
                let first_new = new_bones.len();
                let mut names = Vec::new();
                for (i, j) in js.iter().enumerate() {
                    let name = if i < k {
                        format!("{prefix}_{}", i + 1)
                    } else {
                        format!("{prefix}_End")
                    };
                    let (parent, parent_pos) = if i == 0 {
                        (hips as isize, pos(hips))
                    } else {
                        (!((first_new + i - 1) as isize), js[i - 1])
                    };
                    let local = (hr.inverse() * (*j - parent_pos)) / hs;
                    new_bones.push(NewBone {
                        name: name.clone(),
                        parent,
                        local,
                        bind: Affine3A::from_scale_rotation_translation(hs, hr, *j),
                    });
                    names.push(name);
                }
                // docs/algorithms.md §12.6 weights; Tail_End gets none.
                let bone_id = |i: usize| (bone_count + first_new + i) as u32;
                for &r in &raw {
                    let w = surface.weld[r];
                    let s = (k as f32 * g[w] / length).clamp(0.0, k as f32);
                    appendage.coordinates.push(s);
                    let seg = (s.floor() as usize).min(k - 1);
                    let f = (s - seg as f32).min(1.0);
                    let [w_prev, w_self, w_next] = segment_weights(f);
                    let prev = if seg == 0 {
                        hips as u32
                    } else {
                        bone_id(seg - 1)
                    };
                    let own = bone_id(seg);
                    let (next, w_self, w_next) = if seg + 1 < k {
                        (bone_id(seg + 1), w_self, w_next)
                    } else {
                        (own, w_self + w_next, 0.0)
                    };
                    let (m, v) = surface.origin[r];
                    influences[m][v] = [(prev, w_prev), (own, w_self), (next, w_next), (0, 0.0)];
                }
                let mut extra = vec![(hips, pos(hips), js[0])];
                for i in 0..k {
                    extra.push((bone_count + first_new + i, js[i], js[i + 1]));
                }
                appendage.mean_distance[1] =
                    mean_distance(&influences, &Segments::new(extra, None));
                appendage.segments = k;
                appendage.joints = js;
                let mut params = serde_json::Map::new();
                params.insert("rest_curve".into(), 1.0.into());
                params.insert("carry_angle_degrees".into(), 0.0.into());
                settings.chains.push(ChainSettings {
                    preset: "tail".into(),
                    anchor: bones[hips].name.clone(),
                    joints: names,
                    params,
                    radii: Vec::new(),
                    weights: Vec::new(),
                    end_offset: None,
                    colliders: Vec::new(),
                    vrm_offsets: Vec::new(),
                    limits: Vec::new(),
                });
            }
            Fate::Untouched(_) => {}
        }
        appendages.push(appendage);
    }
    Ok(Grown {
        height,
        scene_scale,
        units_per_meter: imported.units(None).0,
        far_limit,
        appendages,
        hips,
        weightless,
        new_bones,
        influences,
        settings,
    })
}

impl Grown {
    /// Whether the pass changed the file: a chain grown or a part made rigid.
    #[must_use]
    pub fn changed(&self) -> bool {
        self.appendages
            .iter()
            .any(|a| matches!(a.fate, Fate::Chain | Fate::Rigid))
    }

    /// The "appendages" summary the command prints.
    #[must_use]
    pub fn summary(&self) -> String {
        // Lengths in the scene's units, as the units line gives them.
        let k = self.scene_scale;
        let mut s = format!(
            "appendages (model size H {:.3} units = {:.2} m in the scene; far beyond {:.3} units; lengths in scene units):\n",
            self.height * k,
            self.height * k / self.units_per_meter,
            self.far_limit * k
        );
        if !self.weightless.is_empty() {
            let _ = writeln!(
                s,
                "  {} weightless skin joints count as no bones (no vertex weighted to them or below): {}",
                self.weightless.len(),
                self.weightless.join(", ")
            );
        }
        if self.appendages.is_empty() {
            s.push_str("  none: every vertex is near the skeleton\n");
        }
        for (i, a) in self.appendages.iter().enumerate() {
            let fate = match &a.fate {
                Fate::Chain => format!("chain of {} bones", a.segments),
                Fate::Rigid => "rigid on its bone".into(),
                Fate::Untouched(why) => format!("untouched: {why}"),
            };
            let kind = if a.is_appendage {
                "appendage"
            } else {
                "far part"
            };
            let _ = writeln!(
                s,
                "  #{i} {kind}: {} vertices on {} ({:?}); length {:.3} ({:.0} % of H); \
                 centroid/reach {:.2}; elongation {:.2}; K {}; mean bone distance {:.3} -> {:.3}; {fate}",
                a.vertices,
                a.attachment_name,
                a.region,
                a.length * k,
                100.0 * a.length / self.height,
                a.centroid_ratio,
                a.elongation,
                a.segments,
                a.mean_distance[0] * k,
                a.mean_distance[1] * k,
            );
        }
        s
    }

    /// Writes a copy of `source` (a GLB) to `out` with the new bones (nodes
    /// under the hips, appended to the skin with their inverse binds), the
    /// new weights (JOINTS_0/WEIGHTS_0 of every changed primitive) and the
    /// rig settings in `extras.secmo_rig_settings`.
    pub fn write_glb(&self, imported: &Imported, source: &Path, out: &Path) -> anyhow::Result<()> {
        let at = |m: String| anyhow::anyhow!("{}: {m}", source.display());
        let mut glb = Glb::read(source)?;
        let bones = &imported.skeleton.bones;
        let mut node_of_bones = vec![None; bones.len()];
        for (n, &b) in imported.skeleton.bone_of_node.iter().enumerate().rev() {
            if let Some(x) = node_of_bones.get_mut(b as usize) {
                *x = Some(n);
            }
        }
        let node_of_bone = |b: usize| -> anyhow::Result<usize> {
            node_of_bones[b].ok_or_else(|| at(format!("bone {} is not a node", bones[b].name)))
        };
        let skin = imported.meshes.first().map_or(0, |m| m.skin);
        let first_node = glb.json["nodes"].as_array().map_or(0, Vec::len);
        let node_of = |b: usize| -> anyhow::Result<usize> {
            if b < bones.len() {
                node_of_bone(b)
            } else {
                Ok(first_node + b - bones.len())
            }
        };
        for (i, nb) in self.new_bones.iter().enumerate() {
            let parent = if nb.parent >= 0 {
                node_of_bone(nb.parent as usize)?
            } else {
                first_node + !nb.parent as usize
            };
            let nodes = glb.json["nodes"]
                .as_array_mut()
                .ok_or_else(|| anyhow::anyhow!("no nodes"))?;
            nodes.push(json!({"name": nb.name, "translation": nb.local.to_array()}));
            let children = &mut nodes[parent]["children"];
            if !children.is_array() {
                *children = json!([]);
            }
            children
                .as_array_mut()
                .expect("an array")
                .push(json!(first_node + i));
        }
        // The skin: old joints and inverse binds, then the new ones.
        let joints: Vec<usize> = imported.skins[skin].clone();
        let mut skin_joints: Vec<usize> = joints.clone();
        skin_joints.extend((0..self.new_bones.len()).map(|i| bones.len() + i));
        let ib_source = &imported.meshes[0].inverse_bind;
        let mut ibs: Vec<f32> = Vec::new();
        for &b in &skin_joints {
            let m = if b < bones.len() {
                ib_source[b]
            } else {
                self.new_bones[b - bones.len()].bind.inverse()
            };
            ibs.extend(Mat4::from(m).to_cols_array());
        }
        if !self.new_bones.is_empty() {
            let accessor = glb.push_floats(&ibs, "MAT4", false);
            let nodes: Vec<Value> = skin_joints
                .iter()
                .map(|&b| node_of(b).map(|n| json!(n)))
                .collect::<Result<_, _>>()?;
            glb.json["skins"][skin]["joints"] = Value::Array(nodes);
            glb.json["skins"][skin]["inverseBindMatrices"] = json!(accessor);
        }
        // Weights of every primitive that changed.
        let mut joint_of_bone = std::collections::HashMap::with_capacity(skin_joints.len());
        for (j, &b) in skin_joints.iter().enumerate().rev() {
            joint_of_bone.insert(b, j);
        }
        for (m, mesh) in imported.meshes.iter().enumerate() {
            if self.influences[m] == mesh.influences {
                continue;
            }
            let mut js = Vec::with_capacity(mesh.positions.len() * 4);
            let mut ws = Vec::with_capacity(mesh.positions.len() * 4);
            for inf in &self.influences[m] {
                let (mut j4, mut w4) = ([0u32; 4], [0f32; 4]);
                for (k, &(b, w)) in inf.iter().enumerate() {
                    let j = joint_of_bone.get(&(b as usize)).copied();
                    j4[k] = j.unwrap_or(0) as u32;
                    w4[k] = if j.is_some() { w } else { 0.0 };
                }
                let (j4, w4) = crate::glb::clean_influences(j4, w4);
                js.extend(j4);
                ws.extend(w4);
            }
            let joints_accessor = glb.push_indices(&js, "VEC4");
            let weights_accessor = glb.push_floats(&ws, "VEC4", false);
            let attributes =
                &mut glb.json["meshes"][mesh.mesh]["primitives"][mesh.primitive]["attributes"];
            attributes["JOINTS_0"] = json!(joints_accessor);
            attributes["WEIGHTS_0"] = json!(weights_accessor);
            if let Some(a) = attributes.as_object_mut() {
                a.remove("JOINTS_1");
                a.remove("WEIGHTS_1");
            }
        }
        if !self.settings.chains.is_empty() {
            let settings =
                serde_json::to_value(&self.settings).map_err(|e| anyhow::anyhow!("{e}"))?;
            if !glb.json["extras"].is_object() {
                glb.json["extras"] = json!({});
            }
            glb.json["extras"]["secmo_rig_settings"] = settings;
        }
        glb.conform();
        glb.write(out)
    }
}

/// `secmo rig IN -o OUT [--rigid]`: runs the pass and writes the file and,
/// next to it, the rig settings. Returns the summary. When the pass grew
/// nothing and made nothing rigid, nothing is written unless
/// `write_unchanged` asks for the copy.
pub fn run(
    input: &Path,
    out: &Path,
    options: &GrowOptions,
    write_unchanged: bool,
    force: bool,
) -> anyhow::Result<String> {
    // Both files this writes, checked before any work: the GLB (the input
    // only with --force) and the settings next to it (never an input).
    let settings_path = out.with_extension("secmo-settings.json");
    crate::output::Output {
        path: out,
        flag: "-o",
        command: "rig",
        inputs: &[input],
        force: Some(force),
    }
    .check()?;
    crate::output::Output {
        path: &settings_path,
        flag: "-o's settings file",
        command: "rig",
        inputs: &[input],
        force: None,
    }
    .check()?;
    let imported = crate::import::import(input)?;
    let grown = grow(&imported, options)?;
    let mut text = String::new();
    // The scene size (armature scale included), in file units and metres.
    let _ = writeln!(text, "{}", imported.units(None).1);
    text.push_str(&grown.summary());
    if !grown.changed() && !write_unchanged {
        let _ = writeln!(
            text,
            "nothing grown and nothing made rigid: {} not written (--write-unchanged writes the copy anyway)",
            out.display()
        );
        return Ok(text);
    }
    if !grown.changed() {
        let _ = writeln!(
            text,
            "nothing grown and nothing made rigid: the copy keeps every weight and bone"
        );
    }
    grown.write_glb(&imported, input, out)?;
    let _ = writeln!(text, "wrote {}", out.display());
    if !grown.settings.chains.is_empty() {
        let path = settings_path;
        let json = serde_json::to_string_pretty(&grown.settings)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        std::fs::write(&path, json).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let _ = writeln!(text, "wrote {}", path.display());
    }
    Ok(text)
}

/// The rotation all grown bones share (the hips' bind rotation), for tests.
#[must_use]
pub fn bind_rotation(bone: &NewBone) -> Quat {
    bone.bind.to_scale_rotation_translation().1
}

#[cfg(test)]
mod segment_tests {
    use super::*;

    /// The grid search gives exactly the plain scan's answer (distance and
    /// bone, ties to the first segment) for points everywhere in the box.
    #[test]
    fn the_grid_search_equals_the_scan() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f32 / (1u64 << 53) as f32
        };
        let mut point = || Vec3::new(next(), next() * 2.0, next() * 0.5);
        let list: Vec<(usize, Vec3, Vec3)> = (0..200)
            .map(|i| {
                let a = point();
                (i / 3, a, a + (point() - Vec3::splat(0.5)) * 0.2)
            })
            .collect();
        let segments = Segments::new(list, Some((Vec3::ZERO, Vec3::new(1.0, 2.0, 0.5))));
        assert!(segments.grid.is_some());
        for _ in 0..2000 {
            let p = point();
            assert_eq!(segments.nearest(p), segments.scan(p), "{p}");
        }
        // A bone's own segments.
        let p = Vec3::new(0.5, 1.0, 0.25);
        let scan = segments
            .list
            .iter()
            .filter(|s| s.0 == 7)
            .map(|&(_, a, b)| segment_distance(p, a, b))
            .fold(f32::INFINITY, f32::min);
        assert_eq!(segments.to_bone(p, 7), scan);
    }
}
