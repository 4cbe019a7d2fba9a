//! Cross-site request forgery protection and the cockpit's login session.
//!
//! The server holds a random secret made at start (never stored, never sent). A browser gets a
//! random nonce in the `magpie_csrf` cookie (`HttpOnly; SameSite=Strict`) with its first page;
//! every form carries `HMAC-SHA1(secret, "csrf:" + nonce)` in a hidden `csrf` field. A POST to a
//! page is accepted only when the field matches the cookie's nonce (constant-time compare) and
//! the `Origin` header, when sent, is this server: one of the names it answers to (`host.rs`),
//! never merely the request's own `Host` (a rebound name sends its own in both) nor a
//! forwarded header. A foreign site can neither read the cookie
//! nor compute the token without the secret, and `SameSite=Strict` keeps the cookie off its
//! requests anyway.
//!
//! When the server listens beyond loopback, cockpit pages need a session: the operator enters
//! the API token once at `/login`, and gets the `magpie_session` cookie, whose value is
//! `HMAC-SHA1(secret, "session")`; it is valid until the server restarts.

use super::auth::same_secret;
use super::host::AllowedHosts;
use actix_web::http::header;
use actix_web::HttpRequest;
use sha1::{Digest, Sha1};

/// Cookie holding the per-browser nonce.
pub const NONCE_COOKIE: &str = "magpie_csrf";
/// Cookie holding the login session.
pub const SESSION_COOKIE: &str = "magpie_session";
/// Name of the hidden form field.
pub const FIELD: &str = "csrf";

/// Why a state-changing form was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsrfError {
    /// No `magpie_csrf` cookie came with the request.
    #[error("the form came without the cockpit's cookie: reload the page and submit again")]
    NoCookie,
    /// The hidden field is missing or does not belong to the cookie.
    #[error("the form's anti-forgery token is missing or wrong: reload the page and submit again")]
    BadToken,
    /// The request came from another site.
    #[error(
        "the form was sent from another origin ({0}); only the cockpit's own pages may submit it"
    )]
    ForeignOrigin(String),
}

/// The server's secret and the tokens derived from it.
pub struct Csrf {
    secret: [u8; 32],
}

impl Default for Csrf {
    fn default() -> Self {
        Csrf::new()
    }
}

impl Csrf {
    /// A new random secret from the OS generator.
    pub fn new() -> Csrf {
        let mut secret = [0u8; 32];
        secret[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        secret[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        Csrf { secret }
    }

    /// The form token that goes with `nonce`.
    pub fn token_for(&self, nonce: &str) -> String {
        hex(&hmac_sha1(&self.secret, format!("csrf:{nonce}").as_bytes()))
    }

    /// The value of a valid session cookie.
    pub fn session_value(&self) -> String {
        hex(&hmac_sha1(&self.secret, b"session"))
    }

    /// Whether the request carries a valid session cookie.
    pub fn has_session(&self, req: &HttpRequest) -> bool {
        cookie(req, SESSION_COOKIE)
            .is_some_and(|v| same_secret(v.as_bytes(), self.session_value().as_bytes()))
    }

    /// Checks a submitted form: the cookie's nonce, the token field, and the origin, which must
    /// be one of `hosts`.
    pub fn verify(
        &self,
        req: &HttpRequest,
        field: Option<&str>,
        hosts: &AllowedHosts,
    ) -> Result<(), CsrfError> {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("?");
            if !hosts.allows_origin(origin) {
                return Err(CsrfError::ForeignOrigin(origin.to_string()));
            }
        }
        let nonce = cookie(req, NONCE_COOKIE)
            .filter(|n| valid_nonce(n))
            .ok_or(CsrfError::NoCookie)?;
        let field = field.ok_or(CsrfError::BadToken)?;
        if same_secret(field.as_bytes(), self.token_for(&nonce).as_bytes()) {
            Ok(())
        } else {
            Err(CsrfError::BadToken)
        }
    }
}

/// A fresh nonce for a browser that has none: 32 hex digits.
pub fn new_nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Whether a cookie value has the shape of a nonce this server hands out.
pub fn valid_nonce(n: &str) -> bool {
    n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The value of the cookie `name`, if the request carries it.
pub fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// A `Set-Cookie` value for a cockpit cookie (HttpOnly, SameSite=Strict, whole site).
pub fn set_cookie(name: &str, value: &str) -> String {
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict")
}

fn hmac_sha1(key: &[u8], msg: &[u8]) -> [u8; 20] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..20].copy_from_slice(&Sha1::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha1::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = Sha1::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    data_encoding::HEXLOWER.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn own() -> AllowedHosts {
        AllowedHosts::new("127.0.0.1:8080".parse().unwrap(), &[]).unwrap()
    }

    #[test]
    fn hmac_matches_rfc_2202() {
        // RFC 2202 test case 2.
        let mac = hmac_sha1(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(hex(&mac), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
        // Test case 6: a key longer than the block.
        let mac = hmac_sha1(
            &[0xaa; 80],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(hex(&mac), "aa4ae5e15272d00e95705637ce8a3b55ed402112");
    }

    #[test]
    fn only_the_token_of_the_cookie_passes() {
        let c = Csrf::new();
        let nonce = new_nonce();
        let good = c.token_for(&nonce);
        let with_cookie = || {
            TestRequest::post()
                .insert_header((header::COOKIE, format!("a=b; {NONCE_COOKIE}={nonce}")))
                .to_http_request()
        };
        assert_eq!(c.verify(&with_cookie(), Some(&good), &own()), Ok(()));
        assert_eq!(
            c.verify(&with_cookie(), None, &own()),
            Err(CsrfError::BadToken)
        );
        let other = c.token_for(&new_nonce());
        assert_eq!(
            c.verify(&with_cookie(), Some(&other), &own()),
            Err(CsrfError::BadToken)
        );
        let no_cookie = TestRequest::post().to_http_request();
        assert_eq!(
            c.verify(&no_cookie, Some(&good), &own()),
            Err(CsrfError::NoCookie)
        );
        // Another server's secret makes other tokens.
        assert_ne!(Csrf::new().token_for(&nonce), good);
    }

    #[test]
    fn foreign_origins_are_refused() {
        let c = Csrf::new();
        let nonce = new_nonce();
        let req = TestRequest::post()
            .insert_header((header::HOST, "127.0.0.1:8080"))
            .insert_header((header::ORIGIN, "http://evil.example"))
            .insert_header((header::COOKIE, format!("{NONCE_COOKIE}={nonce}")))
            .to_http_request();
        assert!(matches!(
            c.verify(&req, Some(&c.token_for(&nonce)), &own()),
            Err(CsrfError::ForeignOrigin(_))
        ));
        let req = TestRequest::post()
            .insert_header((header::HOST, "127.0.0.1:8080"))
            .insert_header((header::ORIGIN, "http://127.0.0.1:8080"))
            .insert_header((header::COOKIE, format!("{NONCE_COOKIE}={nonce}")))
            .to_http_request();
        assert_eq!(c.verify(&req, Some(&c.token_for(&nonce)), &own()), Ok(()));
        // DNS rebinding: the page's own name in Host and Origin, or in forwarded headers.
        for (name, value) in [
            (header::HOST, "evil.example:8080"),
            (
                header::HeaderName::from_static("x-forwarded-host"),
                "evil.example:8080",
            ),
            (header::FORWARDED, "host=evil.example:8080"),
        ] {
            let req = TestRequest::post()
                .insert_header((name, value))
                .insert_header((header::ORIGIN, "http://evil.example:8080"))
                .insert_header((header::COOKIE, format!("{NONCE_COOKIE}={nonce}")))
                .to_http_request();
            assert!(matches!(
                c.verify(&req, Some(&c.token_for(&nonce)), &own()),
                Err(CsrfError::ForeignOrigin(_))
            ));
        }
    }

    #[test]
    fn sessions_need_the_exact_cookie() {
        let c = Csrf::new();
        let ok = TestRequest::get()
            .insert_header((
                header::COOKIE,
                format!("{SESSION_COOKIE}={}", c.session_value()),
            ))
            .to_http_request();
        assert!(c.has_session(&ok));
        let bad = TestRequest::get()
            .insert_header((header::COOKIE, format!("{SESSION_COOKIE}=00")))
            .to_http_request();
        assert!(!c.has_session(&bad));
        assert!(!valid_nonce("x;y"));
    }
}
