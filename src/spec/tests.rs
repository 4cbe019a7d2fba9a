//! Tests of the crawl specification: defaults, validation with JSON paths, every section.

use super::*;
use std::time::Duration;

fn err(json: &str) -> String {
    Spec::from_json(json).unwrap_err().to_string()
}

#[test]
fn minimal_spec_gets_documented_defaults() {
    let s = Spec::from_json(r#"{"name":"t","seeds":["http://example.org/"]}"#).unwrap();
    assert_eq!(s.limits.max_pages, 10_000);
    let p = &s.frontier.politeness;
    assert_eq!(p.min_delay, Duration::from_secs(1));
    assert_eq!(p.max_parallel_per_ip, 1);
    assert!(s.scope.embeds && s.scope.sitemaps && s.warc.dedup);
    assert!(!s.allow_private);
    assert!(s.aah.as_ref().is_some_and(|a| a.kb.is_none()));
    assert!(s.index && s.analysis.is_none() && s.frontier.best_n.is_none());
    assert_eq!(s.politeness.robots_ttl, Duration::from_secs(86_400));
    assert_eq!(s.limits.connect_timeout, Duration::from_secs(10));
}

#[test]
fn aah_section_is_checked() {
    assert!(err(r#"{"name":"t","seeds":["http://x/"],"aah":{"kb":""}}"#).starts_with("aah.kb:"));
    assert!(
        err(r#"{"name":"t","seeds":["http://x/"],"aah":{"kbb":"x"}}"#)
            .contains("unknown field `kbb`")
    );
    let s =
        Spec::from_json(r#"{"name":"t","seeds":["http://x/"],"aah":{"enabled":false,"kb":""}}"#)
            .unwrap();
    assert!(s.aah.is_none());
}

#[test]
fn errors_name_the_json_path() {
    assert!(err(r#"{"name":"t","seeds":["ftp://x/"]}"#).starts_with("seeds[0]: not an http(s) URL"));
    assert!(
        err(r#"{"name":"t","seeds":["http://x/"],"scope":{"deny":["("]}}"#)
            .starts_with("scope.deny[0]:")
    );
    assert!(
        err(r#"{"name":"t","seeds":["http://x/"],"limits":{"max_pages":"many"}}"#)
            .starts_with("limits.max_pages:")
    );
    assert!(
        err(r#"{"name":"t","seeds":["http://x/"],"scope":{"bogus":1}}"#)
            .contains("unknown field `bogus`")
    );
    assert!(err(r#"{"name":"../x","seeds":["http://x/"]}"#).starts_with("name:"));
    assert!(err(r#"{"name":"t","seeds":[]}"#).starts_with("seeds:"));
    assert!(
        err(r#"{"name":"t","seeds":["http://x/"],"warc":{"gzip_level":12}}"#)
            .starts_with("warc.gzip_level")
    );
    assert!(err("{\"name\":").contains("line 1"));
}

#[test]
fn topic_and_scoring_have_documented_defaults() {
    let s = Spec::from_json(r#"{"name":"t","seeds":["http://example.org/"]}"#).unwrap();
    let raw = s.written();
    assert!(raw.topic.keywords.is_empty() && raw.topic.languages.is_empty());
    let w = &raw.scoring.weights;
    assert_eq!(
        (w.document, w.paragraph, w.anchor, w.url, w.parent),
        (1.0, 1.0, 1.0, 0.5, 0.0)
    );
    assert_eq!(raw.scoring.threshold, 0.2);
    let zero = r#"{"name":"t","seeds":["http://x/"],"scoring":{"weights":
        {"document":0,"paragraph":0,"anchor":0,"url":0,"parent":0}}}"#;
    assert!(
        Spec::from_json(zero).is_ok(),
        "all-zero weights are allowed"
    );
}

#[test]
fn topic_and_scoring_errors_name_the_field() {
    let with = |section: &str| format!(r#"{{"name":"t","seeds":["http://x/"],{section}}}"#);
    assert!(err(&with(r#""scoring":{"weights":{"anchor":-1}}"#))
        .starts_with("scoring.weights.anchor: must be a finite number >= 0"));
    assert!(err(&with(r#""scoring":{"threshold":2}"#)).starts_with("scoring.threshold:"));
    assert!(err(&with(r#""scoring":{"spam_domains":["http://x/"]}"#))
        .starts_with("scoring.spam_domains[0]:"));
    assert!(err(&with(r#""scoring":{"weights":{"bogus":1}}"#)).contains("unknown field `bogus`"));
    assert!(err(&with(r#""topic":{"keywords":["solar","the"]}"#)).starts_with("topic.keywords[1]:"));
    assert!(err(&with(r#""topic":{"entities":["!!"]}"#)).starts_with("topic.entities[0]:"));
    assert!(err(&with(r#""topic":{"languages":["EN"]}"#)).starts_with("topic.languages[0]:"));
    assert!(
        err(&with(r#""topic":{"reference_urls":["x"]}"#)).starts_with("topic.reference_urls[0]:")
    );
    assert!(err(&with(r#""topic":{"keyword":[]}"#)).contains("unknown field `keyword`"));
}

#[test]
fn raw_spec_round_trips() {
    let s =
        Spec::from_json(r#"{"name":"t","seeds":["http://example.org/"],"scope":{"max_depth":3}}"#)
            .unwrap();
    let again = Spec::from_json(&serde_json::to_string(s.written()).unwrap()).unwrap();
    assert_eq!(again.written(), s.written());
}

#[test]
fn text_after_the_json_is_refused() {
    let ok = r#"{"name":"t","seeds":["http://x/"]}"#;
    assert!(
        Spec::from_json(&format!("{ok}\n  \n")).is_ok(),
        "whitespace is fine"
    );
    for tail in [" trailing", "{}", ",", "]"] {
        let e = err(&format!("{ok}{tail}"));
        assert!(
            e.starts_with(".: text after the spec's JSON object (trailing characters at line 1"),
            "{tail:?}: {e}"
        );
    }
    assert!(RawSpec::from_json(&format!("{ok} x")).is_err());
}

#[test]
fn names_of_files_in_the_data_folder_are_refused() {
    for name in [
        "api-token",
        "API-Token",
        "c.old-20260101T000000.000Z",
        "x.OLD-1",
    ] {
        let e = err(&format!(r#"{{"name":"{name}","seeds":["http://x/"]}}"#));
        assert!(e.starts_with(&format!("name: {name:?} ")), "{e}");
    }
    assert!(err(r#"{"name":"api-token","seeds":["http://x/"]}"#)
        .contains("reserved: DIR/api-token holds the server's API token"));
    for name in ["api-tokens", "my-api-token", "old-1", "a.old"] {
        let json = format!(r#"{{"name":"{name}","seeds":["http://x/"]}}"#);
        assert!(Spec::from_json(&json).is_ok(), "{name}");
    }
}

#[test]
fn user_agent_is_one_line_without_control_characters() {
    // It goes into every request and into every warcinfo record.
    for ua in [
        "",
        "  ",
        "a\\r\\nX-Forged: 1",
        "a\\nb",
        "a\\u0000b",
        "a\\tb",
        "a\\u0085b",
    ] {
        let e = err(&format!(
            r#"{{"name":"t","seeds":["http://x/"],"politeness":{{"user_agent":"{ua}"}}}}"#
        ));
        assert!(e.starts_with("politeness.user_agent: "), "{ua:?}: {e}");
    }
    let ok = r#"{"name":"t","seeds":["http://x/"],"politeness":{"user_agent":"magpie/1 (+https://x.example/; ops@x.example)"}}"#;
    assert!(Spec::from_json(ok).is_ok());
}
