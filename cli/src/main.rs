//! `secmo` — the command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;

use secmo_cli::demo::{self, DemoOptions};
use secmo_cli::vrm_settings;

const HELP: &str = "\
secmo — secondary motion for game characters

USAGE:
    secmo demo [--out DIR] [--seconds-per-phase S] [--input-hz HZ]
    secmo import FILE
    secmo vrm-settings FILE [--out PATH]
    secmo --version | --help

COMMANDS:
    demo    Run the built-in procedural body (pelvis, spine, chest, arms; hip
            helper springs; chest helpers with rotation constraint, spring and
            BtoB corrective) through walk → run → sprint → stop.
            Prints the peak helper offsets and BtoB corrections per phase,
            and the input-rate study (30 Hz vs 60 Hz held / interpolated).
            Writes DIR/helper_springs.svg (target vs output),
            DIR/input_rate.svg and DIR/summary.md.
            DIR defaults to ./secmo-demo.
    import  Read a glTF 2.0, GLB or VRM file and print its bones, skins,
            clips, a tail candidate and its VRM spring bones.
    vrm-settings
            Read the spring bones of a VRM 0.x/1.0 file (.vrm, .glb or
            .gltf) and write them as a rig-settings file whose chains use
            the hair solver (docs/vrm-mapping.md). PATH defaults to
            FILE's name with .secmo-settings.json, next to it.

EXAMPLES:
    secmo demo
    secmo demo --out /tmp/demo --input-hz 30
    secmo import Fox.glb
    secmo vrm-settings character.vrm --out character.json
";

fn parse_demo(args: &[String]) -> Result<DemoOptions, String> {
    let mut o = DemoOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--out" => o.out_dir = PathBuf::from(value("--out")?),
            "--seconds-per-phase" => {
                let v = value("--seconds-per-phase")?;
                o.seconds_per_phase = v
                    .parse()
                    .ok()
                    .filter(|s: &f32| s.is_finite() && *s > 0.0 && *s <= 600.0)
                    .ok_or_else(|| {
                        format!("--seconds-per-phase: `{v}` is not a number of seconds in (0, 600]")
                    })?;
            }
            "--input-hz" => {
                let v = value("--input-hz")?;
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

fn parse_vrm_settings(args: &[String]) -> Result<(PathBuf, PathBuf), String> {
    let mut input = None;
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a value")?)),
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
        Some("demo") => match parse_demo(&args[1..]).and_then(|o| demo::run(&o)) {
            Ok(report) => {
                print!("{}", report.table);
                println!(
                    "wrote {} and {}",
                    report.plot.display(),
                    report.rate_plot.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("secmo: {e}");
                ExitCode::from(1)
            }
        },
        Some("import") => match args.get(1).filter(|_| args.len() == 2) {
            None => {
                eprintln!("secmo: import needs one FILE (a .gltf, .glb or .vrm)");
                ExitCode::from(2)
            }
            Some(file) => match secmo_cli::import::import(std::path::Path::new(file)) {
                Ok(imported) => {
                    print!("{}", imported.summary());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("secmo: {e}");
                    ExitCode::from(1)
                }
            },
        },
        Some("vrm-settings") => match parse_vrm_settings(&args[1..])
            .and_then(|(input, out)| vrm_settings::run(&input, &out))
        {
            Ok(report) => {
                print!("{}", report.summary);
                println!("wrote {}", report.written.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("secmo: {e}");
                ExitCode::from(1)
            }
        },
        Some(other) => {
            eprintln!("secmo: unknown command `{other}`; try `secmo --help`");
            ExitCode::from(2)
        }
    }
}
