//! Colliders for chains (docs/algorithms.md §8 "Collision", issue: sphere, capsule, plane,
//! inside-sphere, inside-capsule), tested along whole segments.
//!
//! A link is the segment `p(u) = head + u·(tip − head)`, `u ∈ [0, 1]`, with
//! radius `r_h`; a capsule is the segment `q(v) = a + v·(b − a)` with radius
//! `r_b` (a sphere is a capsule with `a = b`). The contact measure is
//! `C = min |p(u) − q(v)| − (r_b + r_h)`; negative means overlap (docs/algorithms.md §8).
//! Only the tip of a link is free (its head is the previous particle), so
//! an overlap at parameter `u` moves the tip by `−C/u` along the contact
//! normal (clamped for contacts near the head).

use glam::{Affine3A, Vec3};

/// Shapes a collider can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum ColliderShape {
    #[default]
    Sphere = 0,
    Capsule = 1,
    /// Infinite plane; links stay on the side the normal points to.
    Plane = 2,
    /// Links stay inside the sphere (a hood, a bottle).
    InsideSphere = 3,
    /// Links stay inside the capsule.
    InsideCapsule = 4,
}

/// A collider attached to a bone (setup, in the Rig). Offsets are in the
/// bone's local frame; lengths in the rig's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider {
    pub bone: u32,
    pub shape: ColliderShape,
    /// Sphere centre, capsule end A, or a point on the plane.
    pub a: Vec3,
    /// Capsule end B, or the plane normal (local frame). Ignored for spheres.
    pub b: Vec3,
    pub radius: f32,
}

/// A collider placed in the simulation frame for one substep.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PlacedCollider {
    pub shape: ColliderShape,
    pub a: Vec3,
    pub b: Vec3,
    pub radius: f32,
}

impl Collider {
    /// Validates the setup; the message names the field.
    pub(crate) fn validate(&self, bone_count: usize) -> Result<(), &'static str> {
        if self.bone as usize >= bone_count {
            return Err("bone is out of range");
        }
        if !(self.a.is_finite() && self.b.is_finite() && self.radius.is_finite()) {
            return Err("a value is NaN or infinite");
        }
        if self.radius < 0.0 {
            return Err("radius must be >= 0");
        }
        if self.shape == ColliderShape::Plane && self.b.length_squared() < 1e-12 {
            return Err("plane normal (b) must not be zero");
        }
        if matches!(
            self.shape,
            ColliderShape::InsideSphere | ColliderShape::InsideCapsule
        ) && self.radius <= 0.0
        {
            return Err("an inside collider needs a radius > 0");
        }
        Ok(())
    }

    /// Places the collider with the bone's frame `m` (simulation space);
    /// `scale` is the character's uniform runtime scale applied to the radius.
    #[must_use]
    pub fn place(&self, m: &Affine3A, scale: f32) -> PlacedCollider {
        let (a, b) = match self.shape {
            ColliderShape::Plane => (
                m.transform_point3(self.a),
                m.matrix3.mul_vec3(self.b).normalize_or(Vec3::Y),
            ),
            ColliderShape::Sphere | ColliderShape::InsideSphere => {
                let c = m.transform_point3(self.a);
                (c, c)
            }
            ColliderShape::Capsule | ColliderShape::InsideCapsule => {
                (m.transform_point3(self.a), m.transform_point3(self.b))
            }
        };
        PlacedCollider {
            shape: self.shape,
            a,
            b,
            radius: self.radius * scale,
        }
    }
}

/// Closest points between segments `[p0, p1]` and `[q0, q1]`: returns `(u, v)`
/// with `p(u)`, `q(v)` closest. Degenerate segments (points) are handled.
#[must_use]
pub fn closest_segment_params(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (f32, f32) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    const EPS: f32 = 1e-12;
    if a <= EPS && e <= EPS {
        return (0.0, 0.0);
    }
    if a <= EPS {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= EPS {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > EPS * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0 // parallel: any s; pick the head and fix t below
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// Squared distance from `p` to the segment `[a, b]`.
#[inline]
fn point_to_segment_squared(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 1e-12 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * t)).length_squared()
}

/// Smallest contact parameter used to move the tip; contacts closer to the
/// head than this move the tip at most 1/0.2 = 5× the penetration.
pub(crate) const MIN_LEVER: f32 = 0.2;

/// How deep a link may lie in a sphere or capsule before it is pushed, as a
/// fraction of the collider's and the link's radii (3 µm for 3 cm), and how
/// deep the push leaves it. The closest point of a link leaving a head on or
/// inside the surface is the head itself, and its distance to the axis
/// differs from the head's by rounding: without the slack, rounding pushed
/// the tip by up to 1/[`MIN_LEVER`] of it. Pushed out of the slack rather
/// than to it, a link resting there crept in and sprang back out for ever
/// (a hair strand rooted 0.03 m inside an 0.11 m sphere
/// ticked 0.007 mm per frame every 2.5 s and never slept). The same slack
/// for a head outside keeps a head on the surface pushed to the same level
/// whichever side rounding puts it.
pub(crate) const CONTACT_SLACK: f32 = 1e-4;

/// Static friction of a resting hair chain's contacts
/// ([`super::chain::settle_friction`]): a Coulomb cone of about 17°,
/// position-based as in Macklin et al. 2014, "Unified Particle Physics for
/// Real-Time Applications", §6.1.
pub(crate) const STATIC_FRICTION: f32 = 0.3;

/// How deep, as a fraction of a collider's and the link's radii, a held
/// tip's place may lie in a collider and still be held in full (to twice
/// as deep, in part): deeper, the collider has moved into it and the tip
/// slides on.
pub(crate) const HOLD_DEPTH: f32 = 1e-2;

/// Resolves one link against one collider. Returns the tip correction
/// (zero when not touching) and the unit contact normal.
#[must_use]
pub fn resolve(
    head: Vec3,
    tip: Vec3,
    link_radius: f32,
    c: &PlacedCollider,
) -> Option<(Vec3, Vec3)> {
    match c.shape {
        ColliderShape::Sphere | ColliderShape::Capsule => {
            // Bound first: the link lies in the sphere around its midpoint
            // of half its length; farther than that plus both radii from the
            // collider's axis, nothing can touch (most links, most substeps).
            let mid = (head + tip) * 0.5;
            let reach = (tip - head).length() * 0.5 + link_radius + c.radius;
            if point_to_segment_squared(mid, c.a, c.b) > reach * reach {
                return None;
            }
            // A head inside the shape (a chain root under a thick collider,
            // or a joint the link before left on the surface, which float
            // rounding puts a hair inside as often as not): the part of the
            // link next to it cannot be pushed out, and pushing its tip
            // sideways by `overlap / u` never resolves the contact and feeds
            // energy into an orbit. The link is then kept as far from the
            // axis as its head (the shape shrunk to pass through the head),
            // and its tip out of the whole shape, straight away from the
            // axis. A head on the surface is so treated alike on either
            // side of it. Switching the link between the whole-link test
            // and the tip alone by that side made a strand draped over a
            // capsule sink through it and pop back out by up to 39 mm
            // between frames as a character idled.
            let radii = c.radius + link_radius;
            let (_, vh) = closest_segment_params(head, head, c.a, c.b);
            let dh = (head - (c.a + (c.b - c.a) * vh)).length();
            let head_in = dh < radii;
            // A link buried in the shape, its head so deep that no
            // direction takes its tip out (the farthest a tip can get from
            // the axis is `dh + length`, straight away from it): nothing is
            // pushed, and the link hangs as if the shape were not there
            // (#13 item 4). Pushed toward the one way out it cannot reach,
            // it fought its rest pose for ever: a hair strand rooted 6 cm
            // inside a 20 cm sphere, the centre 4 mm off its first link's
            // line, swept round the sphere 1–8 mm per frame 3 s after the
            // input stopped (tests/contact.rs).
            if head_in && dh + (tip - head).length() < radii * (1.0 - CONTACT_SLACK) {
                return None;
            }
            let (u, v) = closest_segment_params(head, tip, c.a, c.b);
            let on_link = head + (tip - head) * u;
            let on_axis = c.a + (c.b - c.a) * v;
            let delta = on_link - on_axis;
            let d = delta.length();
            // A link leaving an inside head is level with it at u = 0: only
            // what lies deeper than the slack counts, and is pushed out.
            let overlap = if head_in { dh } else { radii } - d - CONTACT_SLACK * radii; // −C
            let whole = (overlap > 0.0).then(|| {
                // Direction away from the axis; a link through the axis
                // itself leaves sideways, perpendicular to both.
                let n = if d > 1e-6 {
                    delta / d
                } else {
                    let side = (tip - head).cross(c.b - c.a);
                    if side.length_squared() > 1e-12 {
                        side.normalize()
                    } else {
                        (tip - head).any_orthonormal_vector()
                    }
                };
                (n * (overlap / u.max(MIN_LEVER)), n)
            });
            if !head_in {
                return whole;
            }
            let moved = whole.map_or(tip, |(correction, _)| tip + correction);
            match (whole, push_point(moved, link_radius, c)) {
                (whole, None) => whole,
                (None, Some(push)) => Some((push, push.normalize_or(Vec3::Y))),
                // Both: the normal is their sum's direction, so that the
                // velocity into the corner the two pushes make is removed
                // as a whole. With the first push's normal alone, a link
                // held in that corner kept its velocity into the shape:
                // a chain rooted in a capsule standing on its first joint
                // kept moving for ever (a tail 0.007–2.9 mm
                // per frame, a hair strand 0.002–0.005 mm).
                (Some((correction, n)), Some(push)) => {
                    let both = correction + push;
                    Some((both, both.normalize_or(n)))
                }
            }
        }
        ColliderShape::Plane => {
            let n = c.b;
            // The lowest point of a segment over a plane is an endpoint; the
            // head is fixed, so only the tip can be pushed.
            let depth = link_radius - (tip - c.a).dot(n);
            (depth > 0.0).then_some((n * depth, n))
        }
        ColliderShape::InsideSphere | ColliderShape::InsideCapsule => {
            let (axis_point, _) = if c.shape == ColliderShape::InsideSphere {
                (c.a, 0.0)
            } else {
                let (_, v) = closest_segment_params(tip, tip, c.a, c.b);
                (c.a + (c.b - c.a) * v, v)
            };
            let offset = tip - axis_point;
            let d = offset.length();
            let limit = (c.radius - link_radius).max(0.0);
            if d <= limit || d < 1e-9 {
                return None;
            }
            let outward = offset / d;
            let n = -outward; // pushes back toward the inside
            Some((n * (d - limit), n))
        }
    }
}

/// How deep the link `head → tip` of radius `link_radius` lies in `c`, by
/// [`resolve`]'s measure of each shape (0 when clear): for a sphere or
/// capsule the radii less the distance between the link and the axis; for
/// a plane how far the tip's radius reaches below it; for an inside shape
/// how far the tip's radius reaches past the surface. Around the animation
/// a collider yields to the keys by this much (docs/algorithms.md §7,
/// "Colliders yield to the keys").
#[must_use]
pub fn depth(head: Vec3, tip: Vec3, link_radius: f32, c: &PlacedCollider) -> f32 {
    let depth = match c.shape {
        ColliderShape::Sphere | ColliderShape::Capsule => {
            let (u, v) = closest_segment_params(head, tip, c.a, c.b);
            let on_link = head + (tip - head) * u;
            let on_axis = c.a + (c.b - c.a) * v;
            c.radius + link_radius - (on_link - on_axis).length()
        }
        ColliderShape::Plane => link_radius - (tip - c.a).dot(c.b),
        ColliderShape::InsideSphere | ColliderShape::InsideCapsule => {
            let axis_point = if c.shape == ColliderShape::InsideSphere {
                c.a
            } else {
                let (_, v) = closest_segment_params(tip, tip, c.a, c.b);
                c.a + (c.b - c.a) * v
            };
            (tip - axis_point).length() - (c.radius - link_radius).max(0.0)
        }
    };
    depth.max(0.0)
}

/// Keeps one point of radius `radius` out of (or inside) a collider, as
/// VRMC_springBone tests a joint's tail (three-vrm's `calculateCollision`):
/// returns the push that moves the point onto the surface, `None` when it
/// does not touch.
#[must_use]
pub fn push_point(point: Vec3, radius: f32, c: &PlacedCollider) -> Option<Vec3> {
    let axis_point = |p: Vec3| match c.shape {
        ColliderShape::Capsule | ColliderShape::InsideCapsule => {
            let (_, v) = closest_segment_params(p, p, c.a, c.b);
            c.a + (c.b - c.a) * v
        }
        _ => c.a,
    };
    match c.shape {
        ColliderShape::Plane => {
            let depth = radius - (point - c.a).dot(c.b);
            (depth > 0.0).then_some(c.b * depth)
        }
        ColliderShape::Sphere | ColliderShape::Capsule => {
            let delta = point - axis_point(point);
            let d = delta.length();
            let depth = c.radius + radius - d;
            // On the axis itself any direction is as good: take up.
            (depth > 0.0).then(|| delta.try_normalize().unwrap_or(Vec3::Y) * depth)
        }
        ColliderShape::InsideSphere | ColliderShape::InsideCapsule => {
            let delta = point - axis_point(point);
            let d = delta.length();
            let depth = d + radius - c.radius;
            (depth > 0.0 && d > 0.0).then(|| -delta / d * depth)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capsule(a: Vec3, b: Vec3, r: f32) -> PlacedCollider {
        PlacedCollider {
            shape: ColliderShape::Capsule,
            a,
            b,
            radius: r,
        }
    }

    #[test]
    fn closest_points_of_crossing_segments() {
        let (u, v) = closest_segment_params(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, -1.0, 1.0),
            Vec3::new(0.0, 1.0, 1.0),
        );
        assert!((u - 0.5).abs() < 1e-6 && (v - 0.5).abs() < 1e-6);
        // Parallel segments and points do not produce NaN.
        let (u, v) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Y + Vec3::X);
        assert!(u.is_finite() && v.is_finite());
        assert_eq!(
            closest_segment_params(Vec3::ZERO, Vec3::ZERO, Vec3::X, Vec3::X),
            (0.0, 0.0)
        );
    }

    #[test]
    fn a_link_through_a_capsule_with_both_ends_outside_is_pushed_out() {
        // docs/algorithms.md §8: endpoint-only checks miss the middle of long links.
        let body = capsule(Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0), 0.1);
        let head = Vec3::new(-0.5, 0.0, 0.02);
        let tip = Vec3::new(0.5, 0.0, 0.02);
        // Both endpoints are far outside the capsule radius...
        for p in [head, tip] {
            let (_, v) = closest_segment_params(p, p, body.a, body.b);
            assert!((p - (body.a + (body.b - body.a) * v)).length() > 0.4);
        }
        // ...but the middle passes through it.
        let (correction, n) = resolve(head, tip, 0.0, &body).expect("middle overlaps");
        assert!(n.z > 0.99, "{n}");
        // The correction is first order; the solver repeats the contact
        // projection (docs/algorithms.md §8), and so does this test.
        let mut moved = tip + correction;
        for _ in 0..3 {
            if let Some((c, _)) = resolve(head, moved, 0.0, &body) {
                moved += c;
            }
        }
        let (u, v) = closest_segment_params(head, moved, body.a, body.b);
        let d = ((head + (moved - head) * u) - (body.a + (body.b - body.a) * v)).length();
        assert!(d >= 0.1 - 1e-4, "still inside: {d}");
    }

    #[test]
    fn link_radius_counts() {
        let ball = PlacedCollider {
            shape: ColliderShape::Sphere,
            a: Vec3::ZERO,
            b: Vec3::ZERO,
            radius: 1.0,
        };
        let head = Vec3::new(-2.0, 1.05, 0.0);
        let tip = Vec3::new(2.0, 1.05, 0.0);
        assert!(resolve(head, tip, 0.0, &ball).is_none());
        assert!(resolve(head, tip, 0.1, &ball).is_some());
    }

    #[test]
    fn plane_and_inside_shapes() {
        let floor = PlacedCollider {
            shape: ColliderShape::Plane,
            a: Vec3::ZERO,
            b: Vec3::Y,
            radius: 0.0,
        };
        let (c, _) = resolve(
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, -0.5, 0.0),
            0.1,
            &floor,
        )
        .unwrap();
        assert!((c - Vec3::new(0.0, 0.6, 0.0)).length() < 1e-6);
        let hood = PlacedCollider {
            shape: ColliderShape::InsideSphere,
            a: Vec3::ZERO,
            b: Vec3::ZERO,
            radius: 1.0,
        };
        assert!(resolve(Vec3::ZERO, Vec3::new(0.5, 0.0, 0.0), 0.1, &hood).is_none());
        let (c, n) = resolve(Vec3::ZERO, Vec3::new(1.5, 0.0, 0.0), 0.1, &hood).unwrap();
        assert!((Vec3::new(1.5, 0.0, 0.0) + c - Vec3::new(0.9, 0.0, 0.0)).length() < 1e-6);
        assert!(n.x < 0.0);
        let tube = PlacedCollider {
            shape: ColliderShape::InsideCapsule,
            a: Vec3::new(0.0, -1.0, 0.0),
            b: Vec3::new(0.0, 1.0, 0.0),
            radius: 0.5,
        };
        assert!(resolve(Vec3::ZERO, Vec3::new(0.0, 1.2, 0.0), 0.0, &tube).is_none());
        assert!(resolve(Vec3::ZERO, Vec3::new(0.8, 0.5, 0.0), 0.0, &tube).is_some());
    }
}
