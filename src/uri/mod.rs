//! URLs: resolving hrefs found in documents, parsing seeds, and the derived keys the crawl keeps
//! per URL (canonical form and fingerprint for the seen-test, host key, registered domain, SURT).
//!
//! Every URL that enters the crawl passes through [`resolve`] or [`parse_absolute`], so the rules
//! "http and https only, no fragment, bounded length" hold everywhere downstream.

mod canon;
mod surt;

pub use canon::canonical;
pub use surt::surt;

use std::fmt::Write as _;

use url::Url;

/// Why a URL was refused. Every variant names the offending URL (cut to a readable length).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// The text is not a URL, or not one that can be resolved against the base.
    #[error("cannot parse URL {url:?}: {source}")]
    Parse {
        /// The raw text, shortened.
        url: String,
        /// What the URL parser said.
        #[source]
        source: url::ParseError,
    },
    /// The scheme is not one the crawler fetches (`mailto:`, `javascript:`, `ftp:`, ...).
    #[error("URL {url:?} has scheme {scheme:?}; only http and https are crawled")]
    Scheme {
        /// The URL, shortened.
        url: String,
        /// The scheme found, lowercased.
        scheme: String,
    },
    /// The resolved URL is longer than the configured limit (a common crawler-trap symptom).
    #[error("URL {url:?} is {len} bytes long, over the limit of {max}")]
    TooLong {
        /// The start of the URL.
        url: String,
        /// Its length in bytes.
        len: usize,
        /// The limit in force.
        max: usize,
    },
}

/// How long the URL shown in an error may be; longer ones are cut so logs stay readable.
const ERROR_URL_CHARS: usize = 200;

fn shorten(s: &str) -> String {
    match s.char_indices().nth(ERROR_URL_CHARS) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_owned(),
    }
}

/// A refusal without the allocation of a [`UriError`]; link extraction drops these silently
/// and in bulk (`javascript:void(0)` is common), so it must stay cheap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reject {
    Parse(url::ParseError),
    Scheme,
    TooLong(usize),
}

impl Reject {
    fn into_error(self, raw: &str, max_len: usize) -> UriError {
        match self {
            Reject::Parse(source) => UriError::Parse {
                url: shorten(raw),
                source,
            },
            Reject::Scheme => UriError::Scheme {
                url: shorten(raw),
                scheme: raw
                    .split(':')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase(),
            },
            Reject::TooLong(len) => UriError::TooLong {
                url: shorten(raw),
                len,
                max: max_len,
            },
        }
    }
}

/// Schemes refused before any parsing: they are frequent in hrefs and never fetchable.
const NON_FETCHABLE: [&str; 4] = ["javascript:", "mailto:", "data:", "tel:"];

fn has_prefix_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The allocation-free core of [`resolve`], used by link extraction.
pub(crate) fn resolve_quiet(raw: &str, base: &Url, max_len: usize) -> Result<Url, Reject> {
    let raw = raw.trim();
    if NON_FETCHABLE.iter().any(|p| has_prefix_ci(raw, p)) {
        return Err(Reject::Scheme);
    }
    let url = base.join(raw).map_err(Reject::Parse)?;
    finish(url, max_len)
}

/// Applies the rules every crawled URL obeys: http(s) only, no fragment, bounded length.
fn finish(mut url: Url, max_len: usize) -> Result<Url, Reject> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Reject::Scheme);
    }
    url.set_fragment(None);
    let len = url.as_str().len();
    if len > max_len {
        return Err(Reject::TooLong(len));
    }
    Ok(url)
}

/// Resolves a raw href found in a document against its base URL.
///
/// Trims surrounding whitespace, drops the fragment (it never changes what is fetched), accepts
/// only http and https, and refuses URLs longer than `max_len` bytes once resolved, because
/// ever-growing URLs are the usual sign of a crawler trap.
pub fn resolve(raw: &str, base: &Url, max_len: usize) -> Result<Url, UriError> {
    resolve_quiet(raw, base, max_len).map_err(|r| r.into_error(raw.trim(), max_len))
}

/// Parses a seed or intake URL, which must be absolute http or https.
///
/// Same rules as [`resolve`], but there is no base: a relative URL is an error, since a seed
/// list entry like `example.org/` is ambiguous and must be fixed by whoever wrote it.
pub fn parse_absolute(raw: &str, max_len: usize) -> Result<Url, UriError> {
    let raw = raw.trim();
    Url::parse(raw)
        .map_err(Reject::Parse)
        .and_then(|u| finish(u, max_len))
        .map_err(|r| r.into_error(raw, max_len))
}

/// Stable 64-bit fingerprint of a canonical URL (XXH3-64, seed 0).
///
/// The crawl store persists these as seen-set keys, so the function must never change between
/// versions: a change would make every stored URL look unseen. A test pins known values.
pub fn fingerprint(canonical: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(canonical.as_bytes())
}

/// `url` without its path's final slash (`/t/5/slug/` to `/t/5/slug`); `None` for a path
/// without one, or the root.
pub fn without_final_slash(url: &Url) -> Option<Url> {
    let path = url.path().strip_suffix('/').filter(|p| !p.is_empty())?;
    let mut bare = url.clone();
    bare.set_path(path);
    Some(bare)
}

/// The key for politeness and per-host queues: host plus a non-default port, lowercased
/// (`example.org`, `127.0.0.2:8080`, `[::1]:8443`).
///
/// The port is part of the key because two servers on one host are scheduled independently;
/// the scheme is not, since http and https of one site are the same server to be polite to.
pub fn host_key(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    let mut key = String::with_capacity(host.len() + 6);
    key.push_str(host);
    key.make_ascii_lowercase();
    if let Some(port) = url.port() {
        // Writing to a String cannot fail.
        let _ = write!(key, ":{port}");
    }
    key
}

/// The registered domain of a host by the public suffix list (`a.b.example.co.uk` ->
/// `example.co.uk`), used to group hosts of one site for budgets and scope.
///
/// IP addresses, hosts that are themselves a public suffix, and hosts whose suffix the list
/// does not know (`intranet.local`) are returned unchanged (lowercased): there is no
/// meaningful grouping above them.
pub fn registered_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok() {
        return host;
    }
    match psl::domain(host.as_bytes()) {
        Some(d) if d.suffix().is_known() => String::from_utf8_lossy(d.as_bytes()).into_owned(),
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("http://example.org/dir/page.html?q=1#top").unwrap()
    }

    #[test]
    fn resolve_relative_and_drops_fragment() {
        let u = resolve("  ../other.html#sec  ", &base(), 2048).unwrap();
        assert_eq!(u.as_str(), "http://example.org/other.html");
        let u = resolve("?x=2", &base(), 2048).unwrap();
        assert_eq!(u.as_str(), "http://example.org/dir/page.html?x=2");
        let u = resolve("//cdn.example.net/a.png", &base(), 2048).unwrap();
        assert_eq!(u.as_str(), "http://cdn.example.net/a.png");
        let u = resolve("HTTPS://Example.ORG:443/a", &base(), 2048).unwrap();
        assert_eq!(u.as_str(), "https://example.org/a");
    }

    #[test]
    fn resolve_rejects_non_http_schemes() {
        for raw in [
            "mailto:someone@example.org",
            "javascript:void(0)",
            " JavaScript:alert(1)",
            "data:text/plain,hi",
            "tel:+123",
            "ftp://example.org/file",
        ] {
            let err = resolve(raw, &base(), 2048).unwrap_err();
            assert!(matches!(err, UriError::Scheme { .. }), "{raw}: {err:?}");
        }
        let err = resolve("ftp://example.org/file", &base(), 2048).unwrap_err();
        assert_eq!(
            err,
            UriError::Scheme {
                url: "ftp://example.org/file".into(),
                scheme: "ftp".into()
            }
        );
    }

    #[test]
    fn resolve_rejects_too_long_and_garbage() {
        let long = format!("/{}", "a".repeat(300));
        let err = resolve(&long, &base(), 256).unwrap_err();
        match err {
            UriError::TooLong { len, max, url } => {
                assert_eq!(len, "http://example.org/".len() + 300);
                assert_eq!(max, 256);
                assert!(url.ends_with("..."), "error URL is shortened: {url}");
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
        assert!(resolve(&long, &base(), 400).is_ok());
        let err = resolve("http://exa mple.org/", &base(), 2048).unwrap_err();
        assert!(matches!(err, UriError::Parse { .. }));
        assert!(err.to_string().contains("exa mple.org"));
    }

    #[test]
    fn parse_absolute_requires_absolute_http() {
        assert_eq!(
            parse_absolute(" http://Example.org ", 2048)
                .unwrap()
                .as_str(),
            "http://example.org/"
        );
        assert!(matches!(
            parse_absolute("example.org/", 2048),
            Err(UriError::Parse { .. })
        ));
        assert!(matches!(
            parse_absolute("file:///etc/passwd", 2048),
            Err(UriError::Scheme { .. })
        ));
        assert!(matches!(
            parse_absolute("http://example.org/aaaaaaaaaa", 20),
            Err(UriError::TooLong { max: 20, .. })
        ));
    }

    #[test]
    fn fingerprint_is_pinned() {
        // Published XXH3-64 value of the empty input: proves the algorithm and seed.
        assert_eq!(fingerprint(""), 0x2D06_8005_38D3_94C2);
        // Pinned on first release: a change here means stored seen-sets would be invalidated.
        assert_eq!(fingerprint("http://example.org/"), 0xB73D_C5B0_66F5_3581);
        assert_ne!(
            fingerprint("http://example.org/"),
            fingerprint("http://example.org/a")
        );
    }

    #[test]
    fn host_keys() {
        let k = |s: &str| host_key(&Url::parse(s).unwrap());
        assert_eq!(k("http://Example.ORG/a"), "example.org");
        assert_eq!(k("http://example.org:80/a"), "example.org");
        assert_eq!(k("https://example.org:443/"), "example.org");
        assert_eq!(k("http://127.0.0.2:8080/"), "127.0.0.2:8080");
        assert_eq!(k("https://[::1]:8443/"), "[::1]:8443");
    }

    #[test]
    fn registered_domains() {
        assert_eq!(registered_domain("a.b.example.co.uk"), "example.co.uk");
        assert_eq!(registered_domain("www.Example.org"), "example.org");
        assert_eq!(registered_domain("example.org."), "example.org");
        assert_eq!(registered_domain("127.0.0.1"), "127.0.0.1");
        assert_eq!(registered_domain("[::1]"), "[::1]");
        assert_eq!(registered_domain("co.uk"), "co.uk");
        assert_eq!(
            registered_domain("intranet.invalidtld"),
            "intranet.invalidtld"
        );
        assert_eq!(registered_domain("localhost"), "localhost");
    }
}
