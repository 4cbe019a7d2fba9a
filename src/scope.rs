//! Scope: the decide rules that say whether a discovered URL belongs to the crawl.
//!
//! Rules run in a fixed order, first match wins: scheme and length, `deny` regexes, crawler-trap
//! guard (a path segment repeated too often), navigation depth, then the in-scope test (`allow`
//! regexes, or by default the seeds' registered domains). A URL that fails only the in-scope
//! test is still accepted as a page requisite (`E` hop, or a redirect of one) of an in-scope page
//! when `scope.embeds` is on, so archived pages replay completely.

use crate::model::Hop;
use crate::spec::Spec;
use crate::uri;
use regex::Regex;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use url::Url;

/// Why a URL was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reject {
    /// Not http or https.
    Scheme,
    /// Longer than `limits.max_url_length`.
    TooLong,
    /// Matched a `scope.deny` regex.
    Denied,
    /// A path segment repeats more than `scope.max_path_repeats` times.
    Trap,
    /// More navigation hops than `scope.max_depth`.
    TooDeep,
    /// Outside the allowed hosts or patterns.
    OutOfScope,
    /// In scope, but the application-aware helper's knowledge base says the link leads nowhere
    /// worth archiving (login, edit, reply, print, feed and calendar views).
    AppSkip,
    /// More redirects in a row than `scope.max_redirects`.
    TooManyRedirects,
    /// More sitemap hops than `scope.max_sitemap_depth`.
    SitemapTooDeep,
    /// A discovery link of a page head (shortlink, RSD, feed, oEmbed, ...), while
    /// `scope.discovery_links` is off and the knowledge base has no rule for it.
    Discovery,
}

impl Reject {
    /// A short name for statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            Reject::Scheme => "scheme",
            Reject::TooLong => "too-long",
            Reject::Denied => "denied",
            Reject::Trap => "trap",
            Reject::TooDeep => "too-deep",
            Reject::OutOfScope => "out-of-scope",
            Reject::AppSkip => "app-skip",
            Reject::TooManyRedirects => "too-many-redirects",
            Reject::SitemapTooDeep => "sitemap-too-deep",
            Reject::Discovery => "discovery",
        }
    }
}

/// The compiled scope of a crawl.
#[derive(Debug, Clone)]
pub struct Scope {
    allow: Vec<Regex>,
    deny: Vec<Regex>,
    domains: HashSet<String>,
    max_depth: u32,
    embeds: bool,
    max_url_length: usize,
    max_path_repeats: u32,
    max_redirects: usize,
    max_sitemap_depth: usize,
    discovery_links: bool,
}

impl Scope {
    /// Builds the scope from a validated spec.
    pub fn new(spec: &Spec) -> Scope {
        let domains = spec
            .seeds
            .iter()
            .filter_map(|u| u.host_str())
            .map(uri::registered_domain)
            .collect();
        Scope {
            allow: spec.scope.allow.clone(),
            deny: spec.scope.deny.clone(),
            domains,
            max_depth: spec.scope.max_depth,
            embeds: spec.scope.embeds,
            max_url_length: spec.limits.max_url_length,
            max_path_repeats: spec.scope.max_path_repeats,
            max_redirects: spec.scope.max_redirects,
            max_sitemap_depth: spec.scope.max_sitemap_depth,
            discovery_links: spec.scope.discovery_links,
        }
    }

    /// Whether discovery links of page heads are followed (`scope.discovery_links`).
    pub fn follows_discovery(&self) -> bool {
        self.discovery_links
    }

    /// Whether a URL is inside the crawl's hosts or patterns (ignoring depth and hop rules).
    pub fn contains(&self, url: &Url) -> bool {
        if self.allow.is_empty() {
            url.host_str()
                .is_some_and(|h| self.domains.contains(&uri::registered_domain(h)))
        } else {
            self.allow.iter().any(|r| r.is_match(url.as_str()))
        }
    }

    /// Decides a candidate: `hops` is its full hop path, `parent_in_scope` whether the page it
    /// was found on is itself inside the crawl's hosts or patterns.
    pub fn decide(&self, url: &Url, hops: &str, parent_in_scope: bool) -> Result<(), Reject> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Reject::Scheme);
        }
        let s = url.as_str();
        if s.len() > self.max_url_length {
            return Err(Reject::TooLong);
        }
        if self.deny.iter().any(|r| r.is_match(s)) {
            return Err(Reject::Denied);
        }
        if self.is_trap(url) {
            return Err(Reject::Trap);
        }
        let depth = hops.chars().filter(|&c| c == Hop::Link.code()).count() as u32;
        if depth > self.max_depth {
            return Err(Reject::TooDeep);
        }
        let redirect = Hop::Redirect.code();
        if hops.chars().rev().take_while(|&c| c == redirect).count() > self.max_redirects {
            return Err(Reject::TooManyRedirects);
        }
        let sitemap = Hop::Sitemap.code();
        if hops.chars().filter(|&c| c == sitemap).count() > self.max_sitemap_depth {
            return Err(Reject::SitemapTooDeep);
        }
        if self.contains(url) {
            return Ok(());
        }
        let last = hops.chars().last();
        let requisite = last == Some(Hop::Embed.code())
            || (last == Some(Hop::Redirect.code()) && hops.ends_with("ER"));
        if self.embeds && parent_in_scope && requisite {
            return Ok(());
        }
        Err(Reject::OutOfScope)
    }

    fn is_trap(&self, url: &Url) -> bool {
        let Some(segments) = url.path_segments() else {
            return false;
        };
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for seg in segments.filter(|s| !s.is_empty()) {
            let n = counts.entry(seg).or_insert(0);
            *n += 1;
            if *n > self.max_path_repeats {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(extra: &str) -> Scope {
        let json = format!(r#"{{"name":"t","seeds":["http://www.example.org/"]{extra}}}"#);
        Scope::new(&Spec::from_json(&json).unwrap())
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn default_scope_is_the_seeds_registered_domains() {
        let s = scope("");
        assert_eq!(
            s.decide(&url("http://blog.example.org/x"), "L", true),
            Ok(())
        );
        assert_eq!(
            s.decide(&url("http://other.net/"), "L", true),
            Err(Reject::OutOfScope)
        );
    }

    #[test]
    fn embeds_of_in_scope_pages_may_leave_scope_for_one_hop() {
        let s = scope("");
        let cdn = url("http://cdn.net/a.css");
        assert_eq!(s.decide(&cdn, "LE", true), Ok(()));
        assert_eq!(s.decide(&cdn, "LER", true), Ok(()));
        assert_eq!(s.decide(&cdn, "LEE", false), Err(Reject::OutOfScope));
        assert_eq!(s.decide(&cdn, "LR", true), Err(Reject::OutOfScope));
        let no_embeds = scope(r#","scope":{"embeds":false}"#);
        assert_eq!(no_embeds.decide(&cdn, "LE", true), Err(Reject::OutOfScope));
    }

    #[test]
    fn rules_apply_in_order() {
        let s =
            scope(r#","scope":{"allow":["^http://a\\.org/"],"deny":["/private/"],"max_depth":2}"#);
        assert_eq!(s.decide(&url("http://a.org/ok"), "LL", false), Ok(()));
        assert_eq!(
            s.decide(&url("http://a.org/ok"), "LLL", false),
            Err(Reject::TooDeep)
        );
        assert_eq!(s.decide(&url("http://a.org/ok"), "LLEE", false), Ok(()));
        assert_eq!(
            s.decide(&url("http://a.org/private/x"), "L", false),
            Err(Reject::Denied)
        );
        assert_eq!(
            s.decide(&url("http://www.example.org/"), "L", false),
            Err(Reject::OutOfScope)
        );
        assert_eq!(
            s.decide(&url("ftp://a.org/"), "L", false),
            Err(Reject::Scheme)
        );
        assert_eq!(
            s.decide(&url("http://a.org/x/x/x/x/y"), "L", false),
            Err(Reject::Trap)
        );
        let long = format!("http://a.org/{}", "x".repeat(3000));
        assert_eq!(s.decide(&url(&long), "L", false), Err(Reject::TooLong));
    }
}
