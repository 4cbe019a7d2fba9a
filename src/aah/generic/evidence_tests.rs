//! Tests of the category evidence a page gives.

use super::*;
use crate::aah::generic::engine::{camel_words, starts_a_word};

#[test]
fn category_words_glued_to_a_word_of_the_page_name_the_category() {
    use super::super::part::category_named;
    for (segment, c) in [
        ("forum", Category::Forum),
        ("forumpost", Category::Forum),
        ("showthread", Category::Forum),
        ("wikihelp", Category::Wiki),
        ("blogpost", Category::Blog),
    ] {
        assert_eq!(category_named(segment), Some(c), "{segment}");
    }
    for segment in ["forumpostal", "technote", "wikipedian", "blogging"] {
        assert_eq!(category_named(segment), None, "{segment}");
    }
}

#[test]
fn two_api_reference_headings_are_docs_evidence_and_one_is_not() {
    use url::Url;
    let docs = |body: &str| {
        let html = format!("<html><body>{body}<p>Heron</p></body></html>");
        let tree = crate::parse::parse_document(&html);
        let url = Url::parse("http://d/").expect("a URL");
        let page = Page::new(&tree, &url).expect("a page");
        of(&page).points[Category::ALL
            .iter()
            .position(|c| *c == Category::Docs)
            .expect("docs is a category")]
    };
    let struct_page = r#"<div class="title">heron Struct Reference</div>
        <h2>Detailed Description</h2><h2>Member Data Documentation</h2>"#;
    assert_eq!(docs(struct_page), 3);
    // YARD's class page: its summaries end with a "collapse" toggle.
    let yard_page = r##"<h2>Instance Method Summary <small><a href="#" class="summary_toggle">collapse</a></small></h2>
        <h2>Constructor Details</h2>"##;
    assert_eq!(docs(yard_page), 3);
    assert_eq!(docs("<h2>Documentation</h2><h2>Documentation</h2>"), 0);
    assert_eq!(
        docs("<h2>Detailed Description</h2><p>Member Data Documentation</p>"),
        0,
        "a paragraph is no heading"
    );
}

#[test]
fn a_manual_s_collection_links_are_docs_evidence() {
    use url::Url;
    let doc = |head: &str| {
        let html = format!("<html><head>{head}</head><body><p>Heron</p></body></html>");
        let tree = crate::parse::parse_document(&html);
        let url = Url::parse("http://d/").expect("a URL");
        let page = Page::new(&tree, &url).expect("a page");
        of(&page).points[Category::ALL
            .iter()
            .position(|c| *c == Category::Docs)
            .expect("docs is a category")]
    };
    assert_eq!(doc(r#"<link rel="index" href="genindex.html">"#), 1);
    assert_eq!(
        doc(r#"<link rel="index" href="genindex.html"><link rel="next" href="b.html">"#),
        3
    );
    assert_eq!(doc(r#"<link rel="stylesheet" href="a.css">"#), 0);
}

#[test]
fn a_mailing_list_archive_is_a_discussion() {
    use url::Url;
    let html = "<html><body><a href=\"threads.html\">Thread Index</a>\
        <a href=\"msg1.html\">Re: Heron</a><a href=\"msg2.html\">Re: Weir</a></body></html>";
    let tree = crate::parse::parse_document(html);
    let url = Url::parse("http://l/maillist.html").expect("a URL");
    let page = Page::new(&tree, &url).expect("a page");
    let ev = of(&page);
    assert_eq!(
        super::super::best_category(&ev.points),
        Some(Category::Forum)
    );
}

#[test]
fn a_blog_s_month_archive_is_blog_evidence_and_its_tags_are_no_wiki_s() {
    use url::Url;
    let html = "<html><body><p>Tags: <a href=\"tags/history\">history</a>, \
        <a href=\"tags/edit\">edit</a>, <a rel=\"tag\" href=\"t?x=1\">changelog</a></p>\
        <a href=\"archive/2023/06/\">June</a><a href=\"archive/2023/05/\">May</a>\
        <a href=\"archive/2023/4/\">April</a></body></html>";
    let tree = crate::parse::parse_document(html);
    let url = Url::parse("http://c/A_post.html").expect("a URL");
    let page = Page::new(&tree, &url).expect("a page");
    let ev = of(&page);
    // The month archive, and nothing of the tags "history", "edit" and "changelog".
    assert_eq!(ev.signals, ["links to 3 archives by month"]);
    assert!(names_a_month("/2023/06/") && names_a_month("/archive/1999/1"));
    assert!(!names_a_month("/topic/2023/1234") && !names_a_month("/2023/13/"));
}

#[test]
fn a_generator_word_counts_at_the_start_of_a_word_only() {
    assert!(!starts_a_word("ikiwiki 3.2", "wiki"));
    for (name, word) in [
        ("TiddlyWiki", "wiki"),
        ("phpBB 3", "bb"),
        ("XWiki 15", "wiki"),
    ] {
        let words = camel_words(name).to_lowercase();
        assert!(starts_a_word(&words, word), "{name}: {words}");
    }
    assert!(!starts_a_word(
        &camel_words("ikiwiki").to_lowercase(),
        "wiki"
    ));
    assert!(!starts_a_word(&camel_words("Nikola").to_lowercase(), "la"));
    assert!(starts_a_word("my wiki engine", "wiki"));
    assert!(starts_a_word("docs builder", "docs"));
}

/// The evidence of a page made of `head` and `body`, at `http://e/page`.
fn evidence(head: &str, body: &str) -> Evidence {
    let html = format!("<html><head>{head}</head><body>{body}</body></html>");
    let tree = crate::parse::parse_document(&html);
    let url = url::Url::parse("http://e/page").expect("a URL");
    of(&Page::new(&tree, &url).expect("a page"))
}

#[test]
fn a_message_shown_with_its_mail_headers_is_a_discussion() {
    let message =
        "<pre>From: Alice Marsh &lt;alice@example.test&gt;\nTo: field-notes@example.test\n\
        Subject: Re: Heron at dusk\nDate: Sun, 5 Mar 2023\n\nI saw it too.</pre>";
    let ev = evidence("", message);
    assert_eq!(
        ev.signals,
        ["mail headers (from: to: subject: date:)"],
        "{:?}",
        ev.signals
    );
    // A date and an author's line are any post's; a subject is needed too.
    let ev = evidence("", "<p>From: Alice</p><p>Date: 2023</p><p>To: Bruno</p>");
    assert!(ev.signals.is_empty());
    // Header words inside other words, or scattered over prose, are no header block.
    let filler = "<p>".to_owned() + &"the heron waited by the weir ".repeat(90) + "</p>";
    let prose = format!(
        "<p>Update: the path is open.</p>{filler}<p>How to: reach it from: the north.</p>\
        {filler}<p>Subject: birds</p>"
    );
    let ev = evidence("", &prose);
    assert!(ev.signals.is_empty(), "{:?}", ev.signals);
    // A long list of recipients between `From:` and `Subject:` is one header block.
    let cc: String = (0..40)
        .map(|n| format!("reader{n}@example.test, "))
        .collect();
    let message = format!("<pre>From: Alice\nTo: {cc}\nDate: 2023\nSubject: Weirs</pre>");
    assert_eq!(evidence("", &message).signals.len(), 1);
}

#[test]
fn a_generator_named_for_documentation_is_docs_evidence() {
    for (generator, docs) in [
        ("pdoc 16.0.0", true),
        ("TypeDoc 0.25", true),
        ("javadoc/ClassWriterImpl", true),
        ("Docusaurus v3/Impl", false),
        ("Hugo 0.111", false),
        ("doc", false),
        ("pandoc", false),
    ] {
        let head = format!(r#"<meta name="generator" content="{generator}">"#);
        let ev = evidence(&head, "<p>Heron</p>");
        let named = ev.signals.iter().any(|s| s.contains("names documentation"));
        assert_eq!(named, docs, "{generator}: {:?}", ev.signals);
    }
}

#[test]
fn a_mail_address_or_message_id_in_a_path_names_a_mailing_list_archive() {
    for path in [
        "/hyperkitty/list/birds@lists.example.org/2023/1/",
        "/list/birds%40lists.example.org/thread/abc/",
        "/field-notes/20230301.1234@host.example/t/",
    ] {
        assert!(names_a_mailbox(path), "{path}");
    }
    for path in [
        "/@ann/",
        "/users/ann@/",
        "/a@b/",
        "/a@b./x",
        "/v1.2/@scope/pkg",
        "/npm/jquery@3.7.1/dist/",
        "/golang.org/x/net@v0.17.0/http2",
        "/q/owner:ann@example.org",
    ] {
        assert!(!names_a_mailbox(path), "{path}");
    }
}

#[test]
fn a_footer_crediting_an_engine_names_its_category_as_a_generator_would() {
    let credit = |foot: &str| {
        let ev = evidence("", &format!("<p>Heron</p><footer>{foot}</footer>"));
        ev.signals
            .iter()
            .find(|s| s.starts_with("footer credits"))
            .cloned()
    };
    let says = |foot: &str, what: &str| credit(foot).is_some_and(|s| s.contains(what));
    assert!(says(
        "Documentation generated by <a href=\"/\">JSDoc 4.0.5</a> on Mon",
        "jsdoc names documentation"
    ));
    assert!(says("Powered by DokuWiki", "says wiki"));
    assert!(says("Built with MkDocs", "says docs"));
    assert_eq!(credit("Proudly powered by WordPress"), None);
    assert_eq!(credit("Made with pandoc"), None);
    // Prose elsewhere on the page credits nothing.
    let ev = evidence("", "<p>This page was generated by JSDoc, we think.</p>");
    assert!(!ev.signals.iter().any(|s| s.starts_with("footer credits")));
}

#[test]
fn one_author_and_a_date_in_the_one_article_are_a_byline() {
    use super::super::byline::has_byline;
    use url::Url;
    let byline = |body: &str| {
        let html = format!("<html><body>{body}</body></html>");
        let tree = crate::parse::parse_document(&html);
        let url = Url::parse("http://b/post/").expect("a URL");
        let page = Page::new(&tree, &url).expect("a page");
        has_byline(&page)
    };
    let post = |meta: &str| {
        format!("<article><h1>Lapwing</h1><p>{meta}</p><p>The lapwing came back.</p></article>")
    };
    let author = r#"<span class="article-author"><a class="author-link">Ann</a></span>"#;
    assert!(byline(&post(&format!(
        r#"{author}<span class="article-date">June 28, 2023</span>"#
    ))));
    assert!(byline(&post(&format!(
        r#"{author}<time datetime="2023-06-28">June 28</time>"#
    ))));
    // No date; two authors (a forum's posts); no article; two articles (a list).
    assert!(!byline(&post(author)));
    assert!(!byline(&post(&format!(
        r#"{author}<span class="post-author">Bob</span><span class="date">May 1</span>"#
    ))));
    assert!(!byline(&format!(
        r#"<div>{author}<span class="date">May 1</span></div>"#
    )));
    let dated = post(&format!(r#"{author}<span class="date">May 1</span>"#));
    assert!(!byline(&format!("{dated}{dated}")));
    // A paragraph whose class names an author is no author's name.
    let long = "The author of these notes walks the river every week. ".repeat(3);
    assert!(!byline(&post(&format!(
        r#"<span class="author-note">{long}</span><span class="date">May 1</span>"#
    ))));
    // Words inside other words name no author and no date; a hidden date is none.
    assert!(!byline(&post(
        r#"<span class="authorization">Ann</span><span class="update">May 1</span>"#
    )));
    assert!(!byline(&post(&format!(
        r#"{author}<span class="updated">May 1</span>"#
    ))));
    assert!(!byline(&post(&format!(
        r#"{author}<time datetime="2023-05-01" hidden>May 1</time>"#
    ))));
    // A list of authors is no byline.
    assert!(!byline(&post(
        r#"<span class="authors">Ann, Bob</span><span class="date">May 1</span>"#
    )));
}

#[test]
fn a_title_written_as_code_is_docs_evidence_and_one_in_words_is_not() {
    let code = |h1: &str| {
        evidence("", &format!("{h1}<p>Heron</p>"))
            .signals
            .iter()
            .any(|s| s.starts_with("the page's title is code"))
    };
    // pydoctor's: the dotted name, each part a link, all in `<code>`.
    assert!(code(
        "<h1><code><code><a href=\"index.html\">packaging</a></code><wbr>.<code>\
         <a href=\"v.html\">version</a></code></code></h1>"
    ));
    assert!(code("<h1><tt>heron.Wader</tt></h1>"));
    // A post about code is titled in words; the first visible heading is the page's title.
    assert!(!code("<h1>Using <code>heron.Wader</code> well</h1>"));
    assert!(!code("<h1>Herons</h1><h1><code>heron</code></h1>"));
    assert!(!code("<h1 hidden><code>heron</code></h1><h1>Herons</h1>"));
    assert!(!code("<h1><code> . </code></h1>"));
    // A site's name written as code is its banner, not a page's title.
    assert!(!code(
        "<header><h1><code>~/blog</code></h1></header><h1>Herons</h1>"
    ));
    assert!(!code("<h1><a href=\"/\"><code>~/blog</code></a></h1>"));
    // Hidden words do not count, either way.
    assert!(code(
        "<h1><code>heron.Wader</code><span hidden>Class</span></h1>"
    ));
}

#[test]
fn a_page_saying_when_it_was_last_changed_is_wiki_evidence_and_a_post_s_editor_is_not() {
    use url::Url;
    let wiki = |body: &str| {
        let html = format!("<html><body><p>Heron</p>{body}</body></html>");
        let tree = crate::parse::parse_document(&html);
        let url = Url::parse("http://w/birds/Heron").expect("a URL");
        let page = Page::new(&tree, &url).expect("a page");
        of(&page).points[Category::ALL
            .iter()
            .position(|c| *c == Category::Wiki)
            .expect("wiki is a category")]
    };
    for said in [
        "<div class=\"last-updated\">\n  Last updated on 2nd Apr 2024\n</div>",
        "<p>This page was last edited on 12 November 2025, at 10:04.</p>",
        "<p>This article was last modified: March 3, 2024</p>",
        "<div>wiki/heron.txt · Last modified: 2023/06/01 10:00 by alice</div>",
    ] {
        assert_eq!(wiki(said), 2, "{said}");
    }
    for not in [
        "<small>last edited by alice</small>",
        "<p>The last updated map of the estuary shows the weir.</p>",
        "<p hidden>Last modified: 2023/06/01</p>",
        "<span>(This post was last modified: 04-02-2024, 10:04 AM by alice.)</span>",
        "<p>Last updated 5 minutes ago</p>",
        "<p>The map was last changed 3 times in a century.</p>",
    ] {
        assert_eq!(wiki(not), 0, "{not}");
    }
}
