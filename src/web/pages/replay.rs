//! In-cockpit replay that browses from page to page: `GET /replay/{key}/{crawl}/{ts}/{url}`
//! serves the capture of `url` nearest the 14-digit timestamp `ts`, read from the crawl's WARC
//! files, with archived HTML and CSS rewritten so that every URL they refer to is itself such
//! an archive path (`web/rewrite.rs`). `{ts}id_` serves the capture as archived, unrewritten.
//!
//! Everything served here is archived content, so it gets the replay headers of `web/replay.rs`
//! (`Content-Security-Policy: sandbox ...`: an opaque origin, no scripts, nothing from the live
//! web), whatever it is: a page, a stylesheet, an image, a redirect, the "not archived" page.
//! An archived redirect is followed within the archive (its `Location` made an archive path);
//! a URL the crawl has no capture of gets a short "not archived" page (404).
//!
//! `{key}` is the session's replay key (`csrf::Sessions::replay_key`), checked by the
//! authentication middleware: a sandboxed page's own requests carry no session cookie.

use super::PageError;
use crate::index::{warc_dir, IndexError, Replay};
use crate::web::api::{blocking, index_of, parse_time, timestamp14};
use crate::web::error::WebError;
use crate::web::replay::{self, MAX_REPLAY_BYTES};
use crate::web::rewrite::{rewrite_css, rewrite_html, ArchivePaths};
use crate::web::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use url::Url;

/// The archive path prefix of a crawl for a session's replay key: `/replay/KEY/CRAWL`.
pub fn prefix(key: &str, crawl: &str) -> String {
    format!(
        "{}{key}/{}",
        crate::web::auth::REPLAY_PREFIX,
        super::urlencode(crawl)
    )
}

/// The parts of a replay path: key, crawl, timestamp (with `id_` taken off: `raw`), and the
/// archived URL (the rest of the path, with the request's query).
struct Target {
    key: String,
    crawl: String,
    timestamp: String,
    raw: bool,
    url: Url,
}

fn target(req: &HttpRequest) -> Result<Target, PageError> {
    // The path as sent: the archived URL is taken as it was written, not decoded.
    let path = req.uri().path();
    let mut parts = path.splitn(6, '/').skip(2);
    let mut next = || parts.next().unwrap_or_default();
    let (key, crawl, ts, rest) = (next(), next(), next(), next());
    let crawl = percent_encoding::percent_decode_str(crawl)
        .decode_utf8()
        .map_err(|e| PageError::field("crawl", format!("not UTF-8: {e}")))?
        .into_owned();
    let (timestamp, raw) = match ts.strip_suffix("id_") {
        Some(t) => (t, true),
        None => (ts, false),
    };
    let mut written = rest.to_string();
    if let Some(q) = req.uri().query() {
        written.push('?');
        written.push_str(q);
    }
    let url = Url::parse(&written)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| {
            PageError::field("url", format!("{written:?} is not an absolute http(s) URL"))
        })?;
    Ok(Target {
        key: key.to_string(),
        crawl,
        timestamp: timestamp.to_string(),
        raw,
        url,
    })
}

/// The media type of an archived response (lower case, without parameters) and its charset.
fn media(r: &Replay) -> (String, Option<String>) {
    let value = r
        .head()
        .and_then(|h| h.header("content-type").map(str::to_string))
        .unwrap_or_default();
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_string())
    });
    (essence, charset)
}

/// Lets the archived page load what it refers to: its requests come from an opaque origin (the
/// sandbox), which `Cross-Origin-Resource-Policy: same-origin` would refuse. Another site cannot
/// embed an archive path either: it would have to know the session's replay key.
fn loadable(mut resp: HttpResponse) -> HttpResponse {
    resp.headers_mut().insert(
        header::HeaderName::from_static("cross-origin-resource-policy"),
        header::HeaderValue::from_static("cross-origin"),
    );
    resp
}

/// The answer for a URL the crawl has no capture of.
fn not_archived(url: &Url) -> HttpResponse {
    let url = html_escape::encode_text(url.as_str()).into_owned();
    let html = format!(
        "<!doctype html><meta charset=utf-8><title>Not archived</title>\
         <p><b>Not archived</b>: this crawl has no capture of <code>{url}</code>.</p>"
    );
    let mut resp = HttpResponse::build(StatusCode::NOT_FOUND);
    replay::protect(&mut resp);
    resp.content_type("text/html; charset=utf-8").body(html)
}

/// `GET /replay/{key}/{crawl}/{ts}/{url}`: the capture nearest `ts`, rewritten for replay.
pub async fn archived(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    serve(req, state).await.map(loadable)
}

async fn serve(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let t = target(&req)?;
    let at = parse_time("timestamp", &t.timestamp).map_err(|e| match e {
        WebError::BadParameter { name, reason } => PageError::field(name, reason),
        e => PageError::Web(e),
    })?;
    let index = index_of(&state, &t.crawl).await?;
    let warcs = warc_dir(state.manager.data(), &t.crawl);
    let wanted = t.url.to_string();
    let found =
        blocking(
            move || match index.capture_at(&warcs, &wanted, Some(at), MAX_REPLAY_BYTES) {
                Ok(r) => {
                    let decoded = r.entity(MAX_REPLAY_BYTES as usize).ok().map(|d| d.bytes);
                    Ok(Some((r, decoded)))
                }
                Err(IndexError::NotFound { .. }) => Ok(None),
                Err(e) => Err(e.into()),
            },
        )
        .await?;
    let Some((r, decoded)) = found else {
        return Ok(not_archived(&t.url));
    };
    // The time asked for, as pywb does: a page and everything it refers to are replayed around
    // one moment, whatever second each capture was made in.
    let asked = t.timestamp.len() == 14 && t.timestamp.bytes().all(|b| b.is_ascii_digit());
    let paths = ArchivePaths {
        prefix: prefix(&t.key, &t.crawl),
        timestamp: if asked {
            t.timestamp.clone()
        } else {
            timestamp14(r.capture.time)
        },
    };
    let Some(body) = decoded else {
        // A coding magpie cannot decode (br, zstd): the stored body, with its coding.
        let stored = r.http[r.header_len.min(r.http.len())..].to_vec();
        return Ok(replay::response(&r, stored, false));
    };
    if t.raw {
        return Ok(replay::response(&r, body, true));
    }
    let head = r.head();
    let status = head.as_ref().map_or(r.capture.status, |h| h.status);
    let location = head.as_ref().and_then(|h| h.header("location"));
    if let (300..=399, Some(loc)) = (status, location) {
        if let Some(to) = paths.rewrite(&t.url, loc) {
            let mut resp = HttpResponse::build(StatusCode::FOUND);
            replay::protect(&mut resp);
            return Ok(resp
                .insert_header((header::LOCATION, to))
                .insert_header(("X-Magpie-Status", status.to_string()))
                .finish());
        }
    }
    let (essence, charset) = media(&r);
    let body = match essence.as_str() {
        "text/html" | "application/xhtml+xml" => {
            rewrite_html(&body, charset.as_deref(), &t.url, &paths)
                .map_err(|e| PageError::Web(WebError::Internal(e.to_string())))?
        }
        "text/css" => {
            let encoding = charset
                .and_then(|c| encoding_rs::Encoding::for_label(c.trim().as_bytes()))
                .unwrap_or(encoding_rs::UTF_8);
            if encoding.is_ascii_compatible() {
                let (text, _, _) = encoding.decode(&body);
                let css = rewrite_css(&text, &t.url, &paths);
                encoding.encode(&css).0.into_owned()
            } else {
                body
            }
        }
        _ => body,
    };
    Ok(replay::response(&r, body, true))
}
