//! Probes for the external tools some integration tests need, so that a test
//! whose tool is absent is reported as *ignored* by the test runner rather
//! than passing without running:
//!
//! - `secmo_has_mono`: `mcs` and `mono` (the Unity package's C# tests);
//! - `secmo_has_valgrind`: `valgrind` (memcheck / helgrind on the C++ programs);
//! - `secmo_has_clang`: `clang++` (the Unreal plugin's syntax check);
//! - `secmo_has_three_vrm`: `node` and the pinned three-vrm packages in
//!   tools/three-vrm/node_modules (`npm ci --prefix tools/three-vrm`), the
//!   reference the VRM parity tests run against.
//!
//! Only the tests read these cfgs; the library does not change. The probe runs
//! again when `PATH` changes or a directory on it gains or loses a file (an
//! install), or when `SECMO_REPROBE` changes.

use std::path::PathBuf;
use std::process::Command;

fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(secmo_has_mono)");
    println!("cargo::rustc-check-cfg=cfg(secmo_has_valgrind)");
    println!("cargo::rustc-check-cfg=cfg(secmo_has_three_vrm)");
    println!("cargo::rustc-check-cfg=cfg(secmo_has_clang)");
    // `npm ci` creates node_modules inside it, which changes its mtime.
    println!("cargo:rerun-if-changed=tools/three-vrm");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rerun-if-env-changed=SECMO_REPROBE");
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.is_dir() {
                // A directory's own mtime changes when an entry is added or
                // removed, which is what installing a tool does.
                let dir: PathBuf = dir;
                println!("cargo:rerun-if-changed={}", dir.display());
            }
        }
    }
    if runs("mcs") && runs("mono") {
        println!("cargo:rustc-cfg=secmo_has_mono");
    }
    let three_vrm = std::path::Path::new("tools/three-vrm/node_modules/@pixiv");
    if runs("node")
        && ["three-vrm-springbone", "three-vrm-node-constraint"]
            .iter()
            .all(|p| three_vrm.join(p).join("package.json").is_file())
    {
        println!("cargo:rustc-cfg=secmo_has_three_vrm");
    }
    if runs("clang++") {
        println!("cargo:rustc-cfg=secmo_has_clang");
    }
    if runs("valgrind") {
        println!("cargo:rustc-cfg=secmo_has_valgrind");
    }
}
