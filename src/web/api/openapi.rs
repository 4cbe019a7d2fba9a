//! `GET /api/v1/openapi.json`: the hand-written OpenAPI 3 description of every route.

use actix_web::HttpResponse;

/// The document, kept in step with `routes.rs` (a test compares them).
pub const OPENAPI_JSON: &str = include_str!("../openapi.json");

/// Serves the OpenAPI document.
pub async fn document() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(OPENAPI_JSON)
}
