//! robots.txt policy per RFC 9309, over the `texting_robots` matcher.
//!
//! The matcher is fed normalised input on both sides ([`normalize`]): the robots.txt text with
//! its rules and user agents rewritten, and the path asked about, so that rules and paths are
//! compared after percent-encoding normalisation (RFC 9309 section 2.2.2). The crate keeps doing
//! what it does well: lenient parsing of real-world files, groups, longest match, `*` and `$`.
//!
//! The status of the robots.txt fetch decides the policy before any rule is read:
//!
//! | robots.txt answer                     | policy                                  |
//! |---------------------------------------|-----------------------------------------|
//! | 2xx                                   | the rules in the body (first 500 KiB)    |
//! | 3xx (the caller follows up to 5 hops) | unavailable: allow all                   |
//! | 4xx, except 429                       | unavailable: allow all                   |
//! | 429, 5xx, unreachable                 | disallow all, temporarily (retry later)  |
//!
//! 429 (Too Many Requests) is treated like a server error, since the server is asking the
//! crawler to back off, not saying the file is absent.

mod normalize;
#[cfg(test)]
mod rfc_tests;

use std::time::Duration;
use texting_robots::Robot;

/// Bytes of a robots.txt body parsed; RFC 9309 asks crawlers to parse at least 500 KiB.
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// Crawl-delay values above this are clamped (a typo like `Crawl-delay: 86400` must not park a
/// host for a day; the frontier can still apply its own politeness).
const MAX_CRAWL_DELAY: Duration = Duration::from_secs(120);

/// What a host's robots.txt allows, after the status-code rules.
#[derive(Debug)]
pub enum RobotsPolicy {
    /// Rules parsed from a 2xx body.
    Rules(Robot),
    /// The file is unavailable (4xx, missing, too many redirects): everything is allowed.
    AllowAll,
    /// The server failed or could not be reached: nothing is allowed until a later retry.
    DisallowAll,
}

/// A host's robots.txt, ready to answer per-URL questions for one user agent.
#[derive(Debug)]
pub struct Robots {
    policy: RobotsPolicy,
}

impl Robots {
    /// Builds the policy from a robots.txt response for `user_agent` (matched by its product
    /// token, the part before `/`). Redirects should be followed by the caller; a 3xx that
    /// arrives here counts as unavailable.
    pub fn from_response(status: u16, body: &[u8], user_agent: &str) -> Robots {
        let policy = match status {
            200..=299 => parse_rules(body, &product_token(user_agent)),
            429 => RobotsPolicy::DisallowAll,
            300..=499 => RobotsPolicy::AllowAll,
            _ => RobotsPolicy::DisallowAll,
        };
        Robots { policy }
    }

    /// The policy for a host whose robots.txt could not be fetched at all.
    pub fn unreachable() -> Robots {
        Robots {
            policy: RobotsPolicy::DisallowAll,
        }
    }

    /// The policy in force.
    pub fn policy(&self) -> &RobotsPolicy {
        &self.policy
    }

    /// Whether `url` (absolute, or a path) may be fetched. `/robots.txt` itself is always allowed.
    /// The rules see the URL's path and query in normal form, as they were rewritten themselves.
    pub fn allowed(&self, url: &str) -> bool {
        match &self.policy {
            RobotsPolicy::Rules(r) => r.allowed(&normalize::normalise_path(url)),
            RobotsPolicy::AllowAll => true,
            RobotsPolicy::DisallowAll => false,
        }
    }

    /// The declared `Crawl-delay` for our agent (or the default group), clamped to 2 minutes.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match &self.policy {
            RobotsPolicy::Rules(r) => r
                .delay
                .filter(|d| d.is_finite() && *d >= 0.0)
                // `from_secs_f32` panics above u64::MAX seconds (`Crawl-delay: 1e30`).
                .map(|d| {
                    Duration::try_from_secs_f32(d)
                        .unwrap_or(MAX_CRAWL_DELAY)
                        .min(MAX_CRAWL_DELAY)
                }),
            _ => None,
        }
    }

    /// `Sitemap:` URLs listed in the file (they apply to every agent).
    pub fn sitemaps(&self) -> &[String] {
        match &self.policy {
            RobotsPolicy::Rules(r) => &r.sitemaps,
            _ => &[],
        }
    }

    /// Whether this is a temporary refusal (server error, unreachable) to be refetched later.
    pub fn is_temporary_failure(&self) -> bool {
        matches!(self.policy, RobotsPolicy::DisallowAll)
    }
}

/// The product token of a user agent: `magpie` from `magpie/0.1 (+https://...)`.
fn product_token(user_agent: &str) -> String {
    let token = user_agent
        .split(['/', ' ', '\t'])
        .next()
        .unwrap_or_default()
        .trim();
    if token.is_empty() {
        "*".to_string()
    } else {
        token.to_string()
    }
}

/// Parses up to [`MAX_ROBOTS_BYTES`] (cut at the last complete line), normalised for matching
/// (see [`normalize`]). If the matcher rejects the file (an unusable pattern), the rule lines it
/// rejects are dropped and the rest is used, so one bad line cannot turn a disallowing file into
/// allow-all.
fn parse_rules(body: &[u8], agent: &str) -> RobotsPolicy {
    let mut body = &body[..body.len().min(MAX_ROBOTS_BYTES)];
    if body.len() == MAX_ROBOTS_BYTES {
        if let Some(nl) = body.iter().rposition(|&b| b == b'\n') {
            body = &body[..=nl];
        }
    }
    let normalised = normalize::normalise_robots_txt(body);
    let body = normalised.as_slice();
    if let Ok(r) = Robot::new(agent, body) {
        return RobotsPolicy::Rules(r);
    }
    let kept: Vec<u8> = body
        .split(|&b| b == b'\n')
        .filter(|line| Robot::new(agent, line).is_ok())
        .flat_map(|line| line.iter().copied().chain(std::iter::once(b'\n')))
        .collect();
    match Robot::new(agent, &kept) {
        Ok(r) => RobotsPolicy::Rules(r),
        // Nothing usable is left: no rules, as with an empty file.
        Err(_) => RobotsPolicy::AllowAll,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UA: &str = "magpie/0.1 (+https://example.org/bot)";

    #[test]
    fn status_codes_decide_first() {
        let body = b"User-agent: *\nDisallow: /";
        let r = Robots::from_response(404, body, UA);
        assert!(r.allowed("http://example.com/anything"));
        assert!(!r.is_temporary_failure());
        let r = Robots::from_response(403, body, UA);
        assert!(r.allowed("/x"));
        for status in [500, 503, 429] {
            let r = Robots::from_response(status, b"", UA);
            assert!(!r.allowed("http://example.com/"), "{status}");
            assert!(r.is_temporary_failure(), "{status}");
        }
        let r = Robots::unreachable();
        assert!(!r.allowed("/") && r.is_temporary_failure());
        let r = Robots::from_response(200, body, UA);
        assert!(!r.allowed("http://example.com/page"));
        assert!(!r.is_temporary_failure());
    }

    #[test]
    fn agent_matching_uses_product_token() {
        let body = b"User-agent: magpie\nDisallow: /private\n\n\
            User-agent: *\nDisallow: /\n";
        let r = Robots::from_response(200, body, UA);
        assert!(r.allowed("http://example.com/public"));
        assert!(!r.allowed("http://example.com/private/x"));
        let other = Robots::from_response(200, body, "otherbot/2.0");
        assert!(!other.allowed("http://example.com/public"));
        let upper = Robots::from_response(200, b"User-agent: MAGPIE\nDisallow: /a\n", UA);
        assert!(!upper.allowed("/a/b") && upper.allowed("/b"));
        // A version or comment after the token in the file does not hide the group.
        let versioned =
            Robots::from_response(200, b"User-agent: Magpie/2.0 (x)\nDisallow: /a\n", UA);
        assert!(!versioned.allowed("/a/b") && versioned.allowed("/b"));
        assert_eq!(product_token(UA), "magpie");
        assert_eq!(product_token("magpie"), "magpie");
    }

    #[test]
    fn longest_match_and_robots_txt_itself() {
        let body = b"User-agent: *\nDisallow: /shop\nAllow: /shop/public\n";
        let r = Robots::from_response(200, body, UA);
        assert!(!r.allowed("http://example.com/shop/cart"));
        assert!(r.allowed("http://example.com/shop/public/item"));
        assert!(r.allowed("http://example.com/robots.txt"));
    }

    #[test]
    fn crawl_delay_and_sitemaps() {
        let body = b"Sitemap: https://example.com/sitemap.xml\n\
            User-agent: magpie\nCrawl-delay: 2.5\nDisallow: /tmp\n\
            Sitemap: https://example.com/news.xml\n";
        let r = Robots::from_response(200, body, UA);
        assert_eq!(r.crawl_delay(), Some(Duration::from_millis(2500)));
        assert_eq!(
            r.sitemaps(),
            [
                "https://example.com/sitemap.xml",
                "https://example.com/news.xml"
            ]
        );
        let huge = Robots::from_response(200, b"User-agent: *\nCrawl-delay: 86400\n", UA);
        assert_eq!(huge.crawl_delay(), Some(MAX_CRAWL_DELAY));
        for absurd in ["1e30", "3.4e38", "18446744073709551616"] {
            let body = format!("User-agent: *\nCrawl-delay: {absurd}\n");
            let r = Robots::from_response(200, body.as_bytes(), UA);
            assert_eq!(r.crawl_delay(), Some(MAX_CRAWL_DELAY), "{absurd}");
        }
        assert_eq!(Robots::from_response(404, body, UA).crawl_delay(), None);
        assert!(Robots::from_response(500, body, UA).sitemaps().is_empty());
    }

    #[test]
    fn body_is_capped_at_500_kib() {
        let mut body = b"User-agent: *\nDisallow: /early\n".to_vec();
        while body.len() < MAX_ROBOTS_BYTES + 10 {
            body.extend_from_slice(b"# padding padding padding padding\n");
        }
        body.extend_from_slice(b"Disallow: /late\n");
        let r = Robots::from_response(200, &body, UA);
        assert!(!r.allowed("/early"));
        assert!(r.allowed("/late"), "rules past 500 KiB are not read");
    }

    #[test]
    fn garbage_body_allows_but_keeps_good_rules() {
        let r = Robots::from_response(200, b"\x00\xff<html>not robots</html>", UA);
        assert!(r.allowed("/x"));
        // A pattern too large for the matcher's regex limits makes the whole file fail to
        // parse; only that line is dropped.
        let monster = format!("Disallow: /{}$\n", "ab*".repeat(5000));
        assert!(Robot::new("magpie", monster.as_bytes()).is_err());
        let body = format!("User-agent: *\nDisallow: /a\n\u{fffd}\n{monster}Disallow: /b\n");
        let r = Robots::from_response(200, body.as_bytes(), UA);
        assert!(matches!(r.policy(), RobotsPolicy::Rules(_)));
        assert!(!r.allowed("/a") && !r.allowed("/b") && r.allowed("/c"));
    }
}
