//! Shared by the binary's end-to-end tests.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs the `secmo` binary: exit code, stdout, stderr.
pub fn secmo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_secmo"))
        .args(args)
        .output()
        .expect("run secmo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A test asset's path (tests/assets, in this repository).
pub fn asset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/assets")
        .join(name)
        .to_string_lossy()
        .into_owned()
}
