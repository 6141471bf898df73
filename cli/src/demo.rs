//! `secmo demo`: the built-in procedural body through walk → run → sprint →
//! stop, with a per-phase table of peak helper offsets and an SVG plot of
//! target vs output for one helper bone.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use plotters::prelude::*;
use secmo::{Character, FrameInput, Rig, Transform};

use crate::procedural::{self, Gait, SEQUENCE};

/// What the demo runs.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub out_dir: PathBuf,
    pub seconds_per_phase: f32,
    /// Input (animation) rate, Hz. The solver still steps at ≈120 Hz.
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

/// The demo's numbers.
#[derive(Clone, Debug)]
pub struct DemoReport {
    pub helper_names: Vec<String>,
    pub max_offsets: Vec<f32>,
    /// `[phase][helper]` peak |output − target| in rig units (cm).
    pub peak_offsets: Vec<Vec<f32>>,
    /// Offset length of each helper at the very end (after the stop phase).
    pub final_offsets: Vec<f32>,
    pub trace: Trace,
    pub table: String,
    pub plot: PathBuf,
}

fn component(rig: &Rig, pose: &[Transform], out: &mut [Affine3A]) {
    secmo::math::forward_kinematics(rig.parents(), pose, out);
}

/// Runs the demo and writes `helper_springs.svg` and `summary.md` into `out_dir`.
pub fn run(options: &DemoOptions) -> Result<DemoReport, String> {
    let rig = Arc::new(Rig::new(procedural::helper_body()).map_err(|e| e.to_string())?);
    let mut character = Character::new(rig.clone(), Default::default());
    let reference = rig.reference_pose().to_vec();
    let n = rig.bone_count();
    let springs = rig.springs().to_vec();
    let helper_names: Vec<String> = springs
        .iter()
        .map(|s| rig.bone_name(s.bone as usize).unwrap_or("?").to_string())
        .collect();

    let dt = 1.0 / options.input_hz;
    let frames_per_phase = (options.seconds_per_phase * options.input_hz).round() as usize;
    let mut gait = Gait::default();
    let mut pose = reference.clone();
    let mut out = vec![Transform::IDENTITY; n];
    let mut src_c = vec![Affine3A::IDENTITY; n];
    let mut out_c = vec![Affine3A::IDENTITY; n];
    let mut peaks = vec![vec![0.0f32; springs.len()]; SEQUENCE.len()];
    let mut final_offsets = vec![0.0f32; springs.len()];
    let mut trace = Trace::default();
    let traced = springs[0].bone as usize;
    let mut frame = 0usize;
    for (phase_index, phase) in SEQUENCE.iter().enumerate() {
        for _ in 0..frames_per_phase {
            let frame_dt = if frame == 0 { 0.0 } else { dt };
            gait.advance(frame_dt, phase.speed);
            gait.write_pose(&mut pose);
            character
                .update(
                    &FrameInput {
                        dt: frame_dt,
                        pose: &pose,
                        teleport: false,
                    },
                    &mut out,
                )
                .map_err(|e| e.to_string())?;
            component(&rig, &pose, &mut src_c);
            component(&rig, &out, &mut out_c);
            for (k, s) in springs.iter().enumerate() {
                let b = s.bone as usize;
                let offset = Vec3::from(out_c[b].translation) - Vec3::from(src_c[b].translation);
                peaks[phase_index][k] = peaks[phase_index][k].max(offset.length());
                final_offsets[k] = offset.length();
            }
            trace.time.push(frame as f32 * dt);
            trace.target.push(src_c[traced].translation.into());
            trace.output.push(out_c[traced].translation.into());
            frame += 1;
        }
    }

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
    let _ = writeln!(table);
    let _ = write!(table, "{:<8}", "limit");
    for s in &springs {
        let _ = write!(table, " | {:>14.3}", s.max_offset);
    }
    let _ = writeln!(table);
    for (phase, row) in SEQUENCE.iter().zip(&peaks) {
        let _ = write!(table, "{:<8}", phase.name);
        for v in row {
            let _ = write!(table, " | {v:>14.3}");
        }
        let _ = writeln!(table);
    }
    let _ = write!(table, "{:<8}", "at end");
    for v in &final_offsets {
        let _ = write!(table, " | {v:>14.4}");
    }
    let _ = writeln!(table);

    std::fs::create_dir_all(&options.out_dir).map_err(|e| {
        format!(
            "{}: cannot create directory: {e}",
            options.out_dir.display()
        )
    })?;
    let plot = options.out_dir.join("helper_springs.svg");
    draw_plot(
        &plot,
        &trace,
        &helper_names[0],
        springs[0].max_offset,
        options.seconds_per_phase,
    )?;
    let summary = options.out_dir.join("summary.md");
    std::fs::write(
        &summary,
        format!("# secmo demo\n\n```\n{table}```\n\n![target vs output](helper_springs.svg)\n"),
    )
    .map_err(|e| format!("{}: {e}", summary.display()))?;

    Ok(DemoReport {
        helper_names,
        max_offsets: springs.iter().map(|s| s.max_offset).collect(),
        peak_offsets: peaks,
        final_offsets,
        trace,
        table,
        plot,
    })
}

/// Two panels: vertical position of target (cyan) and output (amber), and the
/// offset length against its limit. Colours follow the source articles.
fn draw_plot(
    path: &Path,
    trace: &Trace,
    bone: &str,
    max_offset: f32,
    seconds_per_phase: f32,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: plotting failed: {e}", path.display());
    let cyan = RGBColor(0, 170, 200);
    let amber = RGBColor(240, 160, 0);
    let root = SVGBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(420);
    let t_end = trace.time.last().copied().unwrap_or(1.0).max(1e-3);
    let ys = trace.target.iter().chain(&trace.output).map(|p| p.y);
    let (lo, hi) = ys.fold((f32::MAX, f32::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let pad = ((hi - lo) * 0.08).max(0.1);
    let mut chart = ChartBuilder::on(&top)
        .caption(
            format!("{bone}: height, target (animation) vs output (secmo)"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(55)
        .build_cartesian_2d(0f32..t_end, (lo - pad)..(hi + pad))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("height (cm)")
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(
            trace.time.iter().zip(&trace.target).map(|(t, p)| (*t, p.y)),
            cyan.stroke_width(2),
        ))
        .map_err(|e| err(&e))?
        .label("target")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], cyan.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            trace.time.iter().zip(&trace.output).map(|(t, p)| (*t, p.y)),
            amber.stroke_width(2),
        ))
        .map_err(|e| err(&e))?
        .label("output")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], amber.stroke_width(2)));
    for (i, phase) in SEQUENCE.iter().enumerate() {
        let x = i as f32 * seconds_per_phase;
        chart
            .draw_series(std::iter::once(Text::new(
                phase.name.to_string(),
                (x + 0.05 * seconds_per_phase, hi + pad * 0.5),
                ("sans-serif", 15),
            )))
            .map_err(|e| err(&e))?;
        if i > 0 {
            chart
                .draw_series(LineSeries::new(
                    [(x, lo - pad), (x, hi + pad)],
                    BLACK.mix(0.3),
                ))
                .map_err(|e| err(&e))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;

    let mut lower = ChartBuilder::on(&bottom)
        .caption(
            "offset length |output − target| and its limit",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(55)
        .build_cartesian_2d(0f32..t_end, 0f32..(max_offset * 1.15))
        .map_err(|e| err(&e))?;
    lower
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("offset (cm)")
        .draw()
        .map_err(|e| err(&e))?;
    lower
        .draw_series(LineSeries::new(
            trace
                .time
                .iter()
                .zip(trace.target.iter().zip(&trace.output))
                .map(|(t, (a, b))| (*t, (*b - *a).length())),
            amber.stroke_width(2),
        ))
        .map_err(|e| err(&e))?;
    lower
        .draw_series(LineSeries::new(
            [(0.0, max_offset), (t_end, max_offset)],
            RED.mix(0.6),
        ))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
