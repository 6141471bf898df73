//! Issues #17 item 1 and #48 item 1: the Fox's tail baked with its authored
//! tracks replaced by secmo keeps the artist's carriage and swings like the
//! artist's. The bake runs the runtime's tail preset, which simulates
//! around the animation where the clip animates the tail (docs/chains.md
//! "Around the animation"; cli/examples/tail_fidelity.rs measures every
//! animal's clips).

mod common;

use std::path::Path;

use secmo_cli::bake::{BakeOptions, Baker};
use secmo_cli::carriage::carriage;
use secmo_cli::import::import;

/// The bars of issue #48 the Fox misses today: (clip, bar). None: with the
/// skin guard the Walk's skin stretches no more than its keys' (p99 1.3119
/// against 1.3120; 1.3134 without the guard) and the Run tears no more
/// (2.03 % of samples, as its keys; 2.08 % without) (docs/chains.md "The
/// skin guard").
const KNOWN_MISSES: &[(&str, &str)] = &[];

#[test]
fn the_fox_tail_keeps_the_artists_carriage_and_swing() {
    let fox =
        import(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/assets/Fox.glb")).unwrap();
    let baker = Baker::new(fox.clone(), 100.0).unwrap();
    let options = BakeOptions::default();
    let mut failures = Vec::new();
    let mut figures = String::from(
        "| Fox | direction off the artist's | tip swing (artist's) | stretch p99 (artist's) \
         | torn (artist's) |\n|---|---|---|---|---|\n",
    );
    for name in ["Walk", "Run"] {
        let clip = fox.clips.iter().find(|c| c.name == name).unwrap();
        let baked = baker.bake(clip, &options, true).unwrap();
        let artist = carriage(&baker, 0, clip, &baked.times, None);
        let ours = carriage(&baker, 0, clip, &baked.times, Some(&baked.rotations));
        let stretch = secmo_cli::report::measure(&baker, clip, &options).unwrap();
        let (original, secmo) = (stretch.original.unwrap(), stretch.secmo.unwrap());
        let direction = ours.direction_error(&artist);
        println!(
            "{name}: mean direction {direction:.1}° from the artist's; tip swing {:.2} units against the artist's {:.2} ({:.0} %); \
             stretch p99 {:.3} (artist {:.3}), torn {:.2} % (artist {:.2} %)",
            ours.swing,
            artist.swing,
            100.0 * ours.swing / artist.swing,
            secmo.p99,
            original.p99,
            secmo.torn_percent,
            original.torn_percent
        );
        figures += &format!(
            "| {name} | {direction:.1}° | {:.2} ({:.2}), {:.0} % | {:.3} ({:.3}) | {:.2} % ({:.2} %) |\n",
            ours.swing,
            artist.swing,
            100.0 * ours.swing / artist.swing,
            secmo.p99,
            original.p99,
            secmo.torn_percent,
            original.torn_percent
        );
        if direction > 10.0 {
            failures.push(format!("{name}: the mean direction is {direction}° off"));
        }
        if !(0.5 * artist.swing..=1.5 * artist.swing).contains(&ours.swing) {
            failures.push(format!(
                "{name}: swing {} not within 50–150 % of {}",
                ours.swing, artist.swing
            ));
        }
        // No key-to-key step larger than twice the artist's largest + 2°.
        let step = |track: &dyn Fn(usize) -> glam::Quat, n: usize| {
            (1..n)
                .map(|k| secmo_cli::rotation::angle(track(k - 1), track(k)).to_degrees())
                .fold(0.0f32, f32::max)
        };
        for (j, track) in baked.rotations.iter().enumerate() {
            let bone = baker.joints[j];
            let keyed = |k: usize| {
                let mut pose = baker.rig.reference_pose().to_vec();
                clip.sample(baked.times[k], &mut pose);
                pose[bone].rotation()
            };
            let (ours, theirs) = (step(&|k| track[k], track.len()), step(&keyed, track.len()));
            if ours > 2.0 * theirs + 2.0 {
                failures.push(format!(
                    "{name}: joint {j} steps {ours}° (artist {theirs}°)"
                ));
            }
        }
        // Stretch and tears no more than the artist's keys give, but for
        // the misses listed in KNOWN_MISSES; a listed miss that no longer
        // misses fails too, so the list only shrinks.
        let listed = |bar: &str| KNOWN_MISSES.contains(&(name, bar));
        let stretches = secmo.p99 >= original.p99;
        if stretches != listed("stretch") {
            failures.push(format!(
                "{name}: stretch p99 {} against the artist's {} (listed as a miss: {})",
                secmo.p99,
                original.p99,
                listed("stretch")
            ));
        }
        // Following the artist's keys, the tail tears where they do (the
        // Run's keys tear 2.03 % of samples).
        let tears = secmo.torn_percent > original.torn_percent;
        if tears != listed("torn") {
            failures.push(format!(
                "{name}: {} % torn, the artist's {} % (listed as a miss: {})",
                secmo.torn_percent,
                original.torn_percent,
                listed("torn")
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    common::check_doc_figures("docs/chains.md", "cli/tests/carriage.rs", &figures);
}
