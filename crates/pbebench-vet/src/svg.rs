//! A small SVG plotting module: line charts (optionally stepped), grouped bar charts and
//! annotated heatmaps, with axis labels, ticks, a legend and a title.
//!
//! Written by hand rather than with a plotting crate so that charts need no fonts at
//! build or run time (text is left to the viewer, with widths estimated) and the output is
//! byte-for-byte deterministic. Every chart is a standalone `<svg>` element without ids,
//! so several can be inlined in one HTML page.

use std::fmt::Write as _;

/// Colours of the series, in order (Okabe–Ito, readable by colour-blind viewers).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
];

/// The colour of series `k` (cycles through [`PALETTE`]).
pub fn colour(k: usize) -> &'static str {
    PALETTE[k % PALETTE.len()]
}

/// A point marker for series `k`: circle, square, triangle, diamond, inverted triangle,
/// repeating; the shape tells coincident series apart where colours overlap.
fn marker(k: usize, x: f64, y: f64, r: f64, colour: &str) -> String {
    match k % 5 {
        0 => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{colour}"/>"#),
        1 => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>"#,
            x - r * 0.9,
            y - r * 0.9,
            r * 1.8,
            r * 1.8
        ),
        2 => format!(
            r#"<path d="M{x:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z" fill="{colour}"/>"#,
            y - r * 1.2,
            x + r * 1.1,
            y + r * 0.8,
            x - r * 1.1,
            y + r * 0.8
        ),
        3 => format!(
            r#"<path d="M{x:.1},{:.1} L{:.1},{y:.1} L{x:.1},{:.1} L{:.1},{y:.1} Z" fill="{colour}"/>"#,
            y - r * 1.3,
            x + r * 1.1,
            y + r * 1.3,
            x - r * 1.1
        ),
        _ => format!(
            r#"<path d="M{x:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z" fill="{colour}"/>"#,
            y + r * 1.2,
            x + r * 1.1,
            y - r * 0.8,
            x - r * 1.1,
            y - r * 0.8
        ),
    }
}

/// A short label for a plotted value: three significant figures at most.
pub fn short_number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Escapes text for SVG/HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Rough width in pixels of `text` at `size` px in a sans-serif font, for layout only.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.58
}

/// "Nice" tick positions covering `[lo, hi]`: steps of 1, 2 or 5 × 10^k, about `target`
/// of them. Returns the ticks and the step.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, f64) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    };
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    (ticks, step)
}

/// A tick label with as many decimals as the step needs.
pub fn tick_label(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil().max(0.0) as usize
    };
    let v = if value.abs() < step * 1e-9 {
        0.0
    } else {
        value
    };
    format!("{v:.decimals$}")
}

/// Shared frame: canvas size, plot area and the text around it.
#[derive(Debug, Clone)]
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    fn plot_width(&self) -> f64 {
        self.width - self.left - self.right
    }
    fn plot_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    fn open(&self, out: &mut String, title: &str) {
        let _ = write!(
            out,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" role="img"><title>{t}</title><rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##,
            w = self.width,
            h = self.height,
            t = escape(title),
        );
        let _ = write!(
            out,
            r#"<text x="{x}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{t}</text>"#,
            x = self.left + self.plot_width() / 2.0,
            t = escape(title),
        );
    }

    fn axis_labels(&self, out: &mut String, x_label: &str, y_label: &str) {
        let cx = self.left + self.plot_width() / 2.0;
        let _ = write!(
            out,
            r#"<text x="{cx}" y="{y}" text-anchor="middle" font-size="13">{t}</text>"#,
            y = self.height - 12.0,
            t = escape(x_label),
        );
        let cy = self.top + self.plot_height() / 2.0;
        let _ = write!(
            out,
            r#"<text x="16" y="{cy}" text-anchor="middle" font-size="13" transform="rotate(-90 16 {cy})">{t}</text>"#,
            t = escape(y_label),
        );
    }

    /// A legend to the right of the plot area: a swatch (line or box) and the name, then
    /// `dashed`'s entry with a dashed grey line.
    fn legend(&self, out: &mut String, names: &[String], boxes: bool, dashed: Option<&str>) {
        if names.is_empty() {
            return;
        }
        let rows = names.len() + usize::from(dashed.is_some());
        let x = self.width - self.right + 16.0;
        let mut y = self.top + 8.0;
        let _ = write!(
            out,
            r##"<rect x="{bx}" y="{by}" width="{bw}" height="{bh}" fill="#ffffff" stroke="#bbbbbb"/>"##,
            bx = x - 8.0,
            by = y - 4.0,
            bw = self.right - 16.0,
            bh = rows as f64 * 20.0 + 8.0,
        );
        for (k, name) in names.iter().enumerate() {
            let c = colour(k);
            if boxes {
                let _ = write!(
                    out,
                    r#"<rect x="{x}" y="{y0}" width="14" height="12" fill="{c}"/>"#,
                    y0 = y + 2.0
                );
            } else {
                let _ = write!(
                    out,
                    r#"<line x1="{x}" y1="{ym}" x2="{x2}" y2="{ym}" stroke="{c}" stroke-width="2.5"/>{m}"#,
                    ym = y + 8.0,
                    x2 = x + 18.0,
                    m = marker(k, x + 9.0, y + 8.0, 3.5, c)
                );
            }
            let shown = shorten(name, ((self.right - 48.0) / (12.0 * 0.58)) as usize);
            let _ = write!(
                out,
                r#"<text x="{tx}" y="{ty}">{t}</text>"#,
                tx = x + 24.0,
                ty = y + 12.0,
                t = escape(&shown)
            );
            y += 20.0;
        }
        if let Some(name) = dashed {
            let shown = shorten(name, ((self.right - 48.0) / (12.0 * 0.58)) as usize);
            let _ = write!(
                out,
                r##"<line x1="{x}" y1="{ym}" x2="{x2}" y2="{ym}" stroke="#555555" stroke-width="1.5" stroke-dasharray="5 3"/><text x="{tx}" y="{ty}">{t}</text>"##,
                ym = y + 8.0,
                x2 = x + 18.0,
                tx = x + 24.0,
                ty = y + 12.0,
                t = escape(&shown)
            );
        }
    }
}

/// `text` cut to `max` characters with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max.max(2) {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(max.max(2) - 1).collect();
        s.push('…');
        s
    }
}

/// Width of the legend column for these names (0 without names).
fn legend_width(names: &[String]) -> f64 {
    if names.is_empty() {
        return 24.0;
    }
    let longest = names
        .iter()
        .map(|n| text_width(&shorten(n, 28), 12.0))
        .fold(0.0, f64::max);
    (longest + 56.0).clamp(110.0, 230.0)
}

/// The horizontal axis of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// A continuous axis over `[min, max]`.
    Linear {
        /// Left end.
        min: f64,
        /// Right end.
        max: f64,
    },
    /// Evenly spaced labelled positions; point `x` values are indices into the labels.
    Categories(Vec<String>),
}

/// One named series of `(x, y)` points; `None` leaves a gap.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, Option<f64>)>,
    /// The 95% interval `(lo, hi)` of each point, aligned with `points` (empty, or `None`
    /// at a point, where there is none): drawn as an error bar with caps on a line chart,
    /// and as a shaded band that steps with the curve on a step chart.
    pub bars: Vec<Option<(f64, f64)>>,
}

impl Series {
    /// A series without error bars.
    pub fn new(name: impl Into<String>, points: Vec<(f64, Option<f64>)>) -> Series {
        Series {
            name: name.into(),
            points,
            bars: Vec::new(),
        }
    }

    /// The defined points with their intervals, split into maximal runs at gaps.
    fn runs(&self) -> Vec<Vec<Defined>> {
        let mut out = Vec::new();
        let mut cur = Vec::new();
        for (k, (x, y)) in self.points.iter().enumerate() {
            match y {
                Some(y) if y.is_finite() && x.is_finite() => {
                    let bar = (self.bars.get(k).copied().flatten())
                        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite());
                    cur.push((*x, *y, bar));
                }
                _ => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }
}

/// A defined point `(x, y)` and its interval.
type Defined = (f64, f64, Option<(f64, f64)>);

/// A chart's scale from data to pixels.
type Scale = Box<dyn Fn(f64) -> f64>;

/// The shaded interval band of a step curve, under it: the upper ends' steps forward, the
/// lower ends' back (every point of `run` has its interval).
fn step_band(out: &mut String, run: &[Defined], at: &dyn Fn(f64, f64) -> (f64, f64), c: &str) {
    let ends = |pick: fn((f64, f64)) -> f64| -> Vec<(f64, f64)> {
        let pts: Vec<(f64, f64)> = (run.iter())
            .filter_map(|(x, _, b)| b.map(|b| (*x, pick(b))))
            .collect();
        step_corners(&pts)
    };
    let mut corners = ends(|b| b.1);
    corners.extend(ends(|b| b.0).into_iter().rev());
    let mut d = String::new();
    for (j, (x, y)) in corners.iter().enumerate() {
        let (px, py) = at(*x, *y);
        let _ = write!(d, "{}{px:.1},{py:.1}", if j == 0 { "M" } else { " L" });
    }
    let _ = write!(
        out,
        r#"<path d="{d} Z" fill="{c}" fill-opacity="0.15" stroke="none"/>"#
    );
}

/// The corners of a step path through `points`: from each point horizontally to the next
/// `x`, then vertically to its `y`.
fn step_corners(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for (j, (x, y)) in points.iter().enumerate() {
        if j > 0 {
            out.push((*x, points[j - 1].1));
        }
        out.push((*x, *y));
    }
    out
}

/// What [`LineChart::render_with`] draws besides a chart's series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    /// A reference level per series, drawn as a dashed horizontal line in the series'
    /// colour across the plot, with one dashed legend entry of this name.
    pub reference: Option<(String, Vec<Option<f64>>)>,
}

/// Each series' reference level: a dashed line across the plot in its colour, at `at(k, y)`.
fn reference_levels(
    out: &mut String,
    frame: &Frame,
    levels: &[Option<f64>],
    at: &dyn Fn(usize, f64) -> f64,
) {
    for (k, y) in levels.iter().enumerate() {
        let Some(y) = y.filter(|v| v.is_finite()) else {
            continue;
        };
        let _ = write!(
            out,
            r#"<line x1="{x0}" y1="{py:.1}" x2="{x1}" y2="{py:.1}" stroke="{c}" stroke-width="1.5" stroke-dasharray="5 3"/>"#,
            x0 = frame.left,
            x1 = frame.left + frame.plot_width(),
            py = at(k, y),
            c = colour(k),
        );
    }
}

/// A line chart with markers, or a step chart (survival curves).
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Heading drawn above the plot.
    pub title: String,
    /// Label of the horizontal axis.
    pub x_label: String,
    /// Label of the vertical axis.
    pub y_label: String,
    /// Horizontal axis.
    pub x: XAxis,
    /// Vertical range `(min, max)`.
    pub y: (f64, f64),
    /// The series.
    pub series: Vec<Series>,
    /// Draw as a step function: from each point, horizontally to the next `x`, then
    /// vertically to its `y` (survival curves).
    pub step: bool,
    /// Write each point's value beside it.
    pub annotate: bool,
}

impl LineChart {
    /// The chart as a standalone `<svg>` element.
    pub fn render(&self) -> String {
        self.render_with(&Overlay::default())
    }

    /// The chart with a reference level per series drawn under its series.
    pub fn render_with(&self, overlay: &Overlay) -> String {
        let names: Vec<String> = self.series.iter().map(|s| s.name.clone()).collect();
        let mut legend_names = names.clone();
        legend_names.extend(overlay.reference.iter().map(|(name, _)| name.clone()));
        let frame = Frame {
            width: 760.0,
            height: 420.0,
            left: 72.0,
            right: legend_width(&legend_names),
            top: 38.0,
            bottom: 58.0,
        };
        let mut out = String::new();
        frame.open(&mut out, &self.title);
        let (ymin, ymax) = ordered(self.y);
        let ph = frame.plot_height();
        let sy = |v: f64| frame.top + ph - (v.clamp(ymin, ymax) - ymin) / (ymax - ymin) * ph;
        let (sx, x_ticks) = self.x_scale(&frame);
        grid_and_y_axis(&mut out, &frame, ymin, ymax);
        for (x, label) in &x_ticks {
            let px = sx(*x);
            let _ = write!(
                out,
                r##"<line x1="{px:.1}" y1="{y0}" x2="{px:.1}" y2="{y1}" stroke="#333333"/><text x="{px:.1}" y="{ty}" text-anchor="middle">{t}</text>"##,
                y0 = frame.top + ph,
                y1 = frame.top + ph + 5.0,
                ty = frame.top + ph + 19.0,
                t = escape(label),
            );
        }
        frame_box(&mut out, &frame);
        let n = self.series.len();
        // Series are dodged by a few pixels so that equal values stay apart: sideways on a
        // category axis, vertically for step charts.
        // Error bars need more room sideways than markers to stay apart.
        let offset = |k: usize, spacing: f64| {
            if n > 1 {
                (k as f64 - (n - 1) as f64 / 2.0) * spacing
            } else {
                0.0
            }
        };
        let bars = self
            .series
            .iter()
            .any(|s| s.bars.iter().any(Option::is_some));
        let dodge = |k: usize| match self.x {
            XAxis::Categories(_) if !self.step => offset(k, if bars { 6.0 } else { 2.5 }),
            _ => 0.0,
        };
        let lift = |k: usize| if self.step { offset(k, 2.5) } else { 0.0 };
        if let Some((_, levels)) = &overlay.reference {
            let levels = &levels[..levels.len().min(n)];
            reference_levels(&mut out, &frame, levels, &|k, y| sy(y) + lift(k));
        }
        for (k, series) in self.series.iter().enumerate() {
            let c = colour(k);
            let dash = if k >= PALETTE.len() {
                r#" stroke-dasharray="6 3""#
            } else {
                ""
            };
            let width = 2.2;
            for run in series.runs() {
                let at = |x: f64, y: f64| (sx(x) + dodge(k), sy(y) + lift(k));
                if self.step && run.iter().all(|p| p.2.is_some()) && run.len() > 1 {
                    step_band(&mut out, &run, &at, c);
                }
                let mut d = String::new();
                for (j, (x, y, _)) in run.iter().enumerate() {
                    let (px, py) = at(*x, *y);
                    if j == 0 {
                        let _ = write!(d, "M{px:.1},{py:.1}");
                    } else if self.step {
                        let _ = write!(d, " H{px:.1} V{py:.1}");
                    } else {
                        let _ = write!(d, " L{px:.1},{py:.1}");
                    }
                }
                let _ = write!(
                    out,
                    r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="{width:.1}" stroke-linejoin="round"{dash}/>"#
                );
                if !self.step {
                    for (x, y, bar) in &run {
                        let px = sx(*x) + dodge(k);
                        if let Some((lo, hi)) = bar {
                            let (top, bottom) = (sy(*hi), sy(*lo));
                            let _ = write!(
                                out,
                                r#"<path d="M{px:.1},{top:.1} V{bottom:.1} M{l:.1},{top:.1} H{r:.1} M{l:.1},{bottom:.1} H{r:.1}" stroke="{c}" stroke-width="1.3" fill="none"/>"#,
                                l = px - 4.0,
                                r = px + 4.0,
                            );
                        }
                        out.push_str(&marker(k, px, sy(*y), 4.0, c));
                        if self.annotate {
                            let _ = write!(
                                out,
                                r#"<text x="{:.1}" y="{:.1}" font-size="11" fill="{c}">{}</text>"#,
                                px + 6.0,
                                sy(*y) - 7.0,
                                short_number(*y)
                            );
                        }
                    }
                }
            }
        }
        frame.axis_labels(&mut out, &self.x_label, &self.y_label);
        let reference = overlay.reference.as_ref().map(|(name, _)| name.as_str());
        frame.legend(&mut out, &names, false, reference);
        out.push_str("</svg>");
        out
    }

    /// The horizontal scale (data to pixels) and its ticks.
    fn x_scale(&self, frame: &Frame) -> (Scale, Vec<(f64, String)>) {
        let pw = frame.plot_width();
        match &self.x {
            XAxis::Linear { min, max } => {
                let (min, max) = ordered((*min, *max));
                let (ticks, step) = nice_ticks(min, max, 8);
                let left = frame.left;
                (
                    Box::new(move |v: f64| left + (v.clamp(min, max) - min) / (max - min) * pw),
                    ticks
                        .into_iter()
                        .map(|t| (t, tick_label(t, step)))
                        .collect(),
                )
            }
            XAxis::Categories(labels) => {
                let n = labels.len().max(1) as f64;
                let left = frame.left;
                (
                    Box::new(move |v: f64| left + (v + 0.5) / n * pw),
                    labels
                        .iter()
                        .enumerate()
                        .map(|(k, l)| (k as f64, l.clone()))
                        .collect(),
                )
            }
        }
    }
}

/// `(min, max)` in order and of non-zero width.
fn ordered((a, b): (f64, f64)) -> (f64, f64) {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    if hi - lo > 0.0 && hi.is_finite() && lo.is_finite() {
        (lo, hi)
    } else if lo.is_finite() {
        (lo - 0.5, lo + 0.5)
    } else {
        (0.0, 1.0)
    }
}

/// Horizontal grid lines with labelled ticks on the left axis.
fn grid_and_y_axis(out: &mut String, frame: &Frame, ymin: f64, ymax: f64) {
    let ph = frame.plot_height();
    let (ticks, step) = nice_ticks(ymin, ymax, 6);
    for t in ticks {
        let py = frame.top + ph - (t - ymin) / (ymax - ymin) * ph;
        let _ = write!(
            out,
            r##"<line x1="{x0}" y1="{py:.1}" x2="{x1}" y2="{py:.1}" stroke="#e3e3e3"/><line x1="{xt}" y1="{py:.1}" x2="{x0}" y2="{py:.1}" stroke="#333333"/><text x="{tx}" y="{ty:.1}" text-anchor="end">{l}</text>"##,
            x0 = frame.left,
            x1 = frame.left + frame.plot_width(),
            xt = frame.left - 5.0,
            tx = frame.left - 8.0,
            ty = py + 4.0,
            l = tick_label(t, step),
        );
    }
}

fn frame_box(out: &mut String, frame: &Frame) {
    let _ = write!(
        out,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333333"/>"##,
        frame.left,
        frame.top,
        frame.plot_width(),
        frame.plot_height()
    );
}

/// Vertical bars: one group per category, one bar per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Heading drawn above the plot.
    pub title: String,
    /// Label of the horizontal axis.
    pub x_label: String,
    /// Label of the vertical axis.
    pub y_label: String,
    /// Group labels along the horizontal axis.
    pub categories: Vec<String>,
    /// Named series, one value per category (`None`: no bar).
    pub series: Vec<(String, Vec<Option<f64>>)>,
    /// Vertical range; default from 0 to a little above the largest bar.
    pub y: Option<(f64, f64)>,
    /// Write each bar's value above it.
    pub annotate: bool,
}

impl BarChart {
    /// The chart as a standalone `<svg>` element.
    pub fn render(&self) -> String {
        let names: Vec<String> = self.series.iter().map(|(n, _)| n.clone()).collect();
        let legend: Vec<String> = if names.len() > 1 { names } else { Vec::new() };
        let frame = Frame {
            width: 760.0,
            height: 420.0,
            left: 72.0,
            right: legend_width(&legend),
            top: 38.0,
            bottom: 58.0,
        };
        let mut out = String::new();
        frame.open(&mut out, &self.title);
        let largest = self
            .series
            .iter()
            .flat_map(|(_, v)| v.iter().flatten())
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
        let (ymin, ymax) = ordered(self.y.unwrap_or_else(|| {
            let top = if largest > 0.0 { largest * 1.12 } else { 1.0 };
            (
                0.0,
                nice_ticks(0.0, top, 6).1 * (top / nice_ticks(0.0, top, 6).1).ceil(),
            )
        }));
        let pw = frame.plot_width();
        let ph = frame.plot_height();
        let sy = |v: f64| frame.top + ph - (v.clamp(ymin, ymax) - ymin) / (ymax - ymin) * ph;
        grid_and_y_axis(&mut out, &frame, ymin, ymax);
        let groups = self.categories.len().max(1) as f64;
        let group_w = pw / groups;
        let bars = self.series.len().max(1) as f64;
        let bar_w = group_w * 0.8 / bars;
        for (g, label) in self.categories.iter().enumerate() {
            let gx = frame.left + g as f64 * group_w;
            let _ = write!(
                out,
                r#"<text x="{x:.1}" y="{y}" text-anchor="middle">{t}</text>"#,
                x = gx + group_w / 2.0,
                y = frame.top + ph + 19.0,
                t = escape(label)
            );
            for (k, (_, values)) in self.series.iter().enumerate() {
                let Some(v) = values.get(g).copied().flatten().filter(|v| v.is_finite()) else {
                    continue;
                };
                let x = gx + group_w * 0.1 + k as f64 * bar_w;
                let (y0, y1) = (sy(ymin.max(0.0).min(ymax)), sy(v));
                let (top, h) = if y1 < y0 {
                    (y1, y0 - y1)
                } else {
                    (y0, y1 - y0)
                };
                let _ = write!(
                    out,
                    r#"<rect x="{x:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="{c}"/>"#,
                    w = bar_w * 0.92,
                    c = colour(k)
                );
                if self.annotate {
                    let text = if v.fract() == 0.0 && v.abs() < 1e9 {
                        format!("{v:.0}")
                    } else {
                        format!("{v:.3}")
                    };
                    let _ = write!(
                        out,
                        r#"<text x="{cx:.1}" y="{ty:.1}" text-anchor="middle" font-size="11">{text}</text>"#,
                        cx = x + bar_w * 0.46,
                        ty = top - 4.0,
                    );
                }
            }
        }
        frame_box(&mut out, &frame);
        frame.axis_labels(&mut out, &self.x_label, &self.y_label);
        frame.legend(&mut out, &legend, true, None);
        out.push_str("</svg>");
        out
    }
}

/// A matrix of counts drawn as coloured cells with the count written in each non-empty
/// cell; the colour is the count's share of its row, so sparse rows stay readable.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Heading drawn above the plot.
    pub title: String,
    /// Label of the horizontal axis (columns).
    pub x_label: String,
    /// Label of the vertical axis (rows).
    pub y_label: String,
    /// Column labels, left to right.
    pub x_labels: Vec<String>,
    /// Row labels, top to bottom.
    pub y_labels: Vec<String>,
    /// Counts, `cells[row][column]`.
    pub cells: Vec<Vec<u64>>,
}

impl Heatmap {
    /// The chart as a standalone `<svg>` element.
    pub fn render(&self) -> String {
        let layout = self.layout();
        let mut out = String::new();
        layout.frame.open(&mut out, &self.title);
        self.cells(&mut out, &layout);
        self.labels(&mut out, &layout);
        self.colour_bar(&mut out, &layout);
        self.axis_titles(&mut out, &layout);
        out.push_str("</svg>");
        out
    }

    /// The cell size and the frame around the grid, wide enough for every label.
    fn layout(&self) -> HeatmapLayout {
        let cols = self.x_labels.len().max(1);
        let rows = self.y_labels.len().max(1);
        let cell = (520.0 / cols.max(rows) as f64).clamp(22.0, 48.0);
        let label_w = self
            .y_labels
            .iter()
            .map(|l| text_width(l, 11.0))
            .fold(0.0, f64::max);
        let x_label_w = self
            .x_labels
            .iter()
            .map(|l| text_width(l, 11.0))
            .fold(0.0, f64::max);
        let rotate = x_label_w > cell * 0.9;
        let frame = Frame {
            width: 0.0,
            height: 0.0,
            left: 46.0 + label_w,
            right: 110.0,
            top: 38.0,
            bottom: 48.0 + if rotate { x_label_w * 0.75 } else { 16.0 },
        };
        // Wide enough for the title and the axis label even with few columns.
        let needed = text_width(&self.title, 15.0).max(text_width(&self.x_label, 13.0)) + 40.0;
        let grid_w = cols as f64 * cell;
        let extra = (needed - grid_w - 40.0).max(0.0) / 2.0;
        let frame = Frame {
            left: frame.left + extra,
            right: frame.right + extra,
            ..frame
        };
        let frame = Frame {
            width: frame.left + grid_w + frame.right,
            height: frame.top + rows as f64 * cell + frame.bottom,
            ..frame
        };
        HeatmapLayout {
            frame,
            cell,
            cols,
            rows,
            label_w,
            rotate,
        }
    }

    /// A coloured cell per count, the count written in each non-empty one.
    fn cells(&self, out: &mut String, layout: &HeatmapLayout) {
        let frame = &layout.frame;
        let (cell, cols, rows) = (layout.cell, layout.cols, layout.rows);
        for (r, row) in self.cells.iter().enumerate().take(rows) {
            let total: u64 = row.iter().sum();
            for (c, &n) in row.iter().enumerate().take(cols) {
                let share = if total > 0 {
                    n as f64 / total as f64
                } else {
                    0.0
                };
                let x = frame.left + c as f64 * cell;
                let y = frame.top + r as f64 * cell;
                let _ = write!(
                    out,
                    r##"<rect x="{x:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="{f}" stroke="#ffffff" stroke-width="1"/>"##,
                    f = blues(share)
                );
                if n > 0 {
                    let ink = if share > 0.55 { "#ffffff" } else { "#111111" };
                    let size = if n >= 1000 { 9.0 } else { 11.0 };
                    let _ = write!(
                        out,
                        r#"<text x="{cx:.1}" y="{cy:.1}" text-anchor="middle" font-size="{size}" fill="{ink}">{n}</text>"#,
                        cx = x + cell / 2.0,
                        cy = y + cell / 2.0 + 4.0
                    );
                }
            }
        }
    }

    /// The row and column labels, and the grid's outline.
    fn labels(&self, out: &mut String, layout: &HeatmapLayout) {
        let frame = &layout.frame;
        let (cell, cols, rows, rotate) = (layout.cell, layout.cols, layout.rows, layout.rotate);
        for (r, label) in self.y_labels.iter().enumerate() {
            let _ = write!(
                out,
                r#"<text x="{x}" y="{y:.1}" text-anchor="end" font-size="11">{t}</text>"#,
                x = frame.left - 6.0,
                y = frame.top + r as f64 * cell + cell / 2.0 + 4.0,
                t = escape(label)
            );
        }
        let base = frame.top + rows as f64 * cell;
        for (c, label) in self.x_labels.iter().enumerate() {
            let cx = frame.left + c as f64 * cell + cell / 2.0;
            if rotate {
                let _ = write!(
                    out,
                    r#"<text x="{cx:.1}" y="{y:.1}" text-anchor="end" font-size="11" transform="rotate(-60 {cx:.1} {y:.1})">{t}</text>"#,
                    y = base + 12.0,
                    t = escape(label)
                );
            } else {
                let _ = write!(
                    out,
                    r#"<text x="{cx:.1}" y="{y:.1}" text-anchor="middle" font-size="11">{t}</text>"#,
                    y = base + 16.0,
                    t = escape(label)
                );
            }
        }
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333333"/>"##,
            frame.left,
            frame.top,
            cols as f64 * cell,
            rows as f64 * cell
        );
    }

    /// The colour bar beside the grid: share of the row.
    fn colour_bar(&self, out: &mut String, layout: &HeatmapLayout) {
        let frame = &layout.frame;
        let (cell, cols, rows) = (layout.cell, layout.cols, layout.rows);
        // Colour bar: share of the row.
        let bx = frame.left + cols as f64 * cell + 24.0;
        let bh = (rows as f64 * cell).min(200.0);
        for k in 0..20 {
            let share = 1.0 - k as f64 / 19.0;
            let _ = write!(
                out,
                r#"<rect x="{bx}" y="{y:.1}" width="14" height="{h:.1}" fill="{f}"/>"#,
                y = frame.top + k as f64 * bh / 20.0,
                h = bh / 20.0 + 0.5,
                f = blues(share)
            );
        }
        let _ = write!(
            out,
            r##"<rect x="{bx}" y="{t}" width="14" height="{bh:.1}" fill="none" stroke="#333333"/><text x="{lx}" y="{y0}" font-size="11">1</text><text x="{lx}" y="{y1:.1}" font-size="11">0</text><text x="{rx:.1}" y="{my:.1}" font-size="11" text-anchor="middle" transform="rotate(90 {rx:.1} {my:.1})">share of row</text>"##,
            t = frame.top,
            lx = bx + 18.0,
            y0 = frame.top + 9.0,
            y1 = frame.top + bh,
            rx = bx + 44.0,
            my = frame.top + bh / 2.0,
        );
    }

    /// The axis titles, under the grid and left of the row labels.
    fn axis_titles(&self, out: &mut String, layout: &HeatmapLayout) {
        let frame = &layout.frame;
        let (cell, cols, rows, label_w) = (layout.cell, layout.cols, layout.rows, layout.label_w);
        let cx = frame.left + cols as f64 * cell / 2.0;
        let _ = write!(
            out,
            r#"<text x="{cx:.1}" y="{y:.1}" text-anchor="middle" font-size="13">{t}</text>"#,
            y = frame.height - 12.0,
            t = escape(&self.x_label)
        );
        let cy = frame.top + rows as f64 * cell / 2.0;
        let yx = (frame.left - label_w - 24.0).max(16.0);
        let _ = write!(
            out,
            r#"<text x="{yx:.1}" y="{cy:.1}" text-anchor="middle" font-size="13" transform="rotate(-90 {yx:.1} {cy:.1})">{t}</text>"#,
            t = escape(&self.y_label)
        );
    }
}

/// Where a [`Heatmap`]'s parts go.
struct HeatmapLayout {
    frame: Frame,
    cell: f64,
    cols: usize,
    rows: usize,
    /// The widest row label.
    label_w: f64,
    /// Column labels drawn slanted (too wide for their cells).
    rotate: bool,
}

/// White (0) to dark blue (1).
fn blues(share: f64) -> String {
    let s = share.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * s).round() as u8;
    if s == 0.0 {
        return "#f7f7f7".to_owned();
    }
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(222.0, 8.0),
        lerp(235.0, 48.0),
        lerp(247.0, 107.0)
    )
}

#[cfg(test)]
#[path = "svg_tests.rs"]
mod tests;
