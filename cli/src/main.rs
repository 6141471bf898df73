//! `secmo` — the command-line tool.

use std::path::PathBuf;

/// The tool's allocator (the runtime library leaves the choice to its host).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use secmo_cli::commands::{bake, report, BakeArgs};
use secmo_cli::demo::{self, DemoOptions};
use secmo_cli::vrm_settings;

const HELP: &str = "\
secmo — secondary motion for game characters

USAGE:
    secmo demo [--out DIR] [--seconds-per-phase S] [--input-hz HZ]
    secmo import FILE
    secmo bake FILE.glb [--clip NAME]... [--out PATH] [--units-per-meter U] [--rate HZ] [--blend W] [--cold]
    secmo report FILE.glb [--clip NAME]... [--out DIR] [--units-per-meter U] [--rate HZ]
    secmo vrm-settings FILE [--out PATH]
    secmo rig IN.glb -o OUT.glb [--rigid]
    secmo --version | --help

COMMANDS:
    demo    Run the built-in procedural body (pelvis, spine, chest, arms; hip
            helper springs; chest helpers with rotation constraint, spring and
            BtoB corrective) through walk → run → sprint → stop.
            Prints the peak helper offsets and BtoB corrections per phase,
            and the input-rate study (30 Hz vs 60 Hz held / interpolated).
            Then writes the meshed character (the same body with head, legs,
            a five-bone tail and a VRM-spring ponytail, skinned tubes and
            the sequence as a clip) as DIR/character.glb and runs `report`
            and `bake` on it. Writes DIR/summary.md, helper_springs.svg,
            input_rate.svg, report.md, stretch_*.svg, character.glb and
            character.baked.glb. DIR defaults to ./secmo-demo.
    import  Read a glTF 2.0, GLB or VRM file and print its bones, skins,
            clips, a tail candidate and its VRM spring bones.
    bake    Drive the file's tail (bones named *tail*) with secmo's tail
            solver, loop each clip until the chain state repeats (at most
            30 passes; --cold skips this), and write a copy of the GLB whose
            tail joints carry the baked rotation keys (authored tail rotation
            tracks are replaced; --blend W keeps them and slerps each key
            from the authored rotation toward secmo's by W in [0, 1]).
            PATH defaults to FILE.baked.glb next to it.
            U is the file's units per metre (glTF: 1).
    report  Edge stretch on the skinned mesh (SPEC §10) for each clip: the
            tail as animated, rigid, and driven by secmo, against the body's
            own edges. A character without clips (a VRM) gets the head-turn
            sequence instead: hair stretch and settling. Writes DIR/report.md and DIR/stretch_<clip>.svg
            (DIR defaults to ./secmo-report).
    vrm-settings
            Read the spring bones of a VRM 0.x/1.0 file (.vrm, .glb or
            .gltf) and write them as a rig-settings file whose chains use
            the hair solver (docs/vrm-mapping.md). PATH defaults to
            FILE's name with .secmo-settings.json, next to it.

    rig     Find parts of the skin that hang far from the skeleton (SPEC §12),
            such as a tail that a humanoid auto-rigger handed to a leg, and
            grow a bone chain (Tail_1..Tail_K, Tail_End, under the hips)
            along each long one that hangs from the pelvis, with blended
            weights. Parts on the spine are held rigid on their bone; parts
            on the head are left alone. Prints an \"appendages\" summary and
            writes OUT.glb (the grown chain as a secmo tail chain in its
            extras.secmo_rig_settings) and OUT.secmo-settings.json.
            --rigid weights each pelvis part 1.0 to the hips instead of
            growing a chain. Existing clips stay valid.

EXAMPLES:
    secmo demo
    secmo demo --out /tmp/demo --input-hz 30
    secmo import Fox.glb
    secmo bake Fox.glb --units-per-meter 100 --clip Walk
    secmo bake Fox.glb --units-per-meter 100 --blend 0.5
    secmo report Fox.glb --units-per-meter 100
    secmo vrm-settings character.vrm --out character.json
    secmo rig fox_from_a_humanoid_rigger.glb -o fox_with_tail.glb
";

/// The value after option `name`.
fn value(it: &mut std::slice::Iter<'_, String>, name: &str) -> Result<String, String> {
    it.next()
        .cloned()
        .ok_or_else(|| format!("{name} needs a value"))
}

fn parse_demo(args: &[String]) -> Result<DemoOptions, String> {
    let mut o = DemoOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => o.out_dir = PathBuf::from(value(&mut it, "--out")?),
            "--seconds-per-phase" => {
                let v = value(&mut it, "--seconds-per-phase")?;
                o.seconds_per_phase = v
                    .parse()
                    .ok()
                    .filter(|s: &f32| s.is_finite() && *s > 0.0 && *s <= 600.0)
                    .ok_or_else(|| {
                        format!("--seconds-per-phase: `{v}` is not a number of seconds in (0, 600]")
                    })?;
            }
            "--input-hz" => {
                let v = value(&mut it, "--input-hz")?;
                o.input_hz = v
                    .parse()
                    .ok()
                    .filter(|s: &f32| s.is_finite() && *s >= 1.0 && *s <= 1000.0)
                    .ok_or_else(|| format!("--input-hz: `{v}` is not a rate in [1, 1000] Hz"))?;
            }
            other => return Err(format!("demo: unknown option `{other}` (see --help)")),
        }
    }
    Ok(o)
}

fn parse_rig(args: &[String]) -> Result<(PathBuf, PathBuf, bool), String> {
    let mut input = None;
    let mut out = None;
    let mut rigid = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--out" => out = Some(PathBuf::from(value(&mut it, a)?)),
            "--rigid" => rigid = true,
            other if other.starts_with('-') => {
                return Err(format!("rig: unknown option `{other}` (see --help)"))
            }
            file if input.is_none() => input = Some(PathBuf::from(file)),
            extra => return Err(format!("rig: one input file only, got `{extra}` too")),
        }
    }
    let input = input.ok_or("rig needs an input file (a .glb)")?;
    let out = out.ok_or("rig needs -o OUT.glb")?;
    Ok((input, out, rigid))
}

fn parse_vrm_settings(args: &[String]) -> Result<(PathBuf, PathBuf), String> {
    let mut input = None;
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value(&mut it, "--out")?)),
            other if other.starts_with("--") => {
                return Err(format!(
                    "vrm-settings: unknown option `{other}` (see --help)"
                ))
            }
            file if input.is_none() => input = Some(PathBuf::from(file)),
            extra => return Err(format!("vrm-settings: one FILE only, got `{extra}` too")),
        }
    }
    let input = input.ok_or("vrm-settings needs a FILE (a .vrm, .glb or .gltf)")?;
    let out = out.unwrap_or_else(|| vrm_settings::default_output(&input));
    Ok((input, out))
}

fn parse_bake(args: &[String]) -> Result<BakeArgs, String> {
    let mut input = None;
    let mut out = None;
    let mut clips = Vec::new();
    let mut units_per_meter = 1.0;
    let mut options = secmo_cli::bake::BakeOptions::default();
    let mut cold = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let number = |name: &str, v: String, lo: f32, hi: f32| {
            v.parse::<f32>()
                .ok()
                .filter(|x| x.is_finite() && *x >= lo && *x <= hi)
                .ok_or_else(|| format!("{name}: `{v}` is not a number in [{lo}, {hi}]"))
        };
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value(&mut it, "--out")?)),
            "--clip" => clips.push(value(&mut it, "--clip")?),
            "--units-per-meter" => {
                units_per_meter = number(
                    "--units-per-meter",
                    value(&mut it, "--units-per-meter")?,
                    1e-3,
                    1e5,
                )?
            }
            "--rate" => options.rate = number("--rate", value(&mut it, "--rate")?, 1.0, 1000.0)?,
            "--blend" => options.blend = number("--blend", value(&mut it, "--blend")?, 0.0, 1.0)?,
            "--cold" => cold = true,
            other if other.starts_with("--") => {
                return Err(format!("bake: unknown option `{other}` (see --help)"))
            }
            file if input.is_none() => input = Some(PathBuf::from(file)),
            extra => return Err(format!("bake: one FILE only, got `{extra}` too")),
        }
    }
    let input: PathBuf = input.ok_or("bake and report need a FILE (a .glb)")?;
    let out_dir = out.clone();
    let out = out.unwrap_or_else(|| {
        let stem = input
            .file_stem()
            .map_or_else(|| "baked".into(), |s| s.to_string_lossy().into_owned());
        input.with_file_name(format!("{stem}.baked.glb"))
    });
    Ok(BakeArgs {
        input,
        out,
        out_dir,
        clips,
        units_per_meter,
        options,
        cold,
    })
}

/// Prints a command's text, or its error with exit code 1.
fn finish(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("secmo: {e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("secmo {}", secmo::VERSION);
            ExitCode::SUCCESS
        }
        Some("demo") => finish(parse_demo(&args[1..]).and_then(|o| demo::run(&o)).map(|r| {
            format!(
                "{}wrote {} and {}\n",
                r.table,
                r.plot.display(),
                r.rate_plot.display()
            )
        })),
        Some("import") => match args.get(1).filter(|_| args.len() == 2) {
            None => {
                eprintln!("secmo: import needs one FILE (a .gltf, .glb or .vrm)");
                ExitCode::from(2)
            }
            Some(file) => {
                finish(secmo_cli::import::import(std::path::Path::new(file)).map(|i| i.summary()))
            }
        },
        Some("bake") => finish(parse_bake(&args[1..]).and_then(|b| bake(&b))),
        Some("report") => finish(parse_bake(&args[1..]).and_then(|b| report(&b))),
        Some("rig") => finish(parse_rig(&args[1..]).and_then(|(input, out, rigid)| {
            let options = secmo_cli::grow::GrowOptions {
                rigid,
                ..Default::default()
            };
            secmo_cli::grow::run(&input, &out, &options)
        })),
        Some("vrm-settings") => finish(
            parse_vrm_settings(&args[1..])
                .and_then(|(input, out)| vrm_settings::run(&input, &out))
                .map(|r| format!("{}wrote {}\n", r.summary, r.written.display())),
        ),
        Some(other) => {
            eprintln!("secmo: unknown command `{other}`; try `secmo --help`");
            ExitCode::from(2)
        }
    }
}
