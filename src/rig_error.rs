//! Why a rig was rejected: below the rig and the crate's [`crate::Error`],
//! which wraps it, so that neither imports the other for it.

use std::fmt;

use crate::limits::MAX_BONES;

/// Why a rig was rejected. Every variant names the offending bone or solver entry.
#[derive(Clone, Debug, PartialEq)]
pub enum RigError {
    Empty,
    TooManyBones {
        count: usize,
    },
    ParentOutOfRange {
        bone: usize,
        parent: i32,
    },
    ParentAfterChild {
        bone: usize,
        parent: i32,
    },
    Cycle {
        bone: usize,
    },
    NonFinite {
        bone: usize,
        field: &'static str,
    },
    ZeroScale {
        bone: usize,
    },
    ZeroRotation {
        bone: usize,
    },
    SingularInverseBind {
        bone: usize,
    },
    InvalidUnits,
    SpringBoneOutOfRange {
        spring: usize,
        bone: u32,
    },
    DuplicateSpring {
        spring: usize,
        bone: u32,
    },
    InvalidSpring {
        spring: usize,
        reason: &'static str,
    },
    InvalidConstraint {
        constraint: usize,
        reason: &'static str,
    },
    InvalidCorrective {
        corrective: usize,
        reason: &'static str,
    },
    InvalidCollider {
        collider: usize,
        reason: &'static str,
    },
    InvalidChain {
        chain: usize,
        reason: &'static str,
    },
    InvalidNodeConstraint {
        constraint: usize,
        reason: &'static str,
    },
    /// Node constraints that depend on each other in a circle, by bone name.
    NodeConstraintCycle {
        bones: String,
    },
}

impl RigError {
    /// The bone the error is about, where it is about one bone.
    #[must_use]
    pub fn bone(&self) -> Option<usize> {
        match *self {
            RigError::ParentOutOfRange { bone, .. }
            | RigError::ParentAfterChild { bone, .. }
            | RigError::Cycle { bone }
            | RigError::NonFinite { bone, .. }
            | RigError::ZeroScale { bone }
            | RigError::ZeroRotation { bone }
            | RigError::SingularInverseBind { bone } => Some(bone),
            _ => None,
        }
    }
}

impl fmt::Display for RigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RigError::Empty => write!(f, "rig has no bones"),
            RigError::TooManyBones { count } => {
                write!(
                    f,
                    "rig has {count} bones; at most {MAX_BONES} are supported"
                )
            }
            RigError::ParentOutOfRange { bone, parent } => {
                write!(f, "bone {bone}: parent index {parent} is out of range")
            }
            RigError::ParentAfterChild { bone, parent } => write!(
                f,
                "bone {bone}: parent {parent} comes after its child; order bones parents-first"
            ),
            RigError::Cycle { bone } => write!(f, "bone {bone}: parent chain forms a cycle"),
            RigError::NonFinite { bone, field } => {
                write!(f, "bone {bone}: {field} contains NaN or infinity")
            }
            RigError::ZeroScale { bone } => {
                write!(
                    f,
                    "bone {bone}: reference scale has a zero component, and a stage reads the bone or one below it"
                )
            }
            RigError::ZeroRotation { bone } => {
                write!(
                    f,
                    "bone {bone}: reference rotation quaternion cannot be normalised (zero length, or a squared length beyond float32's range)"
                )
            }
            RigError::SingularInverseBind { bone } => {
                write!(f, "bone {bone}: inverse bind matrix is singular")
            }
            RigError::InvalidUnits => write!(f, "units_per_meter must be finite and > 0"),
            RigError::SpringBoneOutOfRange { spring, bone } => {
                write!(f, "spring {spring}: bone index {bone} is out of range")
            }
            RigError::DuplicateSpring { spring, bone } => {
                write!(f, "spring {spring}: bone {bone} already has a spring")
            }
            RigError::InvalidSpring { spring, reason } => write!(f, "spring {spring}: {reason}"),
            RigError::InvalidConstraint { constraint, reason } => {
                write!(f, "constraint {constraint}: {reason}")
            }
            RigError::InvalidCorrective { corrective, reason } => {
                write!(f, "corrective {corrective}: {reason}")
            }
            RigError::InvalidCollider { collider, reason } => {
                write!(f, "collider {collider}: {reason}")
            }
            RigError::InvalidChain { chain, reason } => write!(f, "chain {chain}: {reason}"),
            RigError::InvalidNodeConstraint { constraint, reason } => {
                write!(f, "node constraint {constraint}: {reason}")
            }
            RigError::NodeConstraintCycle { bones } => write!(
                f,
                "node constraints depend on each other in a circle: {bones}"
            ),
        }
    }
}

impl std::error::Error for RigError {}
