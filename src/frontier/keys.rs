//! The stored form of priorities and URL states, and the compact encoding of a queued URL (the
//! body of its record in the frontier's `urls.dat`). The store's keys are named in
//! `store/keys.rs`.

use crate::model::CrawlUri;

/// Priorities are stored with this many steps in [0, 1].
const PRIORITY_SCALE: f32 = 1_000_000_000.0;

/// Where a URL is in its life.
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

/// A priority as stored: inverted, so that the best sorts first.
pub fn inverted(priority: f32) -> u32 {
    let p = (priority.clamp(0.0, 1.0) * PRIORITY_SCALE) as u32;
    PRIORITY_SCALE as u32 - p
}

/// First byte of the binary encoding of a queued URL. Older crawl state holds JSON, which
/// starts with `{`, so both can be told apart and old queues still load.
const URI_BINARY: u8 = 1;

/// Appends the compact binary form of a queued URL: a tag byte, then `url`, `hops`, `via`
/// (presence byte), `priority` (f32 LE), `source`, `discovered`, `retries`, `scores` and
/// `score_sum` (f32 LE); strings are length-prefixed and integers LEB128 varints. It is about
/// half the size of JSON and much cheaper to read and write on the per-page path.
pub fn encode_uri_into(v: &mut Vec<u8>, uri: &CrawlUri) {
    let via = uri.via.as_deref();
    v.reserve(24 + uri.url.len() + uri.hops.len() + uri.source.len() + via.map_or(0, str::len));
    v.push(URI_BINARY);
    put_str(v, &uri.url);
    put_str(v, &uri.hops);
    match via {
        Some(s) => {
            v.push(1);
            put_str(v, s);
        }
        None => v.push(0),
    }
    v.extend_from_slice(&uri.priority.to_le_bytes());
    put_str(v, &uri.source);
    put_varint(v, u64::from(uri.discovered));
    v.push(uri.retries);
    put_varint(v, u64::from(uri.scores));
    v.extend_from_slice(&uri.score_sum.to_le_bytes());
    // Optional tail (absent in entries written before it existed): `inherited`, then a
    // presence byte and the six score parts.
    if uri.inherited != 0.0 || uri.parts.is_some() {
        v.extend_from_slice(&uri.inherited.to_le_bytes());
        match uri.parts {
            Some(p) => {
                v.push(1);
                for x in p.to_array() {
                    v.extend_from_slice(&x.to_le_bytes());
                }
            }
            None => v.push(0),
        }
    }
}

/// Decodes a queued URL (binary or the older JSON); `None` for a damaged value.
pub fn decode_uri(bytes: &[u8]) -> Option<CrawlUri> {
    match bytes.first()? {
        &URI_BINARY => {
            let mut r = Reader(&bytes[1..]);
            let mut uri = CrawlUri {
                url: r.string()?,
                hops: r.string()?,
                via: match r.byte()? {
                    0 => None,
                    1 => Some(r.string()?),
                    _ => return None,
                },
                priority: r.f32()?,
                source: r.string()?,
                discovered: u32::try_from(r.varint()?).ok()?,
                retries: r.byte()?,
                scores: u32::try_from(r.varint()?).ok()?,
                score_sum: r.f32()?,
                inherited: 0.0,
                parts: None,
            };
            if !r.0.is_empty() {
                uri.inherited = r.f32()?;
                if r.byte()? == 1 {
                    let mut a = [0f32; 6];
                    for x in &mut a {
                        *x = r.f32()?;
                    }
                    uri.parts = Some(crate::model::ScoreParts::from_array(a));
                }
            }
            r.0.is_empty().then_some(uri)
        }
        b'{' => serde_json::from_slice(bytes).ok(),
        _ => None,
    }
}

pub(super) fn put_varint(v: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        v.push(n as u8 | 0x80);
        n >>= 7;
    }
    v.push(n as u8);
}

pub(super) fn put_str(v: &mut Vec<u8>, s: &str) {
    put_varint(v, s.len() as u64);
    v.extend_from_slice(s.as_bytes());
}

/// A cursor over an encoded value; every read fails cleanly past the end.
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl Reader<'_> {
    pub(super) fn take(&mut self, n: usize) -> Option<&[u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    pub(super) fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub(super) fn varint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(n);
            }
        }
        None
    }

    pub(super) fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(super) fn string(&mut self) -> Option<String> {
        let n = usize::try_from(self.varint()?).ok()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_urls_round_trip_and_old_json_entries_still_load() {
        let mut u = CrawlUri::seed("https://example.org/\u{e9}t\u{e9}?q=1");
        let plain = u.clone();
        u.hops = "LLE".into();
        u.via = Some("https://example.org/".into());
        u.priority = 0.375;
        u.discovered = 300;
        u.retries = 2;
        u.scores = 70_000;
        u.score_sum = 12.5;
        for uri in [plain, u.clone()] {
            let mut bytes = Vec::new();
            encode_uri_into(&mut bytes, &uri);
            assert_eq!(decode_uri(&bytes), Some(uri.clone()));
            assert!(bytes.len() < serde_json::to_vec(&uri).unwrap().len() / 2 + 16);
        }
        let json = serde_json::to_vec(&u).unwrap();
        assert_eq!(decode_uri(&json), Some(u.clone()));
        let mut bytes = Vec::new();
        encode_uri_into(&mut bytes, &u);
        for cut in 0..bytes.len() {
            assert_eq!(decode_uri(&bytes[..cut]), None, "truncated at {cut}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(decode_uri(&long), None, "trailing bytes are damage");
        assert_eq!(decode_uri(&[9, 1, 2]), None, "unknown tag");
    }
}
