//! Probes for the Khronos glTF validator the tests check written files with:
//! `secmo_has_gltf_validator` when `node` runs and the pinned validator is in
//! tools/gltf-validator/node_modules (`npm ci --prefix tools/gltf-validator`,
//! which .ci/run does). Without it those tests are reported as ignored. Only
//! the tests read this cfg.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(secmo_has_gltf_validator)");
    // `npm ci` creates node_modules inside it, which changes its mtime.
    println!("cargo:rerun-if-changed=../tools/gltf-validator");
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
}
