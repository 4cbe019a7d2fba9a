//! Tokenization: text to word tokens, including scripts written without spaces between words.
//!
//! A word is a maximal run of letters, digits and combining marks (an approximation of Unicode
//! word boundaries, UAX #29, that needs no segmentation tables: apostrophes and hyphens split
//! words, so `l'énergie` gives `l` and `énergie`). Tokens of one character are dropped (they are
//! the debris of such splits), and so are tokens longer than [`MAX_TOKEN_BYTES`] (hashes, base64,
//! runs of one letter), which are never words and would be expensive to stem.
//!
//! Scripts that do not separate words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar)
//! cannot be split without a dictionary. Their runs are indexed as overlapping character
//! bigrams instead (`气候变化` gives `气候`, `候变`, `变化`; a run of one character gives itself),
//! the usual dictionary-free choice in information retrieval: a two-character word matches
//! exactly and a longer one matches as a phrase of bigrams.

/// Longest token kept, in bytes.
pub(crate) const MAX_TOKEN_BYTES: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Whitespace, punctuation, symbols.
    Sep,
    /// Part of a space-separated word.
    Word,
    /// A character of a script without word separators.
    Dense,
}

fn is_dense(u: u32) -> bool {
    matches!(u,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FA1F) // CJK extensions B-F, compatibility supplement
}

/// Combining marks and joiners, which continue a word although they are not letters.
fn is_mark(u: u32) -> bool {
    matches!(u,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05C7
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06ED
        | 0x0900..=0x0963    // Indic blocks, dandas (0964, 0965) excluded
        | 0x0966..=0x0DFF
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x200C..=0x200D
        | 0x20D0..=0x20FF
        | 0xFE20..=0xFE2F)
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Word
        } else {
            Class::Sep
        };
    }
    let u = c as u32;
    if is_dense(u) {
        Class::Dense
    } else if c.is_alphanumeric() || is_mark(u) {
        Class::Word
    } else {
        Class::Sep
    }
}

/// Calls `f(token, byte_offset)` for every token of `text`, in order. Tokens are slices of
/// `text` (not lowercased); nothing is allocated.
pub(crate) fn tokenize(text: &str, mut f: impl FnMut(&str, usize)) {
    let mut word: Option<usize> = None;
    // Start of the previous dense character and the length of the current dense run.
    let mut dense_prev = 0usize;
    let mut dense_run = 0usize;
    for (i, c) in text.char_indices() {
        let cls = class(c);
        if cls != Class::Word {
            if let Some(s) = word.take() {
                emit_word(&text[s..i], s, &mut f);
            }
        }
        if cls != Class::Dense && dense_run > 0 {
            if dense_run == 1 {
                f(&text[dense_prev..i], dense_prev);
            }
            dense_run = 0;
        }
        match cls {
            Class::Word => {
                if word.is_none() {
                    word = Some(i);
                }
            }
            Class::Dense => {
                if dense_run > 0 {
                    f(&text[dense_prev..i + c.len_utf8()], dense_prev);
                }
                dense_prev = i;
                dense_run += 1;
            }
            Class::Sep => {}
        }
    }
    if let Some(s) = word {
        emit_word(&text[s..], s, &mut f);
    }
    if dense_run == 1 {
        f(&text[dense_prev..], dense_prev);
    }
}

fn emit_word(w: &str, start: usize, f: &mut impl FnMut(&str, usize)) {
    let long_enough = if w.is_ascii() {
        w.len() >= 2
    } else {
        w.chars().nth(1).is_some()
    };
    if long_enough && w.len() <= MAX_TOKEN_BYTES {
        f(w, start);
    }
}

/// Lowercases `token` into `buf` (cleared first) and returns it, or returns `token` itself when
/// it has nothing to lowercase (the common case: no copy).
pub(crate) fn lowercase<'a>(token: &'a str, buf: &'a mut String) -> &'a str {
    let needs = if token.is_ascii() {
        token.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        token.chars().any(char::is_uppercase)
    };
    if !needs {
        return token;
    }
    buf.clear();
    for c in token.chars() {
        buf.extend(c.to_lowercase());
    }
    buf
}

/// Host and path of an absolute URL (no scheme, user info, port, query or fragment).
pub(crate) fn host_and_path(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host // IPv6 literal: no topical words in it anyway
    } else {
        host.split(':').next().unwrap_or(host)
    };
    let after = &rest[end..];
    let path_end = after.find(['?', '#']).unwrap_or(after.len());
    (host, &after[..path_end])
}

/// Writes host and path of `url` to `buf`, lowercased, with percent-escapes turned into spaces
/// (they mostly encode separators; an escaped non-ASCII word is lost, which only costs recall).
pub(crate) fn url_text(url: &str, buf: &mut String) {
    let (host, path) = host_and_path(url);
    buf.clear();
    for part in [host, path] {
        let bytes = part.as_bytes();
        let mut chars = part.char_indices();
        while let Some((i, c)) = chars.next() {
            let escape = c == '%'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
            if escape {
                chars.next();
                chars.next();
                buf.push(' ');
            } else if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        }
        buf.push(' ');
    }
}

/// Parts of URLs that say nothing about the topic of the target.
pub(crate) fn is_url_noise(token: &str) -> bool {
    matches!(
        token,
        "www"
            | "com"
            | "org"
            | "net"
            | "edu"
            | "gov"
            | "html"
            | "htm"
            | "shtml"
            | "php"
            | "asp"
            | "aspx"
            | "jsp"
            | "cgi"
            | "index"
            | "default"
            | "http"
            | "https"
    )
}

/// Whether `host` is `domain` or one of its subdomains (ASCII case-insensitive).
pub(crate) fn host_in_domain(host: &str, domain: &str) -> bool {
    let host = host.trim_end_matches('.');
    if host.len() == domain.len() {
        return host.eq_ignore_ascii_case(domain);
    }
    host.len() > domain.len()
        && host.is_char_boundary(host.len() - domain.len())
        && host[host.len() - domain.len()..].eq_ignore_ascii_case(domain)
        && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<String> {
        let mut out = vec![];
        tokenize(text, |t, start| {
            assert_eq!(&text[start..start + t.len()], t);
            out.push(t.to_owned());
        });
        out
    }

    #[test]
    fn words_split_on_punctuation_and_drop_debris() {
        assert_eq!(
            toks("Solar-panels: l'énergie, 2026 & co. don't X"),
            ["Solar", "panels", "énergie", "2026", "co", "don"]
        );
        assert!(toks("").is_empty());
        assert!(toks(" ... ").is_empty());
    }

    #[test]
    fn combining_marks_stay_in_words() {
        // "café" with a combining acute accent, and a Hindi word with a vowel sign and virama.
        assert_eq!(toks("cafe\u{301} ok"), ["cafe\u{301}", "ok"]);
        assert_eq!(toks("हिन्दी भाषा"), ["हिन्दी", "भाषा"]);
    }

    #[test]
    fn scripts_without_spaces_become_bigrams() {
        assert_eq!(toks("气候变化"), ["气候", "候变", "变化"]);
        assert_eq!(toks("的 x 中"), ["的", "中"]);
        assert_eq!(toks("ภาษาไทย"), ["ภา", "าษ", "ษา", "าไ", "ไท", "ทย"]);
        assert_eq!(toks("abc气候def"), ["abc", "气候", "def"]);
    }

    #[test]
    fn overlong_tokens_are_dropped() {
        let blob = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(toks(&format!("{blob} word")), ["word"]);
    }

    #[test]
    fn lowercase_copies_only_when_needed() {
        let mut buf = String::new();
        let plain = "energy";
        assert!(std::ptr::eq(lowercase(plain, &mut buf), plain));
        assert_eq!(lowercase("ENERGIE", &mut buf), "energie");
        assert_eq!(lowercase("Über", &mut buf), "über");
        assert_eq!(lowercase("气候", &mut buf), "气候");
    }

    #[test]
    fn urls_yield_host_and_path_words() {
        assert_eq!(
            host_and_path("https://user@Solar.Example:8080/a/b.html?q=1#x"),
            ("Solar.Example", "/a/b.html")
        );
        assert_eq!(host_and_path("http://h"), ("h", ""));
        let mut buf = String::new();
        url_text("http://www.Solar.example/climate%20Change/x?y", &mut buf);
        assert_eq!(buf, "www.solar.example /climate change/x ");
        assert!(is_url_noise("www") && !is_url_noise("solar"));
    }

    #[test]
    fn spam_domains_match_subdomains_only() {
        assert!(host_in_domain("spam.example", "spam.example"));
        assert!(host_in_domain("a.SPAM.example", "spam.example"));
        assert!(!host_in_domain("notspam.example", "spam.example"));
        assert!(!host_in_domain("example", "spam.example"));
    }
}
