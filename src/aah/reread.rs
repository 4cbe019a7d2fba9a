//! Pages of unknown applications read before their host's model could judge them (the host's
//! first pages, the first pages of a URL template, pages read before any page showed the
//! host's category), kept to be read again once it can. The crawl writes each new reading as a
//! later metadata record of the page's capture (`WARC-Refers-To`), so no page keeps the
//! reading of a model that knew too little, and a host's first page, read before anything
//! named its category, gets a reading at all.
//!
//! Bounded: at most [`MAX_KEPT_PER_HOST`] pages per host and `HelperOptions::reread_bytes` of
//! text over all hosts; a page that finds no room keeps its first reading. A host that shows
//! no category on its first pages is passed over, its pages kept unread where room is left
//! (see `unknown`), the first to go when a read page needs the room.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use url::Url;

use super::output::{AppMatch, LevelInfo, WebObject};

/// Pages of one host kept for a second reading.
pub(crate) const MAX_KEPT_PER_HOST: usize = 32;
/// Pages of its host read since a kept page after which it is read again, whatever it waits
/// for: a URL template with one or two pages (an about page) never gets furniture of its own.
pub(crate) const REREAD_AFTER: u32 = 16;
/// Revisions waiting for their caller at most: one that never takes them (a tool reading
/// pages one by one) keeps no more.
const MAX_DONE: usize = 4_096;

/// The archived capture a later reading of its page refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// `WARC-Record-ID` of the page's response (or revisit) record.
    pub record_id: String,
    /// Its `WARC-Date`.
    pub date: String,
}

/// A page read again: its new reading, for a metadata record of its capture.
#[derive(Debug, Clone)]
pub struct Revision {
    /// The page's capture, when the caller named one.
    pub capture: Option<Capture>,
    /// The new reading (application, category, level, objects; no link verdicts: the links
    /// were acted on at the first reading).
    pub reading: AppMatch,
}

/// A page kept for a second reading.
pub(crate) struct Kept {
    pub(crate) url: Url,
    pub(crate) text: String,
    pub(crate) capture: Option<Capture>,
    /// Pages of the host read when this one was.
    pub(crate) read_at: u32,
    /// What the first reading said ([`summary`]).
    pub(crate) first: u64,
    /// The first reading's level and objects: a later reading keeps them when the page's own
    /// layout does not settle its kind.
    pub(crate) level: Option<LevelInfo>,
    pub(crate) objects: Vec<WebObject>,
    /// Whether the first reading named an application (a later one never takes it away).
    pub(crate) had_app: bool,
    /// The page's own evidence named another category than its host's model gave it: it waits
    /// for more of the host to be read ([`REREAD_AFTER`] pages, or the crawl's end), not only
    /// for the model to be able to judge it.
    pub(crate) disputed: bool,
    /// The capture is archived: a page whose exchange is retried, or failed after it was read,
    /// has no record to refer to, and one still being written must come before its revision.
    /// A page kept without a capture needs no confirmation.
    pub(crate) confirmed: bool,
    /// Passed over unread, its host having shown no category yet: kept only where room is
    /// left, and the first to make way for a page of a host that is read.
    pub(crate) unread: bool,
}

/// The kept pages of every host, and the revisions made and not yet taken.
#[derive(Default)]
pub(crate) struct Rereads {
    hosts: HashMap<String, Vec<Kept>>,
    bytes: usize,
    done: Vec<Revision>,
}

impl Rereads {
    /// Keeps a page of `host`, if the bounds leave room; a page that was read makes room by
    /// letting unread pages go.
    pub(crate) fn keep(&mut self, host: &str, page: Kept, max_bytes: usize) {
        if self
            .hosts
            .get(host)
            .is_some_and(|k| k.len() >= MAX_KEPT_PER_HOST)
        {
            return;
        }
        if !page.unread {
            self.make_room(page.text.len(), max_bytes);
        }
        if self.bytes + page.text.len() > max_bytes {
            return;
        }
        self.bytes += page.text.len();
        self.hosts.entry(host.to_owned()).or_default().push(page);
    }

    /// Lets unread pages go until `len` more bytes fit in `max_bytes`, or none is left.
    fn make_room(&mut self, len: usize, max_bytes: usize) {
        if self.bytes + len <= max_bytes {
            return;
        }
        for kept in self.hosts.values_mut() {
            kept.retain(|k| {
                let go = k.unread && self.bytes + len > max_bytes;
                if go {
                    self.bytes -= k.text.len();
                }
                !go
            });
        }
        self.hosts.retain(|_, kept| !kept.is_empty());
    }

    /// Notes that the capture `record_id` is archived.
    pub(crate) fn confirm(&mut self, record_id: &str) {
        let mine = |k: &&mut Kept| k.capture.as_ref().is_some_and(|c| c.record_id == record_id);
        if let Some(k) = self.hosts.values_mut().flatten().find(mine) {
            k.confirmed = true;
        }
    }

    /// Takes the confirmed kept pages of `host` that `due` accepts.
    pub(crate) fn take_due(&mut self, host: &str, due: impl Fn(&Kept) -> bool) -> Vec<Kept> {
        let Some(kept) = self.hosts.get_mut(host) else {
            return Vec::new();
        };
        let (now, later): (Vec<Kept>, Vec<Kept>) = std::mem::take(kept)
            .into_iter()
            .partition(|k| k.confirmed && due(k));
        *kept = later;
        if kept.is_empty() {
            self.hosts.remove(host);
        }
        self.bytes -= now.iter().map(|k| k.text.len()).sum::<usize>();
        now
    }

    /// Lets every kept page of `host` go.
    pub(crate) fn forget(&mut self, host: &str) {
        if let Some(kept) = self.hosts.remove(host) {
            self.bytes -= kept.iter().map(|k| k.text.len()).sum::<usize>();
        }
    }

    /// The hosts with kept pages.
    pub(crate) fn hosts(&self) -> Vec<String> {
        self.hosts.keys().cloned().collect()
    }

    /// Files a revision for the caller.
    pub(crate) fn done(&mut self, r: Revision) {
        if self.done.len() < MAX_DONE {
            self.done.push(r);
        }
    }

    /// The revisions made since the last call.
    pub(crate) fn take_done(&mut self) -> Vec<Revision> {
        std::mem::take(&mut self.done)
    }
}

/// What a reading says (application, level, objects), hashed: a page read again is reported
/// only when this changed.
pub(crate) fn summary(m: &AppMatch) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}{:?}{:?}", m.application, m.level, m.objects).hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(url: &str, bytes: usize, read_at: u32) -> Kept {
        Kept {
            url: Url::parse(url).unwrap(),
            text: "x".repeat(bytes),
            capture: None,
            read_at,
            first: 0,
            level: None,
            objects: Vec::new(),
            had_app: false,
            disputed: false,
            confirmed: true,
            unread: false,
        }
    }

    #[test]
    fn kept_pages_are_bounded_per_host_and_in_bytes_and_taken_when_due() {
        let mut r = Rereads::default();
        for i in 0..40 {
            r.keep("a", kept(&format!("http://a/{i}"), 10, i), 1_000);
        }
        r.keep("b", kept("http://b/big", 800, 1), 1_000);
        r.keep("b", kept("http://b/small", 100, 2), 1_000);
        assert_eq!(
            r.bytes,
            320 + 100,
            "32 pages of a, b's big page found no room"
        );
        let due = r.take_due("a", |k| k.read_at < 5);
        assert_eq!(due.len(), 5);
        assert_eq!(r.bytes, 270 + 100);
        assert_eq!(r.take_due("b", |_| true).len(), 1);
        assert_eq!(r.hosts(), vec!["a".to_string()]);
        r.forget("a");
        assert_eq!((r.bytes, r.hosts().len()), (0, 0));
    }

    #[test]
    fn unread_pages_take_only_room_left_and_make_way_for_read_ones() {
        let mut r = Rereads::default();
        let unread = |url: &str, bytes| Kept {
            unread: true,
            ..kept(url, bytes, 0)
        };
        r.keep("weak", unread("http://weak/1", 400), 1_000);
        r.keep("weak", unread("http://weak/2", 400), 1_000);
        r.keep("weak", unread("http://weak/3", 400), 1_000);
        assert_eq!(r.bytes, 800, "the third unread page found no room");
        r.keep("read", kept("http://read/1", 500, 1), 1_000);
        assert_eq!(r.bytes, 900, "one unread page made way");
        assert_eq!(r.take_due("weak", |_| true).len(), 1);
        assert_eq!(r.take_due("read", |_| true).len(), 1);
    }

    #[test]
    fn a_page_is_read_again_only_once_its_capture_is_archived() {
        let mut r = Rereads::default();
        let mut k = kept("http://a/1", 10, 1);
        k.capture = Some(Capture {
            record_id: "<urn:uuid:1>".into(),
            date: String::new(),
        });
        k.confirmed = false;
        r.keep("a", k, 1_000);
        assert!(r.take_due("a", |_| true).is_empty(), "not archived yet");
        r.confirm("<urn:uuid:1>");
        assert_eq!(r.take_due("a", |_| true).len(), 1);
    }
}
