//! Probes for the external tools some integration tests need, so that a test
//! whose tool is absent is reported as *ignored* by the test runner rather
//! than passing without running:
//!
//! - `secmo_has_mono`: `mcs` and `mono` (the Unity package's C# tests);
//! - `secmo_has_valgrind`: `valgrind` (memcheck / helgrind on the C++ programs).
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
    if runs("valgrind") {
        println!("cargo:rustc-cfg=secmo_has_valgrind");
    }
}
