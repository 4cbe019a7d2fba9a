//! Signs that a page is an API reference, as documentation generators write one: its section
//! headings ("Method Summary", "Struct Reference") and a title that names a code object.

use super::page::Page;

/// Section headings of API reference pages, as documentation generators write them: Doxygen's
/// ("Detailed Description", "Member Function Documentation", "Struct Reference"), Javadoc's
/// ("Method Summary", "Constructor Details"), rustdoc's ("Trait Implementations"), pydoc's
/// ("Methods defined here") and YARD's ("Instance Attribute Summary"). A heading is matched
/// whole or by its end ("bird_sighting Struct Reference").
const API_HEADINGS: [&str; 26] = [
    "detailed description",
    "data fields",
    "data structures",
    "public member functions",
    "public attributes",
    "member list",
    "documentation",
    "struct reference",
    "class reference",
    "file reference",
    "namespace reference",
    "interface reference",
    "method summary",
    "field summary",
    "constructor summary",
    "method details",
    "field details",
    "constructor details",
    "constant summary",
    "attribute summary",
    "attribute details",
    "trait implementations",
    "required methods",
    "provided methods",
    "methods defined here",
    "data descriptors defined here",
];

/// The API reference headings of a page, distinct: a heading that ends with one of
/// [`API_HEADINGS`] ("Member Data Documentation" ends with "documentation").
pub(super) fn headings(page: &Page<'_>) -> Vec<&'static str> {
    let mut found = Vec::new();
    for n in page.body.descendants().take(20_000) {
        let Some(e) = n.value().as_element() else {
            continue;
        };
        let heading = matches!(e.name(), "h1" | "h2" | "h3" | "h4" | "caption")
            || e.attr("class")
                .is_some_and(|c| c.split_whitespace().any(|c| c == "title"));
        if !heading || page.is_hidden(n) {
            continue;
        }
        let text = page.text(n).to_lowercase();
        let text = text.trim();
        if text.len() > 80 {
            continue;
        }
        // Whole, or without the links it holds (YARD's "Instance Method Summary" ends with
        // a "collapse" toggle).
        let ends = |t: &str| API_HEADINGS.iter().find(|h| t.ends_with(*h));
        if let Some(h) = ends(text).or_else(|| ends(&words_outside_links(n).to_lowercase())) {
            if !found.contains(h) {
                found.push(*h);
            }
        }
    }
    found
}

/// The words of `n` outside the links it holds.
fn words_outside_links(n: ego_tree::NodeRef<'_, scraper::Node>) -> String {
    let mut words: Vec<&str> = Vec::new();
    for d in n.descendants() {
        let scraper::Node::Text(t) = d.value() else {
            continue;
        };
        let in_link = d
            .ancestors()
            .take_while(|a| a.id() != n.id())
            .any(|a| super::name(a) == "a");
        if !in_link {
            words.extend(t.split_whitespace());
        }
    }
    words.join(" ")
}

/// Characters of a code title reported, at most.
const MAX_CODE_TITLE: usize = 60;

/// The page's first visible `<h1>` outside its banner (`header`, `nav`) when all its visible
/// words are code (`<code>`, `<tt>`, `<kbd>`, `<samp>`): the heading of a page about one
/// module, class or function (`packaging.version.Version`, written as code by pydoctor). A
/// post or an article is titled in words, even one about code, and a site's name in code
/// (`~/blog`) sits in its banner, or links home; so one such title is not a category, but the
/// host's pages that have one add up.
pub(super) fn code_title(page: &Page<'_>) -> Option<String> {
    const CODE: [&str; 4] = ["code", "tt", "kbd", "samp"];
    let h1 = page.body.descendants().take(20_000).find(|n| {
        super::name(*n) == "h1"
            && !page.is_hidden(*n)
            && !n
                .ancestors()
                .any(|a| matches!(super::name(a), "header" | "nav"))
    })?;
    let home = h1.descendants().any(|a| {
        a.value()
            .as_element()
            .filter(|e| e.name() == "a")
            .and_then(|e| e.attr("href"))
            .and_then(|h| page.url.join(h).ok())
            .is_some_and(|u| u.path() == "/" && u.host() == page.url.host())
    });
    if home {
        return None;
    }
    let mut words = false;
    for t in h1.descendants() {
        let Some(text) = t.value().as_text() else {
            continue;
        };
        let inside = || t.ancestors().take_while(|a| a.id() != h1.id());
        if !text.chars().any(char::is_alphanumeric) || inside().any(|a| page.is_hidden(a)) {
            continue;
        }
        if !inside().any(|a| CODE.contains(&super::name(a))) {
            return None;
        }
        words = true;
    }
    let text = page.text(h1);
    let text = text.trim();
    words.then(|| text.chars().take(MAX_CODE_TITLE).collect())
}
