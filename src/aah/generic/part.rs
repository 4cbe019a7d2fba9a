//! What names a page's part of its host: the menu item its navigation marks current, when that
//! names a category, or else its URL's first path segment. A host can hold several kinds of
//! site side by side (Docusaurus' `/blog/` and `/docs/`, Redmine's news, forums and wiki); the
//! host's model sums evidence per part (`HostModel::section_category`).

use super::name;
use super::page::Page;
use crate::aah::kb::Category;

/// The category a path segment or a menu item names as a whole (`blog`, `docs`, `forum`,
/// a menu's `News` or `Forums`), if it names one.
pub(super) fn category_named(segment: &str) -> Option<Category> {
    super::evidence::CATEGORY_PATHS
        .iter()
        .find(|(_, re)| {
            re.find(segment)
                .is_some_and(|m| m.as_str().len() == segment.len())
        })
        .map(|(c, _)| *c)
        .or_else(|| {
            MENU_WORDS
                .iter()
                .find(|(w, _)| *w == segment)
                .map(|(_, c)| *c)
        })
}

/// Names of a section (a menu item or a path segment) that name a category beyond the path
/// words: a project tool's `News` and `Boards`, a site's `Discussions`.
const MENU_WORDS: [(&str, Category); 5] = [
    ("news", Category::News),
    ("board", Category::Forum),
    ("boards", Category::Forum),
    ("discussion", Category::Forum),
    ("discussions", Category::Forum),
];

/// Class tokens by which menus mark the item of the page's own part (`selected`, Bootstrap's
/// `active`, WordPress' `current-menu-item`, BEM's `navbar__link--active`).
fn marks_current(class: &str) -> bool {
    class.split_whitespace().any(|c| {
        matches!(c, "selected" | "active" | "current" | "is-active")
            || c.starts_with("current-menu")
            || c.ends_with("--active")
            || c.ends_with("-active")
            || c.ends_with("_active")
    })
}

/// The page's part of its site as its navigation marks it: the lowercased text of a link that
/// is marked current (by its class, its list item's, or `aria-current`) and names a category
/// ("News", "Forums", "Wiki"). Redmine's project menu marks its modules so; their URLs
/// (`/news/26`, `/projects/x/news`, `/boards/2/topics/23`) share no first segment.
pub(super) fn current(page: &Page<'_>) -> Option<String> {
    page.body
        .descendants()
        .filter(|n| name(*n) == "a" && !page.is_hidden(*n))
        .take(5_000)
        .filter(|a| {
            let e = a.value().as_element();
            let own = e.is_some_and(|e| {
                e.attr("aria-current").is_some_and(|v| v != "false")
                    || e.attr("class").is_some_and(marks_current)
            });
            let item = a
                .parent()
                .and_then(|p| p.value().as_element())
                .is_some_and(|p| p.name() == "li" && p.attr("class").is_some_and(marks_current));
            own || item
        })
        .map(|a| page.text(a).trim().to_lowercase())
        .find(|t| t.len() <= 24 && category_named(t).is_some())
}

/// The section of a page: the part its navigation marks current when that names a category
/// ([`current`]), else its URL's first path segment, if it is a folder
/// (`/blog/post-1` and the section's own index `/blog/` are in `blog`; `/about` and `/` are
/// in none).
pub(super) fn section(url: &url::Url, current: Option<&str>) -> Option<String> {
    if let Some(part) = current {
        return Some(part.to_owned());
    }
    let (first, _) = url.path().trim_start_matches('/').split_once('/')?;
    (!first.is_empty()).then(|| first.to_ascii_lowercase())
}
