//! Issue #48's measures of a file's tail through the C ABI, on the tail
//! preset around the animation (`rest_source` auto) and, with `--bind`, on
//! the rest arc too, at 30, 60 and 120 Hz input (`--rate HZ`: that rate
//! only), one markdown row per clip and rate, and how many clips pass every
//! bar: `cargo run --release -p secmo-cli --example tail_fidelity --
//! [--bind] [--rate 60] [--inertia 0.1] FILE.glb...` (docs/chains.md
//! "Around the animation"). With `--bake`, one row per clip with every bar
//! of issue #48: the runtime's at 60 Hz, then the bake's stretch p99 and
//! torn share against the clip's own (docs/algorithms.md §10) and the
//! deepest skinned tail vertex in a body capsule, as a share of its radius
//! (`secmo report`'s measures). `--inertia X` sets the runtime's
//! `animation_inertia`; `--bake` measures the preset as it is.

use secmo::ChainParams;
use secmo_cli::carriage::{runtime_fidelity, Acceptance, Fidelity};
use secmo_cli::import::import;

/// Issue #48's bars: carriage within 10°, swing 50–150 % of the artist's
/// where the artist's is above 1 % of the tail's length, no key-to-key step
/// over twice the artist's largest + 2°, at most 20 % of keys within 0.5°
/// of the bend limit.
fn passes(f: &Fidelity) -> bool {
    f.carriage_error <= 10.0
        && (f.artist_swing_share <= 0.01 || (0.5..=1.5).contains(&f.swing_ratio))
        && f.largest_step.0 <= 2.0 * f.largest_step.1 + 2.0
        && f.limit_share <= 0.2
}

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let bind = args.iter().any(|a| a == "--bind");
    let bake = args.iter().any(|a| a == "--bake");
    args.retain(|a| a != "--bake");
    args.retain(|a| a != "--bind");
    let mut inertia = None;
    if let Some(i) = args.iter().position(|a| a == "--inertia") {
        inertia = Some(args[i + 1].parse::<f32>()?);
        args.drain(i..i + 2);
    }
    let mut rates = vec![30.0f32, 60.0, 120.0];
    if let Some(i) = args.iter().position(|a| a == "--rate") {
        rates = vec![args[i + 1].parse()?];
        args.drain(i..i + 2);
    }
    let (mut passed, mut total) = (0, 0);
    if bake {
        print!("{}", Acceptance::HEADER);
    } else {
        println!("| file | clip | Hz | rest | carriage off | mean tip off | swing | largest step (artist's) | at the limit | bars |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
    }
    for path in &args {
        let imported = import(std::path::Path::new(path))?;
        let (units, _) = imported.units(None);
        if imported.tail().is_empty() {
            println!("{path}: no tail");
            continue;
        }
        let name = std::path::Path::new(path)
            .file_stem()
            .map_or_else(|| path.clone(), |s| s.to_string_lossy().into_owned());
        let baker = secmo_cli::bake::Baker::new(imported.clone(), units)?;
        let params = |source| {
            let preset = ChainParams::tail(units);
            Some(ChainParams {
                rest_source: source,
                animation_inertia: inertia.unwrap_or(preset.animation_inertia),
                ..preset
            })
        };
        for clip in &imported.clips {
            if bake {
                let clip_name = clip.name.rsplit('|').next().unwrap_or(&clip.name);
                let a = Acceptance::measure(&baker, clip, units)?;
                total += 1;
                passed += usize::from(a.misses().is_empty());
                print!("{}", a.row(&name, clip_name));
                continue;
            }
            for &rate in &rates {
                let mut sources = vec![("auto", ChainParams::REST_AUTO)];
                if bind {
                    sources.insert(0, ("bind", ChainParams::REST_BIND));
                }
                for (label, source) in sources {
                    let f = runtime_fidelity(&imported, clip, (rate, units), params(source));
                    let ok = passes(&f);
                    if source == ChainParams::REST_AUTO {
                        total += 1;
                        passed += usize::from(ok);
                    }
                    let clip_name = clip.name.rsplit('|').next().unwrap_or(&clip.name);
                    println!(
                        "| {name} | {clip_name} | {rate} | {label} | {:.1}° | {:.1} cm | {:.0} % (artist's {:.1} % of the tail) | {:.1}° ({:.1}°) | {:.0} % | {} |",
                        f.carriage_error,
                        100.0 * f.mean_tip_offset.length() / units,
                        100.0 * f.swing_ratio,
                        100.0 * f.artist_swing_share,
                        f.largest_step.0,
                        f.largest_step.1,
                        100.0 * f.limit_share,
                        if ok { "all" } else { "no" },
                    );
                }
            }
        }
    }
    if bake {
        println!("\n{passed} of {total} clips meet every bar");
    } else {
        println!("\n{passed} of {total} clip runs around the animation meet every bar");
    }
    Ok(())
}
