//! The canonical form of a URL for the seen-test: two spellings of one resource map to one
//! string, so the crawler fetches it once.

use url::{Position, Url};

/// Canonical form of a URL, used only for the seen-test (the URL as found is what gets fetched).
///
/// Rules (after Pant, Srinivasan & Menczer, "Crawling the Web", section 2.4):
/// - scheme and host lowercased, IDN hosts in punycode, default port dropped, dot segments
///   resolved, empty path written `/`: all done by the WHATWG parser that produced `url`;
/// - the fragment dropped, since it never reaches the server;
/// - an empty query dropped (`/p?` is `/p`: no server tells them apart, and NodeBB links every
///   topic to itself as `?`), as Heritrix's `FixupQueryString` does;
/// - percent-encoding normalised: escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`) are
///   decoded (`%7E` -> `~`), all other escapes get uppercase hex (`%3a` -> `%3A`). Both spellings
///   are equivalent by RFC 3986, section 6.2.2.
///
/// Deliberately not done, because it is not safe in general:
/// - removing `index.html` / `default.asp`: many servers serve something else (or a 404) at `/`;
/// - reordering or dropping query parameters: order is significant to some applications, and
///   "tracking" parameters are site-specific;
/// - decoding reserved escapes such as `%2F` or `%3D`, which change how a server splits the path
///   or query;
/// - case-folding the path, which is case-sensitive on most servers.
pub fn canonical(url: &Url) -> String {
    let s = &url[..Position::AfterQuery];
    let s = if url.query() == Some("") {
        &s[..s.len() - 1]
    } else {
        s
    };
    if !s.as_bytes().contains(&b'%') {
        return s.to_owned();
    }
    normalise_escapes(s)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Whether appending `decoded` to `out` could turn a stray `%` at its end (`%` or `%` plus one
/// hex digit, which the URL parser let through unescaped) into a new escape: `%%62c` must not
/// become `%bc`, which a server reads as the byte 0xBC, and which a second pass would rewrite.
fn completes_stray_escape(out: &str, decoded: u8) -> bool {
    if hex_val(decoded).is_none() {
        return false;
    }
    let tail = out.as_bytes();
    match tail {
        [.., b'%'] => true,
        [.., b'%', d] => hex_val(*d).is_some(),
        _ => false,
    }
}

/// Decodes escapes of unreserved characters and uppercases the hex of the rest. A `%` that does
/// not start a valid escape is left alone (the URL parser already allowed it), and an escape next
/// to such a `%` stays encoded when decoding it would complete a new escape.
fn normalise_escapes(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                let decoded = h * 16 + l;
                if is_unreserved(decoded) && !completes_stray_escape(&out, decoded) {
                    out.push(decoded as char);
                } else {
                    out.push('%');
                    out.push(bytes[i + 1].to_ascii_uppercase() as char);
                    out.push(bytes[i + 2].to_ascii_uppercase() as char);
                }
                i += 3;
                continue;
            }
        }
        // Copy the run up to the next '%' in one go (the input is ASCII after URL parsing,
        // but copying whole runs keeps any non-ASCII intact too).
        let next = bytes[i + 1..]
            .iter()
            .position(|&c| c == b'%')
            .map_or(bytes.len(), |p| i + 1 + p);
        out.push_str(&s[i..next]);
        i = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        canonical(&Url::parse(s).unwrap())
    }

    #[test]
    fn lowercases_scheme_and_host() {
        assert_eq!(c("HTTP://www.UIOWA.edu"), "http://www.uiowa.edu/");
        assert_eq!(
            c("http://WWW.uiowa.EDU/Path/File.HTML"),
            "http://www.uiowa.edu/Path/File.HTML"
        );
    }

    #[test]
    fn drops_fragment() {
        assert_eq!(
            c("http://myspiders.biz.uiowa.edu/faq.html#what"),
            "http://myspiders.biz.uiowa.edu/faq.html"
        );
        assert_eq!(c("http://a.example/x?q=1#f"), "http://a.example/x?q=1");
    }

    #[test]
    fn drops_an_empty_query_only() {
        assert_eq!(c("http://a.example/topic/1?"), "http://a.example/topic/1");
        assert_eq!(
            c("http://a.example/topic/1?#top"),
            "http://a.example/topic/1"
        );
        assert_eq!(c("http://a.example/?="), "http://a.example/?=");
        assert_eq!(c("http://a.example/?%7E"), "http://a.example/?~");
    }

    #[test]
    fn tilde_and_escape_case() {
        assert_eq!(
            c("http://dollar.biz.uiowa.edu/%7Epant/"),
            c("http://dollar.biz.uiowa.edu/~pant/")
        );
        assert_eq!(
            c("http://dollar.biz.uiowa.edu/%7epant/"),
            "http://dollar.biz.uiowa.edu/~pant/"
        );
        assert_eq!(c("http://a.example/%41%62%2d%5F"), "http://a.example/Ab-_");
        assert_eq!(
            c("http://a.example/a%2fb?x=%3d%e2%82%ac"),
            "http://a.example/a%2Fb?x=%3D%E2%82%AC"
        );
        assert_eq!(c("http://a.example/100%"), "http://a.example/100%");
        assert_eq!(c("http://a.example/%zz%4"), "http://a.example/%zz%4");
    }

    /// Found by the `url` fuzz target: decoding `%62` after a stray `%` made a new escape
    /// (`/4%%62c` became `/4%bc`, and a second pass `/4%BC`, another resource).
    #[test]
    fn decoding_never_completes_a_stray_escape() {
        for (raw, want) in [
            ("http://a.example/4%%62c", "http://a.example/4%%62c"),
            ("http://a.example/%a%62", "http://a.example/%a%62"),
            ("http://a.example/%%62%63", "http://a.example/%%62c"),
            ("http://a.example/%%2D%41", "http://a.example/%-A"),
            ("http://a.example/%g%41", "http://a.example/%gA"),
        ] {
            let once = c(raw);
            assert_eq!(once, want, "{raw}");
            assert_eq!(c(&once), once, "{raw}: canonical form is a fixed point");
        }
    }

    #[test]
    fn default_port_and_trailing_slash() {
        assert_eq!(c("http://a.example:80/x"), "http://a.example/x");
        assert_eq!(c("https://a.example:443"), "https://a.example/");
        assert_eq!(c("http://a.example:8080"), "http://a.example:8080/");
        assert_eq!(c("https://a.example:80/"), "https://a.example:80/");
        assert_eq!(
            c("http://dollar.biz.uiowa.edu"),
            c("http://dollar.biz.uiowa.edu/")
        );
    }

    #[test]
    fn dot_segments() {
        assert_eq!(
            c("http://a.example/%7Epant/BizIntel/Seeds/../ODPSeeds.dat"),
            "http://a.example/~pant/BizIntel/ODPSeeds.dat"
        );
        assert_eq!(c("http://a.example/a/./b/%2e%2E/c"), "http://a.example/a/c");
    }

    #[test]
    fn idn_to_punycode() {
        assert_eq!(c("http://Bücher.example/"), "http://xn--bcher-kva.example/");
    }

    #[test]
    fn keeps_index_pages_and_query_order() {
        assert_eq!(
            c("http://a.example/index.html"),
            "http://a.example/index.html"
        );
        assert_eq!(c("http://a.example/?b=2&a=1"), "http://a.example/?b=2&a=1");
    }
}
