//! The crawl specification: the JSON an operator writes, parsed, then validated into typed values.
//!
//! Two stages, as in ripgrep's flags: [`RawSpec`] mirrors the JSON exactly (unknown keys are an
//! error, every key has a documented default) and is what gets stored and served back; [`Spec`]
//! is the validated form the crawler runs on (URLs parsed, regexes compiled, durations typed).
//! Every error names the JSON path of the field it concerns. Keys and defaults are documented
//! in `docs/crawl-spec.md`; keep the two in step.

use regex::Regex;
use std::path::PathBuf;
use url::Url;

use crate::analysis::AnalysisConfig;
use crate::frontier::update::UpdateFn;
use crate::frontier::FrontierConfig;
pub use raw::*;
pub use typed::{Aah, Limits, Politeness, ScopeRules, Warc};

mod raw;
mod typed;

/// A spec that could not be read or is not valid.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The JSON is malformed or a field has the wrong type or is unknown.
    #[error("{path}: {message}")]
    Json {
        /// JSON path of the field, `.` for the document itself.
        path: String,
        /// What serde said, with line and column.
        message: String,
    },
    /// A field has a value outside what the crawler accepts.
    #[error("{path}: {message}")]
    Invalid {
        /// JSON path of the field.
        path: String,
        /// Why the value is refused.
        message: String,
    },
}

fn invalid(path: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

/// The validated specification the crawler runs on: one typed section per stage.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The spec as written, with defaults: stored with the crawl and served back, never read
    /// by the crawl itself.
    written: RawSpec,
    /// Parsed seeds.
    pub seeds: Vec<Url>,
    /// `scope`.
    pub scope: ScopeRules,
    /// `politeness`, as the fetcher and robots stage read it.
    pub politeness: Politeness,
    /// `limits`.
    pub limits: Limits,
    /// `warc`.
    pub warc: Warc,
    /// `network.allow_private`.
    pub allow_private: bool,
    /// The frontier's configuration (`politeness` pauses, `frontier`, pages per host).
    pub frontier: FrontierConfig,
    /// `frontier.update`: how a new score combines with a queued URL's earlier ones.
    pub update: UpdateFn,
    /// `topic` and `scoring`, when the topic names something to look for (keywords, entities
    /// or reference pages); `None`: a breadth-first crawl without analysis.
    pub analysis: Option<AnalysisConfig>,
    /// Parsed `topic.reference_urls`.
    pub references: Vec<Url>,
    /// `aah`, when the helper is enabled.
    pub aah: Option<Aah>,
    /// `index.enabled`.
    pub index: bool,
}

impl Spec {
    /// Parses and validates spec JSON; errors carry the JSON path of the bad field.
    pub fn from_json(text: &str) -> Result<Spec, SpecError> {
        Spec::validate(RawSpec::from_json(text)?)
    }

    /// Validates a raw spec into typed values.
    pub fn validate(raw: RawSpec) -> Result<Spec, SpecError> {
        validate_name(&raw.name)?;
        if raw.seeds.is_empty() {
            return Err(invalid("seeds", "at least one seed is required"));
        }
        ranges::check(&raw)?;
        let max_len = raw.limits.max_url_length;
        let seeds = parse_urls(&raw.seeds, "seeds", max_len)?;
        let allow = compile_all(&raw.scope.allow, "scope.allow")?;
        let deny = compile_all(&raw.scope.deny, "scope.deny")?;
        let p = &raw.politeness;
        // The user agent is sent in every request and written to every warcinfo record.
        if p.user_agent.trim().is_empty()
            || p.user_agent.chars().any(crate::archive::is_control_char)
        {
            return Err(invalid(
                "politeness.user_agent",
                "must be a non-empty single line without control characters",
            ));
        }
        if p.min_delay_ms > p.max_delay_ms {
            return Err(invalid(
                "politeness.min_delay_ms",
                "must not exceed politeness.max_delay_ms",
            ));
        }
        let warc = Warc::validate(&raw.warc)?;
        let references = parse_urls(&raw.topic.reference_urls, "topic.reference_urls", max_len)?;
        validate_languages(&raw.topic.languages)?;
        // Keywords that can never match (empty, punctuation, a lone stopword) are refused here,
        // when the spec is submitted, rather than silently ignored during the crawl.
        let analysis = AnalysisConfig::validate(&raw.topic, &raw.scoring)
            .map_err(|e| invalid(e.path(), e.message()))?;
        let aah = match (&raw.aah.enabled, &raw.aah.kb) {
            (false, _) => None,
            (true, Some(k)) if k.trim().is_empty() => {
                return Err(invalid("aah.kb", "must name the knowledge-base folder"))
            }
            (true, kb) => Some(Aah {
                kb: kb.as_ref().map(PathBuf::from),
            }),
        };
        Ok(Spec {
            seeds,
            scope: typed::scope(&raw, allow, deny),
            politeness: typed::politeness(&raw),
            limits: typed::limits(&raw),
            warc,
            allow_private: raw.network.allow_private,
            frontier: typed::frontier(&raw, analysis.is_some()),
            update: raw.frontier.update,
            analysis,
            references,
            aah,
            index: raw.index.enabled,
            written: raw,
        })
    }

    /// The crawl's name, which is also its id and folder name.
    pub fn name(&self) -> &str {
        &self.written.name
    }

    /// The spec as written (defaults filled in): what is stored with the crawl, served back
    /// and offered as the template of a new crawl.
    pub fn written(&self) -> &RawSpec {
        &self.written
    }
}

fn validate_name(name: &str) -> Result<(), SpecError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !ok {
        return Err(invalid(
            "name",
            "use 1-64 letters, digits, '-', '_' or '.', not starting with '.'",
        ));
    }
    // The name becomes a folder of the data directory, next to files the server keeps there.
    match reserved_name(name) {
        Some(why) => Err(invalid("name", format!("{name:?} {why}"))),
        None => Ok(()),
    }
}

/// `DIR/api-token`: the stored token of `magpie serve`. It sits among the crawl folders, so no
/// crawl may take its name (a folder there stops the next `serve` from starting).
pub const TOKEN_FILE: &str = "api-token";

/// What a crawl name must not be, as the reason shown when one is refused: the names of files
/// the programs keep in the data folder itself, and the `.old-` infix of crawls moved aside by
/// `--fresh` (a crawl so named would be taken for an old copy of another one). Compared without
/// regard to case, as some file systems do.
pub fn reserved_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if lower == TOKEN_FILE {
        Some("is reserved: DIR/api-token holds the server's API token")
    } else if lower.contains(".old-") {
        Some("must not contain '.old-', which marks a crawl moved aside by --fresh")
    } else {
        None
    }
}

fn parse_seed(s: &str, max_len: usize) -> Result<Url, String> {
    let url = Url::parse(s.trim()).map_err(|e| format!("not a URL ({e}): {s}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("not an http(s) URL: {s}"));
    }
    if url.as_str().len() > max_len {
        return Err(format!("longer than limits.max_url_length ({max_len})"));
    }
    Ok(url)
}

fn parse_urls(urls: &[String], path: &str, max_len: usize) -> Result<Vec<Url>, SpecError> {
    let parse = |(i, s): (usize, &String)| {
        parse_seed(s, max_len).map_err(|m| invalid(format!("{path}[{i}]"), m))
    };
    urls.iter().enumerate().map(parse).collect()
}

fn validate_languages(languages: &[String]) -> Result<(), SpecError> {
    for (i, l) in languages.iter().enumerate() {
        let ok = (2..=3).contains(&l.len()) && l.chars().all(|c| c.is_ascii_lowercase());
        if !ok {
            return Err(invalid(
                format!("topic.languages[{i}]"),
                format!("not an ISO 639-1 or 639-3 code (two or three lowercase letters): {l:?}"),
            ));
        }
    }
    Ok(())
}

fn compile_all(patterns: &[String], path: &str) -> Result<Vec<Regex>, SpecError> {
    patterns
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Regex::new(p).map_err(|e| {
                // regex errors span several lines (pattern, caret, reason); keep them on one.
                let msg: Vec<String> = e
                    .to_string()
                    .lines()
                    .map(|l| l.trim().to_string())
                    .collect();
                invalid(format!("{path}[{i}]"), msg.join(" "))
            })
        })
        .collect()
}

pub mod ranges;

#[cfg(test)]
mod tests;
