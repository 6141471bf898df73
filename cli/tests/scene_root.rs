//! A spring or a tail whose first joint is a glTF scene root (a strap or a
//! tail exported as its own node tree, nothing above it) is baked and
//! reported like one that hangs from a bone: the tool puts the character
//! under the identity bone the VRM import adds above the scene roots
//! (`secmo::vrm::SCENE_ROOT`), so the keys are those of the same strap below
//! an identity node in the file.

mod common;

use std::path::{Path, PathBuf};

use common::{rotation_keys, secmo};
use secmo_cli::glb::Glb;
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-scene-root-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A three-link strap (`{prefix}_0` to `{prefix}_end`) whose first joint is
/// moved 0.3 m sideways over 0.5 s by the clip "Sway", then held for 1 s,
/// and a post beside it. `held`: the strap hangs from an identity node
/// `holder` instead of being a scene root. `vrm`: the strap is a VRM 1.0
/// spring with a sphere collider on the post (otherwise the tool finds it
/// as a tail by its name).
fn strap(out: &Path, prefix: &str, held: bool, vrm: bool) -> PathBuf {
    let n = |k: &str| format!("{prefix}_{k}");
    // Held, the holder is node 0 and the rest one further on, so the
    // skeleton lists the bones in the same order (glTF roots by index).
    let o = u64::from(held);
    let mut nodes = vec![
        json!({"name": n("0"), "translation": [0.0, 1.2, 0.0], "children": [o + 1]}),
        json!({"name": n("1"), "translation": [0.0, -0.1, -0.02], "children": [o + 2]}),
        json!({"name": n("2"), "translation": [0.0, -0.1, 0.0], "children": [o + 3]}),
        json!({"name": n("end"), "translation": [0.0, -0.1, 0.0]}),
        json!({"name": "post", "translation": [0.0, 1.0, -0.1]}),
    ];
    if held {
        nodes.insert(0, json!({"name": "holder", "children": [1]}));
    }
    let mut gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo cli/tests/scene_root.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0, o + 4]}],
        "nodes": nodes,
    });
    if vrm {
        let joint = |node: u64| {
            json!({"node": node, "stiffness": 0.5, "dragForce": 0.3,
                   "gravityPower": 0.6, "hitRadius": 0.02})
        };
        gltf["extensionsUsed"] = json!(["VRMC_springBone"]);
        gltf["extensions"] = json!({"VRMC_springBone": {"specVersion": "1.0",
            "colliders": [{"node": o + 4, "shape": {"sphere": {"offset": [0.0, 0.0, 0.0], "radius": 0.06}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [{"name": "strap", "colliderGroups": [0],
                "joints": [joint(o), joint(o + 1), joint(o + 2), {"node": o + 3}]}]}});
    }
    // A ribbon skinned to the strap (rows at the joints, and between them
    // rows shared half and half), its node after the others.
    let mesh_node = o + 5;
    gltf["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "ribbon", "mesh": 0, "skin": 0}));
    gltf["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(mesh_node));
    let heads = [
        [0.0, 1.2, 0.0],
        [0.0, 1.1, -0.02],
        [0.0, 1.0, -0.02],
        [0.0, 0.9, -0.02],
    ];
    let (mut positions, mut joints, mut weights, mut triangles) = (vec![], vec![], vec![], vec![]);
    for row in 0..7u32 {
        let (k, half) = ((row / 2) as usize, row % 2 == 1);
        let at: [f32; 3] = if half {
            std::array::from_fn(|i| 0.5 * (heads[k][i] + heads[k + 1][i]))
        } else {
            heads[k]
        };
        for side in [-0.02, 0.02] {
            positions.extend([at[0] + side, at[1], at[2]]);
            let next = (k + usize::from(half)) as u32;
            joints.extend([k as u32, next, 0, 0]);
            weights.extend(if half {
                [0.5, 0.5, 0.0, 0.0]
            } else {
                [1.0, 0.0, 0.0, 0.0]
            });
        }
        if row > 0 {
            let (a, b) = (2 * (row - 1), 2 * row);
            triangles.extend([a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    let inverse_binds: Vec<f32> = heads
        .iter()
        .flat_map(|h| {
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -h[0], -h[1], -h[2],
                1.0,
            ]
        })
        .collect();
    let mut glb = Glb::new(gltf);
    let position = glb.push_floats(&positions, "VEC3", true);
    let joint_ids = glb.push_indices(&joints, "VEC4");
    let weight = glb.push_floats(&weights, "VEC4", false);
    let indices = glb.push_indices(&triangles, "SCALAR");
    let binds = glb.push_floats(&inverse_binds, "MAT4", false);
    glb.json["meshes"] = json!([{"primitives": [{"attributes":
        {"POSITION": position, "JOINTS_0": joint_ids, "WEIGHTS_0": weight},
        "indices": indices}]}]);
    glb.json["skins"] = json!([{"joints": [o, o + 1, o + 2, o + 3], "inverseBindMatrices": binds}]);
    let times = glb.push_floats(&[0.0, 0.25, 0.5, 1.5], "SCALAR", true);
    let moves = glb.push_floats(
        &[0.0, 1.2, 0.0, 0.15, 1.2, 0.0, 0.3, 1.2, 0.0, 0.3, 1.2, 0.0],
        "VEC3",
        false,
    );
    glb.json["animations"] = json!([{"name": "Sway",
        "samplers": [{"input": times, "output": moves, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": o, "path": "translation"}}]}]);
    let path = out.join(format!(
        "{prefix}{}{}.glb",
        if held { "_held" } else { "_root" },
        if vrm { "_vrm" } else { "" }
    ));
    glb.write(&path).unwrap();
    path
}

fn bake(file: &Path) -> PathBuf {
    let (code, text, out) = common::bake(file, &["--units-per-meter", "1"]);
    assert_eq!(code, 0, "bake {}: {text}", file.display());
    out
}

#[test]
fn a_spring_or_tail_at_a_scene_root_bakes_as_under_an_identity_node() {
    let out = dir("bake");
    for (prefix, vrm) in [("strap", true), ("tail", false)] {
        let root = bake(&strap(&out, prefix, false, vrm));
        let held = bake(&strap(&out, prefix, true, vrm));
        if vrm {
            // Baked into the only clip: the copy leaves the spring bones
            // out, so that a VRM player does not run them again.
            let (code, text, baked) = common::bake(
                &strap(&out, prefix, false, vrm),
                &["--units-per-meter", "1"],
            );
            assert_eq!(code, 0, "{text}");
            assert!(text.contains("leaves them out"), "{text}");
            let json = Glb::read(&baked).unwrap().json;
            assert!(json["extensions"].get("VRMC_springBone").is_none());
            assert!(
                json.get("extensionsUsed").is_none(),
                "{}",
                json["extensionsUsed"]
            );
        }
        let mut largest_turn = 0.0f32;
        for node in 0..3 {
            let (a, b) = (rotation_keys(&root, node), rotation_keys(&held, node + 1));
            assert_eq!(a.len(), b.len(), "{prefix}: node {node}'s key count");
            assert!(a.len() >= 4 * 80, "{prefix}: {} floats", a.len());
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert!(
                    x == y,
                    "{prefix}: node {node} key {} component {}: {x} at the scene root, {y} held",
                    k / 4,
                    k % 4
                );
            }
            // The keys are the chain's motion, not the rest pose: the rest
            // rotations are identity, so the angle is 2 acos |w|.
            for q in a.chunks_exact(4) {
                largest_turn = largest_turn.max(2.0 * q[3].abs().min(1.0).acos());
            }
        }
        assert!(
            largest_turn > 5f32.to_radians(),
            "{prefix}: the strap swings only {:.2}°",
            largest_turn.to_degrees()
        );
    }
    std::fs::remove_dir_all(&out).ok();
}

/// The report's tables (edge stretch of the skinned ribbon, with the
/// secmo rows) and the settling line, without the timings.
fn report(file: &Path, out: &Path) -> Vec<String> {
    let (code, stdout, stderr) = secmo(&[
        "report",
        file.to_str().unwrap(),
        "--units-per-meter",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "report {}: {stdout}{stderr}", file.display());
    std::fs::read_to_string(out.join("report.md"))
        .unwrap()
        .lines()
        .filter(|l| {
            l.starts_with("| chains") || l.starts_with("| body") || l.contains("chain from")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn a_spring_or_tail_at_a_scene_root_is_reported_as_under_an_identity_node() {
    let out = dir("report");
    for (prefix, vrm) in [("strap", true), ("tail", false)] {
        let root = report(
            &strap(&out, prefix, false, vrm),
            &out.join(format!("{prefix}_root")),
        );
        let held = report(
            &strap(&out, prefix, true, vrm),
            &out.join(format!("{prefix}_held")),
        );
        assert_eq!(root, held, "{prefix}");
        // The skinned ribbon is measured: its edges count as chain edges,
        // and the harness check (the strap held rigid) reads 1.000.
        let row = |name: &str| -> Vec<String> {
            root.iter()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{prefix}: no {name} row in {root:?}"))
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        };
        let edges: usize = row("| chains, secmo")[2].parse().unwrap();
        assert!(edges > 0, "{prefix}: {root:?}");
        assert_eq!(row("| chains, rigid")[5], "1.000", "{prefix}: {root:?}");
        assert!(
            root.iter()
                .any(|l| l.contains(&format!("chain from {prefix}_0"))),
            "{root:?}"
        );
    }
    // The skeleton a user sees in `import` is the file's: no added bone.
    let (code, stdout, _) = secmo(&[
        "import",
        strap(&out, "strap", false, true).to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("6 bones (nodes)"), "{stdout}");
    std::fs::remove_dir_all(&out).ok();
}
