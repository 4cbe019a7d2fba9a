//! Which `Host` and `Origin` values name this server, against DNS rebinding.
//!
//! A web page whose name is rebound to 127.0.0.1 reaches the cockpit with its own name in
//! `Host` and `Origin` (`evil.example:8080`): a check that compares `Origin` with the request's
//! `Host` passes it. So the server answers only to the names it knows — its bound address,
//! `localhost`, `127.0.0.1`, `[::1]` (with the bound port or none) and the names given with
//! `magpie serve --allowed-host` — and the anti-forgery check compares `Origin` with those, never
//! with the request's `Host` nor with forwarded headers (`X-Forwarded-Host`, `Forwarded`), which
//! any client can set.
//!
//! When the server listens on every address (`0.0.0.0`, `[::]`), any IP literal is accepted too:
//! a rebinding attack needs a name, since a page loaded from an address talks to that address.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web;
use std::net::{IpAddr, SocketAddr};

/// The names (and addresses) this server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    bound: SocketAddr,
    /// Lowercase host names given by the operator, each with the port it must come with (`None`:
    /// no port or the bound one).
    names: Vec<(String, Option<u16>)>,
}

/// A `--allowed-host` value that is not a host name, address or `host:port`.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("--allowed-host {0:?}: expected a host name or address, optionally with :PORT")]
pub struct BadAllowedHost(pub String);

/// `host[:port]` split, the host lowercased and without a final dot; IPv6 keeps its brackets.
fn split(authority: &str) -> Option<(String, Option<u16>)> {
    let a = authority.trim();
    let (host, port) = if a.starts_with('[') {
        let end = a.find(']')?;
        let rest = &a[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None if rest.is_empty() => None,
            None => return None,
        };
        (&a[..=end], port)
    } else {
        match a.rsplit_once(':') {
            Some((h, p)) => (h, Some(p.parse().ok()?)),
            None => (a, None),
        }
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    let ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b));
    ok.then_some((host, port))
}

/// An IP literal as it appears in a `Host` header (IPv6 in brackets).
fn literal(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

fn parse_literal(host: &str) -> Option<IpAddr> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse().ok()
}

impl AllowedHosts {
    /// The names of a server listening on `bound`, plus the operator's `extra` names
    /// (`name` or `name:port`).
    pub fn new(bound: SocketAddr, extra: &[String]) -> Result<AllowedHosts, BadAllowedHost> {
        let names = extra
            .iter()
            .map(|n| split(n).ok_or_else(|| BadAllowedHost(n.clone())))
            .collect::<Result<_, _>>()?;
        Ok(AllowedHosts { bound, names })
    }

    /// Whether a `Host` header value (or an origin's authority) names this server.
    pub fn allows(&self, authority: &str) -> bool {
        let Some((host, port)) = split(authority) else {
            return false;
        };
        let own_port = port.is_none_or(|p| p == self.bound.port());
        if self
            .names
            .iter()
            .any(|(n, p)| *n == host && p.map_or(own_port, |p| port == Some(p)))
        {
            return true;
        }
        if !own_port {
            return false;
        }
        if matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]")
            || host == literal(self.bound.ip())
        {
            return true;
        }
        self.bound.ip().is_unspecified() && parse_literal(&host).is_some()
    }

    /// Whether an `Origin` header value is a page of this server: `http` or `https`, an allowed
    /// name, and exactly the bound port, where an origin that writes no port means its scheme's
    /// default (`http://127.0.0.1` is port 80, another service's page). A name given with
    /// `--allowed-host NAME` (no port) is also reached through a proxy on the default port.
    /// `null` and anything else are foreign.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let (rest, default_port) = match origin.split_once("://") {
            Some(("http", rest)) => (rest, 80),
            Some(("https", rest)) => (rest, 443),
            _ => return false,
        };
        if rest.contains('/') {
            return false;
        }
        let Some((host, written)) = split(rest) else {
            return false;
        };
        let port = written.unwrap_or(default_port);
        let named = self.names.iter().any(|(n, p)| {
            *n == host
                && match p {
                    Some(p) => *p == port,
                    None => written.is_none() || port == self.bound.port(),
                }
        });
        if named {
            return true;
        }
        port == self.bound.port() && self.allows(&format!("{host}:{port}"))
    }

    /// The origin pages should name this server by: the request's `Host` when it is allowed
    /// (the middleware has refused every other), else the bound address.
    pub fn own_origin(&self, req: &actix_web::HttpRequest) -> String {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| self.allows(h));
        match host {
            Some(h) => format!("http://{h}"),
            None => format!("http://{}", self.bound),
        }
    }
}

/// Middleware: a request whose `Host` does not name this server gets 421 and nothing else (no
/// page, no token check, no handler runs). A request without `Host` passes: browsers always
/// send one, and only a browser can be turned against the server by rebinding.
pub async fn require_known_host(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<super::AppState>>() else {
        return Err(super::error::WebError::Internal("no application state".into()).into());
    };
    if let Some(host) = req.headers().get(header::HOST) {
        let text = host.to_str().unwrap_or("?");
        if !state.hosts.allows(text) {
            return Err(super::error::WebError::UnknownHost(text.to_string()).into());
        }
    }
    next.call(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(bound: &str, extra: &[&str]) -> AllowedHosts {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        AllowedHosts::new(bound.parse().unwrap(), &extra).unwrap()
    }

    #[test]
    fn loopback_names_and_the_bound_address_pass_with_the_bound_port() {
        let h = hosts("127.0.0.1:8080", &[]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "localhost",
            "localhost.:8080",
            "[::1]:8080",
            "[::1]",
            "127.0.0.1",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "evil.example",
            "localhost:8081",
            "127.0.0.1:80",
            "localhost.evil.example:8080",
            "10.0.0.1:8080",
            "",
            "localhost:x",
            "[::1",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
        let v6 = hosts("[::1]:9000", &[]);
        assert!(v6.allows("[::1]:9000") && v6.allows("localhost:9000"));
    }

    #[test]
    fn configured_names_pass_and_any_literal_when_bound_everywhere() {
        let h = hosts("0.0.0.0:8080", &["crawler.lan", "proxy.example:443"]);
        assert!(h.allows("crawler.lan:8080") && h.allows("Crawler.LAN"));
        assert!(h.allows("proxy.example:443") && !h.allows("proxy.example:8080"));
        assert!(h.allows("192.168.1.5:8080") && h.allows("[fe80::1]:8080"));
        assert!(!h.allows("evil.example:8080"));
        assert!(hosts("10.0.0.2:8080", &[]).allows("10.0.0.2:8080"));
        assert!(!hosts("10.0.0.2:8080", &[]).allows("192.168.1.5:8080"));
        let bad = AllowedHosts::new("127.0.0.1:1".parse().unwrap(), &["a b".into()]);
        assert_eq!(bad.unwrap_err(), BadAllowedHost("a b".into()));
    }

    #[test]
    fn origins_must_name_this_server() {
        let h = hosts("127.0.0.1:8080", &[]);
        assert!(h.allows_origin("http://127.0.0.1:8080"));
        assert!(h.allows_origin("http://localhost:8080"));
        for bad in [
            "http://evil.example:8080",
            // Another service of the same host, on the scheme's default port.
            "http://127.0.0.1",
            "http://localhost",
            "https://127.0.0.1",
            "http://[::1]",
            "null",
            "http://127.0.0.1:8080/x",
            "ftp://127.0.0.1:8080",
            "http://localhost:9999",
        ] {
            assert!(!h.allows_origin(bad), "{bad}");
        }
    }
}
