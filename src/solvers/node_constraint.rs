//! VRM node constraints (`VRMC_node_constraint` 1.0; docs/algorithms.md §8 "Node
//! constraints before hair"): roll, aim and rotation constraints from a
//! source node to a destination node with a weight. They run in the
//! constraint stage after the docs/algorithms.md §4 rotation constraints and before the
//! springs and chains, so the hair collides with constrained clothing, in
//! dependency order (a constraint whose source or, for aim, whose
//! destination's parent lies below another's destination runs after it).
//!
//! Formulas as VRMC_node_constraint 1.0 defines them and three-vrm
//! (`@pixiv/three-vrm-node-constraint`) evaluates them, with `D` and `S` the
//! destination's and source's rest local rotations (the rig's reference
//! pose), `s` the source's current local rotation and `w` the weight:
//!
//! ```text
//! rotation: target = D · (S⁻¹ · s)
//! roll:     Δ = D⁻¹ · s · S⁻¹ · D;  target = D · arc(Δ·axis, axis) · Δ
//! aim:      a0 = P · D · axis (P: destination parent's world rotation)
//!           a1 = normalize(source position − destination position)
//!           target = P⁻¹ · arc(a0, a1) · P · D
//! local rotation of the destination = slerp(D, target, w)
//! ```
//!
//! The destination's animated rotation is replaced (as in three-vrm and
//! UniVRM); its translation and scale stay as animated.

use glam::{Quat, Vec3};

/// Which constraint, with its axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeConstraintKind {
    /// Copies the source's twist about `axis` (the destination's local X, Y
    /// or Z), relative to both rests.
    Roll(RollAxis),
    /// Turns the destination's `axis` toward the source's position.
    Aim(AimAxis),
    /// Copies the source's local rotation relative to its rest.
    Rotation,
}

/// `rollAxis` of VRMC_node_constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RollAxis {
    X,
    Y,
    Z,
}

/// `aimAxis` of VRMC_node_constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AimAxis {
    PositiveX,
    NegativeX,
    PositiveY,
    NegativeY,
    PositiveZ,
    NegativeZ,
}

impl RollAxis {
    /// The axis as a unit vector.
    #[must_use]
    pub fn vector(self) -> Vec3 {
        match self {
            RollAxis::X => Vec3::X,
            RollAxis::Y => Vec3::Y,
            RollAxis::Z => Vec3::Z,
        }
    }

    /// The VRM name (`"X"`, `"Y"`, `"Z"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RollAxis::X => "X",
            RollAxis::Y => "Y",
            RollAxis::Z => "Z",
        }
    }

    /// From the VRM name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "X" => RollAxis::X,
            "Y" => RollAxis::Y,
            "Z" => RollAxis::Z,
            _ => return None,
        })
    }
}

impl AimAxis {
    /// Every axis, in the order of the C ABI's `SECMO_AXIS_*` values.
    pub const ALL: [AimAxis; 6] = [
        AimAxis::PositiveX,
        AimAxis::NegativeX,
        AimAxis::PositiveY,
        AimAxis::NegativeY,
        AimAxis::PositiveZ,
        AimAxis::NegativeZ,
    ];

    /// The axis as a unit vector.
    #[must_use]
    pub fn vector(self) -> Vec3 {
        match self {
            AimAxis::PositiveX => Vec3::X,
            AimAxis::NegativeX => Vec3::NEG_X,
            AimAxis::PositiveY => Vec3::Y,
            AimAxis::NegativeY => Vec3::NEG_Y,
            AimAxis::PositiveZ => Vec3::Z,
            AimAxis::NegativeZ => Vec3::NEG_Z,
        }
    }

    /// The VRM name (`"PositiveX"`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            AimAxis::PositiveX => "PositiveX",
            AimAxis::NegativeX => "NegativeX",
            AimAxis::PositiveY => "PositiveY",
            AimAxis::NegativeY => "NegativeY",
            AimAxis::PositiveZ => "PositiveZ",
            AimAxis::NegativeZ => "NegativeZ",
        }
    }

    /// From the VRM name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A node constraint in a [`crate::RigDesc`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeConstraintDesc {
    pub kind: NodeConstraintKind,
    /// The bone whose rotation (roll, rotation) or position (aim) drives.
    pub source: u32,
    /// The bone whose local rotation is written.
    pub destination: u32,
    /// 0: the destination keeps its rest rotation; 1: fully constrained.
    pub weight: f32,
}

/// Validated setup (in the Rig), with the rests taken from the reference pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeConstraint {
    pub kind: NodeConstraintKind,
    pub source: u32,
    pub destination: u32,
    pub weight: f32,
    /// The destination's rest local rotation `D`.
    pub destination_rest: Quat,
    /// The source's rest local rotation `S`, inverted.
    pub source_rest_inverse: Quat,
}

impl NodeConstraint {
    #[must_use]
    pub fn new(desc: &NodeConstraintDesc, destination_rest: Quat, source_rest: Quat) -> Self {
        Self {
            kind: desc.kind,
            source: desc.source,
            destination: desc.destination,
            weight: desc.weight,
            destination_rest: destination_rest.normalize(),
            source_rest_inverse: source_rest.normalize().conjugate(),
        }
    }

    /// The destination's new local rotation. `source_local` is the source's
    /// current local rotation; for aim, `aim` holds the destination parent's
    /// world rotation and the source and destination positions (any common
    /// frame).
    #[must_use]
    pub fn solve(&self, source_local: Quat, aim: Option<(Quat, Vec3, Vec3)>) -> Quat {
        let d = self.destination_rest;
        let target = match self.kind {
            NodeConstraintKind::Rotation => d * (self.source_rest_inverse * source_local),
            NodeConstraintKind::Roll(axis) => {
                let axis = axis.vector();
                let delta = d.conjugate() * source_local * self.source_rest_inverse * d;
                let n1 = (delta * axis).normalize_or(axis);
                d * crate::math::rotation_arc(n1, axis) * delta
            }
            NodeConstraintKind::Aim(axis) => {
                let Some((parent, source, destination)) = aim else {
                    return d;
                };
                let a0 = parent * (d * axis.vector());
                let Some(a1) = (source - destination).try_normalize() else {
                    return d; // the source sits on the destination: no direction
                };
                parent.conjugate() * crate::math::rotation_arc(a0, a1) * parent * d
            }
        };
        d.slerp(target.normalize(), self.weight).normalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Quat, b: Quat) -> bool {
        a.dot(b).abs() > 1.0 - 1e-6
    }

    #[test]
    fn rotation_copies_the_source_turn_and_weight_blends_it() {
        let c = NodeConstraint::new(
            &NodeConstraintDesc {
                kind: NodeConstraintKind::Rotation,
                source: 0,
                destination: 1,
                weight: 1.0,
            },
            Quat::from_rotation_z(0.3),
            Quat::from_rotation_x(0.2),
        );
        let turn = Quat::from_rotation_y(0.8);
        let s = Quat::from_rotation_x(0.2) * turn;
        assert!(close(c.solve(s, None), Quat::from_rotation_z(0.3) * turn));
        let half = NodeConstraint { weight: 0.5, ..c };
        assert!(close(
            half.solve(s, None),
            Quat::from_rotation_z(0.3) * Quat::from_rotation_y(0.4)
        ));
    }

    #[test]
    fn roll_keeps_only_the_twist_about_its_axis() {
        let c = NodeConstraint::new(
            &NodeConstraintDesc {
                kind: NodeConstraintKind::Roll(RollAxis::Y),
                source: 0,
                destination: 1,
                weight: 1.0,
            },
            Quat::IDENTITY,
            Quat::IDENTITY,
        );
        // Twist 0.7 about Y after a swing about X: only the twist survives.
        let s = Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.7);
        let r = c.solve(s, None);
        let (axis, angle) = r.to_axis_angle();
        assert!((axis.y.abs() - 1.0).abs() < 1e-5, "{axis}");
        assert!((angle - 0.7).abs() < 1e-5, "{angle}");
    }

    #[test]
    fn aim_points_the_axis_at_the_source() {
        let c = NodeConstraint::new(
            &NodeConstraintDesc {
                kind: NodeConstraintKind::Aim(AimAxis::NegativeZ),
                source: 0,
                destination: 1,
                weight: 1.0,
            },
            Quat::IDENTITY,
            Quat::IDENTITY,
        );
        let parent = Quat::from_rotation_y(0.4);
        let r = c.solve(
            Quat::IDENTITY,
            Some((parent, Vec3::new(1.0, 1.0, 0.0), Vec3::ZERO)),
        );
        let aimed = parent * r * Vec3::NEG_Z;
        assert!((aimed - Vec3::new(1.0, 1.0, 0.0).normalize()).length() < 1e-5);
    }
}
