//! The WordPress blog: its posts, comments and authors, and what it serves for each target.

mod feeds;
mod pages;

use super::*;
use feeds::*;
use pages::*;

pub const PER_PAGE: usize = 10;
pub const CATEGORIES: &[(u32, &str, &str)] = &[
    (1, "uncategorized", "Uncategorized"),
    (3, "travel", "Travel"),
    (4, "birds", "Birds"),
    (5, "gear", "Gear"),
];
pub const TAGS: &[(u32, &str)] = &[
    (6, "archives"),
    (7, "herons"),
    (8, "wetlands"),
    (9, "photography"),
    (10, "surveys"),
    (11, "spring"),
];
pub const AUTHORS: &[(u32, &str, &str)] = &[(1, "admin", "admin"), (2, "mara", "Mara Fenwick")];
pub const COMMENTERS: &[&str] = &[
    "A WordPress Commenter",
    "Jo Reed",
    "Pat Marsh",
    "heronfan",
    "Sam Tern",
    "Lou Kite",
];

pub struct Post {
    pub id: u32,
    pub slug: String,
    pub title: String,
    /// (month, day)
    pub date: (u32, u32),
    pub cat: usize,
    pub tags: [usize; 2],
    pub author: usize,
    pub comments: usize,
    pub text: Vec<String>,
}

pub struct Blog {
    /// Newest first.
    pub posts: Vec<Post>,
}

const TITLES: &[&str] = &[
    "Hello world!",
    "Field day",
    "Herons at dawn",
    "The reedbed survey",
    "A bittern at last",
    "New binoculars",
    "Egrets on the estuary",
    "Spring colony count",
    "Rain on the marsh",
    "Notes from the hide",
    "Ringing day",
    "Lapwings and herons",
    "A quiet canal",
    "The night heron roost",
    "Scope or camera?",
    "Counting nests",
    "Fen walk",
    "Juveniles on the wing",
    "Tide tables for birders",
    "Light in the reeds",
    "Grey herons fishing",
    "A week of surveys",
    "Photographing egrets",
    "Wetland weekend",
    "Heron behaviour",
    "Back to the lock",
    "The long wait",
    "Three bitterns",
    "Mud and patience",
    "Season's end",
];

impl Blog {
    pub fn new() -> Blog {
        let mut posts = Vec::new();
        for (i, title) in TITLES.iter().enumerate() {
            // Oldest first: ids 1.., dates spread over April and May 2024, 1-2 days apart.
            let id = (i + 1) as u32;
            let day_index = i as u32 * 2 - (i as u32 % 3).min(i as u32 * 2);
            let (month, day) = if day_index < 30 {
                (4, 1 + day_index)
            } else {
                (5, 1 + day_index - 30)
            };
            let title = title.to_string();
            let slug: String = title
                .to_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect::<String>()
                .split('-')
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let s = id as u64 * 31;
            posts.push(Post {
                id,
                slug,
                title,
                date: (month, day.min(31)),
                cat: if i == 0 {
                    0
                } else {
                    (rnd(s) % CATEGORIES.len() as u64) as usize
                },
                tags: [(rnd(s + 1) % 6) as usize, (rnd(s + 2) % 6) as usize],
                author: (rnd(s + 3) % 2) as usize,
                comments: if i == 0 { 2 } else { (rnd(s + 4) % 9) as usize },
                text: (0..3 + rnd(s + 5) % 4)
                    .map(|k| prose(s * 10 + k, 40 + (rnd(s + k) % 60) as usize))
                    .collect(),
            });
        }
        posts.reverse();
        Blog { posts }
    }

    pub fn terminal_keys(&self) -> BTreeSet<String> {
        let mut k: BTreeSet<String> = self.posts.iter().map(|p| p.slug.clone()).collect();
        k.insert("about".into());
        k
    }
}

pub fn permalink(base: &str, p: &Post) -> String {
    format!("{base}/2024/{:02}/{:02}/{}/", p.date.0, p.date.1, p.slug)
}

fn iso(p: &Post) -> String {
    format!("2024-{:02}-{:02}T09:21:04+00:00", p.date.0, p.date.1)
}

fn human(p: &Post) -> String {
    let m = if p.date.0 == 4 { "April" } else { "May" };
    format!("{m} {}, 2024", p.date.1)
}

fn month_name(m: u32) -> &'static str {
    if m == 4 {
        "April"
    } else {
        "May"
    }
}

/// Serves `target` on the blog whose absolute base URL is `base`.
pub fn serve(b: &Blog, base: &str, target: &str) -> Served {
    let html = "text/html; charset=UTF-8";
    let q = query(target);
    let path = path_of(target);
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let all: Vec<&Post> = b.posts.iter().collect();
    let listing_or_404 = |class: &'static str, r: Option<String>| match r {
        Some(body) => served(class, None, html, body),
        None => missing(),
    };
    let page_no = |rest: &[&str]| -> Option<usize> {
        match rest {
            [] => Some(1),
            ["page", n] => n.parse().ok(),
            _ => None,
        }
    };
    let feed_class = "feeds";
    match segs.as_slice() {
        [] if q.is_empty() => listing_or_404("listings (home, archives)", listing(b, base, "Blog", "home blog", "", &all, 1, "/")),
        [] => match q.get("p").and_then(|p| p.parse::<u32>().ok()) {
            Some(2) => redirect("shortlinks (301)", format!("{base}/about/")),
            Some(id) => match b.posts.iter().find(|p| p.id == id) {
                Some(p) => redirect("shortlinks (301)", permalink(base, p)),
                None => missing(),
            },
            None => missing(),
        },
        ["page", n] => listing_or_404("listings (home, archives)", listing(b, base, "Blog", "home blog paged", "", &all, n.parse().unwrap_or(0), "/")),
        ["robots.txt"] => served("robots.txt, sitemaps", None, "text/plain; charset=utf-8", robots(base)),
        ["wp-sitemap.xml"] => {
            let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?xml-stylesheet type=\"text/xsl\" href=\"/wp-sitemap-index.xsl\" ?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
            for m in ["posts-post-1", "posts-page-1", "taxonomies-category-1", "taxonomies-post_tag-1", "users-1"] {
                s.push_str(&format!("<sitemap><loc>{base}/wp-sitemap-{m}.xml</loc></sitemap>"));
            }
            s.push_str("</sitemapindex>\n");
            served("robots.txt, sitemaps", None, "application/xml; charset=UTF-8", s)
        }
        [f] if f.starts_with("wp-sitemap-") && f.ends_with(".xml") => {
            let urls: Vec<String> = match *f {
                "wp-sitemap-posts-post-1.xml" => all.iter().map(|p| permalink(base, p)).collect(),
                "wp-sitemap-posts-page-1.xml" => vec![format!("{base}/about/")],
                "wp-sitemap-taxonomies-category-1.xml" => CATEGORIES.iter().map(|c| format!("{base}/category/{}/", c.1)).collect(),
                "wp-sitemap-taxonomies-post_tag-1.xml" => TAGS.iter().filter(|t| all.iter().any(|p| p.tags.iter().any(|&x| TAGS[x].0 == t.0))).map(|t| format!("{base}/tag/{}/", t.1)).collect(),
                "wp-sitemap-users-1.xml" => AUTHORS.iter().map(|a| format!("{base}/author/{}/", a.1)).collect(),
                _ => return missing(),
            };
            served("robots.txt, sitemaps", None, "application/xml; charset=UTF-8", urlset(&urls))
        }
        ["about"] => served("posts and pages", Some("about".into()), html, about(b, base)),
        ["feed"] => served(feed_class, None, "application/rss+xml; charset=UTF-8", rss(base, "Field Notes", &format!("{base}/feed/"), &all)),
        ["comments", "feed"] => served(feed_class, None, "application/rss+xml; charset=UTF-8", comments_rss(base, "Comments for Field Notes", &format!("{base}/comments/feed/"), &all)),
        ["xmlrpc.php"] => served(
            "REST API, oEmbed, RSD",
            None,
            "application/rsd+xml; charset=UTF-8",
            format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><rsd version=\"1.0\" xmlns=\"http://archipelago.phraseapp.com/rsd\">\n\t<service>\n\t\t<engineName>WordPress</engineName>\n\t\t<engineLink>https://wordpress.org/</engineLink>\n\t\t<homePageLink>{base}</homePageLink>\n\t\t<apis>\n\t\t\t<api name=\"WordPress\" blogID=\"1\" preferred=\"true\" apiLink=\"{base}/xmlrpc.php\" />\n\t\t\t<api name=\"Movable Type\" blogID=\"1\" preferred=\"false\" apiLink=\"{base}/xmlrpc.php\" />\n\t\t\t<api name=\"MetaWeblog\" blogID=\"1\" preferred=\"false\" apiLink=\"{base}/xmlrpc.php\" />\n\t\t\t<api name=\"Blogger\" blogID=\"1\" preferred=\"false\" apiLink=\"{base}/xmlrpc.php\" />\n\t\t\t\t<api name=\"WP-API\" blogID=\"1\" preferred=\"false\" apiLink=\"{base}/wp-json/\" />\n\t\t\t</apis>\n\t</service>\n</rsd>\n"),
        ),
        ["wp-json"] => served("REST API, oEmbed, RSD", None, "application/json; charset=UTF-8", api_index(base)),
        ["wp-json", "wp", "v2", kind, id] => {
            let id: u32 = id.parse().unwrap_or(0);
            let body = match *kind {
                "posts" => b.posts.iter().find(|p| p.id == id).map(|p| post_json(base, p)),
                "pages" if id == 2 => Some(json!({"id": 2, "slug": "about", "type": "page", "link": format!("{base}/about/"), "title": {"rendered": "About"}, "content": {"rendered": format!("<p>{}</p>", prose(9001, 80))}}).to_string()),
                "categories" => CATEGORIES.iter().find(|c| c.0 == id).map(|c| json!({"id": c.0, "count": all.iter().filter(|p| CATEGORIES[p.cat].0 == c.0).count(), "description": "", "link": format!("{base}/category/{}/", c.1), "name": c.2, "slug": c.1, "taxonomy": "category", "parent": 0, "meta": [], "_links": {"self": [{"href": format!("{base}/wp-json/wp/v2/categories/{}", c.0)}], "collection": [{"href": format!("{base}/wp-json/wp/v2/categories")}], "wp:post_type": [{"href": format!("{base}/wp-json/wp/v2/posts?categories={}", c.0)}]}}).to_string()),
                "tags" => TAGS.iter().find(|t| t.0 == id).map(|t| json!({"id": t.0, "description": "", "link": format!("{base}/tag/{}/", t.1), "name": t.1, "slug": t.1, "taxonomy": "post_tag", "meta": [], "_links": {"self": [{"href": format!("{base}/wp-json/wp/v2/tags/{}", t.0)}]}}).to_string()),
                "users" => AUTHORS.iter().find(|a| a.0 == id).map(|a| json!({"id": a.0, "name": a.2, "url": "", "description": "", "link": format!("{base}/author/{}/", a.1), "slug": a.1, "avatar_urls": {"24": "https://secure.gravatar.com/avatar/0?s=24&d=mm&r=g", "48": "https://secure.gravatar.com/avatar/0?s=48&d=mm&r=g", "96": "https://secure.gravatar.com/avatar/0?s=96&d=mm&r=g"}, "meta": [], "_links": {"self": [{"href": format!("{base}/wp-json/wp/v2/users/{}", a.0)}]}}).to_string()),
                _ => None,
            };
            match body {
                Some(body) => served("REST API, oEmbed, RSD", None, "application/json; charset=UTF-8", body),
                None => missing(),
            }
        }
        ["wp-json", "oembed", "1.0", "embed"] => {
            let url = q.get("url").cloned().unwrap_or_default().replace("%3A", ":").replace("%2F", "/");
            match b.posts.iter().find(|p| permalink(base, p) == url) {
                Some(p) => {
                    let (body, ctype) = oembed(base, p, q.get("format").map(String::as_str) == Some("xml"));
                    served("REST API, oEmbed, RSD", None, ctype, body)
                }
                None if url == format!("{base}/about/") => served("REST API, oEmbed, RSD", None, "application/json; charset=UTF-8", json!({"version": "1.0", "provider_name": "Field Notes", "title": "About", "type": "rich"}).to_string()),
                None => missing(),
            }
        }
        ["category", slug, rest @ ..] | ["tag", slug, rest @ ..] | ["author", slug, rest @ ..] => {
            let kind = segs[0];
            let (heading, class, posts, json_link): (String, String, Vec<&Post>, String) = match kind {
                "category" => match CATEGORIES.iter().find(|c| c.1 == *slug) {
                    Some(c) => (c.2.to_string(), format!("archive category category-{} category-{}", c.1, c.0), all.iter().copied().filter(|p| CATEGORIES[p.cat].0 == c.0).collect(), format!("{base}/wp-json/wp/v2/categories/{}", c.0)),
                    None => return missing(),
                },
                "tag" => match TAGS.iter().find(|t| t.1 == *slug) {
                    Some(t) => (t.1.to_string(), format!("archive tag tag-{} tag-{}", t.1, t.0), all.iter().copied().filter(|p| p.tags.iter().any(|&x| TAGS[x].0 == t.0)).collect(), format!("{base}/wp-json/wp/v2/tags/{}", t.0)),
                    None => return missing(),
                },
                _ => match AUTHORS.iter().find(|a| a.1 == *slug) {
                    Some(a) => (a.2.to_string(), format!("archive author author-{} author-{}", a.1, a.0), all.iter().copied().filter(|p| AUTHORS[p.author].0 == a.0).collect(), format!("{base}/wp-json/wp/v2/users/{}", a.0)),
                    None => return missing(),
                },
            };
            if posts.is_empty() {
                return missing();
            }
            let page_base = format!("/{kind}/{slug}/");
            if rest == ["feed"] {
                return served(feed_class, None, "application/rss+xml; charset=UTF-8", rss(base, &format!("Field Notes &#187; {heading}"), &format!("{base}{page_base}feed/"), &posts));
            }
            let Some(n) = page_no(rest) else { return missing() };
            let head = format!("<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Field Notes &raquo; {heading} Feed\" href=\"{base}{page_base}feed/\" />\n<link rel=\"alternate\" title=\"JSON\" type=\"application/json\" href=\"{json_link}\" />\n");
            listing_or_404("listings (home, archives)", listing(b, base, &heading, &class, &head, &posts, n, &page_base))
        }
        ["2024", mm, rest @ ..] => {
            let m: u32 = mm.parse().unwrap_or(0);
            match rest {
                // Month archives (the calendar's previous/next month).
                [] | ["page", _] => {
                    let posts: Vec<&Post> = all.iter().copied().filter(|p| p.date.0 == m).collect();
                    if posts.is_empty() {
                        return missing();
                    }
                    let n = page_no(rest).unwrap_or(0);
                    listing_or_404("listings (home, archives)", listing(b, base, &format!("Month: {} 2024", month_name(m)), "archive date", "", &posts, n, &format!("/2024/{mm}/")))
                }
                // Day archives (the calendar's days).
                [dd] => {
                    let d: u32 = dd.parse().unwrap_or(0);
                    let posts: Vec<&Post> = all.iter().copied().filter(|p| p.date == (m, d)).collect();
                    if posts.is_empty() {
                        return missing();
                    }
                    listing_or_404("calendar day archives", listing(b, base, &format!("Day: {} {d}, 2024", month_name(m)), "archive date", "", &posts, 1, &format!("/2024/{mm}/{dd}/")))
                }
                [dd, slug, more @ ..] => {
                    let d: u32 = dd.parse().unwrap_or(0);
                    let Some(i) = b.posts.iter().position(|p| p.date == (m, d) && p.slug == *slug) else {
                        return missing();
                    };
                    let p = &b.posts[i];
                    match more {
                        [] if q.contains_key("replytocom") => served("?replytocom= copies of posts", Some(p.slug.clone()), html, single(b, base, i)),
                        [] => served("posts and pages", Some(p.slug.clone()), html, single(b, base, i)),
                        ["feed"] => served(feed_class, None, "application/rss+xml; charset=UTF-8", comments_rss(base, &format!("Comments on: {}", p.title), &format!("{}feed/", permalink(base, p)), &[p])),
                        _ => missing(),
                    }
                }
            }
        }
        ["wp-includes", ..] | ["wp-content", ..] => {
            let ctype = if path.ends_with(".js") { "application/javascript" } else { "text/css" };
            let mut s = format!("/* {path} */\n");
            for i in 0..150 {
                s.push_str(&format!(".wp-block-{i}{{margin:0 0 {}px;padding:{}px;}}", i % 7, i % 5));
            }
            served("page requisites (CSS, JS)", None, ctype, s)
        }
        _ => missing(),
    }
}
