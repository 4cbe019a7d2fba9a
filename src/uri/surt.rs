//! SURT keys ("Sort-friendly URI Reordering Transform") for CDX/CDXJ indexes, written the way
//! pywb and the Internet Archive's `surt` package compute them, so replay tools find our records.

use url::Url;

/// The SURT key of a URL as pywb writes it in CDXJ: `org,example)/path?a=1&b=2`.
///
/// Following the IA canonicaliser that pywb uses by default: scheme, user info, fragment and
/// default port dropped; host lowercased, a leading `www.` (or `www2.` ...) removed and the labels
/// reversed (IPv4 addresses too); path and query unescaped repeatedly, then escaped once (only
/// control, space, non-ASCII, `#` and `%`), then lowercased; a trailing slash dropped unless the
/// path is just `/`; query arguments sorted, an empty query dropped.
///
/// Not done: pywb's stripping of session ids (`jsessionid=`, `PHPSESSID=`, ...); URLs carrying
/// them get keys that differ from pywb's, so replay lookups for them need the exact URL.
pub fn surt(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let host = host.trim_matches('.');
    let host = strip_www(host);
    let mut out = String::with_capacity(url.as_str().len() + 2);
    for (i, label) in host.rsplit('.').enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(label);
    }
    if let Some(port) = url.port() {
        out.push(':');
        out.push_str(&port.to_string());
    }
    out.push(')');

    let mut path = minimal_escape(url.path());
    path.make_ascii_lowercase();
    if path.len() > 1 && path.ends_with('/') {
        path.pop();
    }
    out.push_str(&path);

    if let Some(query) = url.query().filter(|q| !q.is_empty()) {
        let mut query = minimal_escape(query);
        query.make_ascii_lowercase();
        out.push('?');
        out.push_str(&sort_query(&query));
    }
    out
}

/// Removes a leading `www.`, `www2.`, `www13.` ... label.
fn strip_www(host: &str) -> &str {
    let Some(rest) = host.strip_prefix("www") else {
        return host;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix('.') {
        Some(tail) if !tail.is_empty() => tail,
        _ => host,
    }
}

/// Sorts `&`-separated arguments by (name, value), an argument without `=` sorting before the
/// same name with one, as the IA canonicaliser does.
fn sort_query(query: &str) -> String {
    let mut args: Vec<(&str, Option<&str>)> = query
        .split('&')
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (a, None),
        })
        .collect();
    args.sort_unstable();
    let mut out = String::with_capacity(query.len());
    for (i, (k, v)) in args.into_iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        if let Some(v) = v {
            out.push('=');
            out.push_str(v);
        }
    }
    out
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// One pass of percent-decoding; `None` when nothing was decoded.
fn unescape_once(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut changed = false;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex_val(s[i + 1]), hex_val(s[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                changed = true;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    changed.then_some(out)
}

/// Unescapes until stable, then escapes only what must be: bytes up to space, DEL and above,
/// `#` and `%`. Two spellings of one URL thus get one key.
fn minimal_escape(s: &str) -> String {
    let mut bytes = s.as_bytes().to_vec();
    while let Some(next) = unescape_once(&bytes) {
        bytes = next;
    }
    let mut out = String::with_capacity(bytes.len());
    for b in bytes {
        if b <= 0x20 || b >= 0x7f || b == b'#' || b == b'%' {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        } else {
            out.push(char::from(b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(u: &str) -> String {
        surt(&Url::parse(u).unwrap())
    }

    #[test]
    fn host_reversal_and_www() {
        assert_eq!(s("http://www.archive.org/"), "org,archive)/");
        assert_eq!(s("https://archive.org/"), "org,archive)/");
        assert_eq!(s("http://www2.Example.COM/a"), "com,example)/a");
        assert_eq!(s("http://wwwhat.example.com/"), "com,example,wwwhat)/");
        assert_eq!(
            s("http://user:pw@example.com:8080/x"),
            "com,example:8080)/x"
        );
        assert_eq!(s("http://192.168.1.254/info/"), "254,1,168,192)/info");
    }

    #[test]
    fn path_and_query() {
        assert_eq!(s("http://archive.org/goo/"), "org,archive)/goo");
        assert_eq!(s("http://archive.org/goo/?"), "org,archive)/goo");
        assert_eq!(s("http://archive.org/goo/?b&a"), "org,archive)/goo?a&b");
        assert_eq!(
            s("http://archive.org/goo/?a=2&b&a=1"),
            "org,archive)/goo?a=1&a=2&b"
        );
        assert_eq!(
            s("http://example.com/Path/File.HTML?B=2&a=1#frag"),
            "com,example)/path/file.html?a=1&b=2"
        );
        assert_eq!(
            s("http://example.com/a%2Fb%7e?q=%41%20b"),
            "com,example)/a/b~?q=a%20b"
        );
        assert_eq!(s("http://example.com/%2541"), "com,example)/a");
    }
}
