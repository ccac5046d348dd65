//! The contacts plot: ball height, ball speed and contact labels of both feet over a clip.
//!
//! Method: three stacked panels sharing the time axis, drawn with `plotters` into a PNG (the
//! bitmap backend and an embedded font, so no system font library is needed): (1) ball height
//! above the floor with the height threshold, (2) ball speed in the travelling frame with the
//! speed threshold, (3) the labels as filled bars (one lane per foot) with the smoothed contact
//! signal drawn over them. Contact frames are shaded in the first two panels too. Left foot
//! blue, right foot red.
//!
//! Inputs: the [`FootContacts`] of both feet, frame times, thresholds, a title. Output: the PNG
//! at the given path, written to a temporary name first and renamed, so a failed plot leaves
//! no file behind.
//!
//! Invariants: every value drawn is finite (the labeller guarantees it); axis ranges are
//! padded so flat curves still get a visible axis.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use crate::ToolError;
use crate::motion::FootContacts;

/// Image size, pixels.
pub const SIZE: (u32, u32) = (1200, 900);
const COLORS: [RGBColor; 2] = [RGBColor(31, 98, 196), RGBColor(206, 52, 44)];

fn shade(color: RGBColor) -> RGBAColor {
    color.mix(0.12)
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct PlotInput<'a> {
    /// Title line.
    pub title: &'a str,
    /// Frame times, s.
    pub times: &'a [f32],
    /// `[left, right]`.
    pub feet: &'a [FootContacts; 2],
    /// Speed threshold, m/s.
    pub velocity_threshold: f32,
    /// Height threshold, m.
    pub height_threshold: f32,
}

fn plot_error(e: impl std::fmt::Display) -> ToolError {
    ToolError::Format(format!("plot: {e}"))
}

/// Draws the plot to `path` (a `.png`).
pub fn draw(path: &Path, input: &PlotInput<'_>) -> Result<(), ToolError> {
    register_font("sans-serif", FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT)
        .map_err(|_| plot_error("font"))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = path.with_file_name(format!(".{stem}.partial.png"));
    let result = draw_to(&temporary, input);
    match result {
        Ok(()) => std::fs::rename(&temporary, path).map_err(ToolError::Io),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}

fn contact_spans(times: &[f32], labels: &[bool]) -> Vec<(f32, f32)> {
    let mut spans = Vec::new();
    let mut start = None;
    let half = if times.len() > 1 { 0.5 * (times[1] - times[0]) } else { 0.0 };
    for (i, &c) in labels.iter().enumerate() {
        match (c, start) {
            (true, None) => start = Some(times[i] - half),
            (false, Some(s)) => {
                spans.push((s, times[i] - half));
                start = None;
            }
            _ => {}
        }
    }
    if let (Some(s), Some(&end)) = (start, times.last()) {
        spans.push((s, end + half));
    }
    spans
}

fn draw_to(path: &Path, input: &PlotInput<'_>) -> Result<(), ToolError> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let root = root.titled(input.title, ("sans-serif", 24)).map_err(plot_error)?;
    let panels = root.split_evenly((3, 1));
    let (t0, t1) = match (input.times.first(), input.times.last()) {
        (Some(&a), Some(&b)) if b > a => (a, b),
        (Some(&a), _) => (a, a + 1.0),
        _ => (0.0, 1.0),
    };
    let max_of = |f: &dyn Fn(&FootContacts) -> &Vec<f32>| {
        input.feet.iter().flat_map(|foot| f(foot).iter().copied()).fold(0.0f32, f32::max)
    };
    let height_top = (max_of(&|f| &f.toe_height) * 100.0).max(input.height_threshold * 100.0) * 1.1 + 1.0;
    let speed_top = max_of(&|f| &f.toe_speed).max(input.velocity_threshold) * 1.1 + 0.05;
    type Value<'v> = &'v dyn Fn(&FootContacts, usize) -> f32;
    let series: [(&str, f32, f32, &str, Value<'_>); 2] = [
        ("ball height above the floor (cm)", height_top, input.height_threshold * 100.0, "cm", &|f, i| {
            f.toe_height[i] * 100.0
        }),
        ("ball speed (m/s)", speed_top, input.velocity_threshold, "m/s", &|f, i| f.toe_speed[i]),
    ];
    for (panel, (label, top, threshold, unit, value)) in panels.iter().zip(series) {
        let mut chart = ChartBuilder::on(panel)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(t0..t1, 0f32..top)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .y_desc(label)
            .x_desc("time (s)")
            .label_style(("sans-serif", 16))
            .axis_desc_style(("sans-serif", 18))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_error)?;
        for (k, foot) in input.feet.iter().enumerate() {
            // Shaded contact frames: left in the lower half, right in the upper half.
            let (y0, y1) = (top * k as f32 / 2.0, top * (k + 1) as f32 / 2.0);
            let spans = contact_spans(input.times, &foot.contacts);
            chart
                .draw_series(
                    spans.into_iter().map(|(a, b)| Rectangle::new([(a, y0), (b, y1)], shade(COLORS[k]).filled())),
                )
                .map_err(plot_error)?
                .label(format!("{} in contact", foot.side))
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], shade(COLORS[k]).filled()));
        }
        chart
            .draw_series(LineSeries::new([(t0, threshold), (t1, threshold)], BLACK.mix(0.5).stroke_width(1)))
            .map_err(plot_error)?
            .label(format!("threshold {threshold} {unit}"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.5)));
        for (k, foot) in input.feet.iter().enumerate() {
            let points = input.times.iter().enumerate().map(|(i, &t)| (t, value(foot, i)));
            chart
                .draw_series(LineSeries::new(points, COLORS[k].stroke_width(2)))
                .map_err(plot_error)?
                .label(format!("{} ({})", foot.side, foot.key))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], COLORS[k].stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(plot_error)?;
    }
    let mut chart = ChartBuilder::on(&panels[2])
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(t0..t1, 0.3f32..2.6f32)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .y_desc("contact (bars: labels, line: smoothed)")
        .x_desc("time (s)")
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .y_labels(10)
        .y_label_formatter(&|y| match ((y - y.round()).abs() < 0.01, y.round() as i32) {
            (true, 1) => "right".into(),
            (true, 2) => "left".into(),
            _ => String::new(),
        })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(plot_error)?;
    for (k, foot) in input.feet.iter().enumerate() {
        // Left in the upper lane (around 2), right in the lower one (around 1).
        let base = if k == 0 { 1.55 } else { 0.55 };
        for (a, b) in contact_spans(input.times, &foot.contacts) {
            chart
                .draw_series([Rectangle::new([(a, base), (b, base + 0.9)], COLORS[k].mix(0.35).filled())])
                .map_err(plot_error)?;
        }
        let points = input.times.iter().zip(&foot.signal).map(|(&t, &s)| (t, base + 0.9 * s));
        chart.draw_series(LineSeries::new(points, COLORS[k].stroke_width(2))).map_err(plot_error)?;
    }
    root.present().map_err(plot_error)?;
    Ok(())
}
