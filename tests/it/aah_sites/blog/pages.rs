//! The Twenty Twenty-Five page frame, listings, single posts with comments, the About page.

use super::*;

/// The document around `main`: head with feeds, REST API, RSD and generator, header with
/// the site title and page list, footer with the calendar and categories.
pub(super) fn page(
    b: &Blog,
    base: &str,
    title: &str,
    body_class: &str,
    head: &str,
    main: &str,
    calendar_month: u32,
) -> String {
    // The calendar: days of the month with posts link to their day archive.
    let mut cal = String::new();
    for p in b.posts.iter().rev().filter(|p| p.date.0 == calendar_month) {
        cal.push_str(&format!(
            "<td><a href=\"{base}/2024/{:02}/{:02}/\" aria-label=\"Posts published on {}\">{}</a></td>",
            p.date.0, p.date.1, human(p), p.date.1
        ));
    }
    let prev = if calendar_month == 5 {
        format!("<nav aria-label=\"Previous and next months\" class=\"wp-calendar-nav\"><span class=\"wp-calendar-nav-prev\"><a href=\"{base}/2024/04/\">&laquo; Apr</a></span></nav>")
    } else {
        format!("<nav aria-label=\"Previous and next months\" class=\"wp-calendar-nav\"><span class=\"wp-calendar-nav-next\"><a href=\"{base}/2024/05/\">May &raquo;</a></span></nav>")
    };
    let mut cats = String::new();
    for &(id, slug, name) in CATEGORIES {
        cats.push_str(&format!(
            "\t<li class=\"cat-item cat-item-{id}\"><a href=\"{base}/category/{slug}/\">{name}</a></li>\n"
        ));
    }
    format!(
        r##"<!DOCTYPE html>
<html lang="en-US">
<head>
	<meta charset="UTF-8" />
	<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name='robots' content='max-image-preview:large' />
	<title>{title}</title>
<link rel="alternate" type="application/rss+xml" title="Field Notes &raquo; Feed" href="{base}/feed/" />
<link rel="alternate" type="application/rss+xml" title="Field Notes &raquo; Comments Feed" href="{base}/comments/feed/" />
{head}<link rel='stylesheet' id='wp-block-library-css' href='{base}/wp-includes/css/dist/block-library/style.min.css?ver=6.7.1' media='all' />
<link rel='stylesheet' id='twentytwentyfive-style-css' href='{base}/wp-content/themes/twentytwentyfive/style.css?ver=1.0' media='all' />
<link rel="https://api.w.org/" href="{base}/wp-json/" /><link rel="EditURI" type="application/rsd+xml" title="RSD" href="{base}/xmlrpc.php?rsd" />
<meta name="generator" content="WordPress 6.7.1" />
</head>

<body class="{body_class} logged-out wp-embed-responsive">

<div class="wp-site-blocks"><header class="wp-block-template-part">
<div class="wp-block-group alignfull is-layout-flow wp-block-group-is-layout-flow">
<div class="wp-block-group has-global-padding is-layout-constrained wp-block-group-is-layout-constrained">
<div class="wp-block-group alignwide is-content-justification-space-between is-nowrap is-layout-flex wp-container-core-group-is-layout-1 wp-block-group-is-layout-flex"><p class="wp-block-site-title"><a href="{base}" target="_self" rel="home">Field Notes</a></p>
<nav class="is-responsive items-justified-right wp-block-navigation is-content-justification-right is-layout-flex wp-container-core-navigation-is-layout-1 wp-block-navigation-is-layout-flex" aria-label=""><div class="wp-block-navigation__responsive-container"><div class="wp-block-navigation__responsive-container-content"><ul class="wp-block-page-list"><li class="wp-block-pages-list__item wp-block-navigation-item open-on-hover-click wp-block-navigation-link"><a class="wp-block-pages-list__item__link wp-block-navigation-item__content" href="{base}/about/">About</a></li></ul></div></div></nav>
</div>
</div>
</div>
</header>

{main}

<footer class="wp-block-template-part">
<div class="wp-block-group has-global-padding is-layout-constrained wp-block-group-is-layout-constrained">
<div class="wp-block-calendar"><table id="wp-calendar" class="wp-calendar-table">
	<caption>{cm} 2024</caption>
	<tbody>
	<tr>{cal}</tr>
	</tbody>
	</table>{prev}</div>
<ul class="wp-block-categories-list wp-block-categories">{cats}</ul>
<p class="has-small-font-size">Designed with <a href="https://wordpress.org" rel="nofollow">WordPress</a></p>
</div>
</footer></div>
<script type="speculationrules">
{{"prefetch":[{{"source":"document","where":{{"and":[{{"href_matches":"\/*"}},{{"not":{{"href_matches":["\/wp-*.php","\/wp-admin\/*","\/wp-content\/uploads\/*","\/wp-content\/*","\/wp-content\/plugins\/*","\/wp-content\/themes\/twentytwentyfive\/*","\/*\\?(.+)"]}}}},{{"not":{{"selector_matches":"a[rel~=\"nofollow\"]"}}}},{{"not":{{"selector_matches":".no-prefetch, .no-prefetch a"}}}}]}},"eagerness":"conservative"}}]}}
</script>
</body>
</html>
"##,
        cm = month_name(calendar_month),
    )
}

/// A list of posts (home, category, tag, author, month and day archives), paginated.
#[allow(clippy::too_many_arguments)]
pub(super) fn listing(
    b: &Blog,
    base: &str,
    heading: &str,
    body_class: &str,
    head: &str,
    posts: &[&Post],
    page_no: usize,
    page_base: &str,
) -> Option<String> {
    let pages = posts.len().div_ceil(PER_PAGE).max(1);
    if page_no == 0 || page_no > pages {
        return None;
    }
    let mut items = String::new();
    for p in posts.iter().skip((page_no - 1) * PER_PAGE).take(PER_PAGE) {
        let url = permalink(base, p);
        items.push_str(&format!(
            r##"<li class="wp-block-post post-{id} post type-post status-publish format-standard hentry category-{cat}">
<div class="wp-block-group alignfull has-global-padding is-layout-constrained wp-block-group-is-layout-constrained">
<h2 class="wp-block-post-title has-x-large-font-size"><a href="{url}" target="_self" >{title}</a></h2>
<div class="entry-content alignfull wp-block-post-content has-medium-font-size has-global-padding is-layout-constrained wp-block-post-content-is-layout-constrained"><p>{first}</p></div>
<div class="wp-block-group is-layout-flex wp-block-group-is-layout-flex"><div class="wp-block-post-date has-small-font-size"><time datetime="{iso}"><a href="{url}">{human}</a></time></div></div>
</div>
</li>"##,
            id = p.id,
            cat = CATEGORIES[p.cat].1,
            title = p.title,
            first = p.text[0],
            iso = iso(p),
            human = human(p),
        ));
    }
    let mut nav = String::new();
    if pages > 1 {
        nav.push_str("<nav class=\"alignwide wp-block-query-pagination is-content-justification-space-between is-layout-flex wp-block-query-pagination-is-layout-flex\" aria-label=\"Pagination\">\n");
        let url = |n: usize| {
            if n == 1 {
                format!("{base}{page_base}")
            } else {
                format!("{base}{page_base}page/{n}/")
            }
        };
        if page_no > 1 {
            nav.push_str(&format!("<a href=\"{}\" class=\"wp-block-query-pagination-previous\"><span class='wp-block-query-pagination-previous-arrow is-arrow-arrow' aria-hidden='true'>←</span>Previous Page</a>\n", url(page_no - 1)));
        }
        nav.push_str("<div class=\"wp-block-query-pagination-numbers\">");
        for n in 1..=pages {
            if n == page_no {
                nav.push_str(&format!(
                    "<span aria-current=\"page\" class=\"page-numbers current\">{n}</span>\n"
                ));
            } else {
                nav.push_str(&format!(
                    "<a class=\"page-numbers\" href=\"{}\">{n}</a>\n",
                    url(n)
                ));
            }
        }
        nav.push_str("</div>\n");
        if page_no < pages {
            nav.push_str(&format!("<a href=\"{}\" class=\"wp-block-query-pagination-next\">Next Page<span class='wp-block-query-pagination-next-arrow is-arrow-arrow' aria-hidden='true'>→</span></a>\n", url(page_no + 1)));
        }
        nav.push_str("</nav>\n");
    }
    let main = format!(
        r##"<main class="wp-block-group has-global-padding is-layout-constrained wp-block-group-is-layout-constrained">
<h1 class="wp-block-heading alignwide has-x-large-font-size">{heading}</h1>

<div class="wp-block-query alignfull is-layout-flow wp-block-query-is-layout-flow">
<ul class="alignfull wp-block-post-template is-layout-flow wp-block-post-template-is-layout-flow">{items}</ul>

<div class="wp-block-group alignwide has-global-padding is-layout-constrained wp-block-group-is-layout-constrained">
{nav}</div>
</div>
</main>"##
    );
    let month = posts.first().map(|p| p.date.0).unwrap_or(5);
    Some(page(
        b,
        base,
        &format!("{heading} &#8211; Field Notes"),
        body_class,
        head,
        &main,
        month,
    ))
}

pub(super) fn comment(base: &str, p: &Post, c: usize, depth: usize) -> String {
    let cid = p.id as usize * 100 + c;
    let who = COMMENTERS[(rnd(cid as u64) % COMMENTERS.len() as u64) as usize];
    let author = if c % 3 == 0 {
        format!("<a rel=\"external nofollow ugc\" href=\"https://wordpress.org/\" target=\"_self\" >{who}</a>")
    } else {
        who.to_string()
    };
    let url = permalink(base, p);
    format!(
        r##"<li id="comment-{cid}" class="comment even thread-even depth-{depth}">
<div class="wp-block-group is-layout-flex wp-block-group-is-layout-flex" style="margin-top:0;margin-bottom:0"><div class="wp-block-avatar"><img alt='{who} Avatar' src='https://secure.gravatar.com/avatar/{h:016x}?s=40&#038;d=mm&#038;r=g' srcset='https://secure.gravatar.com/avatar/{h:016x}?s=80&#038;d=mm&#038;r=g 2x' class='avatar avatar-40 photo wp-block-avatar__image' height='40' width='40' /></div>

<div class="wp-block-group is-layout-flow wp-block-group-is-layout-flow"><div class="wp-block-comment-author-name">{author}</div>

<div class="wp-block-group is-layout-flex wp-block-group-is-layout-flex" style="margin-top:0px;margin-bottom:0px"><div class="wp-block-comment-date"><time datetime="{iso}"><a href="{url}#comment-{cid}">{human} at 9:{c:02} am</a></time></div>
</div>

<div class="wp-block-comment-content"><p>{text}</p>
</div>

<div class="wp-block-group is-layout-flex wp-block-group-is-layout-flex"><div class="wp-block-comment-reply-link"><a rel="nofollow" class="comment-reply-link" href="{url}?replytocom={cid}#respond" data-commentid="{cid}" data-postid="{pid}" data-belowelement="comment-{cid}" data-respondelement="respond" data-replyto="Reply to {who}" aria-label="Reply to {who}">Reply</a></div></div>
</div>
</div>
"##,
        h = rnd(cid as u64 + 5),
        iso = iso(p),
        human = human(p),
        text = prose(cid as u64 + 11, 15 + (rnd(cid as u64) % 40) as usize),
        pid = p.id,
    )
}

pub(super) fn single(b: &Blog, base: &str, i: usize) -> String {
    let p = &b.posts[i];
    let url = permalink(base, p);
    let enc = url.replace(':', "%3A").replace('/', "%2F");
    let head = format!(
        "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Field Notes &raquo; {t} Comments Feed\" href=\"{url}feed/\" />\n<script src=\"{base}/wp-includes/js/comment-reply.min.js?ver=6.7.1\" id=\"comment-reply-js\" async data-wp-strategy=\"async\"></script>\n<link rel=\"alternate\" title=\"JSON\" type=\"application/json\" href=\"{base}/wp-json/wp/v2/posts/{id}\" />\n<link rel=\"canonical\" href=\"{url}\" />\n<link rel='shortlink' href='{base}/?p={id}' />\n<link rel=\"alternate\" title=\"oEmbed (JSON)\" type=\"application/json+oembed\" href=\"{base}/wp-json/oembed/1.0/embed?url={enc}\" />\n<link rel=\"alternate\" title=\"oEmbed (XML)\" type=\"text/xml+oembed\" href=\"{base}/wp-json/oembed/1.0/embed?url={enc}&#038;format=xml\" />\n",
        t = p.title,
        id = p.id,
    );
    // Comments: the first of every three gets one reply (threaded, depth 2).
    let mut comments = String::new();
    let mut c = 0;
    while c < p.comments {
        comments.push_str(&comment(base, p, c, 1));
        if c % 3 == 0 && c + 1 < p.comments {
            comments.push_str("<ol>");
            comments.push_str(&comment(base, p, c + 1, 2));
            comments.push_str("</li><!-- #comment-## -->\n</ol><!-- .children -->\n");
            c += 1;
        }
        comments.push_str("</li><!-- #comment-## -->\n");
        c += 1;
    }
    let comments_block = if p.comments > 0 {
        format!(
            "<h2 id=\"comments\" class=\"wp-block-comments-title\">{} to &#8220;{}&#8221;</h2>\n\n<ol class=\"wp-block-comment-template\">{comments}</ol>\n",
            if p.comments == 1 { "One response".to_string() } else { format!("{} responses", p.comments) },
            p.title
        )
    } else {
        String::new()
    };
    let older = b.posts.get(i + 1);
    let newer = if i > 0 { b.posts.get(i - 1) } else { None };
    let mut postnav = String::new();
    if let Some(o) = older {
        postnav.push_str(&format!("<div class=\"post-navigation-link-previous wp-block-post-navigation-link\"><span class=\"wp-block-post-navigation-link__arrow-previous is-arrow-arrow\" aria-hidden=\"true\">←</span><a href=\"{}\" rel=\"prev\">{}</a></div>", permalink(base, o), o.title));
    }
    if let Some(n) = newer {
        postnav.push_str(&format!("<div class=\"post-navigation-link-next has-text-align-right wp-block-post-navigation-link\"><a href=\"{}\" rel=\"next\">{}</a><span class=\"wp-block-post-navigation-link__arrow-next is-arrow-arrow\" aria-hidden=\"true\">→</span></div>", permalink(base, n), n.title));
    }
    let (_, cslug, cname) = CATEGORIES[p.cat];
    let tags: Vec<String> = p
        .tags
        .iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|&t| format!("<a href=\"{base}/tag/{0}/\" rel=\"tag\">{0}</a>", TAGS[t].1))
        .collect();
    let (_, aslug, aname) = AUTHORS[p.author];
    let paras: String = p.text.iter().map(|t| format!("<p>{t}</p>\n")).collect();
    let main = format!(
        r##"<main class="wp-block-group has-global-padding is-layout-constrained wp-block-group-is-layout-constrained" style="margin-top:var(--wp--preset--spacing--60)">
<div class="wp-block-group alignfull has-global-padding is-layout-constrained wp-block-group-is-layout-constrained" style="padding-top:var(--wp--preset--spacing--60);padding-bottom:var(--wp--preset--spacing--60)">
<div class="taxonomy-category wp-block-post-terms has-text-align-left"><a href="{base}/category/{cslug}/" rel="tag">{cname}</a></div>

<h1 class="wp-block-post-title has-xx-large-font-size">{title}</h1>

<div class="wp-block-group is-layout-flex wp-block-group-is-layout-flex"><div class="wp-block-post-date"><time datetime="{iso}">{human}</time></div>

<p>&mdash;&nbsp;by</p>

<div class="wp-block-post-author-name"><a href="{base}/author/{aslug}/" target="_self" class="wp-block-post-author-name__link">{aname}</a></div></div>

<div class="entry-content alignfull wp-block-post-content has-global-padding is-layout-constrained wp-block-post-content-is-layout-constrained">
{paras}</div>

<div class="wp-block-group is-layout-flow wp-block-group-is-layout-flow" style="padding-top:var(--wp--preset--spacing--60);padding-bottom:var(--wp--preset--spacing--60)">
<div class="taxonomy-post_tag is-style-post-terms-1 wp-block-post-terms">{tags}</div>
</div>

<div class="wp-block-comments wp-block-comments-query-loop" style="margin-top:var(--wp--preset--spacing--70);margin-bottom:var(--wp--preset--spacing--70)">
{comments_block}
	<div id="respond" class="comment-respond wp-block-post-comments-form">
		<h3 id="reply-title" class="comment-reply-title">Leave a Reply <small><a rel="nofollow" id="cancel-comment-reply-link" href="/2024/{mm:02}/{dd:02}/{slug}/#respond" style="display:none;">Cancel reply</a></small></h3><form action="{base}/wp-comments-post.php" method="post" id="commentform" class="comment-form" novalidate><p class="comment-notes"><span id="email-notes">Your email address will not be published.</span> <span class="required-field-message">Required fields are marked <span class="required">*</span></span></p><p class="comment-form-comment"><label for="comment">Comment <span class="required">*</span></label> <textarea id="comment" name="comment" cols="45" rows="8" maxlength="65525" required></textarea></p><p class="comment-form-author"><label for="author">Name <span class="required">*</span></label> <input id="author" name="author" type="text" value="" size="30" maxlength="245" autocomplete="name" required /></p>
<p class="comment-form-email"><label for="email">Email <span class="required">*</span></label> <input id="email" name="email" type="email" value="" size="30" maxlength="100" aria-describedby="email-notes" autocomplete="email" required /></p>
<p class="comment-form-url"><label for="url">Website</label> <input id="url" name="url" type="url" value="" size="30" maxlength="200" autocomplete="url" /></p>
<p class="comment-form-cookies-consent"><input id="wp-comment-cookies-consent" name="wp-comment-cookies-consent" type="checkbox" value="yes" /> <label for="wp-comment-cookies-consent">Save my name, email, and website in this browser for the next time I comment.</label></p>
<p class="form-submit wp-block-button"><input name="submit" type="submit" id="submit" class="wp-block-button__link wp-element-button" value="Post Comment" /> <input type='hidden' name='comment_post_ID' value='{id}' id='comment_post_ID' />
<input type='hidden' name='comment_parent' id='comment_parent' value='0' />
</p></form>	</div><!-- #respond -->
	</div>

<nav class="wp-block-group alignwide is-content-justification-space-between is-layout-flex wp-block-group-is-layout-flex" aria-label="Post navigation" style="border-top-width:1px;padding-top:var(--wp--preset--spacing--40)">{postnav}</nav>
</div>
</main>"##,
        title = p.title,
        iso = iso(p),
        human = human(p),
        mm = p.date.0,
        dd = p.date.1,
        slug = p.slug,
        id = p.id,
        tags = tags.join("<span class=\"wp-block-post-terms__separator\">, </span>"),
    );
    page(
        b,
        base,
        &format!("{} &#8211; Field Notes", p.title),
        &format!(
            "post-template-default single single-post postid-{} single-format-standard",
            p.id
        ),
        &head,
        &main,
        p.date.0,
    )
}

pub(super) fn about(b: &Blog, base: &str) -> String {
    let main = format!(
        "<main class=\"wp-block-group has-global-padding is-layout-constrained wp-block-group-is-layout-constrained\">\n<h1 class=\"wp-block-post-title\">About</h1>\n<div class=\"entry-content wp-block-post-content has-global-padding is-layout-constrained wp-block-post-content-is-layout-constrained\">\n<p>{}</p>\n<p>{}</p>\n</div>\n</main>",
        prose(9001, 80),
        prose(9002, 60)
    );
    let head = format!("<link rel=\"alternate\" title=\"JSON\" type=\"application/json\" href=\"{base}/wp-json/wp/v2/pages/2\" />\n<link rel=\"canonical\" href=\"{base}/about/\" />\n<link rel='shortlink' href='{base}/?p=2' />\n<link rel=\"alternate\" title=\"oEmbed (JSON)\" type=\"application/json+oembed\" href=\"{base}/wp-json/oembed/1.0/embed?url={}about%2F\" />\n", base.replace(':', "%3A").replace('/', "%2F") + "%2F");
    page(
        b,
        base,
        "About &#8211; Field Notes",
        "page-template-default page page-id-2",
        &head,
        &main,
        5,
    )
}
