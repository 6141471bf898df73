//! Probes for the node tools the tests check against:
//! `secmo_has_gltf_validator` when `node` runs and the pinned Khronos glTF
//! validator is in tools/gltf-validator/node_modules (`npm ci --prefix
//! tools/gltf-validator`), `secmo_has_meshoptimizer` when meshoptimizer's
//! decoder is in tools/meshopt/node_modules (`npm ci --prefix
//! tools/meshopt`); .ci/run does both. Without them those tests are
//! reported as ignored. Only the tests read these cfgs.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(secmo_has_gltf_validator)");
    println!("cargo::rustc-check-cfg=cfg(secmo_has_meshoptimizer)");
    // `npm ci` creates node_modules inside it, which changes its mtime.
    println!("cargo:rerun-if-changed=../tools/gltf-validator");
    println!("cargo:rerun-if-changed=../tools/meshopt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rerun-if-env-changed=SECMO_REPROBE");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let validator = Path::new("../tools/gltf-validator/node_modules/gltf-validator/package.json");
    if node && validator.is_file() {
        println!("cargo:rustc-cfg=secmo_has_gltf_validator");
    }
    let meshoptimizer = Path::new("../tools/meshopt/node_modules/meshoptimizer/package.json");
    if node && meshoptimizer.is_file() {
        println!("cargo:rustc-cfg=secmo_has_meshoptimizer");
    }
}
