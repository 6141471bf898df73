//! The chain stage (docs/algorithms.md §7, §8): every chain of a character, stepped on the
//! post-corrective pose. Its setup is the rig's chains and colliders with
//! the schedule built from them once ([`ChainPlan`], read through
//! [`ChainRig`]); its per-character [`Stage`] holds the committed state, the
//! scratch an update writes before it is committed, and the per-character
//! parameters; [`step_jobs`] runs one update. `Character::solve` only
//! sequences it after the helper-bone stages.
//!
//! * `plan`: the schedule ([`ChainPlan`]) and what the stage reads of the rig.
//! * `state`: the per-character state and scratch ([`Stage`]).
//! * `driver`: one update: blocks of chains, each chain's bookkeeping.
//! * `substeps`: the interpolated frames and the lane kernel per substep.
//! * `output`: each chain's range check and its writeback into the pose.

use glam::{Affine3A, Quat, Vec3};

use crate::limits::{unset, MAX_CHAIN_SUBSTEPS, MIN_VELOCITY_DT};
use crate::math::{self, ComponentMatrix, Frame, Transform};
use crate::solvers::chain::{
    self, ChainClock, ChainParams, ChainSetup, SubstepFrame, CHAIN_CATCH_UP, CHAIN_STEP,
};
use crate::solvers::collide::PlacedCollider;
use crate::solvers::lanes::{self, ChainKernel};
use crate::solvers::state_range::StateRange;
use crate::solvers::writeback;

mod driver;
mod output;
mod plan;
mod state;
mod substeps;

pub(crate) use driver::{animates, step_jobs, Job, JOBS};
pub(crate) use plan::{ChainPlan, ChainRig, NO_SLOT};
pub(crate) use state::{ChainInputs, Stage};

// Each part reads the others' items through `use super::*`.
use driver::*;
use output::*;
use state::*;
use substeps::*;
