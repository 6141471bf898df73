//! Body colliders for a chain that has none (issue #17 item 2): a capsule
//! fitted to each bone's share of the skin, so a tail does not swing through
//! the legs. docs/chains.md "Body colliders".

use glam::{Affine3A, Mat3, Vec3};
use secmo::{Collider, ColliderShape};

use crate::import::Imported;

/// Vertices a bone must own (weight ≥ 0.5) to get a capsule.
const MIN_VERTICES: usize = 12;

/// Capsules fitted to the skin of every bone except `exclude`, leaving out
/// any whose capsule comes within `keep_out` (rig units) of `root` (the
/// chain's root joint, bind world position): a chain's root sits inside the
/// body it grows from, and a collider there would push it off its rest.
///
/// Per bone: the vertices it owns most (weight ≥ 0.5), in its bind frame;
/// the axis is their principal direction, the ends their 5th and 95th
/// percentiles along it, and the radius the median distance from that axis
/// (inside the skin, so a tail brushing the surface is not pushed).
#[must_use]
pub fn fit(imported: &Imported, exclude: &[usize], root: Vec3, keep_out: f32) -> Vec<Collider> {
    let bones = imported.skeleton.bones.len();
    let mut owned: Vec<Vec<Vec3>> = vec![Vec::new(); bones];
    // Where each bone places its capsule at rest, as the runtime places
    // colliders: the rest pose's world frame. (Not the inverse of the
    // inverse bind: KHR_mesh_quantization exporters such as gltfpack fold
    // the positions' dequantization into the inverse binds, and that
    // inverse is then in the quantized grid's units, not the world's; the
    // keep-out test against the chain root then kept a capsule around a
    // Fox's tail root, 2.9 cm deep.)
    let rest = imported.rest_world();
    for mesh in &imported.meshes {
        for (p, influences) in mesh.positions.iter().zip(&mesh.influences) {
            let Some(&(bone, weight)) = influences.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
                continue;
            };
            let bone = bone as usize;
            if weight < 0.5 || bone >= bones || exclude.contains(&bone) {
                continue;
            }
            owned[bone].push(mesh.inverse_bind[bone].transform_point3(*p));
        }
    }
    let mut out = Vec::new();
    for (bone, points) in owned.iter().enumerate() {
        if points.len() < MIN_VERTICES {
            continue;
        }
        let Some(&world) = rest.get(bone) else {
            continue;
        };
        let n = points.len() as f32;
        let centroid = points.iter().copied().sum::<Vec3>() / n;
        let mut covariance = Mat3::ZERO;
        for p in points {
            let d = *p - centroid;
            covariance += Mat3::from_cols(d * d.x, d * d.y, d * d.z);
        }
        let axis = principal_axis(covariance / n);
        let mut along: Vec<f32> = points.iter().map(|p| (*p - centroid).dot(axis)).collect();
        along.sort_by(f32::total_cmp);
        let (lo, hi) = (along[along.len() / 20], along[along.len() * 19 / 20]);
        let mut across: Vec<f32> = points
            .iter()
            .map(|p| {
                let d = *p - centroid;
                (d - axis * d.dot(axis)).length()
            })
            .collect();
        across.sort_by(f32::total_cmp);
        let radius = across[across.len() / 2];
        if radius.is_nan() || radius <= 0.0 {
            continue;
        }
        // The caps stay within the skin's extent along the axis.
        let inset = radius.min(0.5 * (hi - lo).max(0.0));
        let a = centroid + axis * (lo + inset);
        let b = centroid + axis * (hi - inset);
        let (wa, wb) = (world.transform_point3(a), world.transform_point3(b));
        let scale = world.matrix3.x_axis.length();
        if segment_distance(root, root, wa, wb) < radius * scale + keep_out {
            continue;
        }
        out.push(Collider {
            bone: bone as u32,
            shape: ColliderShape::Capsule,
            a,
            b,
            // The runtime's lengths are in rig units (`Collider`): the
            // bone's frame places the ends, not the radius.
            radius: radius * scale,
        });
    }
    out
}

/// The eigenvector of the largest eigenvalue of a symmetric 3×3 matrix
/// (power iteration from the largest column).
fn principal_axis(m: Mat3) -> Vec3 {
    let mut v = [m.x_axis, m.y_axis, m.z_axis]
        .into_iter()
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
        .and_then(Vec3::try_normalize)
        .unwrap_or(Vec3::Y);
    for _ in 0..64 {
        match (m * v).try_normalize() {
            Some(next) => v = next,
            None => break,
        }
    }
    v
}

/// How deep the segment `[p, q]` goes into the capsule `[a, b]` of `radius`
/// (0 when outside).
#[must_use]
pub fn penetration(p: Vec3, q: Vec3, a: Vec3, b: Vec3, radius: f32) -> f32 {
    (radius - segment_distance(p, q, a, b)).max(0.0)
}

/// Distance between the segments `[p, q]` and `[a, b]` (a point is a
/// segment of no length), through the solver's own closest-point routine.
fn segment_distance(p: Vec3, q: Vec3, a: Vec3, b: Vec3) -> f32 {
    let (u, v) = secmo::solvers::collide::closest_segment_params(p, q, a, b);
    (p + (q - p) * u).distance(a + (b - a) * v)
}

/// The deepest any link of `rig`'s chain `chain` goes into one of its
/// capsule colliders over `poses` (local poses of the whole rig), rig units.
#[must_use]
pub fn worst_penetration<'a>(
    rig: &secmo::Rig,
    chain: usize,
    poses: impl IntoIterator<Item = &'a [secmo::Transform]>,
) -> f32 {
    let setup = &rig.chains()[chain];
    let capsules: Vec<&Collider> = setup
        .colliders
        .iter()
        .map(|&c| &rig.colliders()[c as usize])
        .filter(|c| c.shape == ColliderShape::Capsule)
        .collect();
    let joints: Vec<usize> = setup.joints.iter().map(|&j| j as usize).collect();
    let last = *joints.last().expect("chains have joints");
    let mut world = vec![Affine3A::IDENTITY; rig.bone_count()];
    let mut points = Vec::with_capacity(joints.len() + 1);
    let mut worst = 0.0f32;
    for pose in poses {
        secmo::math::forward_kinematics(rig.parents(), pose, &mut world);
        points.clear();
        points.extend(joints.iter().map(|&j| Vec3::from(world[j].translation)));
        points.push(world[last].transform_point3(setup.end_offset));
        for c in &capsules {
            let m = world[c.bone as usize];
            let (a, b) = (m.transform_point3(c.a), m.transform_point3(c.b));
            for link in points.windows(2) {
                worst = worst.max(penetration(link[0], link[1], a, b, c.radius));
            }
        }
    }
    worst
}
