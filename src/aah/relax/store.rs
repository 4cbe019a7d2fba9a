//! The helper's durable state in the crawl store (the only sled user is `crate::store`): adopted
//! relaxations, per host and application, and the content captured from terminal pages so a
//! recrawl can relearn actions a template change broke.
//!
//! Its keys (`store/keys.rs`): `Key::Adoption` → [`Adoption`] (JSON), `Key::Captured` →
//! [`Captured`] (JSON), `Key::HostApp` → the id of the application detected on the host.
//!
//! Nothing here writes: adoptions, captures and host applications become store entries that the
//! reading of a page returns with it (`Helper::read_doc`'s `Reading::learned`), and the crawl
//! engine commits them with that page, so they are durable together with the pages they came
//! from. Until then the helper's memory of the host holds them (a host evicted from that memory
//! before the commit is read back from here without them).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::aah::error::AahError;
use crate::store::{Entry, Family, Key, Store};

/// A relaxed expression adopted for one action of one application on one host, with the
/// evidence that justified it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adoption {
    /// Host (as `uri::host_key`).
    pub host: String,
    /// Application id.
    pub application: String,
    /// Level id the action belongs to (for detection: the level detected).
    pub level: String,
    /// Action id: `level/object/field`, `level/object`, `level/rule`, `*/rule` or
    /// `level/detect`.
    pub action: String,
    /// The knowledge-base expression that failed.
    pub original: String,
    /// The expression adopted instead.
    pub relaxed: String,
    /// How the candidate was found: `relaxation` (generated and tested), `relearn` (aligned with
    /// content captured on an earlier crawl) or `detection` (a relaxed detection pattern).
    pub source: String,
    /// Pages on which the candidate worked before adoption, first the page it was found on.
    pub validated_on: Vec<String>,
    /// When it was adopted (RFC 3339, UTC).
    pub adopted_at: String,
}

/// Field values captured from one terminal page: action id (`level/object/field`) → the values
/// of the first objects (prefixes of at most [`CAPTURE_BYTES`] bytes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Captured {
    /// Application id.
    pub application: String,
    /// Level id.
    pub level: String,
    /// Values per action (prefixes of at most [`CAPTURE_BYTES`] bytes).
    pub fields: BTreeMap<String, Vec<String>>,
    /// Full byte length of each value, so a prefix can be told from a longer text.
    #[serde(default)]
    pub lengths: BTreeMap<String, Vec<usize>>,
}

/// Longest captured value prefix.
pub(crate) const CAPTURE_BYTES: usize = 256;

/// Objects whose values are captured per action.
pub(crate) const CAPTURE_OBJECTS: usize = 4;

/// Typed access to the helper's keys in the crawl store.
pub(crate) struct RelaxStore {
    store: Store,
}

/// A key as errors name it (its parts are separated by NUL bytes).
fn printable(k: &[u8]) -> String {
    String::from_utf8_lossy(k).replace('\0', "/")
}

fn decode<T: for<'de> Deserialize<'de>>(k: &[u8], v: &[u8]) -> Result<T, AahError> {
    serde_json::from_slice(v).map_err(|e| AahError::Record {
        key: printable(k),
        reason: e.to_string(),
    })
}

/// A record's bytes; one that does not serialise is an error naming its key, never an empty
/// record.
fn encode<T: Serialize>(k: &[u8], v: &T) -> Result<Vec<u8>, AahError> {
    serde_json::to_vec(v).map_err(|e| AahError::Record {
        key: printable(k),
        reason: e.to_string(),
    })
}

impl RelaxStore {
    pub(crate) fn new(store: Store) -> RelaxStore {
        RelaxStore { store }
    }

    /// The store entry of an adoption.
    pub(crate) fn adoption_entry(a: &Adoption) -> Result<Entry, AahError> {
        let k = Key::Adoption {
            host: &a.host,
            application: &a.application,
            action: &a.action,
        }
        .bytes();
        let v = encode(&k, a)?;
        Ok((k, v))
    }

    /// Adoptions of one host (all applications), or of every host.
    pub(crate) fn adoptions(&self, host: Option<&str>) -> Result<Vec<Adoption>, AahError> {
        let prefix = Family::Adoptions(host).prefix();
        let mut found = Vec::new();
        self.store
            .for_each(&prefix, |k, v| found.push(decode::<Adoption>(k, v)))?;
        found.into_iter().collect()
    }

    /// The store entry of the content captured from a page.
    pub(crate) fn capture_entry(host: &str, url: &str, c: &Captured) -> Result<Entry, AahError> {
        let k = Key::Captured { host, url }.bytes();
        let v = encode(&k, c)?;
        Ok((k, v))
    }

    /// The store entry of the application detected on a host.
    pub(crate) fn app_entry(host: &str, app: &str) -> Entry {
        (Key::HostApp(host).bytes(), app.as_bytes().to_vec())
    }

    /// The application detected on a host, as committed.
    pub(crate) fn app(&self, host: &str) -> Result<Option<String>, AahError> {
        let k = Key::HostApp(host).bytes();
        self.read(&k)?
            .map(|v| {
                String::from_utf8(v).map_err(|e| AahError::Record {
                    key: printable(&k),
                    reason: e.to_string(),
                })
            })
            .transpose()
    }

    fn read(&self, k: &[u8]) -> Result<Option<Vec<u8>>, AahError> {
        Ok(self.store.get(k)?)
    }

    /// Content captured from a page on an earlier visit, as committed.
    pub(crate) fn captured(&self, host: &str, url: &str) -> Result<Option<Captured>, AahError> {
        let k = Key::Captured { host, url }.bytes();
        self.read(&k)?.map(|v| decode(&k, &v)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::WriteSet;

    fn adoption(host: &str, action: &str) -> Adoption {
        Adoption {
            host: host.into(),
            application: "phpbb".into(),
            level: "topic".into(),
            action: action.into(),
            original: "//div".into(),
            relaxed: "//*".into(),
            source: "relaxation".into(),
            validated_on: vec![],
            adopted_at: "2026-11-27T00:00:00Z".into(),
        }
    }

    #[test]
    fn entries_are_read_back_once_the_caller_commits_them() {
        let store = Store::temporary().unwrap();
        let rs = RelaxStore::new(store.clone());
        let mut ws = crate::store::WriteSet::default();
        let (k, v) = RelaxStore::adoption_entry(&adoption("a.test", "body")).unwrap();
        ws.put(k, v);
        let (k, v) = RelaxStore::app_entry("a.test", "phpbb");
        ws.put(k, v);
        assert!(rs.adoptions(Some("a.test")).unwrap().is_empty());
        assert_eq!(rs.app("a.test").unwrap(), None, "nothing committed");
        store.commit(ws).unwrap();
        let again = RelaxStore::new(store);
        assert_eq!(
            again.adoptions(None).unwrap(),
            vec![adoption("a.test", "body")]
        );
        assert_eq!(again.app("a.test").unwrap().as_deref(), Some("phpbb"));
    }

    /// Refuses to serialise, as a type with a map keyed by non-strings would.
    struct Unencodable;

    impl Serialize for Unencodable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("cannot be written"))
        }
    }

    #[test]
    fn a_record_that_does_not_serialise_is_an_error_naming_its_key() {
        let k = Key::Captured {
            host: "a.test",
            url: "http://a.test/p",
        }
        .bytes();
        let e = encode(&k, &Unencodable).unwrap_err().to_string();
        assert!(e.contains("a.test") && e.contains("http://a.test/p"), "{e}");
        assert!(e.contains("cannot be written"), "{e}");
    }

    #[test]
    fn damaged_records_are_errors_naming_their_keys_never_defaults() {
        let store = Store::temporary().unwrap();
        let mut ws = WriteSet::default();
        let a = adoption("a.test", "body");
        let k = Key::Adoption {
            host: &a.host,
            application: &a.application,
            action: &a.action,
        }
        .bytes();
        ws.put(k, b"{\"host\": ".to_vec());
        ws.put(
            Key::Captured {
                host: "a.test",
                url: "http://a.test/p",
            }
            .bytes(),
            b"[1, 2]".to_vec(),
        );
        ws.put(Key::HostApp("a.test").bytes(), vec![b'w', 0xff, b'p']);
        store.commit(ws).unwrap();
        let rs = RelaxStore::new(store);
        let errors = [
            rs.adoptions(None).unwrap_err(),
            rs.captured("a.test", "http://a.test/p").unwrap_err(),
            rs.app("a.test").unwrap_err(),
        ];
        for e in errors {
            let e = e.to_string();
            assert!(e.contains("a.test"), "names the key: {e}");
        }
    }
}
