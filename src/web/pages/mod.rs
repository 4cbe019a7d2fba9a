//! The cockpit: server-rendered HTML pages over the crawl manager, one module per page (its
//! askama template struct, its handlers, its tests), and what they share: the page chrome
//! (title, navigation, anti-forgery token), the security headers every page is sent with, form
//! reading with the CSRF check, and the HTML error page.
//!
//! Pages can be read without JavaScript; forms need `static/cockpit.js` for their form key (see
//! `csrf.rs`), and it adds live updates from the crawl's event
//! stream. Crawled text reaches templates only through askama's default HTML escaping.

pub(crate) mod assets;
pub(crate) mod capture;
pub(crate) mod chart;
pub(crate) mod crawls;
pub(crate) mod dashboard;
mod error;
pub(crate) mod export;
mod fields;
pub(crate) mod frontier;
pub(crate) mod hosts;
pub(crate) mod intake;
pub(crate) mod kb;
pub(crate) mod log;
pub(crate) mod login;
pub(crate) mod new_crawl;
pub(crate) mod replay;
pub(crate) mod reports;
pub(crate) mod search;
pub(crate) mod seeds;
pub(crate) mod steer;
pub(crate) mod url_story;
pub(crate) mod workflows;

pub use error::PageError;

use super::csrf;
use super::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// The Content-Security-Policy of every cockpit page: nothing but the cockpit's own scripts,
/// styles and frames, no inline script, no framing of the cockpit by others.
pub const PAGE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; frame-src 'self'; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Largest form body a page accepts (a pasted spec fits).
pub const MAX_FORM_BYTES: usize = 2 * 1024 * 1024;

/// What the layout template needs on every page.
pub struct Chrome {
    /// The page title (also the `<h1>`).
    pub title: String,
    /// The crawl the page is about, for the crawl tabs.
    pub crawl: Option<String>,
    /// Which tab is current (`crawls`, `dashboard`, `frontier`, ...).
    pub tab: &'static str,
    /// What the `csrf` field of the page's forms is sent with: empty on every page but the
    /// login form (whose token it is), so that `cockpit.js` fills in the session's form key.
    pub csrf: String,
}

impl Chrome {
    /// The chrome of a page.
    pub fn new(title: impl Into<String>, crawl: Option<&str>, tab: &'static str) -> Chrome {
        Chrome {
            title: title.into(),
            crawl: crawl.map(str::to_string),
            tab,
            csrf: String::new(),
        }
    }

    /// The crawl tabs: (tab id, label, path).
    pub fn crawl_tabs(&self) -> Vec<(&'static str, &'static str, String)> {
        let Some(id) = &self.crawl else {
            return vec![];
        };
        let id = urlencode(id);
        [
            ("dashboard", "Dashboard", ""),
            ("frontier", "Frontier", "/frontier"),
            ("hosts", "Hosts", "/hosts"),
            ("reports", "Reports", "/reports"),
            ("log", "Log", "/log"),
            ("intake", "Intake", "/intake"),
            ("seeds", "Seeds", "/seeds"),
            ("search", "Search", "/search"),
            ("export", "Export", "/export"),
        ]
        .into_iter()
        .map(|(t, l, p)| (t, l, format!("/crawls/{id}{p}")))
        .collect()
    }
}

/// Renders a page template into a response with the cockpit's security headers.
pub fn render(t: &impl Template) -> Result<HttpResponse, PageError> {
    render_status(t, StatusCode::OK)
}

/// Renders a page with another status than 200 (a form shown again with its error, a 400).
pub fn render_status(t: &impl Template, status: StatusCode) -> Result<HttpResponse, PageError> {
    let html = t.render().map_err(|e| PageError::Render(e.to_string()))?;
    let mut resp = HttpResponse::build(status);
    secure(&mut resp);
    Ok(resp.content_type("text/html; charset=utf-8").body(html))
}

/// Adds the headers every cockpit page carries.
pub(crate) fn secure(resp: &mut actix_web::HttpResponseBuilder) {
    resp.insert_header((header::CONTENT_SECURITY_POLICY, PAGE_CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
}

/// Where to go after an action: `next` if it is a path of this site, else `/`. A path with a
/// control character or a space is refused too: browsers drop tabs and line breaks from
/// addresses, so `/<TAB>/evil.example` would lead to `//evil.example`, another site.
pub fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(p)
            if p.starts_with('/')
                && !p.starts_with("//")
                && !p.contains('\\')
                && !p.chars().any(|c| c.is_control() || c.is_whitespace()) =>
        {
            p
        }
        _ => "/",
    }
}

/// Reads a form's body: at most [`MAX_FORM_BYTES`], within the time limits every body has.
pub async fn form_body(
    req: &HttpRequest,
    payload: actix_web::web::Payload,
) -> Result<Vec<u8>, PageError> {
    Ok(crate::web::api::read_capped(req, payload, MAX_FORM_BYTES).await?)
}

/// A 303 redirect to a cockpit path (after a form was applied).
pub fn see_other(path: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, path))
        .finish()
}

/// A submitted form whose anti-forgery token was checked: its fields in order.
pub struct Form {
    pairs: Vec<(String, String)>,
}

impl Form {
    /// Parses an `application/x-www-form-urlencoded` body without any check (the login form,
    /// which checks its own token).
    pub fn parse(body: &[u8]) -> Form {
        Form {
            pairs: url::form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        }
    }

    /// Parses a form body and checks that it comes from a page of this server in the
    /// session it names, carrying that session's form key.
    pub fn read(req: &HttpRequest, state: &AppState, body: &[u8]) -> Result<Form, PageError> {
        let form = Form::parse(body);
        state.sessions.verify(
            req,
            form.get(csrf::FIELD),
            &state.hosts,
            std::time::Instant::now(),
        )?;
        Ok(form)
    }

    /// The first value of a field.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A required field, trimmed; an error naming it when absent or blank.
    pub fn required(&self, name: &str) -> Result<&str, PageError> {
        self.get(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| PageError::field(name, "is required"))
    }
}

/// A page's query parameters, read so that every error names its parameter.
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// The parameters of a request; an error naming any not in `known`.
    pub fn of(req: &HttpRequest, known: &[&str]) -> Result<Params, PageError> {
        let pairs: Vec<(String, String)> =
            url::form_urlencoded::parse(req.query_string().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
        if let Some((k, _)) = pairs.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            return Err(PageError::field(
                k.clone(),
                format!("unknown parameter (this page takes {})", known.join(", ")),
            ));
        }
        Ok(Params { pairs })
    }

    /// A parameter's value; empty values count as absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// A parameter parsed as `T`; an error naming it when it does not parse.
    pub fn parse<T: std::str::FromStr>(
        &self,
        name: &str,
        what: &str,
    ) -> Result<Option<T>, PageError> {
        self.get(name)
            .map(|v| {
                v.parse::<T>()
                    .map_err(|_| PageError::field(name, format!("{v:?} is not {what}")))
            })
            .transpose()
    }
}

/// The lowercase name of a crawl state, as the API spells it.
pub fn state_name(s: crate::manager::CrawlState) -> &'static str {
    use crate::manager::CrawlState::*;
    match s {
        Created => "created",
        Running => "running",
        Paused => "paused",
        Finished => "finished",
        Failed => "failed",
    }
}

/// Percent-encodes a path segment or query value.
pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The six cells of a score breakdown (document, paragraph, anchor, URL, parent, total), three
/// decimals each, in the column order of every table of score components.
pub fn score_cells(p: crate::model::ScoreParts) -> [String; 6] {
    p.to_array().map(|x| format!("{x:.3}"))
}

/// Bytes for people: `12.3 MiB`.
pub fn fmt_bytes(n: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut v, mut i) = (n.max(0.0), 0);
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// Milliseconds for people: `850 ms`, `2.5 s`, `3.0 min`.
pub fn fmt_ms(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{:.1} min", ms as f64 / 60_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_reads_well() {
        assert_eq!(fmt_bytes(0.0), "0 B");
        assert_eq!(fmt_bytes(1536.0), "1.5 KiB");
        assert_eq!(fmt_bytes(3.0 * 1024.0 * 1024.0), "3.0 MiB");
        assert_eq!(fmt_ms(850), "850 ms");
        assert_eq!(fmt_ms(2500), "2.5 s");
        assert_eq!(fmt_ms(180_000), "3.0 min");
        assert_eq!(urlencode("a b/<x>"), "a+b%2F%3Cx%3E");
    }
}
