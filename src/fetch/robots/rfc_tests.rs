//! The examples of RFC 9309 as tests: section 2.2.2's table of percent-encoded paths, section
//! 2.2.3's special characters, and the example files of sections 5.1 and 5.2.

use super::Robots;

const UA: &str = "magpie/0.1 (+https://example.org/bot)";

/// Whether `url` is allowed to `agent` by a file made of `User-agent: *` and `rule`.
fn allowed_by(rule: &str, url: &str) -> bool {
    let body = format!("User-agent: *\n{rule}\n");
    Robots::from_response(200, body.as_bytes(), UA).allowed(url)
}

/// RFC 9309 section 2.2.2, the table of paths, their encoded form and the path to match:
/// `(path as written in a rule, encoded path, path to match)`. A rule written in any of the
/// three columns must match a URI written in any of them.
const TABLE_2_2_2: &[(&str, &str, &str)] = &[
    ("/foo/bar?baz=quz", "/foo/bar?baz=quz", "/foo/bar?baz=quz"),
    (
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
    ),
    (
        "/foo/bar/\u{30c4}",
        "/foo/bar/%E3%83%84",
        "/foo/bar/%E3%83%84",
    ),
    (
        "/foo/bar/%E3%83%84",
        "/foo/bar/%E3%83%84",
        "/foo/bar/%E3%83%84",
    ),
    ("/foo/bar/%62%61%7A", "/foo/bar/%62%61%7A", "/foo/bar/baz"),
];

#[test]
fn section_2_2_2_table() {
    for &(path, encoded, to_match) in TABLE_2_2_2 {
        for rule in [path, encoded, to_match] {
            for uri in [path, encoded, to_match] {
                let url = format!("https://www.example.com{uri}");
                assert!(
                    !allowed_by(&format!("Disallow: {rule}"), &url),
                    "{rule} vs {uri}"
                );
                assert!(
                    !allowed_by(&format!("Disallow: {rule}"), uri),
                    "{rule} vs {uri}"
                );
            }
        }
    }
}

/// The three spellings the issue reported as unblocked, and their lowercase/unencoded cousins.
#[test]
fn percent_encoding_on_both_sides() {
    let cases = [
        ("Disallow: /%62%61%7A", "http://h.example/baz"),
        ("Disallow: /qux", "http://h.example/%71ux"),
        ("Disallow: /qux", "http://h.example/%71%75%78?x"),
        ("Disallow: /%e3%83%84", "http://h.example/%E3%83%84"),
        ("Disallow: /%E3%83%84", "http://h.example/%e3%83%84"),
        ("Disallow: /\u{30c4}", "http://h.example/%E3%83%84"),
        ("Disallow: /%e3%83%84", "http://h.example/\u{30c4}"),
        ("Disallow: /~joe/", "http://h.example/%7ejoe/index.html"),
        ("Disallow: /%7Ejoe/", "http://h.example/~joe/index.html"),
        ("Disallow: /a%3cd.html", "http://h.example/a%3Cd.html"),
    ];
    for (rule, url) in cases {
        assert!(!allowed_by(rule, url), "{rule} must block {url}");
    }
    // Reserved characters keep their meaning: an encoded slash is not a slash.
    for (rule, url) in [
        ("Disallow: /a%2Fb", "http://h.example/a/b"),
        ("Disallow: /a/b", "http://h.example/a%2fb"),
        ("Disallow: /a%3Fb", "http://h.example/a?b"),
    ] {
        assert!(allowed_by(rule, url), "{rule} must not block {url}");
    }
}

/// RFC 9309 section 2.2.3: `*` and `$` are special; percent-encoded, they match themselves.
#[test]
fn section_2_2_3_special_characters() {
    let base = "https://www.example.com";
    assert!(!allowed_by(
        "Disallow: /this/path/exactly$",
        &format!("{base}/this/path/exactly")
    ));
    assert!(allowed_by(
        "Disallow: /this/path/exactly$",
        &format!("{base}/this/path/exactly/")
    ));
    assert!(!allowed_by(
        "Disallow: /this/*/exactly",
        &format!("{base}/this/a/b/exactly")
    ));
    let star = "Disallow: /path/file-with-a-%2A.html";
    assert!(!allowed_by(
        star,
        &format!("{base}/path/file-with-a-*.html")
    ));
    assert!(!allowed_by(
        star,
        &format!("{base}/path/file-with-a-%2a.html")
    ));
    assert!(allowed_by(star, &format!("{base}/path/file-with-a-x.html")));
    let dollar = "Disallow: /path/foo-%24";
    assert!(!allowed_by(dollar, &format!("{base}/path/foo-$")));
    assert!(allowed_by(dollar, &format!("{base}/path/foo-x")));
    // A `$` inside a pattern is an ordinary character.
    assert!(!allowed_by("Disallow: /a$b", &format!("{base}/a$b/c")));
    assert!(allowed_by("Disallow: /a$", &format!("{base}/a$")));
}

/// RFC 9309 section 5.1, the simple example, with the verdicts its text gives.
#[test]
fn section_5_1_simple_example() {
    let body = "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n\
        User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n\
        User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n\
        User-Agent: quxbot\n";
    let verdicts: &[(&str, &str, bool)] = &[
        ("magpie", "/example/page.html", false),
        ("magpie", "/images/a.gif", false),
        ("magpie", "/publications/", true),
        ("magpie", "/other", true),
        ("foobot", "/example/page.html", true),
        ("foobot", "/example/allowed.gif", true),
        ("foobot", "/example/other.html", false),
        ("foobot", "/", false),
        ("barbot", "/example/page.html", false),
        ("barbot", "/example/other.gif", true),
        ("bazbot/2.1", "/example/page.html", false),
        ("BazBot", "/anything", true),
        ("quxbot", "/example/page.html", true),
        ("quxbot", "/a.gif", true),
    ];
    for &(agent, path, expected) in verdicts {
        let r = Robots::from_response(200, body.as_bytes(), agent);
        let url = format!("https://www.example.com{path}");
        assert_eq!(r.allowed(&url), expected, "{agent} {path}");
    }
}

/// RFC 9309 section 5.2: the longest match wins; an allow wins a tie.
#[test]
fn section_5_2_longest_match() {
    let body =
        b"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n";
    let r = Robots::from_response(200, body, "foobot");
    assert!(r.allowed("https://www.example.com/example/page/"));
    assert!(r.allowed("https://www.example.com/example/page/x.html"));
    assert!(!r.allowed("https://www.example.com/example/page/disallowed.gif"));
    let tie = b"User-agent: *\nDisallow: /page\nAllow: /page\n";
    assert!(Robots::from_response(200, tie, UA).allowed("/page"));
    // An empty Disallow adds no rule, so it does not win a tie against `Disallow: /`.
    let empty = b"User-agent: *\nDisallow:\nDisallow: /\n";
    assert!(!Robots::from_response(200, empty, UA).allowed("/page"));
    // Lengths count the normal form: `/%70age` is `/page`, and the allow wins the tie.
    let spelled = b"User-agent: *\nDisallow: /%70age\nAllow: /page\n";
    assert!(Robots::from_response(200, spelled, UA).allowed("/page"));
    // Rules outside any group (section 2.1) apply to no one.
    assert!(Robots::from_response(200, b"Disallow: /\n", UA).allowed("/page"));
}
