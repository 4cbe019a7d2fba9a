//! Parsers for the small syntaxes inside HTML attribute values that carry URLs or crawl
//! directives: `srcset`, `<meta http-equiv=refresh>`, `<link rel>`, `<meta name=robots>`.

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// Calls `each` with every candidate URL of a `srcset` value (`a.jpg 1x, b.jpg 2x`), following
/// the HTML parsing rules: URLs may contain commas, descriptors end at a comma outside
/// parentheses. Candidates are passed in order; `each` returns `false` to stop.
pub(crate) fn srcset_urls(s: &str, mut each: impl FnMut(&str) -> bool) {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && (is_space(b[i]) || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() {
            return;
        }
        let start = i;
        while i < b.len() && !is_space(b[i]) {
            i += 1;
        }
        let mut url = &s[start..i];
        if url.ends_with(',') {
            url = url.trim_end_matches(',');
        } else {
            let mut in_parens = false;
            while i < b.len() {
                match b[i] {
                    b'(' => in_parens = true,
                    b')' => in_parens = false,
                    b',' if !in_parens => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        if !url.is_empty() && !each(url) {
            return;
        }
    }
}

/// The URL in a `<meta http-equiv="refresh" content="5; url=...">` value, if there is one
/// (a bare delay refreshes the page itself and yields nothing). Accepts the forms browsers do:
/// `0;url=x`, `0; URL = 'x'`, `0, x`, `0 x`.
pub(crate) fn refresh_url(content: &str) -> Option<&str> {
    let s = trim_space(content);
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let s = trim_space(s);
    let s = s.strip_prefix([';', ',']).unwrap_or(s);
    let mut s = trim_space(s);
    if s.len() >= 3 && s.as_bytes()[..3].eq_ignore_ascii_case(b"url") {
        if let Some(rest) = trim_space(&s[3..]).strip_prefix('=') {
            s = trim_space(rest);
        }
    }
    let url = match s.as_bytes().first() {
        Some(&q) if q == b'"' || q == b'\'' => {
            let inner = &s[1..];
            &inner[..inner.find(q as char).unwrap_or(inner.len())]
        }
        _ => s,
    };
    let url = trim_space(url);
    (!url.is_empty()).then_some(url)
}

/// What a `<link rel=...>` points at, as far as crawling is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkRel {
    /// Something the page needs to render (stylesheet, icon, preload, manifest): an embed.
    Embed,
    /// Another document (next, prev, alternate, canonical, or an unknown relation): a link.
    Navigate,
    /// A connection hint (`dns-prefetch`, `preconnect`) naming an origin, not a resource.
    Ignore,
    /// A machine-readable description of the page or the site, not a page a reader visits and
    /// not needed to render this one: shortlinks, RSD, wlwmanifest, pingback, OpenSearch, REST
    /// API roots, oEmbed, and alternate feeds. Blogs and wikis put several in every page's
    /// head, so following them costs requests per page (a 301 per WordPress post for
    /// `?p=N` alone). The crawl skips them unless the spec or the knowledge base asks.
    Discovery,
}

/// Relations that only describe the page or the site to machines.
const DISCOVERY_RELS: [&str; 7] = [
    "shortlink",
    "edituri",
    "wlwmanifest",
    "pingback",
    "search",
    "https://api.w.org/",
    "https://github.com/WP-API/WP-API",
];

/// Media types of `rel=alternate` links that are feeds or API views of the page, not pages.
const DISCOVERY_TYPES: [&str; 8] = [
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/feed+json",
    "application/json",
    "application/json+oembed",
    "text/xml+oembed",
    "application/xml+oembed",
];

/// Relations whose target is a page requisite.
const EMBED_RELS: [&str; 9] = [
    "stylesheet",
    "icon",
    "apple-touch-icon",
    "apple-touch-icon-precomposed",
    "mask-icon",
    "preload",
    "modulepreload",
    "manifest",
    "fluid-icon",
];

/// Relations that only warm up a connection.
const HINT_RELS: [&str; 2] = ["dns-prefetch", "preconnect"];

/// Classifies a `rel` value (space-separated, case-insensitive tokens) and the link's `type`.
/// Any requisite token makes it an embed (`rel="shortcut icon"`); a discovery token, or
/// `alternate` with a feed, JSON or oEmbed type, makes it discovery; only hints make it
/// ignorable; anything else, including a missing `rel` and `alternate` translations
/// (`hreflang`), is navigation, which scope can still refuse.
pub(crate) fn link_rel(rel: Option<&str>, kind: Option<&str>) -> LinkRel {
    let mut only_hints = rel.is_some();
    let mut discovery = false;
    let is = |token: &str, list: &[&str]| list.iter().any(|r| token.eq_ignore_ascii_case(r));
    for token in rel.unwrap_or_default().split_ascii_whitespace() {
        if is(token, &EMBED_RELS) {
            return LinkRel::Embed;
        }
        let machine_view = token.eq_ignore_ascii_case("alternate")
            && kind.is_some_and(|t| is(t.split(';').next().unwrap_or("").trim(), &DISCOVERY_TYPES));
        discovery |= is(token, &DISCOVERY_RELS) || machine_view;
        if !is(token, &HINT_RELS) {
            only_hints = false;
        }
    }
    if discovery {
        return LinkRel::Discovery;
    }
    if only_hints && rel.is_some_and(|r| !r.trim().is_empty()) {
        LinkRel::Ignore
    } else {
        LinkRel::Navigate
    }
}

/// `(nofollow, noindex)` from a `<meta name="robots">` content value; `none` means both.
pub(crate) fn robots_flags(content: &str) -> (bool, bool) {
    let (mut nofollow, mut noindex) = (false, false);
    for token in content.split(|c: char| c == ',' || c.is_ascii_whitespace()) {
        if token.eq_ignore_ascii_case("nofollow") {
            nofollow = true;
        } else if token.eq_ignore_ascii_case("noindex") {
            noindex = true;
        } else if token.eq_ignore_ascii_case("none") {
            nofollow = true;
            noindex = true;
        }
    }
    (nofollow, noindex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn srcset(s: &str) -> Vec<String> {
        let mut v = Vec::new();
        srcset_urls(s, |u| {
            v.push(u.to_owned());
            true
        });
        v
    }

    #[test]
    fn srcset_candidates() {
        assert_eq!(srcset("a.jpg"), ["a.jpg"]);
        assert_eq!(srcset(" a.jpg 1x, b.jpg 2x "), ["a.jpg", "b.jpg"]);
        assert_eq!(srcset("a.jpg 480w,b.jpg 800w"), ["a.jpg", "b.jpg"]);
        assert_eq!(
            srcset("img.php?w=1,2 1x, c.png"),
            ["img.php?w=1,2", "c.png"]
        );
        assert_eq!(srcset("a.jpg,, b.jpg,"), ["a.jpg", "b.jpg"]);
        assert_eq!(srcset("a.jpg (x, y) 1x, b.jpg"), ["a.jpg", "b.jpg"]);
        assert!(srcset(" , ,").is_empty());
        let mut n = 0;
        srcset_urls("a 1x, b 2x, c 3x", |_| {
            n += 1;
            n < 2
        });
        assert_eq!(n, 2);
    }

    #[test]
    fn refresh_forms() {
        assert_eq!(refresh_url("5; url=/next.html"), Some("/next.html"));
        assert_eq!(
            refresh_url("0;URL='http://e.org/a b'"),
            Some("http://e.org/a b")
        );
        assert_eq!(refresh_url(" 0 , \"/q\" "), Some("/q"));
        assert_eq!(refresh_url("3.5 ;Url = other.html"), Some("other.html"));
        assert_eq!(refresh_url("0 /plain"), Some("/plain"));
        assert_eq!(refresh_url("30"), None);
        assert_eq!(refresh_url("5; url="), None);
    }

    #[test]
    fn rel_classes() {
        let rel = |r: Option<&str>| link_rel(r, None);
        assert_eq!(rel(Some("stylesheet")), LinkRel::Embed);
        assert_eq!(rel(Some("Shortcut ICON")), LinkRel::Embed);
        assert_eq!(rel(Some("preload")), LinkRel::Embed);
        assert_eq!(rel(Some("manifest")), LinkRel::Embed);
        assert_eq!(rel(Some("next")), LinkRel::Navigate);
        assert_eq!(rel(Some("alternate canonical")), LinkRel::Navigate);
        assert_eq!(rel(None), LinkRel::Navigate);
        assert_eq!(rel(Some("")), LinkRel::Navigate);
        assert_eq!(rel(Some("dns-prefetch")), LinkRel::Ignore);
        assert_eq!(rel(Some("preconnect dns-prefetch")), LinkRel::Ignore);
        assert_eq!(rel(Some("preconnect next")), LinkRel::Navigate);
        // What WordPress and MediaWiki put in every page's head.
        for r in [
            "shortlink",
            "EditURI",
            "wlwmanifest",
            "pingback",
            "search",
            "https://api.w.org/",
        ] {
            assert_eq!(rel(Some(r)), LinkRel::Discovery, "{r}");
        }
        for t in [
            "application/rss+xml",
            "application/atom+xml",
            "application/json+oembed",
            "text/xml+oembed; charset=utf-8",
            "application/json",
        ] {
            assert_eq!(
                link_rel(Some("alternate"), Some(t)),
                LinkRel::Discovery,
                "{t}"
            );
        }
        // A translation or a print view is a page; a requisite stays a requisite.
        assert_eq!(
            link_rel(Some("alternate"), Some("text/html")),
            LinkRel::Navigate
        );
        assert_eq!(link_rel(Some("alternate"), None), LinkRel::Navigate);
        assert_eq!(link_rel(Some("preload search"), None), LinkRel::Embed);
    }

    #[test]
    fn robots() {
        assert_eq!(robots_flags("noindex, nofollow"), (true, true));
        assert_eq!(robots_flags("NOFOLLOW"), (true, false));
        assert_eq!(robots_flags("index,follow"), (false, false));
        assert_eq!(robots_flags("none"), (true, true));
        assert_eq!(robots_flags("noindex"), (false, true));
    }
}
