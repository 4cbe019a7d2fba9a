//! Crawl state written before the frontier had its own log kept its queues in sled: `q` keys
//! (host, inverted priority, sequence → fingerprint and URL), `s` keys (fingerprint → state) and
//! `h` keys (host → counters). Opening such a crawl moves them into the log once, in the commit
//! that deletes them, so an older crawl resumes where it stopped instead of looking finished.

use super::host::HostRecord;
use super::keys::{self, UrlState};
use super::ops::Op;
use super::table::Slot;
use super::{Frontier, FrontierError, NO_HOST};
use crate::store::{Family, Key, Meta, WriteSet};

impl Frontier {
    /// Moves an older crawl's queues out of sled, once: on a frontier whose log had never
    /// committed, and that holds such queues; true when it moved any. Called by whoever opens
    /// a crawl, after [`Frontier::open`].
    pub fn migrate_older_state(&mut self) -> Result<bool, FrontierError> {
        if !self.log_was_empty {
            return Ok(false);
        }
        let mut damage: Option<String> = None;
        let mut queued = Vec::new();
        self.store.for_each(&Family::LegacyQueue.prefix(), |k, v| {
            let host = k[1..].split(|&b| b == 0).next().map(<[u8]>::to_vec);
            let host = host.and_then(|h| String::from_utf8(h).ok());
            let fp = v.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok());
            let uri = v.get(8..).and_then(keys::decode_uri);
            match (host, fp, uri) {
                // A queued URL that does not parse is damage too, never a host without an
                // origin.
                (Some(h), Some(fp), Some(uri)) => match url::Url::parse(&uri.url) {
                    Ok(u) => {
                        let origin = u.origin().ascii_serialization();
                        queued.push((k.to_vec(), h, u64::from_be_bytes(fp), uri, origin))
                    }
                    Err(e) => {
                        damage.get_or_insert_with(|| format!("queued URL {:?}: {e}", uri.url));
                    }
                },
                (h, ..) => {
                    damage.get_or_insert_with(|| {
                        format!("a queue entry of host {:?}", h.unwrap_or_default())
                    });
                }
            }
        })?;
        let mut marked = Vec::new();
        self.store
            .for_each(&Family::LegacyStates.prefix(), |k, v| {
                let fp = k.get(1..).and_then(|b| <[u8; 8]>::try_from(b).ok());
                match (fp, v.first()) {
                    (Some(fp), Some(&b)) if (2..=5).contains(&b) => {
                        marked.push((k.to_vec(), u64::from_be_bytes(fp), b))
                    }
                    (Some(_), Some(1)) => marked.push((k.to_vec(), 0, 1)),
                    _ => {
                        damage.get_or_insert_with(|| "seen-set entry".into());
                    }
                }
            })?;
        let mut hosts = Vec::new();
        self.store.for_each(&Family::LegacyHosts.prefix(), |k, v| {
            match (
                std::str::from_utf8(&k[1..]),
                serde_json::from_slice::<HostRecord>(v),
            ) {
                (Ok(name), Ok(rec)) => hosts.push((k.to_vec(), name.to_string(), rec)),
                _ => {
                    damage.get_or_insert_with(|| "host record".into());
                }
            }
        })?;
        if let Some(what) = damage {
            return Err(self
                .store
                .damaged(format!("older crawl state: {what}"))
                .into());
        }
        if queued.is_empty() && marked.is_empty() && hosts.is_empty() {
            self.log_was_empty = false;
            return Ok(false);
        }
        queued.sort_by_key(|(k, ..)| k.get(k.len().saturating_sub(8)..).map(<[u8]>::to_vec));
        // The older keys go in the one commit that logs their URLs.
        let mut deletes = WriteSet::default();
        for (key, host, fp, uri, origin) in queued {
            self.offer(fp, &host, &origin, uri);
            deletes.delete(key);
        }
        for (key, fp, b) in marked {
            deletes.delete(key);
            if b == 1 || self.table.find(fp).is_some() {
                continue;
            }
            let slot = match b {
                2 => Slot::Done,
                3 => Slot::Failed,
                4 => Slot::RobotsBlocked,
                _ => Slot::of(UrlState::Blacklisted),
            };
            self.mark_unqueued(fp, NO_HOST, slot);
        }
        for (key, name, rec) in hosts {
            deletes.delete(key);
            let origin = self
                .ids
                .get(&name)
                .map(|&id| self.hosts[id as usize].origin.clone());
            let id = self.host_id(&name, &origin.unwrap_or_default());
            self.hosts[id as usize].record = rec.clone();
            self.log(Op::Counts {
                host: id,
                fetched: rec.fetched,
                errors: rec.errors,
            });
        }
        deletes.delete(Key::Meta(Meta::LegacySeq).bytes());
        tracing::info!(
            queued = self.queued,
            "frontier: older crawl state moved into the log"
        );
        self.commit_with(deletes)?;
        self.log_was_empty = false;
        Ok(true)
    }
}

/// The keys an older magpie wrote, for tests: two queued URLs on `a.test` (sequence 2 before 1
/// in priority), one done, and a host record.
#[cfg(test)]
pub(crate) fn legacy_state(store: &crate::store::Store) {
    let mut ws = crate::store::WriteSet::default();
    let q = |host: &str, inv: u32, seq: u64| {
        let mut k = vec![b'q'];
        k.extend_from_slice(host.as_bytes());
        k.push(0);
        k.extend_from_slice(&inv.to_be_bytes());
        k.extend_from_slice(&seq.to_be_bytes());
        k
    };
    for (fp, seq, p) in [(11u64, 1u64, 0.25f32), (12, 2, 0.75)] {
        let mut uri = crate::model::CrawlUri::seed(format!("http://a.test/{fp}"));
        uri.priority = p;
        let mut v = fp.to_be_bytes().to_vec();
        keys::encode_uri_into(&mut v, &uri);
        ws.put(q("a.test", keys::inverted(p), seq), v);
        ws.put([&b"s"[..], &fp.to_be_bytes()].concat(), vec![1]);
    }
    ws.put([&b"s"[..], &13u64.to_be_bytes()].concat(), vec![2]);
    ws.put(b"ha.test".to_vec(), br#"{"fetched":1,"errors":0}"#.to_vec());
    ws.put(Key::Meta(Meta::LegacySeq).bytes(), b"3".to_vec());
    store.commit(ws).unwrap();
}
