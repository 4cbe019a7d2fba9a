//! The cockpit's login sessions and their protection against forgery.
//!
//! A browser holds cookies per host, not per port: every service on 127.0.0.1 receives the
//! cockpit's cookies, and a page it serves counts as the same *site* (its requests carry
//! `SameSite=Strict` cookies). So a cookie alone must never be enough to change anything, and
//! nothing another origin can read or set may stand in for a secret. The measures, and the
//! threat each answers (docs/api.md, "Sessions"):
//!
//! - **Sessions live on the server** ([`Sessions`]): a login creates a random id, kept in a
//!   table with its start and last use; it ends after [`WebConfig::session_idle`] unused, after
//!   [`WebConfig::session_max`] in all, at logout, or when the server stops. A cookie that
//!   leaked stops working then, and a cookie planted by another service names no session.
//! - **One cookie name per server** (`magpie_PORT_session`): two cockpits on one host never
//!   log each other out.
//! - **State changes need the session's form key**, `HMAC(secret, "form:" + session id)`, which
//!   the server sends once, in the answer to the login, to a page of its own origin that keeps
//!   it in that origin's `localStorage`; `cockpit.js` puts it in the form at submit. No page
//!   carries it afterwards, so a service that obtained the cookie (the operator's browser sent it
//!   there) can read pages until the session ends but cannot change anything: storage, unlike
//!   cookies, is separated by port.
//! - **Origins are compared exactly** (`host.rs`, the scheme's default port when none is
//!   written), and a form whose `Sec-Fetch-Site` is not `same-origin` is refused: a page on
//!   another port of the same host is same-site, never same-origin.
//! - **The login form has its own token**, bound to a pre-session nonce cookie; logging in
//!   always makes a new session id, so a session planted before login is never adopted.
//!
//! The API takes the bearer token; its reads take the session only through the cockpit's own
//! page paths (see `auth.rs`).

use super::host::AllowedHosts;
use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::http::header;
use actix_web::HttpRequest;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// Name of the hidden form field that carries the form key (or, on `/login`, the login token).
pub const FIELD: &str = "csrf";
/// Most sessions kept at once; a login beyond it ends the least recently used one.
pub const MAX_SESSIONS: usize = 256;

/// Why a state-changing form was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsrfError {
    /// The login form came without its nonce cookie.
    #[error("the form came without the cockpit's cookie: reload the page and submit again")]
    NoCookie,
    /// The hidden field is missing or does not belong to the session (or the login nonce).
    #[error("the form's anti-forgery key is missing or wrong: log in again (/login) with JavaScript on, then submit again")]
    BadToken,
    /// The request came from another origin.
    #[error(
        "the form was sent from another origin ({0}); only the cockpit's own pages may submit it"
    )]
    ForeignOrigin(String),
}

/// The server's secret, its cookie names and its live sessions.
pub struct Sessions {
    secret: [u8; 32],
    session_cookie: String,
    login_cookie: String,
    idle: Duration,
    max: Duration,
    live: Mutex<HashMap<String, Times>>,
}

#[derive(Debug, Clone, Copy)]
struct Times {
    started: Instant,
    seen: Instant,
}

/// A live session: its id, as the cookie carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionId(String);

impl Sessions {
    /// Sessions of the server listening on `port`, with a new random secret; a session ends
    /// after `idle` unused or `max` in all.
    pub fn new(port: u16, idle: Duration, max: Duration) -> Sessions {
        Sessions {
            secret: random_bytes(),
            session_cookie: format!("magpie_{port}_session"),
            login_cookie: format!("magpie_{port}_login"),
            idle,
            max,
            live: Mutex::new(HashMap::new()),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<String, Times>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a session at `now`: its cookie and its form key.
    pub fn start(&self, now: Instant) -> (Cookie<'static>, String) {
        let id = hex(&random_bytes::<16>());
        let mut live = self.table();
        live.retain(|_, t| self.alive(t, now));
        if live.len() >= MAX_SESSIONS {
            let oldest = live
                .iter()
                .min_by_key(|(_, t)| t.seen)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                live.remove(&k);
            }
        }
        live.insert(
            id.clone(),
            Times {
                started: now,
                seen: now,
            },
        );
        let key = self.form_key(&SessionId(id.clone()));
        (cockpit_cookie(&self.session_cookie, id), key)
    }

    fn alive(&self, t: &Times, now: Instant) -> bool {
        now.saturating_duration_since(t.seen) < self.idle
            && now.saturating_duration_since(t.started) < self.max
    }

    /// The live session the request's cookie names, if any; using it counts as activity.
    pub fn current(&self, req: &HttpRequest, now: Instant) -> Option<SessionId> {
        // Every cookie of that name: another service of the host can plant one with a longer
        // path, which the browser then sends first; it must not hide the real one.
        let mut live = self.table();
        for id in cookies(req, &self.session_cookie).filter(|v| valid_nonce(v)) {
            let Some(t) = live.get_mut(&id) else {
                continue;
            };
            if self.alive(t, now) {
                t.seen = now;
                return Some(SessionId(id));
            }
            live.remove(&id);
        }
        None
    }

    /// Ends the request's session on the server (logout); the cookie that names it is useless
    /// from now on. Returns the cookie that clears it in the browser.
    pub fn end(&self, req: &HttpRequest) -> Cookie<'static> {
        let mut live = self.table();
        for id in cookies(req, &self.session_cookie) {
            live.remove(&id);
        }
        drop(live);
        let mut gone = cockpit_cookie(&self.session_cookie, String::new());
        gone.set_max_age(time::Duration::ZERO);
        gone
    }

    /// The replay key of a session: what the archive paths of in-cockpit replay carry
    /// (`/replay/KEY/...`). A replayed page is shown in a sandbox with an opaque origin, so the
    /// requests it makes (its images, its styles, a link followed in its frame) carry no
    /// `SameSite=Strict` cookie: the key in the path stands in for the session, and dies with it.
    pub fn replay_key(&self, id: &SessionId) -> String {
        hex(&self.mac(&format!("replay:{}", id.0)))
    }

    /// Whether `key` is the replay key of a live session (checking it does not count as use:
    /// an archived page left open does not keep a session alive).
    pub fn replay_key_is_live(&self, key: &str, now: Instant) -> bool {
        let live = self.table();
        let mut found = false;
        for (id, t) in live.iter() {
            let k = self.replay_key(&SessionId(id.clone()));
            // Every live session is compared, so the time taken does not tell which matched.
            found |= self.alive(t, now) && same_secret(key.as_bytes(), k.as_bytes());
        }
        found
    }

    /// The form key of a session: what its forms must carry.
    fn form_key(&self, id: &SessionId) -> String {
        hex(&self.mac(&format!("form:{}", id.0)))
    }

    /// The login form's token for a pre-session nonce.
    fn login_token(&self, nonce: &str) -> String {
        hex(&self.mac(&format!("login:{nonce}")))
    }

    /// The login form's nonce cookie and token, for a browser that has no nonce yet (the
    /// cookie to set is returned then) or with the one it has.
    pub fn login_form(&self, req: &HttpRequest) -> (String, Option<Cookie<'static>>) {
        match cookie(req, &self.login_cookie).filter(|n| valid_nonce(n)) {
            Some(n) => (self.login_token(&n), None),
            None => {
                let n = hex(&random_bytes::<16>());
                let token = self.login_token(&n);
                (token, Some(cockpit_cookie(&self.login_cookie, n)))
            }
        }
    }

    fn mac(&self, message: &str) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .expect("HMAC takes keys of any length");
        mac.update(message.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Checks a submitted cockpit form: the origin, and the field against the session's key.
    pub fn verify(
        &self,
        req: &HttpRequest,
        field: Option<&str>,
        hosts: &AllowedHosts,
        now: Instant,
    ) -> Result<SessionId, CsrfError> {
        same_origin(req, hosts)?;
        let session = self.current(req, now).ok_or(CsrfError::BadToken)?;
        let field = field.ok_or(CsrfError::BadToken)?;
        if same_secret(field.as_bytes(), self.form_key(&session).as_bytes()) {
            Ok(session)
        } else {
            Err(CsrfError::BadToken)
        }
    }

    /// Checks the login form: the origin, and the field against the browser's login nonce.
    pub fn verify_login(
        &self,
        req: &HttpRequest,
        field: Option<&str>,
        hosts: &AllowedHosts,
    ) -> Result<(), CsrfError> {
        same_origin(req, hosts)?;
        let nonce = cookie(req, &self.login_cookie)
            .filter(|n| valid_nonce(n))
            .ok_or(CsrfError::NoCookie)?;
        let field = field.ok_or(CsrfError::BadToken)?;
        if same_secret(field.as_bytes(), self.login_token(&nonce).as_bytes()) {
            Ok(())
        } else {
            Err(CsrfError::BadToken)
        }
    }
}

/// Refuses a form sent by a page of another origin: an `Origin` that is not this server (with
/// the scheme's default port when none is written), or a browser's `Sec-Fetch-Site` other than
/// `same-origin` (a page on another port of this host is `same-site`).
fn same_origin(req: &HttpRequest, hosts: &AllowedHosts) -> Result<(), CsrfError> {
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("?");
        if !hosts.allows_origin(origin) {
            return Err(CsrfError::ForeignOrigin(origin.chars().take(200).collect()));
        }
    }
    if let Some(site) = req.headers().get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("?");
        if site != "same-origin" {
            return Err(CsrfError::ForeignOrigin(format!(
                "a {}-site page",
                site.trim_end_matches("-site")
                    .chars()
                    .take(20)
                    .collect::<String>()
            )));
        }
    }
    Ok(())
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

/// Whether a cookie value has the shape of an id or nonce this server hands out.
fn valid_nonce(n: &str) -> bool {
    n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The values of every cookie `name` the request carries, in the order sent.
fn cookies<'r>(req: &'r HttpRequest, name: &'r str) -> impl Iterator<Item = String> + 'r {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .filter(move |(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The value of the first cookie `name` the request carries.
fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    cookies(req, name).next()
}

/// A cockpit cookie: `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
/// request carries it), the whole site, and gone when the browser closes.
fn cockpit_cookie(name: &str, value: String) -> Cookie<'static> {
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

    const IDLE: Duration = Duration::from_secs(60);
    const MAX: Duration = Duration::from_secs(600);

    fn own() -> AllowedHosts {
        AllowedHosts::new("127.0.0.1:8080".parse().unwrap(), &[]).unwrap()
    }

    fn with_cookie(c: &Cookie) -> TestRequest {
        TestRequest::post()
            .insert_header((header::COOKIE, format!("a=b; {}={}", c.name(), c.value())))
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
    fn only_the_key_of_the_session_passes() {
        let s = Sessions::new(8080, IDLE, MAX);
        let now = Instant::now();
        let (cookie, key) = s.start(now);
        assert_eq!(cookie.name(), "magpie_8080_session");
        let req = with_cookie(&cookie).to_http_request();
        assert!(s.verify(&req, Some(&key), &own(), now).is_ok());
        assert_eq!(s.verify(&req, None, &own(), now), Err(CsrfError::BadToken));
        let (other_cookie, other_key) = s.start(now);
        assert_ne!(other_key, key);
        assert_eq!(
            s.verify(&req, Some(&other_key), &own(), now),
            Err(CsrfError::BadToken),
            "another session's key"
        );
        let other = with_cookie(&other_cookie).to_http_request();
        assert!(s.verify(&other, Some(&other_key), &own(), now).is_ok());
        // A made-up session id, with a key the attacker could compute for it, names no session.
        let forged = Cookie::new("magpie_8080_session", hex(&random_bytes::<16>()));
        let forged_req = with_cookie(&forged).to_http_request();
        assert_eq!(
            s.verify(&forged_req, Some(&key), &own(), now),
            Err(CsrfError::BadToken)
        );
        // Another server (another port, another secret) knows neither cookie nor key.
        let t = Sessions::new(9090, IDLE, MAX);
        assert!(t.current(&req, now).is_none());
    }

    #[test]
    fn sessions_end_when_idle_too_long_in_all_or_at_logout() {
        let s = Sessions::new(8080, IDLE, MAX);
        let t0 = Instant::now();
        let (cookie, _) = s.start(t0);
        let req = with_cookie(&cookie).to_http_request();
        // Used every 50 s: alive until the absolute limit.
        let mut t = t0;
        while t + Duration::from_secs(50) < t0 + MAX {
            t += Duration::from_secs(50);
            assert!(s.current(&req, t).is_some(), "alive at {:?}", t - t0);
        }
        assert!(s.current(&req, t0 + MAX).is_none(), "ended at the limit");
        let (cookie, _) = s.start(t0);
        let req = with_cookie(&cookie).to_http_request();
        assert!(s.current(&req, t0 + IDLE).is_none(), "ended when idle");
        let (cookie, _) = s.start(t0);
        let req = with_cookie(&cookie).to_http_request();
        let gone = s.end(&req);
        assert_eq!(gone.max_age(), Some(time::Duration::ZERO));
        assert!(s.current(&req, t0).is_none(), "ended at logout");
    }

    #[test]
    fn a_planted_cookie_of_the_same_name_does_not_hide_the_session() {
        let s = Sessions::new(8080, IDLE, MAX);
        let now = Instant::now();
        let (cookie, key) = s.start(now);
        let planted = format!("magpie_8080_session={}", "0".repeat(32));
        let req = TestRequest::post()
            .insert_header((header::COOKIE, format!("{planted}; {cookie}")))
            .to_http_request();
        assert!(s.verify(&req, Some(&key), &own(), now).is_ok());
    }

    #[test]
    fn the_table_is_bounded() {
        let s = Sessions::new(8080, IDLE, MAX);
        let now = Instant::now();
        let first = s.start(now).0;
        for i in 1..=MAX_SESSIONS {
            s.start(now + Duration::from_millis(i as u64));
        }
        assert_eq!(s.table().len(), MAX_SESSIONS);
        let req = with_cookie(&first).to_http_request();
        assert!(
            s.current(&req, now).is_none(),
            "the least recently used went"
        );
    }

    #[test]
    fn login_tokens_belong_to_the_nonce_cookie() {
        let s = Sessions::new(8080, IDLE, MAX);
        let (token, set) = s.login_form(&TestRequest::get().to_http_request());
        let nonce = set.expect("a nonce for a new browser");
        assert_eq!(nonce.name(), "magpie_8080_login");
        let req = with_cookie(&nonce).to_http_request();
        assert_eq!(s.verify_login(&req, Some(&token), &own()), Ok(()));
        assert_eq!(s.login_form(&req), (token.clone(), None));
        let bare = TestRequest::post().to_http_request();
        assert_eq!(
            s.verify_login(&bare, Some(&token), &own()),
            Err(CsrfError::NoCookie)
        );
        let (other, _) = s.login_form(&TestRequest::get().to_http_request());
        assert_eq!(
            s.verify_login(&req, Some(&other), &own()),
            Err(CsrfError::BadToken)
        );
    }

    #[test]
    fn other_origins_and_sites_are_refused() {
        let s = Sessions::new(8080, IDLE, MAX);
        let now = Instant::now();
        let (cookie, key) = s.start(now);
        let send = |name: &str, value: &str| {
            let req = with_cookie(&cookie)
                .insert_header((
                    header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                    value,
                ))
                .to_http_request();
            s.verify(&req, Some(&key), &own(), now)
        };
        assert!(send("origin", "http://127.0.0.1:8080").is_ok());
        assert!(send("sec-fetch-site", "same-origin").is_ok());
        for (name, value) in [
            ("origin", "http://127.0.0.1"),
            ("origin", "http://localhost"),
            ("origin", "https://127.0.0.1"),
            ("origin", "http://127.0.0.1:9999"),
            ("origin", "http://evil.example:8080"),
            ("origin", "null"),
            ("sec-fetch-site", "same-site"),
            ("sec-fetch-site", "cross-site"),
        ] {
            assert!(
                matches!(send(name, value), Err(CsrfError::ForeignOrigin(_))),
                "{name}: {value}"
            );
        }
    }
}
