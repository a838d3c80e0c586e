//! The ULP-distance histogram of one backend pair as inline SVG: one bar slot per ULP bucket
//! (`0`, `1`, `2–3`, `4–7`, …, `≥2^20`) and per non-ULP difference class, bar heights on a
//! logarithmic scale, counts written above the bars and in each bar's `<title>`.

use super::html::escape;
use super::model::{Histogram, ULP_BUCKETS};
use crate::compare::DiffClass;
use std::fmt::Write;

/// The difference classes given a bar of their own, in display order (a class missing here but
/// present in a histogram is drawn after them).
pub const NON_ULP_CLASSES: [DiffClass; 8] = [
    DiffClass::Nan,
    DiffClass::ZeroSign,
    DiffClass::SubnormalFlush,
    DiffClass::Exact,
    DiffClass::Shape,
    DiffClass::Overflow,
    DiffClass::Statistical,
    DiffClass::OutOfRange,
];

const SLOT: f64 = 30.0;
const BAR: f64 = 22.0;
const PLOT_H: f64 = 160.0;
const LEFT: f64 = 56.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 64.0;

/// Short axis label and full description of ULP bucket `b` (see [`super::model::ulp_bucket`]).
pub fn bucket_label(b: usize) -> (String, String) {
    match b {
        0 => ("0".into(), "0 ULPs (bit-exact)".into()),
        1 => ("1".into(), "1 ULP".into()),
        b if b + 1 == ULP_BUCKETS => {
            let k = b - 1;
            (
                format!("≥2^{k}"),
                format!("at least 2^{k} = {} ULPs", 1u64 << k),
            )
        }
        b => {
            let k = b - 1;
            let (lo, hi) = (1u64 << k, (1u64 << (k + 1)) - 1);
            let short = if k < 4 {
                format!("{lo}–{hi}")
            } else {
                format!("2^{k}")
            };
            (short, format!("{lo} to {hi} ULPs"))
        }
    }
}

/// Renders `h` as an `<svg class="histogram">` element. Each non-empty slot gets one
/// `<rect class="bar">` with `data-bucket` (the axis label) and `data-count`; empty slots get only
/// their axis label. `pair` names the pair in the title.
pub fn histogram_svg(h: &Histogram, pair: &str) -> String {
    let mut slots: Vec<(String, String, u64, &'static str)> = (0..ULP_BUCKETS)
        .map(|b| {
            let (short, long) = bucket_label(b);
            (short, long, h.ulp[b], "ulp")
        })
        .collect();
    let extra = h.classes.keys().filter(|c| !NON_ULP_CLASSES.contains(c));
    for c in NON_ULP_CLASSES.iter().chain(extra) {
        let n = h.classes.get(c).copied().unwrap_or(0);
        slots.push((
            c.name().to_string(),
            format!("class {} (not measured in ULPs)", c.name()),
            n,
            "class",
        ));
    }
    let max = slots.iter().map(|s| s.2).max().unwrap_or(0);
    let width = LEFT + SLOT * slots.len() as f64 + 16.0;
    let height = TOP + PLOT_H + BOTTOM;
    let base = TOP + PLOT_H;
    let scale = |n: u64| -> f64 {
        if n == 0 || max == 0 {
            0.0
        } else {
            // (1 + ln n) / (1 + ln max): logarithmic, and a single case still shows.
            let f = (1.0 + (n as f64).ln()) / (1.0 + (max as f64).ln());
            (f * PLOT_H).max(2.0)
        }
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="histogram" xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{}">"#,
        escape(&format!("per-case max ULP distance, {pair}"))
    );
    let _ = write!(
        s,
        "<title>{}</title>",
        escape(&format!(
            "{pair}: per-case maximum ULP distance ({} cases)",
            h.total()
        ))
    );
    // Axes and the y label.
    let _ = write!(
        s,
        r#"<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}"/><line class="axis" x1="{LEFT}" y1="{base}" x2="{:.0}" y2="{base}"/>"#,
        width - 8.0
    );
    let _ = write!(
        s,
        r#"<text class="ylabel" x="14" y="{:.0}" transform="rotate(-90 14 {:.0})" text-anchor="middle">cases (log scale)</text>"#,
        TOP + PLOT_H / 2.0,
        TOP + PLOT_H / 2.0
    );
    let _ = write!(
        s,
        r#"<text class="tick" x="{:.0}" y="{:.0}" text-anchor="end">{max}</text><text class="tick" x="{:.0}" y="{base}" text-anchor="end">0</text>"#,
        LEFT - 4.0,
        TOP + 4.0,
        LEFT - 4.0
    );
    for (i, (short, long, n, kind)) in slots.iter().enumerate() {
        let x = LEFT + SLOT * i as f64 + (SLOT - BAR) / 2.0;
        let cx = x + BAR / 2.0;
        if *n > 0 {
            let h = scale(*n);
            let _ = write!(
                s,
                r#"<rect class="bar {kind}" data-bucket="{}" data-count="{n}" x="{x:.1}" y="{:.1}" width="{BAR}" height="{h:.1}"><title>{}: {n} cases</title></rect>"#,
                escape(short),
                base - h,
                escape(long)
            );
            let _ = write!(
                s,
                r#"<text class="count" x="{cx:.1}" y="{:.1}" text-anchor="middle">{n}</text>"#,
                base - h - 3.0
            );
        }
        let ly = base + 8.0;
        let _ = write!(
            s,
            r#"<text class="xlabel {kind}" x="{cx:.1}" y="{ly:.1}" transform="rotate(50 {cx:.1} {ly:.1})">{}</text>"#,
            escape(short)
        );
    }
    let _ = write!(
        s,
        r#"<text class="xtitle" x="{:.0}" y="{:.0}">ULPs of the result format (left) · difference classes without a ULP distance (right)</text>"#,
        LEFT,
        height - 4.0
    );
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::ulp_bucket;

    #[test]
    fn buckets_are_log2_and_labels_match_them() {
        assert_eq!(ulp_bucket(0), 0);
        assert_eq!(ulp_bucket(1), 1);
        assert_eq!(ulp_bucket(2), 2);
        assert_eq!(ulp_bucket(3), 2);
        assert_eq!(ulp_bucket(4), 3);
        assert_eq!(ulp_bucket(7), 3);
        assert_eq!(ulp_bucket((1 << 20) - 1), 20);
        assert_eq!(ulp_bucket(1 << 20), 21);
        assert_eq!(ulp_bucket(u64::MAX), 21);
        assert_eq!(bucket_label(2).0, "2–3");
        assert_eq!(bucket_label(3).0, "4–7");
        assert_eq!(bucket_label(20).1, "524288 to 1048575 ULPs");
        assert_eq!(bucket_label(21).0, "≥2^20");
        for u in [5u64, 17, 1000, 1 << 19, (1 << 20) - 1] {
            let b = ulp_bucket(u);
            let k = b - 1;
            assert!(1u64 << k <= u && u < 1u64 << (k + 1), "{u} in bucket {b}");
        }
    }

    #[test]
    fn one_bar_per_nonempty_slot_with_its_count() {
        let mut h = Histogram::default();
        h.ulp[0] = 40;
        h.ulp[3] = 2;
        h.classes.insert(DiffClass::Nan, 1);
        let svg = histogram_svg(&h, "fast vs <reference>");
        assert_eq!(svg.matches("<rect class=\"bar").count(), 3, "{svg}");
        assert!(svg.contains(r#"data-bucket="0" data-count="40""#));
        assert!(svg.contains(r#"data-bucket="4–7" data-count="2""#));
        assert!(svg.contains(r#"data-bucket="nan" data-count="1""#));
        assert!(svg.contains("fast vs &lt;reference&gt;"));
        // Every slot has its axis label, empty or not.
        let labels = svg.matches("<text class=\"xlabel").count();
        assert_eq!(labels, ULP_BUCKETS + NON_ULP_CLASSES.len());
    }
}
