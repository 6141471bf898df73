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
    let turn_wrap = clip("Turn").wrap(&bind);
    assert!(!turn_wrap.is_cycle(), "{turn_wrap:?}");
    let walk_wrap = clip("Walk").wrap(&bind);
    assert!(walk_wrap.is_cycle(), "{walk_wrap:?}");
    assert!(!walk_wrap.lacks_closing_key(), "{walk_wrap:?}");

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

    // --loop bakes it as a cycle all the same: its last interval plays back
    // into the first pose, and the keys stop at the clip's own end.
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
    assert!(*forced.times.last().unwrap() <= clip("Turn").duration + 1e-4);
    assert!(forced.closing_error < 1e-3, "{}", forced.closing_error);
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
    let (code, stdout, _) = common::secmo(&[
        "bake", file, "--clip", "Walk", "--once", "Walk", "--out", baked,
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\"Walk\": one-shot"), "{stdout}");
    assert!(stdout.contains("\"Walk\": one-shot (--once)"), "{stdout}");
    let (code, stdout, _) = common::secmo(&[
        "bake", file, "--clip", "Turn", "--loop", "Turn", "--out", baked,
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\"Turn\": loop (--loop)"), "{stdout}");
    let (code, _, stderr) = common::secmo(&[
        "bake", file, "--loop", "Walk", "--once", "Walk", "--out", baked,
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("both --loop and --once"), "{stderr}");
    let (code, _, stderr) = common::secmo(&["bake", file, "--loop", "Trot", "--out", baked]);
    assert_ne!(code, 0);
    assert!(stderr.contains("no clip named \"Trot\""), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
}

/// Issue #48 item 3: a cycle exported without its closing key (every
/// Quaternius clip is) is told from a one-shot by its motion: its last pose
/// extrapolated by one key meets its first. It is baked as a loop whose last
/// interval plays back into the first pose, and its keys stop at the clip's
/// own end, so the baked tail wraps as the artist's does.
#[test]
fn a_cycle_without_its_closing_key_is_baked_as_a_loop_that_wraps_like_the_artists() {
    let imported = import(Path::new(&common::asset("Fox.glb"))).unwrap();
    let baker = Baker::new(imported.clone(), 100.0).unwrap();
    let walk = imported.clips.iter().find(|c| c.name == "Walk").unwrap();
    // The Fox's Walk keys its closing pose; without it, it is the kind of
    // cycle FBX2glTF exports.
    let mut open = walk.clone();
    for c in &mut open.channels {
        c.times.pop();
        let per_key = c.values.len() / (c.times.len() + 1);
        c.values.truncate(c.values.len() - per_key);
    }
    open.duration = open
        .channels
        .iter()
        .map(|c| *c.times.last().unwrap())
        .fold(0.0, f32::max);
    let bind = baker.rig.reference_pose().to_vec();
    let wrap = open.wrap(&bind);
    assert!(wrap.is_cycle() && wrap.lacks_closing_key(), "{wrap:?}");
    let baked = baker.bake(&open, &BakeOptions::default(), true).unwrap();
    assert!(baked.looped);
    // Keys stop at the clip's end, and reach it: the tail's track is as
    // long as the body's (a player would hold a shorter one's last key).
    assert_eq!(
        *baked.times.last().unwrap(),
        open.duration,
        "keys end on the clip's end"
    );
    let dt = baked.times[1] - baked.times[0];
    for w in baked.times.windows(2) {
        assert!((w[1] - w[0] - dt).abs() < 1e-5, "evenly spaced: {w:?}");
    }
    // The warm-up closed the loop through the extra interval.
    assert!(baked.closing_error < 1e-3, "{}", baked.closing_error);
    // The wrap (last key to first) spans the clip's missing interval, and
    // moves the tail no more than the baked motion does elsewhere over as
    // long: it is a step of the motion, not a snap.
    let span = open.duration + open.key_interval() - baked.times.last().unwrap();
    let window = ((span / dt).round() as usize).max(1);
    for track in &baked.rotations {
        let wrap = angle(*track.last().unwrap(), track[0]);
        let largest = track
            .windows(window + 1)
            .map(|w| angle(w[0], w[window]))
            .fold(0.0f32, f32::max);
        assert!(
            wrap <= largest * 1.25 + 1e-4,
            "wraps {}° where it moves at most {}° over {window} keys elsewhere",
            wrap.to_degrees(),
            largest.to_degrees()
        );
    }
}
