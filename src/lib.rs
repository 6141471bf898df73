//! secmo — a secondary-motion runtime for game engines.
//!
//! A [`Rig`] is built once per model from a [`RigDesc`] and shared; a
//! [`Character`] holds one on-screen instance's solver state. Each animation
//! update hands the character the sampled local pose and the elapsed time and
//! receives the final local pose:
//!
//! ```
//! use std::sync::Arc;
//! use secmo::{BoneDesc, Character, CharacterOptions, FrameInput, Rig, RigDesc, SpringParams, Transform};
//! use glam::Vec3;
//!
//! let rig = Rig::new(RigDesc {
//!     bones: vec![
//!         BoneDesc::new("pelvis", -1, Transform::from_translation(Vec3::new(0.0, 100.0, 0.0))),
//!         BoneDesc::new("hip_helper_l", 0, Transform::from_translation(Vec3::new(10.0, 0.0, 0.0))),
//!     ],
//!     units_per_meter: 100.0,
//!     springs: vec![SpringParams::hip(1, 100.0)],
//!     ..Default::default()
//! })
//! .unwrap();
//! let mut character = Character::new(Arc::new(rig), CharacterOptions::default());
//! let pose = character.rig().reference_pose().to_vec();
//! let mut out = pose.clone();
//! character.update(&FrameInput { dt: 1.0 / 60.0, pose: &pose, teleport: false }, &mut out).unwrap();
//! ```
//!
//! The C ABI in [`ffi`] wraps exactly this API; `include/secmo.h` is generated from it.

pub mod character;
pub mod clock;
pub mod error;
pub mod ffi;
pub mod glb;
mod limits;
pub mod math;
pub mod rig;
mod rig_error;
#[cfg(feature = "settings")]
pub mod settings;
pub mod solvers;
#[cfg(feature = "settings")]
pub mod vrm;
pub mod world;

pub use character::{
    reseal_snapshot, snapshot_limits, update_batch, BatchItem, Character, CharacterOptions,
    DebugLine, DebugSphere, FrameInput, SpringRecord, Stage, StageRecords, SubstepTarget,
    UpdateInfo, BATCH_CHAINS_TOGETHER, DEBUG_COLLIDER, DEBUG_CONTACT, DEBUG_LINK, DEBUG_PARTICLE,
    DEBUG_REST_LINK, DEBUG_REST_TARGET, MAX_CHAIN_SUBSTEPS, MAX_WIND_M_PER_S2,
    SNAPSHOT_HEADER_SIZE, SNAPSHOT_SETTINGS_SIZE, TELEPORT_STREAK, WARNING_SHEAR,
    WARNING_TELEPORT_STREAK,
};
pub use error::Error;
pub use math::Transform;
pub use rig::{BoneDesc, ConstraintDesc, Rig, RigDesc, RigError, RigWarning, UpAxis};
#[cfg(feature = "settings")]
pub use settings::{LimitSettings, RigSettings, SettingsError};
pub use solvers::chain::{ChainDesc, ChainParams, ChainSetup, Integrator, JointLimit, LimitShape};
pub use solvers::collide::{Collider, ColliderShape};
pub use solvers::constraint::RotationConstraint;
pub use solvers::corrective::{
    BtobBones, CorrectiveRecord, CorrectiveState, Gains, Probe, ProximityCorrective, Side,
};
pub use solvers::lanes::ChainKernel;
pub use solvers::node_constraint::{
    AimAxis, NodeConstraint, NodeConstraintDesc, NodeConstraintKind, RollAxis,
};
pub use solvers::spring::{SpringParams, SpringState};
pub use world::{CharacterId, Level, Plan, World, WorldItem};

/// The crate version, as in Cargo.toml.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
