//! The topic vector: keywords and entities of the spec plus the summed term vectors of
//! reference pages (the seeds and `topic.reference_urls`), as in ARCOMEM section 5.1.
//!
//! Weights. Every keyword term (each content word of a keyword, and a multi-word keyword as a
//! phrase unit) weighs [`KEYWORD_WEIGHT`]; an entity weighs the same as a unit, and its single
//! words [`ENTITY_WORD_WEIGHT`] (a name's words are weak evidence alone: "Central" of "European
//! Central Bank"). Each reference page contributes its term-frequency vector scaled to length 1,
//! so a long page counts no more than a short one; the sum of those is then scaled to length 1
//! as well. A term's weight is its keyword weight plus its reference weight, so a keyword term
//! always weighs at least as much as any ordinary term, however many references are added.
//!
//! Keywords are stemmed in each of `topic.languages` (English when the list is empty), since a
//! page is stemmed in its own language. A keyword that yields no term in any of them (empty,
//! punctuation only, or a single stopword) is refused: it could never match. Multi-word keywords
//! made only of stopwords ("The Who") are kept as phrases. Empty keyword and entity lists are
//! allowed; the topic is then the reference pages alone, and until one is added every cosine
//! is 0.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::lang::{normalise, Profile};
use super::page::read_page;
use super::stopwords::is_stopword;
use super::terms::{term_id, IdMap};
use super::tokens::{lowercase, tokenize};
use super::AnalysisError;
use super::RawTopic;
use crate::model::ParsedPage;

/// Weight of each keyword term and of each phrase unit.
pub const KEYWORD_WEIGHT: f32 = 1.0;
/// Weight of each single word of a multi-word entity.
pub const ENTITY_WORD_WEIGHT: f32 = 0.5;

/// What a crawl is about, as terms with weights. Serializable, so a crawl can store the topic
/// it was scored against (reference pages are only fetched once).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    /// Languages keywords were stemmed in (normalised codes); the first is the default
    /// language of pages whose language cannot be established.
    pub languages: Vec<String>,
    /// Keyword and entity terms (stems; phrases as stems joined by spaces) with their weights.
    pub keyword_terms: BTreeMap<String, f32>,
    /// Phrase units: the phrase text and its token sequence (stopwords included, unstemmed).
    pub phrases: BTreeMap<String, Vec<String>>,
    /// Sum of the length-1 term vectors of the reference pages.
    pub references: BTreeMap<String, f32>,
    /// How many reference pages were added.
    pub reference_count: u32,
}

impl Topic {
    /// Builds the keyword part of the topic from the spec. Errors name the offending field.
    pub fn from_spec(raw: &RawTopic) -> Result<Topic, AnalysisError> {
        let mut languages: Vec<String> = vec![];
        for (i, l) in raw.languages.iter().enumerate() {
            let code = normalise(l).ok_or_else(|| AnalysisError::Invalid {
                path: format!("topic.languages[{i}]"),
                message: format!("not an ISO 639-1 or 639-3 language code: {l:?}"),
            })?;
            if !languages.iter().any(|x| *x == code) {
                languages.push(code.into_owned());
            }
        }
        let stem_langs: Vec<&str> = if languages.is_empty() {
            vec!["en"]
        } else {
            languages.iter().map(String::as_str).collect()
        };
        let mut topic = Topic {
            languages: languages.clone(),
            ..Topic::default()
        };
        let lists = [
            ("keywords", &raw.keywords, false),
            ("entities", &raw.entities, true),
        ];
        for (field, list, entity) in lists {
            for (i, text) in list.iter().enumerate() {
                let mut any = false;
                for lang in &stem_langs {
                    any |= topic.add_keyword(text, Profile::of(lang), entity);
                }
                if !any {
                    return Err(AnalysisError::Invalid {
                        path: format!("topic.{field}[{i}]"),
                        message: format!(
                            "{text:?} yields no term in {} (empty, punctuation only, or a single \
                             stopword) and could never match",
                            stem_langs.join(", ")
                        ),
                    });
                }
            }
        }
        Ok(topic)
    }

    /// Adds one keyword or entity as stemmed in `profile`; false when it yields no term.
    fn add_keyword(&mut self, text: &str, profile: Profile, entity: bool) -> bool {
        let stemmer = profile.stemmer.map(rust_stemmers::Stemmer::create);
        let mut buf = String::new();
        let mut seq: Vec<String> = vec![];
        let mut words: Vec<String> = vec![];
        tokenize(text, |t, _| {
            let word = lowercase(t, &mut buf);
            if is_stopword(profile.stopwords, word) {
                seq.push(word.to_owned());
                return;
            }
            let stem = match &stemmer {
                Some(s) => s.stem(word).into_owned(),
                None => word.to_owned(),
            };
            seq.push(stem.clone());
            words.push(stem);
        });
        let word_weight = if entity && seq.len() > 1 {
            ENTITY_WORD_WEIGHT
        } else {
            KEYWORD_WEIGHT
        };
        for w in &words {
            let e = self.keyword_terms.entry(w.clone()).or_insert(0.0);
            *e = e.max(word_weight);
        }
        let phrase = seq.len() > 1;
        if phrase {
            let unit = seq.join(" ");
            self.keyword_terms.insert(unit.clone(), KEYWORD_WEIGHT);
            self.phrases.insert(unit, seq);
        }
        !words.is_empty() || phrase
    }

    /// Adds the text of a reference page (a seed, or one of `topic.reference_urls`).
    pub fn add_reference(&mut self, page: &ParsedPage) {
        if let Some(v) = ReferenceVector::of(&self.compile(), page) {
            self.add_reference_vector(&v);
        }
    }

    /// Adds a reference page read before: the crawl reads each reference page once, on the
    /// worker that parsed it, and the engine adds that vector to its topic.
    pub fn add_reference_vector(&mut self, v: &ReferenceVector) {
        for (text, w) in &v.terms {
            *self.references.entry(text.clone()).or_insert(0.0) += w;
        }
        self.reference_count += 1;
    }

    /// Every term with its weight in the topic vector.
    pub fn weights(&self) -> BTreeMap<String, f32> {
        let norm = self
            .references
            .values()
            .map(|&w| f64::from(w) * f64::from(w))
            .sum::<f64>()
            .sqrt();
        let mut out = self.keyword_terms.clone();
        if norm > 0.0 {
            for (t, &w) in &self.references {
                *out.entry(t.clone()).or_insert(0.0) += (f64::from(w) / norm) as f32;
            }
        }
        out
    }

    /// The `n` heaviest terms, heaviest first (ties by text), for display and reports.
    pub fn top_terms(&self, n: usize) -> Vec<(String, f32)> {
        let mut all: Vec<(String, f32)> = self.weights().into_iter().collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }

    /// The language pages are processed as when theirs cannot be established.
    pub fn default_language(&self) -> &str {
        self.languages.first().map_or("en", String::as_str)
    }

    /// The form of the topic that pages are scored against.
    pub(crate) fn compile(&self) -> Compiled {
        let weights_by_text = self.weights();
        let mut weights =
            IdMap::with_capacity_and_hasher(weights_by_text.len(), Default::default());
        let mut norm2 = 0f64;
        for (t, &w) in &weights_by_text {
            weights.insert(term_id(t), w);
            norm2 += f64::from(w) * f64::from(w);
        }
        let mut phrases: Vec<Phrase> = self
            .phrases
            .iter()
            .map(|(text, seq)| Phrase {
                ids: seq.iter().map(|s| term_id(s)).collect(),
                unit: term_id(text),
                text: text.clone(),
            })
            .collect();
        phrases.sort_by_key(|p| p.ids[0]);
        let mut first = IdMap::default();
        for (i, p) in phrases.iter().enumerate() {
            let e = first.entry(p.ids[0]).or_insert((i as u32, 0u32));
            e.1 += 1;
        }
        let keyword_stems = self
            .keyword_terms
            .keys()
            .filter(|t| t.len() >= 4 && !t.contains(' '))
            .map(|t| (t.clone(), term_id(t)))
            .collect();
        Compiled {
            weights,
            norm: norm2.sqrt() as f32,
            phrases,
            first,
            keyword_stems,
            default_lang: self.default_language().to_owned(),
        }
    }
}

/// A topic phrase as term ids.
#[derive(Debug, Clone)]
pub(crate) struct Phrase {
    /// Term ids of its tokens, in order.
    pub ids: Vec<u64>,
    /// Id of the phrase unit term.
    pub unit: u64,
    /// The unit's text.
    pub text: String,
}

/// The topic in the form pages are scored against: weights by term id, phrases by first term.
#[derive(Debug, Clone, Default)]
pub(crate) struct Compiled {
    weights: IdMap<f32>,
    norm: f32,
    phrases: Vec<Phrase>,
    first: IdMap<(u32, u32)>,
    /// Single-word keyword stems of 4 bytes or more, looked for inside URL words.
    pub keyword_stems: Vec<(String, u64)>,
    /// Language of pages whose language is unknown.
    pub default_lang: String,
}

impl Compiled {
    /// Weight of a term (0 for terms outside the topic).
    pub(crate) fn weight(&self, id: u64) -> f32 {
        self.weights.get(&id).copied().unwrap_or(0.0)
    }

    /// Euclidean length of the topic vector.
    pub(crate) fn norm(&self) -> f32 {
        self.norm
    }

    /// Whether some phrase starts with this term.
    pub(crate) fn starts_phrase(&self, id: u64) -> bool {
        self.first.contains_key(&id)
    }

    /// The phrases that start with this term.
    pub(crate) fn phrases_from(&self, id: u64) -> &[Phrase] {
        match self.first.get(&id) {
            Some(&(start, len)) => &self.phrases[start as usize..(start + len) as usize],
            None => &[],
        }
    }
}
/// A reference page's contribution to the topic: its term-frequency vector scaled to length 1,
/// by term text.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceVector {
    terms: Vec<(String, f32)>,
}

impl ReferenceVector {
    /// Reads a page's counted terms as the topic `compiled` sees them (its phrases and
    /// stopwords); `None` for a page without any.
    pub(crate) fn of(compiled: &Compiled, page: &ParsedPage) -> Option<ReferenceVector> {
        let text = read_page(page, None, compiled, true);
        let mut counts = text.page_counts();
        let terms = text.terms;
        let counted = counts.drain(&terms);
        let norm = counted
            .iter()
            .map(|&(_, c)| f64::from(c) * f64::from(c))
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 {
            return None;
        }
        let texts = terms.into_texts();
        let terms = counted
            .into_iter()
            .filter_map(|(t, c)| {
                let text = texts.get(t as usize)?;
                Some((text.clone(), (f64::from(c) / norm) as f32))
            })
            .collect();
        Some(ReferenceVector { terms })
    }
}
