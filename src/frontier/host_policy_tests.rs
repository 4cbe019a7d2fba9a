//! The host policy's robots.txt rules: kept with the host, asked by whoever leases its URLs.

use super::contract::{HostPolicy, TestRules, UrlFrontier};
use super::tests::{cfg, rules, uri, url_lease, FAST};
use super::*;

#[test]
fn robots_rules_are_kept_with_the_host_and_replaced_when_read_again() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, true)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/open", 1.0));
    f.offer(2, "a", "http://a", uri("http://a/private/x", 0.5));
    assert!(
        HostPolicy::robots_allows(&f, "a", "http://a/private/x"),
        "no rules yet: nothing refused"
    );
    assert!(HostPolicy::robots_allows(&f, "unknown", "http://unknown/"));
    let t0 = Instant::now();
    assert!(matches!(f.next(t0), Some(Lease::Robots { .. })));
    HostPolicy::robots_failed(&mut f, "a", Duration::ZERO, t0);
    assert_eq!(HostPolicy::robots_failures(&f, "a"), 1);
    assert!(matches!(f.next(t0), Some(Lease::Robots { .. })));
    let first = HostPolicy::robots_done(&mut f, "a", rules(&["/private"]), t0, FAST, t0);
    assert!(first, "the host's first rules");
    assert_eq!(
        HostPolicy::robots_failures(&f, "a"),
        0,
        "failures count in a row: a success ends the run"
    );
    assert!(HostPolicy::robots_allows(&f, "a", "http://a/open"));
    assert!(!HostPolicy::robots_allows(&f, "a", "http://a/private/x"));

    // The rules expired at t0: robots.txt is handed out again before any URL, and the old
    // rules answer until the new ones arrive.
    let t1 = t0 + Duration::from_secs(1);
    assert!(matches!(f.next(t1), Some(Lease::Robots { .. })));
    assert!(!HostPolicy::robots_allows(&f, "a", "http://a/private/x"));
    let delay = Duration::from_secs(7);
    let again = Arc::new(TestRules {
        deny: vec!["/open"],
        delay: Some(delay),
    });
    let expires = t1 + Duration::from_secs(3600);
    assert!(!HostPolicy::robots_done(
        &mut f, "a", again, expires, FAST, t1
    ));
    assert!(HostPolicy::robots_allows(&f, "a", "http://a/private/x"));
    assert!(!HostPolicy::robots_allows(&f, "a", "http://a/open"));
    // Their Crawl-delay paces the host.
    assert!(f.next(t1 + delay - Duration::from_millis(1)).is_none());
    let l = url_lease(UrlFrontier::next(&mut f, t1 + delay));
    assert_eq!(l.uri.url, "http://a/open");
}
