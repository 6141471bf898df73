//! Solvers. Each has an immutable setup held by the Rig, a per-character
//! state of plain arrays, and one `step` over a `Pose`; `Character::solve`
//! only sequences the stages (constraints, springs, correctives, chains).

pub mod chain;
pub(crate) mod chain_stage;
pub mod collide;
pub mod constraint;
pub mod corrective;
pub mod lanes;
pub mod node_constraint;
pub mod spring;
pub(crate) mod state_range;
pub(crate) mod writeback;

use crate::math::{self, ComponentMatrix, Frame, Transform};

/// The pose a stage reads and writes: the local transforms and their
/// component matrices (current for every bone the stage reads).
pub(crate) struct Pose<'a> {
    pub(crate) local: &'a mut [Transform],
    pub(crate) component: &'a mut [Frame],
}

/// Recomputes the component matrices of `from..to` from their parents
/// (which must be current) after a change of `local[from]`.
pub(crate) fn refresh_component(
    parents: &[i32],
    local: &[Transform],
    component: &mut [Frame],
    (from, to): (usize, usize),
) {
    for i in from..to {
        let parent = math::parent_matrix(component, parents[i]);
        component[i] = Frame::store(&(parent * local[i].to_affine()));
    }
}

/// `bone`'s subtree as an index range: `subtree_end` holds one past the
/// last descendant of each bone (`Rig::subtree_end`).
pub(crate) fn subtree(subtree_end: &[u32], bone: usize) -> (usize, usize) {
    (bone, subtree_end[bone] as usize)
}
