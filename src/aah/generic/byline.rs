//! A post's byline: one author and a date inside an `<article>`, as a blog's or a news site's
//! post shows them under its heading.
//!
//! Read from two words of class names, together: a class naming the author (`article-author`,
//! `post_author`, `byline`) and one naming the date (`article-date`), or a `<time>`, within one
//! article. A forum's topic names an author per post (more than one), a wiki's page and a
//! manual's none.

use ego_tree::NodeRef;
use scraper::Node;

use super::name;
use super::page::Page;

/// Longest text of an author's name or a date, in characters: a byline's, not a paragraph's.
const MAX_BYLINE_CHARS: usize = 60;
/// Elements of an article looked at: a byline sits near its heading.
const MAX_NODES: usize = 20_000;
/// Elements marked as an author looked at: more is no single author's byline.
const MAX_AUTHORS: usize = 8;

/// Whether the page's one article carries a byline: exactly one visible element whose class
/// names an author (counting an author inside another as one), and a visible date (a `<time>`
/// or an element whose class names a date), both inside the same `<article>`.
pub(super) fn has_byline(page: &Page<'_>) -> bool {
    let articles: Vec<_> = page
        .body
        .descendants()
        .filter(|n| name(*n) == "article" && !page.is_hidden(*n))
        .take(2)
        .collect();
    let [article] = articles[..] else {
        return false;
    };
    let marked = |n: &NodeRef<'_, Node>, words: &[&str]| {
        n.value().as_element().is_some_and(|e| {
            e.classes().any(|c| names_one_of(c, words))
                && !page.is_hidden(*n)
                && (1..=MAX_BYLINE_CHARS).contains(&page.text(*n).chars().count())
        })
    };
    let nodes = || article.descendants().take(MAX_NODES);
    let authors: Vec<_> = nodes()
        .filter(|n| marked(n, &["author", "byline"]))
        .take(MAX_AUTHORS + 1)
        .collect();
    // `<span class="author"><a class="author-link">` is one author: the innermost counts.
    let innermost = authors
        .iter()
        .filter(|a| {
            !authors
                .iter()
                .any(|b| b.ancestors().any(|x| x.id() == a.id()))
        })
        .count();
    let dated = nodes().any(|n| (name(n) == "time" && !page.is_hidden(n)) || marked(&n, &["date"]));
    authors.len() <= MAX_AUTHORS && innermost == 1 && dated
}

/// Whether a class name has one of `words` as a part of its own (`article-author`,
/// `post_date`), not inside another word (`authorization`, `update`).
fn names_one_of(class: &str, words: &[&str]) -> bool {
    class
        .split(['-', '_'])
        .any(|part| words.iter().any(|w| part.eq_ignore_ascii_case(w)))
}
