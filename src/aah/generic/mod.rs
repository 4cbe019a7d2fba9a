//! Reading a page of an application the knowledge base does not know (ARCOMEM §4.1, second
//! relaxation scenario): its category from general evidence, list or single item from the
//! page's structure, and the title and body of a single item, each read with what the host's
//! other pages taught.
//!
//! Nothing here names an application. The evidence is what any blog, forum, wiki, news or
//! documentation engine exposes (see `evidence`). The page kind comes from its layout: the
//! content is found by descending from `<body>` into the child that holds most of the text; it
//! is a list when most of that content is a run of sibling items each headed by a link to
//! another page (or several `<article>`s), and a single item when it is mostly prose.
//!
//! **Furniture** never counts for layout, title or body: `nav`, `header`, `footer`, `aside`,
//! forms and buttons always, what the page hides, and, once a host has three pages read, every
//! small block that repeats on most of its pages (`host`): sidebars in `div`s, menus, a
//! "Context Navigation" heading, the site's name in `<title>`. A reading that structure alone
//! cannot settle (a list page holding one item, a short page) takes the kind its URL template's
//! other pages were read as (`template`).

use std::collections::{HashMap, HashSet};

use ego_tree::{NodeId, NodeRef};
use scraper::{Html, Node};
use url::Url;

use super::kb::{Category, LevelKind};

mod byline;
mod columns;
mod engine;
mod evidence;
mod host;
mod item;
mod kind;
mod nav;
mod page;
mod part;
mod template;
mod title;
mod views;

/// URLs and host models the navigation tests build their cases from.
#[cfg(test)]
mod test_hosts {
    use super::HostModel;
    use url::Url;

    pub(super) fn url(u: &str) -> Url {
        Url::parse(u).unwrap()
    }

    /// A host model that has seen links to `urls`.
    pub(super) fn host(urls: &[&str]) -> HostModel {
        let mut m = HostModel::default();
        for u in urls {
            m.observe_link(&url(u));
        }
        m
    }
}

use host::MIN_PAGES;
pub use host::{HostModel, NoPage};
pub use nav::not_worth;
use page::{Page, Stats};
use template::Shape;
use title::{title_core, title_parts, title_segments};
pub use views::{among_children, looks_like_a_place, not_worth_on, page_views};
pub(crate) use views::{display_key, PERSON, PLACE_IN, REQUERIED};

/// Characters of body text kept.
pub(super) const BODY_CHARS: usize = 8_000;
/// Least evidence for a category.
const MIN_EVIDENCE: u32 = 3;
/// Prose (text outside links) a single item has at least, in characters.
pub(super) const MIN_PROSE: usize = 60;

/// What a page says about itself, read with what its host taught.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// The page's own evidence per category (in [`Category::ALL`] order).
    pub evidence: [u32; 6],
    /// The signals that gave it, for the report (`schema.org BlogPosting`, `wiki edit link`).
    pub signals: Vec<String>,
    /// The host's category with this page counted: the evidence summed over its pages; or its
    /// section's, when that names another one clearly (`HostModel::section_category`).
    pub category: Option<Category>,
    /// The category is the page's section's, not the host's.
    pub by_section: bool,
    /// List (intermediate) or single item (terminal); `None` for a page with no content.
    pub kind: Option<LevelKind>,
    /// Title of a single item.
    pub title: Option<String>,
    /// Text of a single item, whitespace-normalised, at most [`BODY_CHARS`] characters.
    pub body: Option<String>,
    /// The kind was settled by the page's own layout, not taken from its URL template.
    pub settled: bool,
}

impl Reading {
    /// The category of the page's own evidence.
    pub fn own_category(&self) -> Option<Category> {
        best_category(&self.evidence)
    }
}

/// The category with the most evidence in `evidence` (a clear winner with enough of it).
pub fn best_category(evidence: &[u32; 6]) -> Option<Category> {
    let (i, &max) = evidence.iter().enumerate().max_by_key(|(_, &n)| n)?;
    let ties = evidence.iter().filter(|&&n| n == max).count();
    (max >= MIN_EVIDENCE && ties == 1).then(|| Category::ALL[i])
}

/// Parses a page's text (with the parse stage's guarded parser) and reads it alone, as the
/// first page of its host.
pub fn read_html(text: &str, url: &Url) -> Reading {
    read(
        &crate::parse::parse_document(text),
        url,
        &mut HostModel::default(),
    )
}

/// Reads a parsed page fetched from `url`, and counts it in its host's model.
pub fn read(doc: &Html, url: &Url, host: &mut HostModel) -> Reading {
    let Some(page) = Page::new(doc, url) else {
        return Reading::default();
    };
    let ev = evidence::of(&page);
    let parts = title_parts(&page.title);
    let lower = title_segments(&parts);
    let keys: HashSet<u64> = page.keys.values().copied().collect();
    let shape = Shape::of(url);
    host.observe(
        url,
        ev.part.as_deref(),
        &keys,
        &lower,
        &ev.points,
        shape.clone(),
    );
    let template = host.template(&shape);
    host.observe_template(&template, &keys);
    host.count_read(url, &shape);
    let (r, strong) = judge(&page, ev, &parts, &template, host);
    if let Some(own) = strong {
        host.vote(template, own);
    }
    r
}

/// Reads again a page its host's model has counted already ([`read`]), with what the host's
/// later pages taught (furniture, the site's name, the category, kinds per URL template),
/// counting nothing: a host's first pages are read before its model can judge them.
pub fn reread(doc: &Html, url: &Url, host: &HostModel) -> Reading {
    let Some(page) = Page::new(doc, url) else {
        return Reading::default();
    };
    let ev = evidence::of(&page);
    let parts = title_parts(&page.title);
    let template = host.template(&Shape::of(url));
    judge(&page, ev, &parts, &template, host).0
}

/// Whether a page of `url` read now would be read before its host's model can judge it: too
/// few pages of the host or of its URL template read for their furniture, or no category yet.
pub fn too_early(url: &Url, host: &HostModel) -> bool {
    host.category().is_none()
        || host.pages() < MIN_PAGES
        || host.template_pages(&host.template(&Shape::of(url))) < MIN_PAGES
}

/// The reading of a page with its host's model as it is; the page's own kind when its layout
/// settled it (a strong reading, which is a vote for its URL template).
fn judge(
    page: &Page<'_>,
    ev: evidence::Evidence,
    parts: &[&str],
    template: &str,
    host: &HostModel,
) -> (Reading, Option<LevelKind>) {
    let mut r = Reading {
        evidence: ev.points,
        signals: ev.signals,
        category: host.category(),
        ..Reading::default()
    };
    if let Some(c) = host.section_category(page.url, ev.part.as_deref()) {
        r.category = Some(c);
        r.by_section = true;
    }
    let template_kind = host.template_kind(template);
    let learned = |n: NodeRef<'_, Node>| {
        page.keys.get(&n.id()).is_some_and(|k| {
            host.is_furniture(*k)
                    // Entries of lists repeat on the lists of one template (a post under
                    // each of its tags); the template's own furniture is words, not links.
                    || (host.is_template_furniture(template, *k) && !page.links_elsewhere(n))
        })
    };
    let all = |n: NodeRef<'_, Node>| furniture_element(n) || learned(n);
    let tags = |n: NodeRef<'_, Node>| furniture_element(n);
    let mut furniture: &dyn Fn(NodeRef<'_, Node>) -> bool = &all;
    let mut stats = page.measure(furniture);
    let prose = |s: &HashMap<NodeId, Stats>| s.get(&page.body.id()).map_or(0, |s| s.text);
    if prose(&stats) < MIN_PROSE {
        // Everything looked like furniture: a list whose entries repeat on the other lists
        // read so far. The host's estimate is wrong for this page.
        furniture = &tags;
        stats = page.measure(furniture);
    }
    let content = descend(page, &stats, furniture);
    let Some((own, weak)) = kind::kind_of(page, content, &stats, furniture) else {
        return (r, None);
    };
    let kind = if weak {
        template_kind.unwrap_or(own)
    } else {
        own
    };
    r.kind = Some(kind);
    if kind == LevelKind::Terminal {
        let core = title_core(parts, host);
        r.title = item::title(page, content, &core, furniture);
        let root = item::root(page, content, r.title.as_deref());
        r.body = item::body(page, root, r.title.as_deref(), &stats, furniture);
    }
    r.settled = !weak;
    (r, (!weak).then_some(own))
}

pub(super) fn is_skipped(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "template" | "noscript" | "head" | "svg" | "math" | "iframe"
    )
}

/// Whether an element is the page's furniture by what it is: a `<header>` is the page's
/// banner, except inside an `<article>` or a `<section>`, whose heading and introduction it holds
/// (JSDoc's class pages: the class's name and description).
fn furniture_element(n: NodeRef<'_, Node>) -> bool {
    let tag = name(n);
    is_furniture(tag)
        && !(tag == "header"
            && n.ancestors()
                .any(|a| matches!(name(a), "article" | "section")))
}

pub(super) fn is_furniture(name: &str) -> bool {
    matches!(
        name,
        "nav" | "header" | "footer" | "aside" | "form" | "button" | "select" | "dialog"
    )
}

pub(super) fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements the content search descends into: containers, not paragraphs or list items.
fn is_container(name: &str) -> bool {
    matches!(
        name,
        "div" | "section" | "article" | "main" | "table" | "tbody" | "tr" | "td" | "center"
    )
}

pub(super) fn name(n: NodeRef<'_, Node>) -> &str {
    n.value().as_element().map_or("", |e| e.name())
}

/// Characters of a text node as whitespace-normalised text would count them.
fn text_chars(s: &str) -> usize {
    s.split_whitespace().map(|w| w.chars().count() + 1).sum()
}

/// Every text of `n`, whitespace-normalised (hidden text included: for the head's elements).
pub(super) fn node_text(n: NodeRef<'_, Node>) -> String {
    let mut s = String::new();
    for d in n.descendants() {
        if let Node::Text(t) = d.value() {
            s.push_str(t);
            s.push(' ');
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn find<'a>(root: NodeRef<'a, Node>, tag: &str) -> Option<NodeRef<'a, Node>> {
    root.descendants().find(|n| name(*n) == tag)
}

/// From `<body>`, into the child holding most of the text while one does.
fn descend<'a>(
    page: &Page<'a>,
    stats: &HashMap<NodeId, Stats>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> NodeRef<'a, Node> {
    let text = |n: NodeRef<'_, Node>| stats.get(&n.id()).map_or(0, |s| s.text);
    let mut node = page.body;
    loop {
        let total = text(node);
        let next = node
            .children()
            .filter(|c| c.value().is_element() && !page.is_hidden(*c) && !furniture(*c))
            .max_by_key(|c| text(*c))
            .filter(|c| is_container(name(*c)));
        match next {
            Some(c) if total > 0 && text(c) * 10 >= total * 6 => node = c,
            _ => return node,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_alone(html: &str) -> Reading {
        read_html(
            html,
            &Url::parse("http://f/category/1/news").expect("a URL"),
        )
    }

    #[test]
    fn whole_posts_under_linked_titles_are_a_list() {
        let post = |n: u32| {
            format!(
                "<div class=\"post\"><h2><a href=\"/post-{n}/\">Post {n}</a></h2><p>{}</p></div>",
                "A long walk by the river, told at length with every bird seen. ".repeat(15)
            )
        };
        let page: String = (1..=3).map(post).collect();
        let list = read_alone(&format!("<html><body><main>{page}</main></body></html>"));
        assert_eq!(list.kind, Some(LevelKind::Intermediate));
        // One post under its own linked title is not a list.
        let one = read_alone(&format!(
            "<html><body><main>{}</main></body></html>",
            post(1)
        ));
        assert_eq!(one.kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn whole_posts_under_linked_titles_drawn_as_divs_are_a_list_and_comments_are_not() {
        let text = "A long walk by the river, told at length with every bird seen. ".repeat(15);
        let entry = |title: &str| {
            format!(
                "<div class=\"entry\"><div class=\"title\">{title}</div>\
                 <div class=\"date\">28th June 2023</div><div class=\"body\"><p>{text}</p></div></div>"
            )
        };
        let linked: String = (1..=3)
            .map(|n| entry(&format!("<a href=\"Post_{n}.html\">Post {n}</a>")))
            .collect();
        let list = read_alone(&format!("<html><body>{linked}</body></html>"));
        assert_eq!(list.kind, Some(LevelKind::Intermediate));
        // A post and its comments, drawn alike, with titles that link nowhere.
        let post: String = ["Post 1", "Ann", "Bruno"]
            .iter()
            .map(|t| entry(t))
            .collect();
        let one = read_alone(&format!("<html><body>{post}</body></html>"));
        assert_eq!(one.kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn posts_laid_flat_under_linked_titles_are_a_list_and_related_posts_are_not() {
        let excerpt = "A long walk by the river, told with every bird seen on the way. ".repeat(4);
        let entry = |n: u32| {
            format!(
                "<h2><a href=\"/post-{n}/\">Post {n}</a></h2><h6>Posted by ann</h6><p>{excerpt}</p>"
            )
        };
        let flat: String = (1..=3).map(entry).collect();
        let list = read_alone(&format!("<html><body><div>{flat}</div></body></html>"));
        assert_eq!(list.kind, Some(LevelKind::Intermediate));
        // A post with three related posts under linked headings is still the post.
        let related: String = (1..=3)
            .map(|n| format!("<h3><a href=\"/post-{n}/\">Post {n}</a></h3><p>A short teaser.</p>"))
            .collect();
        let post = read_alone(&format!(
            "<html><body><div><h1>Heron</h1><p>{}</p>{related}</div></body></html>",
            excerpt.repeat(4)
        ));
        assert_eq!(post.kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn a_short_message_with_its_neighbours_and_replies_is_one_item() {
        // A mailing-list archive's message: a few lines, links to the previous and next
        // messages, and its replies listed under a "Follow-Ups" entry.
        let re = |n: u32| {
            format!("<li><strong><a href=\"msg{n}.html\">Re: Heron at dusk</a></strong></li>")
        };
        let page = format!(
            "<html><body><h1>Heron at dusk</h1><ul><li>From: Ann &lt;<a href=\"mailto:a@x\">a@x</a>&gt;</li>\
             <li>Date: 2 March 2023</li></ul><pre>We saw the heron at dusk by the weir, standing \
             still in the shallows while the light went.</pre><ul><li><strong>Follow-Ups</strong>:\
             <ul>{}{}</ul></li></ul><ul><li>Prev by Date: <a href=\"msg1.html\">Weir</a></li>\
             <li>Next by Date: <a href=\"msg3.html\">Re: Weir</a></li><li>Next by thread: \
             <a href=\"msg3.html\">Re: Weir</a></li></ul></body></html>",
            re(4),
            re(5)
        );
        let r = read_html(&page, &Url::parse("http://l/msg2.html").expect("a URL"));
        assert_eq!(r.kind, Some(LevelKind::Terminal));
        assert_eq!(r.title.as_deref(), Some("Heron at dusk"));
    }

    #[test]
    fn a_declared_list_is_a_list_even_when_empty() {
        let intro = "A forum for the news of the club, where members post what happens. ".repeat(4);
        let page = |list: &str| {
            format!("<html><body><main><h1>News</h1><p>{intro}</p>{list}</main></body></html>")
        };
        let declared = read_alone(&page(
            r#"<ul itemscope itemtype="http://www.schema.org/ItemList"></ul>"#,
        ));
        assert_eq!(declared.kind, Some(LevelKind::Intermediate));
        let plain = read_alone(&page("<ul></ul>"));
        assert_eq!(plain.kind, Some(LevelKind::Terminal));
        // A list of related posts inside the post does not make the post a list.
        let inside = read_alone(&format!(
            "<html><body><article><h1>News</h1><p>{intro}</p>{}</article></body></html>",
            r#"<ul itemscope itemtype="https://schema.org/ItemList"></ul>"#
        ));
        assert_eq!(inside.kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn titled_articles_are_a_list_and_a_thread_of_untitled_ones_is_not() {
        let post = "The wren sang from the hedge all morning, and by noon three more had \
                    joined it along the old wall by the mill race, where the water runs fast.";
        let page = |articles: String| {
            format!(
                "<html><head><title>T</title></head><body><main><h1>Wrens</h1>\
                 <ul>{articles}</ul></main></body></html>"
            )
        };
        let thread: String = ["ann", "bob", "cat"]
            .iter()
            .map(|n| format!("<li><b>{n}</b><article><p>{post}</p></article></li>"))
            .collect();
        let reading = read_alone(&page(thread));
        assert_eq!(reading.kind, Some(LevelKind::Terminal), "{reading:?}");
        let list: String = ["heron", "wren", "owl"]
            .iter()
            .map(|n| format!("<li><article><h2>{n}</h2><p>{post}</p></article></li>"))
            .collect();
        let reading = read_alone(&page(list));
        assert_eq!(reading.kind, Some(LevelKind::Intermediate), "{reading:?}");
    }

    #[test]
    fn rows_opening_with_a_linked_name_are_a_list_and_posts_beside_authors_are_not() {
        let row = |name: &str, rest: &str| {
            format!("<tr><td><a href=\"/{name}/\">{name}</a></td><td>{rest}</td></tr>")
        };
        let table = |rows: String| {
            format!(
                "<html><head><title>T</title></head><body><main><h1>Birds</h1>\
                 <table>{rows}</table></main></body></html>"
            )
        };
        let listing: String = ["crust", "rye", "sourdough", "starter"]
            .iter()
            .map(|n| row(n, "2 years ago"))
            .collect();
        let reading = read_alone(&table(listing));
        assert_eq!(reading.kind, Some(LevelKind::Intermediate), "{reading:?}");
        let post = "The wren sang from the hedge all morning, and by noon three more had \
                    joined it along the old wall by the mill race, where the water runs fast.";
        let topic: String = ["ann", "bob", "cat"].iter().map(|n| row(n, post)).collect();
        let reading = read_alone(&table(topic));
        assert_eq!(reading.kind, Some(LevelKind::Terminal), "{reading:?}");
        // A cell of icons before the name (MoinMoin's index) does not hide it.
        let icons: String = ["heron", "kingfisher", "lapwing", "swift"]
            .iter()
            .map(|n| {
                format!(
                    "<tr><td><a href=\"/+history/{n}\"><span class=\"icon\"></span></a></td>\
                     <td><a href=\"/{n}\">{n}</a></td><td>1124</td><td>bruno</td></tr>"
                )
            })
            .collect();
        let reading = read_alone(&table(icons));
        assert_eq!(reading.kind, Some(LevelKind::Intermediate), "{reading:?}");
    }

    #[test]
    fn a_board_with_column_headers_is_a_list_however_few_its_rows() {
        let row = |name: &str| {
            format!(
                "<div class=\"row\"><div class=\"info\"><a href=\"/forum/{name}\">{name}</a>\
                 <p>Everything about {name}: notes, photos and the questions members ask of \
                 each other, and what the club found out on its walks this year.</p></div>\
                 <div>6</div><div>22</div><div>18 seconds ago</div></div>"
            )
        };
        let board = |header: &str| {
            read_alone(&format!(
                "<html><body><main><div class=\"category\">{header}{}{}</div></main></body></html>",
                row("birds"),
                row("rivers")
            ))
        };
        let headed = board(
            "<div class=\"meta row\"><div>Forum</div><div>Topics</div><div>Posts</div>\
             <div>Last Post</div></div>",
        );
        assert_eq!(headed.kind, Some(LevelKind::Intermediate), "{headed:?}");
        // Without the header, two rows of prose are no list.
        assert_eq!(board("").kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn posts_headed_by_their_authors_names_are_one_item() {
        let post = |who: &str| {
            format!(
                "<div class=\"post\"><h4><a href=\"/user/{who}\">{who}</a></h4><p>The wren \
                 sang from the hedge all morning, and by noon three more had joined it along \
                 the old wall by the mill race. We counted them again at dusk, when the light \
                 went off the water, and wrote down where each one sat.</p></div>"
            )
        };
        let page = |href: &str| {
            let posts: String = ["ann", "bob", "cat"].iter().map(|w| post(w)).collect();
            read_alone(&format!(
                "<html><body><main><div class=\"topic\">{}</div></main></body></html>",
                posts.replace("/user/", href)
            ))
        };
        assert_eq!(page("/user/").kind, Some(LevelKind::Terminal));
        // The same headings leading to content are the entries of a list.
        assert_eq!(page("/topic/").kind, Some(LevelKind::Intermediate));
    }

    #[test]
    fn names_each_followed_by_its_description_are_a_list_and_bylines_with_comments_are_not() {
        let page = |pairs: String| {
            read_alone(&format!(
                "<html><body><main><h1>Package birds</h1><p>Birds: notes on the heron and \
                 others.</p><div class=\"grid\">{pairs}</div></main></body></html>"
            ))
        };
        let describe = "Nobody agrees on why the curlew at Lower Benton is called what it is, \
                        but the story is worth telling, and we tell it here at some length.";
        let cell = |href: &str, n: &str| {
            format!(
                "<div class=\"first\"><a href=\"{href}{n}\">{n}</a></div>\
                 <div class=\"last\">{describe}</div>"
            )
        };
        let names = ["Heron", "Kingfisher", "Lapwing", "Swift"];
        let grid: String = names.iter().map(|n| cell("/birds/", n)).collect();
        assert_eq!(page(grid).kind, Some(LevelKind::Intermediate));
        // The same text after its author's name is a comment, however many there are.
        let comments: String = names.iter().map(|n| cell("/users/", n)).collect();
        assert_eq!(page(comments).kind, Some(LevelKind::Terminal));
        // Two pairs are a post's meta lines, not a list.
        let two: String = names[..2].iter().map(|n| cell("/birds/", n)).collect();
        assert_eq!(page(two).kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn rows_whose_first_words_are_a_link_classed_a_title_are_a_list() {
        let row = |class: &str, n: u32| {
            format!(
                "<div class=\"thread\"><div><img src=\"/a.png\"><a class=\"{class}\" \
                 href=\"/thread/{n}/\">Question about the lapwing #{n}</a><span>by Ann</span>\
                 <span>Anyone who walks to Harwick on a windy morning will notice how the \
                 wren changes with the season, and our notes list seventeen visits.</span>\
                 </div></div>"
            )
        };
        let page = |class: &str| {
            let rows: String = (1..=3).map(|n| row(class, n)).collect();
            read_alone(&format!("<html><body><main>{rows}</main></body></html>"))
        };
        assert_eq!(page("thread-title").kind, Some(LevelKind::Intermediate));
        assert_eq!(page("thread-link").kind, Some(LevelKind::Terminal));
    }

    #[test]
    fn a_heading_of_the_title_s_words_holding_its_longest_part_is_the_title() {
        let reading = read_alone(
            "<html><head><title>Re: [Birds] Question about the lapwing at dusk - Birds - Field \
             Notes Lists</title></head><body><div class=\"top\"><h1>Re: [Birds] Question about \
             the lapwing at dusk</h1></div><main><p>We compared two maps from 1917 and found \
             the lapwing drawn in a different place on each, and the mill race too, which \
             nobody could explain until the miller's notes turned up.</p></main></body></html>",
        );
        assert_eq!(
            reading.title.as_deref(),
            Some("Re: [Birds] Question about the lapwing at dusk"),
            "{reading:?}"
        );
    }
}
