//! Solvers. Each has a setup (in the Rig) and a state (in the Character).

pub mod chain;
pub mod collide;
pub mod constraint;
pub mod corrective;
pub mod node_constraint;
pub mod spring;
