//! The scored-URL intake format (ARCOMEM §4.4): what external scorers send, how a request body
//! is read (one JSON object, an array, or NDJSON), and the report sent back.
//!
//! Reading is all-or-nothing for syntax: malformed JSON anywhere is an error naming the line
//! and column, and nothing of the body is applied. Well-formed items that are wrong in substance
//! (a score outside [0, 1], a missing score, an unknown crawl, a bad or out-of-scope URL, a
//! `source` that is not a short token, a `via` that is not an absolute http(s) URL, a control
//! character in any text field) are rejected one by one with their index and a reason that
//! names the field, and the others are applied.
//!
//! The text fields end up in the archive: `source` as `sourceTag` and `via` as `via` in the
//! capture's `application/warc-fields` metadata record, both as columns of `crawl.log`, and
//! `source` as a label of `/metrics`. A CR LF in one of them would add a forged field to the
//! record, an LF or a space would split or shift the log's columns, so they are checked here,
//! before anything is stored (the writers escape what still gets through, see `docs/warc.md`).

use serde::{Deserialize, Serialize};
use url::Url;

/// Longest `source`, in characters (all ASCII).
pub const MAX_SOURCE_LEN: usize = 64;

/// Longest `crawl_id`: a crawl's name has at most 64 characters (`spec::validate_name`).
pub const MAX_CRAWL_ID_LEN: usize = 64;

/// The source of items that name none.
pub const DEFAULT_SOURCE: &str = "intake";

/// Whether `s` can be a `source`: 1 to [`MAX_SOURCE_LEN`] characters of
/// `A-Z a-z 0-9 . _ : @ + -`.
///
/// A token, because the name is written unquoted into a WARC metadata field, a space-separated
/// `crawl.log` column and a Prometheus label: letters, digits and the punctuation of names such
/// as `classifier-v2`, `team:ranker`, `bot@example.org` or `model+rules_1.3`, nothing else.
pub fn is_source_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_SOURCE_LEN
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:@+-".contains(&b))
}

/// Refuses `value` if it holds a control character ([`crate::archive::is_control_char`]: C0,
/// DEL, C1, U+2028, U+2029): the reason names the field, the character and its position, and
/// never echoes the value.
///
/// The raw text is checked, before any parsing: the `url` crate silently drops tabs, CRs and
/// LFs inside a URL, which would hide them.
pub fn check_text(field: &str, value: &str) -> Result<(), String> {
    match value
        .char_indices()
        .find(|&(_, c)| crate::archive::is_control_char(c))
    {
        Some((at, c)) => Err(format!(
            "{field}: contains the control character U+{:04X} (at byte {at}); \
             control characters are never accepted",
            u32::from(c)
        )),
        None => Ok(()),
    }
}

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
    /// Who scored it, a short token ([`is_source_token`]); recorded with the URL and in the
    /// WARC metadata of its capture.
    #[serde(default)]
    pub source: Option<String>,
    /// The page it was found on, if known: an absolute http(s) URL.
    #[serde(default)]
    pub via: Option<String>,
}

/// An item that passed [`ScoredUrl::check`], in the form it is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The score; `None` for a blacklisting without one.
    pub score: Option<f32>,
    /// The URL, parsed (fragment dropped).
    pub url: Url,
    /// `via`, parsed; stored as its serialization, never as sent.
    pub via: Option<Url>,
}

impl ScoredUrl {
    /// The scorer's name, [`DEFAULT_SOURCE`] when none was given. Only meaningful for an item
    /// that passed [`ScoredUrl::check_fields`].
    pub fn source_name(&self) -> &str {
        self.source.as_deref().unwrap_or(DEFAULT_SOURCE)
    }

    /// The checks that need no crawl: no control character in `crawl_id`, `url`, `via` or
    /// `source`, a `crawl_id` no longer than a crawl name, no whitespace in `via`, and
    /// `source` a short token. The
    /// manager runs them before looking the crawl up, so a bad item is refused for what it is.
    pub fn check_fields(&self) -> Result<(), String> {
        check_text("crawl_id", &self.crawl_id)?;
        if self.crawl_id.len() > MAX_CRAWL_ID_LEN {
            return Err(format!(
                "crawl_id: {} bytes long; a crawl's name has at most {MAX_CRAWL_ID_LEN}",
                self.crawl_id.len()
            ));
        }
        check_text("url", &self.url)?;
        if let Some(via) = &self.via {
            check_text("via", via)?;
            // The parser would take `http://a/ WARC-Forged: 1` as a path with spaces; a URL
            // as a page names it has none, so a space here is a mistake or a forgery.
            if let Some(at) = via.find(char::is_whitespace) {
                return Err(format!(
                    "via: contains whitespace (at byte {at}); a URL has none: \
                     percent-encode it (a space is %20)"
                ));
            }
        }
        if let Some(source) = &self.source {
            check_text("source", source)?;
            if source.is_empty() {
                return Err(format!(
                    "source: empty; leave it out for {DEFAULT_SOURCE:?}"
                ));
            }
            if source.len() > MAX_SOURCE_LEN {
                return Err(format!(
                    "source: {} bytes long, over the limit of {MAX_SOURCE_LEN}",
                    source.len()
                ));
            }
            if !is_source_token(source) {
                return Err(
                    "source: must be a token of A-Z a-z 0-9 . _ : @ + - (no spaces)".into(),
                );
            }
        }
        Ok(())
    }

    /// Checks everything that can be checked without the crawl's frontier and scope:
    /// [`ScoredUrl::check_fields`], the score's presence and range, `url` and `via` absolute
    /// http(s) URLs of at most `max_url_len` bytes (the crawl's `limits.max_url_length`).
    pub fn check(&self, max_url_len: usize) -> Result<Checked, String> {
        self.check_fields()?;
        let score = match (self.score, self.blacklist) {
            (None, true) => None,
            (None, false) => return Err("score is required unless blacklist is true".into()),
            (Some(s), _) if !(0.0..=1.0).contains(&s) => {
                return Err(format!("score {s} is outside [0, 1]"))
            }
            (Some(s), _) => Some(s as f32),
        };
        let url = crate::uri::parse_absolute(&self.url, max_url_len)
            .map_err(|e| format!("bad URL: {e}"))?;
        no_credentials("url", &url)?;
        let via = match &self.via {
            None => None,
            Some(v) => {
                let via =
                    crate::uri::parse_absolute(v, max_url_len).map_err(|e| format!("via: {e}"))?;
                no_credentials("via", &via)?;
                Some(via)
            }
        };
        Ok(Checked { score, url, via })
    }
}

/// Refuses a URL that carries a user name or password: they would be written to the archive
/// and the crawl log, and every link relative to it would inherit them (the site crawled again
/// under the credentials).
fn no_credentials(field: &str, url: &url::Url) -> Result<(), String> {
    if url.username().is_empty() && url.password().is_none() {
        Ok(())
    } else {
        Err(format!(
            "{field}: a URL with a user name or password is not accepted (credentials never go \
             into a crawl's archive or log)"
        ))
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
    fn urls_with_credentials_are_refused() {
        let mut it = item(Some(0.5), false);
        it.url = "http://user:pass@a.example/x".into();
        assert!(it
            .check(2048)
            .unwrap_err()
            .starts_with("url: a URL with a user name"));
        it.url = "http://a.example/x".into();
        it.via = Some("http://user@a.example/".into());
        assert!(it
            .check(2048)
            .unwrap_err()
            .starts_with("via: a URL with a user name"));
        it.via = Some("http://a.example/".into());
        assert!(it.check(2048).is_ok());
    }

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

    fn item(score: Option<f64>, blacklist: bool) -> ScoredUrl {
        ScoredUrl {
            crawl_id: "c".into(),
            url: "http://a/".into(),
            score,
            blacklist,
            source: None,
            via: None,
        }
    }

    #[test]
    fn scores_are_checked() {
        let score = |i: ScoredUrl| i.check(2048).map(|c| c.score);
        assert_eq!(score(item(Some(0.3), false)), Ok(Some(0.3)));
        assert!(score(item(Some(1.5), false))
            .unwrap_err()
            .contains("outside [0, 1]"));
        assert!(score(item(Some(-0.1), false)).is_err());
        assert!(score(item(None, false)).is_err());
        assert_eq!(score(item(None, true)), Ok(None));
        assert_eq!(item(None, true).source_name(), "intake");
    }

    #[test]
    fn source_is_a_short_token() {
        let with = |s: &str| ScoredUrl {
            source: Some(s.into()),
            ..item(Some(0.5), false)
        };
        for ok in [
            "classifier-v2",
            "team:ranker",
            "bot@example.org",
            "m+r_1.3",
            "a",
        ] {
            assert_eq!(with(ok).check(2048).map(|_| ()), Ok(()), "{ok}");
            assert_eq!(with(ok).source_name(), ok);
        }
        assert!(with(&"s".repeat(MAX_SOURCE_LEN)).check(2048).is_ok());
        for bad in [
            String::new(),
            "two words".into(),
            "scorer\"".into(),
            "a/b".into(),
            "naïve".into(),
            "s".repeat(MAX_SOURCE_LEN + 1),
            "x".repeat(1 << 20),
        ] {
            let reason = with(&bad).check(2048).unwrap_err();
            assert!(reason.starts_with("source: "), "{bad:.40}: {reason}");
            assert!(reason.len() < 200, "the reason does not echo the value");
        }
    }

    #[test]
    fn control_characters_are_refused_in_every_text_field() {
        let forged = [
            "\r\nWARC-Forged: 1",
            "\n",
            "\0",
            "\t",
            "\x7f",
            "\u{85}",
            "\u{9f}",
            "\u{2028}",
            "\u{2029}",
        ];
        for bad in forged {
            let cases: [(&str, ScoredUrl); 4] = [
                (
                    "crawl_id",
                    ScoredUrl {
                        crawl_id: format!("c{bad}"),
                        ..item(Some(0.5), false)
                    },
                ),
                (
                    "url",
                    ScoredUrl {
                        // The `url` crate would drop a tab, CR or LF here without a word.
                        url: format!("http://a/x{bad}y"),
                        ..item(Some(0.5), false)
                    },
                ),
                (
                    "via",
                    ScoredUrl {
                        via: Some(format!("http://a/{bad}")),
                        ..item(Some(0.5), false)
                    },
                ),
                (
                    "source",
                    ScoredUrl {
                        source: Some(format!("s{bad}")),
                        ..item(Some(0.5), false)
                    },
                ),
            ];
            for (field, it) in cases {
                let reason = it.check(2048).unwrap_err();
                assert!(
                    reason.starts_with(&format!("{field}: contains the control character U+")),
                    "{field} with {bad:?}: {reason}"
                );
                assert!(!reason.contains("Forged"), "{reason}");
                assert_eq!(it.check_fields(), Err(reason));
            }
        }
        // Spaces, quotes and non-ASCII letters are not control characters.
        assert!(check_text("x", "a b \"c\" é ✓").is_ok());
        let long_id = ScoredUrl {
            crawl_id: "c".repeat(MAX_CRAWL_ID_LEN + 1),
            ..item(Some(0.5), false)
        };
        assert!(long_id
            .check_fields()
            .unwrap_err()
            .starts_with("crawl_id: "));
    }

    #[test]
    fn via_is_an_absolute_http_url_stored_serialized() {
        let with = |v: &str| ScoredUrl {
            via: Some(v.into()),
            ..item(Some(0.5), false)
        };
        let checked = with("HTTP://Example.ORG:80/a/../b?q=é#frag")
            .check(2048)
            .unwrap();
        assert_eq!(
            checked.via.map(|v| v.to_string()),
            Some("http://example.org/b?q=%C3%A9".to_string())
        );
        assert_eq!(item(Some(0.5), false).check(2048).unwrap().via, None);
        for bad in [
            "",
            "not a url",
            "/relative",
            "ftp://a/",
            "mailto:a@b",
            "http://a/ WARC-Forged: 1",
            " http://a/",
            "http://a/\u{a0}",
        ] {
            let reason = with(bad).check(2048).unwrap_err();
            assert!(reason.starts_with("via: "), "{bad:?}: {reason}");
        }
        let long = format!("http://a/{}", "x".repeat(100));
        assert!(with(&long).check(2048).is_ok());
        let reason = with(&long).check(64).unwrap_err();
        assert!(
            reason.starts_with("via: ") && reason.contains("over the limit of 64"),
            "{reason}"
        );
    }
}
