//! `secmo demo`: the built-in procedural body through walk → run → sprint →
//! stop. It prints a per-phase table of peak helper offsets and BtoB
//! corrections, plots target vs output for one helper bone, and runs the
//! input-rate study of docs/algorithms.md §9 (30 Hz, 60 Hz held, 60 Hz interpolated).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use secmo::{Character, CharacterOptions, FrameInput, Rig, StageRecords, Transform};

use crate::procedural::{self, Sequence, SEQUENCE};

/// What the demo runs.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub out_dir: PathBuf,
    pub seconds_per_phase: f32,
    /// Input (animation) rate, Hz, of the main run. The solver still steps at ≈120 Hz.
    pub input_hz: f32,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            out_dir: PathBuf::from("secmo-demo"),
            seconds_per_phase: 3.0,
            input_hz: 60.0,
        }
    }
}

/// One helper bone's trace: source (target) and output component positions.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub time: Vec<f32>,
    pub target: Vec<Vec3>,
    pub output: Vec<Vec3>,
}

/// How the animation reaches the solver in one run of the input-rate study
/// (docs/algorithms.md §9, as the article ran it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// The animation sampled at the update rate.
    Sampled,
    /// Updates at 60 Hz, each 30 Hz pose fed twice ("60 Hz held").
    Held30,
    /// Updates at 60 Hz, a midpoint pose inserted between adjacent 30 Hz
    /// samples: translations and scales lerped, rotations slerped
    /// ("60 Hz interpolated midpoints").
    Midpoints30,
}

impl InputMode {
    fn label(self, input_hz: f32) -> String {
        match self {
            InputMode::Sampled => format!("{input_hz} Hz"),
            InputMode::Held30 => "60 Hz held".into(),
            InputMode::Midpoints30 => "60 Hz interpolated".into(),
        }
    }
}

/// One run of the sequence at one input rate.
#[derive(Clone, Debug)]
pub struct Run {
    pub input_hz: f32,
    pub mode: InputMode,
    pub time: Vec<f32>,
    /// `[frame][spring]` spring offset vector `output − target` (docs/algorithms.md §9), cm.
    pub offsets: Vec<Vec<Vec3>>,
    /// `[frame][bone]` final component positions.
    pub positions: Vec<Vec<Vec3>>,
    /// `[frame][corrective]` accumulated local X translation of BtoB, cm.
    pub btob: Vec<Vec<f32>>,
}

/// Per-bone result of comparing two runs at their common times (docs/algorithms.md §9).
#[derive(Clone, Debug, PartialEq)]
pub struct RateRow {
    pub bone: String,
    /// Largest |offset_a − offset_b| over common times, cm, and the frame
    /// (in the 30 Hz numbering) where it occurs: 30 Hz vs 60 Hz held.
    pub max_30_vs_60: (f32, usize),
    /// The same for 30 Hz vs 60 Hz with interpolated midpoints.
    pub max_30_vs_60_interpolated: (f32, usize),
}

/// The demo's numbers.
#[derive(Clone, Debug)]
pub struct DemoReport {
    pub helper_names: Vec<String>,
    pub max_offsets: Vec<f32>,
    /// `[phase][helper]` peak |output − target| in rig units (cm).
    pub peak_offsets: Vec<Vec<f32>>,
    /// `[phase][corrective]` peak |BtoB local X translation| (cm).
    pub peak_btob: Vec<Vec<f32>>,
    /// Offset length of each helper at the very end (after the stop phase).
    pub final_offsets: Vec<f32>,
    pub trace: Trace,
    pub rate_rows: Vec<RateRow>,
    pub table: String,
    pub plot: PathBuf,
    pub rate_plot: PathBuf,
    /// The meshed character (input of report and bake) and its bake.
    pub character: PathBuf,
    pub baked: PathBuf,
}

/// Writes the pose the solver sees at update `frame` of a run in `mode`.
fn input_pose(
    sequence: &Sequence,
    mode: InputMode,
    frame: usize,
    dt: f32,
    scratch: &mut [Transform],
    pose: &mut [Transform],
) {
    match mode {
        InputMode::Sampled => sequence.write_pose(frame as f32 * dt, pose),
        InputMode::Held30 => sequence.write_pose((frame / 2 * 2) as f32 * dt, pose),
        InputMode::Midpoints30 => {
            let earlier = (frame / 2 * 2) as f32 * dt;
            sequence.write_pose(earlier, pose);
            if frame % 2 == 1 {
                sequence.write_pose(earlier + 2.0 * dt, scratch);
                for (a, b) in pose.iter_mut().zip(scratch.iter()) {
                    *a = Transform::new(
                        a.translation().lerp(b.translation(), 0.5),
                        a.rotation().slerp(b.rotation(), 0.5),
                        a.scale().lerp(b.scale(), 0.5),
                    );
                }
            }
        }
    }
}

/// Runs the whole sequence at `input_hz` and records what the report needs.
pub fn run_sequence(
    rig: &Arc<Rig>,
    sequence: &Sequence,
    input_hz: f32,
    mode: InputMode,
) -> anyhow::Result<Run> {
    let mut character = Character::new(rig.clone(), CharacterOptions::default());
    let mut records = StageRecords::new(rig);
    let n = rig.bone_count();
    let frames = (sequence.duration() * input_hz).round() as usize;
    let dt = 1.0 / input_hz;
    let mut pose = rig.reference_pose().to_vec();
    let mut scratch = pose.clone();
    let mut out = vec![Transform::IDENTITY; n];
    let mut component = vec![Affine3A::IDENTITY; n];
    let mut run = Run {
        input_hz,
        mode,
        time: Vec::with_capacity(frames),
        offsets: Vec::with_capacity(frames),
        positions: Vec::with_capacity(frames),
        btob: Vec::with_capacity(frames),
    };
    for frame in 0..frames {
        let t = frame as f32 * dt;
        input_pose(sequence, mode, frame, dt, &mut scratch, &mut pose);
        let frame_dt = if frame == 0 { 0.0 } else { dt };
        character
            .update_recorded(
                &FrameInput {
                    dt: frame_dt,
                    pose: &pose,
                    teleport: false,
                },
                &mut out,
                &mut records,
            )
            .map_err(|e| anyhow::anyhow!("frame {frame}: {e}"))?;
        secmo::math::forward_kinematics(rig.parents(), &out, &mut component);
        run.time.push(t);
        run.offsets.push(
            records
                .springs
                .iter()
                .map(|r| Vec3::from(r.output) - Vec3::from(r.target))
                .collect(),
        );
        run.positions.push(
            component
                .iter()
                .map(|c| Vec3::from(c.translation))
                .collect(),
        );
        run.btob.push(
            records
                .correctives
                .iter()
                .map(|r| r.state_translation[0])
                .collect(),
        );
    }
    Ok(run)
}

/// docs/algorithms.md §9: per spring, the largest offset-vector difference between two runs
/// at the times both sampled (`stride_a`/`stride_b` frames apart), with the
/// frame index in `a`'s numbering.
fn compare(a: &Run, b: &Run, stride_a: usize, stride_b: usize, spring: usize) -> (f32, usize) {
    let mut best = (0.0f32, 0usize);
    let mut i = 0;
    while i * stride_a < a.offsets.len() && i * stride_b < b.offsets.len() {
        let d = (a.offsets[i * stride_a][spring] - b.offsets[i * stride_b][spring]).length();
        if d > best.0 {
            best = (d, i * stride_a);
        }
        i += 1;
    }
    best
}

/// Runs the demo and writes `helper_springs.svg`, `input_rate.svg` and
/// `summary.md` into `out_dir`.
pub fn run(options: &DemoOptions) -> anyhow::Result<DemoReport> {
    let rig = Arc::new(Rig::new(procedural::helper_body()).map_err(|e| anyhow::anyhow!("{e}"))?);
    let sequence = Sequence::new(options.seconds_per_phase);
    let springs = rig.springs().to_vec();
    let helper_names: Vec<String> = springs
        .iter()
        .map(|s| rig.bone_name(s.bone as usize).unwrap_or("?").to_string())
        .collect();

    let main = run_sequence(&rig, &sequence, options.input_hz, InputMode::Sampled)?;
    let mut peaks = vec![vec![0.0f32; springs.len()]; SEQUENCE.len()];
    let mut peak_btob = vec![vec![0.0f32; rig.correctives().len()]; SEQUENCE.len()];
    for (frame, t) in main.time.iter().enumerate() {
        let phase = sequence.phase_index(*t);
        for (k, o) in main.offsets[frame].iter().enumerate() {
            peaks[phase][k] = peaks[phase][k].max(o.length());
        }
        for (k, b) in main.btob[frame].iter().enumerate() {
            peak_btob[phase][k] = peak_btob[phase][k].max(b.abs());
        }
    }
    let final_offsets: Vec<f32> = main
        .offsets
        .last()
        .map(|o| o.iter().map(|v| v.length()).collect())
        .unwrap_or_default();
    let traced = springs[0].bone as usize;
    let trace = Trace {
        time: main.time.clone(),
        target: main
            .positions
            .iter()
            .zip(&main.offsets)
            .map(|(p, o)| p[traced] - o[0])
            .collect(),
        output: main.positions.iter().map(|p| p[traced]).collect(),
    };

    // docs/algorithms.md §9 input-rate study: the same 30 Hz animation fed at 30 Hz, at
    // 60 Hz held, and at 60 Hz with interpolated midpoints.
    let r30 = run_sequence(&rig, &sequence, 30.0, InputMode::Sampled)?;
    let r60 = run_sequence(&rig, &sequence, 60.0, InputMode::Held30)?;
    let r60i = run_sequence(&rig, &sequence, 60.0, InputMode::Midpoints30)?;
    let rate_rows: Vec<RateRow> = helper_names
        .iter()
        .enumerate()
        .map(|(k, name)| RateRow {
            bone: name.clone(),
            max_30_vs_60: compare(&r30, &r60, 1, 2, k),
            max_30_vs_60_interpolated: compare(&r30, &r60i, 1, 2, k),
        })
        .collect();

    let mut table = String::new();
    let _ = writeln!(
        table,
        "Peak helper offset |output − target| per phase, cm ({} Hz input, {:.1} s per phase)",
        options.input_hz, options.seconds_per_phase
    );
    let _ = write!(table, "{:<8}", "phase");
    for name in &helper_names {
        let _ = write!(table, " | {name:>14}");
    }
    let _ = writeln!(table, " | BtoB x L / R");
    let _ = write!(table, "{:<8}", "limit");
    for s in &springs {
        let _ = write!(table, " | {:>14.3}", s.max_offset);
    }
    let _ = writeln!(table, " |");
    for ((phase, row), btob) in SEQUENCE.iter().zip(&peaks).zip(&peak_btob) {
        let _ = write!(table, "{:<8}", phase.name);
        for v in row {
            let _ = write!(table, " | {v:>14.3}");
        }
        let _ = writeln!(table, " | {:.3} / {:.3}", btob[0], btob[1]);
    }
    let _ = write!(table, "{:<8}", "at end");
    for v in &final_offsets {
        let _ = write!(table, " | {v:>14.4}");
    }
    let _ = writeln!(table, " |");
    let _ = writeln!(
        table,
        "\nInput-rate study (docs/algorithms.md §9): max |offset(30 Hz) − offset(60 Hz)| per helper, cm @ 30 Hz frame"
    );
    let _ = writeln!(
        table,
        "{:<16} | {:>20} | {:>28}",
        "bone", "30 vs 60 Hz held", "30 vs 60 Hz interpolated"
    );
    for r in &rate_rows {
        let _ = writeln!(
            table,
            "{:<16} | {:>12.4} @ {:>5} | {:>20.4} @ {:>5}",
            r.bone,
            r.max_30_vs_60.0,
            r.max_30_vs_60.1,
            r.max_30_vs_60_interpolated.0,
            r.max_30_vs_60_interpolated.1
        );
    }

    crate::output::check_dir(&options.out_dir, "--out")?;
    std::fs::create_dir_all(&options.out_dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot create directory: {e}",
            options.out_dir.display()
        )
    })?;
    let plot = options.out_dir.join("helper_springs.svg");
    for name in [
        "helper_springs.svg",
        "input_rate.svg",
        "character.glb",
        "summary.md",
    ] {
        crate::output::Output {
            path: &options.out_dir.join(name),
            flag: "--out",
            command: "demo",
            inputs: &[],
            force: None,
        }
        .check()?;
    }
    draw_plot(
        &plot,
        &trace,
        &helper_names[0],
        springs[0].max_offset,
        options.seconds_per_phase,
    )?;
    let rate_plot = options.out_dir.join("input_rate.svg");
    let studied = 1; // hip_helper_r, as docs/algorithms.md §9 lists it first
    draw_rate_plot(
        &rate_plot,
        &[&r30, &r60, &r60i],
        studied,
        &helper_names[studied],
    )?;

    // The meshed character (tail, ponytail, helpers) as a GLB, measured and
    // baked like any imported file.
    let character = options.out_dir.join("character.glb");
    let bytes = crate::demo_character::glb(&sequence, 30.0)?;
    std::fs::write(&character, bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", character.display()))?;
    let args = crate::commands::BakeArgs {
        input: character.clone(),
        out: options.out_dir.join("character.baked.glb"),
        out_dir: Some(options.out_dir.clone()),
        clips: Vec::new(),
        units_per_meter: Some(1.0),
        options: crate::bake::BakeOptions::default(),
        cold: false,
        force: true,
        loop_clips: Vec::new(),
        once_clips: Vec::new(),
        tail: None,
    };
    let _ = writeln!(
        table,
        "\nMeshed character {} (tail and ponytail driven by secmo):",
        character.display()
    );
    table.push_str(&crate::commands::report(&args)?);
    table.push_str(&crate::commands::bake(&args)?);
    let baked = args.out;

    let summary = options.out_dir.join("summary.md");
    std::fs::write(
        &summary,
        format!(
            "# secmo demo\n\n```\n{table}```\n\n![target vs output](helper_springs.svg)\n\n![input rate](input_rate.svg)\n\n\
             The meshed character's stretch report: [report.md](report.md). \
             `character.glb` is the input, `character.baked.glb` the same file with the \
             tail and ponytail rotations baked into its clip.\n"
        ),
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", summary.display()))?;

    Ok(DemoReport {
        helper_names,
        max_offsets: springs.iter().map(|s| s.max_offset).collect(),
        peak_offsets: peaks,
        peak_btob,
        final_offsets,
        trace,
        rate_rows,
        table,
        plot,
        rate_plot,
        character,
        baked,
    })
}

/// Two panels: the helper's height, target (cyan) against output (amber),
/// and the offset length against its limit. Colours follow the source
/// articles. Lengths in the procedural rig's unit (centimetres).
fn draw_plot(
    path: &Path,
    trace: &Trace,
    bone: &str,
    max_offset: f32,
    seconds_per_phase: f32,
) -> anyhow::Result<()> {
    use crate::plot::{Mark, Panel, Series, AMBER, CYAN, RED};
    let unit = crate::plot::unit_name(crate::procedural::UNITS_PER_METER);
    let t_end = f64::from(trace.time.last().copied().unwrap_or(1.0).max(1e-3));
    let sections: Vec<(f64, String)> = SEQUENCE
        .iter()
        .enumerate()
        .map(|(i, p)| (f64::from(i as f32 * seconds_per_phase), p.name.to_string()))
        .collect();
    let series = |points: &[Vec3]| -> Vec<(f64, f64)> {
        trace
            .time
            .iter()
            .zip(points)
            .map(|(t, p)| (f64::from(*t), f64::from(p.y)))
            .collect()
    };
    let offset: Vec<(f64, f64)> = trace
        .time
        .iter()
        .zip(trace.target.iter().zip(&trace.output))
        .map(|(t, (a, b))| (f64::from(*t), f64::from((*b - *a).length())))
        .collect();
    let panels = [
        Panel {
            title: "height above the floor".into(),
            x_label: "time (s)".into(),
            y_label: format!("height ({unit})"),
            series: vec![
                Series::new("target (animation)", CYAN, series(&trace.target)),
                Series::new("output (secmo)", AMBER, series(&trace.output)),
            ],
            sections: sections.clone(),
            x_range: Some((0.0, t_end)),
            ..Default::default()
        },
        Panel {
            title: "offset length |output − target|".into(),
            x_label: "time (s)".into(),
            y_label: format!("offset ({unit})"),
            series: vec![Series::new("offset", AMBER, offset)],
            marks: vec![Mark::horizontal(
                format!("limit ({max_offset} {unit})"),
                RED,
                f64::from(max_offset),
            )],
            sections,
            x_range: Some((0.0, t_end)),
            y_range: Some((0.0, f64::from(max_offset) * 1.15)),
            ..Default::default()
        },
    ];
    crate::plot::draw(
        path,
        &format!("{bone}: helper spring, target vs output"),
        &panels,
    )
}

/// One bone's vertical offset (output − target) for the three input-rate
/// runs (the procedural rig's unit, cm), and each run's difference from the 60 Hz interpolated one.
fn draw_rate_plot(path: &Path, runs: &[&Run], spring: usize, bone: &str) -> anyhow::Result<()> {
    use crate::plot::{Panel, Series, AMBER, BLUE, RED};
    let unit = crate::plot::unit_name(crate::procedural::UNITS_PER_METER);
    let colors = [BLUE, AMBER, RED];
    let t_end = f64::from(runs[0].time.last().copied().unwrap_or(1.0).max(1e-3));
    let series: Vec<Series> = runs
        .iter()
        .zip(colors)
        .map(|(run, color)| {
            Series::new(
                run.mode.label(run.input_hz),
                color,
                run.time
                    .iter()
                    .zip(&run.offsets)
                    .map(|(t, o)| (f64::from(*t), f64::from(o[spring].y)))
                    .collect(),
            )
        })
        .collect();
    let panels = [Panel {
        title: "vertical offset, output − target".into(),
        x_label: "time (s)".into(),
        y_label: format!("offset y ({unit})"),
        series,
        x_range: Some((0.0, t_end)),
        ..Default::default()
    }];
    crate::plot::draw(
        path,
        &format!("{bone}: spring offset at three input rates (docs/algorithms.md §9)"),
        &panels,
    )
}
