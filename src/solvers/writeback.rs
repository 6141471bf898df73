//! The chain writeback (docs/algorithms.md §7) for 3 to [`W`] chains at once, in lanes
//! (#14 item 2, "writeback rotations without a full matrix
//! decomposition"): every lane's arithmetic in one vector register per
//! value, as the chain kernel's lanes ([`lanes`]) step them. It performs
//! glam's operations in glam's order on this target (its SSE2 or NEON
//! quaternion product and normalisation, its `Quat * Vec3`), so a chain
//! gives the same bits here as through `chain_stage::write_joints`. Like
//! the chain kernel it is written once over the lane width `N`: blocks of
//! [`LANES_FROM`] chains or more are written `W` wide, one or two chains
//! one lane wide ([`write_one`]; a lane step's fixed cost is more than
//! their writeback), from the same source and with the same bits.
//!
//! For a chain whose root parent is a rotation times a uniform scale and
//! whose joints are uniformly scaled (every joint's parent is then such a
//! similarity, so the component-space swing seen from the parent is the
//! arc between the same two directions seen from it, and no matrix is
//! decomposed), joint by joint:
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
//! A chain that does not qualify (a sheared or non-uniformly scaled parent,
//! a weight below 1) goes through `chain_stage::write_joints`, joint by
//! joint with glam.

// Index loops over the lanes are the form LLVM vectorises most reliably.
#![allow(clippy::needless_range_loop)]

use glam::{Affine3A, Quat, Vec3};

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
}

/// Where the chains' joints come from and go.
pub(crate) trait Joints {
    /// Joint `k` of lane `l`'s chain.
    fn joint(&self, l: usize, k: usize) -> Joint;
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
    for (l, c) in chains.iter().enumerate() {
        parent.set(l, &c.parent);
        world_inverse.set(l, &c.world_inverse);
        ahead.0[l] = c.ahead;
    }
    let n_max = chains.iter().map(|c| c.len).max().unwrap_or(0);
    let one = F::<N>::splat(1.0);
    for k in 0..n_max {
        let mut raw = Q::<N>::zero();
        let (mut scale, mut translation, mut child) =
            (V3::<N>::zero(), V3::<N>::zero(), V3::<N>::zero());
        let (mut position, mut previous) = (V3::<N>::zero(), V3::<N>::zero());
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
        }
        let rotation = raw.normalize();
        let head = parent.point(translation);
        let carried = position + (position - previous) * ahead;
        let to = world_inverse.point(carried) - head;
        let swung = rotation.rotate(V3 {
            x: scale.x * child.x,
            y: scale.y * child.y,
            z: scale.z * child.z,
        });
        let (from_dir, from_ok) = swung.try_normalize();
        let (to, to_ok) = parent.linear_transposed(to).try_normalize();
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
        let ok = from_ok.and(to_ok).and(solved.finite());
        let result = Q::select(ok, solved, raw);
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
        let joint = A {
            x: parent.linear(rx),
            y: parent.linear(ry),
            z: parent.linear(rz),
            t: head,
        };
        for (l, c) in chains.iter().enumerate() {
            if k < c.len {
                joints.write(l, k, result.get(l), joint.get(l));
            }
        }
        parent = joint;
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

    /// A lane's chain: joints, end offset, particles, positions before.
    type TestChain = (Vec<u32>, Vec3, Vec<Vec3>, Vec<Vec3>);

    /// Chains over one pose; `write` records the output.
    struct Chains {
        local: Vec<Transform>,
        chains: Vec<TestChain>,
        out: Vec<Vec<([f32; 4], Affine3A)>>,
    }

    impl Joints for Chains {
        fn joint(&self, l: usize, k: usize) -> Joint {
            let (joints, end, position, previous) = &self.chains[l];
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
            }
        }
        fn write(&mut self, l: usize, k: usize, rotation: [f32; 4], component: Affine3A) {
            assert_eq!(self.out[l].len(), k, "joints in order");
            self.out[l].push((rotation, component));
        }
    }

    /// `chain_stage::write_joints`' similarity branch (glam), lane `l`.
    fn reference(c: &Chains, chain: &Chain, l: usize) -> Vec<([f32; 4], Affine3A)> {
        let mut parent = chain.parent;
        let mut out = Vec::new();
        for k in 0..chain.len {
            let j = c.joint(l, k);
            let raw = Quat::from_array(j.rotation);
            let rotation = raw.normalize();
            let head = parent.transform_point3(j.translation);
            let carried = j.position + (j.position - j.previous) * chain.ahead;
            let to = chain.world_inverse.transform_point3(carried) - head;
            let mut result = j.rotation;
            if let Some(q) =
                math::aim_local_similar(rotation, j.scale, j.child, parent.matrix3.transpose() * to)
            {
                if q.is_finite() {
                    result = q.to_array();
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

    #[test]
    fn lanes_write_the_glam_paths_bits() {
        let mut rng = Rng(0x1234_5678);
        let mut joints_compared = 0;
        for round in 0..60 {
            // 2 to 8 lanes, 1 to 11 joints each, one pose.
            let lanes = 2 + round % (W - 1);
            let mut c = Chains {
                local: Vec::new(),
                chains: Vec::new(),
                out: vec![Vec::new(); lanes],
            };
            for l in 0..lanes {
                let n = 1 + (round * 3 + l * 5) % 11;
                let s = 0.5 + rng.f().abs();
                let first = c.local.len() as u32;
                for k in 0..n {
                    let mut t = Transform::new(rng.v() * 0.2, rng.q(), Vec3::splat(s));
                    // A degenerate child offset now and then: the joint
                    // keeps its rotation.
                    if (round + k) % 13 == 0 {
                        t.translation = [0.0; 3];
                    }
                    // A rotation off unit length, as a pose may hold it.
                    t.rotation = (Quat::from_array(t.rotation) * 1.0005).to_array();
                    c.local.push(t);
                }
                let position: Vec<Vec3> = (0..n).map(|_| rng.v()).collect();
                let previous = position.iter().map(|p| *p - rng.v() * 0.01).collect();
                c.chains.push((
                    (first..first + n as u32).collect(),
                    rng.v() * 0.1,
                    position,
                    previous,
                ));
            }
            let affine = |rng: &mut Rng| {
                Affine3A::from_scale_rotation_translation(
                    Vec3::splat(0.7 + rng.f().abs()),
                    rng.q(),
                    rng.v(),
                )
            };
            let chains: Vec<Chain> = (0..lanes)
                .map(|l| Chain {
                    len: c.chains[l].0.len(),
                    parent: affine(&mut rng),
                    world_inverse: affine(&mut rng),
                    ahead: rng.f().abs(),
                })
                .collect();
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
                        joints_compared += 1;
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
                    joints_compared += 1;
                }
            }
        }
        assert!(joints_compared > 1000, "{joints_compared}");
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
            chains: vec![
                (vec![0], Vec3::Y, vec![Vec3::NEG_Y], vec![Vec3::NEG_Y]),
                (vec![1], Vec3::Y, vec![Vec3::X], vec![Vec3::X]),
            ],
            out: vec![Vec::new(); 2],
        };
        let chain = Chain {
            len: 1,
            parent: Affine3A::IDENTITY,
            world_inverse: Affine3A::IDENTITY,
            ahead: 0.0,
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
}
