//! The capture view (`/crawls/{id}/capture?url=&at=`): the archived page in a sandboxed iframe
//! whose source is the replay API (served with `Content-Security-Policy: sandbox`), the
//! archived HTTP headers, the WARC record's location and digests, the outlinks with the score
//! components the analysis gave them, the web objects the application-aware helper extracted,
//! and the other captures of the same URL. Everything is read from the index and the WARC
//! files, as the API reads it.

use super::search::capture_href;
use super::{render, urlencode, Chrome, PageError, Params};
use crate::archive::read_record_prefix;
use crate::index::{metadata_records, record_path, warc_dir, CaptureRef, IndexError};
use crate::web::api::{blocking, index_of, parse_time};
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde_json::Value;

/// Record block bytes read for the view: enough for any HTTP head.
const HEAD_BYTES: u64 = 64 << 10;
/// Outlinks listed at most.
const MAX_OUTLINKS: usize = 2000;
/// The analysis record's media type (`docs/warc.md`).
pub(crate) const ANALYSIS: &str = "application/vnd.magpie.analysis+json";
/// The application-aware helper's record's media type (`docs/kb.md`).
const AAH: &str = "application/vnd.magpie.aah+json";

/// One outlink with the score it entered the frontier with.
pub struct Outlink {
    /// Its URL.
    pub url: String,
    /// `L`, `E`, ...
    pub hop: String,
    /// Score components in display order (document, paragraph, anchor, url, parent, total).
    pub parts: Vec<String>,
    /// `blacklisted`, `skipped` or empty.
    pub note: &'static str,
}

/// One extracted web object.
pub struct WebObject {
    /// `post`, `comment`, ...
    pub kind: String,
    /// Its fields, by name.
    pub fields: Vec<(String, String)>,
}

/// Another capture of the URL.
pub struct Other {
    /// The capture.
    pub capture: CaptureRef,
    /// Its view.
    pub href: String,
    /// The one shown.
    pub current: bool,
}

#[derive(Template)]
#[template(path = "capture.html")]
struct CapturePage {
    chrome: Chrome,
    replay: String,
    original_href: Option<String>,
    capture: CaptureRef,
    original: Option<CaptureRef>,
    status_line: String,
    http: Vec<(String, String)>,
    warc: Vec<(String, String)>,
    relevance: Option<String>,
    application: Option<String>,
    outlinks: Vec<Outlink>,
    more_outlinks: usize,
    objects: Vec<WebObject>,
    others: Vec<Other>,
}

/// The score components of an analysis `score` object, formatted.
fn parts(score: &Value) -> Vec<String> {
    ["document", "paragraph", "anchor", "url", "parent", "total"]
        .iter()
        .map(|k| score[k].as_f64().map_or("–".into(), |v| format!("{v:.3}")))
        .collect()
}

pub(crate) fn outlinks(analysis: &Value) -> Vec<Outlink> {
    analysis["outlinks"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|o| Outlink {
                    url: o["url"].as_str().unwrap_or("").to_string(),
                    hop: o["hop"].as_str().unwrap_or("").to_string(),
                    parts: parts(&o["score"]),
                    note: if o["blacklist"] == Value::Bool(true) {
                        "blacklisted"
                    } else if o["skip"] == Value::Bool(true) {
                        "skipped"
                    } else {
                        ""
                    },
                })
                .collect()
        })
        .unwrap_or_default()
}

fn objects(aah: &Value) -> Vec<WebObject> {
    aah["objects"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|o| WebObject {
                    kind: o["type"].as_str().unwrap_or("object").to_string(),
                    fields: o["fields"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .map(|(k, v)| {
                                    let v =
                                        v.as_str().map_or_else(|| v.to_string(), str::to_string);
                                    (k.clone(), v)
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `GET /crawls/{id}/capture?url=&at=`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let params = Params::of(&req, &["url", "at"])?;
    let url = params
        .get("url")
        .ok_or_else(|| PageError::field("url", "is required"))?
        .to_string();
    if let Err(e) = url::Url::parse(&url) {
        return Err(PageError::field(
            "url",
            format!("{url:?} is not an absolute URL: {e}"),
        ));
    }
    let at = params
        .get("at")
        .map(|v| parse_time("at", v))
        .transpose()
        .map_err(|e| match e {
            WebError::BadParameter { name, reason } => PageError::field(name, reason),
            e => PageError::Web(e),
        })?;
    let index = index_of(&state, &id).await?;
    let warcs = warc_dir(state.manager.data(), &id);
    let u = url.clone();
    let (r, warc, metadata, all) = blocking(move || {
        let r = index.capture_at(&warcs, &u, at, HEAD_BYTES)?;
        let loc = &r.capture.location;
        let (warc, _) = read_record_prefix(&record_path(&warcs, &loc.file), loc.offset, 0)
            .map_err(IndexError::from)?;
        let metadata = metadata_records(&warcs, &r.capture)?;
        let all = index.captures_of(&u)?;
        Ok((r, warc, metadata, all))
    })
    .await?;
    let head = r.head();
    let time = r
        .capture
        .time
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let json = |t: &str| {
        metadata
            .iter()
            .find(|m| m.is(t))
            .and_then(|m| m.json.clone())
    };
    let analysis = json(ANALYSIS);
    let aah = json(AAH);
    let mut links = analysis.as_ref().map(outlinks).unwrap_or_default();
    let more_outlinks = links.len().saturating_sub(MAX_OUTLINKS);
    links.truncate(MAX_OUTLINKS);
    let application = aah.as_ref().and_then(|a| {
        let app = a["application"]["name"].as_str()?;
        Some(match a["level"]["name"].as_str() {
            Some(l) => format!("{app} / {l}"),
            None => app.to_string(),
        })
    });
    let page = CapturePage {
        chrome: Chrome::new(format!("Capture of {url}"), Some(&id), "search"),
        // The archive path, whose rewritten pages browse within the archive; without a session
        // (a page opened with the bearer token), the replay of this capture alone.
        replay: match state.sessions.current(&req, std::time::Instant::now()) {
            Some(session) => format!(
                "{}/{}/{}",
                super::replay::prefix(&state.sessions.replay_key(&session), &id),
                crate::web::api::timestamp14(r.capture.time),
                r.capture.url
            ),
            None => format!(
                "/crawls/{}/replay?url={}&at={}",
                urlencode(&id),
                urlencode(&url),
                urlencode(&time)
            ),
        },
        status_line: head
            .as_ref()
            .map_or_else(|| r.capture.status.to_string(), |h| h.status.to_string()),
        http: head.map(|h| h.headers).unwrap_or_default(),
        warc: warc.fields,
        relevance: analysis
            .as_ref()
            .and_then(|a| a["relevance"].as_f64())
            .map(|v| format!("{v:.3}")),
        application,
        outlinks: links,
        more_outlinks,
        objects: aah.as_ref().map(objects).unwrap_or_default(),
        others: all
            .into_iter()
            .map(|c| Other {
                href: capture_href(&id, &c.url, &c.time),
                current: c.record_id == r.capture.record_id,
                capture: c,
            })
            .collect(),
        original_href: r
            .original
            .as_ref()
            .map(|o| capture_href(&id, &o.url, &o.time)),
        original: r.original,
        capture: r.capture,
    };
    render(&page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn analysis_and_helper_records_are_read_for_people() {
        let a = json!({"outlinks": [
            {"url": "http://a/x", "hop": "L", "score": {"document": 0.5, "paragraph": 0.25,
             "anchor": 1, "url": 0, "parent": 0.125, "total": 0.4}},
            {"url": "http://spam/", "hop": "L", "score": {"total": 0.0}, "blacklist": true}
        ]});
        let l = outlinks(&a);
        assert_eq!(l.len(), 2);
        assert_eq!(
            l[0].parts,
            ["0.500", "0.250", "1.000", "0.000", "0.125", "0.400"]
        );
        assert_eq!((l[1].note, l[1].parts[0].as_str()), ("blacklisted", "–"));
        assert!(outlinks(&json!({})).is_empty());
        let o = objects(&json!({"objects": [{"type": "post", "fields": {"title": "T", "n": 3}}]}));
        assert_eq!(o[0].kind, "post");
        assert_eq!(
            o[0].fields,
            [("n".into(), "3".into()), ("title".into(), "T".into())]
        );
    }
}
