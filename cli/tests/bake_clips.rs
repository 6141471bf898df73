//! `secmo bake` on any clip (issue #17 item 4): loops are detected, a
//! one-shot is baked from a settled start and never wrapped, `--loop` and
//! `--once` override, and keys stay in one quaternion hemisphere.

mod common;

use std::path::{Path, PathBuf};

use glam::Quat;
use secmo_cli::bake::{angle, BakeOptions, Baker};
use secmo_cli::glb::Glb;
use secmo_cli::import::import;
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-bake-clips-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The Fox with one more clip, "Turn": the hips swing 100° about the vertical
/// over 1.5 s, ending there with the tail still trailing — a one-shot, like
/// a turn-to-idle or a death.
fn fox_with_a_one_shot(out: &Path) -> PathBuf {
    let mut glb = Glb::read(Path::new(&common::asset("Fox.glb"))).unwrap();
    let hips = 4; // b_Hip_01
    let rest = {
        let r = &glb.json["nodes"][hips]["rotation"];
        r.as_array().map_or(Quat::IDENTITY, |a| {
            let v: Vec<f32> = a.iter().map(|x| x.as_f64().unwrap() as f32).collect();
            Quat::from_xyzw(v[0], v[1], v[2], v[3])
        })
    };
    let times: Vec<f32> = (0..=45).map(|k| k as f32 / 30.0).collect();
    let values: Vec<f32> = times
        .iter()
        .flat_map(|&t| {
            let s = t / 1.5;
            let s = s * s * (3.0 - 2.0 * s);
            (Quat::from_rotation_z(100f32.to_radians() * s) * rest).to_array()
        })
        .collect();
    let input = glb.push_floats(&times, "SCALAR", true);
    let output = glb.push_floats(&values, "VEC4", false);
    glb.json["animations"].as_array_mut().unwrap().push(json!({
        "name": "Turn",
        "samplers": [{"input": input, "output": output, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": hips, "path": "rotation"}}]
    }));
    let path = out.join("fox-turn.glb");
    glb.write(&path).unwrap();
    path
}

#[test]
fn a_one_shot_clip_is_baked_from_a_settled_start_and_never_wrapped() {
    let out = dir("one-shot");
    let file = fox_with_a_one_shot(&out);
    let imported = import(&file).unwrap();
    let baker = Baker::new(imported.clone(), 100.0).unwrap();
    let clip = |name: &str| {
        imported
            .clips
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .clone()
    };
    let bind = baker.rig.reference_pose().to_vec();
    let units = baker.rig.units_per_meter();
    assert!(!secmo_cli::import::Clip::loops(
        clip("Turn").seam(&bind),
        units
    ));
    assert!(secmo_cli::import::Clip::loops(
        clip("Walk").seam(&bind),
        units
    ));

    let turn = baker
        .bake(&clip("Turn"), &BakeOptions::default(), true)
        .unwrap();
    assert!(!turn.looped, "detected as a one-shot");
    let walk = baker
        .bake(&clip("Walk"), &BakeOptions::default(), true)
        .unwrap();
    assert!(walk.looped, "Walk loops");
    for track in &turn.rotations {
        let n = track.len();
        // Settled start: the first two keys barely differ.
        assert!(
            angle(track[0], track[1]) < 0.5f32.to_radians(),
            "starts settled: {}°",
            angle(track[0], track[1]).to_degrees()
        );
        // Not wrapped: the last key is the end of the turn, not the start,
        // and no step between keys snaps.
        let last_step = angle(track[n - 2], track[n - 1]).to_degrees();
        assert!(last_step < 5.0, "last key steps {last_step}°");
        // One hemisphere: consecutive keys never have a negative dot.
        assert!(track.windows(2).all(|w| w[0].dot(w[1]) >= 0.0));
    }
    let ends = turn
        .rotations
        .iter()
        .map(|t| angle(t[0], *t.last().unwrap()).to_degrees())
        .fold(0.0f32, f32::max);
    assert!(ends > 5.0, "the tail still trails at the end: {ends}°");

    // --loop forces the old behaviour: the last key repeats the first.
    let forced = baker
        .bake(
            &clip("Turn"),
            &BakeOptions {
                looping: Some(true),
                ..BakeOptions::default()
            },
            true,
        )
        .unwrap();
    assert!(forced.looped);
    for t in &forced.rotations {
        assert!(angle(t[0], *t.last().unwrap()) < 1e-6);
    }
    // Looped, the clip starts where its own end left the tail (trailing
    // the turn); as a one-shot it starts settled on the first pose.
    let start = turn
        .rotations
        .iter()
        .zip(&forced.rotations)
        .map(|(a, b)| angle(a[0], b[0]).to_degrees())
        .fold(0.0f32, f32::max);
    assert!(start > 2.0, "wrapped and settled starts differ by {start}°");

    // The command line: detection and --once / --loop, reported.
    let baked = out.join("baked.glb");
    let baked = baked.to_str().unwrap();
    let file = file.to_str().unwrap();
    let (code, stdout, stderr) = common::secmo(&["bake", file, "--clip", "Turn", "--out", baked]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"Turn\": one-shot"), "{stdout}");
    let (code, stdout, _) =
        common::secmo(&["bake", file, "--clip", "Walk", "--once", "--out", baked]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\"Walk\": one-shot"), "{stdout}");
    let (code, _, stderr) = common::secmo(&["bake", file, "--loop", "--once", "--out", baked]);
    assert_eq!(code, 2, "--loop and --once conflict: {stderr}");
    std::fs::remove_dir_all(&out).ok();
}
