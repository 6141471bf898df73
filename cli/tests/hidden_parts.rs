//! A part hidden by a zero scale — keyed in a clip, or left at zero in the
//! file — does not stop the file from opening or the chains from moving,
//! unless it is a bone the chains read.

mod common;

use std::path::{Path, PathBuf};

use common::{asset, rotation_keys, secmo};
use secmo_cli::glb::Glb;
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-hidden-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The Fox with a prop node as its last scene root (node 26) at `prop_scale`;
/// `hide`: a channel in the first clip ("Survey") that scales node `hide`
/// from 1 to 0 over its first half second.
fn fox(out: &Path, name: &str, prop_scale: f32, hide: Option<u64>) -> PathBuf {
    let mut glb = Glb::read(Path::new(&asset("Fox.glb"))).unwrap();
    let prop = glb.json["nodes"].as_array().unwrap().len();
    glb.json["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "prop", "translation": [0.0, 50.0, 0.0],
                     "scale": [prop_scale, prop_scale, prop_scale]}));
    glb.json["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(prop));
    if let Some(node) = hide {
        let times = glb.push_floats(&[0.0, 0.5], "SCALAR", true);
        let scales = glb.push_floats(&[1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC3", false);
        let animation = &mut glb.json["animations"][0];
        let sampler = animation["samplers"].as_array().unwrap().len();
        animation["samplers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"input": times, "output": scales, "interpolation": "LINEAR"}));
        animation["channels"]
            .as_array_mut()
            .unwrap()
            .push(json!({"sampler": sampler, "target": {"node": node, "path": "scale"}}));
    }
    let path = out.join(name);
    glb.write(&path).unwrap();
    path
}

fn bake(file: &Path) -> (i32, String, PathBuf) {
    common::bake(file, &["--clip", "Survey"])
}

/// The Fox's tail nodes.
const TAIL: [u64; 3] = [15, 16, 17];

#[test]
fn a_prop_hidden_by_a_zero_scale_leaves_the_tail_as_it_was() {
    let out = dir("prop");
    let (code, text, shown) = bake(&fox(&out, "shown.glb", 1.0, None));
    assert_eq!(code, 0, "{text}");
    // Hidden by the clip, and hidden in the file itself.
    for (name, scale) in [("keyed.glb", 1.0), ("rest.glb", 0.0)] {
        let (code, text, hidden) = bake(&fox(&out, name, scale, Some(26)));
        assert_eq!(code, 0, "{name}: {text}");
        for node in TAIL {
            let (a, b) = (rotation_keys(&shown, node), rotation_keys(&hidden, node));
            assert!(a.len() > 100);
            assert_eq!(a, b, "{name}: tail node {node}");
        }
    }
    // `import` opens the file with the prop at a zero scale.
    let (code, stdout, stderr) =
        secmo(&["import", fox(&out, "rest.glb", 0.0, None).to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("27 bones (nodes)"), "{stdout}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_zero_scale_on_a_bone_the_tail_reads_is_refused_naming_it() {
    let out = dir("tail");
    // The tail's first joint scaled to zero by the clip.
    let (code, text, _) = bake(&fox(&out, "tail.glb", 1.0, Some(TAIL[0])));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("clip \"Survey\" at frame")
            && text.contains("scale has a zero component (b_Tail01_012)"),
        "{text}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_zero_scale_above_the_tail_in_the_file_is_refused_naming_the_node() {
    let out = dir("root");
    let mut glb = Glb::read(Path::new(&asset("Fox.glb"))).unwrap();
    glb.json["nodes"][0]["scale"] = json!([0.0, 0.0, 0.0]);
    let file = out.join("root.glb");
    glb.write(&file).unwrap();
    let (code, text, _) = bake(&file);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("bone 0: reference scale has a zero component") && text.contains("(root)"),
        "{text}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// A VRM 1.0 strand under `head`, and a `prop` beside it; `root_scale` and
/// `prop_scale` are the root's and the prop's scales in the file.
fn strand(out: &Path, name: &str, root_scale: f32, prop_scale: f32) -> PathBuf {
    let gltf = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "root", "scale": [root_scale, root_scale, root_scale], "children": [1, 5]},
            {"name": "head", "translation": [0.0, 1.5, 0.0], "children": [2]},
            {"name": "hair_0", "translation": [0.0, 0.1, -0.05], "children": [3]},
            {"name": "hair_1", "translation": [0.0, -0.1, 0.0], "children": [4]},
            {"name": "hair_2", "translation": [0.0, -0.1, 0.0]},
            {"name": "prop", "translation": [0.3, 1.0, 0.0], "scale": [prop_scale, prop_scale, prop_scale]}
        ],
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0",
            "springs": [{"joints": [{"node": 2}, {"node": 3}, {"node": 4}]}]}}
    });
    let path = out.join(name);
    std::fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    path
}

#[test]
fn vrm_settings_warns_when_a_zero_scale_sits_above_a_spring() {
    let out = dir("vrm");
    let settings = out.join("out.json");
    let run = |file: &Path| common::vrm_settings(file, &settings);
    let hidden_prop = run(&strand(&out, "prop.gltf", 1.0, 0.0));
    assert!(!hidden_prop.contains("warning"), "{hidden_prop}");
    let hidden_root = run(&strand(&out, "root.gltf", 0.0, 1.0));
    assert!(
        hidden_root.contains(
            "warning: a rig of these settings on the file's own nodes is refused: \
             bone 0: reference scale has a zero component"
        ) && hidden_root.contains("(root)"),
        "{hidden_root}"
    );
    std::fs::remove_dir_all(&out).ok();
}
