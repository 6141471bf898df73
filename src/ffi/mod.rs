//! The C ABI (docs/architecture.md "C ABI rules"). `include/secmo.h` is generated from
//! this folder by cbindgen; `tests/header.rs` fails when it is stale.
//!
//! Conventions (docs/c-api.md): the object comes first, then inputs, then
//! outputs; outputs are written only on success; every body runs inside
//! `guard`, so a Rust panic becomes `SECMO_ERROR_PANIC` instead of unwinding
//! into C; details of a failure are in `secmo_last_error_message()`.

//!
//! The folder is split by concern: `result` (codes, errors, the panic guard),
//! `ptr` (pointer and length checks), `types` (descriptors and conversions),
//! `rig` and `character` (the entry points). Every entry point opens the same
//! way: `guard(name, || { ... })`, then its pointers through `ptr`.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use glam::{Mat4, Vec3};

use crate::character::{
    Character, CharacterOptions, DebugLine, DebugSphere, FrameInput, RecordSink, SpringRecord,
    Stage, SubstepTarget,
};
use crate::error::Error;
use crate::math::Transform;
use crate::rig::{BoneDesc, ConstraintDesc, Rig, RigDesc, RigError, RigWarning, UpAxis};
use crate::solvers::chain::{ChainDesc, ChainParams};
use crate::solvers::collide::{Collider, ColliderShape};
use crate::solvers::corrective::{
    BtobBones, CorrectiveRecord, Gains, Probe, ProximityCorrective, Side,
};
use crate::solvers::node_constraint::{AimAxis, NodeConstraintDesc, NodeConstraintKind, RollAxis};
use crate::solvers::spring::SpringParams;

// Declared in the order the header lists them: codes, descriptors, rig,
// character.
#[rustfmt::skip]
mod result;
mod character;
mod ptr;
mod rig;
mod types;
mod world;

pub use character::*;
pub(crate) use ptr::*;
pub use result::*;
pub use rig::*;
pub use types::*;
pub use world::*;

#[cfg(test)]
mod tests;
