//! Running totals over the crawl log's lines (per host, media type and status), bounded in
//! the groups they keep, for the cockpit's reports.

use super::{status_class, Entry, MAX_HOSTS, MAX_MIMES, MAX_STATUSES, OTHER};
use serde::Serialize;
use std::collections::HashMap;

/// Lines and bytes of one group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Tally {
    /// Lines.
    pub lines: u64,
    /// Bytes received (responses only).
    pub bytes: u64,
}

/// One host's lines, by what they say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HostTally {
    /// Responses received (any HTTP status).
    pub responses: u64,
    /// Their bytes, as received.
    pub bytes: u64,
    /// Responses by class.
    #[serde(rename = "2xx")]
    pub s2xx: u64,
    /// Redirects.
    #[serde(rename = "3xx")]
    pub s3xx: u64,
    /// Client errors.
    #[serde(rename = "4xx")]
    pub s4xx: u64,
    /// Server errors.
    #[serde(rename = "5xx")]
    pub s5xx: u64,
    /// Other statuses (1xx, or over 599).
    pub other: u64,
    /// Fetches that got no answer (DNS, connection, timeout...) and URLs given up (`-61`).
    pub failed: u64,
    /// URLs refused before any fetch (robots.txt, scope, blacklist, private address).
    pub refused: u64,
}

/// What the whole log says, added up: per host, per media type and per status code.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    /// Lines read.
    pub lines: u64,
    /// Lines that could not be read (too long, not twelve columns).
    pub unreadable: u64,
    /// Per host key ([`OTHER`] beyond [`MAX_HOSTS`]).
    pub hosts: HashMap<String, HostTally>,
    /// Responses per media type, lowercased (`(none)` without one).
    pub mimes: HashMap<String, Tally>,
    /// Lines per status code, negative codes included.
    pub statuses: HashMap<i32, Tally>,
}

/// The entry of `key`, or of `other` once `max` keys are counted: a log naming millions of
/// hosts must not hold millions of entries.
fn slot<K: std::hash::Hash + Eq, V: Default>(
    map: &mut HashMap<K, V>,
    key: K,
    other: K,
    max: usize,
) -> &mut V {
    let key = if map.len() >= max && !map.contains_key(&key) {
        other
    } else {
        key
    };
    map.entry(key).or_default()
}

impl Totals {
    /// Counts one visited line.
    pub fn add(&mut self, text: Option<&str>) {
        self.lines += 1;
        let Some(e) = text.and_then(Entry::parse) else {
            self.unreadable += 1;
            return;
        };
        let bytes = if e.status > 0 { e.size.unwrap_or(0) } else { 0 };
        let host = e.host().unwrap_or_else(|| "(unparsable URL)".into());
        let h = slot(&mut self.hosts, host, OTHER.to_string(), MAX_HOSTS);
        match status_class(e.status) {
            "2xx" => h.s2xx += 1,
            "3xx" => h.s3xx += 1,
            "4xx" => h.s4xx += 1,
            "5xx" => h.s5xx += 1,
            "refused" => h.refused += 1,
            "failed" => h.failed += 1,
            _ => h.other += 1,
        }
        if e.status > 0 {
            h.responses += 1;
            h.bytes += bytes;
            let m = slot(&mut self.mimes, e.mime_key(), OTHER.to_string(), MAX_MIMES);
            m.lines += 1;
            m.bytes += bytes;
        }
        let s = slot(&mut self.statuses, e.status, i32::MIN, MAX_STATUSES);
        s.lines += 1;
        s.bytes += bytes;
    }
}
