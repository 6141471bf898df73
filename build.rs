//! Probes for the external tools some integration tests need, so that a test
//! whose tool is absent is reported as *ignored* by the test runner rather
//! than passing without running:
//!
//! - `secmo_has_mono`: `mcs` and `mono` (the Unity package's C# tests);
//! - `secmo_has_valgrind`: `valgrind` (memcheck / helgrind on the C++ programs);
//! - `secmo_has_clang`: `clang++` (the Unreal plugin's syntax check);
//! - `secmo_has_three_vrm`: `node` and the pinned three-vrm packages in
//!   tools/three-vrm/node_modules (`npm ci --prefix tools/three-vrm`), the
//!   reference the VRM parity tests run against;
//! - `secmo_has_aarch64`: a cross kit for aarch64 Linux — a rustc with the
//!   `aarch64-unknown-linux-gnu` standard library (rustup's, or Debian's
//!   `rustc-web` with `libstd-rust-web-dev:arm64`), `aarch64-linux-gnu-gcc`
//!   as the linker and `qemu-aarch64` to run what it builds
//!   (tests/aarch64.rs); the rustc found is passed as `SECMO_AARCH64_RUSTC`.
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
    println!("cargo::rustc-check-cfg=cfg(secmo_has_aarch64)");
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
    if runs("aarch64-linux-gnu-gcc") && runs("qemu-aarch64") {
        if let Some(rustc) = ["rustc", "/usr/bin/rustc"]
            .into_iter()
            .find(|r| has_aarch64_std(r))
        {
            println!("cargo:rustc-cfg=secmo_has_aarch64");
            println!("cargo:rustc-env=SECMO_AARCH64_RUSTC={rustc}");
        }
    }
}

/// Whether `rustc` has the aarch64 Linux standard library.
fn has_aarch64_std(rustc: &str) -> bool {
    let Ok(out) = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", AARCH64])
        .output()
    else {
        return false;
    };
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    out.status.success()
        && std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("libstd-") && name.ends_with(".rlib")
            })
        })
}

const AARCH64: &str = "aarch64-unknown-linux-gnu";
