//! Checks of a crawl's seeds before it starts: each seed against the crawl's scope and the
//! private-address rule, so that a crawl that could fetch none of them is said before it runs
//! (the new-crawl form asks before creating it, `POST /api/v1/crawls` answers the checks with
//! the crawl's id) instead of ending with nothing fetched.
//!
//! No name is resolved here: a check that sent DNS queries for every spec posted would make the
//! server query whatever names a request holds. Addresses written as IP literals and `localhost`
//! names are checked; a name that resolves to a private address is refused when fetched, and the
//! crawl's outcome then says which seeds were refused and why.

use crate::fetch::is_private;
use crate::scope::Scope;
use crate::spec::Spec;
use serde::Serialize;
use std::net::IpAddr;
use url::Host;

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
