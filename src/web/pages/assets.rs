//! `GET /static/{file}`: the cockpit's stylesheet and script, compiled into the binary so the
//! cockpit needs no files next to it. Only the names in [`ASSETS`] exist.

use super::PageError;
use crate::web::error::WebError;
use actix_web::http::header;
use actix_web::{web, HttpResponse};

/// Every asset: (file name, media type, content).
pub const ASSETS: &[(&str, &str, &str)] = &[
    (
        "cockpit.css",
        "text/css; charset=utf-8",
        include_str!("../../../static/cockpit.css"),
    ),
    (
        "cockpit.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../static/cockpit.js"),
    ),
];

/// Serves one asset; 404 for any other name.
pub async fn get(file: web::Path<String>) -> Result<HttpResponse, PageError> {
    let (_, media, body) = ASSETS
        .iter()
        .find(|(name, _, _)| *name == file.as_str())
        .ok_or_else(|| WebError::NoRoute(format!("/static/{file}")))?;
    Ok(HttpResponse::Ok()
        .content_type(*media)
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(*body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_are_not_empty_and_use_no_inline_handlers() {
        for (name, _, body) in ASSETS {
            assert!(body.len() > 100, "{name}");
        }
        let js = ASSETS[1].2;
        assert!(
            !js.contains("innerHTML") && !js.contains("outerHTML"),
            "text goes in with textContent, markup only from the server's escaped fragments"
        );
        assert!(!js.contains("eval("));
    }
}
