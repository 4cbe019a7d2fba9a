//! Blacklisting by pattern: an operator (or a script) names a regular expression, every queued
//! URL it matches leaves the frontier, and no URL it matches is queued again in this crawl.
//! The patterns are kept in the crawl's state, so they survive restarts.

use super::CrawlError;
use crate::store::{Entry, Key, Meta};
use serde::Serialize;

/// Compiled size limit of one pattern: generous for URL patterns, bounded for hostile input (a
/// short pattern over Unicode classes, such as `\w{20}N`, compiles to a megabyte; write
/// `(?-u:\w)` for ASCII word characters).
const PATTERN_SIZE_LIMIT: usize = 64 * 1024;
/// Cache of one pattern's lazy automaton, per thread that matches it.
const PATTERN_DFA_LIMIT: usize = 256 * 1024;
/// Patterns one crawl keeps: with the limits above, at most about 64 MB in all, kept with the
/// crawl and compiled again at every start.
pub const MAX_PATTERNS: usize = 200;

/// What blocking a pattern did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockReport {
    /// The pattern, as given.
    pub pattern: String,
    /// Queued URLs it removed from the frontier.
    pub removed: usize,
    /// Patterns now in force.
    pub patterns: usize,
}

/// Compiles a pattern; the error says why it cannot be used.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    if pattern.trim().is_empty() {
        return Err("the pattern is empty".into());
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_DFA_LIMIT)
        .build()
        .map_err(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
}

/// The blocked patterns of a crawl, kept in its state.
#[derive(Default)]
pub(super) struct Blocklist {
    patterns: Vec<regex::Regex>,
}

impl Blocklist {
    /// The patterns stored by earlier runs; one that no longer compiles is damage, named.
    pub(super) fn load(store: &crate::store::Store) -> Result<Blocklist, CrawlError> {
        let stored: Vec<String> = super::state::read_json(
            store,
            &Key::Meta(Meta::Blocked).bytes(),
            "the blocked URL patterns",
        )?
        .unwrap_or_default();
        let patterns = stored
            .iter()
            .map(|p| {
                compile(p).map_err(|e| store.damaged(format!("blocked URL pattern {p:?}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        Ok(Blocklist { patterns })
    }

    /// Whether a URL matches a blocked pattern.
    pub(super) fn matches(&self, url: &str) -> bool {
        self.patterns.iter().any(|r| r.is_match(url))
    }

    /// Adds a compiled pattern; returns the store key and value that keep the list.
    pub(super) fn add(&mut self, re: regex::Regex) -> Result<Entry, CrawlError> {
        self.patterns.push(re);
        let all: Vec<&str> = self.patterns.iter().map(regex::Regex::as_str).collect();
        let v = super::state::to_json(&all, "the blocked URL patterns")?;
        Ok((Key::Meta(Meta::Blocked).bytes(), v))
    }

    /// The patterns in force, as given, in the order they were added.
    pub(super) fn patterns(&self) -> Vec<String> {
        self.patterns
            .iter()
            .map(|r| r.as_str().to_string())
            .collect()
    }

    /// Removes a pattern (given exactly as it was added); returns the store key and value that
    /// keep the list, or `None` when no such pattern is in force.
    pub(super) fn remove(&mut self, pattern: &str) -> Result<Option<Entry>, CrawlError> {
        let Some(at) = self.patterns.iter().position(|r| r.as_str() == pattern) else {
            return Ok(None);
        };
        self.patterns.remove(at);
        let all: Vec<&str> = self.patterns.iter().map(regex::Regex::as_str).collect();
        let v = super::state::to_json(&all, "the blocked URL patterns")?;
        Ok(Some((Key::Meta(Meta::Blocked).bytes(), v)))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub(super) fn len(&self) -> usize {
        self.patterns.len()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bad_patterns_are_explained() {
        assert!(super::compile("").unwrap_err().contains("empty"));
        assert!(super::compile("(unclosed").is_err());
        assert!(super::compile(r"/calendar/\d+").is_ok());
        // Short, but a megabyte compiled: refused, with the reason; the ASCII form is fine.
        let big = super::compile(r"\w{20}N").unwrap_err();
        assert!(big.contains("size limit"), "{big}");
        assert!(super::compile(r"(?-u:\w){20}N").is_ok());
    }
}
