//! Rebuilding the frontier's memory from the store at start-up. Every record is checked: a
//! damaged one stops the crawl with an error naming it, because skipping it would lose a URL
//! (a queue entry) or fetch one again (a seen-set entry).

use super::{decode_entry, host, keys, Frontier, FrontierError, Host};
use keys::UrlState;
use std::time::Instant;

impl Frontier {
    /// Reads the seen-set, the host queues, the host records and the sequence counter back
    /// into memory; fails on the first record that does not decode.
    pub(super) fn rebuild(&mut self) -> Result<(), FrontierError> {
        let mut damage: Option<String> = None;
        let mut note = |what: String| {
            damage.get_or_insert(what);
        };
        let seen = &mut self.seen;
        self.store.for_each(b"s", |k, v| {
            let fp = k.get(1..).and_then(|b| <[u8; 8]>::try_from(b).ok());
            let state = v.first().and_then(|&b| UrlState::from_byte(b));
            match (fp, state) {
                (Some(fp), Some(state)) => {
                    seen.insert(u64::from_be_bytes(fp), state);
                }
                _ => note(format!("seen-set entry {}", show(k))),
            }
        })?;
        let (hosts, best) = (&mut self.hosts, &mut self.best);
        let (mut queued, mut max_seq) = (0, 0);
        self.store.for_each(b"q", |k, v| {
            let (Some(name), Some(pos)) = (keys::host_of_queue_key(k), keys::queue_position(k))
            else {
                return note(format!("queue key {}", show(k)));
            };
            let Some(origin) = decode_entry(v)
                .and_then(|(_, u)| url::Url::parse(&u.url).ok())
                .map(|u| u.origin().ascii_serialization())
            else {
                return note(format!("queue entry of host {name} (sequence {})", pos.1));
            };
            let host = hosts
                .entry(name.to_string())
                .or_insert_with(|| Host::new(origin));
            host.enqueue(pos, best);
            host.queued += 1;
            queued += 1;
            max_seq = max_seq.max(pos.1);
        })?;
        self.queued = queued;
        let hosts = &mut self.hosts;
        self.store.for_each(b"h", |k, v| {
            let name = std::str::from_utf8(&k[1..]);
            match (name, serde_json::from_slice::<host::HostRecord>(v)) {
                (Ok(name), Ok(rec)) => {
                    if let Some(h) = hosts.get_mut(name) {
                        h.record = rec;
                    }
                }
                (Ok(name), Err(e)) => note(format!("host record of {name}: {e}")),
                (Err(_), _) => note(format!("host record key {}", show(k))),
            }
        })?;
        if let Some(v) = self.store.get(&keys::meta_key("seq"))? {
            match std::str::from_utf8(&v).ok().and_then(|t| t.parse().ok()) {
                Some(seq) => self.seq = seq,
                None => note(format!("sequence counter {}", show(&v))),
            }
        }
        if self.seq < max_seq {
            note(format!(
                "sequence counter {} is behind the queue (sequence {max_seq})",
                self.seq
            ));
        }
        if let Some(what) = damage {
            return Err(self.store.damaged(what).into());
        }
        let now = Instant::now();
        let names: Vec<String> = self.hosts.keys().cloned().collect();
        for name in names {
            self.push(&name, now);
        }
        Ok(())
    }
}

/// A stored key or value for a message: printable ASCII as is, other bytes as `\xNN`, at most
/// about 60 characters.
fn show(bytes: &[u8]) -> String {
    let mut out: String = bytes
        .iter()
        .take(48)
        .map(|&b| match b {
            b' '..=b'~' => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect();
    if bytes.len() > 48 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::cfg;
    use super::*;
    use crate::model::CrawlUri;
    use crate::store::{Store, WriteSet};

    /// A store with two queued URLs, committed, and the frontier closed.
    fn crawl_state(dir: &std::path::Path) {
        let store = Store::open(dir).unwrap();
        let mut f = Frontier::open(store, cfg(0, false)).unwrap();
        f.offer(1, "a", "http://a", CrawlUri::seed("http://a/1"));
        f.offer(2, "a", "http://a", CrawlUri::seed("http://a/2"));
        f.commit().unwrap();
    }

    /// Makes the damaging write: the key and the bad value.
    type Damage = fn(&Store) -> (Vec<u8>, Vec<u8>);

    #[test]
    fn a_damaged_record_is_an_error_naming_it_never_a_skipped_url() {
        let damages: [(&str, Damage); 4] = [
            ("seen-set entry", |_| (keys::seen_key(1), vec![99])),
            ("queue entry of host a", |s| {
                let (k, _) = s.scan(b"q", 1, |_| false).unwrap().remove(0);
                (k, b"\x00\x01garbage".to_vec())
            }),
            ("host record of a", |_| (keys::host_key("a"), b"{".to_vec())),
            ("sequence counter", |_| {
                (keys::meta_key("seq"), b"x".to_vec())
            }),
        ];
        for (what, damage) in damages {
            let dir = tempfile::tempdir().unwrap();
            crawl_state(dir.path());
            let store = Store::open(dir.path()).unwrap();
            let (k, v) = damage(&store);
            let mut ws = WriteSet::default();
            ws.put(k, v);
            store.commit(ws).unwrap();
            let err = Frontier::open(store, cfg(0, false)).err().expect(what);
            let msg = err.to_string();
            assert!(msg.contains(what), "{what}: {msg}");
            assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
        }
        let dir = tempfile::tempdir().unwrap();
        crawl_state(dir.path());
        let f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        assert_eq!(f.queued(), 2, "an undamaged state reopens whole");
    }

    #[test]
    fn a_sequence_counter_behind_the_queue_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        crawl_state(dir.path());
        let store = Store::open(dir.path()).unwrap();
        let mut ws = WriteSet::default();
        ws.put(keys::meta_key("seq"), b"1".to_vec());
        store.commit(ws).unwrap();
        let err = Frontier::open(store, cfg(0, false)).err().expect("refused");
        assert!(err.to_string().contains("behind the queue"), "{err}");
    }
}
