//! Scoring: the page's relevance, and the components and total of each outlink's score.
//!
//! - `document`: cosine of the whole page (title and content blocks: navigation, the page's
//!   header and footer and asides left out) with the topic;
//! - `paragraph`: cosine of the link's block. In a block of more than [`HUGE_BLOCK_TOKENS`]
//!   words (pages without paragraph markup) only a window of [`WINDOW_TOKENS`] words either
//!   side of the anchor counts; the anchor is found by its words, searching forward from the
//!   previous link of that block (links come in document order), and the window sits where the
//!   previous one did when it is not found (image links). A link outside any block (for
//!   example in `<head>`) gets the document score: the nearest wider context;
//! - `anchor`: cosine of the anchor text (the parser includes `title` and `alt`);
//! - `url`: cosine of the words of host and path (not the query) with the topic. Words that
//!   are not topic terms but contain a keyword stem of four bytes or more count as that stem
//!   (`/climatechange/`; the first such stem of the topic, in term order). `www`, `com`, `html` and the like are ignored;
//! - `parent`: SharkSearch's inherited score. A relevant page passes on
//!   [`PARENT_DECAY`] × its relevance; an irrelevant one passes on [`PARENT_DECAY`] × what it
//!   inherited, so the score halves with each irrelevant hop. All links of a page share it.
//!
//! `total` is the weighted average with the user's weights (0 when they are all 0). A link
//! into a spam domain, or any link of a page on one (a link farm vouches for nothing), is
//! flagged `blacklist` and totals 0. On a page whose language is known and not among
//! `topic.languages`, totals are multiplied by [`LANGUAGE_PENALTY`] and the page is not
//! relevant; the components are left as measured.

use super::page::{read_page, PageText};
use super::terms::{Counts, Tok};
use super::tokens::{host_and_path, host_in_domain, is_url_noise, tokenize, url_text};
use super::{Analyzer, LinkScore, PageAnalysis};
use crate::model::ParsedPage;
use crate::model::ScoreParts;

/// Blocks with more words than this are scored by a window around the anchor.
pub const HUGE_BLOCK_TOKENS: u32 = 200;
/// Words either side of the anchor in that window.
pub const WINDOW_TOKENS: u32 = 50;
/// Factor on the inherited score per hop (SharkSearch's δ).
pub const PARENT_DECAY: f32 = 0.5;
/// Weight, in words, of the page's relevance in the `paragraph`, `anchor` and `url` scores of a
/// link (see `shrink`).
pub const SHRINK_TOKENS: f32 = 2.0;
/// Factor on link totals of pages in an unwanted language.
pub const LANGUAGE_PENALTY: f32 = 0.25;

pub(super) fn analyze(
    an: &Analyzer,
    page: &ParsedPage,
    page_url: &str,
    parent_inherited: f32,
) -> PageAnalysis {
    let host = host_and_path(page_url).0;
    let text = read_page(page, Some(host), &an.compiled, false);
    let mut counts = text.page_counts();
    let PageText {
        mut terms,
        toks,
        blocks,
        phrases,
        detected,
        ..
    } = text;
    let relevance = counts.cosine(&terms);

    let wanted = &an.topic.languages;
    let lang_wanted = match &detected.lang {
        Some(l) if !wanted.is_empty() => wanted.iter().any(|w| w == l),
        _ => true,
    };
    let relevant = lang_wanted && relevance >= an.threshold;
    let parent_in = if parent_inherited.is_finite() {
        parent_inherited.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let inherited = PARENT_DECAY * if relevant { relevance } else { parent_in };
    let page_spam = is_spam(an, host);

    let w = &an.weights;
    let weight_sum = w.document + w.paragraph + w.anchor + w.url + w.parent;
    let mut links = Vec::with_capacity(page.links.len());
    let mut block_cosine = vec![
        f32::NAN;
        if page.links.is_empty() {
            0
        } else {
            blocks.len()
        }
    ];
    // Per block: where to search for the next anchor, and where the last one was found.
    let mut cursor: Vec<(u32, u32)> = vec![];
    let mut anchor: Vec<Tok> = vec![];
    let mut anchor_phrases: Vec<(u32, u32)> = vec![];
    let mut url_buf = String::new();
    // Per URL word (by term): the keyword stem inside it, looked for once per page.
    // Sentinels, not tunables: a URL word not looked at yet, and one holding no stem.
    const UNKNOWN: u32 = u32::MAX;
    // (See `UNKNOWN`.)
    const NONE: u32 = u32::MAX - 1;
    let mut inner_stem: Vec<u32> = vec![];
    let mut url_toks: Vec<Tok> = vec![];
    for link in &page.links {
        anchor.clear();
        anchor_phrases.clear();
        terms.tokens(&link.text, &mut anchor);
        terms.phrases(&anchor, 0, &mut anchor_phrases);
        for t in &anchor {
            counts.add(t.term);
        }
        for &(_, unit) in &anchor_phrases {
            counts.add(unit);
        }
        let anchor_score = shrink(counts.cosine(&terms), anchor.len(), relevance);

        let paragraph = match link.block.map(|b| b as usize) {
            Some(b) if b < blocks.len() => {
                let (lo, hi) = blocks[b];
                if hi - lo > HUGE_BLOCK_TOKENS {
                    if cursor.is_empty() {
                        cursor = blocks.iter().map(|&(lo, _)| (lo, lo)).collect();
                    }
                    let p = match find(&toks[..hi as usize], cursor[b].0, &anchor) {
                        Some(p) => {
                            cursor[b] = (p + 1, p);
                            p
                        }
                        None => cursor[b].1,
                    };
                    let from = p.saturating_sub(WINDOW_TOKENS).max(lo);
                    let to = (p + anchor.len() as u32 + WINDOW_TOKENS).min(hi);
                    let c = span_cosine(&mut counts, &terms, &toks, &phrases, from, to);
                    shrink(c, (to - from) as usize, relevance)
                } else {
                    if block_cosine[b].is_nan() {
                        let c = span_cosine(&mut counts, &terms, &toks, &phrases, lo, hi);
                        block_cosine[b] = shrink(c, (hi - lo) as usize, relevance);
                    }
                    block_cosine[b]
                }
            }
            _ => relevance,
        };

        url_text(&link.url, &mut url_buf);
        url_toks.clear();
        let stems = &an.compiled.keyword_stems;
        tokenize(&url_buf, |t, start| {
            if is_url_noise(t) {
                return;
            }
            let term = terms.token(t);
            url_toks.push(Tok {
                term,
                start: start as u32,
            });
            if stems.is_empty() || terms.info[term as usize].weight != 0.0 {
                return;
            }
            let i = term as usize;
            if i >= inner_stem.len() {
                inner_stem.resize(i + 1, UNKNOWN);
            }
            if inner_stem[i] == UNKNOWN {
                inner_stem[i] = stems
                    .iter()
                    .position(|(s, _)| {
                        t.len() > s.len()
                            && t.as_bytes().windows(s.len()).any(|w| w == s.as_bytes())
                    })
                    .map_or(NONE, |k| k as u32);
            }
            if let Some((stem, id)) = stems.get(inner_stem[i] as usize) {
                counts.add(terms.id(*id, || stem.clone()));
            }
        });
        anchor_phrases.clear();
        terms.phrases(&url_toks, 0, &mut anchor_phrases);
        for t in &url_toks {
            counts.add(t.term);
        }
        for &(_, unit) in &anchor_phrases {
            counts.add(unit);
        }
        let url = shrink(counts.cosine(&terms), url_toks.len(), relevance);

        let blacklist =
            page_spam || (!an.spam_domains.is_empty() && is_spam(an, host_and_path(&link.url).0));
        let mut total = if weight_sum > 0.0 {
            (w.document * relevance
                + w.paragraph * paragraph
                + w.anchor * anchor_score
                + w.url * url
                + w.parent * inherited)
                / weight_sum
        } else {
            0.0
        };
        if blacklist {
            total = 0.0;
        } else if !lang_wanted {
            total *= LANGUAGE_PENALTY;
        }
        links.push(LinkScore {
            parts: ScoreParts {
                document: relevance,
                paragraph,
                anchor: anchor_score,
                url,
                parent: inherited,
                total: total.clamp(0.0, 1.0),
            },
            blacklist,
        });
    }
    PageAnalysis {
        relevance,
        relevant,
        lang_source: detected.source.name().map(str::to_owned),
        lang: detected.lang.map(|l| l.into_owned()),
        lang_confidence: detected.confidence,
        lang_wanted,
        inherited,
        links,
    }
}

/// Pulls the cosine of a short text towards the page's: `(n·c + K·doc) / (n + K)` for a text of
/// `n` words, with K = [`SHRINK_TOKENS`]. The cosine of three words is mostly chance: one
/// generic keyword in an anchor gives it a high score, and none gives 0 to a link that may be
/// as good as its page. Weighing the text's own evidence by its length (a Bayesian estimate
/// with the page as the prior) keeps long paragraphs decisive and short anchors modest.
fn shrink(c: f32, n: usize, doc: f32) -> f32 {
    let n = n as f32;
    (n * c + SHRINK_TOKENS * doc) / (n + SHRINK_TOKENS)
}

fn is_spam(an: &Analyzer, host: &str) -> bool {
    !host.is_empty() && an.spam_domains.iter().any(|d| host_in_domain(host, d))
}

/// The first position at or after `from` where the terms of `needle` occur in `toks`.
fn find(toks: &[Tok], from: u32, needle: &[Tok]) -> Option<u32> {
    let first = needle.first()?;
    let from = from as usize;
    if from + needle.len() > toks.len() {
        return None;
    }
    (from..=toks.len() - needle.len())
        .find(|&p| {
            toks[p].term == first.term
                && toks[p..p + needle.len()]
                    .iter()
                    .zip(needle)
                    .all(|(a, b)| a.term == b.term)
        })
        .map(|p| p as u32)
}

/// Cosine with the topic of the tokens `from..to` and the phrases that start among them.
fn span_cosine(
    counts: &mut Counts,
    terms: &super::terms::Terms<'_>,
    toks: &[Tok],
    phrases: &[(u32, u32)],
    from: u32,
    to: u32,
) -> f32 {
    for t in &toks[from as usize..to as usize] {
        counts.add(t.term);
    }
    let start = phrases.partition_point(|&(p, _)| p < from);
    for &(p, unit) in &phrases[start..] {
        if p >= to {
            break;
        }
        counts.add(unit);
    }
    counts.cosine(terms)
}
