//! What of an archived HTTP response reaches the browser when a capture is replayed.
//!
//! Captures are shown in a sandboxed iframe of the cockpit, on the cockpit's own origin, so an
//! archived response must never act on that origin: it is served with
//! `Content-Security-Policy: sandbox` (an opaque origin: no scripts, no cookies, no storage,
//! no top navigation, no forms) plus a `default-src 'none'` policy (nothing is loaded from the
//! live web), `X-Content-Type-Options: nosniff`, and only an allow-list of archived headers.
//! Everything else the archived server sent (`Set-Cookie`, `Location`, `Refresh`,
//! `Strict-Transport-Security`, `WWW-Authenticate`, its own CSP, ...) stays in the archive;
//! `GET .../capture/info` shows it.

use crate::index::Replay;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, HttpResponseBuilder};

/// The policy sent with every replayed capture.
pub const REPLAY_CSP: &str = "sandbox; default-src 'none'; img-src 'self' data:; \
    style-src 'self' 'unsafe-inline'; font-src 'self' data:; media-src 'self' data:; \
    form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/// Archived headers passed on as they are: they describe the body and cannot act on the origin.
const PASSED: [&str; 3] = ["content-type", "content-language", "last-modified"];

/// Largest record block read for a replay; a longer body is served cut, marked
/// `X-Magpie-Truncated: true`.
pub const MAX_REPLAY_BYTES: u64 = 64 << 20;

/// The response replaying `r`. `body` is the entity as decoded by [`Replay::entity`] when
/// `decoded`, else the stored body, sent with its archived `Content-Encoding`.
pub fn response(r: &Replay, body: Vec<u8>, decoded: bool) -> HttpResponse {
    let head = r.head();
    // A status the browser would treat specially without a body (1xx, 204, 304) or an invalid
    // one is shown as 200; the archived status is always in X-Magpie-Status.
    let archived = head.as_ref().map_or(r.capture.status, |h| h.status);
    let status = match StatusCode::from_u16(archived) {
        Ok(s) if s.as_u16() >= 200 && !matches!(s.as_u16(), 204 | 205 | 304) => s,
        _ => StatusCode::OK,
    };
    let mut resp = HttpResponse::build(status);
    let mut typed = false;
    if let Some(h) = &head {
        for (name, value) in &h.headers {
            let lower = name.to_ascii_lowercase();
            let pass =
                PASSED.contains(&lower.as_str()) || (!decoded && lower == "content-encoding");
            if pass {
                if let Ok(v) = header::HeaderValue::from_str(value) {
                    typed |= lower == "content-type";
                    resp.insert_header((lower.as_str(), v));
                }
            }
        }
    }
    if !typed {
        resp.insert_header((header::CONTENT_TYPE, "application/octet-stream"));
    }
    protect(&mut resp);
    resp.insert_header(("X-Magpie-Status", archived.to_string()));
    resp.insert_header(("X-Magpie-Record-Id", r.capture.record_id.clone()));
    if let Some(o) = &r.original {
        resp.insert_header(("X-Magpie-Original-Record-Id", o.record_id.clone()));
    }
    if let Some(loc) = head.as_ref().and_then(|h| h.header("location")) {
        if let Ok(v) = header::HeaderValue::from_str(loc) {
            resp.insert_header(("X-Magpie-Location", v));
        }
    }
    resp.insert_header((
        "Memento-Datetime",
        httpdate::fmt_http_date(r.capture.time.into()),
    ));
    if r.cut {
        resp.insert_header(("X-Magpie-Truncated", "true"));
    }
    resp.body(body)
}

/// The headers that keep an archived response from acting on the server's origin.
pub fn protect(resp: &mut HttpResponseBuilder) {
    resp.insert_header((header::CONTENT_SECURITY_POLICY, REPLAY_CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::X_FRAME_OPTIONS, "SAMEORIGIN"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header(("Cross-Origin-Resource-Policy", "same-origin"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{CaptureKind, CaptureRef, Location};

    fn replay(head: &str, body: &str) -> Replay {
        let http = format!("{head}\r\n\r\n{body}").into_bytes();
        let header_len = head.len() + 4;
        Replay {
            capture: CaptureRef {
                url: "http://a.example/".into(),
                time: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
                status: 200,
                mime: "text/html".into(),
                digest: "sha1:X".into(),
                kind: CaptureKind::Capture,
                record_id: "<urn:uuid:1>".into(),
                hops: String::new(),
                location: Location::default(),
                related: None,
                revisit_of: None,
            },
            original: None,
            http,
            header_len,
            cut: false,
            framing: vec![],
        }
    }

    #[test]
    fn only_safe_archived_headers_pass() {
        let r = replay(
            "HTTP/1.1 302 Found\r\nContent-Type: text/html\r\nSet-Cookie: s=1\r\n\
             Location: http://live.example/\r\nRefresh: 0; url=http://live.example/\r\n\
             Strict-Transport-Security: max-age=1\r\nContent-Security-Policy: script-src *\r\n\
             WWW-Authenticate: Basic\r\nContent-Encoding: gzip",
            "<p>hi</p>",
        );
        let resp = response(&r, b"<p>hi</p>".to_vec(), true);
        assert_eq!(resp.status(), 302);
        let h = resp.headers();
        for gone in [
            "set-cookie",
            "location",
            "refresh",
            "strict-transport-security",
            "www-authenticate",
            "content-encoding",
        ] {
            assert!(h.get(gone).is_none(), "{gone} must not pass");
        }
        assert_eq!(h.get("content-type").unwrap(), "text/html");
        assert_eq!(h.get("content-security-policy").unwrap(), REPLAY_CSP);
        assert_eq!(h.get("x-content-type-options").unwrap(), "nosniff");
        assert_eq!(h.get("x-magpie-location").unwrap(), "http://live.example/");
        assert_eq!(h.get("x-magpie-status").unwrap(), "302");
    }

    #[test]
    fn bodyless_statuses_and_missing_types_are_made_safe() {
        let r = replay("HTTP/1.1 304 Not Modified\r\nSet-Cookie: a=b", "");
        let resp = response(&r, Vec::new(), true);
        assert_eq!(resp.status(), 200);
        assert_eq!(
            resp.headers().get("content-type").unwrap(),
            "application/octet-stream"
        );
        assert_eq!(resp.headers().get("x-magpie-status").unwrap(), "304");
        let gz = replay("HTTP/1.1 200 OK\r\nContent-Encoding: br", "xx");
        let resp = response(&gz, b"xx".to_vec(), false);
        assert_eq!(resp.headers().get("content-encoding").unwrap(), "br");
    }
}
