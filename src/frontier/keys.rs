//! The frontier's key scheme in the store (after Adaptive Heritrix, ARCOMEM section 4.4).
//!
//! - `q` host `\0` inverted-priority(u32 BE) seq(u64 BE) → the queued [`CrawlUri`]. Keys sort by
//!   host, then highest priority, then discovery order, so a prefix scan yields the next URL of a
//!   host, and changing a priority is "delete the old key, insert the new one".
//! - `s` fingerprint(u64 BE) → state byte, then the `q` key while queued (the map from a URL to
//!   its queue entry that makes priorities updatable in place).
//! - `h` host → per-host counters (JSON).
//! - `m` name → crawl-level metadata (JSON): sequence counter, WARC checkpoint, statistics.
//! - `d` payload digest → the first capture of that payload (JSON), for revisit records.

use crate::model::CrawlUri;

/// Priorities are stored with this many steps in [0, 1].
const PRIORITY_SCALE: f32 = 1_000_000_000.0;

/// Where a URL is in its life; stored as one byte under `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum UrlState {
    /// Waiting in a host queue (or leased to a fetch).
    Queued = 1,
    /// Fetched and archived (whatever the HTTP status).
    Done = 2,
    /// Given up on after retries, or refused by the network policy.
    Failed = 3,
    /// Disallowed by robots.txt.
    RobotsBlocked = 4,
    /// Blacklisted: never to be fetched in this crawl.
    Blacklisted = 5,
}

impl UrlState {
    /// Decodes the stored byte.
    pub fn from_byte(b: u8) -> Option<UrlState> {
        Some(match b {
            1 => UrlState::Queued,
            2 => UrlState::Done,
            3 => UrlState::Failed,
            4 => UrlState::RobotsBlocked,
            5 => UrlState::Blacklisted,
            _ => return None,
        })
    }
}

/// The `q` key of a queued URL.
pub fn queue_key(host: &str, priority: f32, seq: u64) -> Vec<u8> {
    let p = (priority.clamp(0.0, 1.0) * PRIORITY_SCALE) as u32;
    let inv = PRIORITY_SCALE as u32 - p;
    let mut k = Vec::with_capacity(host.len() + 14);
    k.push(b'q');
    k.extend_from_slice(host.as_bytes());
    k.push(0);
    k.extend_from_slice(&inv.to_be_bytes());
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// The scan prefix of one host's queue.
pub fn host_prefix(host: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(host.len() + 2);
    k.push(b'q');
    k.extend_from_slice(host.as_bytes());
    k.push(0);
    k
}

/// The host part of a `q` key.
pub fn host_of_queue_key(key: &[u8]) -> Option<&str> {
    let rest = key.strip_prefix(b"q")?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// The `s` key of a fingerprint.
pub fn seen_key(fp: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(9);
    k.push(b's');
    k.extend_from_slice(&fp.to_be_bytes());
    k
}

/// The `s` value: state, then the queue key while queued.
pub fn seen_value(state: UrlState, queue_key: Option<&[u8]>) -> Vec<u8> {
    let mut v = vec![state as u8];
    if let Some(q) = queue_key {
        v.extend_from_slice(q);
    }
    v
}

/// The `h` key of a host.
pub fn host_key(host: &str) -> Vec<u8> {
    [b"h", host.as_bytes()].concat()
}

/// The `m` key of a metadata entry.
pub fn meta_key(name: &str) -> Vec<u8> {
    [b"m", name.as_bytes()].concat()
}

/// The `d` key of a payload digest.
pub fn digest_key(digest: &str) -> Vec<u8> {
    [b"d", digest.as_bytes()].concat()
}

/// Encodes a queued URL.
pub fn encode_uri(uri: &CrawlUri) -> Vec<u8> {
    serde_json::to_vec(uri).unwrap_or_default()
}

/// Decodes a queued URL; `None` for a damaged value.
pub fn decode_uri(bytes: &[u8]) -> Option<CrawlUri> {
    serde_json::from_slice(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_keys_sort_by_host_then_priority_then_sequence() {
        let mut keys = [
            queue_key("b.org", 0.9, 1),
            queue_key("a.org", 0.2, 2),
            queue_key("a.org", 0.8, 9),
            queue_key("a.org", 0.8, 3),
            queue_key("a.org", 1.0, 7),
        ];
        keys.sort();
        let order: Vec<u64> = keys
            .iter()
            .map(|k| u64::from_be_bytes(k[k.len() - 8..].try_into().unwrap()))
            .collect();
        assert_eq!(order, vec![7, 3, 9, 2, 1]);
        assert_eq!(host_of_queue_key(&keys[4]), Some("b.org"));
        assert!(keys[0].starts_with(&host_prefix("a.org")));
        assert!(!keys[0].starts_with(&host_prefix("a.or")));
    }
}
