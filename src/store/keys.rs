//! Every family of keys in a crawl's store, named in one place so that no two parts ever write
//! the same key space: each family's prefix, and how the rest of its key is made.
//!
//! | key | value | staged by |
//! |---|---|---|
//! | `m` name | crawl metadata: the frontier's commit number, the WARC checkpoint, the totals, `created`, the learned topic, the blocked patterns | JSON or text | the engine's commit, for each part |
//! | `d` payload digest | the first capture of that payload, for revisit records | JSON | the archiver |
//! | `Ar` host `\0` application `\0` action | an adopted relaxation | JSON | the helper |
//! | `Ac` host `\0` URL | field values captured from a terminal page | JSON | the helper |
//! | `Aa` host | the application detected on the host | UTF-8 | the helper |
//! | `q`, `s`, `h` | crawl state of versions before the frontier's log: queue, URL states, hosts | binary | read once by the frontier, then deleted |
//! | `#checksum` | the number of the other entries and the XOR of their hashes | 24 bytes | [`super::Store::commit`] itself, with every commit that changes an entry |
//!
//! Every write goes into one [`super::WriteSet`], the crawl's transaction, which the engine
//! owns and commits whole (see `crawl/engine`).

/// The crawl-level metadata entries (`m` + name), each named once: the names are the stored
/// format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// `frontier`: the number of the frontier log's last commit.
    FrontierCommit,
    /// `checkpoint`: how far the WARC files are durable.
    Checkpoint,
    /// `totals`: the crawl's counters.
    Totals,
    /// `created`: when the store was made, the mark that a crawl ran here.
    Created,
    /// `topic`: the topic vector learned from the crawl.
    Topic,
    /// `blocked`: the operator's blocked URL patterns.
    Blocked,
    /// `copy_rules`: the URL-variant rules learned per host.
    CopyRules,
    /// `seq`: the discovery counter of versions before the frontier's log (read once by the
    /// import of such a crawl, then deleted).
    LegacySeq,
}

impl Meta {
    /// The entry's stored name.
    pub fn name(self) -> &'static str {
        match self {
            Meta::FrontierCommit => "frontier",
            Meta::Checkpoint => "checkpoint",
            Meta::Totals => "totals",
            Meta::Created => "created",
            Meta::Topic => "topic",
            Meta::Blocked => "blocked",
            Meta::CopyRules => "copy_rules",
            Meta::LegacySeq => "seq",
        }
    }
}

/// One key of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'a> {
    /// `m`: a crawl-level metadata entry.
    Meta(Meta),
    /// `d`: the first capture of a payload digest.
    FirstCapture(&'a str),
    /// `Ar`: the helper's adopted relaxation of one action.
    Adoption {
        /// Host key.
        host: &'a str,
        /// Application id.
        application: &'a str,
        /// Action id.
        action: &'a str,
    },
    /// `Ac`: content the helper captured from one page.
    Captured {
        /// Host key.
        host: &'a str,
        /// The page's URL.
        url: &'a str,
    },
    /// `Aa`: the application the helper detected on a host.
    HostApp(&'a str),
    /// `#checksum`: the checksum of every other entry, which the store keeps itself (see
    /// [`super::Store::open`]); a staged write to it is ignored.
    Checksum,
}

impl Key<'_> {
    /// The key's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match *self {
            Key::Meta(m) => joined(b"m", &[m.name()]),
            Key::FirstCapture(digest) => joined(b"d", &[digest]),
            Key::Adoption {
                host,
                application,
                action,
            } => joined(b"Ar", &[host, application, action]),
            Key::Captured { host, url } => joined(b"Ac", &[host, url]),
            Key::HostApp(host) => joined(b"Aa", &[host]),
            Key::Checksum => b"#checksum".to_vec(),
        }
    }
}

/// A family of keys (or part of one), for a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family<'a> {
    /// Adopted relaxations: of one host, or (`None`) of every host.
    Adoptions(Option<&'a str>),
    /// Older crawl state: queued URLs.
    LegacyQueue,
    /// Older crawl state: URL states.
    LegacyStates,
    /// Older crawl state: host records.
    LegacyHosts,
}

impl Family<'_> {
    /// The prefix every key of the family starts with.
    pub fn prefix(&self) -> Vec<u8> {
        match *self {
            Family::Adoptions(Some(host)) => {
                let mut k = joined(b"Ar", &[host]);
                k.push(0);
                k
            }
            Family::Adoptions(None) => b"Ar".to_vec(),
            Family::LegacyQueue => b"q".to_vec(),
            Family::LegacyStates => b"s".to_vec(),
            Family::LegacyHosts => b"h".to_vec(),
        }
    }
}

/// `prefix`, then `parts` separated by NUL (which no host, URL or id contains).
fn joined(prefix: &[u8], parts: &[&str]) -> Vec<u8> {
    let len = prefix.len() + parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut k = Vec::with_capacity(len);
    k.extend_from_slice(prefix);
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            k.push(0);
        }
        k.extend_from_slice(p.as_bytes());
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_never_overlap() {
        let keys = [
            Key::Meta(Meta::Checkpoint).bytes(),
            Key::FirstCapture("sha1:X").bytes(),
            Key::Adoption {
                host: "a.test",
                application: "phpbb",
                action: "post/detect",
            }
            .bytes(),
            Key::Captured {
                host: "a.test",
                url: "http://a.test/",
            }
            .bytes(),
            Key::HostApp("a.test").bytes(),
            Key::Checksum.bytes(),
        ];
        assert_eq!(keys[0], b"mcheckpoint");
        assert_eq!(keys[2], b"Ara.test\0phpbb\0post/detect");
        let families = [
            Family::Adoptions(None),
            Family::LegacyQueue,
            Family::LegacyStates,
            Family::LegacyHosts,
        ];
        for (i, k) in keys.iter().enumerate() {
            let owners = families
                .iter()
                .filter(|f| k.starts_with(&f.prefix()))
                .count();
            assert_eq!(owners, usize::from(i == 2), "{k:?}");
        }
        let one_host = Family::Adoptions(Some("a.test")).prefix();
        assert!(keys[2].starts_with(&one_host));
        assert!(!Key::Adoption {
            host: "a.test.evil",
            application: "x",
            action: "y"
        }
        .bytes()
        .starts_with(&one_host));
    }
}
