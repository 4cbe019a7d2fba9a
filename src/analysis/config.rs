//! The analysis's configuration: the spec's `topic` and `scoring` sections, which the analysis
//! owns and validates itself, so it can be configured without a whole spec (and `spec` depends
//! on `analysis`, never the reverse).

use super::AnalysisError;
use serde::{Deserialize, Serialize};

/// The largest weight of a score component: the weighted sum of five components stays finite.
pub const MAX_WEIGHT: f32 = 1000.0;

/// `topic`: what the crawl is about. Empty keywords and entities are allowed: the topic vector
/// is then built from the reference pages (the seeds and `reference_urls`) alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawTopic {
    /// Words or phrases of the topic; a multi-word keyword is matched as a unit and word by word.
    pub keywords: Vec<String>,
    /// Names (people, organisations, places) matched as units; their single words count less.
    pub entities: Vec<String>,
    /// Pages fetched at the start whose text is added to the topic vector, like the seeds'.
    pub reference_urls: Vec<String>,
    /// ISO 639-1 (or 639-3) codes of the wanted languages; empty accepts every language.
    /// Keywords are stemmed in each of them (English when empty).
    pub languages: Vec<String>,
}

/// `scoring.weights`: the user's weights of the score components in the weighted average.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawWeights {
    /// Cosine of the whole page with the topic.
    pub document: f32,
    /// Cosine of the text block around the link (a window of it, for huge blocks).
    pub paragraph: f32,
    /// Cosine of the anchor text (with `title` and `alt`).
    pub anchor: f32,
    /// Topic terms in the link's host and path.
    pub url: f32,
    /// Score inherited from relevant ancestors, decaying with each irrelevant hop (SharkSearch).
    pub parent: f32,
}

impl Default for RawWeights {
    fn default() -> Self {
        RawWeights {
            document: 1.0,
            paragraph: 1.0,
            anchor: 1.0,
            url: 0.5,
            parent: 0.0,
        }
    }
}

/// `scoring`: how links are prioritised and which pages count as relevant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawScoring {
    /// Weights of the components; all zero is allowed and makes every link score 0.
    pub weights: RawWeights,
    /// A page whose cosine with the topic reaches this is relevant (counts in the harvest ratio);
    /// with `calibrate`, only until the crawl has evidence to calibrate its own.
    pub threshold: f32,
    /// Calibrate the relevance threshold per topic from the relevance of the reference pages
    /// and of the most relevant pages fetched (see `crawl::focus`); false: `threshold`.
    pub calibrate: bool,
    /// Links to these domains (and their subdomains) are flagged as spam and score 0.
    pub spam_domains: Vec<String>,
    /// Refit the weights as the crawl goes, from how well each component predicted the
    /// relevance of the pages fetched (ridge regression towards `weights`).
    pub learn: bool,
}

impl Default for RawScoring {
    fn default() -> Self {
        RawScoring {
            weights: RawWeights::default(),
            threshold: 0.2,
            calibrate: true,
            spam_domains: vec![],
            learn: true,
        }
    }
}

/// The validated `scoring` section: weights finite and from 0 to [`MAX_WEIGHT`], threshold in
/// [0, 1], spam domains bare lowercase names without a leading dot.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    /// Weights of the components.
    pub weights: RawWeights,
    /// The relevance threshold (before calibration).
    pub threshold: f32,
    /// Calibrate the threshold per topic.
    pub calibrate: bool,
    /// Domains whose links are spam, normalised.
    pub spam_domains: Vec<String>,
    /// Refit the weights as the crawl goes.
    pub learn: bool,
}

impl Scoring {
    /// Checks the section; errors name the JSON path.
    pub fn validate(s: &RawScoring) -> Result<Scoring, AnalysisError> {
        check_scoring(s)?;
        Ok(Scoring {
            weights: s.weights.clone(),
            threshold: s.threshold,
            calibrate: s.calibrate,
            spam_domains: s
                .spam_domains
                .iter()
                .map(|d| d.trim().trim_start_matches('.').to_ascii_lowercase())
                .collect(),
            learn: s.learn,
        })
    }
}

fn check_scoring(s: &RawScoring) -> Result<(), AnalysisError> {
    let invalid = |path: String, message: String| AnalysisError::Invalid { path, message };
    let w = &s.weights;
    for (v, name) in [
        (w.document, "document"),
        (w.paragraph, "paragraph"),
        (w.anchor, "anchor"),
        (w.url, "url"),
        (w.parent, "parent"),
    ] {
        let path = format!("scoring.weights.{name}");
        if !(v.is_finite() && v >= 0.0) {
            return Err(invalid(path, "must be a finite number >= 0".into()));
        }
        if v > MAX_WEIGHT {
            let shown = if v < 1e9 {
                v.to_string()
            } else {
                format!("{v:e}")
            };
            let message =
                format!("{shown} is out of range: must be a number from 0 to {MAX_WEIGHT}");
            return Err(invalid(path, message));
        }
    }
    if !(s.threshold.is_finite() && (0.0..=1.0).contains(&s.threshold)) {
        return Err(invalid(
            "scoring.threshold".into(),
            "must be a number from 0 to 1".into(),
        ));
    }
    for (i, d) in s.spam_domains.iter().enumerate() {
        let d = d.trim().trim_start_matches('.');
        let ok = !d.is_empty()
            && d.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '.' || c == '_');
        if !ok {
            return Err(invalid(
                format!("scoring.spam_domains[{i}]"),
                "must be a domain name such as spam.example (no scheme, port or path)".into(),
            ));
        }
    }
    Ok(())
}

/// The validated `topic` and `scoring` sections: what an analyzer is built from.
#[derive(Debug, Clone)]
pub struct AnalysisConfig {
    /// The topic the keywords and entities make (reference pages are added as they are
    /// fetched).
    pub topic: super::Topic,
    /// The scoring section, checked.
    pub scoring: Scoring,
}

impl AnalysisConfig {
    /// Checks both sections (the topic first). `None` when the topic names nothing to look
    /// for (no keyword, entity or reference page): the crawl then runs without analysis.
    pub fn validate(
        topic: &RawTopic,
        scoring: &RawScoring,
    ) -> Result<Option<AnalysisConfig>, AnalysisError> {
        let compiled = super::Topic::from_spec(topic)?;
        let scoring = Scoring::validate(scoring)?;
        let empty = topic.keywords.is_empty()
            && topic.entities.is_empty()
            && topic.reference_urls.is_empty();
        Ok((!empty).then_some(AnalysisConfig {
            topic: compiled,
            scoring,
        }))
    }
}
