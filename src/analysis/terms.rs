//! Terms: tokens to stemmed, stoplisted term ids, interned per page, and cosine similarity.
//!
//! A term is identified by the 64-bit xxh3 hash of its text (the Snowball stem of the lowercased
//! word; the lowercased word itself for stopwords and bigrams; stems joined by spaces for a
//! phrase). Within one page every distinct term gets a small local index, so counting a text's
//! terms is an array increment per token: each distinct spelling is lowercased, looked up in
//! the stoplist and stemmed once per page, not once per occurrence.

use rust_stemmers::Stemmer;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::lang::Profile;
use super::stopwords::is_stopword;
use super::tokens::{lowercase, tokenize};
use super::topic::Compiled;

/// The id of a term text.
pub(crate) fn term_id(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// A hasher for keys that are already hashes: passes the value through.
#[derive(Default)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by values that are already hashes (term ids, token hashes, `site_lang` keys).
pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

/// What is known about one distinct term of a page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TermInfo {
    /// The term id.
    pub id: u64,
    /// The term's weight in the topic vector (0 when it is not a topic term).
    pub weight: f32,
    /// A stopword: kept for phrase and anchor matching, never counted in vectors.
    pub stop: bool,
    /// Whether some topic phrase starts with this term.
    pub starts_phrase: bool,
}

/// The terms of one page, interned, with the topic weights looked up once per distinct term.
pub(crate) struct Terms<'t> {
    profile: Profile,
    stemmer: Option<Stemmer>,
    pub(crate) topic: &'t Compiled,
    by_token: IdMap<u32>,
    by_id: IdMap<u32>,
    pub(crate) info: Vec<TermInfo>,
    /// The text of each term, when recording (reference pages only).
    texts: Option<Vec<String>>,
    buf: String,
    /// The seed of token hashes for [`memo`]: each language profile has its own entries, and
    /// each process its own hashes.
    salt: u64,
}

impl<'t> Terms<'t> {
    /// An empty term table for text in `profile`'s language, scored against `topic`.
    pub(crate) fn new(profile: Profile, topic: &'t Compiled, record_texts: bool) -> Terms<'t> {
        Terms {
            profile,
            stemmer: profile.stemmer.map(Stemmer::create),
            topic,
            by_token: IdMap::with_capacity_and_hasher(1024, Default::default()),
            by_id: IdMap::with_capacity_and_hasher(1024, Default::default()),
            info: Vec::with_capacity(1024),
            texts: record_texts.then(Vec::new),
            buf: String::new(),
            salt: profile_salt(&profile),
        }
    }

    /// The local index of a raw token (as found in the text, any case).
    pub(crate) fn token(&mut self, raw: &str) -> u32 {
        // One hash per token serves both this page's table and the thread's memory.
        let key = xxhash_rust::xxh3::xxh3_64_with_seed(raw.as_bytes(), self.salt);
        if let Some(&i) = self.by_token.get(&key) {
            return i;
        }
        let remembered = match self.texts {
            None => memo::get(key),
            Some(_) => None,
        };
        let (id, stop, text) = match remembered {
            Some((id, stop)) => (id, stop, None),
            None => {
                let word = lowercase(raw, &mut self.buf);
                let stop = is_stopword(self.profile.stopwords, word);
                let stem = match (&self.stemmer, stop) {
                    (Some(s), false) => s.stem(word),
                    _ => std::borrow::Cow::Borrowed(word),
                };
                let id = term_id(&stem);
                memo::put(key, (id, stop));
                let text = (self.texts.is_some() && !self.by_id.contains_key(&id))
                    .then(|| stem.into_owned());
                (id, stop, text)
            }
        };
        let i = match self.by_id.get(&id) {
            Some(&i) => i,
            None => {
                if let (Some(texts), Some(text)) = (&mut self.texts, text) {
                    texts.push(text);
                }
                self.push(id, stop)
            }
        };
        self.by_token.insert(key, i);
        i
    }

    /// The local index of a term given by id (phrase units, keyword stems found in URLs).
    pub(crate) fn id(&mut self, id: u64, text: impl FnOnce() -> String) -> u32 {
        if let Some(&i) = self.by_id.get(&id) {
            return i;
        }
        if let Some(texts) = &mut self.texts {
            texts.push(text());
        }
        self.push(id, false)
    }

    fn push(&mut self, id: u64, stop: bool) -> u32 {
        let i = self.info.len() as u32;
        self.info.push(TermInfo {
            id,
            weight: self.topic.weight(id),
            stop,
            starts_phrase: self.topic.starts_phrase(id),
        });
        self.by_id.insert(id, i);
        i
    }

    /// Tokenizes `text` and appends `(term index, byte offset)` for each token to `out`.
    pub(crate) fn tokens(&mut self, text: &str, out: &mut Vec<Tok>) {
        tokenize(text, |t, start| {
            let term = self.token(t);
            out.push(Tok {
                term,
                start: start as u32,
            });
        });
    }

    /// Finds topic phrases in `toks` and appends `(position, unit term index)` for each match.
    pub(crate) fn phrases(&mut self, toks: &[Tok], base: usize, out: &mut Vec<(u32, u32)>) {
        for p in 0..toks.len() {
            let first = self.info[toks[p].term as usize];
            if !first.starts_phrase {
                continue;
            }
            let topic = self.topic;
            for phrase in topic.phrases_from(first.id) {
                let len = phrase.ids.len();
                let matches = toks.len() - p >= len
                    && toks[p..p + len]
                        .iter()
                        .zip(&phrase.ids)
                        .all(|(t, &id)| self.info[t.term as usize].id == id);
                if matches {
                    let unit = self.id(phrase.unit, || phrase.text.clone());
                    out.push(((base + p) as u32, unit));
                }
            }
        }
    }

    /// The recorded text of each term (empty unless recording).
    pub(crate) fn into_texts(self) -> Vec<String> {
        self.texts.unwrap_or_default()
    }
}

/// A number that tells language profiles apart (the stemmer and the stopword list), mixed with
/// a number drawn once per process. The memory of earlier pages lives as long as its thread, so
/// its keys must not be predictable: a page crafted to collide with a topic word would
/// otherwise skew the scores of every later page that thread reads.
fn profile_salt(p: &Profile) -> u64 {
    static PROCESS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let process = *PROCESS.get_or_init(|| {
        use std::hash::BuildHasher;
        std::collections::hash_map::RandomState::new().hash_one(0x6d61_6770_6965_u64)
    });
    let stemmer = p.stemmer.map_or(0, |a| a as u64 + 1);
    let stopwords = p.stopwords.as_ptr() as u64;
    ((stemmer << 56) ^ stopwords).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ process
}

/// What raw tokens became on the pages this thread read before: a word is lowercased, looked
/// up in the stoplist and stemmed once per thread, not once per page (a site repeats its
/// vocabulary from page to page; stemming was a twentieth of a topic crawl's CPU). Keyed by
/// the token's hash seeded with the profile's salt; the result only depends on the token and
/// the profile, so this never changes a term. Cleared when it reaches [`memo::MAX`] entries.
mod memo {
    use super::IdMap;
    use std::cell::RefCell;

    /// Most entries kept per thread (about 1.5 MB).
    pub(super) const MAX: usize = 1 << 16;

    thread_local! {
        static SEEN: RefCell<IdMap<(u64, bool)>> = RefCell::new(IdMap::default());
    }

    pub(super) fn get(key: u64) -> Option<(u64, bool)> {
        SEEN.with(|m| m.borrow().get(&key).copied())
    }

    pub(super) fn put(key: u64, value: (u64, bool)) {
        SEEN.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= MAX {
                m.clear();
            }
            m.insert(key, value);
        });
    }
}

/// One token of a page: its term and where it starts in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tok {
    /// Local term index.
    pub term: u32,
    /// Byte offset in the text it came from.
    pub start: u32,
}

/// Term counts of one text at a time, for cosine similarity with the topic.
#[derive(Default)]
pub(crate) struct Counts {
    counts: Vec<u32>,
    touched: Vec<u32>,
}

impl Counts {
    /// Counts one occurrence of a term (stopwords are skipped by [`Counts::cosine`]).
    pub(crate) fn add(&mut self, term: u32) {
        let i = term as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1 + i / 2, 0);
        }
        if self.counts[i] == 0 {
            self.touched.push(term);
        }
        self.counts[i] += 1;
    }

    /// The cosine of the counted text with the topic, in [0, 1]; then starts over.
    /// A text without counted terms, or an empty topic, scores 0.
    pub(crate) fn cosine(&mut self, terms: &Terms<'_>) -> f32 {
        let (mut dot, mut norm2) = (0f64, 0f64);
        for &t in &self.touched {
            let c = std::mem::take(&mut self.counts[t as usize]);
            let info = terms.info[t as usize];
            if info.stop {
                continue;
            }
            let c = f64::from(c);
            dot += c * f64::from(info.weight);
            norm2 += c * c;
        }
        self.touched.clear();
        let topic_norm = f64::from(terms.topic.norm());
        if norm2 == 0.0 || topic_norm == 0.0 {
            return 0.0;
        }
        ((dot / (norm2.sqrt() * topic_norm)) as f32).clamp(0.0, 1.0)
    }

    /// The counted (non-stopword) terms with their counts, for reference vectors; then starts
    /// over.
    pub(crate) fn drain(&mut self, terms: &Terms<'_>) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.touched.len());
        for &t in &self.touched {
            let c = std::mem::take(&mut self.counts[t as usize]);
            if !terms.info[t as usize].stop {
                out.push((t, c));
            }
        }
        self.touched.clear();
        out
    }
}
