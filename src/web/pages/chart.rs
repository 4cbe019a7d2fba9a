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
    /// The x axis' last value (pages analysed).
    pub x_max: u64,
    /// Horizontal grid lines: (y, label).
    pub grid: Vec<(f64, String)>,
}

fn x(pages: u64, x_max: u64) -> f64 {
    LEFT + pages as f64 / x_max.max(1) as f64 * (W - LEFT - RIGHT)
}

fn y(v: f64) -> f64 {
    H - BOTTOM - v.clamp(0.0, 1.0) * (H - TOP - BOTTOM)
}

/// Lays out a series of points.
pub fn chart(series: &[FocusPoint]) -> Chart {
    let x_max = series.iter().map(|p| p.pages).max().unwrap_or(0).max(100);
    let line = |f: &dyn Fn(&FocusPoint) -> f64| {
        std::iter::once(format!("{:.1},{:.1}", x(0, x_max), y(0.0)))
            .chain(
                series
                    .iter()
                    .map(|p| format!("{:.1},{:.1}", x(p.pages, x_max), y(f(p)))),
            )
            .collect::<Vec<_>>()
            .join(" ")
    };
    Chart {
        relevance: line(&|p| p.avg_relevance),
        harvest: line(&|p| p.harvest_ratio),
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
        let c = chart(&s);
        assert_eq!(c.x_max, 200);
        assert_eq!(c.relevance, "40.0,210.0 335.0,110.0 630.0,160.0");
        assert_eq!(c.harvest, "40.0,210.0 335.0,10.0 630.0,110.0");
        let empty = chart(&[]);
        assert_eq!(empty.relevance, "40.0,210.0");
        assert_eq!(empty.grid.len(), 5);
    }
}
