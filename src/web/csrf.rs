//! Cross-site request forgery protection and the cockpit's login session.
//!
//! The server holds a random secret made at start (never stored, never sent). A browser gets a
//! random nonce in the `magpie_csrf` cookie (`HttpOnly; SameSite=Strict`) with its first page;
//! every form carries `HMAC-SHA256(secret, "csrf:" + nonce)` in a hidden `csrf` field. A POST to
//! a page is accepted only when the field matches the cookie's nonce (constant-time compare)
//! and the `Origin` header, when sent, is this server: one of the names it answers to
//! (`host.rs`), never merely the request's own `Host` (a rebound name sends its own in both) nor
//! a forwarded header. A foreign site can neither read the cookie nor compute the token without
//! the secret, and `SameSite=Strict` keeps the cookie off its requests anyway.
//!
//! Cockpit pages need a session, on loopback too (any local user or process could otherwise
//! use the forms): the operator presents the API token once, in the address printed at start
//! (`/?token=...`, as Jupyter does) or on `/login`, and gets the `magpie_session` cookie. Its
//! value is a random session id and `HMAC-SHA256(secret, "session:" + id)`: signed, and bound
//! to this server run, since the secret dies with the process.

use super::host::AllowedHosts;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::header;
use actix_web::HttpRequest;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

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
        Csrf {
            secret: random_bytes(),
        }
    }

    /// The form token that goes with `nonce`.
    pub fn token_for(&self, nonce: &str) -> String {
        hex(&self.mac(&format!("csrf:{nonce}")))
    }

    /// The value of a new session cookie: a random id and its signature.
    pub fn new_session(&self) -> String {
        let id = hex(&random_bytes::<16>());
        let mac = hex(&self.mac(&format!("session:{id}")));
        format!("{id}.{mac}")
    }

    /// Whether the request carries a session cookie this server run signed.
    pub fn has_session(&self, req: &HttpRequest) -> bool {
        let Some(value) = cookie(req, SESSION_COOKIE) else {
            return false;
        };
        let Some((id, mac)) = value.split_once('.') else {
            return false;
        };
        valid_nonce(id)
            && same_secret(
                mac.as_bytes(),
                hex(&self.mac(&format!("session:{id}"))).as_bytes(),
            )
    }

    fn mac(&self, message: &str) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .expect("HMAC takes keys of any length");
        mac.update(message.as_bytes());
        mac.finalize().into_bytes().into()
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
    hex(&random_bytes::<16>())
}

/// `N` bytes from the operating system's generator.
///
/// # Panics
/// When the OS has no generator to offer, which leaves no safe way to make a secret.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random generator failed");
    bytes
}

/// Compares two secrets in time independent of where they differ and of their lengths:
/// both are hashed first, and the digests are compared in constant time.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    Sha256::digest(a).ct_eq(&Sha256::digest(b)).into()
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

/// A cockpit cookie: `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
/// request carries it), the whole site, and gone when the browser closes.
pub fn cockpit_cookie(name: &str, value: String) -> Cookie<'static> {
    Cookie::build(name.to_string(), value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .finish()
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
    fn secrets_compare_by_content_only() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
        assert_ne!(random_bytes::<16>(), random_bytes::<16>());
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
    fn sessions_need_a_cookie_this_server_signed() {
        let c = Csrf::new();
        let with = |value: &str| {
            TestRequest::get()
                .insert_header((header::COOKIE, format!("{SESSION_COOKIE}={value}")))
                .to_http_request()
        };
        let session = c.new_session();
        assert!(c.has_session(&with(&session)));
        assert_ne!(session, c.new_session(), "every login gets its own id");
        // Another server run (another secret) does not accept it.
        assert!(!Csrf::new().has_session(&with(&session)));
        // A made-up id with the signature of another.
        let (_, mac) = session.split_once('.').unwrap();
        assert!(!c.has_session(&with(&format!("{}.{mac}", new_nonce()))));
        for bad in ["00", "", ".", &session[..session.len() - 1]] {
            assert!(!c.has_session(&with(bad)), "{bad:?}");
        }
        assert!(!valid_nonce("x;y"));
    }
}
