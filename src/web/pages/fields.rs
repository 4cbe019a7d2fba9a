//! The crawl-spec form: one form field per spec key (named by its JSON path), how a spec's JSON
//! fills the form, how a submitted form becomes spec JSON, and how the spec's own validation
//! errors (which name JSON paths) land on the fields. Validation is `Spec::from_json`, the same
//! as the API's; to show more than its first error, a field found wrong is reset to its default
//! and the spec validated again, up to [`MAX_ERRORS`] times.

use crate::spec::{RawSpec, Spec, SpecError};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Most errors reported for one submission.
pub const MAX_ERRORS: usize = 20;

/// How a field is edited.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// One line of text.
    Text,
    /// A list, one item per line.
    Lines,
    /// A whole number (empty: the default).
    Int,
    /// A decimal number (empty: the default).
    Float,
    /// A checkbox.
    Bool,
    /// One of fixed values.
    Select(&'static [&'static str]),
}

/// One form field.
pub struct FieldDef {
    /// The spec key's JSON path, which is also the form field's name.
    pub path: &'static str,
    /// What the operator reads.
    pub label: &'static str,
    /// How it is edited.
    pub kind: Kind,
    /// One line of help.
    pub help: &'static str,
}

/// A group of fields (one `<fieldset>`).
pub struct Group {
    /// The legend.
    pub legend: &'static str,
    /// Its fields.
    pub fields: &'static [FieldDef],
}

const fn f(path: &'static str, label: &'static str, kind: Kind, help: &'static str) -> FieldDef {
    FieldDef {
        path,
        label,
        kind,
        help,
    }
}

use Kind::*;

/// Every field of the form, grouped as in `docs/crawl-spec.md`.
#[rustfmt::skip]
pub const GROUPS: &[Group] = &[
    Group { legend: "Crawl", fields: &[
        f("name", "Name", Text, "1-64 letters, digits, '-', '_' or '.'; names the crawl's folder"),
        f("seeds", "Seeds", Lines, "absolute http(s) URLs, one per line"),
    ]},
    Group { legend: "Topic", fields: &[
        f("topic.keywords", "Keywords", Lines, "words or phrases of the topic, one per line"),
        f("topic.entities", "Entities", Lines, "people, organisations, places, one per line"),
        f("topic.reference_urls", "Reference URLs", Lines, "pages whose text describes the topic"),
        f("topic.languages", "Languages", Lines, "ISO 639-1 codes (en, de, ...); empty: any"),
    ]},
    Group { legend: "Scope", fields: &[
        f("scope.allow", "Allow patterns", Lines, "regexes; empty: the seeds' domains"),
        f("scope.deny", "Deny patterns", Lines, "regexes that exclude URLs whatever allows them"),
        f("scope.max_depth", "Max depth", Int, "navigation hops from a seed"),
        f("scope.embeds", "Fetch embeds", Bool, "page requisites of in-scope pages, one hop off scope"),
        f("scope.sitemaps", "Use sitemaps", Bool, "robots.txt Sitemap: lines and /sitemap.xml"),
        f("scope.max_path_repeats", "Max path repeats", Int, "trap guard: repeated path segments"),
        f("scope.discovery_links", "Follow discovery links", Bool, "shortlinks, RSD, feeds, oEmbed of page heads"),
    ]},
    Group { legend: "Politeness", fields: &[
        f("politeness.user_agent", "User agent", Text, "sent with every request; add your contact URL or e-mail"),
        f("politeness.respect_robots", "Obey robots.txt", Bool, "RFC 9309"),
        f("politeness.min_delay_ms", "Min delay (ms)", Int, "between two fetches from one host"),
        f("politeness.delay_factor", "Delay factor", Float, "pause = factor × last fetch time"),
        f("politeness.max_delay_ms", "Max delay (ms)", Int, "upper bound of the adaptive pause"),
        f("politeness.max_parallel_per_host", "Parallel per host", Int, "concurrent fetches per host"),
        f("politeness.max_parallel_per_ip", "Parallel per IP", Int, "empty: as per host"),
        f("politeness.max_retry_after_ms", "Max Retry-After (ms)", Int, "cap on a server's Retry-After"),
        f("politeness.robots_ttl_s", "robots.txt TTL (s)", Int, "how long a robots.txt stays valid"),
    ]},
    Group { legend: "Limits", fields: &[
        f("limits.max_pages", "Max pages", Int, "stop after this many archived pages"),
        f("limits.max_duration_s", "Max duration (s)", Int, "stop after this long; empty: no time limit (decides page-bound or time-bound pacing)"),
        f("limits.max_pages_per_host", "Max pages per host", Int, ""),
        f("limits.max_bytes_per_page", "Max bytes per page", Int, "the rest is cut (WARC-Truncated)"),
        f("limits.timeout_ms", "Timeout (ms)", Int, "whole exchange"),
        f("limits.connect_timeout_ms", "Connect timeout (ms)", Int, ""),
        f("limits.max_url_length", "Max URL length", Int, ""),
        f("limits.max_retries", "Max retries", Int, "for network errors and 5xx"),
        f("limits.retry_delay_ms", "Retry delay (ms)", Int, "base of the exponential backoff"),
        f("limits.max_concurrency", "Max concurrency", Int, "fetches in flight over the crawl"),
        f("limits.max_links_per_page", "Max links per page", Int, ""),
    ]},
    Group { legend: "Scoring", fields: &[
        f("scoring.weights.document", "Weight: document", Float, "cosine of the page with the topic"),
        f("scoring.weights.paragraph", "Weight: paragraph", Float, "text around the link"),
        f("scoring.weights.anchor", "Weight: anchor", Float, "anchor text, title, alt"),
        f("scoring.weights.url", "Weight: URL", Float, "topic terms in the link's URL"),
        f("scoring.weights.parent", "Weight: parent", Float, "inherited from relevant ancestors"),
        f("scoring.threshold", "Relevance threshold", Float, "0 to 1; pages at or above are relevant"),
        f("scoring.calibrate", "Calibrate the threshold", Bool, "fit the threshold to the topic after the first analysed page"),
        f("scoring.spam_domains", "Spam domains", Lines, "links there score 0"),
    ]},
    Group { legend: "Frontier", fields: &[
        f("frontier.balance_per_queue", "Balance per queue", Int, "URLs taken from a host per turn"),
        f("frontier.update", "Score update", Select(&["avg", "first", "last", "max", "sum"]), "how a new score combines with earlier ones"),
    ]},
    Group { legend: "WARC", fields: &[
        f("warc.prefix", "File prefix", Text, ""),
        f("warc.max_file_bytes", "Max file bytes", Int, "rotate files at about this size"),
        f("warc.dedup", "Deduplicate", Bool, "revisit records for payloads already archived"),
        f("warc.gzip_level", "gzip level", Int, "0 to 9"),
    ]},
    Group { legend: "Network, AAH and index", fields: &[
        f("network.allow_private", "Allow private addresses", Bool, "loopback and private ranges (test webs)"),
        f("aah.enabled", "Application-aware helper", Bool, "detect web applications, extract objects"),
        f("index.enabled", "Index while crawling", Bool, "full-text search of captures; off: archive only"),
    ]},
];

/// All fields in order.
pub fn all() -> impl Iterator<Item = &'static FieldDef> {
    GROUPS.iter().flat_map(|g| g.fields.iter())
}

/// The spec JSON of a new crawl: every default filled in.
pub fn defaults() -> Value {
    serde_json::from_value::<RawSpec>(json!({"name": "", "seeds": []}))
        .ok()
        .and_then(|r| serde_json::to_value(r).ok())
        .unwrap_or_else(|| json!({}))
}

fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

fn insert(v: &mut Value, path: &str, value: Value) {
    let mut cur = v;
    let keys: Vec<&str> = path.split('.').collect();
    for k in &keys[..keys.len() - 1] {
        if !cur.get(*k).is_some_and(Value::is_object) {
            cur[*k] = Value::Object(Map::new());
        }
        cur = &mut cur[*k];
    }
    if let Some(obj) = cur.as_object_mut() {
        obj.insert(keys[keys.len() - 1].to_string(), value);
    }
}

fn remove(v: &mut Value, path: &str) {
    let (parent, key) = match path.rsplit_once('.') {
        Some((p, k)) => (lookup_mut(v, p), k),
        None => (Some(v), path),
    };
    if let Some(obj) = parent.and_then(Value::as_object_mut) {
        obj.remove(key);
    }
}

fn lookup_mut<'a>(v: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    path.split('.').try_fold(v, |v, k| v.get_mut(k))
}

/// The text a field shows for a spec value.
pub fn show(spec: &Value, def: &FieldDef) -> String {
    match lookup(spec, def.path) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Bool(b)) => if *b { "on" } else { "" }.to_string(),
        Some(other) => other.to_string(),
    }
}

/// Turns submitted fields into spec JSON. Values that cannot have the field's type are left
/// out (so they take the default) and reported under the field's path.
pub fn from_form(get: impl Fn(&str) -> Option<String>) -> (Value, BTreeMap<String, String>) {
    let mut spec = Value::Object(Map::new());
    let mut errors = BTreeMap::new();
    for def in all() {
        let raw = get(def.path).unwrap_or_default();
        let text = raw.trim();
        let value = match def.kind {
            // An empty text takes the default; the name is always sent, to be checked.
            Text if text.is_empty() && def.path != "name" => None,
            Text => Some(json!(text)),
            Select(options) if options.contains(&text) => Some(json!(text)),
            Select(options) => {
                errors.insert(
                    def.path.into(),
                    format!("choose one of {}", options.join(", ")),
                );
                None
            }
            Lines => Some(json!(text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>())),
            Bool => Some(json!(!text.is_empty())),
            Int | Float if text.is_empty() => None,
            Int => match text.parse::<u64>() {
                Ok(n) => Some(json!(n)),
                Err(_) => {
                    errors.insert(
                        def.path.into(),
                        format!("{text:?} is not a whole number ≥ 0"),
                    );
                    None
                }
            },
            Float => match text.parse::<f64>() {
                Ok(x) if x.is_finite() => Some(json!(x)),
                _ => {
                    errors.insert(def.path.into(), format!("{text:?} is not a number"));
                    None
                }
            },
        };
        if let Some(v) = value {
            insert(&mut spec, def.path, v);
        }
    }
    (spec, errors)
}

/// The form field a spec error path belongs to (`seeds[2]` → `seeds`), and the item's line.
pub fn field_of(path: &str) -> (Option<&'static str>, Option<usize>) {
    let (base, index) = match path.split_once('[') {
        Some((b, rest)) => (b, rest.trim_end_matches(']').parse::<usize>().ok()),
        None => (path, None),
    };
    (all().find(|d| d.path == base).map(|d| d.path), index)
}

/// Validates spec JSON like the API; returns the spec, or every error found by field path
/// (`.` for errors that belong to no field).
pub fn validate(spec: &Value, errors: &mut BTreeMap<String, String>) -> Option<Spec> {
    let mut work = spec.clone();
    for _ in 0..MAX_ERRORS {
        let err = match Spec::from_json(&work.to_string()) {
            Ok(s) => return errors.is_empty().then_some(s),
            Err(e) => e,
        };
        let (path, message) = match &err {
            SpecError::Json { path, message } | SpecError::Invalid { path, message } => {
                (path.as_str(), message.as_str())
            }
        };
        let (field, index) = field_of(path);
        let Some(field) = field else {
            errors.entry(".".into()).or_insert_with(|| err.to_string());
            return None;
        };
        if errors.contains_key(field) {
            // Resetting it did not help: stop rather than loop.
            errors.entry(".".into()).or_insert_with(|| err.to_string());
            return None;
        }
        let line = index
            .map(|i| format!("line {}: ", i + 1))
            .unwrap_or_default();
        errors.insert(field.into(), format!("{line}{message}"));
        match field {
            "name" => insert(&mut work, field, json!("x")),
            "seeds" => insert(&mut work, field, json!(["http://seed.invalid/"])),
            _ => remove(&mut work, field),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn defaults_fill_every_field() {
        let d = defaults();
        for def in all() {
            assert!(lookup(&d, def.path).is_some(), "{} has a default", def.path);
        }
        assert_eq!(
            show(&d, all().find(|f| f.path == "warc.dedup").unwrap()),
            "on"
        );
    }

    #[test]
    fn a_valid_form_makes_the_spec_the_api_would() {
        let (v, errors) = from_form(form(&[
            ("name", "t1"),
            ("seeds", "http://a.example/\r\n\r\nhttp://b.example/x"),
            ("limits.max_pages", "50"),
            ("scoring.threshold", "0.3"),
            ("frontier.update", "max"),
            ("scope.embeds", "on"),
            ("limits.max_duration_s", "120"),
        ]));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(v["scoring"]["calibrate"], false, "an unchecked box");
        let mut errors = BTreeMap::new();
        let spec = validate(&v, &mut errors).expect("valid");
        assert_eq!(spec.seeds.len(), 2);
        assert_eq!(spec.limits.max_pages, 50);
        assert_eq!(
            spec.limits.max_duration,
            Some(std::time::Duration::from_secs(120))
        );
        assert!(spec.scope.embeds);
        assert!(!spec.scope.sitemaps, "unchecked boxes are false");
    }

    #[test]
    fn every_bad_field_gets_its_own_error() {
        let (v, mut errors) = from_form(form(&[
            ("name", "bad name!"),
            ("seeds", "http://ok.example/\nftp://nope.example/"),
            ("limits.max_pages", "many"),
            ("warc.gzip_level", "12"),
            ("scoring.threshold", "2"),
            ("frontier.update", "avg"),
        ]));
        assert!(validate(&v, &mut errors).is_none());
        assert!(errors["limits.max_pages"].contains("not a whole number"));
        assert!(errors["name"].contains("letters"), "{errors:?}");
        assert!(errors["seeds"].starts_with("line 2: "), "{errors:?}");
        assert!(errors["warc.gzip_level"].contains("0 to 9"));
        assert!(errors["scoring.threshold"].contains("0 to 1"));
        assert_eq!(field_of("seeds[3]"), (Some("seeds"), Some(3)));
        assert_eq!(field_of("nonsense"), (None, None));
    }
}
