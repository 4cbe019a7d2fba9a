//! One spelling for rules and paths before robots.txt matching (RFC 9309 sections 2.2.2, 2.2.3).
//!
//! A URL path has several legal spellings (`/%7Ejoe`, `/%7ejoe` and `/~joe` are one resource),
//! and a rule written in one spelling must catch the others. Rather than teach the matcher
//! about escapes, both sides are rewritten into one form and then compared octet by octet:
//!
//! - an escape of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded: `%62` -> `b`;
//! - every other escape keeps its encoding, with uppercase hex: `%2f` -> `%2F` (reserved
//!   characters change meaning when decoded, so `/a%2Fb` never matches `/a/b`);
//! - octets that cannot appear raw in a URI (non-ASCII, controls, space, the backquote and
//!   `" < > \ ^ { | }`), and `'`, which the URL parser encodes in queries, are percent-encoded;
//!   non-ASCII text in a rule is thus encoded as its UTF-8 octets;
//! - in a path, `*` and `$` are encoded (`%2A`, `%24`), and in a rule the `*` wildcard and a
//!   final `$` anchor stay raw while any other `$` becomes `%24`: a rule `/a-%2A` then matches
//!   the URI `/a-*` literally (section 2.2.3), and `*`/`$` written raw keep their pattern meaning.
//!
//! The rewrite of the robots.txt text touches only what the matcher compares: the values of
//! `Allow`/`Disallow` lines (an empty `Disallow:` becomes an `Allow:` with no path, which, like
//! the empty `Disallow`, matches nothing that any other rule does not), and `User-agent` values,
//! cut to their product token (`magpie/1.0` -> `magpie`, section 2.2.1). Rules before the first
//! `User-agent` line are dropped, since they belong to no group. Every other line, such as
//! `Sitemap:` or `Crawl-delay:`, is passed on verbatim.

use url::Url;

/// Spellings of `User-agent` the matcher accepts (the same as `texting_robots`).
const USER_AGENT_KEYS: [&str; 3] = ["user-agent", "user agent", "useragent"];
/// Spellings of `Disallow`, common typos included (the same as `texting_robots` and Protego).
const DISALLOW_KEYS: [&str; 6] = [
    "disallow",
    "dissallow",
    "dissalow",
    "disalow",
    "diasllow",
    "disallaw",
];

/// Whether RFC 3986 calls `b` unreserved: its escape and the raw octet are interchangeable.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Octets that a URI never carries raw: they are always compared in their `%XX` form.
fn must_encode(b: u8) -> bool {
    !b.is_ascii_graphic()
        || matches!(
            b,
            b'"' | b'\'' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
        )
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn push_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(HEX[usize::from(b >> 4)] as char);
    out.push(HEX[usize::from(b & 15)] as char);
}

/// Writes `input` in the normal form; `raw` decides which raw octets (beyond [`must_encode`])
/// are also encoded, given the octet and its index.
fn normalise(input: &[u8], raw: impl Fn(u8, usize) -> bool) -> String {
    let mut out = String::with_capacity(input.len() + 8);
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        let escape = match (b, input.get(i + 1), input.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => hex_val(h).zip(hex_val(l)).map(|(h, l)| h * 16 + l),
            _ => None,
        };
        match escape {
            Some(d) if is_unreserved(d) => out.push(d as char),
            Some(d) => push_escape(&mut out, d),
            // A `%` that starts no escape is compared as it is, on both sides.
            None if must_encode(b) || raw(b, i) => push_escape(&mut out, b),
            None => out.push(b as char),
        }
        i += if escape.is_some() { 3 } else { 1 };
    }
    out
}

/// The normal form of a rule's path pattern: `*` stays a wildcard and a final `$` an anchor.
pub fn normalise_rule(pattern: &[u8]) -> String {
    let last = pattern.len().saturating_sub(1);
    normalise(pattern, |b, i| b == b'$' && i != last)
}

/// The path and query of `url` (absolute, or a path), in the normal form the rules are
/// compared against. The fragment is dropped; an empty path is `/`.
pub fn normalise_path(url: &str) -> String {
    let target = match Url::parse(url) {
        Ok(u) if u.has_host() => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_owned(),
        },
        _ => url.split('#').next().unwrap_or_default().to_owned(),
    };
    let mut path = normalise(target.as_bytes(), |b, _| b == b'*' || b == b'$');
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    path
}

/// Splits a robots.txt line into its key (one of `keys`, matched case-insensitively after
/// leading blanks) and its value (after `:` or blanks, before any `#` comment, trimmed), the
/// way `texting_robots` reads it.
fn directive<'a>(line: &'a [u8], keys: &[&str]) -> Option<&'a [u8]> {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
    let line = &line[start..];
    let key = keys
        .iter()
        .find(|k| line.len() >= k.len() && line[..k.len()].eq_ignore_ascii_case(k.as_bytes()))?;
    let rest = &line[key.len()..];
    let blanks = rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let value = match rest.get(blanks) {
        Some(b':') => &rest[blanks + 1..],
        _ if blanks > 0 => &rest[blanks..],
        None => rest,
        Some(_) => return None,
    };
    let value = value.split(|&b| b == b'#').next().unwrap_or_default();
    Some(value.trim_ascii())
}

/// The product token at the start of a `User-agent` value (letters, `_` and `-`), or the
/// value itself when it has none (`*`).
fn agent_token(value: &[u8]) -> &[u8] {
    let n = value
        .iter()
        .take_while(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-'))
        .count();
    if n == 0 {
        value
    } else {
        &value[..n]
    }
}

/// Rewrites a robots.txt body so that the matcher compares normal forms (see the module
/// documentation). Lines end at `\n`, `\r` or NUL, as for the matcher; a leading BOM is dropped.
pub fn normalise_robots_txt(body: &[u8]) -> Vec<u8> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut out = Vec::with_capacity(body.len() + body.len() / 8);
    let mut in_group = false;
    for line in body.split(|&b| matches!(b, b'\n' | b'\r' | 0)) {
        if let Some(value) = directive(line, &USER_AGENT_KEYS) {
            in_group = true;
            out.extend_from_slice(b"User-agent: ");
            out.extend_from_slice(agent_token(value));
        } else if !in_group
            && directive(line, &["allow"])
                .or(directive(line, &DISALLOW_KEYS))
                .is_some()
        {
            // A rule before any `User-agent` line belongs to no group and applies to no one
            // (RFC 9309 section 2.1); the matcher would apply it to everyone in a file that
            // names no agent at all.
        } else if let Some(value) = directive(line, &["allow"]) {
            out.extend_from_slice(b"Allow: ");
            out.extend_from_slice(normalise_rule(value).as_bytes());
        } else if let Some(value) = directive(line, &DISALLOW_KEYS) {
            if value.is_empty() {
                // `Disallow:` alone disallows nothing; the matcher would read it as `Allow: /`,
                // which beats an equally long `Disallow: /`.
                out.extend_from_slice(b"Allow:");
            } else {
                out.extend_from_slice(b"Disallow: ");
                out.extend_from_slice(normalise_rule(value).as_bytes());
            }
        } else {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_decoded_or_uppercased() {
        assert_eq!(normalise_rule(b"/%62%61%7A"), "/baz");
        assert_eq!(normalise_rule(b"/%7ejoe/%2f%3d"), "/~joe/%2F%3D");
        assert_eq!(normalise_rule(b"/%e3%83%84"), "/%E3%83%84");
        assert_eq!(normalise_rule("/ツ".as_bytes()), "/%E3%83%84");
        assert_eq!(
            normalise_rule(b"/caf\xe9"),
            "/caf%E9",
            "non-UTF-8 octets too"
        );
        assert_eq!(normalise_rule(b"/50%off/%4"), "/50%off/%4", "stray % kept");
        assert_eq!(normalise_rule(b"/a b\"{|}"), "/a%20b%22%7B%7C%7D");
    }

    #[test]
    fn wildcard_and_anchor_only_in_rules() {
        assert_eq!(normalise_rule(b"/*.gif$"), "/*.gif$");
        assert_eq!(normalise_rule(b"/a$b$"), "/a%24b$");
        assert_eq!(normalise_rule(b"/a-%2a-%24"), "/a-%2A-%24");
        assert_eq!(normalise_path("/a-*-$"), "/a-%2A-%24");
    }

    #[test]
    fn paths_from_urls_and_bare_paths() {
        assert_eq!(
            normalise_path("http://h.example/%71ux?x=%7e#frag"),
            "/qux?x=~"
        );
        assert_eq!(normalise_path("http://h.example"), "/");
        assert_eq!(normalise_path("http://h.example/a?"), "/a?");
        assert_eq!(normalise_path("https://h.example/ツ"), "/%E3%83%84");
        assert_eq!(normalise_path("/%E3%83%84"), "/%E3%83%84");
        assert_eq!(normalise_path("/ツ#x"), "/%E3%83%84");
        assert_eq!(normalise_path("relative"), "/relative");
        assert_eq!(normalise_path(""), "/");
    }

    #[test]
    fn robots_txt_rewrite_touches_rules_and_agents_only() {
        let body = "\u{feff}User-Agent: Magpie/1.0 # us\r\n\
            Disallow: /%62az # comment\rallow /ツ\n\
            Disallow:\n\
            Sitemap: http://h.example/%7e.xml\n\
            Crawl-delay: 1\x00dissallow:/x";
        let out = String::from_utf8(normalise_robots_txt(body.as_bytes())).unwrap();
        assert_eq!(
            out,
            // CRLF ends a line, then an empty one: blank lines mean nothing to the matcher.
            "User-agent: Magpie\n\nDisallow: /baz\nAllow: /%E3%83%84\nAllow:\n\
             Sitemap: http://h.example/%7e.xml\nCrawl-delay: 1\nDisallow: /x\n"
        );
        // Lines that only start like a key are other records, left alone.
        let out = normalise_robots_txt(b"Allowance: /%62\nUser-agents-list: x\n");
        assert_eq!(out, b"Allowance: /%62\nUser-agents-list: x\n\n");
        assert_eq!(normalise_robots_txt(b"User-agent: *"), b"User-agent: *\n");
        let out =
            normalise_robots_txt(b"Disallow: /a\nAllow /b\nSitemap: /s\nUser-agent: *\nAllow: /c");
        assert_eq!(out, b"\n\nSitemap: /s\nUser-agent: *\nAllow: /c\n");
    }
}
