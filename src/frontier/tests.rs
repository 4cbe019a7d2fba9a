//! Frontier behaviour: ordering, leases, politeness and durability across reopen.

use super::*;
use contract::TestRules;
use politeness::WaitReason;

pub(super) fn rules(deny: &[&'static str]) -> Arc<dyn RobotsRules> {
    Arc::new(TestRules {
        deny: deny.to_vec(),
        delay: None,
    })
}

pub(super) fn cfg(delay_ms: u64, robots: bool) -> FrontierConfig {
    FrontierConfig {
        politeness: PolitenessConfig {
            min_delay: Duration::from_millis(delay_ms),
            max_delay: Duration::from_millis(delay_ms.max(1) * 10),
            delay_factor: 0.0,
            max_parallel_per_host: 1,
            max_parallel_per_ip: 1,
            max_retry_after: Duration::from_secs(60),
        },
        balance_per_queue: 1,
        max_pages_per_host: 1000,
        respect_robots: robots,
        best_n: None,
    }
}

pub(super) fn uri(url: &str, priority: f32) -> CrawlUri {
    CrawlUri {
        priority,
        ..CrawlUri::seed(url)
    }
}

pub(super) fn url_lease(l: Option<Lease>) -> UrlLease {
    match l {
        Some(Lease::Url(u)) => u,
        other => panic!("expected a URL lease, got {other:?}"),
    }
}

pub(super) const FAST: Option<FetchTiming> = Some(FetchTiming {
    duration: Duration::ZERO,
    retry_after: None,
    backoff: None,
});

#[test]
fn pops_by_priority_then_discovery_order() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    assert_eq!(
        f.offer(1, "a", "http://a", uri("http://a/1", 0.5)),
        Offer::Added
    );
    f.offer(2, "a", "http://a", uri("http://a/2", 0.9));
    f.offer(3, "a", "http://a", uri("http://a/3", 0.5));
    assert_eq!(
        f.offer(1, "a", "http://a", uri("http://a/1", 0.5)),
        Offer::Known(UrlState::Queued)
    );
    let mut order = vec![];
    for _ in 0..3 {
        let l = url_lease(f.next(Instant::now()));
        order.push(l.uri.url.clone());
        f.complete(&l, Completion::Done, FAST, Instant::now());
    }
    assert_eq!(order, ["http://a/2", "http://a/1", "http://a/3"]);
    assert_eq!(f.queued(), 0);
    assert_eq!(f.state(2), Some(UrlState::Done));
}

#[test]
fn robots_comes_first_and_hosts_wait_their_delay() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(200, true)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
    f.offer(2, "a", "http://a", uri("http://a/2", 1.0));
    f.commit().unwrap();
    let t0 = Instant::now();
    match f.next(t0) {
        Some(Lease::Robots { host, origin }) => {
            assert_eq!((host.as_str(), origin.as_str()), ("a", "http://a"))
        }
        other => panic!("expected robots first, got {other:?}"),
    }
    assert!(f.next(t0).is_none(), "one fetch per host at a time");
    f.robots_done("a", rules(&[]), t0 + Duration::from_secs(3600), FAST, t0);
    assert!(
        f.next(t0 + Duration::from_millis(100)).is_none(),
        "min delay not elapsed"
    );
    let l = url_lease(f.next(t0 + Duration::from_millis(200)));
    assert_eq!(l.uri.url, "http://a/1");
    assert_eq!(f.next_wake(), None, "host is busy, not on the heap");
    f.complete(&l, Completion::Done, FAST, t0 + Duration::from_millis(250));
    assert_eq!(
        f.next_wake(),
        Some(t0 + Duration::from_millis(450)),
        "ready again when the pause after the fetch is over"
    );
    assert!(f.next(t0 + Duration::from_millis(300)).is_none());
    assert!(f.next(t0 + Duration::from_millis(450)).is_some());
}

#[test]
fn hosts_on_one_ip_share_a_slot() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(100, false)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
    f.offer(2, "b", "http://b", uri("http://b/1", 1.0));
    f.commit().unwrap();
    let ip: IpAddr = "10.0.0.1".parse().unwrap();
    f.set_ip("a", ip);
    f.set_ip("b", ip);
    let t0 = Instant::now();
    let first = url_lease(f.next(t0));
    assert!(f.next(t0).is_none(), "the other host shares the busy IP");
    f.complete(&first, Completion::Done, FAST, t0);
    assert!(
        f.next(t0 + Duration::from_millis(50)).is_none(),
        "the shared pause applies"
    );
    assert!(f.next(t0 + Duration::from_millis(150)).is_some());
}

#[test]
fn uncommitted_completions_are_redone_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
        f.offer(2, "a", "http://a", uri("http://a/2", 0.5));
        f.commit().unwrap();
        let l = url_lease(f.next(Instant::now()));
        f.complete(&l, Completion::Done, FAST, Instant::now());
        f.commit().unwrap();
        let l = url_lease(f.next(Instant::now()));
        assert_eq!(l.uri.url, "http://a/2");
        f.complete(&l, Completion::Done, FAST, Instant::now());
        f.offer(3, "a", "http://a", uri("http://a/3", 0.5));
        // dropped without commit: a crash
    }
    let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
    assert_eq!(f.state(1), Some(UrlState::Done));
    assert_eq!(f.state(2), Some(UrlState::Queued));
    assert_eq!(f.state(3), None);
    assert_eq!(f.queued(), 1);
    let l = url_lease(f.next(Instant::now()));
    assert_eq!(l.uri.url, "http://a/2");
}

#[test]
fn retry_keeps_the_url_queued_and_counts_attempts() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
    f.commit().unwrap();
    let l = url_lease(f.next(Instant::now()));
    f.complete(&l, Completion::Retry, FAST, Instant::now());
    let again = url_lease(f.next(Instant::now()));
    assert_eq!(again.uri.retries, 1);
    assert_eq!(again.rid, l.rid);
}

#[test]
fn an_untried_url_goes_back_as_it_was_and_counts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, true)).unwrap();
        f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
        f.offer(2, "a", "http://a", uri("http://a/2", 0.5));
        f.commit().unwrap();
        let t0 = Instant::now();
        assert!(matches!(f.next(t0), Some(Lease::Robots { .. })));
        f.robots_untried("a", t0);
        assert_eq!(f.robots_failures("a"), 0, "no robots.txt failure counted");
        assert!(
            matches!(f.next(t0), Some(Lease::Robots { .. })),
            "robots.txt is asked for again at once"
        );
        f.robots_done("a", rules(&[]), t0 + Duration::from_secs(3600), None, t0);
        let l = url_lease(f.next(t0));
        assert_eq!(l.uri.url, "http://a/1");
        f.complete(&l, Completion::Untried, None, t0);
        let again = url_lease(f.next(t0));
        assert_eq!(again.rid, l.rid, "the best URL is still first");
        assert_eq!(again.uri.retries, 0, "no attempt counted");
        let h = f.host_view("a").unwrap();
        assert_eq!((h.errors, h.fetched, h.queued), (0, 0, 2));
        f.complete(&again, Completion::Untried, None, t0);
        f.commit().unwrap();
    }
    // Nothing of it was stored: reopened, both URLs are queued as they were offered.
    let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
    assert_eq!(f.queued(), 2);
    let l = url_lease(f.next(Instant::now()));
    assert_eq!((l.uri.url.as_str(), l.uri.retries), ("http://a/1", 0));
}

#[test]
fn per_host_budget_stops_a_host() {
    let mut c = cfg(0, false);
    c.max_pages_per_host = 1;
    let mut f = Frontier::open(Store::temporary().unwrap(), c).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
    f.offer(2, "a", "http://a", uri("http://a/2", 1.0));
    f.commit().unwrap();
    let l = url_lease(f.next(Instant::now()));
    f.complete(&l, Completion::Done, FAST, Instant::now());
    f.commit().unwrap();
    assert!(f.next(Instant::now()).is_none());
    assert_eq!(f.host_view("a").unwrap().wait, WaitReason::BudgetExhausted);
}

#[test]
fn drain_marks_every_queued_url() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 1.0));
    f.offer(2, "a", "http://a", uri("http://a/2", 1.0));
    f.commit().unwrap();
    let drained = f.drain_host("a", UrlState::RobotsBlocked).unwrap();
    assert_eq!(drained.len(), 2);
    assert_eq!(f.queued(), 0);
    assert_eq!(f.state(1), Some(UrlState::RobotsBlocked));
    f.commit().unwrap();
    assert!(f.next(Instant::now()).is_none());
}

#[test]
fn a_rescored_url_is_handed_out_with_its_new_entry_before_the_commit() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    let first = update::UpdateFn::First;
    f.score(1, "a", "http://a", uri("http://a/1", 0.0), 0.5, first)
        .unwrap();
    f.commit().unwrap();
    // FIRST keeps the priority, so the queue key stays the same while its entry changes.
    let s = f.score(1, "a", "http://a", uri("http://a/1", 0.0), 0.9, first);
    assert_eq!(s.unwrap(), update::Scored::Updated { old: 0.5, new: 0.5 });
    let l = url_lease(f.next(Instant::now()));
    assert_eq!((l.uri.scores, l.uri.discovered), (2, 2));
    f.complete(&l, Completion::Retry, FAST, Instant::now());
    f.commit().unwrap();
    let again = url_lease(f.next(Instant::now()));
    assert_eq!(
        (again.uri.scores, again.uri.retries),
        (2, 1),
        "no score is lost"
    );
}

#[test]
fn a_rescored_url_keeps_its_latest_breakdown_and_best_inheritance() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    let avg = update::UpdateFn::Avg;
    // First queued without a score (say, from a sitemap), then scored twice by the analysis.
    f.offer(1, "a", "http://a", uri("http://a/1", 0.5));
    f.commit().unwrap();
    let parts = |total: f32| crate::model::ScoreParts {
        total,
        ..Default::default()
    };
    let scored = |total: f32, inherited: f32| CrawlUri {
        parts: Some(parts(total)),
        inherited,
        ..uri("http://a/1", 0.0)
    };
    f.score(1, "a", "http://a", scored(0.8, 0.4), 0.8, avg)
        .unwrap();
    f.commit().unwrap();
    f.score(1, "a", "http://a", scored(0.2, 0.1), 0.2, avg)
        .unwrap();
    f.commit().unwrap();
    let shown = f.peek(5, None).unwrap();
    assert_eq!(
        shown[0].parts,
        Some(parts(0.2)),
        "the frontier view shows it"
    );
    let l = url_lease(f.next(Instant::now()));
    assert_eq!(l.uri.parts, Some(parts(0.2)), "the latest breakdown");
    assert_eq!(l.uri.inherited, 0.4, "the best parent");
    assert!((l.uri.priority - 0.5).abs() < 1e-6, "AVG of 0.8 and 0.2");
}

#[test]
fn a_host_keeps_its_turn_for_balance_per_queue_urls() {
    let order = |bl: u32| {
        let mut c = cfg(0, false);
        c.balance_per_queue = bl;
        let mut f = Frontier::open(Store::temporary().unwrap(), c).unwrap();
        for (i, h) in ["a", "b"].into_iter().enumerate() {
            for n in 0..4u64 {
                let url = format!("http://{h}/{n}");
                f.offer(10 * i as u64 + n, h, &format!("http://{h}"), uri(&url, 0.5));
            }
        }
        f.commit().unwrap();
        let mut hosts = String::new();
        while let Some(l) = f.next(Instant::now()) {
            let l = url_lease(Some(l));
            hosts.push_str(&l.host);
            f.complete(&l, Completion::Done, FAST, Instant::now());
        }
        hosts
    };
    assert_eq!(order(1), "abababab", "one URL per turn: hosts alternate");
    assert_eq!(order(2), "aabbaabb");
    assert_eq!(
        order(3),
        "aaabbbab",
        "a turn ends early when the queue runs dry"
    );
    assert_eq!(order(5), "aaaabbbb");
}

#[test]
fn the_ready_host_with_the_best_url_goes_first() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    let mut n = 0;
    let mut add = |f: &mut Frontier, h: &str, p: f32| {
        n += 1;
        f.offer(
            n,
            h,
            &format!("http://{h}"),
            uri(&format!("http://{h}/{n}"), p),
        );
    };
    for (h, p) in [("a", 0.1), ("a", 0.7), ("b", 0.9), ("b", 0.2), ("c", 0.5)] {
        add(&mut f, h, p);
    }
    let mut order = vec![];
    while let Some(l) = f.next(Instant::now()) {
        let l = url_lease(Some(l));
        order.push(l.uri.priority);
        f.complete(&l, Completion::Done, FAST, Instant::now());
        if order.len() == 2 {
            add(&mut f, "c", 0.8);
        }
    }
    assert_eq!(
        order,
        [0.9, 0.7, 0.8, 0.5, 0.2, 0.1],
        "without delays the fetch order is the global order by priority"
    );
}

#[test]
fn a_rescore_reranks_hosts_at_once() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 0.6));
    f.offer(2, "b", "http://b", uri("http://b/1", 0.3));
    let first = url_lease(f.next(Instant::now()));
    assert_eq!(first.host, "a");
    f.complete(&first, Completion::Done, FAST, Instant::now());
    f.offer(3, "a", "http://a", uri("http://a/2", 0.5));
    f.score(
        2,
        "b",
        "http://b",
        uri("http://b/1", 0.0),
        0.95,
        update::UpdateFn::Last,
    )
    .unwrap();
    assert_eq!(url_lease(f.next(Instant::now())).host, "b");
}

#[test]
fn best_first_only_among_hosts_whose_pause_is_over() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(100, false)).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 0.9));
    f.offer(2, "a", "http://a", uri("http://a/2", 0.8));
    f.offer(3, "b", "http://b", uri("http://b/1", 0.1));
    let t0 = Instant::now();
    let l = url_lease(f.next(t0));
    assert_eq!(l.uri.url, "http://a/1");
    f.complete(&l, Completion::Done, FAST, t0);
    let l = url_lease(f.next(t0));
    assert_eq!(
        l.uri.url, "http://b/1",
        "a waits its pause: b is the best ready host"
    );
    f.complete(&l, Completion::Done, FAST, t0);
    assert!(f.next(t0 + Duration::from_millis(50)).is_none());
    let l = url_lease(f.next(t0 + Duration::from_millis(100)));
    assert_eq!(l.uri.url, "http://a/2");
}

#[test]
fn the_fetch_order_view_plays_the_schedule_forward() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    for (n, (h, p)) in [("a", 0.1), ("a", 0.7), ("b", 0.9), ("b", 0.2), ("c", 0.5)]
        .into_iter()
        .enumerate()
    {
        f.offer(
            n as u64,
            h,
            &format!("http://{h}"),
            uri(&format!("http://{h}/{n}"), p),
        );
    }
    let shown: Vec<f32> = f
        .peek(10, None)
        .unwrap()
        .iter()
        .map(|q| q.priority)
        .collect();
    assert_eq!(shown, [0.9, 0.7, 0.5, 0.2, 0.1]);
    let mut popped = vec![];
    while let Some(l) = f.next(Instant::now()) {
        let l = url_lease(Some(l));
        popped.push(l.uri.priority);
        f.complete(&l, Completion::Done, FAST, Instant::now());
    }
    assert_eq!(
        popped, shown,
        "the view shows the order the frontier hands out"
    );
}

#[test]
fn best_n_holds_back_a_poor_url_while_better_ones_can_still_be_fetched() {
    let mut c = cfg(100, false);
    c.best_n = Some(2);
    let mut f = Frontier::open(Store::temporary().unwrap(), c).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 0.9));
    f.offer(2, "a", "http://a", uri("http://a/2", 0.8));
    f.offer(3, "a", "http://a", uri("http://a/3", 0.7));
    f.offer(4, "b", "http://b", uri("http://b/1", 0.1));
    let t0 = Instant::now();
    let l = url_lease(f.next(t0));
    assert_eq!(l.uri.url, "http://a/1");
    assert!(
        f.next(t0).is_none(),
        "b's best is not among the 2 best queued while a's are in flight"
    );
    f.complete(&l, Completion::Done, FAST, t0);
    assert!(
        f.next(t0).is_none(),
        "a waits its pause and still holds the 2 best"
    );
    assert_eq!(f.next_wake(), Some(t0 + Duration::from_millis(100)));
    let l = url_lease(f.next(t0 + Duration::from_millis(100)));
    assert_eq!(l.uri.url, "http://a/2");
    f.complete(&l, Completion::Done, FAST, t0 + Duration::from_millis(100));
    let l = url_lease(f.next(t0 + Duration::from_millis(100)));
    assert_eq!(
        l.uri.url, "http://b/1",
        "with one URL of a left, b's is among the 2 best"
    );
}

#[test]
fn best_n_never_stalls_the_crawl() {
    let mut c = cfg(0, false);
    c.best_n = Some(1);
    c.max_pages_per_host = 1;
    let mut f = Frontier::open(Store::temporary().unwrap(), c).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 0.9));
    f.offer(2, "a", "http://a", uri("http://a/2", 0.9));
    f.offer(3, "b", "http://b", uri("http://b/1", 0.1));
    let l = url_lease(f.next(Instant::now()));
    f.complete(&l, Completion::Done, FAST, Instant::now());
    // a's budget is spent: its last URL can never be fetched and must not hold b back.
    let l = url_lease(f.next(Instant::now()));
    assert_eq!(l.uri.url, "http://b/1");
}

fn paced(pages_left: u64, time_left: Option<Duration>) -> pace::Budget {
    pace::Budget {
        pages_left,
        time_left,
        concurrency: 64,
        processing_rate: None,
    }
}

/// Host `a` holds the two best URLs, `b` only a poor one; `a` has just fetched and pauses
/// 100 ms, so `b`'s politeness slot is free: the pace decides whether it is used.
fn held_back_b(budget: pace::Budget) -> (Frontier, Instant) {
    let mut c = cfg(100, false);
    c.best_n = Some(2);
    let mut f = Frontier::open(Store::temporary().unwrap(), c).unwrap();
    f.offer(1, "a", "http://a", uri("http://a/1", 0.9));
    f.offer(2, "a", "http://a", uri("http://a/2", 0.8));
    f.offer(3, "a", "http://a", uri("http://a/3", 0.7));
    f.offer(4, "b", "http://b", uri("http://b/1", 0.1));
    let t0 = Instant::now();
    let l = url_lease(f.next(t0));
    let fetch = Some(FetchTiming {
        duration: Duration::from_millis(1),
        retry_after: None,
        backoff: None,
    });
    f.complete(&l, Completion::Done, fetch, t0);
    f.pace(budget, t0);
    (f, t0)
}

#[test]
fn a_time_bound_crawl_uses_the_idle_slot_for_the_best_url_of_its_host() {
    // A million pages in 10 s: far more than two hosts at 10 fetches a second can fetch.
    let (mut f, t0) = held_back_b(paced(1_000_000, Some(Duration::from_secs(10))));
    let v = f.pacing();
    assert_eq!(v.regime, pace::Regime::TimeBound, "{v:?}");
    let l = url_lease(f.next(t0));
    assert_eq!(l.uri.url, "http://b/1", "b's slot is not left idle");
    assert_eq!(f.pacing().released, 1);
}

#[test]
fn a_page_bound_crawl_keeps_best_n_while_it_keeps_its_pace() {
    // 3 pages in an hour: no hurry at all.
    let (mut f, t0) = held_back_b(paced(3, Some(Duration::from_secs(3600))));
    let v = f.pacing();
    assert_eq!(v.regime, pace::Regime::PageBound, "{v:?}");
    assert_eq!(v.hosts_held_back, 1, "{v:?}");
    assert!(v.why.contains("1 ready host(s) wait"), "{}", v.why);
    assert!(f.next(t0).is_none(), "b waits for a's better URLs");
    assert!(f.next(t0 + Duration::from_millis(50)).is_none());
    let l = url_lease(f.next(t0 + Duration::from_millis(100)));
    assert_eq!(l.uri.url, "http://a/2");
}

#[test]
fn a_page_bound_crawl_that_falls_behind_its_pace_releases_a_held_back_host() {
    // 30 pages in 2 s need 16.5 pages/s with the margin, under the 20 two hosts allow; best-N
    // alone gives a's 10.
    let (mut f, t0) = held_back_b(paced(30, Some(Duration::from_secs(2))));
    assert_eq!(f.pacing().regime, pace::Regime::PageBound);
    assert!(f.next(t0).is_none(), "the bucket starts empty");
    let wake = f
        .next_wake()
        .expect("the frontier says when the pace lets b go");
    assert!(wake <= t0 + Duration::from_millis(70), "{wake:?}");
    let t1 = t0 + Duration::from_millis(70);
    f.pace(paced(30, Some(Duration::from_secs(2))), t1);
    let l = url_lease(f.next(t1));
    assert_eq!(l.uri.url, "http://b/1", "released to keep the pace");
}

#[test]
fn without_a_gate_the_pacing_says_so() {
    let mut f = Frontier::open(Store::temporary().unwrap(), cfg(0, false)).unwrap();
    f.pace(paced(10, None), Instant::now());
    let v = f.pacing();
    assert_eq!(v.regime, pace::Regime::Ungated);
    assert_eq!(v.pages_left, 10);
}

#[test]
fn a_demoted_url_goes_last_and_stays_there_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        for (fp, p) in [(1, 0.9), (2, 0.5), (3, 0.3)] {
            f.offer(fp, "a", "http://a", uri(&format!("http://a/{fp}"), p));
        }
        f.commit().unwrap();
        assert!(f.demote(1));
        assert!(!f.demote(1), "already last");
        assert!(!f.demote(9), "unknown");
        f.commit().unwrap();
    }
    let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
    let mut order = vec![];
    while let Some(l) = f.next(Instant::now()) {
        let l = url_lease(Some(l));
        assert!(!f.demote(l.fp), "a URL in flight is not moved");
        order.push((l.fp, l.uri.priority));
        f.complete(&l, Completion::Done, FAST, Instant::now());
    }
    assert_eq!(order, vec![(2, 0.5), (3, 0.3), (1, 0.0)]);
}
