//! URL variants: how a URL differs from another of its host by one query parameter, by one
//! path segment at the start or the end, or by a final slash, and the URLs it would copy
//! (`reductions`).

use url::Url;

/// How a variant differs from the URL it copies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// One query parameter, by name.
    Param(String),
    /// One path segment, the first or the last, by name.
    Segment(String),
    /// A final slash: `/t/5/slug/` beside `/t/5/slug` (djeddit links each thread both ways).
    Slash,
}

impl Variant {
    /// `param:NAME` or `segment:NAME`, as the cockpit, the API and the crawl log show it.
    pub fn name(&self) -> String {
        match self {
            Variant::Param(p) => format!("param:{p}"),
            Variant::Segment(s) => format!("segment:{s}"),
            Variant::Slash => "slash:final".to_string(),
        }
    }

    /// Whether examples of this rule on one host are evidence for others (see
    /// `Copies::likely`): a parameter or a segment is the site software's, likely shared; a
    /// final slash is the server's own way, and where `/a` redirects to `/a/` the slashed URL
    /// is the page.
    pub fn crawl_wide(&self) -> bool {
        *self != Variant::Slash
    }

    /// The rule named by [`Variant::name`]; `None` for a name this module would not learn.
    pub fn parse(name: &str) -> Option<Variant> {
        let (kind, n) = name.split_once(':')?;
        match kind {
            "param" if param_name_ok(n) => Some(Variant::Param(n.to_string())),
            "segment" if segment_name_ok(n) => Some(Variant::Segment(n.to_string())),
            "slash" if n == "final" => Some(Variant::Slash),
            _ => None,
        }
    }

    /// The URL `url` is a variant of under this rule, if it has the parameter or segment.
    pub fn original(&self, url: &Url) -> Option<Url> {
        match self {
            Variant::Param(p) => without_param(url, p),
            Variant::Segment(s) => {
                let (first, last) = segment_ends(url.path())?;
                let end = if first.0 == s.as_str() {
                    first
                } else if last.0 == s.as_str() {
                    last
                } else {
                    return None;
                };
                let mut u = url.clone();
                u.set_path(&end.1);
                Some(u)
            }
            Variant::Slash => crate::uri::without_final_slash(url),
        }
    }
}

/// Parameter names learnt: short, of URL-safe characters, so that a name can be shown and
/// logged as it is.
fn param_name_ok(n: &str) -> bool {
    (1..=40).contains(&n.len())
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Segment names learnt: words (`print`, `amp`, `en`), not identifiers or file names, which
/// would make a candidate of every page.
fn segment_name_ok(n: &str) -> bool {
    (1..=24).contains(&n.len())
        && n.bytes()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-'))
}

/// `url` without every occurrence of the query parameter `name`.
fn without_param(url: &Url, name: &str) -> Option<Url> {
    let q = url.query()?;
    let mut found = false;
    let kept: Vec<&str> = q
        .split('&')
        .filter(|pair| {
            let n = pair.split_once('=').map_or(*pair, |(n, _)| n);
            let drop = n == name;
            found |= drop;
            !drop
        })
        .collect();
    if !found {
        return None;
    }
    let mut u = url.clone();
    if kept.iter().all(|p| p.is_empty()) {
        u.set_query(None);
    } else {
        u.set_query(Some(&kept.join("&")));
    }
    Some(u)
}

/// The path's first and last segment, each with the path without it; `None` for a path of
/// fewer than one segment, or one with empty segments.
#[allow(clippy::type_complexity)]
fn segment_ends(path: &str) -> Option<((&str, String), (&str, String))> {
    let trailing = path.len() > 1 && path.ends_with('/');
    let inner = path.trim_start_matches('/').trim_end_matches('/');
    if inner.is_empty() {
        return None;
    }
    let segs: Vec<&str> = inner.split('/').collect();
    if segs.iter().any(|s| s.is_empty()) {
        return None;
    }
    let join = |rest: &[&str]| {
        if rest.is_empty() {
            "/".to_string()
        } else {
            format!("/{}{}", rest.join("/"), if trailing { "/" } else { "" })
        }
    };
    let first = (segs[0], join(&segs[1..]));
    let last = (segs[segs.len() - 1], join(&segs[..segs.len() - 1]));
    Some((first, last))
}

/// Every way `url` may be a variant of another URL: the rule, and the URL it would copy.
pub fn reductions(url: &Url) -> Vec<(Variant, Url)> {
    let mut out: Vec<(Variant, Url)> = Vec::new();
    if let Some(q) = url.query() {
        for pair in q.split('&') {
            let n = pair.split_once('=').map_or(pair, |(n, _)| n);
            let v = Variant::Param(n.to_string());
            if param_name_ok(n) && !out.iter().any(|(o, _)| *o == v) {
                if let Some(u) = without_param(url, n) {
                    out.push((v, u));
                }
            }
        }
    }
    if let Some((first, last)) = segment_ends(url.path()) {
        for (name, path) in [first, last] {
            let v = Variant::Segment(name.to_string());
            if segment_name_ok(name) && !out.iter().any(|(o, _)| *o == v) {
                let mut u = url.clone();
                u.set_path(&path);
                out.push((v, u));
            }
        }
    }
    if let Some(u) = crate::uri::without_final_slash(url) {
        out.push((Variant::Slash, u));
    }
    out
}
