//! The chain kernel, written once over a lane width `N` (#14 item 2,
//! #49 item 3): `N` chains stepped together, link by link, with every
//! lane's arithmetic in one array of `N` f32 per value — a structure of
//! arrays the compiler turns into AVX2 (8 × f32) on x86-64 CPUs that have
//! it (detected at run time, no `-C target-cpu` needed), SSE2 (two 4-wide
//! halves) on every other x86-64, NEON on aarch64, and plain scalar code at
//! `N = 1`.
//!
//! There is one kernel and one operation order: the lane kernel is
//! `substep_lanes` at `N = W` (8), the scalar kernel ([`substep_chain`],
//! [`ChainKernel::Scalar`]) is the same function at `N = 1`. Every value
//! type (`F`, `M`, `V3`, `Q`) performs the scalar f32 operation
//! per lane, in the same order at every width (no fused multiply-add, no
//! reassociation, no approximate reciprocal: docs/architecture.md, "One
//! kernel"), so a chain gives the same bits at every width and in every
//! lane position by construction; `tests/sweeps.rs` and `tests/batch.rs`
//! check it over 10 s of motion with contacts. The parts that are
//! quaternion algebra on one chain (the tail's bend coupling and limit,
//! the VRM preset's angle limits) and the rare branches (plane and inside
//! colliders, a link whose axis passes through a collider's) run lane by
//! lane through shared scalar functions (`chain::bend_link`,
//! [`collide::resolve`]), inside the same pass.

// Index loops over the lanes are the form LLVM vectorises most reliably.
#![allow(clippy::needless_range_loop)]

use glam::{Quat, Vec3};

use crate::solvers::chain::{
    self, BendContext, ChainParams, ChainSetup, Integrator, LimitShape, Link, Particles,
    SubstepFrame,
};
use crate::solvers::collide::{self, ColliderShape, PlacedCollider};

/// Lanes per block: one AVX2 register of f32 (the lane kernel's `N`).
pub(crate) const W: usize = 8;

/// Which chain kernel a character's chain stage runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainKernel {
    /// One chain at a time: the chain kernel one lane wide
    /// ([`substep_chain`]), with the lane kernel's bits.
    Scalar,
    /// Chains in lanes, compiled for the target's baseline (SSE2 on
    /// x86-64, NEON on aarch64).
    Lanes,
    /// Chains in lanes, compiled with AVX2 (x86-64 CPUs that have it).
    LanesAvx2,
}

impl ChainKernel {
    /// The fastest kernel this CPU runs.
    #[must_use]
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                return Self::LanesAvx2;
            }
        }
        Self::Lanes
    }

    /// Whether this CPU can run `self`.
    #[must_use]
    pub fn supported(self) -> bool {
        match self {
            Self::Scalar | Self::Lanes => true,
            #[cfg(target_arch = "x86_64")]
            Self::LanesAvx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Self::LanesAvx2 => false,
        }
    }
}

// ---------------------------------------------------------------------------
// Lane values, `N` lanes wide. Every operation is the scalar f32 operation
// per lane, written as a loop over a fixed-size array that LLVM vectorises
// (and that is one scalar operation at N = 1); `inline(always)` so that each
// is compiled inside the kernel's target-feature context.

#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct F<const N: usize = W>(pub(crate) [f32; N]);

/// A lane mask: all ones (true) or zero per lane, so that a select is a
/// bitwise blend.
#[derive(Clone, Copy)]
pub(crate) struct M<const N: usize = W>(pub(crate) [u32; N]);

const TRUE: u32 = u32::MAX;

#[inline(always)]
fn mask(b: bool) -> u32 {
    if b {
        TRUE
    } else {
        0
    }
}

macro_rules! binop {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const N: usize> core::ops::$trait for F<N> {
            type Output = F<N>;
            #[inline(always)]
            fn $method(self, rhs: F<N>) -> F<N> {
                let mut out = [0.0; N];
                for i in 0..N {
                    out[i] = self.0[i] $op rhs.0[i];
                }
                F(out)
            }
        }
    };
}
binop!(Add, add, +);
binop!(Sub, sub, -);
binop!(Mul, mul, *);
binop!(Div, div, /);

impl<const N: usize> core::ops::Neg for F<N> {
    type Output = F<N>;
    #[inline(always)]
    fn neg(self) -> F<N> {
        let mut out = [0.0; N];
        for i in 0..N {
            out[i] = -self.0[i];
        }
        F(out)
    }
}

macro_rules! cmp {
    ($name:ident, $op:tt) => {
        #[inline(always)]
        pub(crate) fn $name(self, rhs: F<N>) -> M<N> {
            let mut out = [0; N];
            for i in 0..N {
                out[i] = mask(self.0[i] $op rhs.0[i]);
            }
            M(out)
        }
    };
}

impl<const N: usize> F<N> {
    #[inline(always)]
    pub(crate) fn splat(v: f32) -> F<N> {
        F([v; N])
    }
    cmp!(lt, <);
    cmp!(le, <=);
    cmp!(gt, >);
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> F<N> {
        let mut out = [0.0; N];
        for i in 0..N {
            out[i] = f(self.0[i]);
        }
        F(out)
    }
    #[inline(always)]
    pub(crate) fn sqrt(self) -> F<N> {
        self.map(f32::sqrt)
    }
    #[inline(always)]
    fn max(self, rhs: F<N>) -> F<N> {
        let mut out = [0.0; N];
        for i in 0..N {
            out[i] = self.0[i].max(rhs.0[i]);
        }
        F(out)
    }
    /// `f32::clamp` per lane (NaN stays NaN).
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> F<N> {
        // Selects, not branches: it vectorises.
        let x = sel(self.lt(F::splat(lo)), F::splat(lo), self);
        sel(x.gt(F::splat(hi)), F::splat(hi), x)
    }
    #[inline(always)]
    pub(crate) fn finite_positive(self) -> M<N> {
        let mut out = [0; N];
        for i in 0..N {
            // Finite and > 0: above +0 and below +inf as an unsigned
            // integer (NaN and negatives are above +inf's bits).
            let bits = self.0[i].to_bits();
            out[i] = mask(bits.wrapping_sub(1) < f32::INFINITY.to_bits() - 1);
        }
        M(out)
    }
}

impl<const N: usize> M<N> {
    #[inline(always)]
    pub(crate) fn none() -> M<N> {
        M([0; N])
    }
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.0.iter().fold(0, |a, &b| a | b) != 0
    }
    #[inline(always)]
    pub(crate) fn get(self, l: usize) -> bool {
        self.0[l] != 0
    }
    #[inline(always)]
    pub(crate) fn set(&mut self, l: usize, b: bool) {
        self.0[l] = mask(b);
    }
    #[inline(always)]
    pub(crate) fn and(self, o: M<N>) -> M<N> {
        let mut out = [0; N];
        for i in 0..N {
            out[i] = self.0[i] & o.0[i];
        }
        M(out)
    }
    #[inline(always)]
    fn or(self, o: M<N>) -> M<N> {
        let mut out = [0; N];
        for i in 0..N {
            out[i] = self.0[i] | o.0[i];
        }
        M(out)
    }
    #[inline(always)]
    fn not(self) -> M<N> {
        let mut out = [0; N];
        for i in 0..N {
            out[i] = !self.0[i];
        }
        M(out)
    }
}

/// `if m { a } else { b }` per lane.
#[inline(always)]
pub(crate) fn sel<const N: usize>(m: M<N>, a: F<N>, b: F<N>) -> F<N> {
    let mut out = [0.0; N];
    for i in 0..N {
        out[i] = f32::from_bits((a.0[i].to_bits() & m.0[i]) | (b.0[i].to_bits() & !m.0[i]));
    }
    F(out)
}

/// A Vec3 per lane, with glam's `Vec3` operations (same order, same bits).
#[derive(Clone, Copy)]
pub(crate) struct V3<const N: usize = W> {
    pub(crate) x: F<N>,
    pub(crate) y: F<N>,
    pub(crate) z: F<N>,
}

impl<const N: usize> core::ops::Add for V3<N> {
    type Output = V3<N>;
    #[inline(always)]
    fn add(self, r: V3<N>) -> V3<N> {
        V3 {
            x: self.x + r.x,
            y: self.y + r.y,
            z: self.z + r.z,
        }
    }
}

impl<const N: usize> core::ops::Sub for V3<N> {
    type Output = V3<N>;
    #[inline(always)]
    fn sub(self, r: V3<N>) -> V3<N> {
        V3 {
            x: self.x - r.x,
            y: self.y - r.y,
            z: self.z - r.z,
        }
    }
}

/// `Vec3 * f32`.
impl<const N: usize> core::ops::Mul<F<N>> for V3<N> {
    type Output = V3<N>;
    #[inline(always)]
    fn mul(self, s: F<N>) -> V3<N> {
        V3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

/// `f32 * Vec3`.
impl<const N: usize> core::ops::Mul<V3<N>> for F<N> {
    type Output = V3<N>;
    #[inline(always)]
    fn mul(self, v: V3<N>) -> V3<N> {
        V3 {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

/// `Vec3 / f32`.
impl<const N: usize> core::ops::Div<F<N>> for V3<N> {
    type Output = V3<N>;
    #[inline(always)]
    fn div(self, s: F<N>) -> V3<N> {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
}

impl<const N: usize> V3<N> {
    #[inline(always)]
    pub(crate) fn zero() -> V3<N> {
        V3 {
            x: F::splat(0.0),
            y: F::splat(0.0),
            z: F::splat(0.0),
        }
    }
    #[inline(always)]
    pub(crate) fn dot(self, r: V3<N>) -> F<N> {
        (self.x * r.x) + (self.y * r.y) + (self.z * r.z)
    }
    #[inline(always)]
    fn length(self) -> F<N> {
        self.dot(self).sqrt()
    }
    /// glam's `try_normalize`: the normalised vector and whether it exists.
    #[inline(always)]
    pub(crate) fn try_normalize(self) -> (V3<N>, M<N>) {
        let rcp = F::splat(1.0) / self.length();
        (self * rcp, rcp.finite_positive())
    }
    /// `try_normalize().unwrap_or(fallback)` (and glam's `normalize_or`).
    #[inline(always)]
    fn normalize_or(self, fallback: V3<N>) -> V3<N> {
        let (n, ok) = self.try_normalize();
        vsel(ok, n, fallback)
    }
    #[inline(always)]
    pub(crate) fn get(&self, l: usize) -> Vec3 {
        Vec3::new(self.x.0[l], self.y.0[l], self.z.0[l])
    }
    #[inline(always)]
    pub(crate) fn set(&mut self, l: usize, v: Vec3) {
        self.x.0[l] = v.x;
        self.y.0[l] = v.y;
        self.z.0[l] = v.z;
    }
}

#[inline(always)]
fn vsel<const N: usize>(m: M<N>, a: V3<N>, b: V3<N>) -> V3<N> {
    V3 {
        x: sel(m, a.x, b.x),
        y: sel(m, a.y, b.y),
        z: sel(m, a.z, b.z),
    }
}

/// Every component finite, per lane.
#[inline(always)]
fn finite<const N: usize>(v: F<N>) -> M<N> {
    let mut out = [0; N];
    for i in 0..N {
        out[i] = if (v.0[i].to_bits() & 0x7fff_ffff) < 0x7f80_0000 {
            u32::MAX
        } else {
            0
        };
    }
    M(out)
}

/// glam's `Vec3::cross` per lane (and its SSE2 and NEON `Vec3A` ones).
#[inline(always)]
pub(crate) fn cross<const N: usize>(a: V3<N>, b: V3<N>) -> V3<N> {
    V3 {
        x: a.y * b.z - b.y * a.z,
        y: a.z * b.x - b.z * a.x,
        z: a.x * b.y - b.x * a.y,
    }
}

/// A quaternion per lane, with glam's `Quat` operations in glam's order on
/// this target (the chain writeback's and the kernels' joint frames).
#[derive(Clone, Copy)]
pub(crate) struct Q<const N: usize = W> {
    pub(crate) x: F<N>,
    pub(crate) y: F<N>,
    pub(crate) z: F<N>,
    pub(crate) w: F<N>,
}

impl<const N: usize> Q<N> {
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        let z = F::splat(0.0);
        Q {
            x: z,
            y: z,
            z,
            w: z,
        }
    }
    #[inline(always)]
    pub(crate) fn set(&mut self, l: usize, q: [f32; 4]) {
        self.x.0[l] = q[0];
        self.y.0[l] = q[1];
        self.z.0[l] = q[2];
        self.w.0[l] = q[3];
    }
    #[inline(always)]
    pub(crate) fn get(&self, l: usize) -> [f32; 4] {
        [self.x.0[l], self.y.0[l], self.z.0[l], self.w.0[l]]
    }
    /// glam's `Quat::conjugate` (the vector part negated: exact).
    #[inline(always)]
    pub(crate) fn conjugate(self) -> Self {
        Q {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }
    /// glam's `Quat::normalize` on this target, in its order.
    #[inline(always)]
    pub(crate) fn normalize(self) -> Self {
        let (x, y, z, w) = (self.x, self.y, self.z, self.w);
        #[cfg(target_arch = "x86_64")]
        {
            // SSE2: q / |q|, |q|² summed as (x² + z²) + (y² + w²).
            let length = ((x * x + z * z) + (y * y + w * w)).sqrt();
            Q {
                x: x / length,
                y: y / length,
                z: z / length,
                w: w / length,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // NEON: q · (1/|q|), |q|² summed pairwise; scalar glam: in order.
            #[cfg(target_arch = "aarch64")]
            let length = ((x * x + y * y) + (z * z + w * w)).sqrt();
            #[cfg(not(target_arch = "aarch64"))]
            let length = (x * x + y * y + z * z + w * w).sqrt();
            let rcp = F::splat(1.0) / length;
            Q {
                x: x * rcp,
                y: y * rcp,
                z: z * rcp,
                w: w * rcp,
            }
        }
    }
    /// glam's Hamilton product `self · b` on this target, in its order.
    #[inline(always)]
    pub(crate) fn mul(self, b: Self) -> Self {
        let a = self;
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            // SSE2 and NEON: (w-term + x-term) + (y-term + z-term), the
            // signs applied by exact multiplications by ±1.
            Q {
                x: (a.w * b.x + a.x * b.w) + (a.y * b.z - a.z * b.y),
                y: (a.w * b.y - a.x * b.z) + (a.y * b.w + a.z * b.x),
                z: (a.w * b.z + a.x * b.y) + (a.z * b.w - a.y * b.x),
                w: (a.w * b.w - a.x * b.x) - (a.y * b.y + a.z * b.z),
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Q {
                x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            }
        }
    }
    /// `v` turned by the unit quaternion `self`: glam's `Quat * Vec3`
    /// formula in its order (its SSE2 and NEON paths give these bits).
    #[inline(always)]
    pub(crate) fn rotate(self, v: V3<N>) -> V3<N> {
        let b = V3 {
            x: self.x,
            y: self.y,
            z: self.z,
        };
        let two = F::splat(2.0);
        v * (self.w * self.w - b.dot(b)) + b * (v.dot(b) * two) + cross(b, v) * (self.w * two)
    }
    /// Every component finite.
    #[inline(always)]
    pub(crate) fn finite(self) -> M<N> {
        finite(self.x)
            .and(finite(self.y))
            .and(finite(self.z))
            .and(finite(self.w))
    }
    #[inline(always)]
    pub(crate) fn select(m: M<N>, a: Self, b: Self) -> Self {
        Q {
            x: sel(m, a.x, b.x),
            y: sel(m, a.y, b.y),
            z: sel(m, a.z, b.z),
            w: sel(m, a.w, b.w),
        }
    }
}

// ---------------------------------------------------------------------------
// Collision, per lane (collide.rs's sphere and capsule branches).

const EPS: f32 = 1e-12;

/// [`collide::closest_segment_params`] per lane, every branch evaluated and
/// the taken one selected.
#[inline(always)]
fn closest_segment_params<const N: usize>(
    p0: V3<N>,
    p1: V3<N>,
    q0: V3<N>,
    q1: V3<N>,
) -> (F<N>, F<N>) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let (zero, one) = (F::splat(0.0), F::splat(1.0));
    let denom = a * e - b * b;
    let s0 = sel(
        denom.gt(F::splat(EPS) * a * e),
        ((b * f - c * e) / denom).clamp(0.0, 1.0),
        zero,
    );
    let t0 = (b * s0 + f) / e;
    let below = t0.lt(zero);
    let above = t0.gt(one);
    let s_general = sel(
        below,
        (-c / a).clamp(0.0, 1.0),
        sel(above, ((b - c) / a).clamp(0.0, 1.0), s0),
    );
    let t_general = sel(below, zero, sel(above, one, t0));
    let a_small = a.le(F::splat(EPS));
    let e_small = e.le(F::splat(EPS));
    let s = sel(
        a_small,
        zero,
        sel(e_small, (-c / a).clamp(0.0, 1.0), s_general),
    );
    let t = sel(
        a_small,
        sel(e_small, zero, (f / e).clamp(0.0, 1.0)),
        sel(e_small, zero, t_general),
    );
    (s, t)
}

/// `closest_segment_params(p, p, q0, q1).1`, the parameter on `q0 → q1`
/// nearest the point `p`: the first segment of a finite point has length
/// exactly 0 (`a = 0 ≤ EPS`), which leaves that function's `a_small`
/// branch, so this gives its bits with a third of the arithmetic.
#[inline(always)]
fn point_segment_param<const N: usize>(p: V3<N>, q0: V3<N>, q1: V3<N>) -> F<N> {
    let d2 = q1 - q0;
    let r = p - q0;
    let e = d2.dot(d2);
    let f = d2.dot(r);
    sel(e.le(F::splat(EPS)), F::splat(0.0), (f / e).clamp(0.0, 1.0))
}

/// `closest_segment_params(p0, p1, q0, q1)` for the lanes in `lanes`. When
/// each of them has a point for its second segment (`e ≤ EPS`: a sphere's
/// axis), that function's `e_small` branches are all that is left, and
/// this gives their bits without the rest of the arithmetic; lanes outside
/// `lanes` then hold other values.
#[inline(always)]
fn link_params<const N: usize>(
    p0: V3<N>,
    p1: V3<N>,
    q0: V3<N>,
    q1: V3<N>,
    lanes: M<N>,
) -> (F<N>, F<N>) {
    let d2 = q1 - q0;
    let e = d2.dot(d2);
    if lanes.and(e.le(F::splat(EPS)).not()).any() {
        return closest_segment_params(p0, p1, q0, q1);
    }
    let d1 = p1 - p0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let c = d1.dot(r);
    let s = sel(a.le(F::splat(EPS)), F::splat(0.0), (-c / a).clamp(0.0, 1.0));
    (s, F::splat(0.0))
}

/// A collider per lane (sphere or capsule; `b == a` for a sphere).
#[derive(Clone, Copy)]
struct Capsules<const N: usize> {
    a: V3<N>,
    b: V3<N>,
    radius: F<N>,
    sphere: M<N>,
}

impl<const N: usize> Capsules<N> {
    #[inline(always)]
    fn zero() -> Capsules<N> {
        Capsules {
            a: V3::zero(),
            b: V3::zero(),
            radius: F::splat(0.0),
            sphere: M::none(),
        }
    }
}

/// The axis point of a sphere or capsule nearest `p` ([`collide::push_point`]).
#[inline(always)]
fn axis_point<const N: usize>(p: V3<N>, c: &Capsules<N>) -> V3<N> {
    let v = point_segment_param(p, c.a, c.b);
    vsel(c.sphere, c.a, c.a + (c.b - c.a) * v)
}

/// [`collide::push_point`] for spheres and capsules: (hit, push).
#[inline(always)]
fn push_point<const N: usize>(point: V3<N>, radius: F<N>, c: &Capsules<N>) -> (M<N>, V3<N>) {
    let delta = point - axis_point(point, c);
    let d = delta.length();
    let depth = c.radius + radius - d;
    let hit = depth.gt(F::splat(0.0));
    let push = delta.normalize_or(unit_y()) * depth;
    (hit, push)
}

#[inline(always)]
fn unit_y<const N: usize>() -> V3<N> {
    V3 {
        x: F::splat(0.0),
        y: F::splat(1.0),
        z: F::splat(0.0),
    }
}

/// [`collide::resolve`]'s sphere and capsule branch for the lanes in
/// `mask`: (hit, correction, normal, lanes to redo with the scalar function).
#[inline(always)]
fn resolve<const N: usize>(
    head: V3<N>,
    tip: V3<N>,
    link_radius: F<N>,
    c: &Capsules<N>,
    mask: M<N>,
) -> (M<N>, V3<N>, V3<N>, M<N>) {
    let zero = F::splat(0.0);
    // The cheap bound test: the link's bounding sphere against the axis.
    let mid = (head + tip) * F::splat(0.5);
    let reach = (tip - head).length() * F::splat(0.5) + link_radius + c.radius;
    let to_axis = {
        let ab = c.b - c.a;
        let len2 = ab.dot(ab);
        let t = sel(
            len2.gt(F::splat(EPS)),
            ((mid - c.a).dot(ab) / len2).clamp(0.0, 1.0),
            zero,
        );
        let off = mid - (c.a + ab * t);
        off.dot(off)
    };
    let near = mask.and(to_axis.gt(reach * reach).not());
    if !near.any() {
        return (M::none(), V3::zero(), V3::zero(), M::none());
    }
    // A head inside: the link kept as far from the axis as its head, then
    // its tip out of the whole shape ([`collide::resolve`]).
    let vh = point_segment_param(head, c.a, c.b);
    let radii = c.radius + link_radius;
    let dh = (head - (c.a + (c.b - c.a) * vh)).length();
    // A link buried so deep that no direction takes its tip out is not
    // pushed ([`collide::resolve`]).
    let buried = (dh + (tip - head).length()).lt(radii * F::splat(1.0 - collide::CONTACT_SLACK));
    let head_in = dh.lt(radii);
    let near = near.and(head_in.and(buried).not());
    if !near.any() {
        return (M::none(), V3::zero(), V3::zero(), M::none());
    }
    // The whole link.
    let (u, v) = link_params(head, tip, c.a, c.b, near);
    let on_link = head + (tip - head) * u;
    let on_axis = c.a + (c.b - c.a) * v;
    let delta = on_link - on_axis;
    let d = delta.length();
    // Only what lies deeper than the slack is pushed ([`collide::CONTACT_SLACK`]).
    let overlap = sel(head_in, dh, radii) - d - F::splat(collide::CONTACT_SLACK) * radii;
    let g_hit = overlap.le(zero).not();
    let clear = d.gt(F::splat(1e-6));
    let n = delta / d;
    let correction = n * (overlap / u.max(F::splat(collide::MIN_LEVER)));
    // The tip's push, read only where a near head is inside.
    let inside = near.and(head_in);
    let (pp_hit, push, pp_normal) = if inside.any() {
        let moved = vsel(g_hit, tip + correction, tip);
        let (pp_hit, push) = push_point(moved, link_radius, c);
        (pp_hit, push, push.normalize_or(unit_y()))
    } else {
        (M::none(), V3::zero(), V3::zero())
    };
    let hit = near.and(vsel_m(head_in, g_hit.or(pp_hit), g_hit));
    // Axis through the link: the scalar function picks the normal.
    let redo = near.and(g_hit).and(clear.not());
    let both = head_in.and(g_hit).and(pp_hit);
    let sum = correction + push;
    let one = head_in.and(g_hit.not());
    let normal = vsel(one, pp_normal, n);
    (
        hit,
        vsel(both, sum, vsel(one, push, correction)),
        // [`collide::resolve`]: both pushes, the normal along their sum.
        if both.any() {
            vsel(both, sum.normalize_or(n), normal)
        } else {
            normal
        },
        redo,
    )
}

#[inline(always)]
fn vsel_m<const N: usize>(m: M<N>, a: M<N>, b: M<N>) -> M<N> {
    let mut out = [0; N];
    for i in 0..N {
        out[i] = (a.0[i] & m.0[i]) | (b.0[i] & !m.0[i]);
    }
    M(out)
}

/// Lane `l`'s collider `j`, if it is a sphere or capsule (else the scalar
/// path takes it).
#[inline(always)]
fn load_colliders<const N: usize>(
    lanes: &[Lane<'_>],
    j: usize,
    mask: M<N>,
) -> (Capsules<N>, M<N>, M<N>) {
    let mut c = Capsules::zero();
    let mut vector = M::none();
    let mut scalar = M::none();
    for (l, lane) in lanes.iter().enumerate() {
        if !mask.get(l) || j >= lane.setup.colliders.len() {
            continue;
        }
        let pc = placed(lane, j);
        match pc.shape {
            ColliderShape::Sphere | ColliderShape::Capsule => {
                c.a.set(l, pc.a);
                c.b.set(l, pc.b);
                c.radius.0[l] = pc.radius;
                c.sphere.set(l, pc.shape == ColliderShape::Sphere);
                vector.set(l, true);
            }
            _ => scalar.set(l, true),
        }
    }
    (c, vector, scalar)
}

/// Colliders loaded for a substep at most: a chain with more loads the
/// rest per link.
const LOADED: usize = 8;

/// Every lane's colliders `0..LOADED` for one substep, loaded once for all
/// links (the colliders do not move during a substep): `vector` and
/// `scalar` as [`load_colliders`] gives them for every lane.
struct Loaded<const N: usize> {
    /// The first `loaded` are written; the rest were never needed (no
    /// lane has that many colliders), so they are not zeroed either.
    capsules: [core::mem::MaybeUninit<Capsules<N>>; LOADED],
    vector: [M<N>; LOADED],
    scalar: [M<N>; LOADED],
    loaded: usize,
}

/// The most colliders a lane has.
#[inline(always)]
fn most_colliders(lanes: &[Lane<'_>]) -> usize {
    lanes
        .iter()
        .map(|l| l.setup.colliders.len())
        .max()
        .unwrap_or(0)
}

impl<const N: usize> Loaded<N> {
    /// Nothing loaded yet: [`Loaded::load`] fills it in place (built and
    /// returned whole, the 2.5 KB struct was copied once per kernel call).
    #[inline(always)]
    fn empty() -> Loaded<N> {
        Loaded {
            capsules: [const { core::mem::MaybeUninit::uninit() }; LOADED],
            vector: [M::none(); LOADED],
            scalar: [M::none(); LOADED],
            loaded: 0,
        }
    }

    #[inline(always)]
    fn load(&mut self, lanes: &[Lane<'_>], count: usize) {
        let all = M([u32::MAX; N]);
        self.loaded = count.min(LOADED);
        for j in 0..self.loaded {
            let (c, vector, scalar) = load_colliders(lanes, j, all);
            self.capsules[j].write(c);
            self.vector[j] = vector;
            self.scalar[j] = scalar;
        }
    }

    /// [`load_colliders`]`(lanes, j, mask)` for the lanes it tests: lanes
    /// outside `mask` may hold their collider (never read). A collider past
    /// [`LOADED`] is loaded into `spare`.
    #[inline(always)]
    fn get<'s>(
        &'s self,
        lanes: &[Lane<'_>],
        j: usize,
        mask: M<N>,
        spare: &'s mut Option<Capsules<N>>,
    ) -> (&'s Capsules<N>, M<N>, M<N>) {
        if j < self.loaded {
            (
                // SAFETY: `load` wrote the first `loaded` entries.
                unsafe { self.capsules[j].assume_init_ref() },
                self.vector[j].and(mask),
                self.scalar[j].and(mask),
            )
        } else {
            let (c, vector, scalar) = load_colliders(lanes, j, mask);
            (spare.insert(c), vector, scalar)
        }
    }
}

#[inline(always)]
fn placed<'a>(lane: &'a Lane<'_>, j: usize) -> &'a PlacedCollider {
    &lane.frame.colliders[lane.setup.colliders[j] as usize]
}

/// The link radius collider `j` sees in each lane (docs/algorithms.md §7,
/// "Colliders yield to the keys"): in the lanes of `yielding` (around the
/// animation) the link's `radius` less how deep the keys put the link
/// (`key_head → key_tip`, the rest links laid end to end from the root) in
/// the collider ([`collide::depth`]), so that the collider pushes the link
/// out no farther than the keys go; `radius` elsewhere. Vector
/// shapes take the depth in lanes, the others lane by lane.
///
/// Out of line: only chains around the animation with colliders call it,
/// and inlined it cost the lane kernel's other chains registers (35
/// instructions per joint-substep on the hair crowd, which never calls
/// it). Compiled for the baseline, its operations are the same IEEE ones
/// on every path.
#[inline(never)]
fn yielded_radius<const N: usize>(
    lanes: &[Lane<'_>],
    j: usize,
    (key_head, key_tip): (V3<N>, V3<N>),
    radius: F<N>,
    c: &Capsules<N>,
    (vector, scalar): (M<N>, M<N>),
    yielding: M<N>,
) -> F<N> {
    if !yielding.any() {
        return radius;
    }
    let zero = F::splat(0.0);
    let mut depth = zero;
    let in_vector = yielding.and(vector);
    if in_vector.any() {
        // collide::depth's sphere and capsule branch.
        let (u, v) = link_params(key_head, key_tip, c.a, c.b, in_vector);
        let on_link = key_head + (key_tip - key_head) * u;
        let on_axis = c.a + (c.b - c.a) * v;
        let d = (on_link - on_axis).length();
        depth = sel(in_vector, (c.radius + radius - d).max(zero), zero);
    }
    let in_scalar = yielding.and(scalar);
    if in_scalar.any() {
        for (l, lane) in lanes.iter().enumerate().filter(|&(l, _)| in_scalar.get(l)) {
            depth.0[l] = collide::depth(
                key_head.get(l),
                key_tip.get(l),
                radius.0[l],
                placed(lane, j),
            );
        }
    }
    radius - depth
}

// ---------------------------------------------------------------------------
// The kernel.

/// One chain of a block: its setup, parameters and substep frame. Its
/// particles are the [`Arrays`] of the same index; lanes may come from
/// different characters.
pub(crate) struct Lane<'a> {
    pub(crate) setup: &'a ChainSetup,
    pub(crate) params: &'a ChainParams,
    pub(crate) frame: &'a SubstepFrame<'a>,
}

/// One lane's chain arrays (its particles' slices of its character's flat
/// arrays, indexed by link), read and written by the kernel.
#[derive(Default)]
pub(crate) struct Arrays<'a> {
    pub(crate) rest: &'a [Vec3],
    pub(crate) position: &'a mut [Vec3],
    pub(crate) velocity: &'a mut [Vec3],
    pub(crate) bend: &'a mut [Quat],
    pub(crate) rest_targets: &'a mut [Vec3],
    pub(crate) contacts: &'a mut [u8],
}

impl<'a> Arrays<'a> {
    /// Drops `skip` particles off the front of every array and returns the
    /// next `take` as their own arrays (these keep what follows): a
    /// character's arrays split among its chains, in chain order.
    #[inline]
    pub(crate) fn take_front(&mut self, skip: usize, take: usize) -> Arrays<'a> {
        fn front<'a, T>(slice: &mut &'a mut [T], skip: usize, take: usize) -> &'a mut [T] {
            let (front, back) = core::mem::take(slice)[skip..].split_at_mut(take);
            *slice = back;
            front
        }
        let (rest, rest_back) = self.rest[skip..].split_at(take);
        self.rest = rest_back;
        Arrays {
            rest,
            position: front(&mut self.position, skip, take),
            velocity: front(&mut self.velocity, skip, take),
            bend: front(&mut self.bend, skip, take),
            rest_targets: front(&mut self.rest_targets, skip, take),
            contacts: front(&mut self.contacts, skip, take),
        }
    }
}

/// One substep of up to [`W`] chains that share an integrator
/// (docs/algorithms.md §7/§8), each exactly as [`substep_chain`] steps it
/// alone.
pub(crate) fn substep(kernel: ChainKernel, lanes: &[Lane<'_>], arrays: &mut [Arrays<'_>]) {
    debug_assert!(!lanes.is_empty() && lanes.len() <= W && arrays.len() == lanes.len());
    match kernel {
        #[cfg(target_arch = "x86_64")]
        ChainKernel::LanesAvx2 => {
            // SAFETY: the stage selects LanesAvx2 only where
            // `ChainKernel::supported` found AVX2 at run time.
            unsafe { substep_avx2(lanes, arrays) }
        }
        _ => substep_lanes::<W>(lanes, arrays),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn substep_avx2(lanes: &[Lane<'_>], arrays: &mut [Arrays<'_>]) {
    substep_lanes::<W>(lanes, arrays);
}

/// One substep of a block of VRM chains whose particles stay in lanes
/// across the update's substeps ([`Resident`]): the same kernel as
/// [`substep`], reading and writing the lanes instead of each chain's
/// arrays.
pub(crate) fn substep_resident(kernel: ChainKernel, lanes: &[Lane<'_>], resident: &mut Resident) {
    debug_assert!(lanes.len() >= 2 && lanes.len() <= W);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        ChainKernel::LanesAvx2 => {
            // SAFETY: as in `substep`.
            unsafe { substep_resident_avx2(lanes, resident) }
        }
        _ => substep_vrm::<W, Resident>(lanes, resident),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn substep_resident_avx2(lanes: &[Lane<'_>], resident: &mut Resident) {
    substep_vrm::<W, Resident>(lanes, resident);
}

/// [`Resident::gather`], its lane arithmetic (the links' lengths and radii
/// at their scale, the input's rotations normalised) 8 wide under AVX2
/// where the kernel is AVX2's: the same IEEE operations, so the same bits,
/// one instruction each instead of two SSE2 halves.
pub(crate) fn gather_resident(
    kernel: ChainKernel,
    resident: &mut Resident,
    chains: &[Option<ResidentChain<'_>>; W],
) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        ChainKernel::LanesAvx2 => {
            // SAFETY: as in `substep`.
            unsafe { gather_resident_avx2(resident, chains) }
        }
        _ => resident.gather(chains),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gather_resident_avx2(resident: &mut Resident, chains: &[Option<ResidentChain<'_>>; W]) {
    resident.gather(chains);
}

/// Link `i` of every lane of a VRM block: which lanes have one, its length
/// and link radius at the lane's scale, the input's local rotation of its
/// joint, normalised, and its rest axis (zero in lanes without one).
#[derive(Clone, Copy)]
pub(crate) struct LinkLanes<const N: usize = W> {
    live: M<N>,
    length: F<N>,
    radius: F<N>,
    pose: Q<N>,
    axis: V3<N>,
}

impl<const N: usize> LinkLanes<N> {
    const ZERO: Self = LinkLanes {
        live: M([0; N]),
        length: F([0.0; N]),
        radius: F([0.0; N]),
        pose: Q {
            x: F([0.0; N]),
            y: F([0.0; N]),
            z: F([0.0; N]),
            w: F([0.0; N]),
        },
        axis: V3 {
            x: F([0.0; N]),
            y: F([0.0; N]),
            z: F([0.0; N]),
        },
    };
}

/// Where the VRM kernel reads its links and reads and writes its
/// particles: each lane's chain and arrays ([`Arrays`], gathered and
/// scattered at every substep), or a block's links and particles kept in
/// lanes across its substeps ([`Resident`]). Both hold the same floats, so
/// a chain's bits do not depend on which.
pub(crate) trait VrmParticles<const N: usize> {
    /// Link `i` of every lane ([`LinkLanes`]; `scale`: each lane's scale);
    /// `each(lane index, lane)` for each lane that has one, for what the
    /// caller gathers besides (a lane whose joints have their own
    /// parameters; never for [`Resident`], which takes no such lane).
    fn link(
        &self,
        lanes: &[Lane<'_>],
        i: usize,
        scale: F<N>,
        each: impl FnMut(usize, &Lane<'_>),
    ) -> LinkLanes<N>;
    /// Link `i`'s position and velocity in the lanes of `live` (zero in
    /// the others).
    fn load(&self, i: usize, live: M<N>) -> (V3<N>, V3<N>);
    /// Link `i`'s new position, velocity and rest target (`new`) and
    /// contact in the lanes of `live` (`masks.0`); a zero-length link
    /// (`masks.1`) sits on its `head`, at rest and out of contact.
    fn store(&mut self, i: usize, masks: (M<N>, M<N>), head: V3<N>, new: [V3<N>; 3], contact: M<N>);
    /// After the last link.
    fn finish(&mut self);
}

impl<const N: usize> VrmParticles<N> for [Arrays<'_>] {
    #[inline(always)]
    fn link(
        &self,
        lanes: &[Lane<'_>],
        i: usize,
        scale: F<N>,
        mut each: impl FnMut(usize, &Lane<'_>),
    ) -> LinkLanes<N> {
        let mut pose = Q::zero();
        let mut axis = V3::zero();
        let (live, length, radius) = gather(lanes, i, scale, |l, lane| {
            each(l, lane);
            let setup = lane.setup;
            pose.set(l, lane.frame.pose[setup.joints[i] as usize].rotation);
            axis.set(l, setup.axes[i]);
        });
        LinkLanes {
            live,
            length,
            radius,
            pose: pose.normalize(),
            axis,
        }
    }

    #[inline(always)]
    fn load(&self, i: usize, live: M<N>) -> (V3<N>, V3<N>) {
        let (mut position, mut velocity) = (V3::zero(), V3::zero());
        for (l, a) in self.iter().enumerate() {
            if live.get(l) {
                position.set(l, a.position[i]);
                velocity.set(l, a.velocity[i]);
            }
        }
        (position, velocity)
    }

    #[inline(always)]
    fn store(
        &mut self,
        i: usize,
        (live, zero): (M<N>, M<N>),
        head: V3<N>,
        new: [V3<N>; 3],
        contact: M<N>,
    ) {
        let [next, velocity, rest_target] = new;
        for (l, a) in self.iter_mut().enumerate() {
            if !live.get(l) {
                continue;
            }
            if zero.get(l) {
                let hd = head.get(l);
                a.position[i] = hd;
                a.velocity[i] = Vec3::ZERO;
                a.rest_targets[i] = hd;
                a.contacts[i] = 0;
                continue;
            }
            a.position[i] = next.get(l);
            a.velocity[i] = velocity.get(l);
            a.rest_targets[i] = rest_target.get(l);
            a.contacts[i] = u8::from(contact.get(l));
        }
    }

    #[inline(always)]
    fn finish(&mut self) {
        for a in self.iter_mut() {
            a.bend.fill(Quat::IDENTITY);
        }
    }
}

/// Most links of a chain whose block keeps its particles in lanes
/// ([`Resident`]); longer chains are gathered and scattered every substep.
pub(crate) const RESIDENT_LINKS: usize = 16;

/// One chain of a block whose particles stay in lanes: what
/// [`Resident::gather`] reads.
pub(crate) struct ResidentChain<'a> {
    pub(crate) setup: &'a ChainSetup,
    /// The input's local pose (the lane's [`SubstepFrame::pose`]).
    pub(crate) pose: &'a [crate::math::Transform],
    /// The lane's [`SubstepFrame::scale`].
    pub(crate) scale: f32,
    pub(crate) position: &'a [Vec3],
    pub(crate) velocity: &'a [Vec3],
}

/// A VRM block's links and particles in lanes, kept across the substeps
/// of an update (lane `l`: the block's `l`th chain; links past a chain's
/// end and lanes without a chain as [`Arrays`] gives them), and the
/// positions before the last substep (`previous`, the writeback's carry).
/// The chain stage gathers them before the first such substep and
/// scatters them back after the last; only links below the block's
/// longest chain are read.
pub(crate) struct Resident<const N: usize = W> {
    links: [LinkLanes<N>; RESIDENT_LINKS],
    position: [V3<N>; RESIDENT_LINKS],
    velocity: [V3<N>; RESIDENT_LINKS],
    previous: [V3<N>; RESIDENT_LINKS],
    rest_target: [V3<N>; RESIDENT_LINKS],
    contact: [M<N>; RESIDENT_LINKS],
    /// The block's longest chain.
    n: usize,
}

impl<const N: usize> Resident<N> {
    pub(crate) const fn new() -> Self {
        let zero = LinkLanes::<N>::ZERO;
        Resident {
            links: [zero; RESIDENT_LINKS],
            position: [zero.axis; RESIDENT_LINKS],
            velocity: [zero.axis; RESIDENT_LINKS],
            previous: [zero.axis; RESIDENT_LINKS],
            rest_target: [zero.axis; RESIDENT_LINKS],
            contact: [zero.live; RESIDENT_LINKS],
            n: 0,
        }
    }

    /// Takes in a block's chains (lane `l`: `chains[l]`, `None` for a lane
    /// without one; each at most [`RESIDENT_LINKS`] long): their links as
    /// the kernel gathers them, in the same operations, and their
    /// particles.
    #[inline(always)]
    pub(crate) fn gather(&mut self, chains: &[Option<ResidentChain<'_>>; N]) {
        let n = chains
            .iter()
            .flatten()
            .map(|c| c.setup.len())
            .max()
            .unwrap_or(0);
        debug_assert!(n <= RESIDENT_LINKS);
        self.n = n;
        let mut scale = F::splat(0.0);
        for (l, c) in chains.iter().enumerate() {
            if let Some(c) = c {
                scale.0[l] = c.scale;
            }
        }
        // Lane by lane down each chain (its arrays walked once, no index
        // checks), into rows cleared first: a lane without a chain or
        // past its chain's end stays zero, as the kernel's gather leaves it.
        for i in 0..n {
            self.links[i] = LinkLanes::ZERO;
            self.position[i] = V3::zero();
            self.velocity[i] = V3::zero();
        }
        for (l, c) in chains.iter().enumerate() {
            let Some(c) = c else { continue };
            let setup = c.setup;
            debug_assert!(c.position.len() == setup.len() && c.velocity.len() == setup.len());
            let links = setup
                .lengths
                .iter()
                .zip(&setup.radii)
                .zip(&setup.joints)
                .zip(&setup.axes)
                .zip(c.position.iter().zip(c.velocity));
            for (i, ((((&length, &radius), &joint), &axis), (&position, &velocity))) in
                links.enumerate()
            {
                let link = &mut self.links[i];
                link.live.set(l, true);
                link.length.0[l] = length;
                link.radius.0[l] = radius;
                link.pose.set(l, c.pose[joint as usize].rotation);
                link.axis.set(l, axis);
                self.position[i].set(l, position);
                self.velocity[i].set(l, velocity);
            }
        }
        for link in &mut self.links[..n] {
            link.length = link.length * scale;
            link.radius = link.radius * scale;
            link.pose = link.pose.normalize();
        }
    }

    /// Whether each lane's particles are in the state range: every
    /// position and position before the last substep within
    /// `max_distance_sq` of the origin, squared, every velocity within
    /// `max_speed_sq` ([`StateRange::place`](crate::solvers::state_range::StateRange::place),
    /// [`StateRange::speed`](crate::solvers::state_range::StateRange::speed):
    /// glam's `length_squared`, here in lanes; NaN fails). A lane without a
    /// chain, or past its chain's end, holds zeros and passes.
    pub(crate) fn in_range(&self, max_distance_sq: F<N>, max_speed_sq: F<N>) -> M<N> {
        let mut ok = M([u32::MAX; N]);
        for i in 0..self.n {
            let (p, v, q) = (self.position[i], self.velocity[i], self.previous[i]);
            ok = ok
                .and(p.dot(p).le(max_distance_sq))
                .and(v.dot(v).le(max_speed_sq))
                .and(q.dot(q).le(max_distance_sq));
        }
        ok
    }

    /// Before a substep: the positions it starts from become `previous`.
    pub(crate) fn begin_substep(&mut self) {
        let n = self.n;
        self.previous[..n].copy_from_slice(&self.position[..n]);
    }

    /// Lane `l`'s chain back into its arrays (each its chain's slice), as
    /// the kernel leaves them after a substep; `previous`: the positions
    /// before the last one.
    pub(crate) fn scatter(&self, l: usize, out: &mut Arrays<'_>, previous: &mut [Vec3]) {
        let n = out.position.len();
        // Every array cut to the chain's length once, so the loop indexes
        // without a check per array.
        let (velocity, rest_targets, contacts, previous) = (
            &mut out.velocity[..n],
            &mut out.rest_targets[..n],
            &mut out.contacts[..n],
            &mut previous[..n],
        );
        let (lanes_position, lanes_velocity, lanes_rest, lanes_contact, lanes_previous) = (
            &self.position[..n],
            &self.velocity[..n],
            &self.rest_target[..n],
            &self.contact[..n],
            &self.previous[..n],
        );
        for i in 0..n {
            out.position[i] = lanes_position[i].get(l);
            velocity[i] = lanes_velocity[i].get(l);
            rest_targets[i] = lanes_rest[i].get(l);
            contacts[i] = u8::from(lanes_contact[i].get(l));
            previous[i] = lanes_previous[i].get(l);
        }
        out.bend.fill(Quat::IDENTITY);
    }
}

impl<const N: usize> VrmParticles<N> for Resident<N> {
    #[inline(always)]
    fn link(
        &self,
        _lanes: &[Lane<'_>],
        i: usize,
        _scale: F<N>,
        _each: impl FnMut(usize, &Lane<'_>),
    ) -> LinkLanes<N> {
        self.links[i]
    }

    #[inline(always)]
    fn load(&self, i: usize, _live: M<N>) -> (V3<N>, V3<N>) {
        (self.position[i], self.velocity[i])
    }

    #[inline(always)]
    fn store(
        &mut self,
        i: usize,
        (live, zero): (M<N>, M<N>),
        head: V3<N>,
        new: [V3<N>; 3],
        contact: M<N>,
    ) {
        let [next, velocity, rest_target] = new;
        self.position[i] = vsel(live, vsel(zero, head, next), self.position[i]);
        self.velocity[i] = vsel(live, vsel(zero, V3::zero(), velocity), self.velocity[i]);
        self.rest_target[i] = vsel(live, vsel(zero, head, rest_target), self.rest_target[i]);
        self.contact[i] = vsel_m(live, contact.and(zero.not()), self.contact[i]);
    }

    #[inline(always)]
    fn finish(&mut self) {}
}

/// Advances one chain by one substep (docs/algorithms.md §7/§8): the chain
/// kernel one lane wide (the scalar kernel, [`ChainKernel::Scalar`]), the
/// same source and the same bits as a lane of the 8-wide kernel. `rest` are the
/// anchor-frame rest directions.
pub fn substep_chain(
    setup: &ChainSetup,
    params: &ChainParams,
    frame: &SubstepFrame<'_>,
    rest: &[Vec3],
    particles: &mut Particles<'_>,
) {
    let n = setup.len();
    let Particles {
        position,
        velocity,
        bend,
        rest_targets,
        contacts,
        ..
    } = particles;
    substep_lanes::<1>(
        &[Lane {
            setup,
            params,
            frame,
        }],
        &mut [Arrays {
            rest: &rest[..n],
            position: &mut position[..n],
            velocity: &mut velocity[..n],
            bend: &mut bend[..n],
            rest_targets: &mut rest_targets[..n],
            contacts: &mut contacts[..n],
        }],
    );
}

#[inline(always)]
fn substep_lanes<const N: usize>(lanes: &[Lane<'_>], arrays: &mut [Arrays<'_>]) {
    if matches!(lanes[0].params.integrator(), Integrator::Vrm { .. }) {
        substep_vrm::<N, [Arrays<'_>]>(lanes, arrays);
    } else {
        substep_shaped::<N>(lanes, arrays);
    }
}

/// Link `i` of every lane: which lanes have one, its length and its link
/// radius at the lane's scale; `each(lane index, lane)` gathers the rest.
#[inline(always)]
fn gather<const N: usize>(
    lanes: &[Lane<'_>],
    i: usize,
    scale: F<N>,
    mut each: impl FnMut(usize, &Lane<'_>),
) -> (M<N>, F<N>, F<N>) {
    let (mut live, mut length, mut radius) = (M::none(), F::splat(0.0), F::splat(0.0));
    for (l, lane) in lanes.iter().enumerate() {
        let setup = lane.setup;
        if i >= setup.len() {
            continue;
        }
        live.set(l, true);
        length.0[l] = setup.lengths[i];
        radius.0[l] = setup.radii[i];
        each(l, lane);
    }
    (live, length * scale, radius * scale)
}

/// Each lane's scale ([`SubstepFrame::scale`]).
#[inline(always)]
fn scales<const N: usize>(lanes: &[Lane<'_>]) -> F<N> {
    let mut scale = F::splat(0.0);
    for (l, lane) in lanes.iter().enumerate() {
        scale.0[l] = lane.frame.scale;
    }
    scale
}

/// Per-lane constants of one substep.
struct Constants<const N: usize> {
    h: F<N>,
    root: V3<N>,
    acceleration: V3<N>,
    up: V3<N>,
    velocity_decay: F<N>,
    floor_decay: F<N>,
    /// Lanes whose velocity is rebuilt from positions (docs/algorithms.md §8).
    from_positions: M<N>,
    /// Forward plane on, and its normal in the world.
    forward: M<N>,
    back: V3<N>,
    floor_on: M<N>,
    floor: F<N>,
    yields_to_keys: M<N>,
    any_orthonormal_up: V3<N>,
    has_colliders: M<N>,
    /// Static friction ([`SubstepFrame::friction`]), and whether a lane has
    /// any (none while the input moves).
    friction: F<N>,
    any_friction: bool,
}

fn constants<const N: usize>(lanes: &[Lane<'_>]) -> Constants<N> {
    let mut k = Constants {
        h: F::splat(1.0),
        root: V3::zero(),
        acceleration: V3::zero(),
        up: V3::zero(),
        velocity_decay: F::splat(1.0),
        floor_decay: F::splat(1.0),
        from_positions: M::none(),
        forward: M::none(),
        back: V3::zero(),
        floor_on: M::none(),
        floor: F::splat(0.0),
        yields_to_keys: M::none(),
        any_orthonormal_up: V3::zero(),
        has_colliders: M::none(),
        friction: F::splat(0.0),
        any_friction: false,
    };
    for (l, lane) in lanes.iter().enumerate() {
        let (frame, params) = (&lane.frame, lane.params);
        k.h.0[l] = frame.h;
        k.root.set(l, frame.root);
        k.acceleration.set(l, frame.acceleration);
        k.up.set(l, frame.up);
        k.velocity_decay.0[l] = frame.decay.velocity;
        k.floor_decay.0[l] = frame.decay.floor;
        k.from_positions.set(l, params.velocity_from_positions != 0);
        if frame.forward_plane && !lane.setup.is_empty() {
            let rest0 = frame.anchor * frame.plane_rest;
            let up = frame.up;
            if let Some(b) = (rest0 - up * rest0.dot(up)).try_normalize() {
                k.forward.set(l, true);
                k.back.set(l, b);
            }
        }
        k.floor_on.set(l, params.floor_enabled != 0);
        k.yields_to_keys.set(l, frame.yields_to_keys);
        k.floor.0[l] =
            params.floor_height + params.floor_clearance * frame.scale - frame.floor_shift;
        // Read only under the floor.
        if params.floor_enabled != 0 {
            k.any_orthonormal_up
                .set(l, frame.up.any_orthonormal_vector());
        }
        k.has_colliders.set(l, !lane.setup.colliders.is_empty());
        k.friction.0[l] = frame.friction;
        k.any_friction |= frame.friction > 0.0;
    }
    k
}

/// The tail and hair presets (spring and exponential-damping integrators).
#[inline(always)]
fn substep_shaped<const N: usize>(lanes: &[Lane<'_>], arrays: &mut [Arrays<'_>]) {
    let k = constants::<N>(lanes);
    let integrator = lanes[0].params.integrator();
    let spring = matches!(integrator, Integrator::Spring { .. });
    let n_max = lanes.iter().map(|l| l.setup.len()).max().unwrap_or(0);
    let contexts: [Option<BendContext>; N] = core::array::from_fn(|l| {
        lanes
            .get(l)
            .map(|lane| BendContext::new(lane.params, lane.frame, lane.setup.len()))
    });
    // Without coupling or limit in any lane every new bend is the identity.
    let any_bend = contexts.iter().flatten().any(|c| c.coupling || c.limiting);
    let scale = scales::<N>(lanes);
    // Each lane's integrator numbers: the spring's frequencies (its ω per
    // link below), the exponential damping's stiffness.
    let zero = F::splat(0.0);
    let (mut spring_root, mut spring_tip, mut spring_last) = (zero, zero, F::splat(1.0));
    let (mut spring_damping, mut stiffness, mut spring_graded) = (zero, zero, M::none());
    for (l, lane) in lanes.iter().enumerate() {
        match lane.params.integrator() {
            Integrator::Spring {
                frequency_root,
                frequency_tip,
                damping_ratio,
            } => {
                let n = lane.setup.len();
                spring_root.0[l] = frequency_root;
                spring_tip.0[l] = frequency_tip;
                spring_last.0[l] = n.saturating_sub(1) as f32;
                spring_graded.set(l, n > 1);
                spring_damping.0[l] = 2.0 * damping_ratio;
            }
            Integrator::ExponentialDamping { stiffness: k, .. } => stiffness.0[l] = k,
            Integrator::Vrm { .. } => {}
        }
    }
    let mut previous_bend = [Quat::IDENTITY; N];
    // Each lane's new bend of the previous link, written once the current
    // link has read that link's old bend (every link reads the bends from
    // before this substep, never partly updated ones).
    let mut pending = [Quat::IDENTITY; N];
    let mut head = k.root;
    // Where the keys put each link's head at this substep: the rest links
    // laid end to end from the root (the colliders yield to them).
    let mut key_head = k.root;
    let any_yields = k.yields_to_keys.any();
    // Where each link's head was at the start of the substep (friction).
    let mut head_start = head;
    let mut anchor = Q::zero();
    for (l, lane) in lanes.iter().enumerate() {
        anchor.set(l, lane.frame.anchor.to_array());
    }
    let count = most_colliders(lanes);
    // Nothing loaded without colliders (no lane then tests one).
    let mut loaded = Loaded::<N>::empty();
    loaded.load(lanes, count);
    // A collider past the loaded ones, per link.
    let mut spare = None;
    for i in 0..n_max {
        // Gather link i of every lane.
        let mut rest = V3::zero();
        let mut p = V3::zero();
        let mut v = V3::zero();
        let (live, length, radius) = gather(lanes, i, scale, |l, _| {
            let a = &arrays[l];
            rest.set(l, a.rest[i]);
            p.set(l, a.position[i]);
            v.set(l, a.velocity[i]);
        });
        // ω = 2πf, f from `frequency_root` at the base to `frequency_tip`
        // at the tip, and 2ζ·ω (spring), or k (exponential damping).
        let (gain, damping) = if spring {
            let f = (spring_tip - spring_root) * F::splat(i as f32) / spring_last + spring_root;
            let f = sel(spring_graded, f, spring_root);
            let omega = F::splat(2.0 * std::f32::consts::PI) * f;
            (omega, spring_damping * omega)
        } else {
            (stiffness, zero)
        };
        // `anchor · rest`, glam's `Quat * Vec3` formula.
        let rest_world = anchor.rotate(rest);
        // Zero-length links (and absent lanes): the particle sits on its head.
        let zero_length = length.le(F::splat(1e-6));
        let moving = live.and(zero_length.not());
        let target = head + rest_world * length;
        let key_tip = if any_yields {
            key_head + rest_world * length
        } else {
            key_head
        };
        let start = p;

        // Integrate toward the rest target.
        if spring {
            // docs/algorithms.md §7: p̈ = ω²(T − p) − 2ζω ṗ + g, semi-implicit Euler.
            let a = (gain * gain) * (target - p) - damping * v + k.acceleration;
            v = v + a * k.h;
            p = p + v * k.h;
        } else {
            // docs/algorithms.md §8: u = e^{−ch}[v + h(k(r − x) + g)], y = x + h·u.
            let force = gain * (target - p) + k.acceleration;
            v = k.velocity_decay * (v + k.h * force);
            p = p + k.h * v;
        }

        // Length (rope) projection; a degenerate candidate takes the rest direction.
        let mut dir = (p - head).normalize_or(rest_world);
        p = head + dir * length;
        v = vsel(k.from_positions, (p - start) / k.h, v - dir * v.dot(dir));

        // Bend coupling and limit: quaternion work per lane, through
        // [`chain::bend_link`].
        for (l, a) in arrays.iter_mut().enumerate().filter(|_| any_bend) {
            if !live.get(l) {
                continue;
            }
            let q = if moving.get(l) {
                let ctx = contexts[l].as_ref().expect("a context per lane");
                let mut link = Link {
                    head: head.get(l),
                    length: length.0[l],
                    p: p.get(l),
                    v: v.get(l),
                    dir: dir.get(l),
                };
                let q =
                    chain::bend_link(ctx, i, a.rest[i], a.bend, &mut previous_bend[l], &mut link);
                p.set(l, link.p);
                v.set(l, link.v);
                dir.set(l, link.dir);
                q
            } else {
                Quat::IDENTITY
            };
            if i > 0 {
                a.bend[i - 1] = pending[l];
            }
            pending[l] = q;
        }
        let bent = dir;

        // Forward plane: never swing between the legs (docs/algorithms.md §7),
        // nor further in front of the plane than the link's rest lies (a
        // rest arc that curls over the back is not pushed off).
        let side = (p - k.root).dot(k.back);
        let rest_side = (target - k.root).dot(k.back);
        let allowed = sel(rest_side.lt(zero), rest_side, zero);
        let behind = moving.and(k.forward).and(side.lt(allowed));
        if behind.any() {
            let q = p - k.back * (side - allowed);
            let d = (q - head).normalize_or(dir);
            let q = head + d * length;
            let toward = v.dot(k.back);
            let w = vsel(toward.lt(zero), v - k.back * toward, v);
            p = vsel(behind, q, p);
            dir = vsel(behind, d, dir);
            v = vsel(behind, w, v);
        }

        // Floor contact (docs/algorithms.md §7).
        let mut contact = M::none();
        // Around the animation the floor yields to a rest below it
        // (SubstepFrame::yields_to_keys).
        let rest_height = target.dot(k.up);
        let floor = sel(
            k.yields_to_keys.and(rest_height.lt(k.floor)),
            rest_height,
            k.floor,
        );
        let under = moving.and(k.floor_on).and(p.dot(k.up).lt(floor));
        if under.any() {
            let up = k.up;
            let u = ((floor - head.dot(up)) / length).clamp(-1.0, 1.0);
            let horizontal = |d: V3<N>| (d - up * d.dot(up)).try_normalize();
            let (t1, ok1) = horizontal(p - head);
            let (t2, ok2) = horizontal(rest_world);
            let t = vsel(ok1, t1, vsel(ok2, t2, k.any_orthonormal_up));
            let s = (F::splat(1.0) - u * u).max(zero).sqrt();
            let q = head + length * (s * t + u * up);
            let d = (q - head) / length;
            let vertical = v.dot(up);
            let w = k.floor_decay * (v - up * vertical + up * vertical.max(zero));
            p = vsel(under, q, p);
            dir = vsel(under, d, dir);
            v = vsel(under, w, v);
            contact = under;
        }

        // Colliders along the whole link (docs/algorithms.md §8).
        let colliding = moving.and(k.has_colliders);
        if colliding.any() {
            // Around the animation each collider yields to the keys
            // (`yielded_radius`); elsewhere every link has its radius.
            let yielding = colliding.and(k.yields_to_keys);
            let (any_yielding, keyed) = (yielding.any(), (key_head, key_tip));
            // The radius collider `j` sees in the lanes of `mask`.
            macro_rules! seen_radius {
                ($j:expr, $c:expr, $shapes:expr, $mask:expr) => {
                    match any_yielding {
                        true => yielded_radius(
                            lanes,
                            $j,
                            keyed,
                            radius,
                            $c,
                            $shapes,
                            yielding.and($mask),
                        ),
                        false => radius,
                    }
                };
            }
            let mut pass = colliding;
            let mut touched = M::none();
            let mut push_sum = V3::zero();
            for _ in 0..2 {
                let mut pushed = M::none();
                for j in 0..count {
                    let (c, vector, scalar) = loaded.get(lanes, j, pass, &mut spare);
                    let radius = seen_radius!(j, c, (vector, scalar), pass);
                    let (mut hit, mut correction, mut normal, redo) =
                        resolve(head, p, radius, c, vector);
                    let odd = scalar.or(redo);
                    if odd.any() {
                        for (l, lane) in lanes.iter().enumerate().filter(|&(l, _)| odd.get(l)) {
                            let r = collide::resolve(
                                head.get(l),
                                p.get(l),
                                radius.0[l],
                                placed(lane, j),
                            );
                            hit.set(l, r.is_some());
                            if let Some((c, n)) = r {
                                correction.set(l, c);
                                normal.set(l, n);
                            }
                        }
                    }
                    if hit.any() {
                        p = vsel(hit, p + correction, p);
                        push_sum = vsel(hit, push_sum + correction, push_sum);
                        let approaching = v.dot(normal);
                        let slowed = hit.and(approaching.lt(zero));
                        v = vsel(slowed, v - normal * approaching, v);
                        pushed = pushed.or(hit);
                    }
                }
                // Only a pushed link is put back to its length: a link no
                // collider moved is tested no second time and left bit for
                // bit as it was (a chain no collider touches moves as it
                // would without them).
                pass = pass.and(pushed);
                dir = vsel(pass, (p - head).normalize_or(dir), dir);
                p = vsel(pass, head + dir * length, p);
                touched = touched.or(pushed);
                if !pass.any() {
                    break;
                }
            }
            // Static friction once the input rests ([`chain::settle_friction`]):
            // held in full below half the cone, in part up to its edge (a
            // ramp, not a switch); a collider that holds the held place
            // deeper than `HOLD_DEPTH` of the radii (it moved into it) lets
            // the tip slide, again by a ramp.
            let cone = if k.any_friction {
                k.friction * push_sum.length()
            } else {
                zero
            };
            let rubbing = touched.and(cone.gt(zero));
            if rubbing.any() {
                let normal = push_sum.normalize_or(unit_y());
                let slide = (p - head) - (start - head_start);
                let tangential = slide - normal * slide.dot(normal);
                let mut hold = sel(
                    rubbing,
                    ((cone - tangential.length()) / (F::splat(0.5) * cone)).clamp(0.0, 1.0),
                    zero,
                );
                let holding = hold.gt(zero);
                if holding.any() {
                    let held = head + (start - head_start);
                    let held_dir = (held - head).normalize_or(dir);
                    let held = head + held_dir * length;
                    for j in 0..count {
                        let (c, vector, scalar) = loaded.get(lanes, j, holding, &mut spare);
                        let radius = seen_radius!(j, c, (vector, scalar), holding);
                        let (hit, push, _, redo) = resolve(head, held, radius, c, vector);
                        // Lanes the vector test cannot answer take the
                        // scalar function, as in the passes above.
                        let odd = scalar.or(redo);
                        let depth = F::splat(collide::HOLD_DEPTH) * (radius + c.radius);
                        let kept =
                            ((depth - push.length()) / (F::splat(0.5) * depth)).clamp(0.0, 1.0);
                        hold = sel(hit.and(odd.not()), hold * kept, hold);
                        for (l, lane) in lanes.iter().enumerate().filter(|&(l, _)| odd.get(l)) {
                            let c = placed(lane, j);
                            let r = collide::resolve(head.get(l), held.get(l), radius.0[l], c);
                            if let Some((push, _)) = r {
                                let depth = collide::HOLD_DEPTH * (radius.0[l] + c.radius);
                                hold.0[l] *=
                                    ((depth - push.length()) / (0.5 * depth)).clamp(0.0, 1.0);
                            }
                        }
                    }
                    let q = p + (held - p) * hold;
                    let d = (q - head).normalize_or(dir);
                    let q = head + d * length;
                    p = vsel(holding, q, p);
                    dir = vsel(holding, d, dir);
                    v = vsel(holding, v * (F::splat(1.0) - hold), v);
                }
            }
            v = vsel(touched, v - dir * v.dot(dir), v);
            contact = contact.or(touched);
        }

        // The bend of a link turned since the bend step ([`chain::rebend`]).
        if any_bend {
            for (l, pending) in pending.iter_mut().enumerate() {
                if !(live.get(l) && moving.get(l)) {
                    continue;
                }
                let ctx = contexts[l].as_ref().expect("a context per lane");
                // A chain without coupling or limit keeps identity bends,
                // whatever its neighbours in the block do.
                if ctx.coupling || ctx.limiting {
                    *pending = chain::rebend(ctx, *pending, bent.get(l), dir.get(l));
                    previous_bend[l] = *pending;
                }
            }
        }

        // Scatter.
        p = vsel(zero_length, head, p);
        v = vsel(zero_length, V3::zero(), v);
        let target = vsel(zero_length, head, target);
        for (l, a) in arrays.iter_mut().enumerate() {
            if !live.get(l) {
                continue;
            }
            a.position[i] = p.get(l);
            a.velocity[i] = v.get(l);
            a.rest_targets[i] = target.get(l);
            a.contacts[i] = u8::from(contact.get(l));
        }
        head = p;
        key_head = key_tip;
        head_start = start;
    }
    for (l, a) in arrays.iter_mut().enumerate() {
        if !any_bend {
            a.bend.fill(Quat::IDENTITY);
        } else if let Some(last) = a.bend.last_mut() {
            *last = pending[l];
        }
    }
}

/// The VRM preset: one substep of the VRMC_springBone 1.0 verlet
/// (three-vrm's `VRMSpringBoneJoint.update`, UniVRM's `SpringBoneJoint`),
/// joint by joint from the root, each reading the parent it has just moved:
///
/// ```text
/// next = x + (x − x_prev)·(1 − drag) + R_parent·L_i·axis_i · stiffness·h
///          + gravityDir·gravityPower·h + wind·h²
/// next = head + ℓ·normalize(next − head)        (then each collider pushes
///                                                 the tail out and ℓ is kept)
/// R_i  = R_parent·L_i·arc(axis_i, (R_parent·L_i)⁻¹·(next − head)/ℓ)
/// ```
///
/// `x − x_prev` is kept as `velocity·h`, so the state is the same plain
/// position/velocity pair the other integrators keep. The joint frames, the
/// verlet step, sphere projection and colliders run in lanes; angle limits
/// and friction lane by lane.
/// `p` projected onto the sphere of radius `length` about `head` (along
/// `axis` where `p` is the head itself): the VRM link's length kept.
#[inline(always)]
fn onto_sphere<const N: usize>(p: V3<N>, (head, axis, length): (V3<N>, V3<N>, F<N>)) -> V3<N> {
    head + (p - head).normalize_or(axis) * length
}

#[inline(always)]
fn substep_vrm<const N: usize, P: VrmParticles<N> + ?Sized>(lanes: &[Lane<'_>], particles: &mut P) {
    let zero = F::splat(0.0);
    let mut head = V3::zero();
    // Each lane's joint frames in lanes, in glam's operations and order
    // on this target ([`Q`]).
    let mut parent = Q::zero();
    let mut h = F::splat(1.0);
    let mut carry = zero; // h·(1 − drag)
    let mut pull = zero; // stiffness·scale·h
    let mut external = V3::zero();
    // Each lane's chain (stiffness, drag, gravity power), for the lanes
    // whose joints have their own (ChainSetup::vrm_offsets).
    let mut chain_values = [(0.0f32, 0.0f32, 0.0f32); N];
    let tapered = lanes.iter().any(|l| !l.setup.vrm_offsets.is_empty());
    for (l, lane) in lanes.iter().enumerate() {
        let frame = &lane.frame;
        let Integrator::Vrm {
            stiffness,
            drag_force,
            gravity_power,
        } = lane.params.integrator()
        else {
            unreachable!("a block shares its integrator");
        };
        chain_values[l] = (stiffness, drag_force, gravity_power);
        head.set(l, frame.root);
        parent.set(l, frame.parent.to_array());
        h.0[l] = frame.h;
        carry.0[l] = frame.h * (1.0 - drag_force);
        pull.0[l] = stiffness * frame.scale * frame.h;
        external.set(
            l,
            frame.gravity_velocity * (frame.scale * frame.h) + frame.wind * (frame.h * frame.h),
        );
    }
    let n_max = lanes.iter().map(|l| l.setup.len()).max().unwrap_or(0);
    let scale = scales::<N>(lanes);
    let count = most_colliders(lanes);
    // Nothing loaded without colliders (no lane then tests one).
    let mut loaded = Loaded::<N>::empty();
    loaded.load(lanes, count);
    // A collider past the loaded ones, per link.
    let mut spare = None;
    // Static friction once the input rests ([`chain::vrm_hold`]): none while
    // it moves, and then the block below is skipped.
    let any_friction = lanes.iter().any(|l| l.frame.friction > 0.0);
    // Angle limits (VRMC_springBone_limit): none in most blocks.
    let any_limit = lanes.iter().any(|l| !l.setup.limits.is_empty());
    // Where each joint's head was at the start of the substep (friction).
    let mut head_start = head;
    for i in 0..n_max {
        let LinkLanes {
            live,
            length,
            radius,
            pose,
            axis,
        } = particles.link(lanes, i, scale, |l, lane| {
            let setup = lane.setup;
            if tapered && !setup.vrm_offsets.is_empty() {
                let (keep, p, e) = chain::vrm_joint_terms(setup, lane.frame, chain_values[l], i);
                carry.0[l] = lane.frame.h * keep;
                pull.0[l] = p;
                external.set(l, e);
            }
        });
        let (start, velocity) = particles.load(i, live);
        // `parent · normalize(L_i)` and its rest direction.
        let bind = parent.mul(pose);
        let axis_world = bind.rotate(axis);
        let zero_length = length.le(F::splat(1e-6));
        let moving = live.and(zero_length.not());
        let sphere = (head, axis_world, length);
        let mut next = onto_sphere(
            start + velocity * carry + axis_world * pull + external,
            sphere,
        );
        // The angle limit after the inertia and after every collider's push
        // ([`chain::limit_point`], lane by lane).
        let mut limited = M::none();
        if any_limit {
            for (l, lane) in lanes.iter().enumerate() {
                let limit = lane
                    .setup
                    .limits
                    .get(i)
                    .filter(|x| x.shape != LimitShape::None);
                if let (true, Some(limit)) = (moving.get(l), limit) {
                    limited.set(l, true);
                    let b = Quat::from_array(bind.get(l));
                    let p = chain::limit_point(limit, b, head.get(l), next.get(l), length.0[l]);
                    next.set(l, p);
                }
            }
        }
        let mut contact = M::none();
        let mut push_sum = V3::zero();
        for j in 0..count {
            let (c, vector, scalar) = loaded.get(lanes, j, moving, &mut spare);
            let (mut hit, mut push) = push_point(next, radius, c);
            hit = hit.and(vector);
            if scalar.any() {
                for (l, lane) in lanes.iter().enumerate().filter(|&(l, _)| scalar.get(l)) {
                    let r = collide::push_point(next.get(l), radius.0[l], placed(lane, j));
                    hit.set(l, r.is_some());
                    if let Some(r) = r {
                        push.set(l, r);
                    }
                }
            }
            if hit.any() {
                next = vsel(hit, onto_sphere(next + push, sphere), next);
                let again = hit.and(limited);
                if again.any() {
                    for (l, lane) in lanes.iter().enumerate().filter(|&(l, _)| again.get(l)) {
                        let b = Quat::from_array(bind.get(l));
                        let p = chain::limit_point(
                            &lane.setup.limits[i],
                            b,
                            head.get(l),
                            next.get(l),
                            length.0[l],
                        );
                        next.set(l, p);
                    }
                }
                if any_friction {
                    // Spheres and capsules only ([`chain::vrm_hold`]).
                    let shaped = hit.and(vector);
                    push_sum = vsel(shaped, push_sum + push, push_sum);
                }
                contact = contact.or(hit);
            }
        }
        if any_friction && contact.any() {
            for (l, lane) in lanes.iter().enumerate() {
                if !contact.get(l) || lane.frame.friction <= 0.0 {
                    continue;
                }
                let held = chain::vrm_hold(
                    (head.get(l), head_start.get(l)),
                    (start.get(l), next.get(l)),
                    push_sum.get(l),
                    (length.0[l], radius.0[l], axis_world.get(l)),
                    lane.frame.friction,
                    (&lane.setup.colliders, lane.frame.colliders),
                );
                next.set(l, held);
            }
        }
        let new_velocity = (next - start) / h;
        let rest_target = head + axis_world * length;
        // The joint's new frame, `bind · arc(axis, bind⁻¹ · (next − head)/ℓ)`
        // (math::rotation_arc: the half-angle form; glam's turn for an
        // antiparallel pair); a zero-length link keeps `bind`.
        let local_dir = bind.conjugate().rotate((next - head) / length);
        let dot = axis.dot(local_dir);
        let c = cross(axis, local_dir);
        let mut arc = Q {
            x: c.x,
            y: c.y,
            z: c.z,
            w: F::splat(1.0) + dot,
        }
        .normalize();
        let antiparallel = moving.and(dot.lt(F::splat(-1.0 + 1e-6)));
        for l in (0..lanes.len()).filter(|&l| antiparallel.get(l)) {
            let q = Quat::from_rotation_arc(axis.get(l), local_dir.get(l));
            arc.set(l, q.to_array());
        }
        parent = Q::select(zero_length, bind, bind.mul(arc));
        particles.store(
            i,
            (live, zero_length),
            head,
            [next, new_velocity, rest_target],
            contact,
        );
        head = vsel(moving, next, head);
        if any_friction {
            head_start = vsel(live, start, head_start);
        }
    }
    particles.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_positive_is_glams_try_normalize_test() {
        let values = [
            0.0,
            -0.0,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            -1.0,
            -f32::from_bits(1),
            f32::from_bits(0x7f7f_ffff),
            f32::from_bits(0x7f80_0001),
        ];
        for chunk in values.chunks(W) {
            let mut lanes = F::<W>::splat(0.0);
            lanes.0[..chunk.len()].copy_from_slice(chunk);
            let m = lanes.finite_positive();
            for (l, &v) in chunk.iter().enumerate() {
                assert_eq!(
                    m.get(l),
                    v.is_finite() && v > 0.0,
                    "{v:e} ({:#x})",
                    v.to_bits()
                );
            }
        }
    }

    #[test]
    fn select_and_clamp_keep_scalar_semantics() {
        let a = F([1.0, -2.0, f32::NAN, 0.5, 3.0, -0.0, 1e-40, f32::INFINITY]);
        let c = a.clamp(0.0, 1.0);
        for l in 0..W {
            let s = a.0[l].clamp(0.0, 1.0);
            assert_eq!(c.0[l].to_bits(), s.to_bits(), "lane {l}");
        }
        let b = F::<W>::splat(7.0);
        let m = a.gt(F::<W>::splat(0.0));
        let picked = sel(m, a, b);
        for l in 0..W {
            let s = if a.0[l] > 0.0 { a.0[l] } else { 7.0 };
            assert_eq!(picked.0[l].to_bits(), s.to_bits(), "lane {l}");
        }
    }

    /// Reproducible numbers in [−2, 2) (xorshift).
    fn numbers(seed: u32) -> impl FnMut() -> f32 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state as f32 / u32::MAX as f32) * 4.0 - 2.0
        }
    }

    #[test]
    fn a_points_parameter_is_the_segment_functions_bit_for_bit() {
        // Points on, off and beyond capsule axes, and degenerate axes.
        let mut next = numbers(0x2545_f491);
        for round in 0..200 {
            let (mut p, mut a, mut b) = (V3::<W>::zero(), V3::<W>::zero(), V3::<W>::zero());
            let mut cases = [(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO); W];
            for (l, case) in cases.iter_mut().enumerate() {
                let pa = Vec3::new(next(), next(), next());
                let aa = Vec3::new(next(), next(), next());
                let bb = match (round + l) % 4 {
                    0 => aa,
                    1 => aa + Vec3::splat(1e-7),
                    _ => Vec3::new(next(), next(), next()),
                };
                *case = (pa, aa, bb);
                p.set(l, pa);
                a.set(l, aa);
                b.set(l, bb);
            }
            let t = point_segment_param(p, a, b);
            let (_, general) = closest_segment_params(p, p, a, b);
            for (l, &(pa, aa, bb)) in cases.iter().enumerate() {
                let (_, scalar) = collide::closest_segment_params(pa, pa, aa, bb);
                assert_eq!(t.0[l].to_bits(), general.0[l].to_bits(), "round {round}");
                assert_eq!(t.0[l].to_bits(), scalar.to_bits(), "round {round}");
            }
        }
    }

    #[test]
    fn a_vrm_particle_straight_back_turns_its_joint_as_the_scalar_kernel_does() {
        // Three 10 cm links hanging along −y; in lane 0 the first particle
        // sits straight above its head (antiparallel to the rest axis:
        // glam's half turn), in lane 1 it is off to the side.
        use crate::math::Transform;
        use crate::rig::{BoneDesc, Rig, RigDesc};
        use crate::solvers::chain::{ChainDesc, ChainParams, Particles, StepDecay};
        let down = Transform::from_translation(Vec3::new(0.0, -0.1, 0.0));
        let bones = vec![
            BoneDesc::new("root", -1, Transform::IDENTITY),
            BoneDesc::new("a", 0, down),
            BoneDesc::new("b", 1, down),
            BoneDesc::new("c", 2, down),
        ];
        let mut params = ChainParams::vrm(1.0);
        params.vrm_gravity_power = 0.5;
        let rig = Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            chains: vec![ChainDesc::new(vec![1, 2, 3], 0, params)],
            ..Default::default()
        })
        .expect("a valid rig");
        let setup = &rig.chains()[0];
        let pose = rig.reference_pose().to_vec();
        let h = 1.0 / 120.0;
        let frame = || SubstepFrame {
            h,
            anchor: Quat::IDENTITY,
            root: Vec3::new(0.0, -0.1, 0.0),
            up: Vec3::Y,
            acceleration: Vec3::ZERO,
            scale: 1.0,
            colliders: &[],
            parent: Quat::IDENTITY,
            pose: &pose,
            gravity_velocity: Vec3::NEG_Y * 0.5,
            gravity_direction: Vec3::NEG_Y,
            wind: Vec3::ZERO,
            floor_shift: 0.0,
            decay: StepDecay::new(&params, h, 3),
            friction: 0.0,
            forward_plane: params.forward_plane != 0,
            yields_to_keys: false,
            plane_rest: chain::rest_direction(setup, &params, 0),
        };
        let start = |first: Vec3| {
            vec![
                Vec3::new(0.0, -0.1, 0.0) + first,
                Vec3::new(0.02, -0.05, 0.01) + first,
                Vec3::new(0.03, -0.14, 0.0) + first,
            ]
        };
        let firsts = [Vec3::new(0.0, 0.1, 0.0), Vec3::new(0.07, -0.07, 0.0)];
        // One lane wide (the scalar kernel, substep_chain).
        let rest = vec![Vec3::ZERO; 3];
        let mut expected = Vec::new();
        for &first in &firsts {
            let mut position = start(first);
            let mut velocity = vec![Vec3::ZERO; 3];
            let (mut bend, mut scratch) = (vec![Quat::IDENTITY; 3], vec![Quat::IDENTITY; 3]);
            let (mut targets, mut contacts) = (vec![Vec3::ZERO; 3], vec![0u8; 3]);
            for _ in 0..3 {
                substep_chain(
                    setup,
                    &params,
                    &frame(),
                    &rest,
                    &mut Particles {
                        position: &mut position,
                        velocity: &mut velocity,
                        bend: &mut bend,
                        bend_scratch: &mut scratch,
                        rest_targets: &mut targets,
                        contacts: &mut contacts,
                    },
                );
            }
            expected.push(position);
        }
        // Both in lanes.
        let mut state: Vec<_> = firsts
            .iter()
            .map(|&first| {
                (
                    start(first),
                    vec![Vec3::ZERO; 3],
                    vec![Quat::IDENTITY; 3],
                    vec![Vec3::ZERO; 3],
                    vec![0u8; 3],
                )
            })
            .collect();
        let lane_frame = frame();
        let lanes: Vec<Lane<'_>> = firsts
            .iter()
            .map(|_| Lane {
                setup,
                params: &params,
                frame: &lane_frame,
            })
            .collect();
        for _ in 0..3 {
            let mut arrays: Vec<Arrays<'_>> = state
                .iter_mut()
                .map(|(position, velocity, bend, targets, contacts)| Arrays {
                    rest: &rest,
                    position,
                    velocity,
                    bend,
                    rest_targets: targets,
                    contacts,
                })
                .collect();
            substep_lanes::<W>(&lanes, &mut arrays);
        }
        for (lane, (want, got)) in expected.iter().zip(&state).enumerate() {
            for (k, (a, b)) in want.iter().zip(&got.0).enumerate() {
                assert_eq!(
                    a.to_array().map(f32::to_bits),
                    b.to_array().map(f32::to_bits),
                    "lane {lane}, particle {k}"
                );
            }
        }
        // The half turn happened: the first particle is still above.
        assert!(state[0].0[0].y > -0.1, "{:?}", state[0].0[0]);
    }

    #[test]
    fn link_params_are_the_segment_functions_bit_for_bit() {
        // Links against sphere axes (a point, or two points 1e-7 apart,
        // within EPS), degenerate links, and capsules in some rounds (the
        // general function then runs).
        let mut next = numbers(0x9e37_79b9);
        for round in 0..300 {
            let (mut p0, mut p1, mut q0, mut q1) = (
                V3::<W>::zero(),
                V3::<W>::zero(),
                V3::<W>::zero(),
                V3::<W>::zero(),
            );
            let mut cases = [(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO); W];
            for (l, case) in cases.iter_mut().enumerate() {
                let a = Vec3::new(next(), next(), next());
                let b = match (round + 3 * l) % 5 {
                    0 => a,
                    1 => a + Vec3::new(1e-7, 0.0, 0.0),
                    _ => Vec3::new(next(), next(), next()),
                };
                let c = Vec3::new(next(), next(), next());
                let d = match (round / 3 + l) % 7 {
                    0 => c,
                    1 if round % 2 == 0 => Vec3::new(next(), next(), next()),
                    _ => c + Vec3::new(1e-7, 0.0, 0.0),
                };
                *case = (a, b, c, d);
                p0.set(l, a);
                p1.set(l, b);
                q0.set(l, c);
                q1.set(l, d);
            }
            let mask = M(core::array::from_fn(|l| mask((round + l) % 3 != 0)));
            let (s, t) = link_params(p0, p1, q0, q1, mask);
            for (l, c) in cases.iter().enumerate().filter(|&(l, _)| mask.get(l)) {
                let (ss, tt) = collide::closest_segment_params(c.0, c.1, c.2, c.3);
                assert_eq!(
                    (s.0[l].to_bits(), t.0[l].to_bits()),
                    (ss.to_bits(), tt.to_bits()),
                    "round {round}, lane {l}"
                );
            }
        }
    }

    #[test]
    fn link_contacts_are_the_scalar_functions_bit_for_bit() {
        // Links against spheres and capsules of radius 0.3 to 0.5 with heads far
        // out, near the surface (on it up to rounding, where the link before
        // leaves a joint) and deep inside, diving into the shape or leaving
        // it; the lanes the kernel hands to the scalar function (`redo`)
        // excepted.
        let mut next = numbers(0x2545_f491);
        let (mut hits, mut inside) = (0, 0);
        for round in 0..2000 {
            let (mut head, mut tip) = (V3::<W>::zero(), V3::<W>::zero());
            let mut c = Capsules::<W>::zero();
            let mut link_radius = F::<W>::splat(0.0);
            let mut cases = [(Vec3::ZERO, Vec3::ZERO, 0.0, PlacedCollider::default()); W];
            for (l, case) in cases.iter_mut().enumerate() {
                let sphere = (round + l) % 3 == 0;
                let a = Vec3::new(next(), next(), next()) * 0.1;
                let b = if sphere {
                    a
                } else {
                    a + Vec3::new(next(), next(), next()) * 0.5
                };
                let r = 0.4 + 0.05 * next();
                let lr = 0.05 + 0.02 * next();
                let axis = a + (b - a) * (0.5 + 0.25 * next());
                let out = Vec3::new(next(), next(), next()).normalize_or(Vec3::Y);
                let depth = match (round / 2 + l) % 5 {
                    0 => 0.0,
                    1 => 1e-7 * next(),
                    2 => 0.05 * next().abs(),
                    3 => (r + lr) * 0.9,
                    _ => -0.3 * next().abs(),
                };
                let h = axis + out * (r + lr - depth);
                let t = h + Vec3::new(next(), next(), next()) * 0.3 - out * 0.1 * next();
                let placed = PlacedCollider {
                    shape: if sphere {
                        ColliderShape::Sphere
                    } else {
                        ColliderShape::Capsule
                    },
                    a,
                    b,
                    radius: r,
                };
                *case = (h, t, lr, placed);
                head.set(l, h);
                tip.set(l, t);
                c.a.set(l, a);
                c.b.set(l, b);
                c.radius.0[l] = r;
                c.sphere.set(l, sphere);
                link_radius.0[l] = lr;
            }
            let mask = M(core::array::from_fn(|l| mask((round + l) % 4 != 0)));
            let (hit, correction, normal, redo) = resolve(head, tip, link_radius, &c, mask);
            for (l, case) in cases.iter().enumerate() {
                if !mask.get(l) || redo.get(l) {
                    continue;
                }
                let scalar = collide::resolve(case.0, case.1, case.2, &case.3);
                let lanes = hit.get(l).then(|| (correction.get(l), normal.get(l)));
                let bits = |r: Option<(Vec3, Vec3)>| {
                    r.map(|(c, n)| [c.to_array(), n.to_array()].map(|v| v.map(f32::to_bits)))
                };
                assert_eq!(
                    bits(lanes),
                    bits(scalar),
                    "round {round}, lane {l}: {case:?}"
                );
                hits += usize::from(scalar.is_some());
                let dh = case.0.distance(
                    case.3.a
                        + (case.3.b - case.3.a) * {
                            let (_, v) =
                                collide::closest_segment_params(case.0, case.0, case.3.a, case.3.b);
                            v
                        },
                );
                inside += usize::from(scalar.is_some() && dh < case.3.radius + case.2);
            }
        }
        // Both branches ran many times.
        assert!(
            hits > 3000 && inside > 1000,
            "{hits} hits, {inside} with the head inside"
        );
    }

    #[test]
    fn closest_segment_params_match_the_scalar_function_bit_for_bit() {
        // Crossing, parallel, degenerate (points) and far segments, in
        // every lane combination.
        let cases = [
            (
                Vec3::new(-1.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.0, -1.0, 1.0),
                Vec3::new(0.0, 1.0, 1.0),
            ),
            (Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Y + Vec3::X),
            (Vec3::ZERO, Vec3::ZERO, Vec3::X, Vec3::X),
            (Vec3::ZERO, Vec3::ZERO, Vec3::X, Vec3::new(2.0, 1.0, 0.0)),
            (
                Vec3::new(0.3, 0.2, 0.1),
                Vec3::new(0.9, -0.4, 0.2),
                Vec3::ZERO,
                Vec3::ZERO,
            ),
            (
                Vec3::new(5.0, 0.0, 0.0),
                Vec3::new(6.0, 0.1, 0.0),
                Vec3::ZERO,
                Vec3::Y,
            ),
            (
                Vec3::new(-3.0, 2.0, 1.0),
                Vec3::new(-3.0, -2.0, 1.0),
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(0.0, 3.0, 0.0),
            ),
            (
                Vec3::new(0.1, 0.1, 0.1),
                Vec3::new(0.1, 0.1, 0.1 + 1e-7),
                Vec3::Z,
                -Vec3::Z,
            ),
        ];
        let mut v = [
            V3::<W>::zero(),
            V3::<W>::zero(),
            V3::<W>::zero(),
            V3::<W>::zero(),
        ];
        for (l, c) in cases.iter().enumerate() {
            v[0].set(l, c.0);
            v[1].set(l, c.1);
            v[2].set(l, c.2);
            v[3].set(l, c.3);
        }
        let (s, t) = closest_segment_params(v[0], v[1], v[2], v[3]);
        for (l, c) in cases.iter().enumerate() {
            let (ss, tt) = collide::closest_segment_params(c.0, c.1, c.2, c.3);
            assert_eq!(
                (s.0[l].to_bits(), t.0[l].to_bits()),
                (ss.to_bits(), tt.to_bits()),
                "case {l}"
            );
        }
    }

    /// One chain's state between substeps: position, velocity, bend, rest
    /// targets, contacts.
    type State = (Vec<Vec3>, Vec<Vec3>, Vec<Quat>, Vec<Vec3>, Vec<u8>);

    /// `states` stepped `substeps` times, `width` chains at a time (in the
    /// order `order`), through the kernel `N` wide.
    fn run_width<const N: usize>(
        lanes: &[Lane<'_>],
        rest: &[Vec<Vec3>],
        states: &mut [State],
        order: &[usize],
        substeps: usize,
        width: usize,
        avx512: bool,
    ) {
        for _ in 0..substeps {
            for block in order.chunks(width) {
                let block_lanes: Vec<Lane<'_>> = block
                    .iter()
                    .map(|&c| Lane {
                        setup: lanes[c].setup,
                        params: lanes[c].params,
                        frame: lanes[c].frame,
                    })
                    .collect();
                // Each chain's state, borrowed apart in block order.
                let mut refs: Vec<Option<&mut State>> = states.iter_mut().map(Some).collect();
                let mut arrays: Vec<Arrays<'_>> = block
                    .iter()
                    .map(|&c| {
                        let (position, velocity, bend, targets, contacts) =
                            refs[c].take().expect("a chain once per block");
                        Arrays {
                            rest: &rest[c],
                            position,
                            velocity,
                            bend,
                            rest_targets: targets,
                            contacts,
                        }
                    })
                    .collect();
                #[cfg(target_arch = "x86_64")]
                if avx512 {
                    #[target_feature(enable = "avx512f")]
                    unsafe fn wide<const N: usize>(l: &[Lane<'_>], a: &mut [Arrays<'_>]) {
                        substep_lanes::<N>(l, a);
                    }
                    // SAFETY: the caller found AVX-512F at run time.
                    unsafe { wide::<N>(&block_lanes, &mut arrays) };
                    continue;
                }
                let _ = avx512;
                substep_lanes::<N>(&block_lanes, &mut arrays);
            }
        }
    }

    /// The bits of what a [`Resident`] gathered: every lane of its links,
    /// positions and velocities down its longest chain.
    fn resident_rows(r: &Resident<W>) -> Vec<u32> {
        let mut out = vec![r.n as u32];
        let f = |out: &mut Vec<u32>, x: &F<W>| out.extend(x.0.map(f32::to_bits));
        let v = |out: &mut Vec<u32>, x: &V3<W>| {
            for c in [&x.x, &x.y, &x.z] {
                f(out, c);
            }
        };
        for i in 0..r.n {
            let link = &r.links[i];
            out.extend(link.live.0);
            f(&mut out, &link.length);
            f(&mut out, &link.radius);
            for c in [&link.pose.x, &link.pose.y, &link.pose.z, &link.pose.w] {
                f(&mut out, c);
            }
            v(&mut out, &link.axis);
            v(&mut out, &r.position[i]);
            v(&mut out, &r.velocity[i]);
        }
        out
    }

    /// `states` stepped `substeps` times, 8 chains at a time (in the order
    /// `order`), through the VRM kernel with each block's links and
    /// particles kept in lanes ([`Resident`]) from the first substep to
    /// the last; `previous` gets each chain's positions before the last.
    fn run_resident(
        lanes: &[Lane<'_>],
        rest: &[Vec<Vec3>],
        states: &mut [State],
        previous: &mut [Vec<Vec3>],
        (order, substeps): (&[usize], usize),
    ) {
        for block in order.chunks(W) {
            let block_lanes: Vec<Lane<'_>> = block
                .iter()
                .map(|&c| Lane {
                    setup: lanes[c].setup,
                    params: lanes[c].params,
                    frame: lanes[c].frame,
                })
                .collect();
            let mut r = Resident::<W>::new();
            let chains: [Option<ResidentChain<'_>>; W] = core::array::from_fn(|k| {
                let c = *block.get(k)?;
                Some(ResidentChain {
                    setup: lanes[c].setup,
                    pose: lanes[c].frame.pose,
                    scale: lanes[c].frame.scale,
                    position: &states[c].0,
                    velocity: &states[c].1,
                })
            });
            r.gather(&chains);
            for _ in 0..substeps {
                r.begin_substep();
                substep_vrm::<W, Resident<W>>(&block_lanes, &mut r);
            }
            for (k, &c) in block.iter().enumerate() {
                let (position, velocity, bend, rest_targets, contacts) = &mut states[c];
                let mut arrays = Arrays {
                    rest: &rest[c],
                    position,
                    velocity,
                    bend,
                    rest_targets,
                    contacts,
                };
                r.scatter(k, &mut arrays, &mut previous[c]);
            }
        }
    }

    #[test]
    fn a_chain_gives_the_same_bits_at_every_width_and_in_every_lane_position() {
        // Sixteen chains of one shape per integrator, each with its own
        // parameters (floor, forward plane, bend coupling and limit,
        // velocity from positions), frame (root, anchor, acceleration,
        // friction) and colliders (none to ten: spheres, capsules, planes,
        // inside shapes), stepped alone (1 wide), 4, 8 and 16 wide, and 8
        // wide in reverse lane order: every chain's bits are the same.
        use crate::math::Transform;
        use crate::rig::{BoneDesc, Rig, RigDesc};
        use crate::solvers::chain::{ChainDesc, StepDecay};
        let mut next = numbers(0x0bad_cafe);
        let down = Transform::from_translation(Vec3::new(0.0, -0.08, 0.0));
        let mut bones = vec![BoneDesc::new("root", -1, Transform::IDENTITY)];
        for j in 0..6 {
            bones.push(BoneDesc::new(format!("j{j}"), j, down));
        }
        let placed: Vec<PlacedCollider> = (0..10)
            .map(|j| {
                let shape = [
                    ColliderShape::Sphere,
                    ColliderShape::Capsule,
                    ColliderShape::Sphere,
                    ColliderShape::Plane,
                    ColliderShape::Capsule,
                    ColliderShape::InsideSphere,
                    ColliderShape::Sphere,
                    ColliderShape::Capsule,
                    ColliderShape::InsideCapsule,
                    ColliderShape::Sphere,
                ][j];
                let a = Vec3::new(next() * 0.1, -0.2 + next() * 0.1, next() * 0.1);
                let b = match shape {
                    ColliderShape::Plane => Vec3::new(next(), 1.0, next()).normalize(),
                    ColliderShape::Capsule | ColliderShape::InsideCapsule => {
                        a + Vec3::new(next(), next(), next()) * 0.1
                    }
                    _ => a,
                };
                let radius = match shape {
                    ColliderShape::InsideSphere | ColliderShape::InsideCapsule => 0.6,
                    _ => 0.04 + 0.02 * next().abs(),
                };
                PlacedCollider {
                    shape,
                    a,
                    b,
                    radius,
                }
            })
            .collect();
        let h = 1.0 / 120.0;
        for preset in 0..3 {
            let base = match preset {
                0 => ChainParams::tail(1.0),
                1 => ChainParams::hair(1.0),
                _ => ChainParams::vrm(1.0),
            };
            let rig = Rig::new(RigDesc {
                bones: bones.clone(),
                units_per_meter: 1.0,
                chains: vec![ChainDesc::new((1..7).collect(), 0, base)],
                ..Default::default()
            })
            .expect("a valid rig");
            let pose = rig.reference_pose().to_vec();
            let chains = 16;
            let mut params = Vec::new();
            let mut setups = Vec::new();
            let mut frames = Vec::new();
            let mut rest = Vec::new();
            let mut start = Vec::new();
            for c in 0..chains {
                let mut p = base;
                p.floor_enabled = u32::from(c % 3 == 0);
                p.floor_height = -0.3;
                p.forward_plane = u32::from(c % 4 == 1);
                p.velocity_from_positions = u32::from(c % 5 == 2 && preset == 1);
                if c % 2 == 0 && preset != 2 {
                    p.bend_rate = 8.0;
                    p.bend_limit = 0.4;
                }
                let mut setup = rig.chains()[0].clone();
                setup.colliders = (0..(c * 7) % 11).map(|j| j as u32).collect();
                let mut r = vec![Vec3::ZERO; setup.len()];
                chain::rest_directions(&setup, &p, &mut r);
                let anchor =
                    Quat::from_rotation_z(0.3 * next()) * Quat::from_rotation_x(0.2 * next());
                frames.push(SubstepFrame {
                    h,
                    anchor,
                    root: Vec3::new(next(), next(), next()) * 0.02,
                    up: Vec3::Y,
                    acceleration: Vec3::new(next(), -9.81 + next(), next()),
                    scale: 1.0 + 0.1 * next(),
                    colliders: &placed,
                    parent: anchor,
                    pose: &pose,
                    gravity_velocity: Vec3::NEG_Y * 0.5,
                    gravity_direction: Vec3::NEG_Y,
                    wind: Vec3::new(next(), 0.0, next()) * 0.1,
                    floor_shift: 0.0,
                    decay: StepDecay::new(&p, h, setup.len()),
                    friction: if c % 4 == 3 { 0.5 } else { 0.0 },
                    forward_plane: p.forward_plane != 0,
                    yields_to_keys: c % 2 == 0,
                    plane_rest: r[0],
                });
                let n = setup.len();
                let position: Vec<Vec3> = (0..n)
                    .map(|k| Vec3::new(next() * 0.05, -0.08 * (k + 1) as f32, next() * 0.05))
                    .collect();
                let velocity: Vec<Vec3> =
                    (0..n).map(|_| Vec3::new(next(), next(), next())).collect();
                start.push((
                    position,
                    velocity,
                    vec![Quat::IDENTITY; n],
                    vec![Vec3::ZERO; n],
                    vec![0u8; n],
                ));
                params.push(p);
                setups.push(setup);
                rest.push(r);
            }
            let lanes: Vec<Lane<'_>> = (0..chains)
                .map(|c| Lane {
                    setup: &setups[c],
                    params: &params[c],
                    frame: &frames[c],
                })
                .collect();
            let forward: Vec<usize> = (0..chains).collect();
            let backward: Vec<usize> = (0..chains).rev().collect();
            let substeps = 120;
            let mut alone = start.clone();
            run_width::<1>(&lanes, &rest, &mut alone, &forward, substeps, 1, false);
            let mut runs = Vec::new();
            let mut run = |name: &str, f: &dyn Fn(&mut Vec<State>)| {
                let mut s = start.clone();
                f(&mut s);
                runs.push((name.to_string(), s));
            };
            run("4 wide", &|s| {
                run_width::<4>(&lanes, &rest, s, &forward, substeps, 4, false)
            });
            run("8 wide", &|s| {
                run_width::<8>(&lanes, &rest, s, &forward, substeps, 8, false)
            });
            run("8 wide, lanes reversed", &|s| {
                run_width::<8>(&lanes, &rest, s, &backward, substeps, 8, false)
            });
            run("16 wide", &|s| {
                run_width::<16>(&lanes, &rest, s, &forward, substeps, 16, false)
            });
            if preset == 2 {
                // A gather clears what the thread's previous block left: a
                // block of three chains gathered after a full one leaves
                // the other lanes as a fresh gather does.
                let resident_chain = |c: usize| ResidentChain {
                    setup: lanes[c].setup,
                    pose: lanes[c].frame.pose,
                    scale: lanes[c].frame.scale,
                    position: &start[c].0,
                    velocity: &start[c].1,
                };
                let full: [Option<ResidentChain<'_>>; W] =
                    core::array::from_fn(|k| Some(resident_chain(k)));
                let few: [Option<ResidentChain<'_>>; W] =
                    core::array::from_fn(|k| (k < 3).then(|| resident_chain(W + k)));
                let mut reused = Resident::<W>::new();
                reused.gather(&full);
                reused.gather(&few);
                let mut fresh = Resident::<W>::new();
                fresh.gather(&few);
                assert_eq!(resident_rows(&reused), resident_rows(&fresh));
                // Kept in lanes across the substeps (the chain stage's
                // blocks of VRM chains in step), in both lane orders; the
                // positions before the last substep are those of a run
                // one substep shorter.
                let mut before = start.clone();
                run_width::<1>(&lanes, &rest, &mut before, &forward, substeps - 1, 1, false);
                for (name, order) in [("resident", &forward), ("resident, reversed", &backward)] {
                    let mut previous: Vec<Vec<Vec3>> =
                        start.iter().map(|s| vec![Vec3::NAN; s.0.len()]).collect();
                    run(name, &|s| {
                        let mut p = previous.clone();
                        run_resident(&lanes, &rest, s, &mut p, (order, substeps));
                        assert!(p.iter().flatten().all(|v| v.is_finite()));
                    });
                    run_resident(
                        &lanes,
                        &rest,
                        &mut start.clone(),
                        &mut previous,
                        (order, substeps),
                    );
                    for c in 0..chains {
                        let bits = |v: &[Vec3]| {
                            v.iter()
                                .flat_map(|x| x.to_array())
                                .map(f32::to_bits)
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(bits(&previous[c]), bits(&before[c].0), "{name}: chain {c}");
                    }
                }
            }
            // No shipped kernel is compiled for AVX-512, and compiling this
            // one (the 16-wide kernel under `avx512f`) was most of this
            // test binary's build, the critical path of `cargo test`'s: it
            // is built with `RUSTFLAGS="--cfg secmo_avx512" cargo test
            // --lib`, for work on such a kernel.
            #[cfg(all(target_arch = "x86_64", secmo_avx512))]
            if std::is_x86_feature_detected!("avx512f") {
                run("16 wide, AVX-512", &|s| {
                    run_width::<16>(&lanes, &rest, s, &forward, substeps, 16, true)
                });
            }
            let bits = |s: &State| {
                let v3 = |v: &Vec<Vec3>| {
                    v.iter()
                        .flat_map(|x| x.to_array())
                        .map(f32::to_bits)
                        .collect::<Vec<_>>()
                };
                let q =
                    s.2.iter()
                        .flat_map(|x| x.to_array())
                        .map(f32::to_bits)
                        .collect::<Vec<_>>();
                (v3(&s.0), v3(&s.1), q, v3(&s.3), s.4.clone())
            };
            let mut contacts = 0;
            for (name, states) in &runs {
                for c in 0..chains {
                    assert_eq!(
                        bits(&states[c]),
                        bits(&alone[c]),
                        "preset {preset}, chain {c}, {name}"
                    );
                }
            }
            for s in &alone {
                assert!(s.0.iter().all(|p| p.is_finite()));
                contacts += s.4.iter().filter(|&&c| c != 0).count();
            }
            // The colliders and the floor were in play.
            assert!(contacts > 0, "preset {preset}: no contact");
        }
    }
}
