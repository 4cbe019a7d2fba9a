//! The export page (`/crawls/{id}/export`): a selection form (query, minimum score, host,
//! application, kind, with embeds), a preview of how many captures and bytes the selection
//! holds (the API's preview), a form that writes the export as the API's `POST .../exports`
//! does (CSRF-checked), as WARC + CDXJ or as a WACZ package, and links to the downloads, and
//! the exports written so far.

use super::{fmt_bytes, render, render_status, urlencode, Chrome, Form, PageError, Params};
use crate::export::ExportPreview;
use crate::web::api::export_files::{finished, Listed};
use crate::web::api::exports::{
    check_name, format_of, fresh_name, preview_of, write, Created, ExportParams,
};
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// The selection's fields, as the form and the API name them.
const FIELDS: [&str; 6] = ["q", "min_score", "host", "app", "kind", "with_embeds"];

#[derive(Template)]
#[template(path = "export.html")]
struct ExportPage {
    chrome: Chrome,
    action: String,
    form: Vec<(&'static str, String)>,
    name: String,
    /// The format chosen for writing: `warc` or `wacz`.
    format: String,
    error: Option<String>,
    preview: Option<ExportPreview>,
    created: Option<Created>,
    exports: Vec<Listed>,
}

impl ExportPage {
    fn value(&self, key: &str) -> &str {
        self.form
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("", |(_, v)| v.as_str())
    }

    fn fmt_bytes(&self, n: &u64) -> String {
        fmt_bytes(*n as f64)
    }

    fn embeds(&self) -> bool {
        matches!(self.value("with_embeds"), "true" | "1" | "on")
    }

    /// The selection in words, for the banner of a written export.
    fn selection(&self) -> String {
        let mut parts: Vec<String> = [
            ("q", "query"),
            ("host", "host"),
            ("app", "application"),
            ("kind", "kind"),
            ("min_score", "minimum score"),
        ]
        .iter()
        .filter(|(k, _)| !self.value(k).is_empty())
        .map(|(k, label)| format!("{label} \u{201c}{}\u{201d}", self.value(k)))
        .collect();
        if parts.is_empty() {
            parts.push("every capture".into());
        }
        parts.push(if self.embeds() {
            "with their page requisites".into()
        } else {
            "without page requisites".into()
        });
        parts.join(", ")
    }
}

/// The export request of the selection; a bad value names its field.
fn request(
    id: &str,
    get: impl Fn(&str) -> Option<String>,
) -> Result<crate::export::ExportRequest, PageError> {
    let embeds = get("with_embeds").map(|v| if v == "on" { "true".into() } else { v });
    ExportParams {
        q: get("q"),
        min_score: get("min_score"),
        host: get("host"),
        app: get("app"),
        kind: get("kind"),
        with_embeds: embeds,
        ..ExportParams::default()
    }
    .request(id)
    .map_err(named)
}

/// A bad value named as a field of the page.
fn named(e: WebError) -> PageError {
    use crate::index::IndexError;
    match e {
        WebError::BadParameter { name, reason }
        | WebError::Index(IndexError::BadParameter { name, reason })
        | WebError::Export(crate::export::ExportError::Index(IndexError::BadParameter {
            name,
            reason,
        })) => PageError::field(name, reason),
        e => PageError::Web(e),
    }
}

fn blank(id: &str) -> ExportPage {
    ExportPage {
        chrome: Chrome::new(format!("Export from {id}"), Some(id), "export"),
        action: format!("/crawls/{}/export", urlencode(id)),
        form: FIELDS.iter().map(|k| (*k, String::new())).collect(),
        name: String::new(),
        format: "warc".into(),
        error: None,
        preview: None,
        created: None,
        exports: vec![],
    }
}

/// The exports with their download links under the cockpit's paths.
fn cockpit_links(mut exports: Vec<Listed>) -> Vec<Listed> {
    for e in &mut exports {
        e.download.in_cockpit();
    }
    exports
}

/// Sets a field of the selection form.
fn set(form: &mut [(&'static str, String)], key: &str, value: &str) {
    if let Some((_, v)) = form.iter_mut().find(|(k, _)| *k == key) {
        *v = value.to_string();
    }
}

/// `GET /crawls/{id}/export`: the form; with `preview=1`, the selection's counts too.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let mut known = FIELDS.to_vec();
    known.extend(["preview", "name", "format"]);
    let params = Params::of(&req, &known)?;
    let get = |k: &str| params.get(k).map(str::to_string);
    let mut page = blank(&id);
    page.exports = cockpit_links(finished(&state, &id).await?);
    for (k, v) in page.form.iter_mut() {
        *v = get(k).unwrap_or_default();
    }
    // A blank form exports the page requisites with the pages (replay needs them); a submitted
    // one says what it wants.
    if get("preview").is_none() && get("with_embeds").is_none() {
        set(&mut page.form, "with_embeds", "true");
    }
    page.name = get("name").unwrap_or_default();
    if let Some(f) = get("format").filter(|f| f == "wacz") {
        page.format = f;
    }
    if get("preview").is_some() {
        let r = match request(&id, get) {
            Ok(r) => r,
            // A bad value is said on the page, with the form as typed.
            Err(e) if e.is_users() => {
                page.error = Some(crate::web::error::redact(&e.to_string()));
                return render_status(&page, StatusCode::BAD_REQUEST);
            }
            Err(e) => return Err(e),
        };
        match preview_of(&state, &id, r).await {
            Ok(p) => page.preview = Some(p),
            Err(WebError::Index(crate::index::IndexError::BadQuery { reason, .. }))
            | Err(WebError::Export(crate::export::ExportError::Index(
                crate::index::IndexError::BadQuery { reason, .. },
            ))) => {
                page.error = Some(format!("The query cannot be read: {reason}"));
                return render_status(&page, StatusCode::BAD_REQUEST);
            }
            Err(e) => return Err(named(e)),
        }
    }
    render(&page)
}

/// `POST /crawls/{id}/export`: writes the export (anti-forgery token required) and shows its
/// download links.
pub async fn create(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    let get = |k: &str| {
        form.get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    state.manager.get(&id)?;
    let mut page = blank(&id);
    if let Some(f) = get("format") {
        page.format = f;
    }
    for (k, v) in page.form.iter_mut() {
        *v = get(k).unwrap_or_default();
    }
    page.name = get("name").unwrap_or_default();
    let written = async {
        let name = match get("name") {
            Some(n) => check_name(&n).map_err(named)?,
            None => fresh_name(),
        };
        let kind = format_of(get("format")).map_err(named)?;
        let r = request(&id, get)?;
        write(&state, &id, name, kind, r).await.map_err(named)
    }
    .await;
    page.exports = cockpit_links(finished(&state, &id).await?);
    match written {
        Ok(mut created) => {
            created.download.in_cockpit();
            page.name = String::new();
            page.created = Some(created);
            render(&page)
        }
        // What the operator can fix (a name taken or not allowed, a bad value, a query the
        // parser refuses) is said on the page, with the form as typed.
        Err(e) if e.is_users() => {
            page.error = Some(crate::web::error::redact(&e.to_string()));
            let status = actix_web::ResponseError::status_code(&e);
            render_status(&page, status)
        }
        Err(e) => Err(e),
    }
}
