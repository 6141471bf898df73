//! Every picture the tool writes goes through here, so that each one reads
//! the same way: a title, axis labels with units, the legend in a column to
//! the right of the data (never over it), thresholds drawn as lines and
//! named in the legend, and tick labels kept inside the picture.

use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

pub use plotters::style::RGBColor;

/// The target (what the animation alone does), as in the source articles.
pub const CYAN: RGBColor = RGBColor(0, 170, 200);
/// secmo's output.
pub const AMBER: RGBColor = RGBColor(240, 160, 0);
pub const GREY: RGBColor = RGBColor(140, 140, 140);
pub const BLUE: RGBColor = RGBColor(40, 90, 220);
pub const RED: RGBColor = RGBColor(210, 40, 50);
pub const PURPLE: RGBColor = RGBColor(150, 60, 190);

/// One line of data.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(label: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            color,
            points,
        }
    }
}

/// A threshold: a dashed line across the panel, named in the legend.
#[derive(Clone, Debug)]
pub struct Mark {
    pub label: String,
    pub color: RGBColor,
    pub at: f64,
    /// A vertical line at x = `at`; otherwise horizontal at y = `at`.
    pub vertical: bool,
}

impl Mark {
    pub fn horizontal(label: impl Into<String>, color: RGBColor, y: f64) -> Self {
        Self {
            label: label.into(),
            color,
            at: y,
            vertical: false,
        }
    }

    pub fn vertical(label: impl Into<String>, color: RGBColor, x: f64) -> Self {
        Self {
            label: label.into(),
            color,
            at: x,
            vertical: true,
        }
    }
}

/// One chart.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    pub title: String,
    /// Axis labels, each with its unit, e.g. "time (s)".
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
    /// Section labels written at the top of the panel at their x (e.g. the
    /// demo's phases), with a faint vertical line.
    pub sections: Vec<(f64, String)>,
    /// A logarithmic y axis; values ≤ 0 are drawn at its floor.
    pub log_y: bool,
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
}

const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 300;
const LEGEND_WIDTH: u32 = 290;

fn failed(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("{}: plotting failed: {e}", path.display())
}

/// The length units (`m`, `cm`, `mm`, as words) a picture's text names:
/// its caption, panel titles, axis labels, legend and section labels.
#[must_use]
pub fn length_units(caption: &str, panels: &[Panel]) -> Vec<String> {
    let mut texts = vec![caption];
    for p in panels {
        texts.extend([p.title.as_str(), p.x_label.as_str(), p.y_label.as_str()]);
        texts.extend(p.series.iter().map(|s| s.label.as_str()));
        texts.extend(p.marks.iter().map(|m| m.label.as_str()));
        texts.extend(p.sections.iter().map(|s| s.1.as_str()));
    }
    let mut units: Vec<String> = texts
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| matches!(*w, "m" | "cm" | "mm"))
        .map(str::to_string)
        .collect();
    units.sort();
    units.dedup();
    units
}

/// Writes `panels` stacked under `caption` as an SVG at `path`. A picture
/// speaks one length unit (its rig's): one that names two is refused.
pub fn draw(path: &Path, caption: &str, panels: &[Panel]) -> anyhow::Result<()> {
    let err = failed(path);
    let units = length_units(caption, panels);
    if units.len() > 1 {
        return Err(err(&format!(
            "the picture names {} (one unit per picture: the rig's)",
            units.join(" and ")
        )));
    }
    let height = 50 + PANEL_HEIGHT * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(caption, ("sans-serif", 22))
        .map_err(|e| err(&e))?;
    for (area, panel) in root
        .split_evenly((panels.len().max(1), 1))
        .iter()
        .zip(panels)
    {
        let (chart_area, legend_area) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
        let (x0, x1) = panel
            .x_range
            .unwrap_or_else(|| extent(panel, |p| p.0, true));
        let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
        if panel.log_y {
            let (lo, hi) = panel.y_range.unwrap_or_else(|| log_extent(panel));
            draw_panel(&chart_area, panel, x0..x1, (lo..hi).log_scale(), lo)
                .map_err(|e| err(&e))?;
        } else {
            let (lo, hi) = panel.y_range.unwrap_or_else(|| {
                let (lo, hi) = extent(panel, |p| p.1, false);
                let pad = ((hi - lo) * 0.08)
                    .max(hi.abs().max(lo.abs()) * 1e-3)
                    .max(1e-9);
                (lo - pad, hi + pad)
            });
            draw_panel(&chart_area, panel, x0..x1, lo..hi, lo).map_err(|e| err(&e))?;
        }
        draw_legend(&legend_area, panel).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// The data's range on one axis, marks included.
fn extent(panel: &Panel, get: impl Fn(&(f64, f64)) -> f64, x: bool) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(&get))
        .chain(panel.marks.iter().filter(|m| m.vertical == x).map(|m| m.at))
        .filter(|v| v.is_finite())
    {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        (0.0, 1.0)
    } else {
        (lo, hi)
    }
}

/// A log axis from a decade below the smallest positive value to a bit
/// above the largest.
fn log_extent(panel: &Panel) -> (f64, f64) {
    let positive = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(panel.marks.iter().filter(|m| !m.vertical).map(|m| m.at))
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        return (1e-3, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

fn draw_panel<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    x: std::ops::Range<f64>,
    y: Y,
    floor: f64,
) -> Result<(), String>
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (x0, x1) = (x.start, x.end);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 17))
        // The right margin keeps the last x tick label inside the picture.
        .margin_left(10)
        .margin_top(8)
        .margin_bottom(8)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(75)
        .build_cartesian_2d(x, y)
        .map_err(|x| e(&x))?;
    let log_label = |v: &f64| {
        // Decades as 1e-3 … 1, 10, 100; anything else with 2 digits.
        let e = v.log10().round();
        if (v.log10() - e).abs() < 1e-6 && (-2.0..=2.0).contains(&e) {
            format!("{}", 10f64.powi(e as i32))
        } else {
            format!("{v:.0e}")
        }
    };
    let linear_label = |v: &f64| {
        let a = v.abs();
        if a != 0.0 && !(1e-3..1e5).contains(&a) {
            format!("{v:.1e}")
        } else {
            let s = format!("{v:.4}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s == "-0" {
                "0".to_string()
            } else {
                s.to_string()
            }
        }
    };
    let y_format: &dyn Fn(&f64) -> String = if panel.log_y {
        &log_label
    } else {
        &linear_label
    };
    chart
        .configure_mesh()
        .x_label_formatter(&linear_label)
        .y_label_formatter(y_format)
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|x| e(&x))?;
    let (y_lo, y_hi) = {
        let r = chart.y_range();
        (r.start, r.end)
    };
    for (at, label) in &panel.sections {
        chart
            .draw_series(LineSeries::new([(*at, y_lo), (*at, y_hi)], BLACK.mix(0.25)))
            .map_err(|x| e(&x))?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (*at + 0.01 * (x1 - x0), y_hi),
                ("sans-serif", 14).into_font().color(&BLACK.mix(0.8)),
            )))
            .map_err(|x| e(&x))?;
    }
    for m in &panel.marks {
        let points = if m.vertical {
            [(m.at, y_lo), (m.at, y_hi)]
        } else {
            [(x0, m.at), (x1, m.at)]
        };
        chart
            .draw_series(DashedLineSeries::new(points, 8, 5, m.color.stroke_width(2)))
            .map_err(|x| e(&x))?;
    }
    for s in &panel.series {
        let pts = s
            .points
            .iter()
            .map(|&(x, y)| (x, if panel.log_y && y <= floor { floor } else { y }));
        chart
            .draw_series(LineSeries::new(pts, s.color.stroke_width(2)))
            .map_err(|x| e(&x))?;
    }
    Ok(())
}

/// The legend, in its own column: a line sample and the label for every
/// series and every threshold.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let mut y = 45;
    let font = ("sans-serif", 14).into_font();
    for s in &panel.series {
        area.draw(&PathElement::new(
            [(8, y), (38, y)],
            s.color.stroke_width(3),
        ))
        .map_err(|x| e(&x))?;
        area.draw(&Text::new(s.label.clone(), (46, y - 7), font.clone()))
            .map_err(|x| e(&x))?;
        y += 22;
    }
    for m in &panel.marks {
        for (a, b) in [(8, 16), (21, 29), (34, 38)] {
            area.draw(&PathElement::new([(a, y), (b, y)], m.color.stroke_width(2)))
                .map_err(|x| e(&x))?;
        }
        area.draw(&Text::new(m.label.clone(), (46, y - 7), font.clone()))
            .map_err(|x| e(&x))?;
        y += 22;
    }
    Ok(())
}

/// The name of a rig unit for axis labels: "m", "cm", "mm", or "units" with
/// the scale spelled out.
#[must_use]
pub fn unit_name(units_per_meter: f32) -> String {
    match units_per_meter {
        u if (u - 1.0).abs() < 1e-6 => "m".into(),
        u if (u - 100.0).abs() < 1e-4 => "cm".into(),
        u if (u - 1000.0).abs() < 1e-3 => "mm".into(),
        u => format!("units, {u} per m"),
    }
}
