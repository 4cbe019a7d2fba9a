//! Checks of a crawl's seeds before it starts: each seed against the crawl's scope and the
//! private-address rule, so that a crawl that could fetch none of them is said before it runs
//! (the new-crawl form asks before creating it, `POST /api/v1/crawls` answers the checks with
//! the crawl's id) instead of ending with nothing fetched.
//!
//! No name is resolved by [`check_seeds`]: a check that sent DNS queries for every spec posted
//! would make the server query whatever names a request holds. Addresses written as IP literals
//! and `localhost` names are checked; a name that resolves to a private address is refused when
//! fetched, and the crawl's outcome then says which seeds were refused and why. Reading the
//! seeds' robots.txt ([`check_robots`]) goes on the network, so it runs only when the operator
//! asks for it, with the crawl's own fetcher and rules (user agent, the private-address refusal)
//! and bounded in origins, bytes and time.

use crate::fetch::{entity_body, is_private, FetchConfig, Fetcher, Robots};
use crate::scope::Scope;
use crate::spec::Spec;
use serde::Serialize;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;
use url::{Host, Url};

/// Origins whose robots.txt one check reads (the seeds of further origins are said unchecked).
const MAX_ROBOTS_ORIGINS: usize = 16;
/// How long the robots.txt reads of one check may take together.
const ROBOTS_BUDGET: Duration = Duration::from_secs(8);
/// Longest robots.txt read (Google reads 500 KiB).
const MAX_ROBOTS_BYTES: u64 = 512 * 1024;
/// Redirects followed to a robots.txt (RFC 9309 asks for at least five).
const MAX_ROBOTS_REDIRECTS: usize = 5;

/// One seed and what would keep it from being fetched.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SeedCheck {
    /// The seed, as the crawl keeps it.
    pub url: String,
    /// What would refuse it, each with what to change; empty when nothing is known against it.
    pub problems: Vec<String>,
}

/// The address a seed names without a lookup: an IP literal, or loopback for `localhost`.
fn literal_address(url: &url::Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            (d == "localhost" || d.ends_with(".localhost"))
                .then_some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        }
    }
}

/// Checks every seed of a validated spec.
pub fn check_seeds(spec: &Spec) -> Vec<SeedCheck> {
    let scope = Scope::new(spec);
    spec.seeds
        .iter()
        .map(|url| {
            let mut problems = Vec::new();
            match scope.decide(url, "", true) {
                Ok(()) => {}
                Err(crate::scope::Reject::OutOfScope) => problems.push(
                    "outside the scope: no scope.allow pattern matches it; add one that does"
                        .into(),
                ),
                Err(r) => problems.push(format!(
                    "refused by the scope ({}): check scope.deny, scope.max_path_repeats and \
                     limits.max_url_length",
                    r.as_str()
                )),
            }
            if let Some(ip) = literal_address(url) {
                if !spec.allow_private && is_private(ip) {
                    problems.push(format!(
                        "its address {ip} is private and network.allow_private (\"Allow private \
                         addresses\") is off: it will be refused; turn it on to crawl it"
                    ));
                }
            }
            SeedCheck {
                url: url.as_str().to_string(),
                problems,
            }
        })
        .collect()
}

/// Adds to `checks` (from [`check_seeds`], same order) what each seed's robots.txt says, read
/// now with the crawl's user agent, when the crawl obeys robots.txt: a seed its robots.txt
/// disallows, or whose robots.txt cannot be read (the crawl retries it and gives the host up
/// after `limits.max_retries` failures), gets a problem. Seeds with a problem already are not
/// read (a private address the crawl would refuse is not fetched here either).
pub async fn check_robots(spec: &Spec, spool_dir: &Path, checks: &mut [SeedCheck]) {
    if !spec.politeness.respect_robots {
        return;
    }
    let short = |d: Duration| d.min(Duration::from_secs(5));
    let fetcher = Fetcher::new(FetchConfig {
        user_agent: spec.politeness.user_agent.clone(),
        connect_timeout: short(spec.limits.connect_timeout),
        first_byte_timeout: short(spec.limits.timeout),
        total_timeout: short(spec.limits.timeout),
        max_body_bytes: MAX_ROBOTS_BYTES,
        allow_private: spec.allow_private,
        spool_dir: spool_dir.to_path_buf(),
        spool_mem_bytes: 2 * MAX_ROBOTS_BYTES as usize,
        dns_ttl: Duration::from_secs(60),
        keep_alive: Duration::ZERO,
    });
    let fetcher = match fetcher {
        Ok(f) => f,
        Err(e) => {
            for c in checks.iter_mut().filter(|c| c.problems.is_empty()) {
                c.problems.push(format!("robots.txt not checked: {e}"));
            }
            return;
        }
    };
    let mut origins: Vec<String> = Vec::new();
    for c in checks.iter().filter(|c| c.problems.is_empty()) {
        if let Ok(u) = Url::parse(&c.url) {
            let o = u.origin().ascii_serialization();
            if !origins.contains(&o) {
                origins.push(o);
            }
        }
    }
    let unchecked = origins.split_off(origins.len().min(MAX_ROBOTS_ORIGINS));
    let ua = &spec.politeness.user_agent;
    let reads = futures_util::future::join_all(origins.iter().map(|o| robots_of(&fetcher, o, ua)));
    let answers = tokio::time::timeout(ROBOTS_BUDGET, reads).await.ok();
    for c in checks.iter_mut().filter(|c| c.problems.is_empty()) {
        let Ok(u) = Url::parse(&c.url) else {
            continue;
        };
        let origin = u.origin().ascii_serialization();
        let at = origins.iter().position(|o| *o == origin);
        let problem = match (at, &answers) {
            _ if unchecked.contains(&origin) => Some(format!(
                "robots.txt not checked: a check reads the first {MAX_ROBOTS_ORIGINS} hosts' only"
            )),
            (Some(i), Some(answers)) => match &answers[i] {
                Ok(robots) if robots.allowed(u.as_str()) => None,
                Ok(_) => Some(format!(
                    "{origin}/robots.txt disallows it for the user agent {ua:?}: the crawl will \
                     not fetch it while politeness.respect_robots is on"
                )),
                Err(e) => Some(format!(
                    "{origin}/robots.txt cannot be read ({e}): the crawl retries it and gives \
                     the host up after limits.max_retries failures"
                )),
            },
            _ => Some(format!(
                "robots.txt not checked: the reads took more than {} s",
                ROBOTS_BUDGET.as_secs()
            )),
        };
        c.problems.extend(problem);
    }
}

/// Why a seed's robots.txt could not be read; shown in the seed's problem.
#[derive(Debug, thiserror::Error)]
enum Unread {
    /// The origin gives no robots.txt URL.
    #[error("not a URL: {0}")]
    BadUrl(#[from] url::ParseError),
    /// The fetch, or the decoding of its body, failed.
    #[error(transparent)]
    Fetch(#[from] crate::fetch::FetchError),
    /// Redirects went on past the crawl's limit.
    #[error("more than {MAX_ROBOTS_REDIRECTS} redirects")]
    TooManyRedirects,
}

/// The robots.txt of `origin`, following redirects as the crawl does.
async fn robots_of(fetcher: &Fetcher, origin: &str, ua: &str) -> Result<Robots, Unread> {
    let mut url = Url::parse(&format!("{origin}/robots.txt"))?;
    for _ in 0..=MAX_ROBOTS_REDIRECTS {
        let f = fetcher.fetch(&url).await?;
        let status = f.info.status;
        if (300..400).contains(&status) {
            if let Some(next) = f.info.header("location").and_then(|l| url.join(l).ok()) {
                url = next;
                continue;
            }
        }
        let body = entity_body(&f, MAX_ROBOTS_BYTES as usize)?.bytes;
        return Ok(Robots::from_response(status, &body, ua));
    }
    Err(Unread::TooManyRedirects)
}

/// Whether any seed has a problem.
pub fn any_problem(checks: &[SeedCheck]) -> bool {
    checks.iter().any(|c| !c.problems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: serde_json::Value) -> Spec {
        let mut v = serde_json::json!({
            "name": "s",
            "seeds": ["http://127.0.0.1:8080/", "http://localhost/x", "http://example.org/", "http://[::1]/"],
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        Spec::from_json(&v.to_string()).unwrap()
    }

    #[test]
    fn private_seeds_are_named_unless_allowed() {
        let checks = check_seeds(&spec(serde_json::json!({})));
        let bad: Vec<&str> = checks
            .iter()
            .filter(|c| !c.problems.is_empty())
            .map(|c| c.url.as_str())
            .collect();
        assert_eq!(
            bad,
            [
                "http://127.0.0.1:8080/",
                "http://localhost/x",
                "http://[::1]/"
            ]
        );
        assert!(checks[0].problems[0].contains("network.allow_private"));
        let allowed = check_seeds(&spec(
            serde_json::json!({"network": {"allow_private": true}}),
        ));
        assert!(!any_problem(&allowed), "{allowed:?}");
    }

    /// A loopback server answering every request with `robots` as robots.txt.
    async fn robots_server(robots: &'static str) -> std::net::SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{robots}",
                    robots.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            }
        });
        addr
    }

    #[tokio::test]
    async fn a_seed_its_robots_txt_disallows_is_named() {
        let addr = robots_server("User-agent: *\nDisallow: /private/\n").await;
        let spec = Spec::from_json(
            &serde_json::json!({
                "name": "r",
                "seeds": [format!("http://{addr}/private/a"), format!("http://{addr}/open")],
                "network": {"allow_private": true},
            })
            .to_string(),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut checks = check_seeds(&spec);
        check_robots(&spec, dir.path(), &mut checks).await;
        assert!(
            checks[0].problems[0].contains("robots.txt disallows it"),
            "{checks:?}"
        );
        assert!(checks[1].problems.is_empty(), "{checks:?}");
        // A crawl that does not obey robots.txt is not told about it.
        let mut off = spec.clone();
        off.politeness.respect_robots = false;
        let mut checks = check_seeds(&off);
        check_robots(&off, dir.path(), &mut checks).await;
        assert!(!any_problem(&checks));
    }

    #[tokio::test]
    async fn a_robots_txt_that_cannot_be_read_is_said() {
        // A port nothing listens on: bound, then closed.
        let addr = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap();
        let spec = Spec::from_json(
            &serde_json::json!({
                "name": "r",
                "seeds": [format!("http://{addr}/")],
                "network": {"allow_private": true},
            })
            .to_string(),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut checks = check_seeds(&spec);
        check_robots(&spec, dir.path(), &mut checks).await;
        assert!(
            checks[0].problems[0].contains("cannot be read"),
            "{checks:?}"
        );
    }

    #[test]
    fn seeds_outside_the_scope_are_named() {
        let checks = check_seeds(&spec(serde_json::json!({
            "network": {"allow_private": true},
            "scope": {"allow": ["^http://example\\.org/"], "deny": ["/x$"]}
        })));
        let localhost = &checks[1];
        assert!(localhost.problems[0].starts_with("refused by the scope (denied)"));
        assert!(checks[0].problems[0].starts_with("outside the scope"));
        assert!(checks[2].problems.is_empty());
    }
}
