//! Tests of `svg` (beside it so that `svg.rs` holds only the code).

use super::*;

/// Every `<tag` has its closing tag or is self-closed, and text has no raw `<`/`&`.
fn well_formed(svg: &str) {
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"), "{svg}");
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("tag closes") + start;
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "in {svg}");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_owned());
        }
        let text = &rest[end + 1..];
        let text = &text[..text.find('<').unwrap_or(text.len())];
        assert!(!text.contains('>'), "raw > in text: {text}");
        for (k, _) in text.match_indices('&') {
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| text[k..].starts_with(e)),
                "raw & in {text}"
            );
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    assert!(!svg.contains(" id="), "ids would clash when inlined");
}

#[test]
fn nice_ticks_cover_the_range() {
    let (t, step) = nice_ticks(0.0, 1.0, 6);
    assert_eq!(step, 0.2);
    assert_eq!(t.len(), 6);
    assert!((t[5] - 1.0).abs() < 1e-12);
    let (t, step) = nice_ticks(0.0, 100_000.0, 5);
    assert_eq!(step, 20_000.0);
    assert_eq!(t.first(), Some(&0.0));
    let (t, _) = nice_ticks(3.0, 3.0, 5);
    assert!(!t.is_empty());
    assert_eq!(tick_label(0.2 * 3.0, 0.2), "0.6");
    assert_eq!(tick_label(-1e-17, 0.2), "0.0");
    assert_eq!(tick_label(40_000.0, 20_000.0), "40000");
}

#[test]
fn escapes_markup() {
    assert_eq!(escape(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&#39;");
}

#[test]
fn reference_levels_are_dashed_with_one_legend_entry() {
    let chart = LineChart {
        title: "held out".into(),
        x_label: "rules".into(),
        y_label: "exact".into(),
        x: XAxis::Categories(vec!["1".into(), "2".into()]),
        y: (0.0, 1.0),
        series: vec![
            Series::new("a", vec![(0.0, Some(0.5)), (1.0, Some(0.7))]),
            Series::new("b", vec![(0.0, Some(0.2)), (1.0, None)]),
        ],
        step: false,
        annotate: false,
    };
    let overlay = Overlay {
        reference: Some((
            "identity <dashed>".into(),
            vec![Some(0.25), None, Some(0.9)],
        )),
    };
    let svg = chart.render_with(&overlay);
    well_formed(&svg);
    // One level (b has none, and the third has no series), and its legend entry.
    assert_eq!(
        svg.matches(r#"stroke-dasharray="5 3""#).count(),
        1 + 1,
        "{svg}"
    );
    assert!(svg.contains(">identity &lt;dashed&gt;<"));
    assert_eq!(chart.render(), chart.render_with(&Overlay::default()));
}

#[test]
fn line_chart_draws_each_series_with_a_legend() {
    let chart = LineChart {
        title: "Pass@1 <by> length".into(),
        x_label: "cascade length".into(),
        y_label: "Pass@1".into(),
        x: XAxis::Categories(vec!["2".into(), "3".into(), "4".into()]),
        y: (0.0, 1.0),
        series: vec![
            Series::new(
                "beam & co",
                vec![(0.0, Some(1.0)), (1.0, Some(0.5)), (2.0, Some(0.25))],
            ),
            Series::new(
                "identity",
                vec![(0.0, Some(0.0)), (1.0, None), (2.0, Some(f64::NAN))],
            ),
        ],
        step: false,
        annotate: false,
    };
    let svg = chart.render();
    well_formed(&svg);
    assert_eq!(svg.matches("<path").count(), 2, "a gap splits nothing here");
    assert!(svg.contains("beam &amp; co"));
    assert!(svg.contains("Pass@1 &lt;by&gt; length"));
    assert!(svg.contains(">cascade length<"));
    // Series 0 has circles (3 points + its legend), series 1 squares: its one finite
    // point (one is missing, one is NaN) + its legend.
    assert_eq!(svg.matches("<circle").count(), 3 + 1);
    assert_eq!(
        svg.matches(r#"<rect x="#).count(),
        1 + 1 + 1 + 1 + 1,
        "{svg}"
    );
}

#[test]
fn step_chart_and_linear_axis() {
    let chart = LineChart {
        title: "Survival".into(),
        x_label: "score".into(),
        y_label: "share".into(),
        x: XAxis::Linear { min: 0.0, max: 1.0 },
        y: (0.0, 1.0),
        series: vec![Series::new(
            "a",
            vec![(0.0, Some(1.0)), (0.5, Some(0.5)), (1.0, Some(0.1))],
        )],
        step: true,
        annotate: false,
    };
    let svg = chart.render();
    well_formed(&svg);
    assert!(svg.contains(" H") && svg.contains(" V"));
    assert!(svg.contains(">0.4<") && svg.contains(">1.0<"));
}

#[test]
fn error_bars_and_bands_are_drawn_where_given() {
    let series = |bars| Series {
        name: "a".into(),
        points: vec![(0.0, Some(0.5)), (1.0, Some(0.25)), (2.0, None)],
        bars,
    };
    let chart = |step, bars| LineChart {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        x: XAxis::Categories(vec!["2".into(), "3".into(), "4".into()]),
        y: (0.0, 1.0),
        series: vec![series(bars)],
        step,
        annotate: false,
    };
    let bar = r#"stroke-width="1.3""#;
    // One bar per point that has an interval; a point without one gets none.
    let svg = chart(false, vec![Some((0.4, 0.6)), None, Some((0.0, 1.0))]).render();
    well_formed(&svg);
    assert_eq!(svg.matches(bar).count(), 1, "{svg}");
    assert!(!chart(false, Vec::new()).render().contains(bar));
    // A step chart gets one band under the curve when every point of a run has one.
    let band = r#"fill-opacity="0.15""#;
    let svg = chart(true, vec![Some((0.4, 0.6)), Some((0.1, 0.4)), None]).render();
    well_formed(&svg);
    assert_eq!(svg.matches(band).count(), 1, "{svg}");
    assert!(!chart(true, vec![Some((0.4, 0.6)), None, None])
        .render()
        .contains(band));
}

#[test]
fn bar_chart_and_heatmap_are_well_formed() {
    let bars = BarChart {
        title: "KL".into(),
        x_label: "length".into(),
        y_label: "nats".into(),
        categories: vec!["2".into(), "3".into()],
        series: vec![
            ("p=0".into(), vec![Some(0.5), None]),
            ("p=1000".into(), vec![Some(0.0), Some(0.1)]),
        ],
        y: None,
        annotate: true,
    };
    let svg = bars.render();
    well_formed(&svg);
    // Background, legend box, two legend swatches, plot frame, three bars.
    assert_eq!(
        svg.matches(r#"<rect x="#).count(),
        1 + 1 + 2 + 1 + 3,
        "{svg}"
    );
    let heat = Heatmap {
        title: "confusion".into(),
        x_label: "predicted".into(),
        y_label: "gold".into(),
        x_labels: vec!["0".into(), "1".into()],
        y_labels: vec!["1".into(), "2".into()],
        cells: vec![vec![0, 3], vec![1, 1]],
    };
    let svg = heat.render();
    well_formed(&svg);
    assert!(svg.contains(">3<") && !svg.contains(">0</text><rect"));
    assert!(svg.contains("share of row"));
    let empty = Heatmap {
        cells: vec![vec![0, 0], vec![0, 0]],
        ..heat
    };
    well_formed(&empty.render());
}

#[test]
fn colours_go_from_light_to_dark() {
    assert_eq!(blues(0.0), "#f7f7f7");
    assert_eq!(blues(1.0), "#08306b");
    assert_eq!(colour(0), colour(PALETTE.len()));
}
