//! `secmo bake` (issue #5, docs/algorithms.md §11): the Fox's tail driven by secmo, baked
//! into keyframes, re-imported and played without secmo.

mod common;

use std::path::{Path, PathBuf};

use gltf::animation::Property;
use secmo_cli::bake::{angle, write_glb, BakeOptions, Baker};
use secmo_cli::import::{import, Clip, Imported};

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/assets")
        .join(name)
}

#[test]
fn fox_tail_bakes_round_trips_and_closes_its_loop() {
    let fox = import(&asset("Fox.glb")).unwrap();
    let walk = fox.clips.iter().find(|c| c.name == "Walk").unwrap().clone();
    // Without the skin guard (docs/chains.md "The skin guard"), so that the
    // tail moves off its keys and a cold start leaves a seam to close: with
    // it the Walk's tail rides its keys and a cold start closes too.
    let unguarded = secmo::ChainParams {
        key_margin: std::f32::consts::PI,
        ..Baker::tail_params(100.0)
    };
    let baker = Baker::with_tail(fox, 100.0, unguarded).unwrap();
    let options = BakeOptions::default();
    let warm = baker.bake(&walk, &options, true).unwrap();
    let cold = baker.bake(&walk, &options, false).unwrap();
    eprintln!(
        "warm passes {} closing {:.3e} rad; cold closing {:.3e} rad",
        warm.passes, warm.closing_error, cold.closing_error
    );

    // Written into a copy of the GLB and read back with the importer.
    let out = std::env::temp_dir().join(format!("secmo-bake-{}.glb", std::process::id()));
    write_glb(&asset("Fox.glb"), &out, &baker, std::slice::from_ref(&warm)).unwrap();
    let baked = import(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let clip = baked.clips.iter().find(|c| c.name == "Walk").unwrap();
    let mut worst = 0.0f32;
    for (k, &joint) in baker.joints.iter().enumerate() {
        let tracks: Vec<_> = clip
            .channels
            .iter()
            .filter(|c| c.bone == joint && c.property == Property::Rotation)
            .collect();
        assert_eq!(tracks.len(), 1, "the authored rotation track is replaced");
        let mut pose = baked
            .skeleton
            .bones
            .iter()
            .map(|b| b.reference)
            .collect::<Vec<_>>();
        for (f, &t) in warm.times.iter().enumerate() {
            clip.sample(t, &mut pose);
            let e = angle(pose[joint].rotation(), warm.rotations[k][f]);
            worst = worst.max(e);
        }
    }
    eprintln!("round trip {worst:.3e} rad");
    assert!(
        worst < 1e-4,
        "baked keys replay the simulation: {worst} rad"
    );
    // Everything else in the clip is kept (3 tail tracks out, 3 in).
    assert_eq!(clip.channels.len(), walk.channels.len());

    // docs/algorithms.md §11: warm-up closes the loop; a cold start leaves a visible seam.
    assert!((1..=options.max_passes).contains(&warm.passes));
    assert!(warm.closing_error < 1e-4, "{} rad", warm.closing_error);
    assert!(
        cold.closing_error > 100.0 * warm.closing_error.max(1e-6),
        "cold {} rad vs warm {} rad",
        cold.closing_error,
        warm.closing_error
    );
}

#[test]
fn every_fox_clip_closes_after_warm_up() {
    let fox = import(&asset("Fox.glb")).unwrap();
    let clips = fox.clips.clone();
    let baker = Baker::new(fox, 100.0).unwrap();
    for clip in &clips {
        let warm = baker.bake(clip, &BakeOptions::default(), true).unwrap();
        let cold = baker.bake(clip, &BakeOptions::default(), false).unwrap();
        eprintln!(
            "{}: {} passes, closing {:.2e} rad (cold {:.2e})",
            clip.name, warm.passes, warm.closing_error, cold.closing_error
        );
        assert!(
            warm.closing_error < 1e-4,
            "{}: {} rad",
            clip.name,
            warm.closing_error
        );
        assert!(cold.closing_error > warm.closing_error, "{}", clip.name);
    }
}

#[test]
fn a_rig_without_a_tail_is_refused_by_name() {
    let robot = import(&asset("RobotExpressive.glb")).unwrap();
    let e = Baker::new(robot, 1.0).err().unwrap().to_string();
    assert!(
        e.contains("RobotExpressive.glb") && e.contains("nothing for secmo to move"),
        "{e}"
    );
}

/// `--blend W`: each key is the authored rotation slerped toward secmo's by
/// W, so W = 0.5 lands halfway (in angle) between the two, W = 0 keeps the
/// authored tail.
#[test]
fn blend_slerps_from_the_authored_tail_toward_secmo() {
    let fox = import(&asset("Fox.glb")).unwrap();
    let walk = fox.clips.iter().find(|c| c.name == "Walk").unwrap().clone();
    // On the rest arc, where the simulated tail is far from the authored
    // one (around the animation it stays within a degree of it).
    let params = secmo::ChainParams {
        rest_source: secmo::ChainParams::REST_BIND,
        ..Baker::tail_params(100.0)
    };
    let baker = Baker::with_tail(fox, 100.0, params).unwrap();
    let full = baker.bake(&walk, &BakeOptions::default(), true).unwrap();
    let half = baker
        .bake(
            &walk,
            &BakeOptions {
                blend: 0.5,
                ..BakeOptions::default()
            },
            true,
        )
        .unwrap();
    let none = baker
        .bake(
            &walk,
            &BakeOptions {
                blend: 0.0,
                ..BakeOptions::default()
            },
            true,
        )
        .unwrap();
    let mut pose = baker.rig.reference_pose().to_vec();
    let mut apart = 0.0f32;
    for (f, &t) in full.times.iter().enumerate() {
        walk.sample(t, &mut pose);
        for (k, &j) in baker.joints.iter().enumerate() {
            let authored = pose[j].rotation();
            let (to_full, to_half) = (
                angle(authored, full.rotations[k][f]),
                angle(authored, half.rotations[k][f]),
            );
            assert!(
                (to_half - 0.5 * to_full).abs() < 1e-4,
                "frame {f} joint {k}: {to_half} vs half of {to_full}"
            );
            assert!(angle(half.rotations[k][f], full.rotations[k][f]) <= to_full);
            assert!(angle(authored, none.rotations[k][f]) < 1e-5);
            apart = apart.max(to_full);
        }
    }
    // The authored and simulated tails really differ, so the check has teeth.
    assert!(apart > 0.05, "{apart}");
    assert!(half.closing_error < 1e-4, "{}", half.closing_error);
}

/// The tail does not depend on the unit the file was exported in: the
/// Fox (a centimetre export) with every length a hundredth as long (a
/// metre export), and the Husky (whose size no unit makes plausible, so
/// that it is taken at the assumed size) with every length 100 times as
/// long, are inferred to be the same size in metres and bake the same
/// tail, to float rounding (measured: at most 0.0003°), on a cycle and on
/// a one-shot.
#[test]
fn an_animal_in_other_units_bakes_the_same_tail() {
    for (file, k, clips) in [
        ("Fox.glb", 0.01, &["Walk"][..]),
        ("animals/Husky.glb", 100.0, &["Gallop", "Death"][..]),
    ] {
        let given = import(&asset(file)).unwrap();
        let other = common::in_other_units(&given, k);
        let (ug, uo) = (given.units(None).0, other.units(None).0);
        let metres = |i: &secmo_cli::import::Imported, u: f32| i.infer_units().unwrap().size / u;
        assert!(
            (metres(&given, ug) / metres(&other, uo) - 1.0).abs() < 1e-4,
            "{file}: {} m, and {} m with every length {k} times as long",
            metres(&given, ug),
            metres(&other, uo)
        );
        let (bg, bo) = (
            Baker::new(given.clone(), ug).unwrap(),
            Baker::new(other.clone(), uo).unwrap(),
        );
        for name in clips {
            let find = |i: &secmo_cli::import::Imported| {
                i.clips
                    .iter()
                    .find(|c| c.name.rsplit('|').next() == Some(*name))
                    .unwrap()
                    .clone()
            };
            let options = BakeOptions::default();
            let (a, b) = (
                bg.bake(&find(&given), &options, true).unwrap(),
                bo.bake(&find(&other), &options, true).unwrap(),
            );
            assert_eq!(a.looped, b.looped, "{file} {name}");
            assert_eq!(a.times.len(), b.times.len(), "{file} {name}");
            let largest = |f: &dyn Fn(usize, usize) -> f32| {
                (0..a.rotations.len())
                    .flat_map(|j| (0..a.times.len()).map(move |t| (j, t)))
                    .map(|(j, t)| f(j, t))
                    .fold(0.0f32, f32::max)
                    .to_degrees()
            };
            let apart = largest(&|j, t| angle(a.rotations[j][t], b.rotations[j][t]));
            assert!(
                apart < 0.01,
                "{file} {name}: the tails differ by {apart:.4}°"
            );
            // Not two still tails: the tail turns over the clip.
            let turn = largest(&|j, t| angle(a.rotations[j][t], a.rotations[j][0]));
            assert!(turn > 5.0, "{file} {name}: the tail turns only {turn:.2}°");
        }
    }
}

/// The Husky, its size, its tail's bones and its clip named `…suffix`.
fn husky_clip(suffix: &str) -> (Imported, f32, Vec<usize>, Clip) {
    let husky = import(&asset("animals/Husky.glb")).unwrap();
    let (units, _) = husky.units(None);
    let tail = husky.tail();
    let clip = husky
        .clips
        .iter()
        .find(|c| c.name.ends_with(suffix))
        .unwrap_or_else(|| panic!("the Husky's {suffix}"))
        .clone();
    (husky, units, tail, clip)
}

/// A one-shot whose first key holds the tail on its bind pose and whose
/// later keys turn it: the settled start holds the first pose in the rest
/// the clip plays in (around the animation), so the tail does not settle
/// on the rest arc and snap to the keys at the second key. The tail keys
/// turn 0.3° a key from bind; the largest step of the output stays within
/// issue #48's bar (twice the clip's + 2°), through the C ABI and in the
/// bake. Settled on the rest arc first, it stepped 13.8° at that key
/// (a held-out rabbit's idle, docs/chains.md, 53.8°).
#[test]
fn a_one_shot_starting_on_the_bind_pose_starts_around_the_animation() {
    let (husky, units, tail, mut clip) = husky_clip("|Death");
    let mut edited = 0;
    for ch in &mut clip.channels {
        if ch.property != Property::Rotation || !tail.contains(&ch.bone) {
            continue;
        }
        assert_eq!(ch.interpolation, gltf::animation::Interpolation::Linear);
        let bind = glam::Quat::from_array(husky.skeleton.bones[ch.bone].reference.rotation);
        for (k, v) in ch.values.iter_mut().enumerate() {
            let turn = glam::Quat::from_rotation_y((0.3 * k as f32).min(20.0).to_radians());
            *v = (bind * turn).to_array();
        }
        edited += 1;
    }
    assert!(edited >= 5, "the tail's rotation channels ({edited})");
    let bind: Vec<_> = husky.skeleton.bones.iter().map(|b| b.reference).collect();
    assert!(!clip.wrap(&bind).is_cycle(), "a one-shot");
    let baker = Baker::new(husky.clone(), units).unwrap();
    // Through the C ABI at 60 Hz, as tail_fidelity runs it.
    let a = secmo_cli::carriage::Acceptance::measure(&baker, &clip, units).unwrap();
    let (ours, artist) = a.fidelity.largest_step;
    assert!(
        ours <= 2.0 * artist + 2.0,
        "runtime: largest step {ours}° against the clip's {artist}°"
    );
    // And the bake's keys.
    let baked = baker.bake(&clip, &BakeOptions::default(), true).unwrap();
    let largest = baked
        .rotations
        .iter()
        .flat_map(|keys| keys.windows(2).map(|w| angle(w[0], w[1]).to_degrees()))
        .fold(0.0f32, f32::max);
    let per_key = 0.3 * baked.times[1] * 24.0;
    assert!(
        largest <= 2.0 * per_key + 2.0,
        "bake: largest step {largest}° against the clip's {per_key}°"
    );
}

/// A clip that leaves the tail unkeyed bakes it around the shape it was
/// modelled with: the bake's rest arc is the modelled arc without carry or
/// gravity (`Baker::tail_params`), so only the body's motion moves the tail.
/// On the tail preset's gravity (1 m/s²) the same tail sags off its model.
#[test]
fn a_clip_that_leaves_the_tail_unkeyed_bakes_it_on_its_modelled_shape() {
    let (husky, units, tail, mut clip) = husky_clip("|Idle");
    let keyed = clip.channels.len();
    clip.channels.retain(|c| !tail.contains(&c.bone));
    assert!(clip.channels.len() < keyed, "the Idle keys the tail");
    let reference: Vec<glam::Quat> = husky
        .skeleton
        .bones
        .iter()
        .map(|b| glam::Quat::from_array(b.reference.rotation))
        .collect();
    // The largest turn of a tail joint off its modelled rotation, over
    // every baked key.
    let off_model = |params: secmo::ChainParams| {
        let baker = Baker::with_tail(husky.clone(), units, params).unwrap();
        let baked = baker.bake(&clip, &BakeOptions::default(), true).unwrap();
        baker
            .joints
            .iter()
            .zip(&baked.rotations)
            .map(|(&j, keys)| {
                keys.iter()
                    .map(|&q| angle(q, reference[j]).to_degrees())
                    .fold(0.0f32, f32::max)
            })
            .fold(0.0f32, f32::max)
    };
    let bake = off_model(Baker::tail_params(units));
    let sagging = off_model(secmo::ChainParams {
        gravity: secmo::ChainParams::tail(units).gravity,
        ..Baker::tail_params(units)
    });
    eprintln!("tail off its model: bake {bake:.2}°, with the preset's gravity {sagging:.2}°");
    // The Idle's breathing swings the unkeyed tail about 1°; the preset's
    // gravity hangs it about 30° below its model.
    assert!(bake < 2.0, "the bake's tail {bake}° off its model");
    assert!(sagging > 15.0, "gravity sags it {sagging}°");
}

/// What a bake leaves out of a VRM whose spring bones it baked into every
/// clip: VRM 1.0's `VRMC_springBone` and its sub-extensions' names; VRM
/// 0.x's spring groups (its `VRM` extension, which holds the humanoid,
/// stays). Everything else stays.
#[test]
fn dropping_the_spring_bones_keeps_the_rest_of_the_vrm() {
    use serde_json::json;
    let mut v1 = json!({
        "extensionsUsed": ["VRMC_vrm", "VRMC_springBone", "VRMC_springBone_extended_collider"],
        "extensionsRequired": ["VRMC_springBone"],
        "extensions": {"VRMC_vrm": {"specVersion": "1.0"}, "VRMC_springBone": {"springs": []}},
    });
    secmo_cli::bake::drop_spring_bones(&mut v1);
    assert_eq!(
        v1,
        json!({"extensionsUsed": ["VRMC_vrm"], "extensions": {"VRMC_vrm": {"specVersion": "1.0"}}})
    );
    let mut v0 = json!({
        "extensionsUsed": ["VRM"],
        "extensions": {"VRM": {"humanoid": {"humanBones": [1]},
            "secondaryAnimation": {"boneGroups": [{"bones": [3]}], "colliderGroups": [{"node": 2}]}}},
    });
    secmo_cli::bake::drop_spring_bones(&mut v0);
    assert_eq!(
        v0,
        json!({"extensionsUsed": ["VRM"], "extensions": {"VRM": {"humanoid": {"humanBones": [1]},
            "secondaryAnimation": {"boneGroups": [], "colliderGroups": []}}}})
    );
}
