//! One line of the crawl log read back into its columns, what its status means, and the log
//! viewer's filters over lines.

use serde::Serialize;

/// One line of the log, its columns as written (`-` read as absent).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Entry {
    /// When the line was written (UTC).
    pub time: String,
    /// HTTP status, or a negative code (`docs/crawling.md`).
    pub status: i32,
    /// Bytes of the response as received.
    pub size: Option<u64>,
    /// The URL.
    pub url: String,
    /// Hop path from the seed (empty for a seed).
    pub hops: String,
    /// The page it was found on.
    pub via: Option<String>,
    /// The response's media type as sent (parameters dropped).
    pub mime: Option<String>,
    /// Fetch start (`YYYYMMDDHHMMSSmmm`) and duration (`+ms`).
    pub fetch: Option<String>,
    /// Payload digest.
    pub digest: Option<String>,
    /// Who queued it (`seed`, `crawl`, `robots`, an intake source).
    pub source: String,
    /// Annotations (`retries:N`, `will-retry`, a refusal's reason, a failure kind...).
    pub notes: Vec<String>,
}

/// How a line's status reads: a class of answers, or why there was none.
pub fn status_class(status: i32) -> &'static str {
    match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        500..=599 => "5xx",
        s if s > 0 => "other",
        -7 | -4000 | -5000 | -9998 => "refused",
        _ => "failed",
    }
}

/// What a negative status means, in words (`docs/crawling.md`).
pub fn status_meaning(status: i32) -> Option<&'static str> {
    Some(match status {
        -1 => "DNS failure",
        -2 => "connection failed",
        -3 => "connection broken",
        -4 => "timeout",
        -6 => "fetch failed",
        -7 => "refused: private address",
        -61 => "given up: robots.txt could not be had",
        -4000 => "refused: blacklisted",
        -5000 => "refused: out of scope",
        -9998 => "refused: robots.txt",
        _ => return None,
    })
}

fn opt(c: &str) -> Option<String> {
    (c != "-").then(|| c.to_string())
}

impl Entry {
    /// Parses a line (without its line break); `None` unless it has exactly twelve columns
    /// with a number for status and size.
    pub fn parse(line: &str) -> Option<Entry> {
        let mut c = line.split_ascii_whitespace();
        let mut next = || c.next();
        let time = next()?.to_string();
        let status = next()?.parse().ok()?;
        let size = match next()? {
            "-" => None,
            s => Some(s.parse().ok()?),
        };
        let url = next()?.to_string();
        let hops = next()?;
        let via = opt(next()?);
        let mime = opt(next()?);
        let _worker = next()?;
        let fetch = opt(next()?);
        let digest = opt(next()?);
        let source = next()?.to_string();
        let notes = next()?;
        if next().is_some() {
            return None;
        }
        Some(Entry {
            time,
            status,
            size,
            url,
            hops: if hops == "-" {
                String::new()
            } else {
                hops.into()
            },
            via,
            mime,
            fetch,
            digest,
            source,
            notes: if notes == "-" {
                vec![]
            } else {
                notes.split(',').map(str::to_string).collect()
            },
        })
    }

    /// The URL's host key (host and non-default port, as the frontier and the index key
    /// hosts); `None` for a URL that does not parse.
    pub fn host(&self) -> Option<String> {
        url::Url::parse(&self.url)
            .ok()
            .map(|u| crate::uri::host_key(&u))
    }

    /// The last hop (`L`, `E`, `R`, `M`, `P`), `seed` for a seed.
    pub fn last_hop(&self) -> String {
        self.hops
            .chars()
            .last()
            .map_or_else(|| "seed".to_string(), |c| c.to_string())
    }

    /// The media type, lowercased, as the reports group it.
    pub fn mime_key(&self) -> String {
        self.mime
            .as_deref()
            .map_or_else(|| "(none)".into(), str::to_ascii_lowercase)
    }
}

/// Which statuses a filter keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusFilter {
    /// Exactly this code.
    Code(i32),
    /// A class: `2xx`, `refused`, `failed`...
    Class(String),
}

impl StatusFilter {
    /// Reads `404`, `-9998`, `4xx`, `refused` or `failed`.
    pub fn parse(v: &str) -> Result<StatusFilter, String> {
        let v = v.trim();
        if let Ok(n) = v.parse::<i32>() {
            return Ok(StatusFilter::Code(n));
        }
        let l = v.to_ascii_lowercase();
        match l.as_str() {
            "1xx" | "2xx" | "3xx" | "4xx" | "5xx" | "refused" | "failed" => {
                Ok(StatusFilter::Class(l))
            }
            _ => Err(format!(
                "{v:?} is not a status: a code (404, -9998), a class (2xx … 5xx), refused or failed"
            )),
        }
    }

    fn keeps(&self, status: i32) -> bool {
        match self {
            StatusFilter::Code(c) => *c == status,
            StatusFilter::Class(c) => status_class(status) == c,
        }
    }
}

/// Which lines to keep; every given condition must hold.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// The status.
    pub status: Option<StatusFilter>,
    /// The host key, exactly.
    pub host: Option<String>,
    /// A part of the URL.
    pub url: Option<String>,
    /// The last hop (`L`, `E`, `R`, `M`, `P`, or `seed`).
    pub hop: Option<String>,
    /// The source, exactly (`seed`, `crawl`, `robots`, an intake source).
    pub source: Option<String>,
    /// A part of an annotation (`robots`, `out-of-scope`, `timeout`...).
    pub reason: Option<String>,
    /// The media type's start (`text/html`, `image/`).
    pub mime: Option<String>,
}

impl Filter {
    /// Whether `e` passes.
    pub fn keeps(&self, e: &Entry) -> bool {
        self.status.as_ref().is_none_or(|s| s.keeps(e.status))
            && self.url.as_ref().is_none_or(|u| e.url.contains(u.as_str()))
            && self
                .hop
                .as_ref()
                .is_none_or(|h| e.last_hop().eq_ignore_ascii_case(h))
            && self.source.as_ref().is_none_or(|s| &e.source == s)
            && self
                .reason
                .as_ref()
                .is_none_or(|r| e.notes.iter().any(|n| n.contains(r.as_str())))
            && self
                .mime
                .as_ref()
                .is_none_or(|m| e.mime_key().starts_with(&m.to_ascii_lowercase()))
            && self
                .host
                .as_ref()
                .is_none_or(|h| e.host().is_some_and(|eh| eh.eq_ignore_ascii_case(h)))
    }
}
