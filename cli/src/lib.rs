//! The `secmo` tool as a library, so that tests drive the same code as the binary.

pub mod bake;
pub mod body;
pub mod carriage;
pub mod commands;
pub mod demo;
pub mod demo_character;
pub mod glb;
pub mod grow;
pub mod import;
pub mod meshopt;
pub mod output;
pub mod plot;
pub mod procedural;
pub mod progress;
pub mod report;
pub mod rotation;
pub mod species;
pub mod vrm_settings;
