//! The copy learner: adoption, refutation, likely names, skips and suspects, and its state
//! across a restart.

use super::*;

fn u(s: &str) -> Url {
    Url::parse(s).unwrap()
}

#[test]
fn reductions_drop_one_parameter_or_an_end_segment() {
    let r = reductions(&u("http://h/a/b.html?ref=side&id=7"));
    let names: Vec<(String, String)> = r.iter().map(|(v, u)| (v.name(), u.to_string())).collect();
    assert!(names.contains(&("param:ref".into(), "http://h/a/b.html?id=7".into())));
    assert!(names.contains(&("param:id".into(), "http://h/a/b.html?ref=side".into())));
    assert!(names.contains(&("segment:a".into(), "http://h/b.html?ref=side&id=7".into())));
    // `b.html` is a file name, not a word: never a segment rule.
    assert_eq!(names.len(), 3, "{names:?}");
    let p = reductions(&u("http://h/story/x/print/"));
    assert!(p
        .iter()
        .any(|(v, o)| v.name() == "segment:print" && o.as_str() == "http://h/story/x/"));
    assert_eq!(
        Variant::Param("ref".into())
            .original(&u("http://h/a?ref=1"))
            .unwrap()
            .as_str(),
        "http://h/a"
    );
    assert_eq!(
        Variant::Segment("print".into())
            .original(&u("http://h/print/a/b.html"))
            .unwrap()
            .as_str(),
        "http://h/a/b.html"
    );
    assert_eq!(
        Variant::Param("x".into()).original(&u("http://h/a?y=1")),
        None
    );
    assert_eq!(Variant::parse("param:a,b"), None);
    assert_eq!(
        Variant::parse("param:utm_source").unwrap().name(),
        "param:utm_source"
    );
}

#[test]
fn a_rule_is_adopted_after_three_examples_and_then_skips_known_originals() {
    let mut c = Copies::default();
    let mut adopted = vec![];
    for i in 0..3 {
        let orig = u(&format!("http://h/s/{i}.html"));
        let copy = u(&format!("http://h/s/{i}.html?ref=sidebar"));
        assert!(c.observe("h", &orig, &format!("sha1:{i}")).is_empty());
        let ch = c.observe("h", &copy, &format!("sha1:{i}"));
        assert!(ch.contains(&Change::Example(Variant::Param("ref".into()))));
        adopted.extend(ch.into_iter().filter(|c| matches!(c, Change::Adopted(_))));
    }
    assert_eq!(adopted, vec![Change::Adopted(Variant::Param("ref".into()))]);
    let views = c.views();
    assert_eq!(views.len(), 1);
    assert_eq!((views[0].state, views[0].examples), (RuleState::Adopted, 3));
    assert_eq!(views[0].evidence.len(), 3);
    // The original is known: skipped. Unknown: let through once, then its other variants
    // are skipped. Other hosts are not affected.
    let known = fingerprint(&u("http://h/s/9.html"));
    let is_known = |fp| fp == known;
    let v = c.skip("h", &u("http://h/s/9.html?ref=top"), is_known);
    assert_eq!(v, Some(Variant::Param("ref".into())));
    assert_eq!(c.skip("h", &u("http://h/s/8.html?ref=a"), is_known), None);
    assert!(c
        .skip("h", &u("http://h/s/8.html?ref=b"), is_known)
        .is_some());
    assert_eq!(c.skip("h", &u("http://h/s/7.html"), is_known), None);
    // The original of a variant let through, or of one fetched, is the copy now.
    assert!(c.skip("h", &u("http://h/s/8.html"), is_known).is_some());
    c.observe("h", &u("http://h/s/6.html?ref=x"), "sha1:6");
    assert!(c.skip("h", &u("http://h/s/6.html"), is_known).is_some());
    assert_eq!(c.skip("g", &u("http://g/s/9.html?ref=top"), |_| true), None);
    assert_eq!(c.views()[0].skipped, 4);
    // Another host with the same parameter needs two examples.
    for i in 0..2 {
        c.observe("g", &u(&format!("http://g/{i}")), &format!("sha1:g{i}"));
        let ch = c.observe(
            "g",
            &u(&format!("http://g/{i}?ref=x")),
            &format!("sha1:g{i}"),
        );
        assert_eq!(ch.len(), 1 + usize::from(i == 1), "{ch:?}");
    }
    assert!(c.any_adopted("g"));
    // Two examples on a third host before the rule was adopted anywhere: adopted with that
    // host's next fetch once it is.
    let mut c = Copies::default();
    for i in 0..2 {
        c.observe("k", &u(&format!("http://k/{i}")), &format!("sha1:k{i}"));
        c.observe(
            "k",
            &u(&format!("http://k/{i}?ref=x")),
            &format!("sha1:k{i}"),
        );
    }
    for i in 0..3 {
        c.observe("h", &u(&format!("http://h/{i}")), &format!("sha1:{i}"));
        c.observe(
            "h",
            &u(&format!("http://h/{i}?ref=x")),
            &format!("sha1:{i}"),
        );
    }
    assert!(!c.any_adopted("k"));
    let ch = c.observe("k", &u("http://k/other"), "sha1:o");
    assert_eq!(ch, vec![Change::Adopted(Variant::Param("ref".into()))]);
    assert!(c.any_adopted("k"));
}

#[test]
fn a_counter_example_refutes_a_rule_in_either_order_and_for_good() {
    let mut c = Copies::default();
    // The variant first, then its original with another payload.
    c.observe("h", &u("http://h/list?page=2"), "sha1:P2");
    let ch = c.observe("h", &u("http://h/list"), "sha1:P1");
    assert!(ch.is_empty(), "{ch:?}");
    for i in 0..5 {
        c.observe("h", &u(&format!("http://h/{i}?page=2")), "sha1:same");
        c.observe("h", &u(&format!("http://h/{i}")), "sha1:same");
    }
    assert!(!c.any_adopted("h"));
    let v = &c.views()[0];
    assert_eq!(
        (v.state, v.examples, v.counter_examples),
        (RuleState::Refuted, 5, 1)
    );
    assert_eq!(
        v.counter_evidence.as_ref().unwrap().variant,
        "http://h/list?page=2"
    );
    // An adopted rule refuted later stops skipping.
    let mut c = Copies::default();
    for i in 0..3 {
        c.observe("h", &u(&format!("http://h/{i}")), "sha1:a");
        c.observe("h", &u(&format!("http://h/{i}?sid=1")), "sha1:a");
    }
    assert!(c.any_adopted("h"));
    c.observe("h", &u("http://h/x?sid=1"), "sha1:b");
    let ch = c.observe("h", &u("http://h/x"), "sha1:c");
    assert_eq!(ch, vec![Change::Refuted(Variant::Param("sid".into()))]);
    assert_eq!(c.skip("h", &u("http://h/y?sid=1"), |_| true), None);
}

#[test]
fn a_rule_in_force_elsewhere_makes_suspects_until_decided_here() {
    let mut c = Copies::default();
    let url = u("http://g/x?ref=a");
    assert!(!c.suspect("g", &url, |_| true), "no rule anywhere");
    for i in 0..3 {
        c.observe("h", &u(&format!("http://h/{i}")), &format!("sha1:{i}"));
        c.observe(
            "h",
            &u(&format!("http://h/{i}?ref=a")),
            &format!("sha1:{i}"),
        );
    }
    assert!(c.suspect("g", &url, |_| true));
    assert!(!c.suspect("g", &url, |_| false), "its original is unknown");
    assert!(
        !c.suspect("h", &u("http://h/y?ref=a"), |_| true),
        "decided there"
    );
    // Refuted on g: no longer a suspect there.
    c.observe("g", &u("http://g/z?ref=a"), "sha1:1");
    c.observe("g", &u("http://g/z"), "sha1:2");
    assert!(!c.suspect("g", &url, |_| true));
}

#[test]
fn examples_on_two_hosts_make_a_name_likely_until_a_counter_example() {
    let mut c = Copies::default();
    let mut likely = vec![];
    for (host, i) in [("h", 0), ("h", 1), ("k", 2)] {
        c.observe(
            host,
            &u(&format!("http://{host}/{i}")),
            &format!("sha1:{i}"),
        );
        let ch = c.observe(
            host,
            &u(&format!("http://{host}/{i}?ref=a")),
            &format!("sha1:{i}"),
        );
        likely.extend(ch.into_iter().filter(|c| matches!(c, Change::Likely(_))));
    }
    assert_eq!(likely, vec![Change::Likely(Variant::Param("ref".into()))]);
    assert!(c.any() && !c.any_adopted("h") && !c.any_adopted("k"));
    // On a third host: a variant of a known page waits last, and so does the original
    // of a variant fetched there; nothing is skipped before a host adopts the rule.
    assert!(c.suspect("g", &u("http://g/x?ref=b"), |_| true));
    assert!(!c.suspect("g", &u("http://g/x"), |_| true));
    c.observe("g", &u("http://g/y?ref=b"), "sha1:y");
    assert!(c.suspect("g", &u("http://g/y"), |_| false));
    assert_eq!(c.skip("g", &u("http://g/x?ref=b"), |_| true), None);
    // Examples on one host alone do not make a name likely.
    let mut one = Copies::default();
    for i in 0..2 {
        one.observe("h", &u(&format!("http://h/{i}")), "sha1:a");
        one.observe("h", &u(&format!("http://h/{i}?ref=a")), "sha1:a");
    }
    assert!(!one.any());
    // A counter-example on any host ends it.
    c.observe("k", &u("http://k/z?ref=a"), "sha1:1");
    c.observe("k", &u("http://k/z"), "sha1:2");
    assert!(!c.any());
    assert!(!c.suspect("g", &u("http://g/x?ref=b"), |_| true));
}

#[test]
fn a_final_slash_is_a_variant_learnt_on_its_own_host_alone() {
    let r = reductions(&u("http://h/t/5/slug/"));
    assert!(r
        .iter()
        .any(|(v, o)| *v == Variant::Slash && o.as_str() == "http://h/t/5/slug"));
    assert!(!reductions(&u("http://h/"))
        .iter()
        .any(|(v, _)| *v == Variant::Slash));
    assert!(!reductions(&u("http://h/t/5"))
        .iter()
        .any(|(v, _)| *v == Variant::Slash));
    assert_eq!(Variant::parse("slash:final"), Some(Variant::Slash));
    assert_eq!(Variant::Slash.name(), "slash:final");
    let mut c = Copies::default();
    // Two hosts serve each page under both URLs: each adopts the rule on its own three
    // examples, and neither host's make the name likely for a third.
    for host in ["h", "k"] {
        for i in 0..3 {
            c.observe(
                host,
                &u(&format!("http://{host}/t/{i}")),
                &format!("sha1:{i}"),
            );
            let ch = c.observe(
                host,
                &u(&format!("http://{host}/t/{i}/")),
                &format!("sha1:{i}"),
            );
            assert_eq!(
                ch.iter().any(|c| matches!(c, Change::Adopted(_))),
                i == 2,
                "{host} {i}: {ch:?}"
            );
            assert!(!ch.iter().any(|c| matches!(c, Change::Likely(_))));
        }
    }
    assert_eq!(
        c.skip("h", &u("http://h/t/9/"), |_| true),
        Some(Variant::Slash)
    );
    // Where `/a` redirects to `/a/`, the slashed URL is the page: nothing waits there, and on
    // a host that serves other URLs both ways, a slash a redirect added is no copy.
    assert!(!c.suspect("g", &u("http://g/a/"), |_| true));
    assert_eq!(c.skip("g", &u("http://g/a/"), |_| true), None);
    assert_eq!(
        c.skip_arrival("h", &u("http://h/d/9/"), true, |_| true),
        None
    );
    assert_eq!(
        c.skip_arrival("h", &u("http://h/d/9/"), false, |_| true),
        Some(Variant::Slash)
    );
}

#[test]
fn a_page_fetched_under_one_kind_of_variant_is_not_fetched_under_another() {
    let mut c = Copies::default();
    for i in 0..3 {
        for v in ["?ref=a", "", "/print"] {
            let (path, q) = if v.starts_with('?') { ("", v) } else { (v, "") };
            c.observe(
                "h",
                &u(&format!("http://h{path}/s/{i}.html{q}")),
                &format!("sha1:{i}"),
            );
        }
    }
    assert!(c.any_adopted("h"));
    // `x` fetched only as `?ref=`; both rules in force: its print view is a copy.
    c.observe("h", &u("http://h/s/x.html?ref=b"), "sha1:x");
    let print = u("http://h/print/s/x.html");
    assert!(c.skip("h", &print, |_| false).is_some());
    // With `ref` undecided on another host, the print view waits instead.
    c.observe("g", &u("http://g/s/y.html?ref=b"), "sha1:y");
    for i in 0..3 {
        c.observe(
            "g",
            &u(&format!("http://g/s/{i}.html")),
            &format!("sha1:g{i}"),
        );
        c.observe(
            "g",
            &u(&format!("http://g/print/s/{i}.html")),
            &format!("sha1:g{i}"),
        );
    }
    let print = u("http://g/print/s/y.html");
    assert_eq!(c.skip("g", &print, |_| false), None);
    assert!(c.suspect("g", &print, |_| false));
}

#[test]
fn variants_of_one_url_are_compared_with_each_other() {
    // Session parameters on every link: the bare URL is never fetched.
    let mut c = Copies::default();
    for i in 0..3 {
        c.observe(
            "h",
            &u(&format!("http://h/{i}?sid=A")),
            &format!("sha1:{i}"),
        );
        c.observe(
            "h",
            &u(&format!("http://h/{i}?sid=B")),
            &format!("sha1:{i}"),
        );
    }
    assert!(c.any_adopted("h"));
}

#[test]
fn a_refutation_of_a_likely_name_survives_a_restart() {
    let store = crate::store::Store::temporary().unwrap();
    let mut c = Copies::load(&store).unwrap();
    for (host, i) in [("h", 0), ("h", 1), ("k", 2)] {
        c.observe(host, &u(&format!("http://{host}/{i}")), "sha1:x");
        c.observe(host, &u(&format!("http://{host}/{i}?ref=a")), "sha1:x");
    }
    assert!(c.any());
    // Refuted on a host where it had no example: the name is no longer likely, and stays so.
    c.observe("g", &u("http://g/z?ref=a"), "sha1:1");
    c.observe("g", &u("http://g/z"), "sha1:2");
    assert!(!c.any());
    let (k, v) = c.entry().unwrap().unwrap();
    let mut ws = crate::store::WriteSet::default();
    ws.put(k, v);
    store.commit(ws).unwrap();
    let again = Copies::load(&store).unwrap();
    assert!(!again.any(), "the refutation on g was kept");
}

#[test]
fn the_rules_survive_a_restart_and_damage_is_named() {
    let store = crate::store::Store::temporary().unwrap();
    let mut c = Copies::load(&store).unwrap();
    for i in 0..3 {
        c.observe("h", &u(&format!("http://h/p/{i}")), "sha1:x");
        c.observe("h", &u(&format!("http://h/print/p/{i}")), "sha1:x");
    }
    // Segment candidates refuted without an example are not written.
    c.observe("h", &u("http://h/a/b"), "sha1:1");
    c.observe("h", &u("http://h/a"), "sha1:2");
    let (k, v) = c.entry().unwrap().unwrap();
    assert!(c.entry().unwrap().is_none(), "written once per change");
    assert!(!String::from_utf8_lossy(&v).contains("segment:b"));
    let mut ws = crate::store::WriteSet::default();
    ws.put(k.clone(), v);
    store.commit(ws).unwrap();
    let again = Copies::load(&store).unwrap();
    assert!(again.any_adopted("h"));
    assert_eq!(again.views(), c.views());
    let mut ws = crate::store::WriteSet::default();
    ws.put(k, br#"{"h":{"query:x":{}}}"#.to_vec());
    store.commit(ws).unwrap();
    let err = Copies::load(&store).err().unwrap().to_string();
    assert!(err.contains("copy rules"), "{err}");
}
