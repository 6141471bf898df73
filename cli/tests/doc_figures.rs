//! The figures docs/tool.md quotes about the tool's output are the tool's
//! output: this test computes them (import, bake, report on the shipped
//! files) and compares them with the block of docs/tool.md between the
//! `figures` markers, character for character. When the tool's output
//! changes, the test fails and names the line; `SECMO_BLESS=1 cargo test -p
//! secmo-cli --test doc_figures` rewrites the block from what it computed.
//! The README quotes none of these numbers and links to the block.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gltf::animation::Property;
use secmo_cli::bake::{angle, write_glb, BakeOptions, Baker};
use secmo_cli::import::import;
use secmo_cli::report::{measure, measure_head_turn, study_rates, Stretch};

mod common;

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/assets")
        .join(name)
}

fn stretch(s: &Option<Stretch>, torn: bool) -> String {
    match s {
        Some(s) if torn => format!("{:.3} / {:.3} / {:.2} %", s.p99, s.max, s.torn_percent),
        Some(s) => format!("{:.3} / {:.3}", s.p99, s.max),
        None => "empty".into(),
    }
}

/// The largest rotation difference between `baked`'s keys as written into a
/// copy of `source` and read back, and the simulation's: the round trip.
fn round_trip(source: &Path, baker: &Baker, baked: &secmo_cli::bake::BakedClip) -> f32 {
    let out = std::env::temp_dir().join(format!(
        "secmo-doc-figures-{}-{}.glb",
        std::process::id(),
        baked.name
    ));
    write_glb(source, &out, baker, std::slice::from_ref(baked)).unwrap();
    let reread = import(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let clip = reread.clips.iter().find(|c| c.name == baked.name).unwrap();
    let mut pose: Vec<_> = reread.skeleton.bones.iter().map(|b| b.reference).collect();
    let mut worst = 0f32;
    for (f, &t) in baked.times.iter().enumerate() {
        clip.sample(t, &mut pose);
        for (k, &joint) in baker.joints.iter().enumerate() {
            assert!(clip
                .channels
                .iter()
                .any(|c| c.bone == joint && c.property == Property::Rotation));
            worst = worst.max(angle(pose[joint].rotation(), baked.rotations[k][f]));
        }
    }
    worst
}

/// The block, as the tool computes it now.
fn figures() -> String {
    let mut out = String::new();
    let w = &mut out;

    writeln!(
        w,
        "Units `import` infers for the shipped files (no unit given):"
    )
    .unwrap();
    writeln!(w).unwrap();
    writeln!(
        w,
        "| file | largest extent, file units | units per metre | size |"
    )
    .unwrap();
    writeln!(w, "|---|---|---|---|").unwrap();
    for file in [
        "Fox.glb",
        "Godette_vrm_v4.vrm",
        "RiggedFigure.glb",
        "RobotExpressive.glb",
    ]
    .into_iter()
    .chain(common::ANIMALS)
    {
        let units = import(&asset(file)).unwrap().infer_units().unwrap();
        let u = units.units_per_meter;
        let shown = if u.fract() == 0.0 {
            format!("{u}")
        } else {
            format!("{u:.3} (scaled)")
        };
        writeln!(
            w,
            "| {file} | {:.3} | {shown} | {:.2} m |",
            units.size,
            units.size / u
        )
        .unwrap();
    }
    writeln!(w).unwrap();

    let path = asset("Fox.glb");
    let fox = import(&path).unwrap();
    let clips = fox.clips.clone();
    let baker = Baker::new(fox, 100.0).unwrap();
    let options = BakeOptions::default();
    writeln!(
        w,
        "`bake` and `report` on the Fox (100 units per metre, default options; stretch \
         p99 / max / torn, ρ = skinned edge length / bind length):"
    )
    .unwrap();
    writeln!(w).unwrap();
    writeln!(
        w,
        "| Fox clip | warm-up passes | closing error | from a cold start | keys replay within \
         | artist's tail | secmo's tail | body | deepest tail vertex in a body capsule |"
    )
    .unwrap();
    writeln!(w, "|---|---|---|---|---|---|---|---|---|").unwrap();
    let mut rates = String::new();
    for clip in &clips {
        let warm = baker.bake(clip, &options, true).unwrap();
        let cold = baker.bake(clip, &options, false).unwrap();
        let replay = round_trip(&path, &baker, &warm);
        let r = measure(&baker, clip, &options).unwrap();
        let depth = r
            .skin_penetration
            .map_or("no capsule".into(), |[artist, ours]| {
                format!(
                    "{:.2} cm, {:.0} % of its radius (the artist's {:.0} %)",
                    ours.depth / r.units_per_meter * 100.0,
                    100.0 * ours.share,
                    100.0 * artist.share
                )
            });
        writeln!(
            w,
            "| {} | {} | {:.1e} rad | {:.2} rad | {:.0e} rad | {} | {} | {} | {depth} |",
            clip.name,
            warm.passes,
            warm.closing_error,
            cold.closing_error,
            replay,
            stretch(&r.original, true),
            stretch(&r.secmo, true),
            stretch(&r.body, false),
        )
        .unwrap();
        let study = study_rates(clip.duration);
        writeln!(
            rates,
            "| {} | {:.1} / {:.1} / {:.1} Hz | {:.1e} / {:.1e} rad | {:.1e} / {:.1e} rad |",
            clip.name,
            study[0],
            study[1],
            study[2],
            r.rate_difference[0],
            r.rate_difference[1],
            r.solver_rate_difference[0],
            r.solver_rate_difference[1],
        )
        .unwrap();
    }
    writeln!(w).unwrap();
    writeln!(
        w,
        "The input-rate study: its three rates, the largest tail rotation difference of the \
         bake with 30 Hz keys from those with 60 and 120 Hz keys, on the clip as it is and \
         on the clip keyed at 30 Hz first (identical input):"
    )
    .unwrap();
    writeln!(w).unwrap();
    writeln!(
        w,
        "| Fox clip | study rates | the clip | keyed at 30 Hz first |"
    )
    .unwrap();
    writeln!(w, "|---|---|---|---|").unwrap();
    w.push_str(&rates);
    writeln!(w).unwrap();

    let godette = import(&asset("Godette_vrm_v4.vrm")).unwrap();
    let godette = Baker::new(godette, 1.0).unwrap();
    let turn = measure_head_turn(&godette).unwrap();
    writeln!(
        w,
        "Godette (no clips: the head-turn sequence): hair p99 {:.4}, settling {:.1e} m per \
         frame in the last 2 s.",
        turn.chain.as_ref().expect("hair edges").p99,
        turn.settling
    )
    .unwrap();
    out
}

#[test]
fn the_figures_docs_tool_md_quotes_are_the_tools_output() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tool.md"))
            .unwrap();
    // The import line the doc shows as an example is the Fox's.
    let fox_line = import(&asset("Fox.glb"))
        .unwrap()
        .infer_units()
        .unwrap()
        .note;
    assert!(
        doc.contains(&fox_line),
        "docs/tool.md's example import line is not the Fox's: {fox_line}"
    );
    common::check_doc_figures("docs/tool.md", "cli/tests/doc_figures.rs", &figures());
}
