//! One page read into terms: its language established, its title and text blocks tokenized
//! (each distinct spelling lowercased, stoplisted and stemmed once), and topic phrases found.

use super::lang::{identify, Detected, Profile, LANG_SAMPLE_BYTES};
use super::site_lang::identify_on;
use super::terms::{Counts, Terms, Tok};
use super::topic::Compiled;
use crate::model::ParsedPage;

/// Bytes of text (title and blocks) analysed per page; the rest is ignored. Bounds the work on
/// a hostile page; ordinary pages are far below it.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// A page's text as terms.
pub(crate) struct PageText<'t> {
    /// The page's term table.
    pub terms: Terms<'t>,
    /// Tokens of the title, then of every block, in order.
    pub toks: Vec<Tok>,
    /// For each of `page.blocks`, its range in `toks`.
    pub blocks: Vec<(u32, u32)>,
    /// For each of `page.blocks`, whether it is page furniture left out of the page's vector
    /// (all `false` when the page has nothing else).
    pub furniture: Vec<bool>,
    /// Topic phrases found: (position in `toks`, unit term), by position.
    pub phrases: Vec<(u32, u32)>,
    /// The language established for the page.
    pub detected: Detected,
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Reads `page` against `topic`. `host` is the page's host when its language may be taken from
/// what detection has confirmed there (`site_lang`); `None` detects it in any case. With
/// `record`, the term table keeps every term's text.
pub(crate) fn read_page<'t>(
    page: &ParsedPage,
    host: Option<&str>,
    topic: &'t Compiled,
    record: bool,
) -> PageText<'t> {
    let mut sample = String::with_capacity(LANG_SAMPLE_BYTES + 2);
    for text in page.title.iter().chain(&page.blocks) {
        let room = LANG_SAMPLE_BYTES.saturating_sub(sample.len());
        if room == 0 {
            break;
        }
        sample.push_str(prefix(text, room));
        sample.push('\n');
    }
    let declared = page.declared_lang.as_deref();
    let detected = match host {
        Some(host) => identify_on(host, &sample, declared),
        None => identify(&sample, declared),
    };
    let profile = Profile::of(detected.lang.as_deref().unwrap_or(&topic.default_lang));
    let mut terms = Terms::new(profile, topic, record);

    let total: usize = page.blocks.iter().map(String::len).sum::<usize>()
        + page.title.as_ref().map_or(0, String::len);
    let mut toks = Vec::with_capacity(total.min(MAX_TEXT_BYTES) / 6 + 16);
    let mut phrases = vec![];
    let mut budget = MAX_TEXT_BYTES;
    let mut read = |text: &str, toks: &mut Vec<Tok>, budget: &mut usize| {
        let text = prefix(text, *budget);
        *budget -= text.len();
        let start = toks.len();
        terms.tokens(text, toks);
        terms.phrases(&toks[start..], start, &mut phrases);
    };
    if let Some(title) = &page.title {
        read(title, &mut toks, &mut budget);
    }
    let mut blocks = Vec::with_capacity(page.blocks.len());
    for block in &page.blocks {
        let start = toks.len() as u32;
        if budget > 0 {
            read(block, &mut toks, &mut budget);
        }
        blocks.push((start, toks.len() as u32));
    }
    let mut furniture = vec![false; page.blocks.len()];
    if page.boilerplate.len() < page.blocks.len() {
        for &i in &page.boilerplate {
            if let Some(f) = furniture.get_mut(i as usize) {
                *f = true;
            }
        }
    }
    PageText {
        terms,
        toks,
        blocks,
        furniture,
        phrases,
        detected,
    }
}

impl PageText<'_> {
    /// The term counts of the page as a whole: its title and content blocks, and the topic
    /// phrases found in them. Page furniture (navigation, the page's header and footer, asides)
    /// is left out, so a site's menu does not count towards every page's relevance.
    pub(crate) fn page_counts(&self) -> Counts {
        let mut counts = Counts::default();
        let title_end = self
            .blocks
            .first()
            .map_or(self.toks.len(), |b| b.0 as usize);
        let content = std::iter::once((0, title_end)).chain(
            self.blocks
                .iter()
                .zip(&self.furniture)
                .filter(|(_, &f)| !f)
                .map(|(&(s, e), _)| (s as usize, e as usize)),
        );
        for (s, e) in content {
            for t in &self.toks[s..e] {
                counts.add(t.term);
            }
        }
        for &(pos, unit) in &self.phrases {
            let b = self.blocks.partition_point(|&(_, e)| e <= pos);
            let in_furniture = self
                .blocks
                .get(b)
                .is_some_and(|&(s, _)| s <= pos && self.furniture[b]);
            if !in_furniture {
                counts.add(unit);
            }
        }
        counts
    }
}
