// SPDX-License-Identifier: GPL-2.0-only
//! `mglru sweep --plot DIR`: pictures of a sweep, each as PNG and SVG
//! (plotters).
//!
//! - `miss_ratio.{png,svg}` and `refaults.{png,svg}`: the miss ratio and the
//!   refaults per 1,000 accesses against memory, one line per combination
//!   of the other axes (e.g. one per policy) — when memory varies;
//! - `heatmap_miss_ratio.{png,svg}`: the miss ratio over two axes — when
//!   exactly two axes vary.
//!
//! Text needs a TrueType font: the first of a few usual system paths (or
//! `MGLRU_FONT`) is loaded once.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mglru_sweep::{Config, Failure};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::{Map, Value};

const SIZE: (u32, u32) = (1200, 640);

/// Lines' colours, told apart in print and by most colour-blind readers.
/// Sixteen colours that stay apart from each other (the Okabe-Ito eight,
/// then eight darker or paler ones); series past eight also change their
/// marker, so a grey print still tells them apart.
const COLOURS: [RGBColor; 16] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(200, 190, 40),
    RGBColor(120, 28, 129),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(31, 60, 120),
    RGBColor(255, 127, 14),
    RGBColor(44, 100, 44),
];

/// Width of the strip right of a chart that holds its legend or colour bar.
const SIDE: u32 = 250;

const FONT_PATHS: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// The largest font file read (DejaVuSans.ttf is 0.7 MB; a CJK font
/// about 20 MB): a path such as /dev/zero is not read for ever.
const MAX_FONT_BYTES: u64 = 64 << 20;

/// A regular file of at most MAX_FONT_BYTES.
fn read_font(p: &str) -> Result<Vec<u8>, String> {
    let m = std::fs::metadata(p).map_err(|e| e.to_string())?;
    if !m.is_file() || m.len() > MAX_FONT_BYTES {
        return Err(format!("{p}: not a font file (a regular file of at most {} MiB)", MAX_FONT_BYTES >> 20));
    }
    std::fs::read(p).map_err(|e| e.to_string())
}

fn font() -> Result<(), Failure> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let mut tried: Vec<String> = Vec::new();
            // A font the user named is used or refused, never passed over.
            if let Some(p) = std::env::var_os("MGLRU_FONT") {
                let p = p.to_string_lossy().into_owned();
                let bytes = read_font(&p).map_err(|e| format!("--plot: MGLRU_FONT={p}: {e}: name a TrueType font file (.ttf), or unset MGLRU_FONT"))?;
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                return plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                    .map_err(|_| format!("--plot: MGLRU_FONT={p} is not a TrueType font: name a .ttf file, or unset MGLRU_FONT"));
            }
            for p in FONT_PATHS {
                tried.push(p.to_string());
                if let Ok(bytes) = read_font(p) {
                    // plotters keeps the font for the life of the program.
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                        return Ok(());
                    }
                }
            }
            Err(format!(
                "--plot: no TrueType font found for the plots' text (tried {}); install one (Debian: fonts-dejavu-core) or name it in MGLRU_FONT",
                tried.join(", ")
            ))
        })
        .clone()
        .map_err(Failure::io)
}

/// Make sure files can be written to DIR, before the sweep runs.
/// A folder that does not exist yet is made only when the plots are
/// drawn (an interrupted sweep with no finished row leaves none); its
/// nearest existing ancestor is checked now.
pub fn prepare_dir(d: &Path) -> Result<(), Failure> {
    let mut probe_in = d;
    while !probe_in.exists() {
        probe_in = match probe_in.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    if !probe_in.is_dir() {
        return Err(Failure::io(format!("--plot {}: cannot create the folder: {} is not a folder", d.display(), probe_in.display())));
    }
    let probe = probe_in.join(format!(".mglru-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| Failure::io(format!("--plot {}: cannot write there: {e}", d.display())))?;
    let _ = std::fs::remove_file(probe);
    font()
}

/// The axes with more than one value, in grid order.
fn varying(configs: &[Config]) -> Vec<String> {
    let Some(first) = configs.first() else { return Vec::new() };
    first
        .labels
        .iter()
        .enumerate()
        .filter(|(i, _)| configs.iter().any(|c| c.labels[*i].1 != first.labels[*i].1))
        .map(|(_, (a, _))| a.clone())
        .collect()
}

/// Refuse a `--plot` that would draw nothing, before the sweep runs.
pub fn check(configs: &[Config]) -> Result<(), Failure> {
    let v = varying(configs);
    if v.iter().any(|a| a == "memory") || v.len() == 2 {
        Ok(())
    } else {
        Err(Failure::input(format!(
            "--plot draws curves over memory (give --memory at least two values) or a heatmap of two varying axes; this grid varies {}",
            if v.is_empty() { "nothing".to_string() } else { v.join(", ") }
        )))
    }
}

fn num(r: &Map<String, Value>, k: &str) -> f64 {
    r.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn err<E: std::fmt::Debug>(what: &Path) -> impl Fn(E) -> Failure + '_ {
    move |e| Failure::io(format!("--plot: drawing {}: {e:?}", what.display()))
}

/// Named curves of (x, y, half width of y's 95 % interval; 0 = no bar).
type Curves = Vec<(String, Vec<(f64, f64, f64)>)>;

fn draw_curves<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, path: &Path, title: &str, subtitle: &str, ylabel: &str, curves: &Curves) -> Result<(), Failure>
where
    DB::ErrorType: 'static,
{
    let e = err(path);
    root.fill(&WHITE).map_err(&e)?;
    let (w, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(w.saturating_sub(SIDE));
    let xs = curves.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let bars = curves.iter().any(|(_, p)| p.iter().any(|q| q.2 > 0.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let ymax = curves.iter().flat_map(|(_, p)| p.iter().map(|q| q.1 + q.2)).fold(0.0f64, f64::max);
    let ymax = if ymax > 0.0 { ymax * 1.08 } else { 1.0 };
    let pad = ((x1 - x0) * 0.03).max(1.0);
    let plot = plot.titled(title, ("sans-serif", 24)).map_err(&e)?;
    plot.draw(&Text::new(subtitle.to_string(), (16, 0), ("sans-serif", 13).into_font().color(&RGBColor(80, 80, 80)))).map_err(&e)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .margin_top(24)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..ymax)
        .map_err(&e)?;
    chart
        .configure_mesh()
        .x_desc("memory (MiB)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_desc(ylabel)
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(&e)?;
    for (i, (_, pts)) in curves.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), c.stroke_width(2))).map_err(&e)?;
        for &(x, y, h) in pts {
            marker(&mut chart, i, (x, y), c).map_err(&e)?;
            if bars {
                // The replicates' 95 % interval (never below 0).
                chart
                    .draw_series(std::iter::once(ErrorBar::new_vertical(x, (y - h).max(0.0), y, y + h, c.stroke_width(1), 10)))
                    .map_err(&e)?;
            }
        }
    }
    // The legend, in its own strip: never over the data.
    for (i, (name, _)) in curves.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let y = 60 + 22 * i as i32;
        side.draw(&PathElement::new(vec![(8, y), (36, y)], c.stroke_width(3))).map_err(&e)?;
        side.draw(&Text::new(name.clone(), (44, y - 8), ("sans-serif", 14))).map_err(&e)?;
    }
    root.present().map_err(&e)
}

/// Series `i`'s marker at `p`: a circle for the first eight, a triangle
/// for the next eight (their colours then repeat at a different shape).
fn marker<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    i: usize,
    p: (f64, f64),
    c: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if (i / 8) % 2 == 0 {
        chart.draw_series(std::iter::once(Circle::new(p, 4, c.filled())))?;
    } else {
        chart.draw_series(std::iter::once(TriangleMarker::new(p, 6, c.filled())))?;
    }
    Ok(())
}

/// Colour of a share t in 0..=1: pale yellow (low) to dark red (high).
fn heat(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(255.0, 165.0), lerp(247.0, 0.0), lerp(188.0, 38.0))
}

struct Heatmap {
    x_axis: String,
    y_axis: String,
    x: Vec<String>,
    y: Vec<String>,
    /// (x index, y index, value).
    cells: Vec<(usize, usize, f64)>,
}

fn draw_heatmap<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, path: &Path, subtitle: &str, h: &Heatmap) -> Result<(), Failure>
where
    DB::ErrorType: 'static,
{
    let e = err(path);
    root.fill(&WHITE).map_err(&e)?;
    let (lo, hi) = h.cells.iter().fold((f64::MAX, f64::MIN), |(a, b), c| (a.min(c.2), b.max(c.2)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let (nx, ny) = (h.x.len() as f64, h.y.len() as f64);
    let (w, ht) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(w.saturating_sub(SIDE));
    let plot = plot.titled(&format!("miss ratio: {} × {}", h.y_axis, h.x_axis), ("sans-serif", 24)).map_err(&e)?;
    plot.draw(&Text::new(subtitle.to_string(), (16, 0), ("sans-serif", 13).into_font().color(&RGBColor(80, 80, 80)))).map_err(&e)?;
    // The colour bar: the scale from the lowest value (bottom) to the highest.
    let (top, bottom) = (60i32, ht as i32 - 80);
    let steps = 64;
    for k in 0..steps {
        let t = k as f64 / (steps - 1) as f64;
        let y1 = bottom - ((bottom - top) as f64 * (k + 1) as f64 / steps as f64) as i32;
        let y0 = bottom - ((bottom - top) as f64 * k as f64 / steps as f64) as i32;
        side.draw(&Rectangle::new([(20, y1), (50, y0)], heat(t).filled())).map_err(&e)?;
    }
    side.draw(&Rectangle::new([(20, top), (50, bottom)], BLACK.stroke_width(1))).map_err(&e)?;
    for (t, v) in [(0.0, lo), (0.5, lo + (hi - lo) / 2.0), (1.0, hi)] {
        let y = bottom - ((bottom - top) as f64 * t) as i32;
        side.draw(&Text::new(format!("{v:.3}"), (58, y - 7), ("sans-serif", 14))).map_err(&e)?;
    }
    side.draw(&Text::new("miss ratio".to_string(), (20, top - 28), ("sans-serif", 15))).map_err(&e)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .margin_top(24)
        .x_label_area_size(48)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..nx, 0.0..ny)
        .map_err(&e)?;
    let xl = h.x.clone();
    let yl = h.y.clone();
    let at = |labels: &[String], v: f64| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(h.x_axis.as_str())
        .y_desc(h.y_axis.as_str())
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 14))
        .x_labels(h.x.len() * 2 + 1)
        .y_labels(h.y.len() * 2 + 1)
        .x_label_formatter(&|v| at(&xl, *v))
        .y_label_formatter(&|v| at(&yl, *v))
        .draw()
        .map_err(&e)?;
    chart
        .draw_series(h.cells.iter().map(|&(i, j, v)| {
            Rectangle::new([(i as f64, j as f64), (i as f64 + 1.0, j as f64 + 1.0)], heat((v - lo) / span).filled())
        }))
        .map_err(&e)?;
    chart
        .draw_series(h.cells.iter().map(|&(i, j, v)| {
            let colour = if (v - lo) / span > 0.55 { WHITE } else { BLACK };
            Text::new(format!("{v:.3}"), (i as f64 + 0.5, j as f64 + 0.5), ("sans-serif", 15).into_font().color(&colour).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Center,
            )))
        }))
        .map_err(&e)?;
    root.present().map_err(&e)
}

/// Both formats of one picture.
fn both(dir: &Path, stem: &str, written: &mut Vec<PathBuf>, draw: impl Fn(bool, &Path) -> Result<(), Failure>) -> Result<(), Failure> {
    for (ext, png) in [("svg", false), ("png", true)] {
        // Drawn under a temporary name, then renamed: never a half-drawn file.
        let p = dir.join(format!("{stem}.{ext}"));
        let tmp = crate::output::temp_beside(&p);
        if let Err(e) = draw(png, &tmp) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        std::fs::rename(&tmp, &p).map_err(|e| Failure::io(format!("--plot {}: {e}", p.display())))?;
        written.push(p);
    }
    Ok(())
}

/// Draw what the grid allows; the files written, in order.
/// `subtitle` (the input and the settings every row shares) goes under each title.
pub fn plots(dir: &Path, configs: &[Config], rows: &[Map<String, Value>], subtitle: &str) -> Result<Vec<PathBuf>, Failure> {
    font()?;
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(format!("--plot {}: cannot create the folder: {e}", dir.display())))?;
    let mut written = Vec::new();
    let vary = varying(configs);
    if vary.iter().any(|a| a == "memory") {
        for (stem, key, title, ylabel) in [
            ("miss_ratio", "miss_ratio", "Miss ratio against memory", "misses (cold misses left out) per page access"),
            ("refaults", "refaults_per_1k_accesses", "Refaults against memory", "refaults per 1,000 page accesses"),
        ] {
            let mut curves: Curves = Vec::new();
            for (c, r) in configs.iter().zip(rows) {
                let name: Vec<String> = c.labels.iter().filter(|(a, _)| a != "memory" && vary.contains(a)).map(|(a, v)| format!("{a}={v}")).collect();
                let name = if name.is_empty() { "all".to_string() } else { name.join(" ") };
                let x = c.opts.memory.unwrap_or(0) as f64 / (1u64 << 20) as f64;
                let p = (x, num(r, key), num(r, &format!("{key}{}", mglru_sweep::stats::CI_SUFFIX)));
                match curves.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, ps)) => ps.push(p),
                    None => curves.push((name, vec![p])),
                }
            }
            both(dir, stem, &mut written, |png, p| {
                if png {
                    draw_curves(BitMapBackend::new(p, SIZE).into_drawing_area(), p, title, subtitle, ylabel, &curves)
                } else {
                    draw_curves(SVGBackend::new(p, SIZE).into_drawing_area(), p, title, subtitle, ylabel, &curves)
                }
            })?;
        }
    }
    if vary.len() == 2 {
        let idx: Vec<usize> = vary.iter().map(|a| configs[0].labels.iter().position(|(b, _)| b == a).expect("a varying axis is an axis")).collect();
        let mut h = Heatmap { x_axis: vary[1].clone(), y_axis: vary[0].clone(), x: Vec::new(), y: Vec::new(), cells: Vec::new() };
        for (c, r) in configs.iter().zip(rows) {
            let (yv, xv) = (&c.labels[idx[0]].1, &c.labels[idx[1]].1);
            let xi = h.x.iter().position(|v| v == xv).unwrap_or_else(|| {
                h.x.push(xv.clone());
                h.x.len() - 1
            });
            let yi = h.y.iter().position(|v| v == yv).unwrap_or_else(|| {
                h.y.push(yv.clone());
                h.y.len() - 1
            });
            h.cells.push((xi, yi, num(r, "miss_ratio")));
        }
        both(dir, "heatmap_miss_ratio", &mut written, |png, p| {
            if png {
                draw_heatmap(BitMapBackend::new(p, SIZE).into_drawing_area(), p, subtitle, &h)
            } else {
                draw_heatmap(SVGBackend::new(p, SIZE).into_drawing_area(), p, subtitle, &h)
            }
        })?;
    }
    Ok(written)
}
