//! The index's word tokenizer: tantivy's `SimpleTokenizer`, `RemoveLongFilter::limit(40)`,
//! `LowerCaser` and `AsciiFoldingFilter` fused into one pass with the same output.
//!
//! The four-stage chain costs a third of the live index's tokenizing time in dispatch and
//! copies between stages; most words of most pages are ASCII, for which the whole chain comes
//! down to "lowercase the bytes". Those take the fused path; any other word goes through
//! tantivy's own lowercaser and folder, so tokens are the same as the chain's byte for byte,
//! with the same positions (a dropped long word still takes one) and offsets. A test checks
//! this against the chain on random text.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RawTokenizer, Token, TokenFilter, TokenStream, Tokenizer,
};

/// tantivy's lowercaser and ASCII folder over one whole word, as concrete types: no boxed
/// stream per word.
type Fold = <AsciiFoldingFilter as TokenFilter>::Tokenizer<
    <LowerCaser as TokenFilter>::Tokenizer<RawTokenizer>,
>;

/// Words of this many bytes or more (before lowercasing) are dropped, as
/// `RemoveLongFilter::limit(MAX_WORD_BYTES)` does.
pub(crate) const MAX_WORD_BYTES: usize = 40;

/// Splits on characters that are not alphanumeric, drops long words, lowercases and folds
/// accents to ASCII (see the module docs).
#[derive(Clone)]
pub(crate) struct WordTokenizer {
    token: Token,
    /// Lowercases and folds one non-ASCII word, exactly as the chain does.
    fold: Fold,
}

impl Default for WordTokenizer {
    fn default() -> Self {
        WordTokenizer {
            token: Token::default(),
            fold: AsciiFoldingFilter.transform(LowerCaser.transform(RawTokenizer::default())),
        }
    }
}

/// The words of one text.
pub(crate) struct WordStream<'a> {
    text: &'a str,
    /// Byte offset where the search for the next word starts.
    at: usize,
    token: &'a mut Token,
    fold: &'a mut Fold,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            at: 0,
            token: &mut self.token,
            fold: &mut self.fold,
        }
    }
}

/// Whether the character starting at byte `i` of `text` is alphanumeric, and its length.
#[inline]
fn char_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return (b.is_ascii_alphanumeric(), 1);
    }
    text[i..]
        .chars()
        .next()
        .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8()))
}

impl WordStream<'_> {
    /// The byte range of the next run of alphanumeric characters.
    fn next_word(&mut self) -> Option<(usize, usize)> {
        let len = self.text.len();
        let mut i = self.at;
        let start = loop {
            if i >= len {
                self.at = len;
                return None;
            }
            match char_at(self.text, i) {
                (true, _) => break i,
                (false, n) => i += n,
            }
        };
        let mut end = start;
        while end < len {
            match char_at(self.text, end) {
                (true, n) => end += n,
                (false, _) => break,
            }
        }
        self.at = end;
        Some((start, end))
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            // Every word takes a position, even a dropped one, as in the chain.
            self.token.position = self.token.position.wrapping_add(1);
            let Some((from, to)) = self.next_word() else {
                return false;
            };
            if to - from >= MAX_WORD_BYTES {
                continue;
            }
            let word = &self.text[from..to];
            self.token.offset_from = from;
            self.token.offset_to = to;
            self.token.text.clear();
            if word.is_ascii() {
                self.token.text.push_str(word);
                self.token.text.make_ascii_lowercase();
            } else {
                let mut folded = self.fold.token_stream(word);
                if folded.advance() {
                    self.token.text.push_str(&folded.token().text);
                }
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample_site::SplitMix;
    use tantivy::tokenizer::{RemoveLongFilter, SimpleTokenizer, TextAnalyzer};

    /// The chain this tokenizer replaces.
    fn chain() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(MAX_WORD_BYTES))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .build()
    }

    fn tokens(a: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut out = vec![];
        let mut s = a.token_stream(text);
        while s.advance() {
            let t = s.token();
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    #[test]
    fn tokens_equal_the_chains_on_random_text() {
        let pieces = [
            "Solar",
            "PANEL",
            "wind",
            "x",
            "42",
            "3rd",
            " ",
            " ",
            ", ",
            ".",
            "-",
            "\n",
            "'",
            "Élan",
            "straße",
            "İstanbul",
            "ΣΊΣΥΦΟΣ",
            "naïve",
            "Ångström",
            "ǅemal",
            "ﬁre",
            "気候変動",
            "한국어",
            "٣٤",
            "e\u{301}",
            "\u{301}",
            "🙂",
            "\u{a0}",
            "\u{200b}",
            "Ⅻ",
            "ⓐ",
            "ａｂｃ",
            "\u{fffd}",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklm", // 39 bytes: kept
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmn", // 40 bytes: dropped
            "ééééééééééééééééééé",                     // 38 bytes
            "éééééééééééééééééééé",                    // 40 bytes: dropped
        ];
        let (mut fused, mut old) = (TextAnalyzer::from(WordTokenizer::default()), chain());
        let mut rng = SplitMix::new(17);
        for _ in 0..3000 {
            let n = (rng.next_u64() % 24) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(rng.next_u64() % pieces.len() as u64) as usize])
                .collect();
            assert_eq!(
                tokens(&mut fused, &text),
                tokens(&mut old, &text),
                "{text:?}"
            );
        }
        // The analyzer is reused across texts: each starts from position 0.
        assert_eq!(tokens(&mut fused, "b a")[0].1, 0);
    }

    #[test]
    fn long_words_are_dropped_but_keep_their_position() {
        let mut a = TextAnalyzer::from(WordTokenizer::default());
        let long = "w".repeat(MAX_WORD_BYTES);
        let got = tokens(&mut a, &format!("Wind {long} Farm"));
        assert_eq!(got, [("wind".into(), 0, 0, 4), ("farm".into(), 2, 46, 50)]);
    }
}
