//! `secmo rig` never lowers the skin quality of what it does not grow
//! (issue #17 item 5): a well-rigged character passes through with every
//! weight unchanged, skin that already follows a bone chain is left alone,
//! weightless bones count as no rigging, and it says when it grows nothing.

#[path = "../../tests/support/tools.rs"]
#[macro_use]
mod tools;

mod common;

use std::path::{Path, PathBuf};

use common::{asset, secmo};
use secmo_cli::glb::Glb;
use secmo_cli::import::import;
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-rig-quality-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tail_bones(fox: &secmo_cli::import::Imported) -> Vec<u32> {
    fox.tail().iter().map(|&b| b as u32).collect()
}

/// The Fox with its mesh rewritten: `edit(position, influences)` per vertex.
fn fox_edited(
    out: &Path,
    name: &str,
    edit: impl Fn(&mut glam::Vec3, &mut [(u32, f32); 4]),
) -> PathBuf {
    let fox = import(Path::new(&asset("Fox.glb"))).unwrap();
    let mesh = &fox.meshes[0];
    let mut glb = Glb::read(Path::new(&asset("Fox.glb"))).unwrap();
    let joints = &fox.skins[mesh.skin];
    let (mut positions, mut js, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    for (p, inf) in mesh.positions.iter().zip(&mesh.influences) {
        let (mut p, mut inf) = (*p, *inf);
        edit(&mut p, &mut inf);
        positions.extend(p.to_array());
        for (b, w) in inf {
            match joints.iter().position(|&j| j == b as usize) {
                Some(j) => {
                    js.push(j as u32);
                    ws.push(w);
                }
                None => {
                    assert_eq!(w, 0.0, "a weighted bone outside the skin");
                    js.push(0);
                    ws.push(0.0);
                }
            }
        }
    }
    let position = glb.push_floats(&positions, "VEC3", true);
    let joints_accessor = glb.push_indices(&js, "VEC4");
    let weights = glb.push_floats(&ws, "VEC4", false);
    let attributes = &mut glb.json["meshes"][mesh.mesh]["primitives"][mesh.primitive]["attributes"];
    attributes["POSITION"] = json!(position);
    attributes["JOINTS_0"] = json!(joints_accessor);
    attributes["WEIGHTS_0"] = json!(weights);
    let path = out.join(name);
    glb.write(&path).unwrap();
    path
}

fn a_well_rigged_fox_passes_through_with_identical_weights() {
    let out = dir("fox");
    let written = out.join("fox.glb");
    let (code, stdout, stderr) = secmo(&[
        "rig",
        &asset("Fox.glb"),
        "-o",
        written.to_str().unwrap(),
        "--write-unchanged",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("nothing grown"), "{stdout}");
    let (before, after) = (
        import(Path::new(&asset("Fox.glb"))).unwrap(),
        import(&written).unwrap(),
    );
    assert_eq!(before.meshes.len(), after.meshes.len());
    for (a, b) in before.meshes.iter().zip(&after.meshes) {
        assert_eq!(
            a.influences, b.influences,
            "{}: every weight unchanged",
            a.name
        );
    }
    std::fs::remove_dir_all(&out).ok();
}

fn skin_that_already_follows_a_bone_chain_is_left_alone() {
    // The Fox's tail skin puffed out to five times its thickness (far from
    // the skeleton, like thick fur) but still weighted along its tail
    // bones: it is rigged, and rig keeps its weights.
    let out = dir("fur");
    let fox = import(Path::new(&asset("Fox.glb"))).unwrap();
    let tail = tail_bones(&fox);
    let joint =
        |b: u32| glam::Vec3::from(fox.meshes[0].inverse_bind[b as usize].inverse().translation);
    let axis: Vec<glam::Vec3> = tail.iter().map(|&b| joint(b)).collect();
    let lifted = fox_edited(&out, "lifted.glb", |p, inf| {
        let on_tail: f32 = inf
            .iter()
            .filter(|(b, _)| tail.contains(b))
            .map(|(_, w)| w)
            .sum();
        if on_tail > 0.99 {
            // Nearest point on the tail's bone line, pushed away from it.
            let nearest = axis
                .windows(2)
                .map(|w| {
                    let d = w[1] - w[0];
                    w[0] + d * ((*p - w[0]).dot(d) / d.length_squared()).clamp(0.0, 1.0)
                })
                .min_by(|a, b| a.distance(*p).total_cmp(&b.distance(*p)))
                .unwrap();
            *p = nearest + (*p - nearest) * 5.0;
        }
    });
    let written = out.join("rigged.glb");
    let (code, stdout, stderr) = secmo(&[
        "rig",
        lifted.to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
        "--write-unchanged",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("already follows the bones b_Tail02_013 → b_Tail03_014"),
        "{stdout}"
    );
    let (before, after) = (import(&lifted).unwrap(), import(&written).unwrap());
    assert_eq!(before.meshes[0].influences, after.meshes[0].influences);
    std::fs::remove_dir_all(&out).ok();
}

/// The Fox with its tail bones kept but its tail skin handed to the hips
/// (what a humanoid auto-rigger does), written to `out/emptied.glb`.
fn fox_with_weightless_tail(out: &Path) -> PathBuf {
    let fox = import(Path::new(&asset("Fox.glb"))).unwrap();
    let tail = tail_bones(&fox);
    let hips = fox
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == "b_Hip_01")
        .unwrap() as u32;
    let emptied = fox_edited(out, "emptied.glb", |_, inf| {
        let on_tail: f32 = inf
            .iter()
            .filter(|(b, _)| tail.contains(b))
            .map(|(_, w)| w)
            .sum();
        if on_tail > 0.0 {
            let rest: Vec<(u32, f32)> = inf
                .iter()
                .copied()
                .filter(|(b, _)| !tail.contains(b))
                .collect();
            let mut merged = [(hips, on_tail), (0, 0.0), (0, 0.0), (0, 0.0)];
            for (k, (b, w)) in rest
                .into_iter()
                .filter(|(_, w)| *w > 0.0)
                .take(3)
                .enumerate()
            {
                if b == hips {
                    merged[0].1 += w;
                } else {
                    merged[k + 1] = (b, w);
                }
            }
            *inf = merged;
        }
    });
    emptied
}

fn weightless_tail_bones_count_as_no_rigging() {
    // The Fox's tail bones kept, its tail skin handed to the hips (what a
    // humanoid auto-rigger does): the tail is found and grown.
    let out = dir("weightless");
    let emptied = fox_with_weightless_tail(&out);
    let written = out.join("grown.glb");
    let (code, stdout, stderr) = secmo(&[
        "rig",
        emptied.to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("3 weightless skin joints count as no bones"),
        "{stdout}"
    );
    assert!(stdout.contains("chain of"), "the tail is grown: {stdout}");
    std::fs::remove_dir_all(&out).ok();
}

fn written_files_pass_the_khronos_validator() {
    // What secmo writes, checked by the Khronos glTF validator (not by the
    // gltf crate secmo reads with): an edited copy, a grown tail (new bones,
    // new skin weights) and bakes of the Fox and of the grown Fox.
    let out = dir("khronos");
    let emptied = fox_with_weightless_tail(&out);
    let grown = out.join("grown.glb");
    let baked = out.join("fox.baked.glb");
    let grown_baked = out.join("grown.baked.glb");
    for args in [
        vec![
            "rig",
            emptied.to_str().unwrap(),
            "-o",
            grown.to_str().unwrap(),
        ],
        vec!["bake", &asset("Fox.glb"), "--out", baked.to_str().unwrap()],
        vec![
            "bake",
            grown.to_str().unwrap(),
            "--out",
            grown_baked.to_str().unwrap(),
        ],
    ] {
        let (code, _, stderr) = secmo(&args);
        assert_eq!(code, 0, "secmo {args:?}: {stderr}");
    }
    common::assert_khronos_valid(&[&emptied, &grown, &baked, &grown_baked]);
    std::fs::remove_dir_all(&out).ok();
}

fn main() {
    tools::run(cases![
        a_well_rigged_fox_passes_through_with_identical_weights,
        skin_that_already_follows_a_bone_chain_is_left_alone,
        weightless_tail_bones_count_as_no_rigging,
        written_files_pass_the_khronos_validator[tools::gltf_validator],
    ]);
}
