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

/// Runs the Khronos glTF validator (tools/gltf-validator, under node) on
/// `files` and asserts each has no error and no warning; returns each
/// file's count of infos. Only for tests gated on `secmo_has_gltf_validator`.
pub fn assert_khronos_valid(files: &[&Path]) -> Vec<u64> {
    khronos_reports(files)
        .iter()
        .map(|r| {
            println!("Khronos glTF validator: {r}");
            assert_eq!(r["errors"], 0, "{r}");
            assert_eq!(r["warnings"], 0, "{r}");
            r["infos"].as_u64().unwrap()
        })
        .collect()
}

/// The Khronos glTF validator's report on each of `files` (`errors`,
/// `warnings`, `infos`, the first `messages`). Only for tests gated on
/// `secmo_has_gltf_validator`.
pub fn khronos_reports(files: &[&Path]) -> Vec<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/gltf-validator/validate.mjs");
    let out = Command::new("node")
        .arg(script)
        .args(files)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line per file"))
        .collect();
    assert_eq!(reports.len(), files.len(), "{stdout}");
    reports
}

/// The baked rotation keys of node `node` (its sampler's output floats).
pub fn rotation_keys(baked: &Path, node: u64) -> Vec<f32> {
    let glb = secmo_cli::glb::Glb::read(baked).unwrap();
    let animation = &glb.json["animations"][0];
    let channel = animation["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == node && c["target"]["path"] == "rotation")
        .unwrap_or_else(|| panic!("{}: no rotation keys for node {node}", baked.display()));
    let sampler = &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    let accessor = &glb.json["accessors"][sampler["output"].as_u64().unwrap() as usize];
    let view = &glb.json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let count = accessor["count"].as_u64().unwrap() as usize * 4;
    glb.bin[start..start + count * 4]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// Runs `secmo bake FILE ARGS --out FILE.baked.glb`: exit code, stdout and
/// stderr together, and the output path.
pub fn bake(file: &Path, args: &[&str]) -> (i32, String, std::path::PathBuf) {
    let out = file.with_extension("baked.glb");
    let mut all = vec!["bake", file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().unwrap()]);
    let (code, stdout, stderr) = secmo(&all);
    (code, format!("{stdout}{stderr}"), out)
}

/// Runs `secmo vrm-settings FILE --out SETTINGS`, asserts it succeeded and
/// returns its standard output.
pub fn vrm_settings(file: &Path, settings: &Path) -> String {
    let (code, stdout, stderr) = secmo(&[
        "vrm-settings",
        file.to_str().unwrap(),
        "--out",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "vrm-settings {}: {stdout}{stderr}", file.display());
    stdout
}
