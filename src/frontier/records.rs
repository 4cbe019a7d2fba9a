//! The bodies of URL records in `urls.dat`: a URL as queued, and the patch a rescore leaves.
//!
//! A URL's record is written once, when it is queued (and again only when a retry changes it).
//! A rescore changes its priority and score totals, which memory holds, and the fields the
//! scorer brings (who scored it, the breakdown, the best inherited score, a `via` if it had
//! none): those go into a small patch record pointing at the URL's record. Each rescore
//! replaces the patch (merging the previous one), so handing a URL out reads at most two
//! records.

use super::keys::{encode_uri_into, put_str, Reader};
use crate::model::{CrawlUri, ScoreParts};

/// Record kinds, part of the log's format (not tunables): a whole URL record.
const BASE: u8 = 1;
/// A patch of the fields that changed.
const PATCH: u8 = 2;

/// A decoded record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A URL as queued.
    Base {
        /// Its record id.
        rid: u32,
        /// Its fingerprint.
        fp: u64,
        /// The URL.
        uri: CrawlUri,
    },
    /// The fields of its latest rescores.
    Patch(Patch),
}

/// What rescores changed beyond priority and totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    /// Record id of the URL.
    pub rid: u32,
    /// Offset of the URL's record.
    pub base: u64,
    /// Who scored it last.
    pub source: String,
    /// The first page a rescore said it was found on.
    pub via: Option<String>,
    /// The best inherited score of the rescores.
    pub inherited: f32,
    /// The breakdown of the latest analysis score.
    pub parts: Option<ScoreParts>,
}

impl Patch {
    /// The first patch of the URL whose record is at `base` (as [`first_patch`] encodes it).
    #[cfg(test)]
    pub fn new(rid: u32, base: u64, from: &CrawlUri) -> Patch {
        Patch {
            rid,
            base,
            source: from.source.clone(),
            via: from.via.clone(),
            inherited: from.inherited,
            parts: from.parts,
        }
    }

    /// Takes in one more rescore.
    pub fn absorb(&mut self, from: &CrawlUri) {
        self.source.clone_from(&from.source);
        if self.via.is_none() {
            self.via.clone_from(&from.via);
        }
        self.inherited = self.inherited.max(from.inherited);
        if from.parts.is_some() {
            self.parts = from.parts;
        }
    }

    /// Applies the patch to the URL as queued.
    pub fn apply(&self, uri: &mut CrawlUri) {
        uri.source.clone_from(&self.source);
        if uri.via.is_none() {
            uri.via.clone_from(&self.via);
        }
        uri.inherited = uri.inherited.max(self.inherited);
        if self.parts.is_some() {
            uri.parts = self.parts;
        }
    }
}

/// Encodes a URL's record.
pub fn base(v: &mut Vec<u8>, rid: u32, fp: u64, uri: &CrawlUri) {
    v.push(BASE);
    v.extend_from_slice(&rid.to_le_bytes());
    v.extend_from_slice(&fp.to_le_bytes());
    encode_uri_into(v, uri);
}

/// Encodes a patch.
pub fn patch(v: &mut Vec<u8>, p: &Patch) {
    patch_fields(
        v,
        p.rid,
        p.base,
        &p.source,
        p.via.as_deref(),
        p.inherited,
        p.parts,
    );
}

/// Encodes the first patch of a URL, [`Patch::new`] without building it (`via` is the
/// scorer's, or `None` when the URL's record has one, which wins anyway).
pub fn first_patch(v: &mut Vec<u8>, rid: u32, base: u64, from: &CrawlUri, via: Option<&str>) {
    patch_fields(v, rid, base, &from.source, via, from.inherited, from.parts);
}

fn patch_fields(
    v: &mut Vec<u8>,
    rid: u32,
    base: u64,
    source: &str,
    via: Option<&str>,
    inherited: f32,
    parts: Option<ScoreParts>,
) {
    v.push(PATCH);
    v.extend_from_slice(&rid.to_le_bytes());
    v.extend_from_slice(&base.to_le_bytes());
    put_str(v, source);
    match via {
        Some(s) => {
            v.push(1);
            put_str(v, s);
        }
        None => v.push(0),
    }
    v.extend_from_slice(&inherited.to_le_bytes());
    match parts {
        Some(parts) => {
            v.push(1);
            for x in parts.to_array() {
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        None => v.push(0),
    }
}

/// Decodes a record; `None` for bytes magpie never wrote.
pub fn decode(bytes: &[u8]) -> Option<Record> {
    let mut r = Reader(bytes);
    let tag = r.byte()?;
    let rid = u32::from_le_bytes(r.take(4)?.try_into().ok()?);
    let word = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
    match tag {
        BASE => Some(Record::Base {
            rid,
            fp: word,
            uri: super::keys::decode_uri(r.0)?,
        }),
        PATCH => {
            let source = r.string()?;
            let via = match r.byte()? {
                0 => None,
                1 => Some(r.string()?),
                _ => return None,
            };
            let inherited = r.f32()?;
            let parts = match r.byte()? {
                0 => None,
                1 => {
                    let mut a = [0f32; 6];
                    for x in &mut a {
                        *x = r.f32()?;
                    }
                    Some(ScoreParts::from_array(a))
                }
                _ => return None,
            };
            r.0.is_empty().then_some(Record::Patch(Patch {
                rid,
                base: word,
                source,
                via,
                inherited,
                parts,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_patches_merge_like_successive_rescores() {
        let mut u = CrawlUri::seed("http://a/x");
        u.inherited = 0.3;
        let mut b = Vec::new();
        base(&mut b, 9, 77, &u);
        assert_eq!(
            decode(&b),
            Some(Record::Base {
                rid: 9,
                fp: 77,
                uri: u.clone()
            })
        );
        let from = |source: &str, via: Option<&str>, inherited: f32, total: Option<f32>| CrawlUri {
            source: source.into(),
            via: via.map(String::from),
            inherited,
            parts: total.map(|total| ScoreParts {
                total,
                ..Default::default()
            }),
            ..CrawlUri::seed("http://a/x")
        };
        let first = from("link", Some("http://a/1"), 0.1, Some(0.5));
        let mut p = Patch::new(9, 1234, &first);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        first_patch(&mut a, 9, 1234, &first, first.via.as_deref());
        patch(&mut b, &p);
        assert_eq!(a, b, "both encodings agree");
        p.absorb(&from("api:x", Some("http://a/2"), 0.6, None));
        let mut bytes = Vec::new();
        patch(&mut bytes, &p);
        assert_eq!(decode(&bytes), Some(Record::Patch(p.clone())));
        p.apply(&mut u);
        assert_eq!(u.source, "api:x", "the latest scorer");
        assert_eq!(u.via.as_deref(), Some("http://a/1"), "the first via");
        assert_eq!(u.inherited, 0.6, "the best inheritance");
        assert_eq!(u.parts.map(|p| p.total), Some(0.5), "the latest breakdown");
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        assert_eq!(decode(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
