//! Bearer-token authentication: which requests need the token, the constant-time check, and
//! how tokens are made and validated.
//!
//! Every state-changing API request needs `Authorization: Bearer <token>`. Read-only requests
//! (GET, HEAD) are open when the server listens on loopback only (`WebConfig::public_reads`),
//! so local tools and a browser on the same machine can watch without the token; beyond
//! loopback a cockpit session cookie (see `csrf.rs`) also opens them.
//!
//! Cockpit pages (every path outside `/api/` and `/metrics`) are open on loopback and otherwise
//! need the session or the token; their forms are checked against forgery by the page handlers
//! (`pages::Form`), which is what lets a browser POST them without a bearer token.

use super::{error::WebError, pages::PageError, routes, AppState};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method};
use actix_web::middleware::Next;
use actix_web::web;
use sha1::{Digest, Sha1};

/// Shortest token accepted: shorter ones are guessable.
pub const MIN_TOKEN_LEN: usize = 16;
/// Longest token accepted.
pub const MAX_TOKEN_LEN: usize = 512;

/// Middleware: refuses a request with 401 unless it is an open read or carries the token.
pub async fn require_token(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return Err(WebError::Internal("no application state".into()).into());
    };
    let path = req.path();
    let bearer = || {
        authorized(
            req.headers().get(header::AUTHORIZATION),
            &state.config.token,
        )
    };
    if routes::is_page_path(path) {
        let open = state.config.public_reads
            || path == "/login"
            || path.starts_with("/static/")
            || state.csrf.has_session(req.request())
            || bearer();
        if !open {
            return Err(PageError::LoginRequired.into());
        }
        return next.call(req).await;
    }
    let read_only = matches!(*req.method(), Method::GET | Method::HEAD);
    let open = read_only && (state.config.public_reads || state.csrf.has_session(req.request()));
    if !open
        && !authorized(
            req.headers().get(header::AUTHORIZATION),
            &state.config.token,
        )
    {
        return Err(WebError::Unauthorized.into());
    }
    next.call(req).await
}

/// Whether an `Authorization` header value presents `token` as a bearer token.
pub fn authorized(value: Option<&header::HeaderValue>, token: &str) -> bool {
    let Some(value) = value.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let Some((scheme, presented)) = value.trim().split_once(' ') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer")
        && same_secret(presented.trim().as_bytes(), token.as_bytes())
}

/// Compares two secrets in time independent of where they differ and of their lengths:
/// both are hashed first, and the digests are compared without early exit.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    let (da, db) = (Sha1::digest(a), Sha1::digest(b));
    let diff = da
        .iter()
        .zip(db.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// A new random token: 64 hex digits (244 random bits from the OS generator).
pub fn generate_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Checks that a token can be sent in a header and is long enough not to be guessed.
pub fn validate_token(token: &str) -> Result<(), String> {
    if token.len() < MIN_TOKEN_LEN || token.len() > MAX_TOKEN_LEN {
        return Err(format!(
            "a token must have {MIN_TOKEN_LEN} to {MAX_TOKEN_LEN} characters, this one has {}",
            token.len()
        ));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("a token may only contain visible ASCII characters (no spaces)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hv(s: &str) -> header::HeaderValue {
        header::HeaderValue::from_str(s).unwrap()
    }

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let t = "0123456789abcdef-token";
        assert!(authorized(Some(&hv(&format!("Bearer {t}"))), t));
        assert!(authorized(Some(&hv(&format!("bearer  {t} "))), t));
        assert!(!authorized(None, t));
        assert!(!authorized(Some(&hv(t)), t));
        assert!(!authorized(Some(&hv(&format!("Basic {t}"))), t));
        assert!(!authorized(Some(&hv(&format!("Bearer {t}x"))), t));
        assert!(!authorized(Some(&hv(&format!("Bearer {}", &t[1..]))), t));
        assert!(!authorized(Some(&hv("Bearer ")), t));
    }

    #[test]
    fn secrets_compare_by_content() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }

    #[test]
    fn generated_tokens_are_valid_and_distinct() {
        let (a, b) = (generate_token(), generate_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(validate_token(&a).is_ok());
        assert!(validate_token("short").is_err());
        assert!(validate_token("has a space in the middle").is_err());
        assert!(validate_token(&"x".repeat(MAX_TOKEN_LEN + 1)).is_err());
    }
}
