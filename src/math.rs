//! Transforms, decomposition and the two writeback paths (docs/algorithms.md §1).
//!
//! Conventions: column vectors, `C_i = C_parent(i) · L_i`. Component (model)
//! space matrices are `glam::Affine3A`: a general 3×3 linear block (rotation ×
//! possibly non-uniform, possibly negative scale) plus a translation.

use bytemuck::{Pod, Zeroable};
use glam::{Affine3A, Mat3, Quat, Vec3, Vec3A};

/// A local bone transform as engines store it: translation, unit quaternion
/// `(x, y, z, w)`, per-axis scale. 40 bytes, `repr(C)`, castable from a flat
/// `f32` array of 10 floats per bone.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Transform {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

const _: () = assert!(core::mem::size_of::<Transform>() == 40);
const _: () = assert!(core::mem::align_of::<Transform>() == 4);

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };

    #[inline]
    #[must_use]
    pub fn new(translation: Vec3, rotation: Quat, scale: Vec3) -> Self {
        Self {
            translation: translation.to_array(),
            rotation: rotation.to_array(),
            scale: scale.to_array(),
        }
    }

    #[inline]
    #[must_use]
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation: translation.to_array(),
            ..Self::IDENTITY
        }
    }

    #[inline]
    #[must_use]
    pub fn translation(&self) -> Vec3 {
        Vec3::from_array(self.translation)
    }

    #[inline]
    #[must_use]
    pub fn rotation(&self) -> Quat {
        Quat::from_array(self.rotation)
    }

    #[inline]
    #[must_use]
    pub fn scale(&self) -> Vec3 {
        Vec3::from_array(self.scale)
    }

    /// TRS → matrix: `M = T · R · S` (docs/algorithms.md §1, column vectors). The rotation is
    /// normalised here so that callers may pass slightly denormalised quaternions.
    #[inline]
    #[must_use]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(
            self.scale(),
            self.rotation().normalize(),
            self.translation(),
        )
    }

    /// Every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        // Branch-free over the ten floats (a short-circuiting iterator chain
        // cost ~30 instructions per float, checked twice per bone per update):
        // finite iff the exponent bits are not all set.
        let floats: [u32; 10] = bytemuck::cast(*self);
        not_finite_bits(&floats) == 0
    }
}

/// Every component of every transform is finite: one pass over the floats'
/// bits as a flat slice, which LLVM vectorises (per transform, the ten-float
/// fold stays scalar; this pass was 4 % of a crowd update, #14).
#[must_use]
pub fn all_finite(pose: &[Transform]) -> bool {
    not_finite_bits(bytemuck::cast_slice(pose)) == 0
}

/// Nonzero iff one of `bits` (floats' bits) is an infinity or a NaN: its
/// exponent bits all set, so that its magnitude bits plus one exponent step
/// carry into the sign bit (at most `0x807f_ffff`, no overflow). Only
/// masks, adds and ors, which the baseline x86-64 target (SSE2) vectorises;
/// an unsigned maximum it has no instruction for, and such a fold stayed
/// scalar (12 instructions per joint-substep in the crowd's input check,
/// benches/README.md).
#[inline]
fn not_finite_bits(bits: &[u32]) -> u32 {
    bits.iter().fold(0u32, |m, &c| {
        m | (c & 0x7fff_ffff).wrapping_add(0x0080_0000)
    }) & 0x8000_0000
}

/// Whether a rotation quaternion can be normalised in float32: its squared
/// length is at least 1e-12 and finite (a component beyond about 1.8e19
/// overflows it, and normalising gives zero). The one rule for reference
/// poses, input poses and world transforms.
#[inline]
#[must_use]
pub fn usable_rotation(q: Quat) -> bool {
    let l2 = q.length_squared();
    (1e-12..=f32::MAX).contains(&l2)
}

/// Smallest |scale| component accepted anywhere; below it a matrix cannot be
/// inverted reliably for writeback (docs/algorithms.md §1: writeback needs `inverse(C_parent)`).
pub const MIN_SCALE: f32 = 1e-6;

/// Largest accepted scale component of a pose, reference or world transform.
/// Past it the writeback inverse (`component_delta_to_local`) and the FK
/// products overflow float32 for ordinary bone lengths; such input is refused
/// as degenerate rather than answered with infinities.
pub const MAX_SCALE: f32 = 1e4;

/// Relative tolerance on the cosine between two scaled basis vectors above
/// which a matrix is called sheared (docs/algorithms.md §1 DECISION: detect and warn).
pub const SHEAR_TOLERANCE: f32 = 1e-3;

/// Result of decomposing a general affine matrix into TRS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decomposed {
    pub transform: Transform,
    /// The 3×3 block had non-orthogonal axes; TRS cannot represent it and the
    /// shear was dropped (docs/algorithms.md §1 DECISION).
    pub sheared: bool,
}

/// Matrix → TRS, preserving the sign of scale given by `sign_hint` (normally
/// the source local scale) instead of inventing one (docs/algorithms.md §1: "preserve the
/// sign of source local scale through decompose/recompose").
///
/// The magnitudes are the column lengths. If the signs of `sign_hint` do not
/// give the matrix's handedness (an odd count of negative hint components must
/// match a negative determinant), the X sign is flipped, as the common
/// convention does.
#[must_use]
pub fn decompose(m: &Affine3A, sign_hint: Vec3) -> Decomposed {
    let cols = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
    let mut scale = Vec3::new(cols[0].length(), cols[1].length(), cols[2].length());
    let mut signs = Vec3::new(
        if sign_hint.x < 0.0 { -1.0 } else { 1.0 },
        if sign_hint.y < 0.0 { -1.0 } else { 1.0 },
        if sign_hint.z < 0.0 { -1.0 } else { 1.0 },
    );
    let det = m.matrix3.determinant();
    let hint_negative = signs.x * signs.y * signs.z < 0.0;
    if (det < 0.0) != hint_negative {
        signs.x = -signs.x;
    }
    scale *= signs;

    let safe = |c: Vec3A, s: f32| {
        if s.abs() > f32::MIN_POSITIVE {
            c / s
        } else {
            Vec3A::ZERO
        }
    };
    let x = safe(cols[0], scale.x);
    let y = safe(cols[1], scale.y);
    let z = safe(cols[2], scale.z);
    let sheared = x.dot(y).abs() > SHEAR_TOLERANCE
        || x.dot(z).abs() > SHEAR_TOLERANCE
        || y.dot(z).abs() > SHEAR_TOLERANCE;
    let rotation = rotation_from_axes(x.into(), y.into());
    Decomposed {
        transform: Transform::new(m.translation.into(), rotation, scale),
        sheared,
    }
}

/// Rotation whose X and Y axes are (nearly) `x` and `y`; Z follows from
/// handedness, which the sign correction in [`decompose`] has made proper.
/// Degenerate axes fall back to identity rather than producing NaN.
fn rotation_from_axes(x: Vec3, y: Vec3) -> Quat {
    // Gram–Schmidt so that a slightly sheared or rounded basis still gives a
    // proper rotation; the shear itself is reported by the caller.
    let x = x.normalize_or_zero();
    if x == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let y = (y - x * x.dot(y)).normalize_or_zero();
    if y == Vec3::ZERO {
        return rotation_arc(Vec3::X, x);
    }
    Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y))).normalize()
}

/// The shortest rotation taking unit vector `from` to unit vector `to`,
/// exact for small angles too. (`Quat::from_rotation_arc` returns identity
/// whenever `from·to > 1 − 2ε`, that is below about 6.9e-4 rad, which snapped
/// small chain swings to the animated pose and left float32-noise inputs
/// differing by that much.) Antiparallel vectors turn 180° about an axis
/// orthogonal to `from`, as glam does.
#[inline]
#[must_use]
pub fn rotation_arc(from: Vec3, to: Vec3) -> Quat {
    let dot = from.dot(to);
    if dot < -1.0 + 1e-6 {
        return Quat::from_rotation_arc(from, to);
    }
    // q = (from × to, 1 + from·to), normalized: the half-angle form, whose
    // vector part keeps its relative precision as the angle goes to zero.
    let c = from.cross(to);
    Quat::from_xyzw(c.x, c.y, c.z, 1.0 + dot).normalize()
}

/// docs/algorithms.md §7 writeback: the local rotation that turns joint `local`, under
/// component matrix `parent`, by the shortest swing taking its child offset
/// `child` (joint frame) onto `to` (component space, from the joint's
/// head); `local_affine` is `local.to_affine()`. `None` when either
/// direction is degenerate.
///
/// Through a rotation-and-uniform-scale parent the component swing,
/// conjugated into the parent's frame, is the arc between the same two
/// directions seen from the parent, so no matrix is decomposed; other
/// parents go through [`aim_local_decomposed`].
#[inline]
#[must_use]
pub fn aim_local(
    parent: &Affine3A,
    local: &Transform,
    local_affine: &Affine3A,
    child: Vec3,
    to: Vec3,
) -> Option<Quat> {
    if !is_similarity(&parent.matrix3) {
        return aim_local_decomposed(parent, local, child, to);
    }
    let from_p = local_affine.matrix3.mul_vec3(child).try_normalize()?;
    let to_p = parent.matrix3.transpose().mul_vec3(to).try_normalize()?;
    Some((rotation_arc(from_p, to_p) * local.rotation().normalize()).normalize())
}

/// [`aim_local`] through a parent already known to be a similarity (the
/// chain writeback, `src/solvers/writeback.rs`, computes this in lanes and
/// its test holds it to this function; it checks the chain's root parent
/// once and carries the property down a chain of uniformly scaled joints): the joint's rotation
/// `rotation` (unit) and scale `scale` turn `child` without building the
/// joint's matrix, and `parent_inverse_to` is `to` seen from the parent
/// (`parent.matrix3.transpose() · to`, any length). `None` when either
/// direction is degenerate.
#[inline]
#[must_use]
pub fn aim_local_similar(
    rotation: Quat,
    scale: Vec3,
    child: Vec3,
    parent_inverse_to: Vec3,
) -> Option<Quat> {
    let from_p = (rotation * (scale * child)).try_normalize()?;
    let to_p = parent_inverse_to.try_normalize()?;
    Some((rotation_arc(from_p, to_p) * rotation).normalize())
}

/// A positive scale equal on the three axes to a relative 1e-6: a joint
/// with it, under a similarity parent, is a similarity parent to its child
/// (the chain writeback's fast path carries [`is_similarity`] down a chain
/// with it instead of testing every joint's matrix).
#[inline]
#[must_use]
pub fn is_uniform_scale(s: Vec3) -> bool {
    const TOLERANCE: f32 = 1e-6;
    let tol = TOLERANCE * s.x;
    s.x > f32::MIN_POSITIVE && (s.x - s.y).abs() <= tol && (s.x - s.z).abs() <= tol
}

/// [`aim_local`] for any parent: the swing applied in component space and
/// the joint's local transform recovered by decomposition (path B).
#[must_use]
pub fn aim_local_decomposed(
    parent: &Affine3A,
    local: &Transform,
    child: Vec3,
    to: Vec3,
) -> Option<Quat> {
    let current = *parent * local.to_affine();
    let from = current.matrix3.mul_vec3(child).try_normalize()?;
    let swing = rotation_arc(from, to.try_normalize()?);
    let corrected = Affine3A {
        matrix3: glam::Mat3A::from_quat(swing) * current.matrix3,
        translation: current.translation,
    };
    Some(
        component_to_local(parent, &corrected, local.scale())
            .transform
            .rotation(),
    )
}

/// Whether a linear part is a rotation times a positive uniform scale (no
/// shear, no mirror, no non-uniform scale), to a relative 1e-5. Through such
/// a parent a component-space swing becomes a local one by conjugation, with
/// no matrix decomposition (the chain writeback's fast path).
#[inline]
#[must_use]
pub fn is_similarity(m: &glam::Mat3A) -> bool {
    const TOLERANCE: f32 = 1e-5;
    let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
    let lx = x.length_squared();
    let tol = TOLERANCE * lx;
    lx > f32::MIN_POSITIVE
        && (lx - y.length_squared()).abs() <= tol
        && (lx - z.length_squared()).abs() <= tol
        && x.dot(y).abs() <= tol
        && x.dot(z).abs() <= tol
        && y.dot(z).abs() <= tol
        && x.cross(y).dot(z) > 0.0
}

/// A component-space matrix as a character keeps one per bone: an
/// [`Affine3A`]'s twelve floats without the padding of its 16-byte columns
/// (48 bytes instead of 64). [`Frame::load`] gives back the stored bits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Frame([f32; 12]);

impl Frame {
    /// The identity matrix.
    pub const IDENTITY: Frame = Frame([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);

    /// The translation column.
    #[inline(always)]
    #[must_use]
    pub fn translation(&self) -> glam::Vec3 {
        glam::Vec3::new(self.0[9], self.0[10], self.0[11])
    }
}

/// What forward kinematics writes a bone's component matrix into: an
/// [`Affine3A`] or a packed [`Frame`].
pub trait ComponentMatrix: Copy {
    /// The matrix, as an `Affine3A` to compute with.
    fn load(&self) -> Affine3A;
    /// `m` kept in this form (the same floats).
    fn store(m: &Affine3A) -> Self;
}

impl ComponentMatrix for Affine3A {
    #[inline(always)]
    fn load(&self) -> Affine3A {
        *self
    }
    #[inline(always)]
    fn store(m: &Affine3A) -> Self {
        *m
    }
}

impl ComponentMatrix for Frame {
    #[inline(always)]
    fn load(&self) -> Affine3A {
        let f = &self.0;
        Affine3A::from_cols(
            glam::Vec3A::new(f[0], f[1], f[2]),
            glam::Vec3A::new(f[3], f[4], f[5]),
            glam::Vec3A::new(f[6], f[7], f[8]),
            glam::Vec3A::new(f[9], f[10], f[11]),
        )
    }
    #[inline(always)]
    fn store(m: &Affine3A) -> Self {
        let (x, y, z, t) = (
            m.matrix3.x_axis,
            m.matrix3.y_axis,
            m.matrix3.z_axis,
            m.translation,
        );
        Frame([x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z, t.x, t.y, t.z])
    }
}

/// Forward kinematics over a parents-first ordered skeleton (docs/algorithms.md §1):
/// `C_root = L_root`, `C_i = C_parent(i) · L_i`.
pub fn forward_kinematics<M: ComponentMatrix>(
    parents: &[i32],
    local: &[Transform],
    component: &mut [M],
) {
    debug_assert_eq!(parents.len(), local.len());
    debug_assert_eq!(parents.len(), component.len());
    for i in 0..parents.len() {
        forward_kinematics_bone(parents, local, component, i);
    }
}

/// One bone of [`forward_kinematics`], its parent's matrix already current.
#[inline]
fn forward_kinematics_bone<M: ComponentMatrix>(
    parents: &[i32],
    local: &[Transform],
    component: &mut [M],
    i: usize,
) {
    let l = local[i].to_affine();
    component[i] = M::store(&match parents[i] {
        p if p >= 0 => component[p as usize].load() * l,
        _ => l,
    });
}

/// [`forward_kinematics`] over the bones `bones` only (parents first; every
/// listed bone's parent is listed too, or is a root).
pub fn forward_kinematics_of<M: ComponentMatrix>(
    parents: &[i32],
    local: &[Transform],
    component: &mut [M],
    bones: &[u32],
) {
    for &b in bones {
        forward_kinematics_bone(parents, local, component, b as usize);
    }
}

/// Component matrix of `parent` or identity for a root.
#[inline]
#[must_use]
pub fn parent_matrix<M: ComponentMatrix>(component: &[M], parent: i32) -> Affine3A {
    if parent >= 0 {
        component[parent as usize].load()
    } else {
        Affine3A::IDENTITY
    }
}

/// Writeback path A (docs/algorithms.md §1): a component-space displacement becomes a
/// parent-local displacement through the linear part of the **current**
/// parent's inverse. The parent translation never enters.
/// `Δ_L = linear(inverse(C_parent)) · Δ_C`.
#[inline]
#[must_use]
pub fn component_delta_to_local(parent: &Affine3A, delta_component: Vec3) -> Vec3 {
    // A general inverse, never a transpose: the block may carry non-uniform scale.
    parent.matrix3.inverse().mul_vec3(delta_component)
}

/// Writeback path B (docs/algorithms.md §1): a full corrected component matrix becomes a
/// local transform through the current parent: `L'_i = inverse(C_parent) · C'_i`.
#[must_use]
pub fn component_to_local(parent: &Affine3A, corrected: &Affine3A, sign_hint: Vec3) -> Decomposed {
    decompose(&(parent.inverse() * *corrected), sign_hint)
}

/// Linear 3×3 block as a `Mat3` (for callers that want to inspect it).
#[inline]
#[must_use]
pub fn linear(m: &Affine3A) -> Mat3 {
    Mat3::from(m.matrix3)
}

/// Clamp the **length** of `v` to `max_length` keeping its direction (docs/algorithms.md §3:
/// a vector length clamp, never per axis).
#[inline]
#[must_use]
pub fn limit_length(v: Vec3, max_length: f32) -> Vec3 {
    let len_sq = v.length_squared();
    if len_sq > max_length * max_length && len_sq > 0.0 {
        v * (max_length / len_sq.sqrt())
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::FRAC_PI_2;

    #[test]
    fn the_finite_checks_find_every_infinity_and_nan_and_pass_every_finite_float() {
        let finite = [
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE / 2.0,
            1.0,
            f32::MAX,
            f32::MIN,
            f32::from_bits(0x7f7f_ffff),
            f32::from_bits(0xff7f_ffff),
        ];
        let not = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xffff_ffff),
        ];
        let pose = |at: usize, v: f32| -> Vec<Transform> {
            let mut floats = [0.5f32; 30];
            floats[at] = v;
            bytemuck::cast_slice::<f32, Transform>(&floats).to_vec()
        };
        for at in 0..30 {
            for &v in &finite {
                let p = pose(at, v);
                assert!(all_finite(&p), "{v} at {at}");
                assert!(p.iter().all(Transform::is_finite), "{v} at {at}");
            }
            for &v in &not {
                let p = pose(at, v);
                assert!(!all_finite(&p), "{v} at {at}");
                assert!(!p[at / 10].is_finite(), "{v} at {at}");
                assert!(p
                    .iter()
                    .enumerate()
                    .all(|(i, t)| i == at / 10 || t.is_finite()));
            }
        }
        assert!(all_finite(&[]));
    }

    #[test]
    fn a_packed_frame_gives_back_the_bits_it_stored_and_the_same_kinematics() {
        let parents = [-1, 0, 1, 1, 3];
        let local: Vec<Transform> = (0..5)
            .map(|i| {
                let f = i as f32;
                Transform::new(
                    Vec3::new(0.1 * f, 1.0 - 0.3 * f, 0.7 * f),
                    Quat::from_euler(glam::EulerRot::XYZ, 0.3 * f, -0.2 * f, 1.1 + f),
                    Vec3::new(1.0 + 0.1 * f, 1.0, 1.0 - 0.05 * f),
                )
            })
            .collect();
        let mut wide = vec![Affine3A::IDENTITY; 5];
        let mut packed = vec![Frame::IDENTITY; 5];
        forward_kinematics(&parents, &local, &mut wide);
        forward_kinematics(&parents, &local, &mut packed);
        for (w, p) in wide.iter().zip(&packed) {
            assert_eq!(
                w.to_cols_array().map(f32::to_bits),
                p.load().to_cols_array().map(f32::to_bits)
            );
            assert_eq!(Frame::store(&p.load()), *p);
            assert_eq!(p.translation(), Vec3::from(w.translation));
        }
        assert_eq!(Frame::IDENTITY.load(), Affine3A::IDENTITY);
        assert_eq!(core::mem::size_of::<Frame>(), 48);
    }

    #[test]
    fn aim_without_decomposition_is_as_exact_as_the_decomposed_writeback() {
        // Parents that are rotations times a uniform scale take the fast
        // path; it must give the rotation the decomposition gives, for any
        // local scale (including a mirrored joint) and any swing.
        let (mut worst_fast, mut worst_slow) = (0.0f32, 0.0f32);
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        for case in 0..2000 {
            let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::Y);
            let parent = Affine3A::from_scale_rotation_translation(
                Vec3::splat(0.5 + 2.0 * next().abs()),
                Quat::from_axis_angle(axis, 3.0 * next()),
                Vec3::new(next(), next(), next()),
            );
            assert!(is_similarity(&parent.matrix3));
            let scale = if case % 3 == 0 {
                Vec3::new(1.0, 1.0, -1.0)
            } else {
                Vec3::new(1.0 + 0.5 * next().abs(), 0.7, 1.2)
            };
            let local = Transform::new(
                Vec3::new(next(), next(), next()),
                Quat::from_axis_angle(
                    Vec3::new(next(), next(), next()).normalize_or(Vec3::X),
                    3.0 * next(),
                ),
                scale,
            );
            let child = Vec3::new(next(), next(), next());
            let to = Vec3::new(next(), next(), next());
            let (Some(fast), Some(slow)) = (
                aim_local(&parent, &local, &local.to_affine(), child, to),
                aim_local_decomposed(&parent, &local, child, to),
            ) else {
                continue;
            };
            // Truth in f64: the swing taken in component space, then seen
            // from the parent (for a similarity parent the two agree exactly).
            let truth = {
                use glam::{DMat3, DQuat};
                let pm = DMat3::from_cols(
                    parent.matrix3.x_axis.as_dvec3(),
                    parent.matrix3.y_axis.as_dvec3(),
                    parent.matrix3.z_axis.as_dvec3(),
                );
                let lq = DQuat::from_array(local.rotation.map(f64::from)).normalize();
                let lm = DMat3::from_quat(lq) * DMat3::from_diagonal(local.scale().as_dvec3());
                let from = (pm * lm * child.as_dvec3()).normalize();
                let to = to.as_dvec3().normalize();
                let swing = DQuat::from_rotation_arc(from, to);
                let pr = DQuat::from_mat3(&DMat3::from_cols(
                    pm.x_axis.normalize(),
                    pm.y_axis.normalize(),
                    pm.z_axis.normalize(),
                ));
                let q = (pr.conjugate() * swing * pr * lq).normalize();
                Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
            };
            // 2·|q₁ ∓ q₂| is the angle between them, without acos's coarse
            // steps near 1.
            let angle = |a: Quat, b: Quat| 2.0 * (a - b).length().min((a + b).length());
            worst_fast = worst_fast.max(angle(fast, truth));
            worst_slow = worst_slow.max(angle(slow, truth));
        }
        eprintln!("writeback error: fast {worst_fast:e} rad, decomposed {worst_slow:e} rad");
        assert!(
            worst_fast < 1e-5 && worst_fast <= worst_slow,
            "fast writeback off by {worst_fast} rad (decomposed {worst_slow} rad)"
        );
    }

    #[test]
    fn only_rotations_times_a_uniform_scale_are_similarities() {
        let r = Quat::from_rotation_y(0.7);
        let m = |s: Vec3| glam::Mat3A::from_quat(r) * glam::Mat3A::from_diagonal(s);
        assert!(is_similarity(&m(Vec3::splat(3.0))));
        assert!(!is_similarity(&m(Vec3::new(1.0, 1.0, 1.01))), "non-uniform");
        assert!(!is_similarity(&m(Vec3::new(1.0, 1.0, -1.0))), "mirrored");
        assert!(!is_similarity(&m(Vec3::ZERO)), "degenerate");
        let mut sheared = m(Vec3::ONE);
        sheared.y_axis += sheared.x_axis * 0.01;
        assert!(!is_similarity(&sheared), "sheared");
    }

    #[test]
    fn writeback_through_parent_rotated_90_about_z() {
        // docs/algorithms.md §1 worked check: component (+1,0,0) becomes local (0,−1,0).
        let parent = Transform::new(
            Vec3::new(5.0, -3.0, 7.0), // parent translation must not enter
            Quat::from_rotation_z(FRAC_PI_2),
            Vec3::ONE,
        )
        .to_affine();
        let local = component_delta_to_local(&parent, Vec3::X);
        assert!(
            (local - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-6,
            "{local}"
        );
    }

    #[test]
    fn writeback_through_parent_scaled_by_two() {
        // docs/algorithms.md §1 worked check: along an axis scaled by 2, 1 component unit is 0.5 local.
        let parent = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::IDENTITY,
            Vec3::new(2.0, 1.0, 1.0),
        )
        .to_affine();
        let local = component_delta_to_local(&parent, Vec3::X);
        assert!(
            (local - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-7,
            "{local}"
        );
        // and an unscaled axis is untouched
        let local_y = component_delta_to_local(&parent, Vec3::Y);
        assert!((local_y - Vec3::Y).length() < 1e-7);
    }

    #[test]
    fn writeback_with_non_uniform_rotated_parent_is_not_a_transpose() {
        // A transpose would be wrong here: check the round trip instead.
        let parent = Transform::new(
            Vec3::ZERO,
            Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.3),
            Vec3::new(2.0, 0.5, 3.0),
        )
        .to_affine();
        let delta_c = Vec3::new(0.3, -0.2, 0.9);
        let delta_l = component_delta_to_local(&parent, delta_c);
        let back = parent.transform_vector3(delta_l);
        assert!((back - delta_c).length() < 1e-6);
        let transposed = Mat3::from(parent.matrix3).transpose() * delta_c;
        assert!((transposed - delta_l).length() > 0.1);
    }

    #[test]
    fn path_b_recovers_local_and_keeps_negative_scale_sign() {
        let parent = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_rotation_z(0.4),
            Vec3::new(1.5, 1.5, 1.5),
        )
        .to_affine();
        let local = Transform::new(
            Vec3::new(0.2, -0.1, 0.4),
            Quat::from_rotation_x(0.9),
            Vec3::new(-1.0, 2.0, 0.5),
        );
        let component = parent * local.to_affine();
        let d = component_to_local(&parent, &component, local.scale());
        assert!(!d.sheared);
        let t = d.transform;
        for i in 0..3 {
            assert!((t.translation[i] - local.translation[i]).abs() < 1e-5);
            assert!((t.scale[i] - local.scale[i]).abs() < 1e-5, "{:?}", t.scale);
        }
        assert!(t.rotation().dot(local.rotation()).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn trs_round_trip_through_matrix() {
        let t = Transform::new(
            Vec3::new(1.0, -2.0, 0.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
            Vec3::new(1.0, 3.0, 0.25),
        );
        let d = decompose(&t.to_affine(), t.scale());
        assert!(!d.sheared);
        assert!(d.transform.rotation().dot(t.rotation()).abs() > 1.0 - 1e-6);
        for i in 0..3 {
            assert!((d.transform.scale[i] - t.scale[i]).abs() < 1e-5);
        }
    }

    #[test]
    fn shear_is_detected() {
        // Non-uniform parent scale with a rotated child gives a sheared product.
        let parent = Transform::new(Vec3::ZERO, Quat::IDENTITY, Vec3::new(3.0, 1.0, 1.0));
        let child = Transform::new(Vec3::ZERO, Quat::from_rotation_z(0.6), Vec3::ONE);
        let product = parent.to_affine() * child.to_affine();
        assert!(decompose(&product, Vec3::ONE).sheared);
        assert!(!decompose(&child.to_affine(), Vec3::ONE).sheared);
    }

    #[test]
    fn length_clamp_keeps_direction() {
        // docs/algorithms.md §3: (3,4,0) limited to 2 → (1.2,1.6,0), not per-axis (2,2,0).
        let v = limit_length(Vec3::new(3.0, 4.0, 0.0), 2.0);
        assert!((v - Vec3::new(1.2, 1.6, 0.0)).length() < 1e-6, "{v}");
        assert!((v.length() - 2.0).abs() < 1e-6);
        assert_eq!(
            limit_length(Vec3::new(0.3, 0.4, 0.0), 2.0),
            Vec3::new(0.3, 0.4, 0.0)
        );
    }

    #[test]
    fn forward_kinematics_composes_parent_first() {
        let parents = [-1, 0, 1];
        let local = [
            Transform::new(
                Vec3::new(0.0, 1.0, 0.0),
                Quat::from_rotation_z(FRAC_PI_2),
                Vec3::ONE,
            ),
            Transform::from_translation(Vec3::new(1.0, 0.0, 0.0)),
            Transform::from_translation(Vec3::new(1.0, 0.0, 0.0)),
        ];
        let mut c = [Affine3A::IDENTITY; 3];
        forward_kinematics(&parents, &local, &mut c);
        let tip: Vec3 = c[2].translation.into();
        assert!((tip - Vec3::new(0.0, 3.0, 0.0)).length() < 1e-6, "{tip}");
    }
}

#[cfg(test)]
mod arc_tests {
    use super::*;

    /// The angle between two rotations without acos's loss near zero.
    fn angle(a: Quat, b: Quat) -> f32 {
        let d = a.conjugate() * b;
        2.0 * d.xyz().length().atan2(d.w.abs())
    }

    #[test]
    fn small_swings_are_exact_not_snapped() {
        for theta in [1e-5f32, 1e-4, 5e-4, 1e-2, 1.0, 3.0] {
            let from = Vec3::new(0.3, -0.8, 0.52).normalize();
            let axis = from.any_orthonormal_vector();
            let to = Quat::from_axis_angle(axis, theta) * from;
            let q = rotation_arc(from, to);
            assert!(
                (angle(Quat::IDENTITY, q) - theta).abs() < 1e-7 + 3e-7 * theta,
                "{theta}: {}",
                angle(Quat::IDENTITY, q)
            );
            assert!((q * from - to).length() < 1e-6, "{theta}");
        }
        // glam's own snaps below ~6.9e-4 rad: what this replaces.
        let from = Vec3::X;
        let to = Quat::from_rotation_z(1e-5) * from;
        assert_eq!(Quat::from_rotation_arc(from, to), Quat::IDENTITY);
        // Antiparallel: a half turn.
        let q = rotation_arc(Vec3::Y, -Vec3::Y);
        assert!((q * Vec3::Y + Vec3::Y).length() < 1e-6);
    }
}
