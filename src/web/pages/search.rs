//! The search page (`/crawls/{id}/search`): full-text search of a crawl's captures and web
//! objects with the same library call as `GET /api/v1/crawls/{id}/search`, highlighted
//! snippets, facets (hosts, applications, languages, status classes) that narrow the search
//! when followed, and pagination. A query the parser refuses is shown on the page with the
//! parser's explanation (a 400), not as a server error.

use super::{render_status, urlencode, Chrome, PageError, Params};
use crate::index::{FacetCount, Hit, IndexError, SearchResults, MAX_DEPTH};
use crate::web::api::search::SearchParams;
use crate::web::api::{blocking, index_of};
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// The parameters this page takes, in the order links carry them.
const KEYS: [&str; 8] = [
    "q",
    "host",
    "app",
    "kind",
    "lang",
    "min_score",
    "sort",
    "page",
];

/// Results per page.
const PER_PAGE: usize = 20;

/// A snippet piece: text, and whether the index highlighted it.
pub struct Piece {
    /// Shown inside `<mark>` when true.
    pub marked: bool,
    /// Plain text (escaped by the template like everything else).
    pub text: String,
}

/// Splits the index's snippet HTML (escaped text with matched words in `<mark>`) into plain
/// text pieces, so the template can escape all of it and add only the `<mark>` elements itself:
/// nothing of the snippet reaches the page as markup.
pub fn snippet_pieces(html: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = html;
    let mut marked = false;
    while !rest.is_empty() {
        let tag = if marked { "</mark>" } else { "<mark>" };
        let (text, next) = match rest.find(tag) {
            Some(i) => (&rest[..i], &rest[i + tag.len()..]),
            None => (rest, ""),
        };
        if !text.is_empty() {
            out.push(Piece {
                marked,
                text: unescape(text),
            });
        }
        rest = next;
        marked = !marked;
    }
    out
}

/// Undoes the HTML escaping of snippet text (the template escapes it again).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&#x2F;", "/")
        .replace("&amp;", "&")
}

/// One result row.
pub struct Row {
    /// The hit as the index gives it.
    pub hit: Hit,
    /// Its snippet, in pieces.
    pub snippet: Vec<Piece>,
    /// The capture view of it (objects: the capture they were extracted from).
    pub href: String,
    /// Capture time, for people.
    pub time: String,
}

/// A facet value linked to the search narrowed by it.
pub struct FacetLink {
    /// The value.
    pub value: String,
    /// Matching documents with it.
    pub count: u64,
    /// This search with the filter added.
    pub href: String,
}

/// One facet box.
pub struct FacetBox {
    /// Its heading.
    pub title: &'static str,
    /// Its values.
    pub links: Vec<FacetLink>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage {
    chrome: Chrome,
    action: String,
    form: Vec<(&'static str, String)>,
    error: Option<String>,
    total: u64,
    rows: Vec<Row>,
    facets: Vec<FacetBox>,
    prev: Option<String>,
    next: Option<String>,
    page: usize,
    pages: u64,
}

impl SearchPage {
    fn value(&self, key: &str) -> &str {
        self.form
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// This page's path with the parameters given (empty ones left out).
fn link(action: &str, pairs: &[(&str, String)]) -> String {
    let q: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", urlencode(v)))
        .collect();
    if q.is_empty() {
        action.to_string()
    } else {
        format!("{action}?{}", q.join("&"))
    }
}

/// The form values with `key` set to `value` and the page reset.
fn with(form: &[(&'static str, String)], key: &str, value: String) -> Vec<(&'static str, String)> {
    form.iter()
        .map(|(k, v)| match *k {
            k2 if k2 == key => (*k, value.clone()),
            "page" => (*k, String::new()),
            _ => (*k, v.clone()),
        })
        .collect()
}

fn facet(
    title: &'static str,
    list: &[FacetCount],
    make: impl Fn(&str) -> Vec<(&'static str, String)>,
    action: &str,
) -> FacetBox {
    FacetBox {
        title,
        links: list
            .iter()
            .map(|c| FacetLink {
                value: c.value.clone(),
                count: c.count,
                href: link(action, &make(&c.value)),
            })
            .collect(),
    }
}

/// The path of the capture view of a URL at a time.
pub fn capture_href(crawl: &str, url: &str, time: &chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "/crawls/{}/capture?url={}&at={}",
        urlencode(crawl),
        urlencode(url),
        urlencode(&time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
    )
}

/// `GET /crawls/{id}/search`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let params = Params::of(&req, &KEYS)?;
    let form: Vec<(&'static str, String)> = KEYS
        .iter()
        .map(|k| (*k, params.get(k).unwrap_or("").to_string()))
        .collect();
    let get = |k: &str| params.get(k).map(str::to_string);
    let action = format!("/crawls/{}/search", urlencode(&id));
    let chrome = Chrome::new(format!("Search {id}"), Some(&id), "search");
    let mut page = SearchPage {
        chrome,
        action,
        form,
        error: None,
        total: 0,
        rows: vec![],
        facets: vec![],
        prev: None,
        next: None,
        page: 1,
        pages: 0,
    };
    state.manager.get(&id)?;
    let asked = SearchParams {
        q: get("q"),
        host: get("host"),
        app: get("app"),
        kind: get("kind"),
        lang: get("lang"),
        min_score: get("min_score"),
        sort: get("sort"),
        page: get("page"),
        per_page: Some(PER_PAGE.to_string()),
        ..SearchParams::default()
    };
    let query = match asked.into_query().map_err(field_error) {
        Ok(q) => q,
        // A value the search cannot use is said on the page, with the form as typed.
        Err(e @ PageError::Field { .. }) => {
            page.error = Some(e.to_string());
            return render_status(&page, StatusCode::BAD_REQUEST);
        }
        Err(e) => return Err(e),
    };
    page.page = query.page;
    let index = index_of(&state, &id).await?;
    let q = query.clone();
    let outcome = blocking(move || Ok(index.search(&q))).await?;
    let results: SearchResults = match outcome {
        Ok(r) => r,
        Err(IndexError::BadQuery { reason, .. }) => {
            page.error = Some(format!("The query cannot be read: {reason}"));
            return render_status(&page, StatusCode::BAD_REQUEST);
        }
        Err(e) => return Err(field_error(WebError::from(e))),
    };
    let action = page.action.clone();
    page.total = results.total;
    page.pages = results
        .total
        .min(MAX_DEPTH as u64)
        .div_ceil(PER_PAGE as u64);
    let at_page = |n: usize| link(&action, &with(&page.form, "page", n.to_string()));
    if query.page > 1 {
        page.prev = Some(at_page(query.page - 1));
    }
    if (query.page as u64) < page.pages {
        page.next = Some(at_page(query.page + 1));
    }
    let form = page.form.clone();
    let set = |key: &'static str| {
        let form = form.clone();
        move |v: &str| with(&form, key, v.to_string())
    };
    let status = |v: &str| {
        // `2xx` narrows the query string with the range of that class.
        let class = v.trim_end_matches("xx");
        let range = format!("status:[{class}00 TO {class}99]");
        let q = page.value("q");
        let q = if q.is_empty() {
            range
        } else {
            format!("({q}) AND {range}")
        };
        with(&form, "q", q)
    };
    let f = &results.facets;
    page.facets = vec![
        facet("Hosts", &f.hosts, set("host"), &action),
        facet("Applications", &f.apps, set("app"), &action),
        facet("Languages", &f.langs, set("lang"), &action),
        facet("Status", &f.status_classes, status, &action),
    ];
    page.rows = results
        .hits
        .into_iter()
        .map(|hit| Row {
            snippet: snippet_pieces(&hit.snippet),
            href: capture_href(&id, &hit.url, &hit.time),
            time: hit.time.format("%Y-%m-%d %H:%M:%S").to_string(),
            hit,
        })
        .collect();
    render_status(&page, StatusCode::OK)
}

/// A bad parameter named as a field of the page.
fn field_error(e: WebError) -> PageError {
    match e {
        WebError::BadParameter { name, reason }
        | WebError::Index(IndexError::BadParameter { name, reason }) => {
            PageError::field(name, reason)
        }
        e => PageError::Web(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_become_plain_pieces_with_marks() {
        let p = snippet_pieces("a &lt;script&gt; <mark>osprey</mark> &amp; b<mark>x</mark>");
        let t: Vec<(bool, &str)> = p.iter().map(|p| (p.marked, p.text.as_str())).collect();
        assert_eq!(
            t,
            vec![
                (false, "a <script> "),
                (true, "osprey"),
                (false, " & b"),
                (true, "x")
            ]
        );
        assert!(snippet_pieces("").is_empty());
        // An unclosed mark keeps its text, marked.
        let p = snippet_pieces("<mark>open");
        assert!(p[0].marked && p[0].text == "open");
    }

    #[test]
    fn links_keep_the_filters_and_reset_the_page() {
        let form = vec![
            ("q", "a b".to_string()),
            ("host", String::new()),
            ("page", "3".into()),
        ];
        let l = link("/crawls/c/search", &with(&form, "host", "h:1".into()));
        assert_eq!(l, "/crawls/c/search?q=a+b&host=h%3A1");
        assert_eq!(link("/s", &[("q", String::new())]), "/s");
    }
}
