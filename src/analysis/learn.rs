//! Learning the weights of the score components from the crawl's own outcomes.
//!
//! Which component predicts a link's worth depends on the web: on news sites a headline anchor
//! says much, on a dictionary of three-word entries it is mostly chance; one site's menus are
//! topical, another's are not. Pant & Srinivasan (TOIS 2005) found a calibrated linear model of
//! link features better than a fixed mix, and ACHE retrains its link classifier as it crawls.
//! magpie does the simplest thing that adapts: every fetched page whose link was scored is one
//! example, the link's components (document, paragraph, anchor, URL, parent) against the page's
//! relevance, and the weights are refitted by ridge regression **towards the spec's weights**:
//! with few pages the operator's weights stand, with many the crawl's evidence decides. Weights
//! come out non-negative and are only ever used through the weighted average, so their scale
//! does not matter.

use super::RawWeights;
use crate::model::ScoreParts;

/// How many pages the spec's weights count for (ridge strength).
pub const PRIOR_PAGES: f64 = 100.0;

/// Features: the five components, then a constant (the intercept, not penalised and not used
/// for scoring: adding the same amount to every link changes no order).
const K: usize = 6;

/// Sufficient statistics of the regression so far.
#[derive(Debug, Clone)]
pub struct WeightLearner {
    xtx: [[f64; K]; K],
    xty: [f64; K],
    prior: [f64; K],
    n: u64,
}

fn features(p: &ScoreParts) -> [f64; K] {
    [
        f64::from(p.document),
        f64::from(p.paragraph),
        f64::from(p.anchor),
        f64::from(p.url),
        f64::from(p.parent),
        1.0,
    ]
}

impl WeightLearner {
    /// A learner that starts from the spec's weights.
    pub fn new(prior: &RawWeights) -> WeightLearner {
        let w = [
            prior.document,
            prior.paragraph,
            prior.anchor,
            prior.url,
            prior.parent,
        ];
        let sum: f64 = w.iter().map(|&x| f64::from(x)).sum();
        let mut p = [0.0; K];
        if sum > 0.0 {
            for (p, &x) in p.iter_mut().zip(&w) {
                *p = f64::from(x) / sum;
            }
        }
        WeightLearner {
            xtx: [[0.0; K]; K],
            xty: [0.0; K],
            prior: p,
            n: 0,
        }
    }

    /// Pages observed.
    pub fn observed(&self) -> u64 {
        self.n
    }

    /// One fetched page: the components of the link that brought it, and its relevance.
    /// Non-finite values are ignored.
    pub fn observe(&mut self, link: &ScoreParts, relevance: f32) {
        let x = features(link);
        let y = f64::from(relevance);
        if !y.is_finite() || x.iter().any(|v| !v.is_finite()) {
            return;
        }
        for i in 0..K {
            for j in 0..K {
                self.xtx[i][j] += x[i] * x[j];
            }
            self.xty[i] += x[i] * y;
        }
        self.n += 1;
    }

    /// The weights that best predict relevance, pulled towards the spec's; `None` when the
    /// spec's weights are all zero (the operator switched scoring off) or the system cannot
    /// be solved.
    pub fn fit(&self) -> Option<RawWeights> {
        if self.prior.iter().all(|&p| p == 0.0) {
            return None;
        }
        // (XᵀX + λ·D) w = Xᵀy + λ·D·w0, with D the identity but for the intercept. The prior
        // is scaled to the mean square of each feature, so λ counts pages whatever the
        // components' magnitudes.
        let mut a = self.xtx;
        let mut b = self.xty;
        let n = self.n.max(1) as f64;
        for i in 0..K - 1 {
            let scale = (self.xtx[i][i] / n).max(1e-4);
            a[i][i] += PRIOR_PAGES * scale;
            b[i] += PRIOR_PAGES * scale * self.prior[i];
        }
        a[K - 1][K - 1] += 1e-6;
        let w = solve(a, b)?;
        let c: Vec<f32> = w[..K - 1].iter().map(|&x| x.max(0.0) as f32).collect();
        if c.iter().all(|&x| x == 0.0) || c.iter().any(|x| !x.is_finite()) {
            return None;
        }
        Some(RawWeights {
            document: c[0],
            paragraph: c[1],
            anchor: c[2],
            url: c[3],
            parent: c[4],
        })
    }
}

/// Gaussian elimination with partial pivoting; `None` for a singular system.
fn solve(mut a: [[f64; K]; K], mut b: [f64; K]) -> Option<[f64; K]> {
    for col in 0..K {
        let pivot = (col..K).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..K {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; K];
    for row in (0..K).rev() {
        let s: f64 = (row + 1..K).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(d: f32, p: f32, a: f32, u: f32) -> ScoreParts {
        ScoreParts {
            document: d,
            paragraph: p,
            anchor: a,
            url: u,
            parent: 0.0,
            total: 0.0,
        }
    }

    #[test]
    fn with_no_evidence_the_spec_weights_stand() {
        let l = WeightLearner::new(&RawWeights::default());
        let w = l.fit().unwrap();
        let sum = w.document + w.paragraph + w.anchor + w.url;
        assert!((w.document / sum - 1.0 / 3.5).abs() < 1e-3, "{w:?}");
        assert!((w.url / sum - 0.5 / 3.5).abs() < 1e-3, "{w:?}");
    }

    #[test]
    fn a_component_that_predicts_relevance_gains_weight_and_noise_loses_it() {
        let mut l = WeightLearner::new(&RawWeights::default());
        let mut x = 7u64;
        let mut rnd = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            (x >> 40) as f32 / (1u64 << 24) as f32
        };
        for _ in 0..5000 {
            let (d, p, a, u) = (rnd(), rnd(), rnd(), rnd());
            // Relevance follows the paragraph; the anchor is pure noise.
            l.observe(&parts(d, p, a, u), 0.8 * p + 0.1 * d);
        }
        let w = l.fit().unwrap();
        assert!(w.paragraph > 3.0 * w.anchor.max(0.01), "{w:?}");
        assert!(w.paragraph > w.document, "{w:?}");
        assert_eq!(l.observed(), 5000);
    }

    #[test]
    fn zero_weights_and_bad_values_are_handled() {
        let zero = RawWeights {
            document: 0.0,
            paragraph: 0.0,
            anchor: 0.0,
            url: 0.0,
            parent: 0.0,
        };
        let mut l = WeightLearner::new(&zero);
        l.observe(&parts(0.5, 0.5, 0.5, 0.5), 0.5);
        assert!(l.fit().is_none(), "scoring switched off stays off");
        let mut l = WeightLearner::new(&RawWeights::default());
        l.observe(&parts(f32::NAN, 0.5, 0.5, 0.5), 0.5);
        l.observe(&parts(0.5, 0.5, 0.5, 0.5), f32::INFINITY);
        assert_eq!(l.observed(), 0);
        assert!(l.fit().is_some());
    }
}
