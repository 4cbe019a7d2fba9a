//! Links in CSS: `url(...)` and `@import`, in stylesheets, `<style>` elements and `style`
//! attributes. A small scanner rather than a CSS parser: it knows comments, strings and escapes,
//! which is all that decides where a URL is.

use std::borrow::Cow;

use url::Url;

use super::ParseLimits;
use crate::model::{Hop, Link};
use crate::uri::resolve_quiet;

/// Links in a stylesheet: every `url(...)` (context `css/url()`) and every `@import` (context
/// `css/@import`), all [`Hop::Embed`] since a stylesheet's references are page requisites.
/// Unfetchable (`data:`) and unparseable URLs are dropped; at most `limits.max_links` are kept.
pub fn css(text: &str, base: &Url, limits: &ParseLimits) -> Vec<Link> {
    let mut links = Vec::new();
    scan(text, |raw, import| {
        if links.len() >= limits.max_links {
            return false;
        }
        if raw.trim().is_empty() {
            return true;
        }
        if let Ok(url) = resolve_quiet(&raw, base, limits.max_url_len) {
            links.push(Link {
                url: url.into(),
                hop: Hop::Embed,
                context: if import { "css/@import" } else { "css/url()" }.to_owned(),
                text: String::new(),
                block: None,
            });
        }
        true
    });
    links
}

fn starts_with_ci(b: &[u8], prefix: &[u8]) -> bool {
    b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'\\' || b >= 0x80
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

/// Calls `each(url, is_import)` for every URL reference in `text`, unescaped, in order.
/// `each` returns `false` to stop.
pub(crate) fn scan(text: &str, mut each: impl FnMut(Cow<'_, str>, bool) -> bool) {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(n, |p| i + 2 + p + 2);
            }
            b'"' | b'\'' => i = string(text, i).1,
            b'\\' => i += 2,
            b'@' if starts_with_ci(&b[i + 1..], b"import") => {
                i = skip_space(b, i + 7);
                let found = match b.get(i) {
                    Some(b'"' | b'\'') => {
                        let (raw, end) = string(text, i);
                        i = end;
                        Some(raw)
                    }
                    Some(_) if starts_with_ci(&b[i..], b"url(") => {
                        let (raw, end) = url_token(text, i + 4);
                        i = end;
                        raw
                    }
                    _ => None,
                };
                if let Some(raw) = found {
                    if !each(unescape(raw), true) {
                        return;
                    }
                }
            }
            b'u' | b'U' if starts_with_ci(&b[i..], b"url(") && (i == 0 || !is_ident(b[i - 1])) => {
                let (raw, end) = url_token(text, i + 4);
                i = end;
                if let Some(raw) = raw {
                    if !each(unescape(raw), false) {
                        return;
                    }
                }
            }
            _ => i += 1,
        }
    }
}

/// A quoted string starting at the quote at `start`: its raw content and the index after it.
/// An unescaped newline or the end of input ends it, as in CSS.
fn string(text: &str, start: usize) -> (&str, usize) {
    let b = text.as_bytes();
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            q if q == quote => return (&text[start + 1..i], i + 1),
            b'\n' => return (&text[start + 1..i], i),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    (&text[(start + 1).min(b.len())..], b.len())
}

/// The argument of `url(` starting at `start` (just after the parenthesis): the raw URL, if it
/// is well-formed, and the index after the closing parenthesis.
fn url_token(text: &str, start: usize) -> (Option<&str>, usize) {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = skip_space(b, start);
    let raw = if i < n && (b[i] == b'"' || b[i] == b'\'') {
        let (raw, end) = string(text, i);
        i = end;
        raw
    } else {
        let from = i;
        while i < n && b[i] != b')' && !is_space(b[i]) && b[i] != b'"' && b[i] != b'\'' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let to = i.min(n);
        i = to;
        &text[from..to]
    };
    i = skip_space(b, i);
    if i >= n {
        return (Some(raw), n);
    }
    if b[i] == b')' {
        return (Some(raw), i + 1);
    }
    // A bad url token: skip to its end and report nothing.
    let end = b[i..]
        .iter()
        .position(|&c| c == b')')
        .map_or(n, |p| i + p + 1);
    (None, end)
}

/// Resolves CSS escapes: `\` + up to six hex digits (+ one optional space) is a code point,
/// `\` + newline is a line continuation, `\` + anything else is that character.
fn unescape(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut code = 0u32;
        let mut digits = 0;
        while digits < 6 {
            match chars.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    code = code * 16 + d;
                    digits += 1;
                    chars.next();
                }
                None => break,
            }
        }
        if digits > 0 {
            if chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                chars.next();
            }
            out.push(
                char::from_u32(code)
                    .filter(|&c| c != '\0')
                    .unwrap_or('\u{FFFD}'),
            );
        } else {
            match chars.next() {
                Some('\n') | None => {}
                Some(other) => out.push(other),
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(text: &str) -> Vec<(String, String)> {
        let base = Url::parse("http://example.org/css/site.css").unwrap();
        css(text, &base, &ParseLimits::default())
            .into_iter()
            .map(|l| {
                assert_eq!(l.hop, Hop::Embed);
                (l.url, l.context)
            })
            .collect()
    }

    fn u(url: &str, ctx: &str) -> (String, String) {
        (url.to_owned(), ctx.to_owned())
    }

    #[test]
    fn url_forms_and_imports() {
        let css = r#"
            @import "reset.css";
            @IMPORT url('print.css') print;
            @import url(  theme.css  );
            body { background: URL( "../img/bg.png" ) no-repeat; }
            .a { background-image: url(/img/a.png), url('b.png'); }
            .font { src: url(fonts/f.woff2#iefix) format("woff2"); }
        "#;
        assert_eq!(
            urls(css),
            [
                u("http://example.org/css/reset.css", "css/@import"),
                u("http://example.org/css/print.css", "css/@import"),
                u("http://example.org/css/theme.css", "css/@import"),
                u("http://example.org/img/bg.png", "css/url()"),
                u("http://example.org/img/a.png", "css/url()"),
                u("http://example.org/css/b.png", "css/url()"),
                u("http://example.org/css/fonts/f.woff2", "css/url()"),
            ]
        );
    }

    #[test]
    fn escapes_quotes_comments() {
        let css = r#"
            /* url(commented.png) */
            .q { content: "url(in-string.png)"; }
            .e1 { background: url(a\)b.png); }
            .e2 { background: url("sp\ ace.png"); }
            .e3 { background: url('\70 ic.png'); }
            .e4 { background: url("it\'s.png"); }
            .d { background: url(data:image/png;base64,AAAA); }
            .myurl(x.png) {}
            .bad { background: url(bad url.png); }
            .after { background: url(after.png) }
        "#;
        assert_eq!(
            urls(css),
            [
                u("http://example.org/css/a)b.png", "css/url()"),
                u("http://example.org/css/sp%20ace.png", "css/url()"),
                u("http://example.org/css/pic.png", "css/url()"),
                u("http://example.org/css/it's.png", "css/url()"),
                u("http://example.org/css/after.png", "css/url()"),
            ]
        );
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for s in [
            "url(",
            "url(\"abc",
            "@import",
            "@import '",
            "/* open",
            "\\",
            "url( x",
            "'\\",
        ] {
            let _ = urls(s);
        }
        assert_eq!(
            urls("url(tail.png"),
            [u("http://example.org/css/tail.png", "css/url()")]
        );
    }

    #[test]
    fn cap_respected() {
        let sheet = "a{background:url(x.png)}".repeat(50);
        let base = Url::parse("http://example.org/").unwrap();
        let limits = ParseLimits {
            max_links: 7,
            ..ParseLimits::default()
        };
        assert_eq!(css(&sheet, &base, &limits).len(), 7);
    }
}
