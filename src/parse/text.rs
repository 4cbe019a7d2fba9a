//! Whitespace-normalised text: anchor texts and the visible text blocks of a page.
//!
//! Text arrives as DOM text nodes. Runs of whitespace (including no-break spaces) collapse to
//! one space, leading and trailing whitespace is dropped, and text nodes that touch without
//! whitespace join without a space (`foo<b>bar</b>` is `foobar`).

/// Longest text block kept as one; longer runs of text (pages without block markup) are split,
/// so a block stays a paragraph-sized context for scoring.
pub(crate) const MAX_BLOCK_BYTES: usize = 8 * 1024;

/// Longest anchor text kept; an `<a>` wrapping half a page is not a useful anchor text.
pub(crate) const MAX_ANCHOR_BYTES: usize = 1024;

/// The longest prefix of `s` with at most `max` bytes that ends on a char boundary.
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

/// Splits at every whitespace character, exactly like `str::split(char::is_whitespace)` (empty
/// pieces included), but tests ASCII bytes directly instead of decoding every character: text
/// normalisation is the hottest loop of the page walk.
struct WsSplit<'a> {
    s: &'a str,
    pos: usize,
    done: bool,
}

pub(crate) fn split_ws(s: &str) -> impl Iterator<Item = &str> {
    WsSplit {
        s,
        pos: 0,
        done: false,
    }
}

impl<'a> Iterator for WsSplit<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        let b = self.s.as_bytes();
        let start = self.pos;
        let mut i = start;
        while i < b.len() {
            let (is_ws, len) = if b[i] < 0x80 {
                (
                    matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
                    1,
                )
            } else {
                match self.s[i..].chars().next() {
                    Some(c) => (c.is_whitespace(), c.len_utf8()),
                    None => break,
                }
            };
            if is_ws {
                self.pos = i + len;
                return Some(&self.s[start..i]);
            }
            i += len;
        }
        self.done = true;
        Some(&self.s[start..])
    }
}

/// A capped, whitespace-normalising string builder (anchor texts, titles).
#[derive(Debug, Default)]
pub(crate) struct Norm {
    text: String,
    space: bool,
    /// Set once text was cut at the cap; nothing is appended after a cut.
    full: bool,
}

impl Norm {
    /// Appends text; anything past `cap` bytes is dropped.
    pub(crate) fn push(&mut self, src: &str, cap: usize) {
        for (i, word) in split_ws(src).enumerate() {
            if i > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            let sep = usize::from(self.space && !self.text.is_empty());
            if self.full || self.text.len() + sep + word.len() > cap {
                if !self.full && self.text.len() + sep < cap {
                    self.text.push_str(&" "[..sep]);
                    self.text.push_str(prefix(word, cap - self.text.len()));
                }
                self.full = true;
                return;
            }
            self.text.push_str(&" "[..sep]);
            self.space = false;
            self.text.push_str(word);
        }
    }

    /// Marks a word boundary (a block edge, `<br>`, an image's alt text).
    pub(crate) fn boundary(&mut self) {
        self.space = true;
    }

    /// The text so far.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The finished text.
    pub(crate) fn into_string(self) -> String {
        self.text
    }
}

/// Builds the visible text blocks of a page and tells which block holds a given position.
///
/// Text accumulates in a *segment*; a block-level boundary closes the segment, which becomes a
/// block if it holds any text. Links record the segment they are in ([`Blocks::segment`]);
/// once the walk ends, [`Blocks::block_of`] maps a segment to its block, or `None` for a
/// segment without text.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    blocks: Vec<String>,
    current: String,
    space: bool,
    /// Block index of each closed segment that something referred to.
    segments: Vec<Option<u32>>,
    /// Whether something refers to the open segment, so it must be recorded even if empty.
    referenced: bool,
    /// Enclosing page-furniture elements (see `elements::is_boilerplate`).
    boiler_depth: u32,
    /// Indices of the blocks closed inside page furniture.
    boilerplate: Vec<u32>,
}

impl Blocks {
    /// The id of the open segment, for a link found here.
    pub(crate) fn segment(&mut self) -> u32 {
        self.referenced = true;
        self.segments.len() as u32
    }

    /// Appends visible text; returns whether it held any non-whitespace.
    pub(crate) fn push(&mut self, src: &str) -> bool {
        let mut any = false;
        for (i, word) in split_ws(src).enumerate() {
            if i > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            any = true;
            if !self.current.is_empty() && self.current.len() + 1 + word.len() > MAX_BLOCK_BYTES {
                self.close();
            }
            if self.space && !self.current.is_empty() {
                self.current.push(' ');
            }
            self.space = false;
            self.current.push_str(prefix(word, MAX_BLOCK_BYTES));
        }
        any
    }

    /// Marks a word boundary inside the block (`<br>`).
    pub(crate) fn boundary(&mut self) {
        self.space = true;
    }

    /// Enters (`true`) or leaves page furniture; call at a block boundary, after `close`.
    pub(crate) fn furniture(&mut self, enter: bool) {
        if enter {
            self.boiler_depth += 1;
        } else {
            self.boiler_depth = self.boiler_depth.saturating_sub(1);
        }
    }

    /// Closes the open segment at a block-level boundary.
    pub(crate) fn close(&mut self) {
        if !self.current.is_empty() {
            if self.boiler_depth > 0 {
                self.boilerplate.push(self.blocks.len() as u32);
            }
            self.segments.push(Some(self.blocks.len() as u32));
            // An exact-size copy; `current` keeps its capacity for the next block.
            self.blocks.push(self.current.clone());
            self.current.clear();
        } else if self.referenced {
            self.segments.push(None);
        }
        self.referenced = false;
        self.space = false;
    }

    /// The block a segment became, if it held text. Only meaningful after the last `close`.
    pub(crate) fn block_of(&self, segment: u32) -> Option<u32> {
        self.segments.get(segment as usize).copied().flatten()
    }

    /// The finished blocks, and the indices of those that are page furniture.
    pub(crate) fn into_blocks(self) -> (Vec<String>, Vec<u32>) {
        (self.blocks, self.boilerplate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_matches_std() {
        for s in [
            "",
            " ",
            "a",
            " a b  c ",
            "x\u{a0}y\u{3000}z\u{2009}",
            "\té\n\x0bü ",
            "日本 語",
        ] {
            let ours: Vec<&str> = split_ws(s).collect();
            let std: Vec<&str> = s.split(char::is_whitespace).collect();
            assert_eq!(ours, std, "{s:?}");
        }
    }

    #[test]
    fn norm_collapses_whitespace() {
        let mut n = Norm::default();
        n.push("  Hello \n\t", 100);
        n.push("wor", 100);
        n.push("ld\u{a0}\u{a0}again ", 100);
        n.boundary();
        n.push("end", 100);
        assert_eq!(n.as_str(), "Hello world again end");
    }

    #[test]
    fn norm_caps_on_char_boundary() {
        let mut n = Norm::default();
        n.push("ééééé", 5);
        assert_eq!(n.as_str(), "éé");
        n.push("more", 5);
        assert_eq!(n.into_string(), "éé");
    }

    #[test]
    fn blocks_and_segments() {
        let mut b = Blocks::default();
        let head = b.segment();
        b.close();
        b.push(" First  paragraph ");
        let in_first = b.segment();
        b.push("continues");
        b.close();
        b.close();
        let empty = b.segment();
        b.close();
        b.push("Second");
        let second = b.segment();
        b.close();
        assert_eq!(b.block_of(head), None);
        assert_eq!(b.block_of(in_first), Some(0));
        assert_eq!(b.block_of(empty), None);
        assert_eq!(b.block_of(second), Some(1));
        assert_eq!(
            b.into_blocks(),
            (
                vec!["First paragraph continues".into(), "Second".into()],
                vec![]
            )
        );
    }

    #[test]
    fn long_text_is_split() {
        let mut b = Blocks::default();
        let word = "abcdefghi ";
        b.push(&word.repeat(MAX_BLOCK_BYTES / 5));
        b.push(&"x".repeat(MAX_BLOCK_BYTES * 2));
        b.close();
        let (blocks, _) = b.into_blocks();
        assert!(blocks.len() >= 3, "{}", blocks.len());
        assert!(blocks.iter().all(|s| s.len() <= MAX_BLOCK_BYTES));
        assert_eq!(blocks.last().map(String::len), Some(MAX_BLOCK_BYTES));
    }
}
