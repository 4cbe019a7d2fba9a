//! Payload deduplication: which payloads this crawl archived before, and where, for revisit
//! records. Workers ask before encoding (through a read-only [`DedupView`]), so a payload seen
//! before is encoded once, as a revisit, and never as a full response first; the engine, which
//! alone holds the [`Dedup`], records each first capture once it is appended, and stages it
//! with the records' commit.
//!
//! Two captures of the same new payload fetched at the same time both miss, and both are
//! archived in full: the engine keeps the first as the original and writes the other as it was
//! encoded, rather than encoding a record twice.

use super::CrawlError;
use crate::index::RevisitOf;
use crate::model::ExchangeInfo;
use crate::store::{Entry, Key, Store};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The first capture of a payload, as a revisit record names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Original {
    /// Its `WARC-Record-ID`.
    pub id: String,
    /// Its `WARC-Target-URI`.
    pub uri: String,
    /// Its `WARC-Date`.
    pub date: String,
}

impl From<Original> for RevisitOf {
    fn from(o: Original) -> RevisitOf {
        RevisitOf {
            record_id: o.id,
            url: o.uri,
            date: o.date,
        }
    }
}

/// The first captures the engine appended in this run, published to the workers as it
/// appends them.
type Appended = Arc<RwLock<HashMap<String, Original>>>;

/// The payloads archived by the crawl, as the engine records them: this run's in memory,
/// earlier runs' in the store. Only the engine holds one; workers get [`Dedup::view`].
pub struct Dedup {
    view: DedupView,
}

/// What the workers may ask of deduplication: a payload's first capture, never a change.
#[derive(Clone)]
pub struct DedupView {
    store: Store,
    appended: Appended,
}

impl Dedup {
    /// Deduplication over the crawl's store.
    pub fn new(store: Store) -> Dedup {
        Dedup {
            view: DedupView {
                store,
                appended: Arc::default(),
            },
        }
    }

    /// Whether an exchange's payload is deduplicated: complete 2xx responses only.
    pub fn applies_to(info: &ExchangeInfo) -> bool {
        (200..300).contains(&info.status) && info.truncated.is_none()
    }

    /// The read-only view the workers ask before encoding.
    pub fn view(&self) -> DedupView {
        self.view.clone()
    }

    /// The first capture of a payload appended in this run, without a store read: what a
    /// worker may have missed while it encoded.
    pub fn appended(&self, digest: &str) -> Option<Original> {
        self.view.appended(digest)
    }

    /// Records the first capture of a payload, just appended, and publishes it to the
    /// workers; returns the store key and value to commit with the records.
    pub fn first_capture(&self, digest: &str, o: Original) -> Result<Entry, CrawlError> {
        let v = super::state::to_json(&o, "a payload's first capture")?;
        self.view
            .appended
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(digest.to_string(), o);
        Ok((Key::FirstCapture(digest).bytes(), v))
    }
}

impl DedupView {
    /// The first capture of a payload archived before (`digest` as in `WARC-Payload-Digest`):
    /// appended in this run, or committed by an earlier one. A committed value that does not
    /// decode is an error naming it, never a miss.
    pub fn original(&self, digest: &str) -> Result<Option<Original>, CrawlError> {
        if let Some(o) = self.appended(digest) {
            return Ok(Some(o));
        }
        let Some(v) = self.store.get(&Key::FirstCapture(digest).bytes())? else {
            return Ok(None);
        };
        let o: Original = serde_json::from_slice(&v).map_err(|e| {
            self.store
                .damaged(format!("the first capture of payload {digest}: {e}"))
        })?;
        Ok(Some(o))
    }

    fn appended(&self, digest: &str) -> Option<Original> {
        let seen = self.appended.read().unwrap_or_else(|p| p.into_inner());
        seen.get(digest).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn original(id: &str) -> Original {
        Original {
            id: id.into(),
            uri: "http://a.example/".into(),
            date: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn a_first_capture_is_found_in_memory_then_from_the_store_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let d = Dedup::new(store.clone());
        let worker = d.view();
        assert_eq!(worker.original("sha1:A").unwrap(), None);
        let (k, v) = d.first_capture("sha1:A", original("<urn:uuid:1>")).unwrap();
        // Published to the workers at once, before the commit.
        assert_eq!(
            worker.original("sha1:A").unwrap(),
            Some(original("<urn:uuid:1>"))
        );
        let mut ws = crate::store::WriteSet::default();
        ws.put(k, v);
        store.commit(ws).unwrap();
        let again = Dedup::new(store);
        assert_eq!(again.appended("sha1:A"), None);
        assert_eq!(
            again.view().original("sha1:A").unwrap(),
            Some(original("<urn:uuid:1>"))
        );
    }

    #[test]
    fn a_stored_value_that_does_not_decode_is_an_error_naming_the_payload() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut ws = crate::store::WriteSet::default();
        ws.put(Key::FirstCapture("sha1:B").bytes(), b"{not json".to_vec());
        store.commit(ws).unwrap();
        let err = Dedup::new(store).view().original("sha1:B").unwrap_err();
        assert!(err.to_string().contains("sha1:B"), "{err}");
    }
}
