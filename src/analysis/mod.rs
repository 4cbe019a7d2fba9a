//! Online analysis (ARCOMEM section 4.2): how relevant is a page to the crawl's topic, and how
//! promising is each of its outlinks?
//!
//! An [`Analyzer`] is built once per crawl from the spec's `topic` and `scoring` sections,
//! learns the reference pages (the seeds and `topic.reference_urls`) with
//! [`Analyzer::add_reference`], and is then shared read-only by all workers: [`Analyzer::analyze`]
//! is a pure function of the page. The text pipeline (in these files) is:
//!
//! - `lang`: language identification (whatlang, trusted only when reliable; else the declared
//!   language) and the per-language processing it selects;
//! - `tokens`: Unicode word tokens, character bigrams for scripts without spaces, URL words;
//! - `stopwords`: the stoplists (en, de, fr, es, it, nl, pt);
//! - `terms`: stemmed term ids interned per page, term counts and cosine similarity;
//! - `topic`: the topic vector from keywords, entities and reference pages;
//! - `page`: one page read into terms and phrases;
//! - `score`: the page's relevance and each outlink's score components.
//!
//! Every link gets five components, each in [0, 1], kept side by side so the crawl can record
//! why a URL was ranked as it was; `total` is their weighted average with the user's weights.

mod config;
mod lang;
mod learn;
mod page;
mod score;
mod site_lang;
mod stopwords;
mod terms;
mod tokens;
mod topic;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bad_input;

pub use config::{AnalysisConfig, RawScoring, RawTopic, RawWeights, Scoring, MAX_WEIGHT};
pub use learn::{WeightLearner, PRIOR_PAGES};
pub use page::MAX_TEXT_BYTES;
pub use score::{HUGE_BLOCK_TOKENS, LANGUAGE_PENALTY, PARENT_DECAY, WINDOW_TOKENS};
pub use topic::{ReferenceVector, Topic, ENTITY_WORD_WEIGHT, KEYWORD_WEIGHT};

use serde::{Deserialize, Serialize};

use crate::model::{ParsedPage, ScoreParts};

/// A topic or scoring configuration that cannot be used. Names the spec field.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A field of `topic` or `scoring` has a value that cannot work.
    #[error("{path}: {message}")]
    Invalid {
        /// JSON path of the field, e.g. `topic.keywords[2]` or `scoring.weights.anchor`.
        path: String,
        /// Why it cannot be used.
        message: String,
    },
}

impl AnalysisError {
    /// The JSON path of the field concerned.
    pub fn path(&self) -> &str {
        match self {
            AnalysisError::Invalid { path, .. } => path,
        }
    }

    /// What is wrong, without the path.
    pub fn message(&self) -> &str {
        match self {
            AnalysisError::Invalid { message, .. } => message,
        }
    }
}

/// The analysis of one outlink. Serializable: the crawl writes it to the WARC metadata record
/// of the page, so every priority can be explained afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkScore {
    /// The score components and their total. The total is 0 for spam links and scaled down by
    /// [`LANGUAGE_PENALTY`] on pages in an unwanted language; it is the URL's priority.
    pub parts: ScoreParts,
    /// The link points into one of `scoring.spam_domains`.
    pub blacklist: bool,
}

/// What the analysis learned about one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageAnalysis {
    /// Cosine of the page with the topic, in [0, 1].
    pub relevance: f32,
    /// `relevance` reaches `scoring.threshold` and the page's language is wanted: the page
    /// counts towards the harvest ratio.
    pub relevant: bool,
    /// The page's language (ISO 639-1 where one exists): detected when whatlang is sure,
    /// else as declared; `None` when neither says.
    pub lang: Option<String>,
    /// whatlang's confidence in its own guess (0 when it made none).
    pub lang_confidence: f64,
    /// Where `lang` came from: `detected` (whatlang was sure), `declared` (it was not, and the
    /// page declares one), `confirmed` (the declaration, which detection has confirmed on the
    /// page's host, taken without detecting this page); `None` with `lang`.
    #[serde(default)]
    pub lang_source: Option<String>,
    /// False when `topic.languages` is non-empty and the page's known language is not in it.
    pub lang_wanted: bool,
    /// The value this page passes on to its children as their `parent` input.
    pub inherited: f32,
    /// One score per link, in the order of `page.links`.
    pub links: Vec<LinkScore>,
}

/// The topical scorer of a crawl: built once from the spec, then shared by all workers.
#[derive(Debug, Clone)]
pub struct Analyzer {
    topic: Topic,
    compiled: topic::Compiled,
    weights: RawWeights,
    threshold: f32,
    spam_domains: Vec<String>,
}

impl Analyzer {
    /// Builds the analyzer for a spec's `topic` and `scoring`. Errors name the field (a
    /// keyword that can never match, a bad language code, a negative weight).
    pub fn new(topic: &RawTopic, scoring: &RawScoring) -> Result<Analyzer, AnalysisError> {
        let topic = Topic::from_spec(topic)?;
        Ok(Analyzer::from_topic(topic, &Scoring::validate(scoring)?))
    }

    /// Builds the analyzer around a stored topic (for a crawl that resumes).
    pub fn from_topic(topic: Topic, scoring: &Scoring) -> Analyzer {
        Analyzer {
            compiled: topic.compile(),
            topic,
            weights: scoring.weights.clone(),
            threshold: scoring.threshold,
            spam_domains: scoring.spam_domains.clone(),
        }
    }

    /// Adds a reference page (a seed, or one of `topic.reference_urls`) to the topic vector.
    /// Call before sharing the analyzer; pages analysed earlier are not rescored.
    pub fn add_reference(&mut self, page: &ParsedPage) {
        if let Some(v) = self.reference_vector(page) {
            self.add_reference_vector(&v);
        }
    }

    /// What a reference page adds to the topic, read once (on the worker that parsed it).
    pub fn reference_vector(&self, page: &ParsedPage) -> Option<ReferenceVector> {
        ReferenceVector::of(&self.compiled, page)
    }

    /// Adds a reference page read by [`Analyzer::reference_vector`] to the topic vector.
    pub fn add_reference_vector(&mut self, v: &ReferenceVector) {
        self.topic.add_reference_vector(v);
        self.compiled = self.topic.compile();
    }

    /// The same analyzer with other component weights (learned ones, see [`WeightLearner`]).
    pub fn with_weights(&self, weights: RawWeights) -> Analyzer {
        Analyzer {
            weights,
            ..self.clone()
        }
    }

    /// The same analyzer with another relevance threshold (a calibrated one, see
    /// `crawl::focus`); a value outside [0, 1] is clamped into it.
    pub fn with_threshold(&self, threshold: f32) -> Analyzer {
        Analyzer {
            threshold: if threshold.is_finite() {
                threshold.clamp(0.0, 1.0)
            } else {
                self.threshold
            },
            ..self.clone()
        }
    }

    /// The topic as built so far (store it with the crawl).
    pub fn topic(&self) -> &Topic {
        &self.topic
    }

    /// The weights of the score components.
    pub fn weights(&self) -> &RawWeights {
        &self.weights
    }

    /// The relevance a page needs to count as relevant.
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// Scores a page and each of its links.
    ///
    /// `page_url` is the page's own URL (on a spam domain, all its links are blacklisted);
    /// `parent_inherited` is the `inherited` value of the page this one was found on (pass 0
    /// for a seed, which has no ancestors). Never panics; every score is finite and in [0, 1].
    /// Allocates a few buffers per call, none per word. The page's language may be taken from
    /// what this thread has confirmed on the page's host (`site_lang`), so the result can
    /// depend on the pages the thread analysed before; `lang_source` says which way it went.
    pub fn analyze(
        &self,
        page: &ParsedPage,
        page_url: &str,
        parent_inherited: f32,
    ) -> PageAnalysis {
        score::analyze(self, page, page_url, parent_inherited)
    }
}
