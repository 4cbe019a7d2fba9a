//! One page read into terms: its language established, its title and text blocks tokenized
//! (each distinct spelling lowercased, stoplisted and stemmed once), and topic phrases found.

use super::lang::{identify, Detected, Profile, LANG_SAMPLE_BYTES};
use super::terms::{Terms, Tok};
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

/// Reads `page` against `topic`. With `record`, the term table keeps every term's text.
pub(crate) fn read_page<'t>(page: &ParsedPage, topic: &'t Compiled, record: bool) -> PageText<'t> {
    let mut sample = String::with_capacity(LANG_SAMPLE_BYTES + 2);
    for text in page.title.iter().chain(&page.blocks) {
        let room = LANG_SAMPLE_BYTES.saturating_sub(sample.len());
        if room == 0 {
            break;
        }
        sample.push_str(prefix(text, room));
        sample.push('\n');
    }
    let detected = identify(&sample, page.declared_lang.as_deref());
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
    PageText {
        terms,
        toks,
        blocks,
        phrases,
        detected,
    }
}
