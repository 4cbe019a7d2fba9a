//! List or single item from a page's layout: the content element is a list when most of it is
//! a run of sibling entries each headed by a link to another page (or several `<article>`s, or
//! a schema.org `ItemList`), and a single item when it is mostly prose.

use std::collections::{HashMap, HashSet};

use ego_tree::{iter::Edge, NodeId, NodeRef};
use scraper::Node;

use super::page::{Page, Stats};
use super::{is_heading, name, MIN_PROSE};
use crate::aah::kb::LevelKind;

/// Prose (text outside links) of a page that introduces a list of links, at most, in characters.
const MAX_LIST_INTRO: usize = 400;
/// Prose under which a single item is a weak reading (it may be a list holding one item).
const WEAK_PROSE: usize = 400;
/// Prose of one entry of a list, at most: longer, it is a post or comment, not an entry.
const MAX_ENTRY_PROSE: usize = 600;
/// Prose of an entry without a heading, at most: links with a few words beside them.
const MAX_LINK_ENTRY_PROSE: usize = 200;

/// List or single item from the content element's layout, and whether the reading is weak
/// (structure alone cannot tell: a list holding one item, a short page).
pub(super) fn kind_of(
    page: &Page<'_>,
    content: NodeRef<'_, Node>,
    stats: &HashMap<NodeId, Stats>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> Option<(LevelKind, bool)> {
    let get = |n: NodeRef<'_, Node>| stats.get(&n.id()).copied().unwrap_or_default();
    let total = get(content);
    if total.text == 0 {
        return None;
    }
    // Several articles (outermost ones, the content itself counted once) are a list, when each
    // has a heading: a forum's posts are untitled `<article>`s too (Misago's post bodies), and
    // a thread of them is one discussion.
    let articles = std::iter::once(content)
        .chain(content.ancestors())
        .chain(content.descendants().skip(1))
        .filter(|n| name(*n) == "article" && !page.is_hidden(*n) && !furniture(*n))
        .filter(|n| !n.ancestors().any(|a| name(a) == "article"))
        .filter(|n| {
            n.descendants()
                .any(|h| is_heading(name(h)) && !page.is_hidden(h))
        })
        .count();
    // Column headers of a board's list ("Topics", "Posts", "Last Post") head its rows, however
    // few (a category holding two forums).
    let headed_columns = || {
        super::columns::forum_columns(page, content, &|n| page.is_hidden(n) || furniture(n)) >= 2
    };
    if articles >= 2 || declares_a_list(page, content, furniture) || headed_columns() {
        return Some((LevelKind::Intermediate, false));
    }
    // The largest set of similar elements (same parent tag, tag and first class) whose items
    // are each headed by a link to another page: the entries of a list, even when split in
    // groups (a category page's letters). Posts and comments are not headed so: the links of
    // their headings stay on the page or are small beside the heading (`comment:1 by ann, 3
    // years ago`), and their text is prose.
    let mut entries = Vec::new();
    let mut skip = 0usize;
    for edge in content.traverse() {
        let n = match edge {
            Edge::Open(n) => n,
            Edge::Close(n) => {
                if skip > 0 && n.value().is_element() {
                    skip -= 1;
                }
                continue;
            }
        };
        let Some(e) = n.value().as_element() else {
            continue;
        };
        if skip > 0 || (n.id() != content.id() && (page.is_hidden(n) || furniture(n))) {
            skip += 1;
            continue;
        }
        if n.id() == content.id() {
            continue;
        }
        let parent = n.parent().map_or("", |p| name(p));
        let class = e
            .attr("class")
            .and_then(|v| v.split_whitespace().next())
            .unwrap_or("");
        let s = get(n);
        let prose = s.text - s.link;
        // Headed by a heading that links elsewhere, or an entry of links with little prose
        // beside them (a forum post with its author's and group's links is prose). A paragraph
        // of links on lines of their own is a list written inline, whose links are the
        // entries (a wiki's `* TheHeron<br>* TheSwift`); a paragraph with a title, its
        // author's link and an excerpt is an entry. An entry that says it leads to the
        // previous or next item ("Next by thread: ...") walks a sequence of single items; it
        // is not an entry of a list.
        let inline_list = e.name() == "p" && s.links >= 2 && n.children().any(|c| name(c) == "br");
        let headed = s.links >= 1
            && ((prose < MAX_ENTRY_PROSE
                && ((s.heading_link && main_link_elsewhere(page, n))
                    || (s.link * 10 >= s.text * 3
                        && prose < MAX_LINK_ENTRY_PROSE
                        && !inline_list)))
                || opens_with_a_title_link(page, n)
                || opens_with_a_link_cell(page, n))
            && !walks_a_sequence(page, n);
        entries.push((n, (parent, e.name(), class), headed.then_some(s.text)));
    }
    // An entry holding entries of its own group is their heading ("Follow-Ups:" above the
    // replies it lists), not one more entry: counted, it doubles the list.
    let keys: HashMap<NodeId, (&str, &str, &str)> =
        entries.iter().map(|(n, key, _)| (n.id(), *key)).collect();
    let holders: HashSet<NodeId> = entries
        .iter()
        .filter(|(_, _, headed)| headed.is_some())
        .flat_map(|(n, key, _)| {
            n.ancestors()
                .take_while(|a| a.id() != content.id())
                .filter(|a| keys.get(&a.id()) == Some(key))
                .map(|a| a.id())
        })
        .collect();
    // An entry's description may follow it in an element of its own, of another group, with
    // little linked text: a `<dd>` after its `<dt>`, a grid's description cell after its link
    // cell (javadoc's summaries). It is the entry's text when three headed entries or more of
    // one parent are so followed: a post's text after its meta line (its date's permalink) is
    // one pair in a parent of its own, and a comment's after its byline (a link to its author,
    // Redmine's) is a post's, however many there are.
    let description = |n: NodeRef<'_, Node>| -> Option<usize> {
        let s = n.next_siblings().find(|s| s.value().is_element())?;
        if keys
            .get(&s.id())
            .is_none_or(|k| Some(k) == keys.get(&n.id()))
        {
            return None;
        }
        let byline = n
            .descendants()
            .filter_map(|d| {
                d.value()
                    .as_element()
                    .filter(|e| e.name() == "a")?
                    .attr("href")
            })
            .any(|h| leads_to_a_person(page, h));
        let s = get(s);
        (!byline && s.link * 3 < s.text && s.text - s.link < MAX_ENTRY_PROSE).then_some(s.text)
    };
    // Each headed entry's description, read once, and how many of each parent's are described.
    let described: HashMap<NodeId, usize> = entries
        .iter()
        .filter(|(_, _, headed)| headed.is_some())
        .filter_map(|(n, _, _)| Some((n.id(), description(*n)?)))
        .collect();
    let mut per_parent: HashMap<Option<NodeId>, usize> = HashMap::new();
    for (n, _, _) in entries
        .iter()
        .filter(|(n, _, _)| described.contains_key(&n.id()))
    {
        *per_parent.entry(n.parent().map(|p| p.id())).or_default() += 1;
    }
    let description = |n: NodeRef<'_, Node>| {
        let paired = per_parent
            .get(&n.parent().map(|p| p.id()))
            .is_some_and(|&k| k >= 3);
        described
            .get(&n.id())
            .filter(|_| paired)
            .copied()
            .unwrap_or(0)
    };
    // Entries of one group that are one link each to one place are one entry: a post's
    // permalink buttons (Misago's icon and its date, both to `post/37/`) are no list of posts.
    let mut targets: HashSet<((&str, &str, &str), String)> = HashSet::new();
    let mut groups: HashMap<(&str, &str, &str), (usize, usize, usize)> = HashMap::new();
    for (n, key, headed) in &entries {
        let g = groups.entry(*key).or_default();
        g.0 += 1;
        // An entry that is one visible link, by where it leads (a fragment is a place of its
        // own: Doxygen's list of a class's members links each on one page).
        let lone = || {
            let mut links = n
                .descendants()
                .filter(|d| !page.is_hidden(*d))
                .filter_map(|d| {
                    d.value()
                        .as_element()
                        .filter(|e| e.name() == "a")?
                        .attr("href")
                });
            let href = links.next().filter(|_| links.next().is_none())?;
            page.url.join(href).ok().map(String::from)
        };
        let headed = headed
            .filter(|_| !holders.contains(&n.id()))
            .filter(|_| lone().is_none_or(|href| targets.insert((*key, href))));
        if let Some(text) = headed {
            g.1 += 1;
            g.2 += text + description(*n);
        }
    }
    // The group of three elements at least with the most text in its entries, preferring
    // groups of several entries (a wiki's nested page boxes, one of them holding a list, are
    // no list).
    let (items, listed) = groups
        .values()
        .filter(|(count, _, _)| *count >= 3)
        .map(|&(_, headed, text)| (headed, text))
        .max_by_key(|&(headed, text)| (headed >= 2, text))
        .unwrap_or((0, 0));
    if let Some(strong) = titled_sections(page, content, &get, furniture) {
        return Some((LevelKind::Intermediate, !strong));
    }
    let prose = total.text - total.link;
    // Most of the content is the list, or the page is a short introduction to a list. A list
    // of bare names (a wiki's index of a topic's articles, Doxygen's list of a class's
    // members) holds less text than its introduction; it is settled when that is a sentence or
    // two.
    if listed * 2 >= total.text || (items >= 3 && prose < MAX_LIST_INTRO) {
        let settled = items >= 3 && (listed * 2 >= total.text || prose < MAX_LINK_ENTRY_PROSE);
        return Some((LevelKind::Intermediate, !settled));
    }
    if total.link * 2 > total.text || prose < MIN_PROSE {
        return Some((LevelKind::Intermediate, true));
    }
    let first_heading = content
        .descendants()
        .find(|h| matches!(name(*h), "h1" | "h2" | "h3") && !page.is_hidden(*h) && !furniture(*h));
    // Short prose may be a list holding one item, whose title links to it, or a notice ("no
    // topics yet"); a paragraph or two without a link is an item.
    let weak = (prose < WEAK_PROSE && (total.link > 0 || prose < MAX_LINK_ENTRY_PROSE))
        || first_heading.is_some_and(|h| titled_by_a_link(page, h));
    Some((LevelKind::Terminal, weak))
}

/// Whether the content is a run of sections each under a heading that is wholly a link to
/// another page, laid flat (the heading, its post's date line and excerpt as siblings, no
/// element around each entry): at least three such headings of one level whose sections hold
/// half the content's text. `Some(true)` when they hold most of it. An article's related
/// posts under linked headings hold little of its text.
fn titled_sections(
    page: &Page<'_>,
    content: NodeRef<'_, Node>,
    get: &dyn Fn(NodeRef<'_, Node>) -> Stats,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> Option<bool> {
    let total = get(content).text;
    let mut by_level: HashMap<&str, (usize, usize)> = HashMap::new();
    for h in content.descendants().filter(|h| is_heading(name(*h))) {
        let hidden = std::iter::once(h)
            .chain(h.ancestors().take_while(|a| a.id() != content.id()))
            .any(|a| page.is_hidden(a) || furniture(a));
        if hidden || !is_title_link(page, h) {
            continue;
        }
        // The section: the heading and its following siblings up to the next heading of
        // its level.
        let level = name(h);
        let section: usize = std::iter::once(h)
            .chain(h.next_siblings().take_while(|x| name(*x) != level))
            .filter(|x| !furniture(*x))
            .map(|x| get(x).text)
            .sum();
        let e = by_level.entry(level).or_default();
        e.0 += 1;
        e.1 += section;
    }
    let (_, text) = by_level
        .into_values()
        .filter(|(count, _)| *count >= 3)
        .max_by_key(|(_, text)| *text)?;
    (text * 2 >= total).then_some(text * 10 >= total * 7)
}

/// Whether an entry's words open by saying it leads to the previous or next item ("Prev by
/// Date: ...", "Next post", "« Older"): an item page's way to its neighbours.
fn walks_a_sequence(page: &Page<'_>, n: NodeRef<'_, Node>) -> bool {
    let words: String = page
        .text(n)
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .take(8)
        .collect::<String>()
        .to_lowercase();
    ["prev", "next", "older", "newer"]
        .iter()
        .any(|w| words.starts_with(w))
}

/// Whether the content holds a schema.org `ItemList` outside any article (microdata): the
/// page says it is a list, even one with no entries yet (an empty forum category). A list in
/// a post (its related posts) is inside the post's `<article>`.
fn declares_a_list(
    page: &Page<'_>,
    content: NodeRef<'_, Node>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> bool {
    let in_article = std::iter::once(content)
        .chain(content.ancestors())
        .any(|a| name(a) == "article");
    !in_article
        && content.descendants().any(|n| {
            n.value()
                .as_element()
                .and_then(|e| e.attr("itemtype"))
                .is_some_and(|t| t.trim_end_matches('/').ends_with("schema.org/ItemList"))
                && !page.is_hidden(n)
                && !n
                    .ancestors()
                    .take_while(|a| a.id() != content.id())
                    .any(|a| furniture(a) || page.is_hidden(a) || name(a) == "article")
        })
}

/// Whether `n` opens with a heading (or an element classed a title) that is wholly one link to
/// another page: a blog front page showing whole posts, each under its linked title, is a list
/// however long the posts are. The title may be a link classed so whose words are the entry's
/// first (HyperKitty's thread rows: an avatar, then `a.thread-title`, then the sender and an
/// excerpt).
fn opens_with_a_title_link(page: &Page<'_>, n: NodeRef<'_, Node>) -> bool {
    let headed = n
        .children()
        .find(|c| c.value().is_element())
        .is_some_and(|h| (is_heading(name(h)) || classed_a_title(h)) && wholly_a_link(page, h));
    // Or the entry's first words are a heading's, wholly a link, under a wrapper of their own
    // (a card's header: `div.card-header > h3 > a`), or a link wrapping a heading
    // (djeddit's `a > h4`).
    headed
        || first_words_link(page, n).is_some_and(|a| {
            classed_a_title(a)
                || a.ancestors()
                    .take_while(|x| x.id() != n.id())
                    .any(|x| is_heading(name(x)) && wholly_a_link(page, x))
                || a.descendants().any(|h| {
                    is_heading(name(h))
                        && page.text(h).chars().count() * 10 >= page.text(a).chars().count() * 9
                })
        })
}

/// The link that holds `n`'s first words, when it is wholly a link to another page that is not
/// a person's.
fn first_words_link<'a>(page: &Page<'_>, n: NodeRef<'a, Node>) -> Option<NodeRef<'a, Node>> {
    first_words(page, n)?
        .ancestors()
        .take_while(|a| a.id() != n.id())
        .find(|a| name(*a) == "a")
        .filter(|a| wholly_a_link(page, *a))
}

/// The first visible text of `n` that has words (a letter or a digit: not a lone `#` or `★`).
fn first_words<'a>(page: &Page<'_>, n: NodeRef<'a, Node>) -> Option<NodeRef<'a, Node>> {
    n.descendants()
        .filter(|d| {
            d.value()
                .as_text()
                .is_some_and(|t| t.chars().any(char::is_alphanumeric))
        })
        .find(|d| {
            !d.ancestors()
                .take_while(|a| a.id() != n.id())
                .any(|a| page.is_hidden(a))
        })
}

/// Whether an element's class names it a title (`title`, `entry-title`, `headline`): the
/// heading of templates that draw headings as `div`s (chronicle's entries).
fn classed_a_title(h: NodeRef<'_, Node>) -> bool {
    let class = h.value().as_element().and_then(|e| e.attr("class"));
    class.is_some_and(|c| {
        c.split_whitespace().any(|w| {
            let w = w.to_ascii_lowercase();
            w.split(['-', '_']).any(|p| p == "title" || p == "headline")
        })
    })
}

/// Whether `h` is a heading that is wholly one link to another page: a post's title in a list
/// (an author's name leads to a person, [`leads_to_a_person`]).
fn is_title_link(page: &Page<'_>, h: NodeRef<'_, Node>) -> bool {
    is_heading(name(h)) && wholly_a_link(page, h)
}

/// Whether `h`'s text is wholly one link to another page that is not a person's.
fn wholly_a_link(page: &Page<'_>, h: NodeRef<'_, Node>) -> bool {
    let links: Vec<_> = h.descendants().filter(|d| name(*d) == "a").collect();
    let [a] = links.as_slice() else {
        return false;
    };
    let href = a.value().as_element().and_then(|e| e.attr("href"));
    let (whole, linked) = (page.text(h).chars().count(), page.text(*a).chars().count());
    href.is_some_and(|h| !page.is_self(h) && !leads_to_a_person(page, h))
        && linked > 0
        && linked * 10 >= whole * 9
}

/// Characters of a table cell beside an entry's linked name that still only describe the entry.
const MAX_CELL_CHARS: usize = 80;

/// Whether `n` is a table row whose first cell with text is wholly links to other pages: the
/// rows of a directory listing or a table of topics (title, then slug, author or date), where
/// the other cells are short words, not prose. Cells of icons alone (a checkbox, a download
/// and a history link: MoinMoin's index) come before the name.
fn opens_with_a_link_cell(page: &Page<'_>, n: NodeRef<'_, Node>) -> bool {
    if name(n) != "tr" {
        return false;
    }
    let Some(cell) = n
        .children()
        .find(|c| matches!(name(*c), "td" | "th") && !page.text(*c).trim().is_empty())
    else {
        return false;
    };
    let whole = page.text(cell).chars().count();
    let linked: usize = cell
        .descendants()
        .filter(|d| name(*d) == "a")
        .filter(|a| {
            a.value()
                .as_element()
                .and_then(|e| e.attr("href"))
                .is_some_and(|h| !page.is_self(h))
        })
        .map(|a| page.text(a).chars().count())
        .sum();
    // The other cells name, date or count the entry; a post's text beside its author's name
    // is the entry itself (a forum topic laid out as a table).
    let short_rest = n
        .children()
        .filter(|c| matches!(name(*c), "td" | "th") && c.id() != cell.id())
        .all(|c| page.text(c).chars().count() <= MAX_CELL_CHARS);
    linked > 0 && linked * 10 >= whole * 8 && short_rest
}

/// Whether the first heading in `n` is titled by a link to another page ([`titled_by_a_link`]).
fn main_link_elsewhere(page: &Page<'_>, n: NodeRef<'_, Node>) -> bool {
    n.descendants()
        .find(|d| is_heading(name(*d)))
        .is_some_and(|h| titled_by_a_link(page, h))
}

/// Whether heading `h`'s largest link holds at least half of its text and leads to another
/// page (not a person's): an entry's linked title. A section's `[edit]` link is small beside
/// its heading.
fn titled_by_a_link(page: &Page<'_>, h: NodeRef<'_, Node>) -> bool {
    let whole = page.text(h).chars().count();
    let largest = h
        .descendants()
        .filter_map(|d| {
            let href = d
                .value()
                .as_element()
                .filter(|e| e.name() == "a")?
                .attr("href")?;
            Some((page.text(d).chars().count(), href))
        })
        .max_by_key(|(len, _)| *len);
    largest.is_some_and(|(len, href)| {
        len * 2 >= whole && !page.is_self(href) && !leads_to_a_person(page, href)
    })
}

/// Path segments that name a site's people: `/user/bruno`, `/members/42`, `/profile/ann`.
const PEOPLE: [&str; 7] = [
    "user", "users", "member", "members", "profile", "profiles", "people",
];

/// Whether `href` leads to a person's page, by its path or as the page links it
/// (`page::marks_a_person`): a heading that links its author's name (FlaskBB's
/// `<h4><a href="/user/bruno">`) heads a post, not an entry of a list, whose headings lead to
/// the content listed.
fn leads_to_a_person(page: &Page<'_>, href: &str) -> bool {
    page.url.join(href).is_ok_and(|mut u| {
        u.set_fragment(None);
        page.links_a_person(&u)
            || u.path_segments()
                .into_iter()
                .flatten()
                .any(|s| PEOPLE.contains(&s.to_ascii_lowercase().as_str()))
    })
}
