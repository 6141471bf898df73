//! `secmo` — the command-line tool.
//!
//! Exit codes: 0 on success, 1 when a command fails at run time (a file
//! that cannot be read, nothing to bake, ...), 2 for every usage error
//! (unknown option, missing or malformed value). Errors are one line on
//! stderr that names the file and the part that is wrong.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use secmo_cli::commands::{bake, report, BakeArgs};
use secmo_cli::demo::{self, DemoOptions};
use secmo_cli::vrm_settings;

/// The tool's allocator (the runtime library leaves the choice to its host).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "secmo",
    version = secmo::VERSION,
    about = "secmo — secondary motion for game characters (tails, hair, helper bones)",
    long_about = None,
    after_help = "EXAMPLES:
    secmo demo
    secmo demo --out /tmp/demo --input-hz 30
    secmo import Fox.glb
    secmo bake Fox.glb --clip Walk
    secmo bake Fox.glb --units-per-meter 100 --blend 0.5
    secmo report Fox.glb
    secmo vrm-settings character.vrm --out character.json
    secmo rig fox_from_a_humanoid_rigger.glb -o fox_with_tail.glb"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the built-in demo: helper springs, then a meshed character's
    /// report and bake.
    ///
    /// The procedural body (pelvis, spine, chest, arms; hip helper springs;
    /// chest helpers with rotation constraint, spring and BtoB corrective)
    /// goes through walk → run → sprint → stop. Prints peak helper offsets
    /// and BtoB corrections per phase and the input-rate study (30 Hz vs
    /// 60 Hz held / interpolated). Then writes the meshed character (head,
    /// legs, a five-bone tail, a VRM-spring ponytail) as DIR/character.glb
    /// and runs `report` and `bake` on it.
    ///
    /// Writes into DIR: summary.md, helper_springs.svg, input_rate.svg,
    /// report.md, stretch_<clip>.svg, tips_<clip>.svg, rates_<clip>.svg,
    /// character.glb and character.baked.glb.
    Demo(DemoArgs),
    /// Print what a glTF 2.0, GLB or VRM file holds: bones, skins, clips, a
    /// tail candidate and VRM spring bones.
    Import {
        /// The file (.gltf, .glb or .vrm).
        file: PathBuf,
        /// The tail's first bone (a glTF node name), where the tail's
        /// bones are not named *tail*: the chain runs from it to its tip
        /// (a name no bone has lists the bones).
        #[arg(long, value_name = "BONE")]
        tail: Option<String>,
    },
    /// Drive the file's chains with secmo and write a copy of the GLB with
    /// the motion baked into its clips.
    ///
    /// The tail (bones named *tail*, or from --tail BONE) runs secmo's tail
    /// solver, VRM spring bones its VRM preset, and the file's secmo rig
    /// settings (extras.secmo_rig_settings) its helper springs,
    /// constraints and correctives. Each clip is looped until the chain
    /// state repeats (at most 30 passes; --cold skips this), then its keys
    /// are written: authored rotation tracks of the driven joints are
    /// replaced (--blend keeps them and slerps toward secmo's).
    Bake(BakeCli),
    /// Measure docs/algorithms.md §10 edge stretch on the skinned mesh for each clip and
    /// write a report with plots.
    ///
    /// Compares the chain as animated, rigid (the harness check) and driven
    /// by secmo against the body's own edges. Writes DIR/report.md and, per
    /// clip, stretch_<clip>.svg (stretch histogram), tips_<clip>.svg (chain
    /// tip: target vs secmo) and rates_<clip>.svg (30/60/120 Hz input). A
    /// character without clips (a VRM) gets the head-turn sequence instead:
    /// hair stretch and settling, as tables in DIR/report.md.
    Report(ReportCli),
    /// Write a VRM 0.x/1.0 file's spring bones as a secmo rig-settings file
    /// (chains with the VRM preset, colliders; docs/vrm-mapping.md).
    VrmSettings {
        /// The file (.vrm, .glb or .gltf).
        file: PathBuf,
        /// Output settings file [default: FILE's name with .secmo-settings.json, next to it].
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Grow tail chains where the skin hangs far from the skeleton (docs/algorithms.md §12).
    ///
    /// Finds far, elongated parts of the skin that hang from the pelvis
    /// (such as a tail a humanoid auto-rigger handed to a leg) and grows
    /// Tail_1..Tail_K and Tail_End under the hips along each, with blended
    /// weights. Parts on the spine are held rigid on their bone; parts on
    /// the head are left alone. Prints an "appendages" summary and writes
    /// OUT (the grown chains as secmo tail chains in its
    /// extras.secmo_rig_settings) and OUT's name with .secmo-settings.json.
    /// When nothing is grown nothing is written.
    Rig {
        /// The input file (.glb).
        input: PathBuf,
        /// The output file (.glb).
        #[arg(short = 'o', long = "out", value_name = "OUT.glb")]
        out: PathBuf,
        /// Weight each pelvis part 1.0 to the hips instead of growing a chain.
        #[arg(long)]
        rigid: bool,
        /// Allow OUT to be the input file.
        #[arg(long)]
        force: bool,
        /// Write OUT even when nothing was grown (an unchanged copy).
        #[arg(long)]
        write_unchanged: bool,
    },
}

#[derive(Args, Debug)]
struct DemoArgs {
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "secmo-demo")]
    out: PathBuf,
    /// Length of each phase (walk, run, sprint, stop), seconds, in (0, 600].
    #[arg(long, value_name = "S", default_value_t = 3.0, value_parser = range(1e-6, 600.0))]
    seconds_per_phase: f32,
    /// Animation (input) rate of the main run, Hz, in [1, 1000]. The solver
    /// steps at ≈120 Hz whatever this is.
    #[arg(long, value_name = "HZ", default_value_t = 60.0, value_parser = range(1.0, 1000.0))]
    input_hz: f32,
}

/// Options `bake` and `report` share.
#[derive(Args, Debug)]
struct ClipArgs {
    /// The file (.glb or .vrm).
    file: PathBuf,
    /// Only this clip (repeat for several) [default: every clip].
    #[arg(long = "clip", value_name = "NAME")]
    clips: Vec<String>,
    /// The file's units per metre, in [0.001, 100000] (metres: 1,
    /// centimetres: 100) [default: inferred from the skinned mesh's size,
    /// assuming a character about 1.7 m across; the assumption is printed].
    #[arg(long, value_name = "U", value_parser = range(1e-3, 1e5))]
    units_per_meter: Option<f32>,
    /// Rate of the baked keys, Hz, in [1, 1000]. The input is the clip's
    /// own keys on a 120 Hz grid at every rate, so keys at two rates agree
    /// where their times meet.
    #[arg(long, value_name = "HZ", default_value_t = 60.0, value_parser = range(1.0, 1000.0))]
    rate: f32,
    /// The tail's first bone (a glTF node name), where the tail's bones
    /// are not named *tail*: the chain runs from it to its tip, down the
    /// child with the longest line below it [default: the longest line of
    /// bones named tail, Schwanz, queue, しっぽ, 尻尾 or 尾巴, any case].
    #[arg(long, value_name = "BONE")]
    tail: Option<String>,
}

#[derive(Args, Debug)]
struct BakeCli {
    #[command(flatten)]
    common: ClipArgs,
    /// Output file [default: FILE.baked.glb next to FILE].
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Weight of secmo's rotation in the keys, in [0, 1]: 1 replaces the
    /// authored tracks, 0 keeps them.
    #[arg(long, value_name = "W", default_value_t = 1.0, value_parser = range(0.0, 1.0))]
    blend: f32,
    /// Skip the loop warm-up: start each clip from the rest pose.
    #[arg(long)]
    cold: bool,
    /// Bake CLIP as a loop (warmed up by playing it; its last key wraps to
    /// its first), whatever its ends look like [default: a clip is a cycle
    /// when its first pose is within 2 key steps of its last, or of its
    /// last extrapolated by one key (a cycle exported without its closing
    /// key)]. Repeat for more clips.
    #[arg(long = "loop", value_name = "CLIP")]
    loop_clips: Vec<String>,
    /// Bake CLIP as a one-shot: start settled on its first pose, end on its
    /// last, never wrapped. Repeat for more clips.
    #[arg(long = "once", value_name = "CLIP")]
    once_clips: Vec<String>,
    /// Allow --out to be the input file.
    #[arg(long)]
    force: bool,
}

#[derive(Args, Debug)]
struct ReportCli {
    #[command(flatten)]
    common: ClipArgs,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "secmo-report")]
    out: PathBuf,
}

/// A value parser for an `f32` in `[lo, hi]`.
fn range(lo: f32, hi: f32) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync {
    move |s: &str| {
        s.parse::<f32>()
            .ok()
            .filter(|x| x.is_finite() && *x >= lo && *x <= hi)
            .ok_or_else(|| format!("`{s}` is not a number in [{lo}, {hi}]"))
    }
}

impl ClipArgs {
    fn into_bake_args(self, out: PathBuf, out_dir: Option<PathBuf>) -> BakeArgs {
        BakeArgs {
            input: self.file,
            out,
            out_dir,
            clips: self.clips,
            units_per_meter: self.units_per_meter,
            options: secmo_cli::bake::BakeOptions {
                rate: self.rate,
                ..Default::default()
            },
            cold: false,
            force: false,
            loop_clips: Vec::new(),
            once_clips: Vec::new(),
            tail: self.tail,
        }
    }
}

fn run(command: Command) -> anyhow::Result<String> {
    match command {
        Command::Demo(a) => {
            let r = demo::run(&DemoOptions {
                out_dir: a.out,
                seconds_per_phase: a.seconds_per_phase,
                input_hz: a.input_hz,
            })?;
            Ok(format!(
                "{}wrote {} and {}\n",
                r.table,
                r.plot.display(),
                r.rate_plot.display()
            ))
        }
        Command::Import { file, tail } => {
            Ok(secmo_cli::import::Imported::with_tail(&file, tail.as_deref())?.summary())
        }
        Command::Bake(b) => {
            let out = b.out.unwrap_or_else(|| {
                let input = &b.common.file;
                let stem = input
                    .file_stem()
                    .map_or_else(|| "baked".into(), |s| s.to_string_lossy().into_owned());
                input.with_file_name(format!("{stem}.baked.glb"))
            });
            let mut args = b.common.into_bake_args(out, None);
            args.options.blend = b.blend;
            if let Some(both) = b.loop_clips.iter().find(|c| b.once_clips.contains(c)) {
                anyhow::bail!("clip {both:?} is given to both --loop and --once");
            }
            args.loop_clips = b.loop_clips;
            args.once_clips = b.once_clips;
            args.cold = b.cold;
            args.force = b.force;
            bake(&args)
        }
        Command::Report(r) => {
            let dir = r.out.clone();
            report(&r.common.into_bake_args(dir.clone(), Some(dir)))
        }
        Command::VrmSettings { file, out } => {
            let out = out.unwrap_or_else(|| vrm_settings::default_output(&file));
            let r = vrm_settings::run(&file, &out)?;
            Ok(format!("{}wrote {}\n", r.summary, r.written.display()))
        }
        Command::Rig {
            input,
            out,
            rigid,
            force,
            write_unchanged,
        } => {
            let options = secmo_cli::grow::GrowOptions {
                rigid,
                ..Default::default()
            };
            secmo_cli::grow::run(&input, &out, &options, write_unchanged, force)
        }
    }
}

/// Parses the command line. Help and version print and exit 0; a usage
/// error prints one line and exits 2.
fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    Cli::try_parse().map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        _ => {
            // clap's first paragraph (the error and the arguments it
            // names), joined into one line; its usage block is left out.
            let text = e.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let line = first.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            eprintln!("secmo: {line} (see `secmo help`)");
            ExitCode::from(2)
        }
    })
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // A panic is a bug, but the user still gets one line and exit code 1,
    // not a backtrace: the importer turns panics inside the glTF reader
    // into errors naming the file, and anything else is caught here.
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| run(cli.command)).unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        Err(anyhow::anyhow!("internal error (please report it): {why}"))
    });
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            // `{:#}` joins the context chain on one line: file, then part.
            let line = format!("{e:#}").replace('\n', " ");
            eprintln!("secmo: {line}");
            ExitCode::from(1)
        }
    }
}
