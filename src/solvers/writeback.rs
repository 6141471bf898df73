//! The chain writeback (docs/algorithms.md §7), the one every chain's
//! output goes through, 1 to [`W`] chains at once in lanes (#14 item 2,
//! "writeback rotations without a full matrix decomposition"; #49 item 3,
//! one writeback): every lane's arithmetic in one vector register per
//! value, as the chain kernel's lanes ([`lanes`]) step them. Like the chain
//! kernel it is written once over the lane width `N`: blocks of
//! [`LANES_FROM`] chains or more are written `W` wide, one or two chains
//! one lane wide ([`write_one`]; a lane step's fixed cost is more than
//! their writeback), from the same source and with the same bits. It
//! performs glam's operations in glam's order on this target (its SSE2 or
//! NEON quaternion product and normalisation, its `Quat * Vec3`), so that
//! its bits are those of the plain glam writeback its tests hold it to.
//!
//! Joint by joint, through a parent that is a similarity (a rotation times
//! a uniform scale: the chain's root parent is tested once, and a uniformly
//! scaled joint passes the property to its child), where the
//! component-space swing seen from the parent is the arc between the same
//! two directions seen from it, so no matrix is decomposed:
//!
//! - `head = P · t` (the joint's head; `P` its parent's component matrix,
//!   `t` its local translation),
//! - `to = Pᵀ · (W⁻¹ · carried − head)` (the particle, carried forward by the
//!   fraction of a substep the clock is past the state, seen from the
//!   parent; `W⁻¹` the simulation world's inverse),
//! - `from = r · (s ∘ child)` (the child offset as the joint turns it now),
//! - `r' = normalize(arc(from̂, tô) · r)`, and the joint's component matrix
//!   `P · R(r') · S` is the next joint's parent.
//!
//! Three things are finished lane by lane with glam, in the same source
//! for every width, where a lane needs them ([`finish_joint`]): a parent
//! that is not a similarity (sheared or non-uniformly scaled: the swing is
//! applied in component space and the joint's rotation recovered by
//! decomposition, [`math::aim_local`]), a weight below 1 (authored tracks
//! win, docs/algorithms.md §8: a slerp from the input's rotation) and the
//! skin guard ([`Chain::guard`]).

// Index loops over the lanes are the form LLVM vectorises most reliably.
#![allow(clippy::needless_range_loop)]

use glam::{Affine3A, Quat, Vec3};

use crate::math::{self, Transform};
use crate::solvers::lanes::{cross, ChainKernel, F, Q, V3, W};

/// A 3×3 matrix per lane, by columns, and a translation.
#[derive(Clone, Copy)]
struct A<const N: usize = W> {
    x: V3<N>,
    y: V3<N>,
    z: V3<N>,
    t: V3<N>,
}

impl<const N: usize> A<N> {
    #[inline(always)]
    fn zero() -> Self {
        A {
            x: V3::zero(),
            y: V3::zero(),
            z: V3::zero(),
            t: V3::zero(),
        }
    }
    #[inline(always)]
    fn set(&mut self, l: usize, m: &Affine3A) {
        self.x.set(l, m.matrix3.x_axis.into());
        self.y.set(l, m.matrix3.y_axis.into());
        self.z.set(l, m.matrix3.z_axis.into());
        self.t.set(l, m.translation.into());
    }
    #[inline(always)]
    fn get(&self, l: usize) -> Affine3A {
        Affine3A::from_cols(
            self.x.get(l).into(),
            self.y.get(l).into(),
            self.z.get(l).into(),
            self.t.get(l).into(),
        )
    }
    /// The linear part times `v`.
    #[inline(always)]
    fn linear(&self, v: V3<N>) -> V3<N> {
        self.x * v.x + self.y * v.y + self.z * v.z
    }
    /// The transposed linear part times `v`.
    #[inline(always)]
    fn linear_transposed(&self, v: V3<N>) -> V3<N> {
        V3 {
            x: self.x.dot(v),
            y: self.y.dot(v),
            z: self.z.dot(v),
        }
    }
    /// `self · v` for a point.
    #[inline(always)]
    fn point(&self, v: V3<N>) -> V3<N> {
        self.linear(v) + self.t
    }
}

/// One lane's chain: what its writeback reads once.
#[derive(Clone, Copy)]
pub(crate) struct Chain {
    /// Joints in the chain.
    pub(crate) len: usize,
    /// The component matrix of the chain root's parent.
    pub(crate) parent: Affine3A,
    /// The simulation world's inverse (world positions to component space).
    pub(crate) world_inverse: Affine3A,
    /// Fraction of a substep the clock is past the state (0 to 1).
    pub(crate) ahead: f32,
    /// The chain's weight (`ChainParams::weight`), times each joint's.
    pub(crate) weight: f32,
    /// Under the skin guard (`ChainParams::key_margin`): the sine of half
    /// the margin, and the share of the guarded rotation (0 to 1, the
    /// guard coming on or going off).
    pub(crate) guard: Option<(f32, f32)>,
}

/// One joint of one lane's chain.
#[derive(Clone, Copy)]
pub(crate) struct Joint {
    /// The joint's local transform (its rotation as the pose holds it).
    pub(crate) rotation: [f32; 4],
    pub(crate) scale: Vec3,
    pub(crate) translation: Vec3,
    /// The child's offset in the joint's frame (the next joint's
    /// translation, or the chain's end offset).
    pub(crate) child: Vec3,
    /// The particle and its position before the last substep.
    pub(crate) position: Vec3,
    pub(crate) previous: Vec3,
    /// The joint's weight (`ChainSetup::weights`).
    pub(crate) weight: f32,
}

/// Where the chains' joints come from and go.
pub(crate) trait Joints {
    /// Joint `k` of lane `l`'s chain.
    fn joint(&self, l: usize, k: usize) -> Joint;
    /// Joint `k`'s reference rotation (the skin guard's), lane `l`.
    fn reference(&self, l: usize, k: usize) -> Quat;
    /// Its new local rotation and component matrix.
    fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A);
}

/// Fewest chains a block writes back `W` wide: below it, each is written
/// one lane wide ([`write_one`]). Where 8 wide starts to pay (cachegrind,
/// one character of N hair strands updated alone, instructions per
/// joint-substep, measured against a glam writeback of the same
/// arithmetic: 2 strands 1,934 through glam and 2,029 8 wide; 3 strands
/// 1,866 and 1,868).
pub(crate) const LANES_FROM: usize = 3;

/// Writes back the chains `chains` (one per lane, 1 to [`W`]) `W` wide (the
/// stage sends [`LANES_FROM`] or more).
pub(crate) fn write(kernel: ChainKernel, chains: &[Chain], joints: &mut impl Joints) {
    debug_assert!(!chains.is_empty() && chains.len() <= W);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        ChainKernel::LanesAvx2 => {
            // SAFETY: the stage selects LanesAvx2 only where
            // `ChainKernel::supported` found AVX2 at run time.
            unsafe { write_avx2(chains, joints) }
        }
        _ => write_chains::<W>(chains, joints),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_avx2(chains: &[Chain], joints: &mut impl Joints) {
    write_chains::<W>(chains, joints);
}

/// Writes back one chain (lane 0 of `joints`): the same writeback one lane
/// wide, for blocks with fewer than [`LANES_FROM`] chains.
pub(crate) fn write_one(chain: &Chain, joints: &mut impl Joints) {
    write_chains::<1>(core::slice::from_ref(chain), joints);
}

#[inline(always)]
fn write_chains<const N: usize>(chains: &[Chain], joints: &mut impl Joints) {
    let mut parent = A::<N>::zero();
    let mut world_inverse = A::<N>::zero();
    let mut ahead = F::<N>::splat(0.0);
    // Whether lane `l`'s joint has a similarity parent, and whether its
    // chain is weighted or guarded ([`finish_joint`] then finishes it).
    let mut similar = [false; N];
    let mut plain = [false; N];
    for (l, c) in chains.iter().enumerate() {
        parent.set(l, &c.parent);
        world_inverse.set(l, &c.world_inverse);
        ahead.0[l] = c.ahead;
        similar[l] = math::is_similarity(&c.parent.matrix3);
        plain[l] = c.weight >= 1.0 && c.guard.is_none();
    }
    let n_max = chains.iter().map(|c| c.len).max().unwrap_or(0);
    let one = F::<N>::splat(1.0);
    for k in 0..n_max {
        let mut raw = Q::<N>::zero();
        let (mut scale, mut translation, mut child) =
            (V3::<N>::zero(), V3::<N>::zero(), V3::<N>::zero());
        let (mut position, mut previous) = (V3::<N>::zero(), V3::<N>::zero());
        // The joints this step finishes lane by lane (kept from the
        // gather), and each lane's similarity for the next joint (this
        // joint uniformly scaled).
        let mut special: [Option<Joint>; N] = [None; N];
        let mut next_similar = [false; N];
        for (l, c) in chains.iter().enumerate() {
            if k >= c.len {
                continue;
            }
            let j = joints.joint(l, k);
            raw.set(l, j.rotation);
            scale.set(l, j.scale);
            translation.set(l, j.translation);
            child.set(l, j.child);
            position.set(l, j.position);
            previous.set(l, j.previous);
            next_similar[l] = similar[l] && math::is_uniform_scale(j.scale);
            if !(similar[l] && plain[l] && j.weight >= 1.0) {
                special[l] = Some(j);
            }
        }
        let rotation = raw.normalize();
        let head = parent.point(translation);
        let carried = position + (position - previous) * ahead;
        let to_component = world_inverse.point(carried) - head;
        let swung = rotation.rotate(V3 {
            x: scale.x * child.x,
            y: scale.y * child.y,
            z: scale.z * child.z,
        });
        let (from_dir, from_ok) = swung.try_normalize();
        let (to, to_ok) = parent.linear_transposed(to_component).try_normalize();
        // The arc from `from` to `to` (math::rotation_arc): the half-angle
        // form, exact for small angles; glam's turn about an orthogonal
        // axis for antiparallel directions.
        let dot = from_dir.dot(to);
        let c = cross(from_dir, to);
        let mut arc = Q {
            x: c.x,
            y: c.y,
            z: c.z,
            w: one + dot,
        }
        .normalize();
        let antiparallel = dot.lt(F::<N>::splat(-1.0 + 1e-6));
        if antiparallel.any() {
            for l in 0..chains.len() {
                if antiparallel.get(l) {
                    let q = Quat::from_rotation_arc(from_dir.get(l), to.get(l));
                    arc.set(l, q.to_array());
                }
            }
        }
        let solved = arc.mul(rotation).normalize();
        // Never a non-finite output, and a degenerate direction leaves the
        // joint as animated.
        let found = from_ok.and(to_ok);
        let mut result = Q::select(found.and(solved.finite()), solved, raw);
        for (l, c) in chains.iter().enumerate() {
            if let Some(j) = &special[l] {
                let found = found.get(l).then(|| Quat::from_array(solved.get(l)));
                let out = finish_joint(
                    c,
                    j,
                    (similar[l], &parent.get(l), to_component.get(l)),
                    (Quat::from_array(rotation.get(l)), found),
                    || joints.reference(l, k),
                );
                result.set(l, out);
            }
        }
        // `P · R(result) · S`, its translation the head.
        let r = result.normalize();
        let (x2, y2, z2) = (r.x + r.x, r.y + r.y, r.z + r.z);
        let (xx, xy, xz) = (r.x * x2, r.x * y2, r.x * z2);
        let (yy, yz, zz) = (r.y * y2, r.y * z2, r.z * z2);
        let (wx, wy, wz) = (r.w * x2, r.w * y2, r.w * z2);
        let column = |x: F<N>, y: F<N>, z: F<N>, s: F<N>| V3 {
            x: x * s,
            y: y * s,
            z: z * s,
        };
        let rx = column(one - (yy + zz), xy + wz, xz - wy, scale.x);
        let ry = column(xy - wz, one - (xx + zz), yz + wx, scale.y);
        let rz = column(xz + wy, yz - wx, one - (xx + yy), scale.z);
        // The joint's matrix is the next joint's parent: written over the
        // parent in place (built apart and copied, it went through a
        // 384-byte `memcpy` call per joint).
        let (x, y, z) = (parent.linear(rx), parent.linear(ry), parent.linear(rz));
        parent.x = x;
        parent.y = y;
        parent.z = z;
        parent.t = head;
        for (l, c) in chains.iter().enumerate() {
            if k < c.len {
                joints.write(l, k, result.get(l), parent.get(l));
            }
        }
        similar = next_similar;
    }
}

/// One lane's joint finished with glam where the lanes' arithmetic stops
/// short: through a parent that is not a similarity (`similar` false; the
/// swing applied in component space and the rotation recovered by
/// decomposition, [`math::aim_local`], from `to`, the particle's offset
/// from the head in component space), at a weight below 1 (a slerp from
/// the input's rotation; at 0 the joint stays as animated) and under the
/// skin guard. From the lanes: `rotation`, the input's rotation
/// normalised (glam's bits), and `lanes`, their swing (`None`: a
/// degenerate direction). A non-finite result leaves the joint as
/// animated.
fn finish_joint(
    chain: &Chain,
    j: &Joint,
    (similar, parent, to): (bool, &Affine3A, Vec3),
    (rotation, lanes): (Quat, Option<Quat>),
    reference: impl FnOnce() -> Quat,
) -> [f32; 4] {
    let w = chain.weight * j.weight;
    let solved = if w <= 0.0 {
        None
    } else if similar {
        lanes
    } else {
        let local = Transform {
            translation: j.translation.to_array(),
            rotation: j.rotation,
            scale: j.scale.to_array(),
        };
        math::aim_local(parent, &local, &local.to_affine(), j.child, to)
    };
    let Some(solved) = solved else {
        return j.rotation;
    };
    let mut blended = if w >= 1.0 {
        solved
    } else {
        rotation.slerp(solved, w)
    };
    if let Some((margin, share)) = chain.guard {
        let held = skin_guard(reference(), rotation, blended, margin);
        // Coming on or going off (`ChainClock::guard`): part of the way
        // from the unguarded rotation to the held one.
        blended = if share >= 1.0 {
            held
        } else {
            blended.slerp(held, share)
        };
    }
    if blended.is_finite() {
        blended.to_array()
    } else {
        j.rotation
    }
}

/// The skin guard (docs/algorithms.md §7 "The skin guard"): `rotation`, a
/// joint's output local rotation, held within the box that the input's
/// local rotation `key` spans about the reference rotation `reference`,
/// axis by axis of the reference frame. With `q = reference⁻¹ · rotation`
/// and `k = reference⁻¹ · key` (each with w ≥ 0), every component of q's
/// vector part (the sine of half the turn times the axis) is clamped to
/// the interval from 0 to k's component, widened by `margin` on each side
/// (`margin`: the sine of half [`ChainParams::key_margin`](crate::solvers::chain::ChainParams::key_margin)), and w
/// recomputed: about no axis does the joint turn farther from its
/// reference than the input, nor to the other side of it. A rotation
/// within the box comes back unchanged, bit for bit. Products, a clamp and
/// square roots only: the same bits on every path that calls it.
pub(crate) fn skin_guard(reference: Quat, key: Quat, rotation: Quat, margin: f32) -> Quat {
    let reference = reference.normalize();
    let inverse = reference.conjugate();
    let half = |q: Quat| {
        let q = inverse * q;
        if q.w < 0.0 {
            -q
        } else {
            q
        }
    };
    let (k, q) = (half(key), half(rotation));
    let kv = Vec3::new(k.x, k.y, k.z);
    let v = Vec3::new(q.x, q.y, q.z);
    let held = v.clamp(
        kv.min(Vec3::ZERO) - Vec3::splat(margin),
        kv.max(Vec3::ZERO) + Vec3::splat(margin),
    );
    if held == v {
        return rotation;
    }
    let w = (1.0 - held.length_squared()).max(0.0).sqrt();
    let out = (reference * Quat::from_xyzw(held.x, held.y, held.z, w)).normalize();
    // On the input's hemisphere, so that keys baked from it interpolate
    // the short way.
    if out.dot(rotation) < 0.0 {
        -out
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{self, Transform};

    /// A small deterministic generator (xorshift), values in [-1, 1).
    struct Rng(u32);
    impl Rng {
        fn f(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            (self.0 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        }
        fn v(&mut self) -> Vec3 {
            Vec3::new(self.f(), self.f(), self.f())
        }
        fn q(&mut self) -> Quat {
            Quat::from_xyzw(self.f(), self.f(), self.f(), self.f() + 1.5).normalize()
        }
    }

    /// A lane's chain: joints, end offset, particles, positions before,
    /// joint weights.
    type TestChain = (Vec<u32>, Vec3, Vec<Vec3>, Vec<Vec3>, Vec<f32>);

    /// Chains over one pose and its reference pose; `write` records the
    /// output.
    struct Chains {
        local: Vec<Transform>,
        reference: Vec<Quat>,
        chains: Vec<TestChain>,
        out: Vec<Vec<([f32; 4], Affine3A)>>,
    }

    impl Joints for Chains {
        fn joint(&self, l: usize, k: usize) -> Joint {
            let (joints, end, position, previous, weights) = &self.chains[l];
            let t = &self.local[joints[k] as usize];
            Joint {
                rotation: t.rotation,
                scale: t.scale(),
                translation: t.translation(),
                child: joints
                    .get(k + 1)
                    .map_or(*end, |&n| self.local[n as usize].translation()),
                position: position[k],
                previous: previous[k],
                weight: weights[k],
            }
        }
        fn reference(&self, l: usize, k: usize) -> Quat {
            self.reference[self.chains[l].0[k] as usize]
        }
        fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A) {
            assert_eq!(self.out[l].len(), k, "joints in order");
            self.out[l].push((rotation, component));
        }
    }

    /// The writeback written plainly with glam, joint by joint (lane `l`):
    /// the swing seen from a similarity parent ([`math::aim_local_similar`])
    /// or applied in component space and decomposed ([`math::aim_local`]),
    /// the weights' slerp and the skin guard.
    fn reference(c: &Chains, chain: &Chain, l: usize) -> Vec<([f32; 4], Affine3A)> {
        let mut parent = chain.parent;
        let mut similar = math::is_similarity(&parent.matrix3);
        let mut out = Vec::new();
        for k in 0..chain.len {
            let j = c.joint(l, k);
            let local = Transform {
                translation: j.translation.to_array(),
                rotation: j.rotation,
                scale: j.scale.to_array(),
            };
            let rotation = Quat::from_array(j.rotation).normalize();
            let head = parent.transform_point3(j.translation);
            let carried = j.position + (j.position - j.previous) * chain.ahead;
            let to = chain.world_inverse.transform_point3(carried) - head;
            let w = chain.weight * j.weight;
            let solved = if w <= 0.0 {
                None
            } else if similar {
                math::aim_local_similar(rotation, j.scale, j.child, parent.matrix3.transpose() * to)
            } else {
                math::aim_local(&parent, &local, &local.to_affine(), j.child, to)
            };
            let mut result = j.rotation;
            if let Some(solved) = solved {
                let mut blended = if w >= 1.0 {
                    solved
                } else {
                    rotation.slerp(solved, w)
                };
                if let Some((margin, share)) = chain.guard {
                    let held = skin_guard(c.reference(l, k), rotation, blended, margin);
                    blended = if share >= 1.0 {
                        held
                    } else {
                        blended.slerp(held, share)
                    };
                }
                if blended.is_finite() {
                    result = blended.to_array();
                }
            }
            let r = glam::Mat3A::from_quat(Quat::from_array(result).normalize());
            let m = Affine3A {
                matrix3: parent.matrix3
                    * glam::Mat3A::from_cols(
                        r.x_axis * j.scale.x,
                        r.y_axis * j.scale.y,
                        r.z_axis * j.scale.z,
                    ),
                translation: head.into(),
            };
            out.push((result, m));
            parent = m;
            similar = similar && math::is_uniform_scale(j.scale);
        }
        out
    }

    fn bits(q: [f32; 4], m: &Affine3A) -> Vec<u32> {
        q.iter()
            .chain(m.to_cols_array().iter())
            .map(|x| x.to_bits())
            .collect()
    }

    fn kernels() -> Vec<ChainKernel> {
        let mut k = vec![ChainKernel::Lanes];
        if ChainKernel::LanesAvx2.supported() {
            k.push(ChainKernel::LanesAvx2);
        }
        k
    }

    /// What each round's chains hold, counted over the test.
    #[derive(Default, Debug)]
    struct Seen {
        joints: usize,
        not_similar: usize,
        weighted: usize,
        guarded: usize,
        held: usize,
    }

    #[test]
    fn lanes_write_the_plain_glam_writebacks_bits() {
        let mut rng = Rng(0x1234_5678);
        let mut seen = Seen::default();
        for round in 0..90 {
            // 2 to 8 lanes, 1 to 11 joints each, one pose.
            let lanes = 2 + round % (W - 1);
            let mut c = Chains {
                local: Vec::new(),
                reference: Vec::new(),
                chains: Vec::new(),
                out: vec![Vec::new(); lanes],
            };
            for l in 0..lanes {
                let n = 1 + (round * 3 + l * 5) % 11;
                let s = 0.5 + rng.f().abs();
                let first = c.local.len() as u32;
                for k in 0..n {
                    // Now and then a joint scaled unevenly: its children
                    // have a parent that is not a similarity.
                    let scale = if (round + l + k) % 7 == 3 {
                        Vec3::new(s, s * 1.3, s * 0.8)
                    } else {
                        Vec3::splat(s)
                    };
                    let mut t = Transform::new(rng.v() * 0.2, rng.q(), scale);
                    // A degenerate child offset now and then: the joint
                    // keeps its rotation.
                    if (round + k) % 13 == 0 {
                        t.translation = [0.0; 3];
                    }
                    // A rotation off unit length, as a pose may hold it.
                    t.rotation = (Quat::from_array(t.rotation) * 1.0005).to_array();
                    c.local.push(t);
                    // The reference a small turn from the pose.
                    c.reference.push(
                        Quat::from_array(t.rotation).normalize()
                            * rng.q().slerp(Quat::IDENTITY, 0.8),
                    );
                }
                let position: Vec<Vec3> = (0..n).map(|_| rng.v()).collect();
                let previous = position.iter().map(|p| *p - rng.v() * 0.01).collect();
                let weights = (0..n)
                    .map(|k| match (round + l * 3 + k) % 9 {
                        0 => 0.0,
                        1 => 0.4,
                        _ => 1.0,
                    })
                    .collect();
                c.chains.push((
                    (first..first + n as u32).collect(),
                    rng.v() * 0.1,
                    position,
                    previous,
                    weights,
                ));
            }
            let chains: Vec<Chain> = (0..lanes)
                .map(|l| {
                    let mut parent = Affine3A::from_scale_rotation_translation(
                        Vec3::splat(0.7 + rng.f().abs()),
                        rng.q(),
                        rng.v(),
                    );
                    // A sheared root parent now and then.
                    if (round + l) % 5 == 2 {
                        parent.matrix3.x_axis += parent.matrix3.y_axis * 0.3;
                    }
                    Chain {
                        len: c.chains[l].0.len(),
                        parent,
                        world_inverse: Affine3A::from_scale_rotation_translation(
                            Vec3::splat(0.7 + rng.f().abs()),
                            rng.q(),
                            rng.v(),
                        ),
                        ahead: rng.f().abs(),
                        weight: if (round + l) % 6 == 1 { 0.7 } else { 1.0 },
                        guard: match (round + 2 * l) % 4 {
                            0 => Some((0.02, 1.0)),
                            1 => Some((0.0, 0.5)),
                            _ => None,
                        },
                    }
                })
                .collect();
            for (l, chain) in chains.iter().enumerate() {
                let want = reference(&c, chain, l);
                seen.guarded += usize::from(chain.guard.is_some()) * want.len();
                for (k, (q, _)) in want.iter().enumerate() {
                    let j = c.joint(l, k);
                    seen.weighted += usize::from(chain.weight * j.weight < 1.0);
                    if chain.guard.is_some() {
                        // The guard moved the joint off its unguarded swing.
                        let unguarded = reference(
                            &c,
                            &Chain {
                                guard: None,
                                ..*chain
                            },
                            l,
                        );
                        seen.held += usize::from(unguarded[k].0 != *q);
                    }
                }
                let mut parent = chain.parent;
                for (q, m) in &want {
                    seen.not_similar += usize::from(!math::is_similarity(&parent.matrix3));
                    let _ = q;
                    parent = *m;
                }
            }
            for kernel in kernels() {
                c.out = vec![Vec::new(); lanes];
                write(kernel, &chains, &mut c);
                for (l, chain) in chains.iter().enumerate() {
                    let want = reference(&c, chain, l);
                    assert_eq!(c.out[l].len(), want.len());
                    for (k, (got, want)) in c.out[l].iter().zip(&want).enumerate() {
                        assert_eq!(
                            bits(got.0, &got.1),
                            bits(want.0, &want.1),
                            "{kernel:?} round {round} lane {l} joint {k}: {got:?} against {want:?}"
                        );
                        seen.joints += 1;
                    }
                }
            }
            // One lane wide, each chain alone (blocks below LANES_FROM).
            c.out = vec![Vec::new(); lanes];
            for (l, chain) in chains.iter().enumerate() {
                write_one(chain, &mut One { c: &mut c, l });
            }
            for (l, chain) in chains.iter().enumerate() {
                let want = reference(&c, chain, l);
                assert_eq!(c.out[l].len(), want.len());
                for (k, (got, want)) in c.out[l].iter().zip(&want).enumerate() {
                    assert_eq!(
                        bits(got.0, &got.1),
                        bits(want.0, &want.1),
                        "one lane wide, round {round} chain {l} joint {k}"
                    );
                    seen.joints += 1;
                }
            }
        }
        // Every case the writeback finishes lane by lane came up, often.
        assert!(
            seen.joints > 1000
                && seen.not_similar > 100
                && seen.weighted > 100
                && seen.guarded > 100
                && seen.held > 50,
            "{seen:?}"
        );
    }

    /// Lane `l` of [`Chains`] as lane 0 (a chain written one lane wide).
    struct One<'a> {
        c: &'a mut Chains,
        l: usize,
    }

    impl Joints for One<'_> {
        fn joint(&self, l: usize, k: usize) -> Joint {
            assert_eq!(l, 0);
            self.c.joint(self.l, k)
        }
        fn reference(&self, l: usize, k: usize) -> Quat {
            assert_eq!(l, 0);
            self.c.reference(self.l, k)
        }
        fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A) {
            assert_eq!(l, 0);
            self.c.write(self.l, k, rotation, component);
        }
    }

    #[test]
    fn a_particle_straight_back_turns_the_joint_half_a_turn() {
        // Lane 0 points up (its child 1 up), its particle 1 down: the
        // antiparallel arc, glam's turn about an axis orthogonal to it.
        // Lane 1 swings a quarter turn.
        let mut c = Chains {
            local: vec![Transform::IDENTITY, Transform::IDENTITY],
            reference: vec![Quat::IDENTITY; 2],
            chains: vec![
                (
                    vec![0],
                    Vec3::Y,
                    vec![Vec3::NEG_Y],
                    vec![Vec3::NEG_Y],
                    vec![1.0],
                ),
                (vec![1], Vec3::Y, vec![Vec3::X], vec![Vec3::X], vec![1.0]),
            ],
            out: vec![Vec::new(); 2],
        };
        let chain = Chain {
            len: 1,
            parent: Affine3A::IDENTITY,
            world_inverse: Affine3A::IDENTITY,
            ahead: 0.0,
            weight: 1.0,
            guard: None,
        };
        for kernel in kernels() {
            c.out = vec![Vec::new(); 2];
            write(kernel, &[chain, chain], &mut c);
            for (l, to) in [(0, Vec3::NEG_Y), (1, Vec3::X)] {
                let q = Quat::from_array(c.out[l][0].0);
                assert!((q * Vec3::Y - to).length() < 1e-6, "{q:?}");
                assert_eq!(c.out[l][0].0, reference(&c, &chain, l)[0].0);
            }
        }
    }

    #[test]
    fn lanes_turn_vectors_as_glam_does() {
        let mut rng = Rng(0x9e37_79b9);
        for _ in 0..1000 {
            let mut q = Q::<W>::zero();
            let mut v = V3::<W>::zero();
            let mut want = [Vec3::ZERO; W];
            for l in 0..W {
                let (a, b) = (rng.q(), rng.v() * 10.0);
                q.set(l, a.to_array());
                v.set(l, b);
                want[l] = a * b;
            }
            let got = q.rotate(v);
            for l in 0..W {
                assert_eq!(got.get(l).to_array(), want[l].to_array());
            }
        }
    }

    fn vector(q: Quat) -> Vec3 {
        let q = if q.w < 0.0 { -q } else { q };
        Vec3::new(q.x, q.y, q.z)
    }

    #[test]
    fn the_skin_guard_holds_each_axis_between_the_reference_and_the_key() {
        let reference = Quat::from_rotation_z(0.4) * Quat::from_rotation_x(-0.2);
        let key = reference * Quat::from_rotation_x(0.6) * Quat::from_rotation_y(-0.3);
        let k = vector(reference.conjugate() * key);
        // Inside the box: the same bits back.
        let inside = reference * Quat::from_rotation_x(0.3) * Quat::from_rotation_y(-0.1);
        assert_eq!(skin_guard(reference, key, inside, 0.0), inside);
        assert_eq!(skin_guard(reference, key, -inside, 0.0), -inside);
        // Past the key about x, across the reference about y, off about z.
        let outside = reference * Quat::from_euler(glam::EulerRot::XYZ, 0.9, 0.2, 0.3);
        let held = skin_guard(reference, key, outside, 0.0);
        let h = vector(reference.conjugate() * held);
        assert!((h.x - k.x).abs() < 1e-6, "{h} against {k}");
        assert!(h.y.abs() < 1e-6 && h.z.abs() < 1e-6, "{h}");
        assert!((held.length() - 1.0).abs() < 1e-6);
        // On the input's hemisphere.
        assert!(skin_guard(reference, key, -outside, 0.0).dot(-outside) > 0.0);
        // A margin widens each side by its half-angle sine.
        let m = 0.05f32;
        let h = vector(reference.conjugate() * skin_guard(reference, key, outside, m));
        let o = vector(reference.conjugate() * outside);
        assert!((h.x - (k.x + m)).abs() < 1e-6, "{h}");
        assert!(
            o.y < m && (h.y - o.y).abs() < 1e-6,
            "within the margin: {h} {o}"
        );
        assert!(o.z > m && (h.z - m).abs() < 1e-6, "{h} {o}");
        // A key at the reference holds the joint there.
        let at_reference = skin_guard(reference, reference, outside, 0.0);
        assert!(at_reference.angle_between(reference) < 1e-3);
    }
}
