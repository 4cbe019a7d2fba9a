//! The files of finished exports, in `DATA/<crawl>/exports/`: a WARC export is
//! `<name>.warc.gz` with `<name>.warc.gz.cdxj` beside it, a WACZ export one `<name>.wacz`.
//!
//! - `GET .../exports`: the finished exports, by name, with their format and download paths;
//! - `GET .../exports/{file}`: downloads one file.
//!
//! An export is finished when its main file exists: both kinds are written under `.partial`
//! names and renamed into place last.

use super::exports::check_name;
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::body::SizedStream;
use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Bytes per chunk when streaming files.
const CHUNK: usize = 256 << 10;
/// The media type WACZ files are published with (WACZ 1.1.1, "Media Type").
pub(crate) const WACZ_TYPE: &str = "application/wacz";

/// The folder of a crawl's exports.
pub(crate) fn exports_dir(data: &Path, crawl: &str) -> PathBuf {
    data.join(crawl).join("exports")
}

/// What an export was written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    /// `<name>.warc.gz` and `<name>.warc.gz.cdxj`.
    Warc,
    /// `<name>.wacz`.
    Wacz,
}

impl Kind {
    /// The export's main file name.
    pub(crate) fn file(self, name: &str) -> String {
        match self {
            Kind::Warc => format!("{name}.warc.gz"),
            Kind::Wacz => format!("{name}.wacz"),
        }
    }
}

/// The download paths of an export's files (`warc` and `cdxj` for WARC exports only).
#[derive(Serialize)]
pub(crate) struct Downloads {
    pub(crate) file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) warc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cdxj: Option<String>,
}

impl Downloads {
    /// The same files under the cockpit's paths (`/crawls/{id}/exports/...`), which take the
    /// session: the API's paths take only the token.
    pub(crate) fn in_cockpit(&mut self) {
        for path in std::iter::once(&mut self.file)
            .chain(self.warc.as_mut())
            .chain(self.cdxj.as_mut())
        {
            if let Some(rest) = path.strip_prefix("/api/v1") {
                *path = rest.to_string();
            }
        }
    }
}

/// The file names and download paths of export `name` of crawl `crawl`:
/// `(file, warc, cdxj, downloads)`.
pub(crate) fn files_of(
    crawl: &str,
    name: &str,
    kind: Kind,
) -> (String, Option<String>, Option<String>, Downloads) {
    let base = format!("/api/v1/crawls/{crawl}/exports");
    let file = kind.file(name);
    let (warc, cdxj) = match kind {
        Kind::Warc => (Some(file.clone()), Some(format!("{file}.cdxj"))),
        Kind::Wacz => (None, None),
    };
    let downloads = Downloads {
        file: format!("{base}/{file}"),
        warc: warc.as_ref().map(|w| format!("{base}/{w}")),
        cdxj: cdxj.as_ref().map(|c| format!("{base}/{c}")),
    };
    (file, warc, cdxj, downloads)
}

/// A finished export.
#[derive(Serialize)]
pub(crate) struct Listed {
    pub(crate) name: String,
    pub(crate) format: Kind,
    pub(crate) file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) warc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cdxj: Option<String>,
    pub(crate) bytes: u64,
    pub(crate) created: Option<String>,
    pub(crate) download: Downloads,
}

/// `GET .../exports`: the finished exports of a crawl, by name.
pub async fn list(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let exports = finished(&state, &id).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "crawl": id, "exports": exports })))
}

/// The finished exports of crawl `id`, by name (404 for an unknown crawl).
pub(crate) async fn finished(
    state: &web::Data<AppState>,
    id: &str,
) -> Result<Vec<Listed>, WebError> {
    state.manager.get(id)?;
    let dir = exports_dir(state.manager.data(), id);
    let crawl = id.to_string();
    super::blocking(move || {
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(out);
        };
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let (name, kind) = if let Some(n) = file.strip_suffix(".warc.gz") {
                (n, Kind::Warc)
            } else if let Some(n) = file.strip_suffix(".wacz") {
                (n, Kind::Wacz)
            } else {
                continue;
            };
            let meta = e.metadata()?;
            let created = meta.modified().ok().map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            });
            let (file, warc, cdxj, download) = files_of(&crawl, name, kind);
            out.push(Listed {
                name: name.to_string(),
                format: kind,
                file,
                warc,
                cdxj,
                bytes: meta.len(),
                created,
                download,
            });
        }
        out.sort_by(|a, b| (&a.name, &a.file).cmp(&(&b.name, &b.file)));
        Ok(out)
    })
    .await
}

/// `GET .../exports/{file}`: one file of a finished export, `<name>.warc.gz`,
/// `<name>.warc.gz.cdxj` or `<name>.wacz`, as a download.
pub async fn download(
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let (id, file) = path.into_inner();
    state.manager.get(&id)?;
    let (name, kind, main) = if let Some(n) = file.strip_suffix(".warc.gz.cdxj") {
        (n, "text/plain; charset=utf-8", Kind::Warc)
    } else if let Some(n) = file.strip_suffix(".warc.gz") {
        (n, "application/warc+gzip", Kind::Warc)
    } else if let Some(n) = file.strip_suffix(".wacz") {
        (n, WACZ_TYPE, Kind::Wacz)
    } else {
        return Err(WebError::BadParameter {
            name: "file".into(),
            reason: format!("{file:?} is neither NAME.warc.gz, NAME.warc.gz.cdxj nor NAME.wacz"),
        });
    };
    check_name(name)?;
    let dir = exports_dir(state.manager.data(), &id);
    // Only finished exports: the main file is renamed into place last.
    if !dir.join(main.file(name)).is_file() {
        return Err(WebError::NotFound(format!(
            "export {file:?} of crawl {id:?}"
        )));
    }
    let f = tokio::fs::File::open(dir.join(&file))
        .await
        .map_err(|_| WebError::NotFound(format!("export {file:?} of crawl {id:?}")))?;
    let len = f.metadata().await?.len();
    let stream = futures_util::stream::unfold(Some(f), |f| async move {
        use tokio::io::AsyncReadExt;
        let mut f = f?;
        let mut buf = vec![0u8; CHUNK];
        match f.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(web::Bytes::from(buf)), Some(f)))
            }
            Err(e) => Some((Err(e), None)),
        }
    });
    Ok(HttpResponse::Ok()
        .content_type(kind)
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file}\""),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(SizedStream::new(len, stream)))
}
