//! Export over HTTP: the captures a selection picks (query, host, application, kind, score,
//! time, with or without page requisites) written as a new WARC file with its CDXJ index, or
//! as a WACZ package.
//!
//! - `GET .../exports/preview?...`: how many captures, records and bytes an export would hold;
//! - `POST .../exports` (token): writes `DATA/<crawl>/exports/<name>.warc.gz` and
//!   `<name>.warc.gz.cdxj` (`"format": "warc"`, the default) or `<name>.wacz`
//!   (`"format": "wacz"`), answers 201 with the counts and download paths;
//! - `GET .../export?...`: streams an export as it is written, without keeping a file.
//!
//! The finished files are listed and downloaded by [`super::export_files`].
//!
//! Names are 1–100 characters of `A-Z a-z 0-9 . _ -`, starting with a letter or digit, so no
//! name reaches outside the exports folder. The crawl's own WARC files are only read.

use super::export_files::{exports_dir, files_of, Downloads, Kind};
use super::search::SearchParams;
use super::{blocking, given, index_of, read_capped, timestamp14};
use crate::export::{self, cli::write_export, wacz::export_wacz, ExportPreview, ExportRequest};
use crate::index::{warc_dir, SearchQuery};
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};

/// Largest export request body.
const MAX_EXPORT_BODY: usize = 64 << 10;
/// Bytes per chunk when streaming exports.
const CHUNK: usize = 256 << 10;
/// Longest export name.
const MAX_NAME: usize = 100;

/// The selection, as query parameters (the keys of the search, plus `with_embeds`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    pub(crate) q: Option<String>,
    pub(crate) host: Option<String>,
    pub(crate) domain: Option<String>,
    pub(crate) app: Option<String>,
    pub(crate) kind: Option<String>,
    pub(crate) lang: Option<String>,
    pub(crate) mime: Option<String>,
    pub(crate) min_score: Option<String>,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    /// `true` or `false` (default).
    pub(crate) with_embeds: Option<String>,
    /// For the streamed export: the file name recorded in it (default `<crawl>-export`).
    pub(crate) name: Option<String>,
}

impl ExportParams {
    /// The export request of this selection; a bad value is a 400 naming it.
    pub(crate) fn request(self, crawl: &str) -> Result<ExportRequest, WebError> {
        let with_embeds = match given(self.with_embeds).as_deref() {
            None | Some("false") | Some("0") => false,
            Some("true") | Some("1") => true,
            Some(v) => {
                return Err(WebError::BadParameter {
                    name: "with_embeds".into(),
                    reason: format!("{v:?} is neither true nor false"),
                })
            }
        };
        let query = SearchParams {
            q: self.q,
            host: self.host,
            domain: self.domain,
            app: self.app,
            kind: self.kind,
            lang: self.lang,
            mime: self.mime,
            min_score: self.min_score,
            from: self.from,
            to: self.to,
            ..SearchParams::default()
        }
        .into_query()?;
        Ok(ExportRequest {
            query,
            with_embeds,
            crawl: crawl.to_string(),
        })
    }
}

/// The body of `POST .../exports`; every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportBody {
    name: Option<String>,
    q: Option<String>,
    host: Option<String>,
    domain: Option<String>,
    app: Option<String>,
    kind: Option<String>,
    lang: Option<String>,
    mime: Option<String>,
    min_score: Option<f64>,
    from: Option<String>,
    to: Option<String>,
    #[serde(default)]
    with_embeds: bool,
    /// `warc` (default) or `wacz`.
    format: Option<String>,
}

/// The export format named by a form or body field (`warc` when absent); a 400 otherwise.
pub(crate) fn format_of(v: Option<String>) -> Result<Kind, WebError> {
    match given(v).as_deref() {
        None | Some("warc") => Ok(Kind::Warc),
        Some("wacz") => Ok(Kind::Wacz),
        Some(v) => Err(WebError::BadParameter {
            name: "format".into(),
            reason: format!("{v:?} is neither warc nor wacz"),
        }),
    }
}

/// Checks an export name; `.warc.gz` or `.wacz` at its end is dropped (`sel.warc.gz` is
/// `sel`).
pub fn check_name(name: &str) -> Result<String, WebError> {
    let name = name
        .strip_suffix(".warc.gz")
        .or_else(|| name.strip_suffix(".wacz"))
        .unwrap_or(name);
    let bad = |reason: &str| WebError::BadParameter {
        name: "name".into(),
        reason: format!("{name:?} {reason}"),
    };
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(bad("must have 1 to 100 characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(bad("must start with a letter or digit"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        || name.contains("..")
    {
        return Err(bad(
            "may only hold letters, digits and . _ - (no paths, no ..)",
        ));
    }
    Ok(name.to_string())
}

/// `GET .../exports/preview?...`: the counts and size of the export the selection would make.
pub async fn preview(
    id: web::Path<String>,
    params: web::Query<ExportParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let req = params.into_inner().request(&id)?;
    Ok(HttpResponse::Ok().json(preview_of(&state, &id, req).await?))
}

/// The counts and size of the export `req` would make (the API's preview and the cockpit's).
pub(crate) async fn preview_of(
    state: &web::Data<AppState>,
    id: &str,
    req: ExportRequest,
) -> Result<ExportPreview, WebError> {
    let index = index_of(state, id).await?;
    let warcs = warc_dir(state.manager.data(), id);
    blocking(move || Ok(export::preview(&index, &warcs, &req, "preview.warc.gz")?)).await
}

/// Removes a name from the set of exports being written when the request ends.
struct Busy<'a> {
    state: &'a AppState,
    key: String,
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.state
            .exporting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.key);
    }
}

/// What an export wrote, and where to download it.
#[derive(Serialize)]
pub(crate) struct Created {
    pub(crate) crawl: String,
    pub(crate) name: String,
    pub(crate) format: Kind,
    /// The main file: `<name>.warc.gz` or `<name>.wacz`.
    pub(crate) file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) warc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cdxj: Option<String>,
    /// Download paths of the files.
    pub(crate) download: Downloads,
    pub(crate) selected: usize,
    pub(crate) originals: usize,
    pub(crate) embeds: usize,
    /// Records of the WARC file (inside the WACZ for a WACZ export).
    pub(crate) records: usize,
    /// Pages listed in the WACZ's `pages.jsonl` (WACZ exports only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pages: Option<usize>,
    /// Size of the main file.
    pub(crate) bytes: u64,
}

/// `POST .../exports`: writes the export and its CDXJ; 201 with what was written, 409 when an
/// export of that name exists or is being written.
pub async fn create(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    state.manager.get(&id)?;
    let raw = read_capped(&req, payload, MAX_EXPORT_BODY).await?;
    let body: ExportBody = if raw.iter().all(u8::is_ascii_whitespace) {
        ExportBody::default()
    } else {
        let de = &mut serde_json::Deserializer::from_slice(&raw);
        serde_path_to_error::deserialize(de).map_err(|e| WebError::BadParameter {
            name: e.path().to_string(),
            reason: e.inner().to_string(),
        })?
    };
    let name = match given(body.name) {
        Some(n) => check_name(&n)?,
        None => fresh_name(),
    };
    let kind = format_of(body.format)?;
    let request = ExportParams {
        q: body.q,
        host: body.host,
        domain: body.domain,
        app: body.app,
        kind: body.kind,
        lang: body.lang,
        mime: body.mime,
        min_score: body.min_score.map(|s| s.to_string()),
        from: body.from,
        to: body.to,
        with_embeds: Some(body.with_embeds.to_string()),
        name: None,
    }
    .request(&id)?;
    let created = write(&state, &id, name, kind, request).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, created.download.file.clone()))
        .json(created))
}

/// A fresh export name: `export-<timestamp>-<6 hex digits>`.
pub(crate) fn fresh_name() -> String {
    format!(
        "export-{}-{}",
        timestamp14(chrono::Utc::now()),
        &uuid::Uuid::new_v4().simple().to_string()[..6]
    )
}

/// Writes the export `request` of crawl `id` as `<name>.warc.gz` with its CDXJ, or as
/// `<name>.wacz` (the API's `POST .../exports` and the cockpit's export form); a conflict when
/// the name is taken by an export of either format.
pub(crate) async fn write(
    state: &web::Data<AppState>,
    id: &str,
    name: String,
    kind: Kind,
    request: ExportRequest,
) -> Result<Created, WebError> {
    let index = index_of(state, id).await?;
    let key = format!("{id}/{name}");
    let dir = exports_dir(state.manager.data(), id);
    let (file, warc, cdxj, download) = files_of(id, &name, kind);
    let out = dir.join(&file);
    let taken = [Kind::Warc, Kind::Wacz]
        .iter()
        .any(|k| dir.join(k.file(&name)).exists());
    if !state
        .exporting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.clone())
        || taken
    {
        return Err(WebError::Conflict(format!(
            "an export named {name:?} exists already in crawl {id:?}"
        )));
    }
    let _busy = Busy { state, key };
    let warcs = warc_dir(state.manager.data(), id);
    let (report, pages, bytes) = blocking(move || {
        std::fs::create_dir_all(&dir)?;
        Ok(match kind {
            Kind::Warc => {
                let r = write_export(&index, &warcs, &request, &out)?;
                let bytes = r.bytes;
                (r, None, bytes)
            }
            Kind::Wacz => {
                let w = export_wacz(&index, &warcs, &request, &out)?;
                (w.export.unwrap_or_default(), Some(w.pages), w.bytes)
            }
        })
    })
    .await?;
    Ok(Created {
        crawl: id.to_string(),
        name,
        format: kind,
        file,
        warc,
        cdxj,
        download,
        selected: report.selected,
        originals: report.originals,
        embeds: report.embeds,
        records: report.records,
        pages,
        bytes,
    })
}

/// Sends what an export writes to the response, a chunk at a time.
struct ChannelWriter {
    tx: tokio::sync::mpsc::Sender<Result<web::Bytes, std::io::Error>>,
    buf: Vec<u8>,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = web::Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "client gone"))
    }
}

impl std::io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// `GET .../export?...`: streams the export of the selection as it is written (no file is
/// kept, no CDXJ). The selection is checked first, so a bad query is still a 400; a failure
/// after the first byte ends the download early.
pub async fn stream(
    id: web::Path<String>,
    params: web::Query<ExportParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let params = params.into_inner();
    let name = match given(params.name.clone()) {
        Some(n) => check_name(&n)?,
        None => format!("{id}-export"),
    };
    let req = params.request(&id)?;
    let index = index_of(&state, &id).await?;
    let probe = SearchQuery {
        per_page: 1,
        ..req.query.clone()
    };
    let checked = index.clone();
    blocking(move || Ok(checked.search(&probe).map(|_| ())?)).await?;
    let warcs = warc_dir(state.manager.data(), &id);
    let file = format!("{name}.warc.gz");
    let out_name = file.clone();
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let errors = tx.clone();
    // Runs while the response streams what it sends; ends early when the client goes away.
    drop(tokio::task::spawn_blocking(move || {
        let mut w = ChannelWriter {
            tx,
            buf: Vec::with_capacity(CHUNK),
        };
        if let Err(e) = export::export(&index, &warcs, &req, &out_name, &mut w)
            .and_then(|_| std::io::Write::flush(&mut w).map_err(export::ExportError::Write))
        {
            tracing::warn!("streamed export failed: {e}");
            let _ = errors.blocking_send(Err(std::io::Error::other(e.to_string())));
        }
    }));
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    Ok(HttpResponse::Ok()
        .content_type("application/warc+gzip")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file}\""),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .streaming(body))
}
