//! RSS feeds, the REST API and oEmbed documents, robots.txt and sitemaps.

use super::*;

/// RSS 2.0 of `posts` (at most 10, full content), as WordPress's `/feed/` family emits.
pub(super) fn rss(base: &str, title: &str, self_url: &str, posts: &[&Post]) -> String {
    let mut items = String::new();
    for p in posts.iter().take(10) {
        let url = permalink(base, p);
        let content: String = p.text.iter().map(|t| format!("<p>{t}</p>\n")).collect();
        items.push_str(&format!(
            "\t<item>\n\t\t<title>{t}</title>\n\t\t<link>{url}</link>\n\t\t<comments>{url}#comments</comments>\n\t\t<dc:creator><![CDATA[{a}]]></dc:creator>\n\t\t<pubDate>Tue, {d:02} {m} 2024 09:21:04 +0000</pubDate>\n\t\t<category><![CDATA[{c}]]></category>\n\t\t<guid isPermaLink=\"false\">{base}/?p={id}</guid>\n\t\t<description><![CDATA[{desc} [&#8230;]]]></description>\n\t\t<content:encoded><![CDATA[{content}]]></content:encoded>\n\t\t<wfw:commentRss>{url}feed/</wfw:commentRss>\n\t\t<slash:comments>{n}</slash:comments>\n\t</item>\n",
            t = p.title,
            a = AUTHORS[p.author].2,
            d = p.date.1,
            m = if p.date.0 == 4 { "Apr" } else { "May" },
            c = CATEGORIES[p.cat].2,
            id = p.id,
            desc = p.text[0],
            n = p.comments,
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"\n\txmlns:content=\"http://purl.org/rss/1.0/modules/content/\"\n\txmlns:wfw=\"http://wellformedweb.org/CommentAPI/\"\n\txmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n\txmlns:atom=\"http://www.w3.org/2005/Atom\"\n\txmlns:sy=\"http://purl.org/rss/1.0/modules/syndication/\"\n\txmlns:slash=\"http://purl.org/rss/1.0/modules/slash/\"\n\t>\n\n<channel>\n\t<title>{title}</title>\n\t<atom:link href=\"{self_url}\" rel=\"self\" type=\"application/rss+xml\" />\n\t<link>{base}</link>\n\t<description></description>\n\t<lastBuildDate>Thu, 30 May 2024 09:21:04 +0000</lastBuildDate>\n\t<language>en-US</language>\n\t<sy:updatePeriod>\n\thourly\t</sy:updatePeriod>\n\t<sy:updateFrequency>\n\t1\t</sy:updateFrequency>\n\t<generator>https://wordpress.org/?v=6.7.1</generator>\n{items}\t</channel>\n</rss>\n"
    )
}

/// RSS 2.0 of the comments of `posts` (at most 10 comments).
pub(super) fn comments_rss(base: &str, title: &str, self_url: &str, posts: &[&Post]) -> String {
    let mut items = String::new();
    for p in posts {
        for c in 0..p.comments {
            let cid = p.id as usize * 100 + c;
            let url = permalink(base, p);
            items.push_str(&format!(
                "\t<item>\n\t\t<title>Comment on {t}</title>\n\t\t<link>{url}#comment-{cid}</link>\n\t\t<dc:creator><![CDATA[{who}]]></dc:creator>\n\t\t<pubDate>Tue, {d:02} May 2024 09:{c:02}:00 +0000</pubDate>\n\t\t<guid isPermaLink=\"false\">{base}/?p={id}#comment-{cid}</guid>\n\t\t<description><![CDATA[{text}]]></description>\n\t\t<content:encoded><![CDATA[<p>{text}</p>\n]]></content:encoded>\n\t</item>\n",
                t = p.title,
                who = COMMENTERS[(rnd(cid as u64) % COMMENTERS.len() as u64) as usize],
                d = p.date.1,
                id = p.id,
                text = prose(cid as u64 + 11, 15 + (rnd(cid as u64) % 40) as usize),
            ));
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"\n\txmlns:content=\"http://purl.org/rss/1.0/modules/content/\"\n\txmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n\txmlns:atom=\"http://www.w3.org/2005/Atom\"\n\txmlns:sy=\"http://purl.org/rss/1.0/modules/syndication/\"\n\t>\n<channel>\n\t<title>{title}</title>\n\t<atom:link href=\"{self_url}\" rel=\"self\" type=\"application/rss+xml\" />\n\t<link>{base}</link>\n\t<description></description>\n\t<lastBuildDate>Thu, 30 May 2024 09:21:04 +0000</lastBuildDate>\n\t<sy:updatePeriod>\n\thourly\t</sy:updatePeriod>\n\t<sy:updateFrequency>\n\t1\t</sy:updateFrequency>\n\t<generator>https://wordpress.org/?v=6.7.1</generator>\n{items}</channel>\n</rss>\n"
    )
}

/// The REST API document of a post, in the shape of `/wp-json/wp/v2/posts/ID`.
pub(super) fn post_json(base: &str, p: &Post) -> String {
    let url = permalink(base, p);
    let content: String = p.text.iter().map(|t| format!("<p>{t}</p>\\n")).collect();
    json!({
        "id": p.id, "date": iso(p).trim_end_matches("+00:00"), "date_gmt": iso(p).trim_end_matches("+00:00"),
        "guid": {"rendered": format!("{base}/?p={}", p.id)},
        "modified": iso(p).trim_end_matches("+00:00"), "modified_gmt": iso(p).trim_end_matches("+00:00"),
        "slug": p.slug, "status": "publish", "type": "post", "link": url,
        "title": {"rendered": p.title},
        "content": {"rendered": content, "protected": false},
        "excerpt": {"rendered": format!("<p>{} [&hellip;]</p>\\n", p.text[0]), "protected": false},
        "author": AUTHORS[p.author].0, "featured_media": 0, "comment_status": "open", "ping_status": "open",
        "sticky": false, "template": "", "format": "standard", "meta": {"footnotes": ""},
        "categories": [CATEGORIES[p.cat].0], "tags": p.tags.iter().map(|&t| TAGS[t].0).collect::<Vec<_>>(),
        "class_list": [format!("post-{}", p.id), "post", "type-post", "status-publish", "format-standard", "hentry"],
        "_links": {
            "self": [{"href": format!("{base}/wp-json/wp/v2/posts/{}", p.id), "targetHints": {"allow": ["GET"]}}],
            "collection": [{"href": format!("{base}/wp-json/wp/v2/posts")}],
            "about": [{"href": format!("{base}/wp-json/wp/v2/types/post")}],
            "author": [{"embeddable": true, "href": format!("{base}/wp-json/wp/v2/users/{}", AUTHORS[p.author].0)}],
            "replies": [{"embeddable": true, "href": format!("{base}/wp-json/wp/v2/comments?post={}", p.id)}],
            "version-history": [{"count": 0, "href": format!("{base}/wp-json/wp/v2/posts/{}/revisions", p.id)}],
            "wp:attachment": [{"href": format!("{base}/wp-json/wp/v2/media?parent={}", p.id)}],
            "wp:term": [
                {"taxonomy": "category", "embeddable": true, "href": format!("{base}/wp-json/wp/v2/categories?post={}", p.id)},
                {"taxonomy": "post_tag", "embeddable": true, "href": format!("{base}/wp-json/wp/v2/tags?post={}", p.id)}
            ],
            "curies": [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": true}]
        }
    })
    .to_string()
}

/// `/wp-json/`: the API index. A real one lists every route with its arguments and is
/// far larger (hundreds of KB); this lists the core namespaces and routes only.
pub(super) fn api_index(base: &str) -> String {
    let routes: Vec<&str> = vec![
        "/",
        "/batch/v1",
        "/oembed/1.0",
        "/oembed/1.0/embed",
        "/oembed/1.0/proxy",
        "/wp/v2",
        "/wp/v2/posts",
        "/wp/v2/posts/(?P<id>[\\d]+)",
        "/wp/v2/posts/(?P<parent>[\\d]+)/revisions",
        "/wp/v2/pages",
        "/wp/v2/pages/(?P<id>[\\d]+)",
        "/wp/v2/media",
        "/wp/v2/media/(?P<id>[\\d]+)",
        "/wp/v2/menu-items",
        "/wp/v2/blocks",
        "/wp/v2/templates",
        "/wp/v2/template-parts",
        "/wp/v2/global-styles/(?P<id>[\\/\\w-]+)",
        "/wp/v2/navigation",
        "/wp/v2/font-families",
        "/wp/v2/types",
        "/wp/v2/types/(?P<type>[\\w-]+)",
        "/wp/v2/statuses",
        "/wp/v2/taxonomies",
        "/wp/v2/categories",
        "/wp/v2/categories/(?P<id>[\\d]+)",
        "/wp/v2/tags",
        "/wp/v2/tags/(?P<id>[\\d]+)",
        "/wp/v2/users",
        "/wp/v2/users/(?P<id>[\\d]+)",
        "/wp/v2/users/me",
        "/wp/v2/comments",
        "/wp/v2/comments/(?P<id>[\\d]+)",
        "/wp/v2/search",
        "/wp/v2/block-renderer/(?P<name>[a-z0-9-]+/[a-z0-9-]+)",
        "/wp/v2/block-types",
        "/wp/v2/settings",
        "/wp/v2/themes",
        "/wp/v2/plugins",
        "/wp/v2/sidebars",
        "/wp/v2/widget-types",
        "/wp/v2/widgets",
        "/wp/v2/block-directory/search",
        "/wp/v2/pattern-directory/patterns",
        "/wp/v2/block-patterns/patterns",
        "/wp/v2/block-patterns/categories",
        "/wp-site-health/v1",
        "/wp/v2/wp_pattern_category",
        "/wp-block-editor/v1/url-details",
        "/wp/v2/menu-locations",
    ];
    let mut r = serde_json::Map::new();
    for route in routes {
        r.insert(
            route.to_string(),
            json!({
                "namespace": if route.starts_with("/wp/v2") { "wp/v2" } else { "" },
                "methods": ["GET"],
                "endpoints": [{"methods": ["GET"], "args": {
                    "context": {"description": "Scope under which the request is made; determines fields present in response.", "type": "string", "enum": ["view", "embed", "edit"], "default": "view", "required": false},
                    "page": {"description": "Current page of the collection.", "type": "integer", "default": 1, "minimum": 1, "required": false},
                    "per_page": {"description": "Maximum number of items to be returned in result set.", "type": "integer", "default": 10, "minimum": 1, "maximum": 100, "required": false}
                }}],
                "_links": {"self": [{"href": format!("{base}/wp-json{route}")}]}
            }),
        );
    }
    json!({
        "name": "Field Notes", "description": "", "url": base, "home": base, "gmt_offset": "0",
        "timezone_string": "", "page_for_posts": 0, "page_on_front": 0, "show_on_front": "posts",
        "namespaces": ["oembed/1.0", "wp/v2", "wp-site-health/v1", "wp-block-editor/v1"],
        "authentication": [], "routes": r,
        "site_logo": 0, "site_icon": 0, "site_icon_url": "",
        "_links": {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]}
    })
    .to_string()
}

pub(super) fn oembed(base: &str, p: &Post, xml: bool) -> (String, &'static str) {
    let url = permalink(base, p);
    let html = format!("<blockquote class=\"wp-embedded-content\" data-secret=\"Xb3kQ9LmZp\"><a href=\"{url}\">{t}</a></blockquote><iframe sandbox=\"allow-scripts\" security=\"restricted\" src=\"{url}embed/#?secret=Xb3kQ9LmZp\" width=\"500\" height=\"282\" title=\"&#8220;{t}&#8221; &#8212; Field Notes\" data-secret=\"Xb3kQ9LmZp\" frameborder=\"0\" marginwidth=\"0\" marginheight=\"0\" scrolling=\"no\" class=\"wp-embedded-content\"></iframe><script>\n/*! This file is auto-generated */\n!function(d,l){{\"use strict\";l.querySelector&&d.addEventListener&&\"undefined\"!=typeof URL&&(d.wp=d.wp||{{}},d.wp.receiveEmbedMessage||(d.wp.receiveEmbedMessage=function(e){{var t=e.data;if((t||t.secret||t.message||t.value)&&!/[^a-zA-Z0-9]/.test(t.secret)){{for(var s,r,n,a=l.querySelectorAll('iframe[data-secret=\"'+t.secret+'\"]'),o=l.querySelectorAll('blockquote[data-secret=\"'+t.secret+'\"]'),c=new RegExp(\"^https?:$\",\"i\"),i=0;i<o.length;i++)o[i].style.display=\"none\";}}}},d.addEventListener(\"message\",d.wp.receiveEmbedMessage,!1)))}}(window,document);\n</script>", t = p.title);
    if xml {
        (
            format!("<?xml version=\"1.0\"?>\n<oembed><version>1.0</version><provider_name>Field Notes</provider_name><provider_url>{base}</provider_url><author_name>{}</author_name><author_url>{base}/author/{}/</author_url><title>{}</title><type>rich</type><width>600</width><height>338</height><html>{}</html></oembed>\n", AUTHORS[p.author].2, AUTHORS[p.author].1, p.title, html.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")),
            "text/xml; charset=UTF-8",
        )
    } else {
        (
            json!({"version": "1.0", "provider_name": "Field Notes", "provider_url": base,
                   "author_name": AUTHORS[p.author].2, "author_url": format!("{base}/author/{}/", AUTHORS[p.author].1),
                   "title": p.title, "type": "rich", "width": 600, "height": 338, "html": html})
            .to_string(),
            "application/json; charset=UTF-8",
        )
    }
}

pub(super) fn robots(base: &str) -> String {
    format!("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: {base}/wp-sitemap.xml\n")
}

pub(super) fn urlset(urls: &[String]) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?xml-stylesheet type=\"text/xsl\" href=\"/wp-sitemap.xsl\" ?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for u in urls {
        s.push_str(&format!("<url><loc>{u}</loc></url>"));
    }
    s.push_str("</urlset>\n");
    s
}
