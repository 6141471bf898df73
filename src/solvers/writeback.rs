//! The chain writeback in lanes (#14 item 2, "writeback rotations without a
//! full matrix decomposition"): up to [`W`] chains' joints turned onto their
//! particles at once, joint by joint, every lane's arithmetic in one vector
//! register per value, as the chain kernel's lanes ([`lanes`]) step them.
//!
//! SPEC §7 writeback, for a chain whose root parent is a rotation times a
//! uniform scale and whose joints are uniformly scaled (every joint's
//! parent is then such a similarity, so the component-space swing seen from
//! the parent is the arc between the same two directions seen from it, and
//! no matrix is decomposed):
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
//! Every chain that qualifies goes through this function, on every kernel
//! (the scalar kernel's chains as a block of one), so the kernels keep
//! giving one another's bits; a chain that does not (a sheared or
//! non-uniformly scaled parent, a weight below 1) goes through
//! `chain_stage::write_joints`, joint by joint with glam.

// Index loops over the lanes are the form LLVM vectorises most reliably.
#![allow(clippy::needless_range_loop)]

use glam::{Affine3A, Quat, Vec3};

use crate::math::Transform;

use crate::solvers::lanes::{sel, ChainKernel, F, M, V3, W};

/// A quaternion per lane.
#[derive(Clone, Copy)]
struct Q4 {
    x: F,
    y: F,
    z: F,
    w: F,
}

impl Q4 {
    #[inline(always)]
    fn zero() -> Q4 {
        let z = F::splat(0.0);
        Q4 {
            x: z,
            y: z,
            z,
            w: z,
        }
    }

    #[inline(always)]
    fn set(&mut self, l: usize, q: [f32; 4]) {
        self.x.0[l] = q[0];
        self.y.0[l] = q[1];
        self.z.0[l] = q[2];
        self.w.0[l] = q[3];
    }

    #[inline(always)]
    fn get(&self, l: usize) -> [f32; 4] {
        [self.x.0[l], self.y.0[l], self.z.0[l], self.w.0[l]]
    }

    /// `q / |q|`.
    #[inline(always)]
    fn normalize(self) -> Q4 {
        let len2 = self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w;
        let rcp = F::splat(1.0) / len2.sqrt();
        Q4 {
            x: self.x * rcp,
            y: self.y * rcp,
            z: self.z * rcp,
            w: self.w * rcp,
        }
    }

    /// The Hamilton product `self · b`.
    #[inline(always)]
    fn mul(self, b: Q4) -> Q4 {
        let a = self;
        Q4 {
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        }
    }

    /// `v` turned by the unit quaternion `self`.
    #[inline(always)]
    fn rotate(self, v: V3) -> V3 {
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
    fn finite(self) -> M {
        let mut out = [0; W];
        for i in 0..W {
            let f = |v: f32| (v.to_bits() & 0x7fff_ffff) < 0x7f80_0000;
            out[i] = if f(self.x.0[i]) & f(self.y.0[i]) & f(self.z.0[i]) & f(self.w.0[i]) {
                u32::MAX
            } else {
                0
            };
        }
        M(out)
    }
}

#[inline(always)]
fn qsel(m: M, a: Q4, b: Q4) -> Q4 {
    Q4 {
        x: sel(m, a.x, b.x),
        y: sel(m, a.y, b.y),
        z: sel(m, a.z, b.z),
        w: sel(m, a.w, b.w),
    }
}

#[inline(always)]
fn cross(a: V3, b: V3) -> V3 {
    V3 {
        x: a.y * b.z - b.y * a.z,
        y: a.z * b.x - b.z * a.x,
        z: a.x * b.y - b.x * a.y,
    }
}

/// A 3×3 matrix per lane, by columns, and a translation.
#[derive(Clone, Copy)]
struct A4 {
    x: V3,
    y: V3,
    z: V3,
    t: V3,
}

impl A4 {
    #[inline(always)]
    fn zero() -> A4 {
        A4 {
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
    fn linear(&self, v: V3) -> V3 {
        self.x * v.x + self.y * v.y + self.z * v.z
    }

    /// The transposed linear part times `v`.
    #[inline(always)]
    fn linear_transposed(&self, v: V3) -> V3 {
        V3 {
            x: self.x.dot(v),
            y: self.y.dot(v),
            z: self.z.dot(v),
        }
    }

    /// `self · v` for a point.
    #[inline(always)]
    fn point(&self, v: V3) -> V3 {
        self.linear(v) + self.t
    }
}

/// Joints per [`write`] call: its output fits on the stack.
pub(crate) const CHUNK: usize = 8;

/// One lane's chain: what its writeback reads.
#[derive(Clone, Copy)]
pub(crate) struct Chain<'a> {
    /// The chain's joints (bone indices) and its end offset (the last
    /// joint's child, in that joint's frame).
    pub(crate) joints: &'a [u32],
    pub(crate) end_offset: Vec3,
    /// The character's local pose.
    pub(crate) local: &'a [Transform],
    /// The chain's particles and their positions before the last substep.
    pub(crate) position: &'a [Vec3],
    pub(crate) previous: &'a [Vec3],
    /// The component matrix of the first joint's parent ([`write`]'s
    /// `from`): the chain root's parent, or the last joint of the chunk
    /// before ([`Out::parent`]).
    pub(crate) parent: Affine3A,
    /// The simulation world's inverse (world positions to component space).
    pub(crate) world_inverse: Affine3A,
    /// Fraction of a substep the clock is past the state (0 to 1).
    pub(crate) ahead: f32,
}

/// The output of joints `from..from + CHUNK`: `[k - from][lane]`.
pub(crate) struct Out {
    pub(crate) rotation: [[[f32; 4]; W]; CHUNK],
    pub(crate) component: [[Affine3A; W]; CHUNK],
    /// Each lane's last joint's component matrix: the next chunk's parent.
    pub(crate) parent: [Affine3A; W],
}

impl Out {
    pub(crate) fn new() -> Self {
        Self {
            rotation: [[[0.0; 4]; W]; CHUNK],
            component: [[Affine3A::IDENTITY; W]; CHUNK],
            parent: [Affine3A::IDENTITY; W],
        }
    }
}

/// Writes back joints `from..from + CHUNK` of the chains `chains` (one per
/// lane, at most [`W`]) into `out`; the caller writes them into the pose.
pub(crate) fn write(kernel: ChainKernel, chains: &[Chain<'_>], from: usize, out: &mut Out) {
    debug_assert!(!chains.is_empty() && chains.len() <= W);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        ChainKernel::LanesAvx2 => {
            // SAFETY: the stage selects LanesAvx2 only where
            // `ChainKernel::supported` found AVX2 at run time.
            unsafe { write_avx2(chains, from, out) }
        }
        _ => write_lanes(chains, from, out),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_avx2(chains: &[Chain<'_>], from: usize, out: &mut Out) {
    write_lanes(chains, from, out);
}

#[inline(always)]
fn write_lanes(chains: &[Chain<'_>], from: usize, out: &mut Out) {
    let mut parent = A4::zero();
    let mut world_inverse = A4::zero();
    let mut ahead = F::splat(0.0);
    for (l, c) in chains.iter().enumerate() {
        parent.set(l, &c.parent);
        world_inverse.set(l, &c.world_inverse);
        ahead.0[l] = c.ahead;
    }
    let n_max = chains.iter().map(|c| c.joints.len()).max().unwrap_or(0);
    let one = F::splat(1.0);
    for k in from..n_max.min(from + CHUNK) {
        let mut raw = Q4::zero();
        let (mut scale, mut translation, mut child) = (V3::zero(), V3::zero(), V3::zero());
        let (mut position, mut previous) = (V3::zero(), V3::zero());
        for (l, c) in chains.iter().enumerate() {
            let Some(&b) = c.joints.get(k) else { continue };
            let t = &c.local[b as usize];
            raw.set(l, t.rotation);
            scale.set(l, Vec3::from(t.scale));
            translation.set(l, Vec3::from(t.translation));
            child.set(
                l,
                match c.joints.get(k + 1) {
                    Some(&next) => Vec3::from(c.local[next as usize].translation),
                    None => c.end_offset,
                },
            );
            position.set(l, c.position[k]);
            previous.set(l, c.previous[k]);
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
        let mut arc = Q4 {
            x: c.x,
            y: c.y,
            z: c.z,
            w: one + dot,
        }
        .normalize();
        let antiparallel = dot.lt(F::splat(-1.0 + 1e-6));
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
        let result = qsel(ok, solved, raw);
        // `P · R(result) · S`, its translation the head.
        let r = result.normalize();
        let (x2, y2, z2) = (r.x + r.x, r.y + r.y, r.z + r.z);
        let (xx, xy, xz) = (r.x * x2, r.x * y2, r.x * z2);
        let (yy, yz, zz) = (r.y * y2, r.y * z2, r.z * z2);
        let (wx, wy, wz) = (r.w * x2, r.w * y2, r.w * z2);
        let column = |x: F, y: F, z: F, s: F| V3 {
            x: x * s,
            y: y * s,
            z: z * s,
        };
        let rx = column(one - (yy + zz), xy + wz, xz - wy, scale.x);
        let ry = column(xy - wz, one - (xx + zz), yz + wx, scale.y);
        let rz = column(xz + wy, yz - wx, one - (xx + yy), scale.z);
        let joint = A4 {
            x: parent.linear(rx),
            y: parent.linear(ry),
            z: parent.linear(rz),
            t: head,
        };
        for l in 0..chains.len() {
            out.rotation[k - from][l] = result.get(l);
            out.component[k - from][l] = joint.get(l);
        }
        parent = joint;
    }
    for l in 0..chains.len() {
        out.parent[l] = parent.get(l);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math;

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

    /// The glam path (`chain_stage::write_joints`' similarity branch), one
    /// chain; joint k's parent is `parents(k)` (the lanes' own matrix of
    /// joint k − 1, so that each joint is compared alone, with no rounding
    /// carried down the chain), or the reference's own when `None`.
    fn reference(
        c: &Chain<'_>,
        parents: impl Fn(usize) -> Option<Affine3A>,
    ) -> Vec<([f32; 4], Affine3A)> {
        let mut parent = c.parent;
        let mut out = Vec::new();
        for (k, &b) in c.joints.iter().enumerate() {
            if let Some(p) = parents(k) {
                parent = p;
            }
            let local = c.local[b as usize];
            let rotation = local.rotation().normalize();
            let scale = local.scale();
            let head = parent.transform_point3(local.translation());
            let child = match c.joints.get(k + 1) {
                Some(&n) => c.local[n as usize].translation(),
                None => c.end_offset,
            };
            let carried = c.position[k] + (c.position[k] - c.previous[k]) * c.ahead;
            let to = c.world_inverse.transform_point3(carried) - head;
            let mut result = local.rotation;
            if let Some(q) =
                math::aim_local_similar(rotation, scale, child, parent.matrix3.transpose() * to)
            {
                if q.is_finite() {
                    result = q.to_array();
                }
            }
            let r = glam::Mat3A::from_quat(Quat::from_array(result).normalize());
            let m = Affine3A {
                matrix3: parent.matrix3
                    * glam::Mat3A::from_cols(
                        r.x_axis * scale.x,
                        r.y_axis * scale.y,
                        r.z_axis * scale.z,
                    ),
                translation: head.into(),
            };
            out.push((result, m));
            parent = m;
        }
        out
    }

    #[test]
    fn lanes_write_what_the_glam_path_writes() {
        let mut rng = Rng(0x1234_5678);
        let kernels = [
            ChainKernel::Scalar,
            ChainKernel::Lanes,
            ChainKernel::detect(),
        ];
        let mut worst = (0.0f32, 0.0f32);
        for round in 0..40 {
            // Up to 8 lanes, 1 to 11 joints each (two chunks), one pose.
            let lanes = 1 + round % W;
            let mut local = Vec::new();
            let mut joints = Vec::new();
            let mut particles = Vec::new();
            for l in 0..lanes {
                let n = 1 + (round * 3 + l * 5) % 11;
                let s = 0.5 + rng.f().abs();
                let first = local.len() as u32;
                for k in 0..n {
                    let mut t = Transform::new(
                        rng.v() * 0.2,
                        Quat::from_array(rng.q().to_array()),
                        Vec3::splat(s),
                    );
                    // A degenerate child offset now and then: the joint
                    // keeps its rotation, bit for bit.
                    if (round + k) % 13 == 0 {
                        t.translation = [0.0; 3];
                    }
                    // A rotation off unit length, as a pose may hold it.
                    t.rotation = (Quat::from_array(t.rotation) * 1.0005).to_array();
                    local.push(t);
                }
                joints.push((first..first + n as u32).collect::<Vec<u32>>());
                let position: Vec<Vec3> = (0..n).map(|_| rng.v()).collect();
                // Now and then a particle straight back along its link: the
                // antiparallel arc.
                let previous: Vec<Vec3> = position.iter().map(|p| *p - rng.v() * 0.01).collect();
                particles.push((position, previous));
            }
            let parent = |rng: &mut Rng| {
                Affine3A::from_scale_rotation_translation(
                    Vec3::splat(0.7 + rng.f().abs()),
                    rng.q(),
                    rng.v(),
                )
            };
            let chains: Vec<Chain<'_>> = (0..lanes)
                .map(|l| Chain {
                    joints: &joints[l],
                    end_offset: rng.v() * 0.1,
                    local: &local,
                    position: &particles[l].0,
                    previous: &particles[l].1,
                    parent: parent(&mut rng),
                    world_inverse: parent(&mut rng),
                    ahead: rng.f().abs(),
                })
                .collect();
            for kernel in kernels {
                let mut got: Vec<Vec<([f32; 4], Affine3A)>> = vec![Vec::new(); lanes];
                let mut parents: Vec<Affine3A> = chains.iter().map(|c| c.parent).collect();
                let n_max = chains.iter().map(|c| c.joints.len()).max().unwrap();
                let mut out = Out::new();
                for from in (0..n_max).step_by(CHUNK) {
                    let chunk: Vec<Chain<'_>> = chains
                        .iter()
                        .zip(&parents)
                        .map(|(c, p)| Chain { parent: *p, ..*c })
                        .collect();
                    write(kernel, &chunk, from, &mut out);
                    for (l, c) in chains.iter().enumerate() {
                        for k in from..c.joints.len().min(from + CHUNK) {
                            got[l].push((out.rotation[k - from][l], out.component[k - from][l]));
                        }
                        parents[l] = out.parent[l];
                    }
                }
                for (l, c) in chains.iter().enumerate() {
                    let mine = &got[l];
                    let want = reference(c, |k| (k > 0).then(|| mine[k - 1].1));
                    assert_eq!(got[l].len(), want.len());
                    for (k, ((q, m), (wq, wm))) in got[l].iter().zip(&want).enumerate() {
                        let raw = c.local[c.joints[k] as usize].rotation;
                        // The pose's own rotation comes back exactly.
                        assert_eq!(*q == raw, *wq == raw, "round {round} lane {l} joint {k}");
                        let dq = (Quat::from_array(*q) - Quat::from_array(*wq))
                            .to_array()
                            .iter()
                            .fold(0.0f32, |a, x| a.max(x.abs()));
                        if std::env::var("WB_DEBUG").is_ok() && dq > 1e-6 {
                            eprintln!("round {round} lane {l} joint {k} dq {dq}");
                        }
                        worst.0 = worst.0.max(dq);
                        // Relative to the matrix's size (scales compound
                        // down a chain).
                        let size = wm
                            .to_cols_array()
                            .iter()
                            .fold(1.0f32, |a, x| a.max(x.abs()));
                        let dm = (m.matrix3 - wm.matrix3)
                            .to_cols_array()
                            .iter()
                            .chain((m.translation - wm.translation).as_ref())
                            .fold(0.0f32, |a, x| a.max(x.abs()));
                        worst.1 = worst.1.max(dm / size);
                    }
                }
            }
        }
        // Rounding only, joint by joint: float32 noise in the quaternions'
        // components and the matrices' entries (1.5e-6 at most here, where
        // `target − head` cancels; a wrong product order or a missing
        // normalisation shows at 1e-3 and more).
        assert!(worst.0 < 1e-5, "rotations differ by {worst:?}");
        assert!(worst.1 < 1e-5, "matrices differ by {worst:?}");
    }

    #[test]
    fn a_particle_straight_back_turns_the_joint_half_a_turn() {
        // The joint points up (its child 1 up), its particle 1 down: the
        // antiparallel arc, glam's turn about an axis orthogonal to it.
        let local = [Transform::IDENTITY, Transform::from_translation(Vec3::Y)];
        let joints = [0u32];
        let position = [Vec3::NEG_Y];
        let chain = Chain {
            joints: &joints,
            end_offset: Vec3::Y,
            local: &local,
            position: &position,
            previous: &position,
            parent: Affine3A::IDENTITY,
            world_inverse: Affine3A::IDENTITY,
            ahead: 0.0,
        };
        let want = reference(&chain, |_| None);
        for kernel in [
            ChainKernel::Scalar,
            ChainKernel::Lanes,
            ChainKernel::detect(),
        ] {
            let mut out = Out::new();
            write(kernel, &[chain], 0, &mut out);
            let q = Quat::from_array(out.rotation[0][0]);
            assert!((q * Vec3::Y - Vec3::NEG_Y).length() < 1e-6, "{q:?}");
            assert_eq!(out.rotation[0][0], want[0].0);
        }
    }
}
