//! Files that require extensions (glTF 2.0 §3.12) open: VRM 1.0 exporters
//! list VRMC_vrm, others KHR_texture_transform or KHR_materials_unlit
//! (nothing secmo reads changes: a one-line note), KHR_mesh_quantization is
//! read (integer positions), and Draco-compressed meshes are left out with
//! a note. meshopt-compressed files are read (cli/tests/meshopt.rs).

mod common;

use std::path::{Path, PathBuf};

use common::{asset, secmo};
use secmo_cli::glb::Glb;
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-ext-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of the Fox in `out/name`: `used` (and `required`, when any) listed
/// as extensions, then `edit` applied to its JSON.
fn fox_with(
    out: &Path,
    name: &str,
    used: &[&str],
    required: &[&str],
    edit: impl FnOnce(&mut serde_json::Value),
) -> String {
    let mut glb = Glb::read(Path::new(&asset("Fox.glb"))).unwrap();
    glb.json["extensionsUsed"] = json!(used);
    if !required.is_empty() {
        glb.json["extensionsRequired"] = json!(required);
    }
    edit(&mut glb.json);
    let path = out.join(name);
    glb.write(&path).unwrap();
    path.to_string_lossy().into_owned()
}

/// The Fox with `required` added to extensionsUsed and extensionsRequired.
fn fox_requiring(required: &[&str], out: &Path) -> String {
    let name = format!("fox-{}.glb", required.join("+"));
    fox_with(out, &name, required, required, |_| {})
}

/// `secmo import`'s summary of a rewritten Fox holds every line of the
/// Fox's own (after its file name): the same skeleton, skin, clips and tail
/// candidate.
fn assert_reads_as_the_fox(stdout: &str) {
    let (_, plain, _) = secmo(&["import", &asset("Fox.glb")]);
    assert!(plain.lines().count() >= 5, "{plain}");
    for l in plain.lines() {
        let l = l.rsplit_once(".glb: ").map_or(l, |(_, rest)| rest);
        assert!(stdout.contains(l), "`{l}` missing from:\n{stdout}");
    }
}

#[test]
fn files_requiring_extensions_secmo_does_not_need_open_with_a_note() {
    let out = dir("notes");
    for ext in ["VRMC_vrm", "KHR_texture_transform", "KHR_materials_unlit"] {
        let file = fox_requiring(&[ext], &out);
        let (code, stdout, stderr) = secmo(&["import", &file]);
        assert_eq!(code, 0, "import {ext}: {stderr}");
        // VRMC_vrm is read (humanoid, springs); the others get a note.
        let noted = stdout.contains(&format!("note: requires {ext}"));
        assert_eq!(noted, ext != "VRMC_vrm", "{ext}: {stdout}");
    }
    let file = fox_requiring(&["KHR_texture_transform", "KHR_materials_unlit"], &out);
    let baked = out.join("baked.glb");
    let (code, _, stderr) = secmo(&[
        "bake",
        &file,
        "--clip",
        "Survey",
        "--out",
        baked.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "bake: {stderr}");
    let (code, _, stderr) = secmo(&["import", baked.to_str().unwrap()]);
    assert_eq!(code, 0, "the baked file opens again: {stderr}");
    std::fs::remove_dir_all(&out).ok();
}

/// The Fox as a Draco exporter writes it: its primitive's vertex data in a
/// KHR_draco_mesh_compression buffer view, its accessors without one (the
/// compressed bytes are the old position view's, which secmo never reads).
fn draco_fox(out: &Path) -> String {
    let ext = "KHR_draco_mesh_compression";
    fox_with(out, "fox-draco.glb", &[ext], &[ext], |json| {
        let attributes = json["meshes"][0]["primitives"][0]["attributes"].clone();
        let position = attributes["POSITION"].as_u64().unwrap() as usize;
        let view = json["accessors"][position]["bufferView"].clone();
        for (_, accessor) in attributes.as_object().unwrap() {
            let a = &mut json["accessors"][accessor.as_u64().unwrap() as usize];
            let a = a.as_object_mut().unwrap();
            a.remove("bufferView");
            a.remove("byteOffset");
        }
        json["meshes"][0]["primitives"][0]["extensions"] =
            json!({ ext: { "bufferView": view, "attributes": attributes } });
    })
}

#[test]
fn a_draco_compressed_file_opens_without_its_meshes() {
    // Draco compresses only mesh primitives: the skeleton, skins, clips and
    // springs are read, the compressed meshes are left out with a note, and
    // what needs a mesh says it is Draco-compressed.
    let out = dir("draco");
    let file = draco_fox(&out);
    let (code, stdout, stderr) = secmo(&["import", &file]);
    assert_eq!(code, 0, "{stderr}");
    let line = |text: &str, start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no `{start}` line in:\n{text}"))
    };
    // The same skeleton, skin, clips and tail candidate as the
    // uncompressed Fox (its summary's lines, after the file name).
    assert_reads_as_the_fox(&stdout);
    assert!(
        stdout.contains("note: requires KHR_draco_mesh_compression")
            && stdout.contains("mesh fox1[0]: Draco-compressed (KHR_draco_mesh_compression)"),
        "{stdout}"
    );
    // A clip bakes, in the units the uncompressed Fox's size gives (the
    // compressed mesh's box still counts), and the baked file still
    // requires Draco and opens again.
    let bake = |file: &str, to: &Path| {
        let (code, stdout, stderr) = secmo(&[
            "bake",
            file,
            "--clip",
            "Walk",
            "--out",
            to.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "bake {file}: {stderr}");
        line(&stdout, "units:")
    };
    let baked = out.join("baked.glb");
    let units = bake(&file, &baked);
    assert!(units.starts_with("units: 100 per metre (cm)"), "{units}");
    assert_eq!(units, bake(&asset("Fox.glb"), &out.join("plain.glb")));
    let written = Glb::read(&baked).unwrap();
    assert_eq!(
        written.json["extensionsRequired"],
        json!(["KHR_draco_mesh_compression"])
    );
    let (code, _, stderr) = secmo(&["import", baked.to_str().unwrap()]);
    assert_eq!(code, 0, "the baked file opens again: {stderr}");
    // Growing a tail needs the skin's vertices: refused, naming Draco.
    let (code, _, stderr) = secmo(&["rig", &file, "-o", out.join("rig.glb").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("KHR_draco_mesh_compression"),
        "rig: {stderr}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn quantized_positions_are_read_as_the_float_ones() {
    // KHR_mesh_quantization: the Fox's positions as normalized shorts,
    // the dequantization scale folded into the inverse binds (a skinned
    // mesh ignores its node's transform, so that is where it goes).
    let original = secmo_cli::import::import(Path::new(&asset("Fox.glb"))).unwrap();
    let mut glb = Glb::read(Path::new(&asset("Fox.glb"))).unwrap();
    let position = glb.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    let floats = &original.meshes[0].positions;
    let extent = floats
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0f32, f32::max);
    let mut data = Vec::new();
    for p in floats {
        for c in p.to_array() {
            data.extend_from_slice(&((c / extent * 32767.0).round() as i16).to_le_bytes());
        }
        data.extend_from_slice(&[0, 0]); // 4-byte aligned elements
    }
    let view = glb.push_view(&data);
    glb.json["bufferViews"][view]["byteStride"] = json!(8);
    glb.json["accessors"][position] = json!({
        "bufferView": view, "componentType": 5122, "normalized": true,
        "count": floats.len(), "type": "VEC3",
        "min": [-1.0, -1.0, -1.0], "max": [1.0, 1.0, 1.0]
    });
    let joints = &original.skins[0];
    let scaled: Vec<f32> = joints
        .iter()
        .flat_map(|&b| {
            let m = glam::Mat4::from(original.meshes[0].inverse_bind[b])
                * glam::Mat4::from_scale(glam::Vec3::splat(extent));
            m.to_cols_array()
        })
        .collect();
    let scaled_ibm = glb.push_floats(&scaled, "MAT4", false);
    glb.json["skins"][0]["inverseBindMatrices"] = json!(scaled_ibm);
    glb.json["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    glb.json["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let out = dir("quantized");
    let path = out.join("fox-quantized.glb");
    glb.write(&path).unwrap();

    let quantized = secmo_cli::import::import(&path).unwrap();
    let read = &quantized.meshes[0].positions;
    assert_eq!(read.len(), floats.len());
    let step = extent / 32767.0;
    let worst = read
        .iter()
        .zip(floats)
        .map(|(q, f)| (*q * extent - *f).abs().max_element())
        .fold(0.0f32, f32::max);
    assert!(
        worst <= step,
        "dequantized positions within one step ({step}): {worst}"
    );
    // The skinned rest shape is the same: inverse bind × position.
    for b in joints.iter().copied().take(3) {
        let a = quantized.meshes[0].inverse_bind[b].transform_point3(read[0]);
        let e = original.meshes[0].inverse_bind[b].transform_point3(floats[0]);
        assert!((a - e).length() < 1e-2 * extent, "{a} vs {e}");
    }
    // The tool runs on it: import names no note, report measures it.
    let (code, stdout, stderr) = secmo(&["import", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("note: requires"), "{stdout}");
    let report = out.join("report");
    let (code, _, stderr) = secmo(&[
        "report",
        path.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::remove_dir_all(&out).ok();
}

/// Writes `text` as a .gltf and runs `secmo vrm-settings` on it: the
/// file, the settings file written and the command's standard output.
fn vrm_settings(out: &Path, name: &str, text: &serde_json::Value) -> (PathBuf, PathBuf, String) {
    let file = out.join(format!("{name}.gltf"));
    std::fs::write(&file, serde_json::to_vec(text).unwrap()).unwrap();
    let settings = out.join(format!("{name}.json"));
    let stdout = common::vrm_settings(&file, &settings);
    (file, settings, stdout)
}

#[test]
fn vrm_settings_and_import_list_what_they_ignore() {
    let out = dir("vrm-notes");
    let text = json!({
        "asset": {"version": "2.0"},
        "nodes": [
            {"name": "Head", "children": [1]},
            {"name": "H1", "translation": [0, -0.1, 0], "children": [2]},
            {"name": "H2", "translation": [0, -0.1, 0]}
        ],
        "extensionsUsed": ["VRMC_springBone", "VRMC_springBone_limit", "KHR_materials_unlit"],
        "extensionsRequired": ["KHR_materials_unlit"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
            "joints": [
                {"node": 1, "extensions": {"VRMC_springBone_limit":
                    {"limit": {"hinge": {"angle": 0.3}}}}},
                {"node": 2}
            ]}]}}
    });
    let (file, settings, stdout) = vrm_settings(&out, "limited", &text);
    for expected in [
        "joints[0] (H1).extensions.VRMC_springBone_limit.specVersion: missing is not \"1.0-draft\"",
        "note: requires KHR_materials_unlit",
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}");
    }
    // The limit itself is applied: the settings carry it.
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(
        written["chains"][0]["limits"][0]["shape"], "hinge",
        "{written}"
    );
    let (code, stdout, stderr) = secmo(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("VRMC_springBone_limit"), "{stdout}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn node_constraints_are_listed_and_written() {
    let out = dir("node-constraints");
    let text = json!({
        "asset": {"version": "2.0"},
        "nodes": [
            {"name": "Arm", "children": [1, 2]},
            {"name": "Hand", "translation": [0.3, 0, 0]},
            {"name": "Twist", "translation": [0.15, 0, 0],
             "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                "constraint": {"roll": {"source": 1, "rollAxis": "X", "weight": 0.5}}}}}
        ],
        "extensionsUsed": ["VRMC_node_constraint"]
    });
    let (file, settings, stdout) = vrm_settings(&out, "twist", &text);
    assert!(
        stdout.contains("node constraints: 1 (1 roll, 0 aim, 0 rotation)"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&settings).unwrap();
    let parsed = secmo::RigSettings::from_json(&written).unwrap();
    assert_eq!(parsed.node_constraints.len(), 1);
    assert_eq!(parsed.node_constraints[0].destination, "Twist");
    assert_eq!(parsed.node_constraints[0].axis.as_deref(), Some("X"));
    let (code, stdout, stderr) = secmo(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("node constraint: roll Twist ← Hand, axis X (weight 0.5)"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn node_constraints_secmo_cannot_read_are_noted_and_the_rest_opens() {
    // A draft's position constraint, an empty one and one whose source does
    // not exist: each is left out with a note naming it (three-vrm skips
    // them too); the roll constraint and the spring are read.
    let out = dir("node-constraints-unread");
    let constraint = |body: serde_json::Value| json!({"VRMC_node_constraint": {"specVersion": "1.0", "constraint": body}});
    let text = json!({
        "asset": {"version": "2.0"},
        "nodes": [
            {"name": "Arm", "children": [1, 2, 3, 4, 5]},
            {"name": "Hand", "translation": [0.3, 0, 0]},
            {"name": "Twist", "translation": [0.15, 0, 0],
             "extensions": constraint(json!({"roll": {"source": 1, "rollAxis": "X"}}))},
            {"name": "Pos", "extensions": constraint(json!({"position": {"source": 1}}))},
            {"name": "Empty", "extensions": constraint(json!({}))},
            {"name": "Dangling", "translation": [0, -0.1, 0], "children": [6],
             "extensions": constraint(json!({"aim": {"source": 42, "aimAxis": "PositiveY"}}))},
            {"name": "Tip", "translation": [0, -0.1, 0]}
        ],
        "extensionsUsed": ["VRMC_node_constraint", "VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0",
            "springs": [{"joints": [{"node": 5}, {"node": 6}]}]}}
    });
    let (file, settings, stdout) = vrm_settings(&out, "unread", &text);
    for expected in [
        "nodes[3].extensions.VRMC_node_constraint.constraint: not a roll, aim or rotation constraint (position); ignored",
        "nodes[4].extensions.VRMC_node_constraint.constraint: not a roll, aim or rotation constraint (empty); ignored",
        "nodes[5].extensions.VRMC_node_constraint.constraint.aim.source: node 42 does not exist; the constraint is ignored",
        "node constraints: 1 (1 roll, 0 aim, 0 rotation)",
        "1 springs, 1 roots → 1 chains",
    ] {
        assert!(stdout.contains(expected), "{expected}: {stdout}");
    }
    let parsed =
        secmo::RigSettings::from_json(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(parsed.node_constraints.len(), 1);
    assert_eq!(parsed.chains.len(), 1);
    let (code, stdout, stderr) = secmo(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("node constraint: roll Twist ← Hand"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// The Fox with every channel written as a `KHR_animation_pointer` channel
/// (`/nodes/N/rotation`, ...), and one more that animates a material.
fn fox_by_pointers(out: &Path) -> String {
    fox_with(
        out,
        "fox-pointers.glb",
        &["KHR_animation_pointer"],
        &[],
        |json| {
            for animation in json["animations"].as_array_mut().unwrap() {
                let channels = animation["channels"].as_array_mut().unwrap();
                for channel in channels.iter_mut() {
                    let target = &channel["target"];
                    let pointer = format!(
                        "/nodes/{}/{}",
                        target["node"],
                        target["path"].as_str().unwrap()
                    );
                    channel["target"] = json!({
                        "path": "pointer",
                        "extensions": {"KHR_animation_pointer": {"pointer": pointer}}
                    });
                }
                let sampler = channels[0]["sampler"].clone();
                channels.push(json!({"sampler": sampler, "target": {
                "path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/pbrMetallicRoughness/baseColorFactor"}}
            }}));
            }
        },
    )
}

#[test]
fn animation_pointer_channels_on_bones_are_read_and_the_rest_are_noted() {
    // KHR_animation_pointer's path is `pointer`, not one of core glTF's
    // four: such files were refused whole. A pointer at a node's
    // translation, rotation or scale is that node's channel; a pointer at
    // anything else animates no bone and is left out with a note.
    let out = dir("pointer");
    let file = fox_by_pointers(&out);
    let (code, stdout, stderr) = secmo(&["import", &file]);
    assert_eq!(code, 0, "{stderr}");
    assert_reads_as_the_fox(&stdout);
    assert!(
        stdout.contains("note: animations[0]: 1 KHR_animation_pointer channel(s) animate no bone"),
        "{stdout}"
    );
    // The same motion: the report's figures for the Walk are the Fox's.
    let figures = |file: &str| {
        let dir = out.join("report");
        let (code, text, err) = secmo(&[
            "report",
            file,
            "--clip",
            "Walk",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let line = text
            .lines()
            .find(|l| l.starts_with("\"Walk\""))
            .unwrap()
            .to_owned();
        line.split("; update").next().unwrap().to_owned()
    };
    assert_eq!(figures(&file), figures(&asset("Fox.glb")));
    // A bake replaces the tail's authored rotations, pointer channels too:
    // each tail joint keeps one rotation channel, the baked one.
    let baked = out.join("baked.glb");
    let (code, _, stderr) = secmo(&[
        "bake",
        &file,
        "--clip",
        "Walk",
        "--out",
        baked.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let glb = Glb::read(&baked).unwrap();
    let tail: Vec<u64> = glb.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, n)| n["name"].as_str().is_some_and(|s| s.starts_with("b_Tail")))
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(tail.len(), 3);
    let walk = glb.json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "Walk")
        .unwrap();
    for node in tail {
        let rotations = walk["channels"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                secmo_cli::import::pointer_target(c) == Some((node, "rotation"))
                    || (c["target"]["node"] == node && c["target"]["path"] == "rotation")
            })
            .count();
        assert_eq!(rotations, 1, "node {node}");
    }
    std::fs::remove_dir_all(&out).ok();
}
