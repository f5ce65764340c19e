//! The bench's picture: throughput against batch size, log-log, one line per
//! backend, drawn with plotters into memory and encoded as PNG.
//!
//! Text needs a font; plotters' `ab_glyph` renderer takes one from memory, so
//! DejaVu Sans Mono (`assets/fonts`, with its licence) is built into the
//! binary and the plot looks the same on a machine without system fonts,
//! such as a CI container.

use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::report::{BenchReport, BenchRow, PlotKind};
use crate::error::CliError as Error;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
const FONT_FAMILY: &str = "sans-serif";

fn register_builtin_font() -> Result<(), Error> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    if *REGISTERED.get_or_init(|| register_font(FONT_FAMILY, FontStyle::Normal, FONT).is_ok()) {
        Ok(())
    } else {
        Err(Error::Render(
            "the built-in font could not be loaded".to_string(),
        ))
    }
}

fn plot_error(err: impl std::fmt::Display) -> Error {
    Error::Render(format!("cannot draw the bench plot: {err}"))
}

/// Powers of ten that bracket `low..high` (both > 0).
fn decades(low: f64, high: f64) -> (f64, f64) {
    (
        10f64.powf(low.log10().floor()),
        10f64.powf(high.log10().ceil().max(low.log10().floor() + 1.0)),
    )
}

fn colour(index: usize) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    COLOURS[index % COLOURS.len()]
}

fn throughput_plot(report: &BenchReport, width: u32, height: u32) -> Result<Vec<u8>, Error> {
    if report.rows.is_empty() {
        return Err(Error::Render("the bench has no rows to plot".to_string()));
    }
    if width < 200 || height < 150 {
        return Err(Error::Render(format!(
            "a plot of {width}x{height} is too small (at least 200x150)"
        )));
    }
    register_builtin_font()?;
    let mut backends: Vec<&str> = Vec::new();
    for row in &report.rows {
        if !backends.contains(&row.backend) {
            backends.push(row.backend);
        }
    }
    // Each row as a point: (batch size, pairs per second) in 2D; (vertices,
    // nanoseconds per pair) in 3D, at each backend's largest batch.
    let by_vertices = report.plot == PlotKind::CostByVertices;
    let point = |row: &BenchRow| {
        if by_vertices {
            (
                row.vertices.unwrap_or(1.0).max(1.0),
                row.ns_per_pair.max(1e-3),
            )
        } else {
            (row.pairs.max(1) as f64, row.pairs_per_second.max(1.0))
        }
    };
    let largest = |backend: &str, workload: &str| {
        report
            .rows
            .iter()
            .filter(|row| row.backend == backend && row.workload == workload)
            .map(|row| row.pairs)
            .max()
            .unwrap_or(0)
    };
    let plotted: Vec<&BenchRow> = report
        .rows
        .iter()
        .filter(|row| !by_vertices || row.pairs == largest(row.backend, &row.workload))
        .collect();
    let xs = plotted.iter().map(|row| point(row).0);
    let ys = plotted.iter().map(|row| point(row).1);
    let (x_low, x_high) = decades(
        xs.clone().fold(f64::INFINITY, f64::min),
        xs.fold(0.0, f64::max),
    );
    let (y_low, y_high) = decades(
        ys.clone().fold(f64::INFINITY, f64::min),
        ys.fold(0.0, f64::max),
    );
    let (x_desc, y_desc, caption) = if by_vertices {
        (
            "hull vertices (boxes: 8)",
            "ns per pair",
            "gpusat 3D narrowphase: cost per pair by hull size".to_string(),
        )
    } else {
        (
            "pairs per batch",
            "pairs per second",
            format!("gpusat narrowphase: {}", report.workload),
        )
    };

    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, (FONT_FAMILY, 15))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((x_low..x_high).log_scale(), (y_low..y_high).log_scale())
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|value| format!("{value:.0e}"))
            .y_label_formatter(&|value| format!("{value:.0e}"))
            .label_style((FONT_FAMILY, 13))
            .draw()
            .map_err(plot_error)?;
        for (index, backend) in backends.iter().enumerate() {
            let colour = colour(index);
            let mut points: Vec<(f64, f64)> = plotted
                .iter()
                .filter(|row| row.backend == *backend)
                .map(|row| point(row))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(*backend)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|point| Circle::new(point, 3, colour.filled())),
                )
                .map_err(plot_error)?;
        }
        chart
            .configure_series_labels()
            .position(if by_vertices {
                SeriesLabelPosition::UpperLeft
            } else {
                SeriesLabelPosition::LowerRight
            })
            .label_font((FONT_FAMILY, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }

    let mut pixmap = tiny_skia::Pixmap::new(width, height)
        .ok_or_else(|| Error::Render(format!("cannot make a {width}x{height} picture")))?;
    for (pixel, source) in pixmap
        .data_mut()
        .chunks_exact_mut(4)
        .zip(rgb.chunks_exact(3))
    {
        pixel.copy_from_slice(&[source[0], source[1], source[2], 255]);
    }
    crate::render::encode_png(&pixmap)
}

impl BenchReport {
    /// A PNG of throughput against batch size, log-log, one line per
    /// backend.
    pub fn plot_png(&self, width: u32, height: u32) -> Result<Vec<u8>, Error> {
        throughput_plot(self, width, height)
    }
}
