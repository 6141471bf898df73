//! The parameter sweep behind `Baker::carriage_params` (docs/chains.md "The
//! artist's carriage"): the Fox's tail baked with its authored tracks
//! replaced by secmo around the clip's mean carriage, for a grid of base
//! frequency and damping ratio; Walk swing against Run stretch.
//!
//! cargo run --release -p secmo-cli --example tail_sweep -- docs/images/tail_sweep.svg

use std::path::{Path, PathBuf};

use secmo_cli::bake::{BakeOptions, Baker};
use secmo_cli::carriage::carriage;
use secmo_cli::import::import;
use secmo_cli::plot::{self, Mark, Panel, Series};

struct Row {
    swing: [f32; 2],
    direction: [f32; 2],
    p99: [f32; 2],
    torn: [f32; 2],
    artist_p99: [f32; 2],
}

fn measure(fox: &secmo_cli::import::Imported, params: secmo::ChainParams) -> anyhow::Result<Row> {
    let baker = Baker::with_tail(fox.clone(), 100.0, params)?;
    let mut row = Row {
        swing: [0.0; 2],
        direction: [0.0; 2],
        p99: [0.0; 2],
        torn: [0.0; 2],
        artist_p99: [0.0; 2],
    };
    for (k, name) in ["Walk", "Run"].into_iter().enumerate() {
        let clip = fox
            .clips
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| anyhow::anyhow!("the Fox has no {name} clip"))?;
        let options = BakeOptions::default();
        let baked = baker.bake(clip, &options, true)?;
        let artist = carriage(&baker, 0, clip, &baked.times, None);
        let ours = carriage(&baker, 0, clip, &baked.times, Some(&baked.rotations));
        let stretch = secmo_cli::report::measure(&baker, clip, &options)?;
        let (original, secmo) = (
            stretch.original.expect("the Fox's tail has skin"),
            stretch.secmo.expect("the Fox's tail has skin"),
        );
        row.swing[k] = 100.0 * ours.swing / artist.swing;
        row.direction[k] = ours.direction_error(&artist);
        row.p99[k] = secmo.p99;
        row.torn[k] = secmo.torn_percent;
        row.artist_p99[k] = original.p99;
    }
    Ok(row)
}

fn main() -> anyhow::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("tail_sweep.svg"), PathBuf::from);
    let fox = import(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/assets/Fox.glb"))?;
    let chosen = Baker::carriage_params(100.0);
    println!("| base Hz | tip Hz | ζ | Walk swing | Run swing | direction Walk / Run | p99 Walk / Run | torn Walk / Run |");
    println!("|---|---|---|---|---|---|---|---|");
    let colors = [plot::BLUE, plot::CYAN, plot::AMBER];
    let mut series = Vec::new();
    let mut artist = [0.0f32; 2];
    for (zeta, color) in [0.1f32, 0.15, 0.25].into_iter().zip(colors) {
        let mut points = Vec::new();
        for root in [1.0f32, 1.5, 2.0, 2.5, 3.0] {
            let params = secmo::ChainParams {
                frequency_root: root,
                damping_ratio: zeta,
                ..chosen
            };
            let r = measure(&fox, params)?;
            artist = r.artist_p99;
            println!(
                "| {root}{} | {} | {zeta} | {:.0} % | {:.0} % | {:.1}° / {:.1}° | {:.3} / {:.3} | {:.2} % / {:.2} % |",
                if params == chosen { " (default)" } else { "" },
                chosen.frequency_tip,
                r.swing[0],
                r.swing[1],
                r.direction[0],
                r.direction[1],
                r.p99[0],
                r.p99[1],
                r.torn[0],
                r.torn[1],
            );
            points.push((f64::from(r.p99[1]), f64::from(r.swing[0])));
        }
        series.push(Series::new(
            format!("ζ = {zeta}, base 1 → 3 Hz"),
            color,
            points,
        ));
    }
    let r = measure(&fox, chosen)?;
    series.push(Series::new(
        format!(
            "default: base {} Hz, tip {} Hz, ζ {}",
            chosen.frequency_root, chosen.frequency_tip, chosen.damping_ratio
        ),
        plot::RED,
        // A short tick: a one-point series draws no line.
        vec![
            (f64::from(r.p99[1]), f64::from(r.swing[0]) - 3.0),
            (f64::from(r.p99[1]), f64::from(r.swing[0]) + 3.0),
        ],
    ));
    plot::draw(
        &out,
        "Fox tail, baked around the clip's mean carriage: swing against stretch",
        &[Panel {
            title: format!(
                "each point a bake of Walk and Run (tip {} Hz, no coupling, {:.0}° bend limit)",
                chosen.frequency_tip,
                chosen.bend_limit.to_degrees()
            ),
            x_label: "Run: tail edge stretch p99".into(),
            y_label: "Walk: tip swing, % of the artist's".into(),
            series,
            marks: vec![
                Mark::vertical("the artist's Run p99", plot::PURPLE, f64::from(artist[1])),
                Mark::horizontal("half the artist's swing", plot::RED, 50.0),
            ],
            ..Default::default()
        }],
    )?;
    println!("wrote {}", out.display());
    Ok(())
}
