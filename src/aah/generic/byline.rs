//! A post's byline: one author and a date inside an `<article>`, as a blog's or a news site's
//! post shows them under its heading.
//!
//! The one place the reader reads class names, and only two words of them, together: a class
//! naming the author and one naming the date, within one article. A forum's topic names an
//! author per post (more than one), a wiki's page and a manual's none.

use ego_tree::NodeRef;
use scraper::Node;

use super::name;
use super::page::Page;

/// Longest text of an author's name or a date, in characters: a byline's, not a paragraph's.
const MAX_BYLINE_CHARS: usize = 60;

/// Whether the page's one article carries a byline: exactly one visible element whose class
/// names an author, and a date (a `<time>` or an element whose class names one), both inside
/// the same `<article>`.
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
    let marked = |word: &str| {
        let word = word.to_owned();
        move |n: &NodeRef<'_, Node>| {
            n.value().as_element().is_some_and(|e| {
                e.classes().any(|c| c.to_ascii_lowercase().contains(&word))
                    && !page.is_hidden(*n)
                    && (1..=MAX_BYLINE_CHARS).contains(&page.text(*n).chars().count())
            })
        }
    };
    let authors = article
        .descendants()
        .filter(marked("author"))
        // The innermost one: `<span class="author"><a class="author-link">` is one author.
        .filter(|n| !n.descendants().skip(1).any(|d| marked("author")(&d)))
        .take(2)
        .count();
    let dated = article
        .descendants()
        .any(|n| name(n) == "time" || marked("date")(&n));
    authors == 1 && dated
}
