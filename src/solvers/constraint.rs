//! Rotation constraint: a helper bone keeps its reference orientation relative
//! to a target bone (docs/algorithms.md §4, the chest → `Dm-*-Breast-Point` constraint).
//!
//! ```text
//! R_offset = transpose(R_ref_target) · R_ref_bone     // reference (bind) rotations
//! R_new    = R_current_target · R_offset              // component space
//! ```
//! The helper's component translation and per-axis scale are kept; the new
//! rotation is written back through the current parent (docs/algorithms.md §1 path B).

use glam::{Affine3A, Mat3A, Quat, Vec3};

use crate::math::{self, ComponentMatrix, Transform};
use crate::solvers::node_constraint::NodeConstraint;
use crate::solvers::node_constraint::NodeConstraintKind;
use crate::solvers::{refresh_component, subtree, Pose};

/// Setup of one constraint, in the Rig. `offset` is precomputed from the
/// Rig's reference (bind) pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotationConstraint {
    /// The helper bone whose rotation is driven.
    pub bone: u32,
    /// The bone it follows.
    pub target: u32,
    /// `R_offset = transpose(R_ref_target) · R_ref_bone` (docs/algorithms.md §4).
    pub offset: Quat,
}

/// Component-space rotation of a matrix that may carry scale, with the
/// reflection (if any) put on the axes whose sign `sign_hint` gives
/// (docs/algorithms.md §1: the sign of the source local scale is preserved). With a hint of ONE
/// a reflection lands on X, which turns a helper scaled −1 on Y or Z by 180°.
#[inline]
fn rotation_of(m: &Affine3A, sign_hint: Vec3) -> Quat {
    math::decompose(m, sign_hint).transform.rotation()
}

impl RotationConstraint {
    /// Builds the constraint from the reference component matrices of the
    /// helper and the target (docs/algorithms.md §4: never from the animated pose).
    #[must_use]
    pub fn new(
        bone: u32,
        target: u32,
        reference_bone: &Affine3A,
        reference_target: &Affine3A,
    ) -> Self {
        Self::with_scale_signs(
            bone,
            target,
            (reference_bone, Vec3::ONE),
            (reference_target, Vec3::ONE),
        )
    }

    /// [`RotationConstraint::new`] for bones whose local scales (given with
    /// each reference matrix; only their signs matter) may be negative: the
    /// rotations are taken with those signs, as [`RotationConstraint::apply`]
    /// takes them from the current local scales.
    #[must_use]
    pub fn with_scale_signs(
        bone: u32,
        target: u32,
        (reference_bone, bone_scale): (&Affine3A, Vec3),
        (reference_target, target_scale): (&Affine3A, Vec3),
    ) -> Self {
        // For unit quaternions the conjugate is the transpose of the rotation matrix.
        let offset = rotation_of(reference_target, target_scale).conjugate()
            * rotation_of(reference_bone, bone_scale);
        Self {
            bone,
            target,
            offset: offset.normalize(),
        }
    }

    /// The helper's new component rotation for the target's current one:
    /// `R_new = R_current_target · R_offset` (docs/algorithms.md §4).
    #[inline]
    #[must_use]
    pub fn solve_rotation(&self, current_target: &Affine3A) -> Quat {
        self.solve_rotation_signed(current_target, Vec3::ONE)
    }

    /// [`RotationConstraint::solve_rotation`] for a target whose current
    /// local scale is `target_scale` (its signs place a reflection).
    #[inline]
    #[must_use]
    pub fn solve_rotation_signed(&self, current_target: &Affine3A, target_scale: Vec3) -> Quat {
        (rotation_of(current_target, target_scale) * self.offset).normalize()
    }

    /// Applies the constraint to `local` (the helper's local transform) given
    /// the current parent and the helper's and target's current component
    /// matrices. Only the local rotation changes: the local translation and
    /// scale, and so the component translation and per-axis scale, are kept.
    /// Returns true when the parent chain carries shear that TRS cannot express.
    pub fn apply(
        &self,
        parent: &Affine3A,
        current_bone: &Affine3A,
        (current_target, target_scale): (&Affine3A, Vec3),
        local: &mut Transform,
    ) -> bool {
        let r_new = self.solve_rotation_signed(current_target, target_scale);
        // docs/algorithms.md §1 path B: C' = C with its rotation replaced; L' = inverse(C_parent) · C'.
        let scale = math::decompose(current_bone, local.scale())
            .transform
            .scale();
        let corrected = Affine3A {
            matrix3: Mat3A::from_quat(r_new) * Mat3A::from_diagonal(scale),
            translation: current_bone.translation,
        };
        let d = math::component_to_local(parent, &corrected, local.scale());
        local.rotation = d.transform.rotation().normalize().to_array();
        d.sheared
    }
}

/// What the constraint stage reads of the rig.
pub(crate) struct Setup<'a> {
    pub(crate) parents: &'a [i32],
    /// One past the last descendant of each bone ([`subtree`]).
    pub(crate) subtree_end: &'a [u32],
    /// Sorted by constrained bone index.
    pub(crate) constraints: &'a [RotationConstraint],
    /// In evaluation (dependency) order.
    pub(crate) node_constraints: &'a [NodeConstraint],
}

/// docs/algorithms.md §4 for every constraint, in bone order, each reading the current
/// component matrices of this stage.
pub(crate) fn step(setup: &Setup<'_>, pose: Pose<'_>) -> bool {
    let Pose { local, component } = pose;
    math::forward_kinematics(setup.parents, local, component);
    let mut sheared_any = false;
    for c in setup.constraints {
        let bone = c.bone as usize;
        let parent = math::parent_matrix(component, setup.parents[bone]);
        let sheared = c.apply(
            &parent,
            &component[bone].load(),
            (
                &component[c.target as usize].load(),
                local[c.target as usize].scale(),
            ),
            &mut local[bone],
        );
        sheared_any |= sheared;
        refresh_component(
            setup.parents,
            local,
            component,
            subtree(setup.subtree_end, bone),
        );
    }
    // VRM node constraints, in dependency order, each reading the pose
    // the constraints before it left.
    for c in setup.node_constraints {
        let destination = c.destination as usize;
        let aim = matches!(c.kind, NodeConstraintKind::Aim(_)).then(|| {
            let parent = match setup.parents[destination] {
                p if p >= 0 => math::decompose(&component[p as usize].load(), Vec3::ONE)
                    .transform
                    .rotation(),
                _ => Quat::IDENTITY,
            };
            (
                parent,
                component[c.source as usize].translation(),
                component[destination].translation(),
            )
        });
        let source = local[c.source as usize].rotation().normalize();
        local[destination].rotation = c.solve(source, aim).to_array();
        refresh_component(
            setup.parents,
            local,
            component,
            subtree(setup.subtree_end, destination),
        );
    }
    sheared_any
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::EulerRot;

    fn rot(q: Quat) -> Affine3A {
        Affine3A::from_quat(q)
    }

    fn angle_between(a: Quat, b: Quat) -> f32 {
        a.angle_between(b)
    }

    /// The angle between two rotations without acos's loss near 0 (glam's
    /// `angle_between` reads one ulp of the dot product as 6.9e-4 rad).
    fn precise_angle(a: Quat, b: Quat) -> f32 {
        let d = a.conjugate() * b;
        2.0 * d.xyz().length().atan2(d.w.abs())
    }

    #[test]
    fn target_at_reference_gives_back_the_helpers_reference_rotation() {
        // Non-commuting reference rotations, so a swapped multiplication order fails.
        let ref_target = Quat::from_euler(EulerRot::XYZ, 0.4, -0.7, 0.2);
        let ref_bone = Quat::from_euler(EulerRot::ZYX, 1.1, 0.3, -0.5);
        let c = RotationConstraint::new(0, 1, &rot(ref_bone), &rot(ref_target));
        let r = c.solve_rotation(&rot(ref_target));
        assert!(
            angle_between(r, ref_bone) < 1e-5,
            "{}",
            angle_between(r, ref_bone)
        );
        // The two wrong orders give something else for these rotations.
        let wrong_offset = ref_bone * ref_target.conjugate();
        assert!(angle_between(ref_target * wrong_offset, ref_bone) > 0.1);
        assert!(angle_between(c.offset * ref_target, ref_bone) > 0.1);
    }

    #[test]
    fn ten_twenty_five_forty_gives_fifty_five() {
        // docs/algorithms.md §4: single axis, target 10°, helper 25°, target now 40° → helper 55°.
        let deg = |d: f32| Quat::from_rotation_z(d.to_radians());
        let c = RotationConstraint::new(0, 1, &rot(deg(25.0)), &rot(deg(10.0)));
        let r = c.solve_rotation(&rot(deg(40.0)));
        let (axis, angle) = r.to_axis_angle();
        assert!(
            (angle.to_degrees() - 55.0).abs() < 1e-3,
            "{}",
            angle.to_degrees()
        );
        assert!((axis - Vec3::Z).length() < 1e-5);
    }

    #[test]
    fn relative_orientation_is_preserved_for_any_target_motion() {
        let ref_target = Quat::from_euler(EulerRot::XYZ, 0.1, 0.9, -0.3);
        let ref_bone = Quat::from_euler(EulerRot::XYZ, -0.6, 0.2, 0.8);
        let c = RotationConstraint::new(0, 1, &rot(ref_bone), &rot(ref_target));
        let now = Quat::from_euler(EulerRot::YXZ, 1.3, -0.4, 0.6);
        let r = c.solve_rotation(&rot(now));
        let rel_ref = ref_target.conjugate() * ref_bone;
        let rel_now = now.conjugate() * r;
        assert!(angle_between(rel_ref, rel_now) < 1e-5);
    }

    #[test]
    fn translation_and_all_three_scales_are_unchanged() {
        // Parent rotated and uniformly scaled; helper with a non-uniform,
        // partly negative local scale.
        let parent = Transform::new(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_rotation_y(0.5),
            Vec3::splat(1.5),
        )
        .to_affine();
        let local_before = Transform::new(
            Vec3::new(0.3, -0.2, 0.1),
            Quat::from_rotation_x(0.2),
            Vec3::new(1.0, 2.0, -0.5),
        );
        let bone_c = parent * local_before.to_affine();
        let target_ref = rot(Quat::from_rotation_z(0.1));
        let c = RotationConstraint::new(0, 1, &bone_c, &target_ref);
        let target_now = rot(Quat::from_rotation_z(0.9) * Quat::from_rotation_x(0.3));
        let mut local = local_before;
        assert!(!c.apply(&parent, &bone_c, (&target_now, Vec3::ONE), &mut local));
        assert_eq!(local.translation, local_before.translation);
        assert_eq!(local.scale, local_before.scale);
        let after = parent * local.to_affine();
        // Component translation unchanged, per-axis component scale unchanged.
        assert!((Vec3::from(after.translation) - Vec3::from(bone_c.translation)).length() < 1e-6);
        for i in 0..3 {
            let a = after.matrix3.col(i).length();
            let b = bone_c.matrix3.col(i).length();
            assert!((a - b).abs() < 1e-5, "axis {i}: {a} vs {b}");
        }
        // And the rotation is the solved one.
        let solved = c.solve_rotation(&target_now);
        let got = math::decompose(&after, local.scale()).transform.rotation();
        assert!(
            angle_between(got, solved) < 1e-4,
            "{}",
            angle_between(got, solved)
        );
    }

    /// docs/algorithms.md §4's two checks with negative local scales on the helper (and
    /// the target): the reflection stays on the axes the scale puts it on.
    #[test]
    fn negative_scales_keep_their_axis_through_both_spec_checks() {
        // The parent turns about the same axis as the target, so that the
        // docs/algorithms.md §4's single-axis figures hold in the helper's local frame too.
        let parent = Transform::new(
            Vec3::new(0.2, 1.0, -0.3),
            Quat::from_rotation_z(0.4),
            Vec3::ONE,
        )
        .to_affine();
        for scale in [
            Vec3::new(1.3, 0.8, -1.1),
            Vec3::new(-1.0, -1.0, 1.0),
            Vec3::new(1.0, -1.0, 1.0),
        ] {
            let deg = |d: f32| Quat::from_rotation_z(d.to_radians());
            let helper_ref = Transform::new(Vec3::new(0.1, 0.2, 0.3), deg(25.0), scale);
            let target_scale = Vec3::new(1.0, 1.0, -1.0);
            let target_ref = Transform::new(Vec3::ZERO, deg(10.0), target_scale).to_affine();
            let bone_ref = parent * helper_ref.to_affine();
            let c = RotationConstraint::with_scale_signs(
                0,
                1,
                (&bone_ref, helper_ref.scale()),
                (&target_ref, target_scale),
            );
            // Check 1: target at its reference → the helper's own reference.
            let mut local = helper_ref;
            local.rotation = Quat::from_rotation_x(1.0).to_array(); // perturbed
            let bone_now = parent * local.to_affine();
            c.apply(&parent, &bone_now, (&target_ref, target_scale), &mut local);
            let got = Quat::from_array(local.rotation);
            assert!(
                precise_angle(got, deg(25.0)) < 1e-4,
                "{scale}: {} rad from the reference",
                precise_angle(got, deg(25.0))
            );
            assert_eq!(local.scale, helper_ref.scale, "{scale}");
            assert_eq!(local.translation, helper_ref.translation, "{scale}");
            // Check 2: target 10° → 40° turns the helper 25° → 55°.
            let target_now = Transform::new(Vec3::ZERO, deg(40.0), target_scale).to_affine();
            let mut local = helper_ref;
            let bone_now = parent * local.to_affine();
            c.apply(&parent, &bone_now, (&target_now, target_scale), &mut local);
            let got = Quat::from_array(local.rotation);
            assert!(
                precise_angle(got, deg(55.0)) < 1e-4,
                "{scale}: {} rad from 55°",
                precise_angle(got, deg(55.0))
            );
            // Without the signs (the old behaviour) the (1.3, 0.8, −1.1)
            // and (1, −1, 1) helpers would come out turned 180°.
            if scale.x > 0.0 {
                let unsigned = RotationConstraint::new(0, 1, &bone_ref, &target_ref);
                let mut wrong = helper_ref;
                unsigned.apply(&parent, &bone_now, (&target_now, Vec3::ONE), &mut wrong);
                assert!(precise_angle(Quat::from_array(wrong.rotation), deg(55.0)) > 1.0);
            }
        }
    }
}
