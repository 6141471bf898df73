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
/// file's count of infos. Only for tests that need `tools::gltf_validator`.
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
/// `tools::gltf_validator`.
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

/// Where every skinned vertex of `glb` lands when skin joint `j` (its index
/// in the skin) is moved by a transform of its own, made up from `j`, with
/// each vertex's weights divided by their sum as viewers do: what the file
/// shows in any pose, to compare copies whose weights were rewritten.
pub fn skinned_positions(glb: &secmo_cli::glb::Glb) -> Vec<glam::Vec3> {
    let poses: Vec<glam::Mat4> = (0..256).map(|j| pose(f64::from(j))).collect();
    let positions = positions(glb);
    influences(glb)
        .iter()
        .zip(positions)
        .map(|(slots, p)| {
            let (mut sum, mut total) = (glam::Vec3::ZERO, 0.0);
            for &(j, w) in slots {
                let w = w as f32;
                sum += w * poses[j as usize].transform_point3(p);
                total += w;
            }
            if total == 0.0 {
                // No weight: the vertex follows its first slot's joint
                // (docs/tool.md, "Data").
                return poses[slots[0].0 as usize].transform_point3(p);
            }
            sum / total
        })
        .collect()
}

/// A transform for skin joint `j`, made up from `j`.
fn pose(j: f64) -> glam::Mat4 {
    let j = j as f32;
    glam::Mat4::from_scale_rotation_translation(
        glam::Vec3::splat(1.0 + 0.05 * (j % 5.0)),
        glam::Quat::from_axis_angle(glam::Vec3::new(j.sin(), 1.0, j.cos()).normalize(), 0.3 * j),
        glam::Vec3::new(j, -0.5 * j, 0.25 * j),
    )
}

/// The POSITION of every vertex of every skinned primitive of `glb`.
fn positions(glb: &secmo_cli::glb::Glb) -> Vec<glam::Vec3> {
    let mut out = Vec::new();
    for mesh in glb.json["meshes"].as_array().into_iter().flatten() {
        for primitive in mesh["primitives"].as_array().into_iter().flatten() {
            let attributes = &primitive["attributes"];
            if attributes.get("JOINTS_0").is_none() {
                continue;
            }
            let position = attributes["POSITION"].as_u64().unwrap() as usize;
            out.extend(
                glb.elements(position)
                    .unwrap()
                    .iter()
                    .map(|p| glam::Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)),
            );
        }
    }
    out
}

/// The (joint, weight) slots of every vertex of every skinned primitive of
/// `glb`, in the validator's order (component by component, set by set),
/// normalized integer weights as their value in [0, 1].
pub fn influences(glb: &secmo_cli::glb::Glb) -> Vec<Vec<(u64, f64)>> {
    let mut out = Vec::new();
    for mesh in glb.json["meshes"].as_array().into_iter().flatten() {
        for primitive in mesh["primitives"].as_array().into_iter().flatten() {
            let mut sets = Vec::new();
            for (j, w) in secmo_cli::glb::skin_sets(&primitive["attributes"]) {
                let accessor = &glb.json["accessors"][w];
                let unit = match (
                    accessor["componentType"].as_u64(),
                    accessor["normalized"].as_bool(),
                ) {
                    (Some(5121), Some(true)) => 255.0,
                    (Some(5123), Some(true)) => 65535.0,
                    _ => 1.0,
                };
                sets.push((glb.elements(j).unwrap(), glb.elements(w).unwrap(), unit));
            }
            let Some(count) = sets.first().map(|s| s.0.len()) else {
                continue;
            };
            for v in 0..count {
                out.push(
                    (0..4)
                        .flat_map(|c| {
                            sets.iter()
                                .map(move |(j, w, unit)| (j[v][c] as u64, w[v][c] / unit))
                        })
                        .collect(),
                );
            }
        }
    }
    out
}

/// Checks that the block of `doc` (a path from the repository root) between
/// `<!-- figures: written by WRITER -->` and `<!-- /figures -->` is
/// `computed`, line for line, so that the figures a doc quotes about the
/// tool's output are its output; `SECMO_BLESS=1` rewrites the block instead.
pub fn check_doc_figures(doc: &str, writer: &str, computed: &str) {
    let begin = format!("<!-- figures: written by {writer} -->");
    let end_marker = "<!-- /figures -->";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{doc} has no `{begin}` block"))
        + begin.len();
    let end = start
        + text[start..]
            .find(end_marker)
            .unwrap_or_else(|| panic!("{doc}: the figures block has no end marker"));
    let computed = computed.trim();
    if std::env::var_os("SECMO_BLESS").is_some() {
        let rewritten = format!("{}\n\n{computed}\n\n{}", &text[..start], &text[end..]);
        std::fs::write(&path, rewritten).unwrap();
        return;
    }
    let quoted = text[start..end].trim();
    for (i, (q, c)) in quoted.lines().zip(computed.lines()).enumerate() {
        assert_eq!(
            q,
            c,
            "{doc}'s figures block, line {} of the block, is not the tool's output \
             (SECMO_BLESS=1 with {writer} rewrites it)",
            i + 1
        );
    }
    assert_eq!(
        quoted.lines().count(),
        computed.lines().count(),
        "{doc}'s figures block has another number of lines than the tool's output:\n{computed}"
    );
}

/// The seven Quaternius animals in tests/assets (paths below it).
pub const ANIMALS: [&str; 7] = [
    "animals/Alpaca.glb",
    "animals/Horse.glb",
    "animals/Husky.glb",
    "animals/ShibaInu.glb",
    "animals/Snake.glb",
    "animals/Stag.glb",
    "animals/Trex.glb",
];

/// `file` as a centimetre export of itself would be: every length (the
/// bones' rest translations and inverse binds' translations, the meshes'
/// positions, the clips' translation keys) `k` times as long.
pub fn in_other_units(
    imported: &secmo_cli::import::Imported,
    k: f32,
) -> secmo_cli::import::Imported {
    let mut out = imported.clone();
    for b in &mut out.skeleton.bones {
        for t in &mut b.reference.translation {
            *t *= k;
        }
        if let Some(m) = &mut b.inverse_bind {
            m.w_axis = (m.w_axis.truncate() * k).extend(m.w_axis.w);
        }
    }
    for mesh in &mut out.meshes {
        for p in &mut mesh.positions {
            *p *= k;
        }
        for m in &mut mesh.inverse_bind {
            m.translation *= k;
        }
    }
    for c in &mut out.rigid_corners {
        *c *= k;
    }
    for clip in &mut out.clips {
        for channel in &mut clip.channels {
            if channel.property == gltf::animation::Property::Translation {
                for v in &mut channel.values {
                    for x in &mut v[..3] {
                        *x *= k;
                    }
                }
            }
        }
    }
    out
}
