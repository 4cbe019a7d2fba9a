//! The scored-URL intake format (ARCOMEM §4.4): what external scorers send, how a request body
//! is read (one JSON object, an array, or NDJSON), and the report sent back.
//!
//! Reading is all-or-nothing for syntax: malformed JSON anywhere is an error naming the line
//! and column, and nothing of the body is applied. Well-formed items that are wrong in substance
//! (a score outside [0, 1], a missing score, an unknown crawl, a bad or out-of-scope URL) are
//! rejected one by one with their index and reason, and the others are applied.

use serde::{Deserialize, Serialize};

/// One scored URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoredUrl {
    /// The crawl it is for (the spec's `name`).
    pub crawl_id: String,
    /// Absolute http(s) URL.
    pub url: String,
    /// Priority in [0, 1]; required unless `blacklist` is true.
    #[serde(default)]
    pub score: Option<f64>,
    /// Remove the URL from the queue and never fetch it in this crawl.
    #[serde(default)]
    pub blacklist: bool,
    /// Who scored it; recorded with the URL and in the WARC metadata of its capture.
    #[serde(default)]
    pub source: Option<String>,
    /// The page it was found on, if known.
    #[serde(default)]
    pub via: Option<String>,
}

impl ScoredUrl {
    /// The scorer's name, `intake` when none was given.
    pub fn source_name(&self) -> &str {
        self.source
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or("intake")
    }

    /// Checks what can be checked without the crawl: the score's presence and range.
    pub fn check(&self) -> Result<Option<f32>, String> {
        match (self.score, self.blacklist) {
            (None, true) => Ok(None),
            (None, false) => Err("score is required unless blacklist is true".into()),
            (Some(s), _) if !(0.0..=1.0).contains(&s) => {
                Err(format!("score {s} is outside [0, 1]"))
            }
            (Some(s), _) => Ok(Some(s as f32)),
        }
    }
}

/// A body that is not valid intake JSON.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BodyError {
    /// Malformed JSON, or an item of the wrong shape.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line in the body.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Nothing to read.
    #[error("empty body")]
    Empty,
}

/// Reads a request body: NDJSON when `ndjson`, else one object or an array of objects.
pub fn read_body(body: &[u8], ndjson: bool) -> Result<Vec<ScoredUrl>, BodyError> {
    let text = std::str::from_utf8(body).map_err(|e| BodyError::Json {
        line: 1 + body[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        column: 1,
        message: "not UTF-8".into(),
    })?;
    if text.trim().is_empty() {
        return Err(BodyError::Empty);
    }
    if ndjson {
        let mut items = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let item = serde_json::from_str(line).map_err(|e| BodyError::Json {
                line: i + 1,
                column: e.column(),
                message: strip_position(&e.to_string()),
            })?;
            items.push(item);
        }
        return Ok(items);
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<ScoredUrl>),
        One(ScoredUrl),
    }
    // Parse twice only on error, to report the real position instead of serde's untagged message.
    match serde_json::from_str::<OneOrMany>(text) {
        Ok(OneOrMany::Many(v)) => Ok(v),
        Ok(OneOrMany::One(o)) => Ok(vec![o]),
        Err(_) => {
            let starts_array = text.trim_start().starts_with('[');
            let e = if starts_array {
                serde_json::from_str::<Vec<ScoredUrl>>(text).err()
            } else {
                serde_json::from_str::<ScoredUrl>(text).err()
            };
            let e = e.unwrap_or_else(|| serde_json::from_str::<ScoredUrl>("").unwrap_err());
            Err(BodyError::Json {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            })
        }
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// One rejected item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rejected {
    /// Its 0-based index in the body.
    pub index: usize,
    /// Why.
    pub reason: String,
}

/// What an intake request did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntakeReport {
    /// Items received.
    pub received: usize,
    /// New URLs queued.
    pub inserted: usize,
    /// Queued URLs whose priority was updated.
    pub updated: usize,
    /// URLs blacklisted.
    pub blacklisted: usize,
    /// Items accepted but without effect (already fetched, in flight).
    pub ignored: usize,
    /// Items rejected, with their index and reason.
    pub rejected: Vec<Rejected>,
}

impl IntakeReport {
    /// Adds another report's counts (items of several crawls in one body).
    pub fn merge(&mut self, other: IntakeReport) {
        self.inserted += other.inserted;
        self.updated += other.updated;
        self.blacklisted += other.blacklisted;
        self.ignored += other.ignored;
        self.rejected.extend(other.rejected);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_object_array_and_ndjson() {
        let one = br#"{"crawl_id":"c","url":"http://a/","score":0.5}"#;
        assert_eq!(read_body(one, false).unwrap().len(), 1);
        let many = br#"[{"crawl_id":"c","url":"http://a/","score":0.5},{"crawl_id":"c","url":"http://b/","blacklist":true}]"#;
        assert_eq!(read_body(many, false).unwrap().len(), 2);
        let nd = b"{\"crawl_id\":\"c\",\"url\":\"http://a/\",\"score\":1}\n\n{\"crawl_id\":\"c\",\"url\":\"http://b/\",\"score\":0}\n";
        assert_eq!(read_body(nd, true).unwrap().len(), 2);
    }

    #[test]
    fn malformed_bodies_name_the_line() {
        let nd =
            b"{\"crawl_id\":\"c\",\"url\":\"http://a/\",\"score\":1}\n{\"crawl_id\":\"c\",\"url\":";
        match read_body(nd, true) {
            Err(BodyError::Json { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
        let arr = b"[\n{\"crawl_id\":\"c\",\"url\":\"http://a/\",\"score\":\"high\"}\n]";
        let err = read_body(arr, false).unwrap_err().to_string();
        assert!(
            err.starts_with("line 2,") && err.contains("invalid type"),
            "{err}"
        );
        let unknown = br#"{"crawl_id":"c","url":"http://a/","score":1,"bogus":1}"#;
        assert!(read_body(unknown, false)
            .unwrap_err()
            .to_string()
            .contains("unknown field `bogus`"));
        assert_eq!(read_body(b"  ", false), Err(BodyError::Empty));
    }

    #[test]
    fn scores_are_checked() {
        let item = |score: Option<f64>, blacklist| ScoredUrl {
            crawl_id: "c".into(),
            url: "http://a/".into(),
            score,
            blacklist,
            source: None,
            via: None,
        };
        assert_eq!(item(Some(0.3), false).check(), Ok(Some(0.3)));
        assert!(item(Some(1.5), false)
            .check()
            .unwrap_err()
            .contains("outside [0, 1]"));
        assert!(item(Some(-0.1), false).check().is_err());
        assert!(item(None, false).check().is_err());
        assert_eq!(item(None, true).check(), Ok(None));
        assert_eq!(item(None, true).source_name(), "intake");
    }
}
