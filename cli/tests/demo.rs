//! The demo runs end to end (shortened) and its numbers make sense.

use secmo_cli::demo::{run, DemoOptions};
use secmo_cli::import::import;
use secmo_cli::report::measure;

#[test]
fn demo_runs_and_writes_its_files() {
    let dir = std::env::temp_dir().join(format!("secmo-demo-test-{}", std::process::id()));
    let report = run(&DemoOptions {
        out_dir: dir.clone(),
        seconds_per_phase: 1.5,
        input_hz: 60.0,
    })
    .unwrap();
    let svg = std::fs::read_to_string(&report.plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("polyline"),
        "plot is not an SVG line chart"
    );
    assert!(std::fs::read_to_string(dir.join("summary.md"))
        .unwrap()
        .contains("sprint"));
    // One length unit per picture, its rig's, in its axis labels: the
    // helper study's rig is in centimetres, the meshed character's in metres.
    let clip = "walk_run_sprint_stop";
    for (file, unit) in [
        ("helper_springs.svg".to_string(), Some("cm")),
        ("input_rate.svg".into(), Some("cm")),
        (format!("tips_{clip}.svg"), Some("m")),
        (format!("rates_{clip}.svg"), Some("m")),
        (format!("stretch_{clip}.svg"), None),
    ] {
        let svg = std::fs::read_to_string(dir.join(&file)).unwrap();
        let texts: Vec<String> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| {
                Some(
                    t.split_once('>')?
                        .1
                        .split_once("</text>")?
                        .0
                        .trim()
                        .to_string(),
                )
            })
            .collect();
        let mut units: Vec<&str> = texts
            .iter()
            .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
            .filter(|w| matches!(*w, "m" | "cm" | "mm"))
            .collect();
        units.sort_unstable();
        units.dedup();
        assert_eq!(units, unit.into_iter().collect::<Vec<_>>(), "{file}");
        if let Some(unit) = unit {
            assert!(
                texts
                    .iter()
                    .any(|t| t.ends_with(&format!("({unit})"))
                        || t.ends_with(&format!("({unit}, log)"))),
                "{file}: an axis label states {unit}"
            );
        }
    }

    // Four helpers, four phases; every peak within its cap (length clamp, docs/algorithms.md §3).
    assert_eq!(report.peak_offsets.len(), 4);
    for row in &report.peak_offsets {
        for (peak, limit) in row.iter().zip(&report.max_offsets) {
            assert!(*peak <= limit + 1e-3, "{peak} > {limit}");
        }
    }
    // Helpers move during locomotion and settle after the stop.
    let sprint = &report.peak_offsets[2];
    assert!(sprint
        .iter()
        .zip(&report.max_offsets)
        .all(|(p, l)| *p > 0.5 * l));
    assert!(
        report.final_offsets.iter().all(|o| *o < 0.05),
        "{:?}",
        report.final_offsets
    );
    assert!(report.table.contains("hip_helper_l") && report.table.contains("stop"));
    // BtoB acts only when the arms fold, during the stop.
    assert_eq!(
        report.peak_btob[0],
        vec![0.0, 0.0],
        "walking arms are beyond every threshold"
    );
    assert!(
        report.peak_btob[3].iter().all(|b| *b > 0.1),
        "{:?}",
        report.peak_btob
    );

    // docs/algorithms.md §9 input-rate study: the rates differ, by at most twice each cap
    // (two offsets each capped at max_offset), and feeding interpolated
    // midpoints stays closer to the 30 Hz run than holding each pose twice,
    // as in the article (right hip 1.29 vs 1.12 cm there).
    assert_eq!(report.rate_rows.len(), 4);
    for (row, cap) in report.rate_rows.iter().zip(&report.max_offsets) {
        let (held, interpolated) = (row.max_30_vs_60.0, row.max_30_vs_60_interpolated.0);
        assert!(held > 0.01 && held <= 2.0 * cap, "{row:?}");
        assert!(interpolated > 0.01 && interpolated <= 2.0 * cap, "{row:?}");
        assert!(interpolated < held, "{row:?}");
    }
    let svg = std::fs::read_to_string(&report.rate_plot).unwrap();
    assert!(svg.contains("60 Hz held") && svg.contains("60 Hz interpolated"));

    // The meshed character went through report and bake.
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("chain from tail_1, secmo") && md.contains("chain from ponytail_1, secmo"),
        "{md}"
    );
    for svg in ["stretch", "tips", "rates"] {
        let text =
            std::fs::read_to_string(dir.join(format!("{svg}_walk_run_sprint_stop.svg"))).unwrap();
        assert!(
            text.starts_with("<svg") && text.contains("polyline"),
            "{svg}"
        );
    }
    assert!(
        md.contains("Settling") && md.contains("chain from tail_1:"),
        "{md}"
    );
    // Plots a person can read: thresholds named in the legend, units on the
    // axes, one unit system (the demo character is in metres), every term
    // of report.md explained.
    let svg = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let stretch = svg("stretch_walk_run_sprint_stop.svg");
    for part in [
        "torn: ρ &lt; 0.67",
        "torn: ρ &gt; 1.5",
        "% of samples (log)",
        "ρ = skinned length / bind length",
    ] {
        assert!(stretch.contains(part), "stretch plot lacks {part}");
    }
    let rates = svg("rates_walk_run_sprint_stop.svg");
    for part in [
        "float32 noise (4 ulp)",
        "30 Hz − 120 Hz input",
        "distance (m, log)",
    ] {
        assert!(rates.contains(part), "rates plot lacks {part}");
    }
    let tips = svg("tips_walk_run_sprint_stop.svg");
    assert!(tips.contains("target (clip alone)") && tips.contains("tip x (m)"));
    assert!(!tips.contains("(cm)") && !tips.contains("(mm)"));
    let helper = std::fs::read_to_string(&report.plot).unwrap();
    assert!(helper.contains("limit (2 cm)") && helper.contains("height (cm)"));
    for term in [
        "**ρ (edge stretch)**",
        "**target**",
        "**output**",
        "**torn %**",
        "**settling**",
        "**p95 / p99**",
        "**Q0.99 of per-edge max**",
        "**rigid (harness check)**",
        "**input rate**",
        "**update cost**",
    ] {
        assert!(md.contains(term), "report.md does not explain {term}");
    }
    assert!(!md.contains(" mm"), "one unit system: {md}");
    // Skin influences as the Khronos glTF validator wants them (it reported
    // duplicate joints and zero-weight joints on this file): every vertex's
    // joints unique where weighted, weights summing to 1.
    let imported = secmo_cli::import::import(&report.character).unwrap();
    for mesh in &imported.meshes {
        for inf in &mesh.influences {
            let used: Vec<u32> = inf.iter().filter(|i| i.1 > 0.0).map(|i| i.0).collect();
            let mut unique = used.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), used.len(), "{inf:?}");
            let sum: f32 = inf.iter().map(|i| i.1).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{inf:?}");
        }
    }
    check_character(&report.character, &report.baked);
    std::fs::remove_dir_all(dir).ok();
}

/// The demo character imports with its tail, ponytail spring and clip; its
/// tail under secmo stretches no more than the body and never tears; the
/// bake carries keys for both chains that replay what secmo computed.
fn check_character(character: &std::path::Path, baked: &std::path::Path) {
    use secmo_cli::bake::{angle, BakeOptions, Baker};
    let imported = import(character).unwrap();
    assert_eq!(imported.tail().len(), 6, "tail_1..tail_5 and tail_end");
    let springs = imported.spring_bones.as_ref().expect("the ponytail spring");
    assert_eq!((springs.groups, springs.joints), (1, 4));
    assert_eq!(imported.clips.len(), 1);
    assert_eq!(imported.meshes.len(), 1);
    let clip = imported.clips[0].clone();
    assert!((clip.duration - 6.0).abs() < 1e-4, "{}", clip.duration);
    let baker = Baker::new(imported, 1.0).unwrap();
    assert_eq!(baker.rig.chains().len(), 2);

    let options = BakeOptions::default();
    let r = measure(&baker, &clip, &options).unwrap();
    let body = r.body.unwrap();
    let rigid = r.rigid.unwrap();
    assert!((rigid.max - 1.0).abs() < 1e-4 && (rigid.min - 1.0).abs() < 1e-4);
    let chain = |name: &str| {
        r.per_chain
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, s)| *s)
            .unwrap_or_else(|| panic!("no {name} row in {:?}", r.per_chain))
    };
    let tail = chain("tail_1");
    assert!(
        tail.p99 <= body.p99 && tail.max <= body.max,
        "{tail:?} vs {body:?}"
    );
    assert_eq!(tail.torn_percent, 0.0);
    // The tail really moves: it is not the rigid figure.
    assert!(tail.max > 1.01, "{tail:?}");
    let ponytail = chain("ponytail_1");
    assert!(
        ponytail.p99.is_finite() && ponytail.p99 > 1.0,
        "{ponytail:?}"
    );

    // Tip traces: secmo lags the target (they differ), and the same motion
    // comes out at 30, 60 and 120 Hz input: at the shared instants the tips
    // differ by a small fraction of how far they travel.
    assert_eq!(r.tips.len(), 2);
    for t in &r.tips {
        assert_eq!(t.target.len(), t.times.len());
        assert_eq!(t.output.len(), t.times.len());
        let lag = t
            .target
            .iter()
            .zip(&t.output)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0, f32::max);
        let (lo, hi) = t.output.iter().fold(
            (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let travel = (hi - lo).length();
        let (slow, fast) = (&t.rates[0].1, &t.rates[2].1);
        assert_eq!(fast.len() - 1, 4 * (slow.len() - 1));
        let apart = slow
            .iter()
            .enumerate()
            .map(|(f, p)| p.distance(fast[4 * f]))
            .fold(0.0, f32::max);
        eprintln!(
            "{}: lag up to {lag:.4} m, travel {travel:.4} m, 30 vs 120 Hz {apart:.2e} m, settling {:?}",
            t.chain, t.settling
        );
        // The keyed tail lags inside its keys' turn (the skin guard):
        // 0.8 cm on 42 cm of travel; the ponytail, on its rest arc, 14 cm.
        assert!(
            lag > 0.01 * travel,
            "{}: secmo follows the target exactly ({lag} m)",
            t.chain
        );
        assert!(
            apart < 0.01 * travel,
            "{}: {apart} vs travel {travel}",
            t.chain
        );
        assert!(t.settling.is_some_and(f32::is_finite));
    }

    // The baked file: the same clip, now with rotation keys on every chain
    // joint that match a fresh bake.
    let again = Baker::new(import(baked).unwrap(), 1.0).unwrap();
    let replay = &again.imported.clips[0];
    let fresh = baker.bake(&clip, &options, true).unwrap();
    assert!(fresh.closing_error < 1e-3, "{}", fresh.closing_error);
    let mut pose = baker.rig.reference_pose().to_vec();
    let mut worst = 0.0f32;
    for (f, &t) in fresh.times.iter().enumerate() {
        replay.sample(t, &mut pose);
        for (k, &j) in baker.joints.iter().enumerate() {
            worst = worst.max(angle(pose[j].rotation(), fresh.rotations[k][f]));
        }
    }
    assert!(
        worst < 1e-4,
        "baked keys differ from the bake by {worst} rad"
    );

    // The hip and chest helpers come from the file's rig settings: the bake
    // moves them within the docs/algorithms.md §3 limit (hips 2 cm) and writes their
    // translation keys, which replay. The sleeves are VRMC_node_constraint
    // destinations: their rotation keys follow the upper arms halfway.
    let names: Vec<&str> = baker
        .helpers
        .iter()
        .map(|&h| baker.rig.bone_name(h).unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "chest_helper_l",
            "chest_helper_r",
            "hip_helper_l",
            "hip_helper_r",
            "sleeve_l",
            "sleeve_r"
        ]
    );
    let bind = baker.rig.reference_pose();
    for (k, &h) in baker.helpers.iter().enumerate() {
        if !names[k].starts_with("hip") {
            continue;
        }
        let peak = fresh.helpers[k]
            .iter()
            .map(|(t, _)| t.distance(bind[h].translation()))
            .fold(0.0, f32::max);
        eprintln!("{}: peak offset {peak:.5} m", names[k]);
        assert!(peak > 0.01 && peak <= 0.02 + 1e-5, "{}: {peak}", names[k]);
    }
    let mut apart = 0.0f32;
    for (f, &t) in fresh.times.iter().enumerate() {
        replay.sample(t, &mut pose);
        for (k, &h) in baker.helpers.iter().enumerate() {
            apart = apart.max(pose[h].translation().distance(fresh.helpers[k][f].0));
        }
    }
    assert!(apart < 1e-6, "helper keys replay within {apart} m");

    // Sleeve = rest · slerp(1, upper arm's turn from its rest, 0.5).
    let source = &clip;
    let mut worst = 0.0f32;
    let mut turned = 0.0f32;
    // The last key repeats the first (the bake closes the loop), so it is
    // not the arm's pose at that time.
    let keys = fresh.times.len() - 1;
    for (f, &t) in fresh.times.iter().enumerate().take(keys) {
        source.sample(t, &mut pose);
        for (k, &h) in baker.helpers.iter().enumerate() {
            let Some(arm) = names[k]
                .strip_prefix("sleeve_")
                .and_then(|side| baker.rig.find_bone(&format!("upper_arm_{side}")))
            else {
                continue;
            };
            let turn = bind[arm].rotation().conjugate() * pose[arm].rotation();
            let expected = bind[h].rotation() * glam::Quat::IDENTITY.slerp(turn, 0.5);
            worst = worst.max(fresh.helpers[k][f].1.angle_between(expected));
            turned = turned.max(turn.angle_between(glam::Quat::IDENTITY));
        }
    }
    assert!(turned > 0.2, "the arms swing: {turned} rad");
    assert!(
        worst < 2e-3,
        "sleeve keys follow the arm halfway: {worst} rad"
    );
}

#[test]
fn binary_prints_help_and_rejects_bad_options() {
    let exe = env!("CARGO_BIN_EXE_secmo");
    let help = std::process::Command::new(exe)
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("secmo demo"));
    let bad = std::process::Command::new(exe)
        .args(["demo", "--input-hz", "abc"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--input-hz"));
    let unknown = std::process::Command::new(exe)
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
}
