//! Who may do what: the bearer token, the cockpit's session, the one-time `?token=` login, and
//! how tokens are made and validated.
//!
//! Every API request that changes state needs `Authorization: Bearer <token>`. Read-only API
//! requests (GET, HEAD) also pass without anything when the operator opened them
//! (`WebConfig::public_reads`, `magpie serve --public-reads`, loopback only); a cockpit session
//! is not enough for the API, since the browser sends its cookie to every port of the host.
//!
//! Cockpit pages (every path outside `/api/` and `/metrics`) need a live session or the token,
//! on loopback too, so another local user or process cannot drive the cockpit. A page address
//! carrying `?token=TOKEN` logs the browser in (see `pages::login::welcome`), then goes to the
//! same address without the token, so the token leaves the address bar and history at once.
//! `/login` and `/static/` are open. Forms also carry the session's form key, checked by the
//! page handlers (`pages::Form`, `csrf.rs`). In-cockpit replay (`/replay/KEY/...`) takes the
//! session's replay key in its path instead of the session (see `pages::replay`).

use super::{error::WebError, pages::PageError, routes, AppState};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method};
use actix_web::middleware::Next;
use actix_web::web;

use super::csrf::random_bytes;
pub use super::csrf::same_secret;

/// Where in-cockpit replay is served: `/replay/KEY/CRAWL/TIMESTAMP/URL`.
pub const REPLAY_PREFIX: &str = "/replay/";

/// Shortest token accepted: shorter ones are guessable.
pub const MIN_TOKEN_LEN: usize = 16;
/// Longest token accepted.
pub const MAX_TOKEN_LEN: usize = 512;

/// Middleware: refuses a request with 401 (or, for a page, a redirect to `/login`) unless it
/// is an open read or carries the session or the token; answers a `?token=` login.
pub async fn require_token<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Err(WebError::Internal("no application state".into()).into());
    };
    // Decided on the path as the router sees it: `/%61pi/v1/...` is routed to the API, so it
    // must need the API's credentials, not a cockpit session.
    let path = percent_encoding::percent_decode_str(req.path()).decode_utf8_lossy();
    let path = path.as_ref();
    let bearer = || {
        authorized(
            req.headers().get(header::AUTHORIZATION),
            &state.config.token,
        )
    };
    if let Some(rest) = path.strip_prefix(REPLAY_PREFIX) {
        // In-cockpit replay: the archived page's own requests carry no session cookie (its
        // sandbox gives it an opaque origin), so the session's replay key in the path stands in
        // for it. Its query belongs to the archived URL: no `?token=` login here.
        let key = rest.split('/').next().unwrap_or_default();
        let live = state
            .sessions
            .replay_key_is_live(key, std::time::Instant::now());
        if !live && !bearer() {
            return Err(PageError::ReplayKey.into());
        }
    } else if routes::is_page_path(path) {
        if let Some((presented, clean)) = token_in_query(req.path(), req.query_string()) {
            if !same_secret(presented.as_bytes(), state.config.token.as_bytes()) {
                return Err(PageError::WrongToken.into());
            }
            let resp = super::pages::login::welcome(&state, &clean)?;
            return Ok(req.into_response(resp).map_into_right_body());
        }
        let open = path == "/login"
            || path.starts_with("/static/")
            || state
                .sessions
                .current(req.request(), std::time::Instant::now())
                .is_some()
            || bearer();
        if !open {
            return Err(PageError::LoginRequired.into());
        }
    } else {
        let read_only = matches!(*req.method(), Method::GET | Method::HEAD);
        let open = read_only && state.config.public_reads;
        if !open && !bearer() {
            return Err(WebError::Unauthorized.into());
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// The token a page address carries in its `token` parameter, and the same address without
/// it (other parameters kept in order).
fn token_in_query(path: &str, query: &str) -> Option<(String, String)> {
    let mut token = None;
    let mut rest = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        if k == "token" {
            token = Some(v.into_owned());
        } else {
            rest.append_pair(&k, &v);
        }
    }
    let rest = rest.finish();
    let clean = if rest.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{rest}")
    };
    token.map(|t| (t, clean))
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

/// A new random token: 64 hex digits (256 bits from the OS generator).
pub fn generate_token() -> String {
    data_encoding::HEXLOWER.encode(&random_bytes::<32>())
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
    fn the_token_parameter_is_taken_out_of_the_address() {
        assert_eq!(token_in_query("/", ""), None);
        assert_eq!(token_in_query("/x", "a=1"), None);
        assert_eq!(
            token_in_query("/", "token=abc"),
            Some(("abc".into(), "/".into()))
        );
        assert_eq!(
            token_in_query("/crawls/c", "a=1&token=a%2Bb&z=%C3%A9"),
            Some(("a+b".into(), "/crawls/c?a=1&z=%C3%A9".into()))
        );
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
