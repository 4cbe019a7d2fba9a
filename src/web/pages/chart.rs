//! The dashboard's "relevance over the crawl" chart (ARCOMEM's Figure 8): average relevance per
//! 100 analysed pages and the harvest ratio so far, both in [0, 1], against pages analysed.
//! Drawn as SVG on the server; `cockpit.js` redraws the two lines with the same geometry
//! (the constants are repeated there) when new statistics arrive.

use crate::crawl::focus::FocusPoint;

/// Width of the drawing in SVG units.
pub const W: f64 = 640.0;
/// Height.
pub const H: f64 = 240.0;
/// Left margin (y labels).
pub const LEFT: f64 = 40.0;
/// Right margin.
pub const RIGHT: f64 = 10.0;
/// Top margin.
pub const TOP: f64 = 10.0;
/// Bottom margin (x labels).
pub const BOTTOM: f64 = 30.0;

/// The chart ready for the template.
pub struct Chart {
    /// `points` of the average-relevance polyline.
    pub relevance: String,
    /// `points` of the harvest-ratio polyline.
    pub harvest: String,
    /// Each point of both lines, (x, y relevance, y harvest), drawn as marks: one point alone
    /// makes no line.
    pub marks: Vec<(f64, f64, f64)>,
    /// The x axis' last value (pages analysed).
    pub x_max: u64,
    /// Horizontal grid lines: (y, label).
    pub grid: Vec<(f64, String)>,
    /// The relevance threshold (`scoring.threshold`) as a line: (y, label), when the crawl has
    /// a topic.
    pub threshold: Option<(f64, String)>,
}

/// A spec's `f32` for people: the shortest decimal that reads back as the same `f32` (`0.2`,
/// not the `0.20000000298023224` its widening to `f64` prints).
pub fn short_f32(v: f32) -> String {
    format!("{v}")
}

fn x(pages: u64, x_max: u64) -> f64 {
    LEFT + pages as f64 / x_max.max(1) as f64 * (W - LEFT - RIGHT)
}

fn y(v: f64) -> f64 {
    H - BOTTOM - v.clamp(0.0, 1.0) * (H - TOP - BOTTOM)
}

/// Lays out a series of points (the lines start at the first point measured: nothing was
/// measured at the origin) and the relevance threshold.
pub fn chart(series: &[FocusPoint], threshold: Option<f32>) -> Chart {
    let x_max = series.iter().map(|p| p.pages).max().unwrap_or(0).max(100);
    let line = |f: &dyn Fn(&FocusPoint) -> f64| {
        series
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.pages, x_max), y(f(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    Chart {
        relevance: line(&|p| p.avg_relevance),
        harvest: line(&|p| p.harvest_ratio),
        marks: series
            .iter()
            .map(|p| (x(p.pages, x_max), y(p.avg_relevance), y(p.harvest_ratio)))
            .collect(),
        threshold: threshold.map(|t| {
            // The value as written (0.2), not as widened (0.20000000298023224).
            let v = short_f32(t).parse::<f64>().unwrap_or(f64::from(t));
            (y(v), format!("threshold {}", short_f32(t)))
        }),
        x_max,
        grid: [0.0, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|v| (y(*v), format!("{v:.2}")))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_span_the_plot_area() {
        let s = [
            FocusPoint {
                pages: 100,
                avg_relevance: 0.5,
                harvest_ratio: 1.0,
            },
            FocusPoint {
                pages: 200,
                avg_relevance: 0.25,
                harvest_ratio: 0.5,
            },
        ];
        let c = chart(&s, Some(0.2));
        assert_eq!(c.x_max, 200);
        assert_eq!(
            c.relevance, "335.0,110.0 630.0,160.0",
            "not from the origin"
        );
        assert_eq!(c.harvest, "335.0,10.0 630.0,110.0");
        assert_eq!(c.marks.len(), 2);
        assert_eq!(c.threshold, Some((170.0, "threshold 0.2".to_string())));
        let empty = chart(&[], None);
        assert_eq!(empty.relevance, "");
        assert!(empty.threshold.is_none());
        assert_eq!(empty.grid.len(), 5);
        assert_eq!(short_f32(0.2), "0.2");
        assert_ne!(
            format!("{}", f64::from(0.2f32)),
            "0.2",
            "what the widening prints"
        );
    }
}
