//! The board's other pages: terms, search, FAQ, Atom feeds, stylesheets.

use super::*;

pub(super) const TERMS: &str = "By accessing \u{201c}Heron Watchers\u{201d} (hereinafter \u{201c}we\u{201d}, \u{201c}us\u{201d}, \u{201c}our\u{201d}, \u{201c}Heron Watchers\u{201d}, \u{201c}https://forum.example.org\u{201d}), you agree to be legally bound by the following terms. If you do not agree to be legally bound by all of the following terms then please do not access and/or use \u{201c}Heron Watchers\u{201d}. We may change these at any time and we\u{2019}ll do our utmost in informing you, though it would be prudent to review this regularly yourself as your continued usage of \u{201c}Heron Watchers\u{201d} after changes mean you agree to be legally bound by these terms as they are updated and/or amended.<br><br>Our forums are powered by phpBB (hereinafter \u{201c}they\u{201d}, \u{201c}them\u{201d}, \u{201c}their\u{201d}, \u{201c}phpBB software\u{201d}, \u{201c}www.phpbb.com\u{201d}, \u{201c}phpBB Limited\u{201d}, \u{201c}phpBB Teams\u{201d}) which is a bulletin board solution released under the \u{201c}GNU General Public License v2\u{201d} (hereinafter \u{201c}GPL\u{201d}) and can be downloaded from www.phpbb.com. The phpBB software only facilitates internet based discussions; phpBB Limited is not responsible for what we allow and/or disallow as permissible content and/or conduct.<br><br>You agree not to post any abusive, obscene, vulgar, slanderous, hateful, threatening, sexually-orientated or any other material that may violate any laws be it of your country, the country where \u{201c}Heron Watchers\u{201d} is hosted or International Law. Doing so may lead to you being immediately and permanently banned, with notification of your Internet Service Provider if deemed required by us. The IP address of all posts are recorded to aid in enforcing these conditions. You agree that \u{201c}Heron Watchers\u{201d} have the right to remove, edit, move or close any topic at any time should we see fit. As a user you agree to any information you have entered to being stored in a database. While this information will not be disclosed to any third party without your consent, neither \u{201c}Heron Watchers\u{201d} nor phpBB shall be held responsible for any hacking attempt that may lead to the data being compromised.";

pub(super) fn text_page(title: &str, here: &str, text: &str, form: &str) -> String {
    let body = format!(
        "<div class=\"panel\">\n\t<div class=\"inner\">\n\t<div class=\"content\">\n\t\t<h2 class=\"sitename-title\">Heron Watchers - {title}</h2>\n\t\t<p>{text}</p>\n\t\t<p>{text2}</p>\n\t</div>\n\t</div>\n</div>\n{form}",
        text2 = prose(title.len() as u64 + 7000, 160),
    );
    page(
        title,
        "section-ucp",
        here,
        "",
        &[(format!("./{here}"), title.to_string())],
        &body,
    )
}

pub(super) fn search_posts(b: &Board, u: u32, start: usize) -> String {
    let ui = USERS.iter().position(|x| x.0 == u).unwrap_or(0);
    let mine: Vec<&Post> = b.posts.iter().rev().filter(|p| p.user == ui).collect();
    let mut rows = String::new();
    for p in mine.iter().skip(start).take(PER_PAGE) {
        let f = b.forum_of(p.topic);
        let (iso, human) = time(p);
        rows.push_str(&format!(
            r##"	<div class="search post bg{bg}">
		<div class="inner">
	<dl class="postprofile">
		<dt class="author">by {ul}</dt>
		<dd class="search-result-date"><time datetime="{iso}">{human}</time></dd>
		<dd>Forum: <a href="./viewforum.php?f={f}">{fname}</a></dd>
		<dd>Topic: <a href="./viewtopic.php?t={t}">{title}</a></dd>
	</dl>
	<div class="postbody">
		<h3><a href="./viewtopic.php?p={id}#p{id}">Re: {title}</a></h3>
		<div class="content">{text}</div>
	</div>
	<ul class="searchresults">
		<li><a href="./viewtopic.php?p={id}#p{id}" class="arrow-right"><i class="icon fa-angle-right fa-fw icon-black" aria-hidden="true"></i><span>Jump to post</span></a></li>
	</ul>
		</div>
	</div>
	<hr class="divider" />
"##,
            bg = 1 + p.id % 2,
            ul = user_link(p.user, "username"),
            fname = forum_name(f),
            t = p.topic,
            title = b.topic_title(p.topic),
            id = p.id,
            text = p.text,
        ));
    }
    let pag = pagination(
        &format!("./search.php?author_id={u}&amp;sr=posts"),
        &format!("Search found {} matches", mine.len()),
        mine.len(),
        PER_PAGE,
        start,
    );
    let body = format!(
        "<h2 class=\"searchresults-title\">Search found {} matches</h2>\n<p class=\"return-link\"><a class=\"arrow-left\" href=\"./search.php\"><i class=\"icon fa-angle-left fa-fw icon-black\" aria-hidden=\"true\"></i><span>Advanced search</span></a></p>\n<div class=\"action-bar bar-top\">{pag}</div>\n{rows}<div class=\"action-bar bar-bottom\">{pag}</div>\n{}",
        mine.len(),
        jumpbox()
    );
    page(
        "Search",
        "section-search",
        &format!("search.php?author_id={u}&sr=posts"),
        "",
        &[("./search.php".into(), "Search".into())],
        &body,
    )
}

pub(super) fn search_topics(b: &Board, which: &str) -> String {
    let topics: Vec<usize> = (1..=TOPICS.len())
        .filter(|&t| which != "unanswered" || b.topic_posts[t - 1].len() == 1)
        .collect();
    let mut rows = String::new();
    for t in topics.iter().rev() {
        let last = last_post(b, *t);
        let (iso, human) = time(last);
        rows.push_str(&format!(
            "\t\t<li class=\"row bg{}\">\n\t\t\t<dl class=\"row-item topic_read\">\n\t\t\t\t<dt title=\"No unread posts\"><div class=\"list-inner\">\n\t\t\t\t\t<a href=\"./viewtopic.php?t={t}\" class=\"topictitle\">{}</a><br />\n\t\t\t\t\t<div class=\"responsive-hide left-box\">by {} &raquo; in <a href=\"./viewforum.php?f={}\">{}</a></div>\n\t\t\t\t</div></dt>\n\t\t\t\t<dd class=\"posts\">{} <dfn>Replies</dfn></dd>\n\t\t\t\t<dd class=\"lastpost\"><span><dfn>Last post </dfn>by {}<a href=\"./viewtopic.php?p={id}#p{id}\" title=\"Go to last post\"><i class=\"icon fa-external-link-square fa-fw icon-lightgray icon-md\" aria-hidden=\"true\"></i></a><br /><time datetime=\"{iso}\">{human}</time></span></dd>\n\t\t\t</dl>\n\t\t</li>\n",
            1 + t % 2,
            b.topic_title(*t),
            user_link(b.posts[b.topic_posts[t - 1][0] - 1].user, "username"),
            b.forum_of(*t),
            forum_name(b.forum_of(*t)),
            b.topic_posts[t - 1].len() - 1,
            user_link(last.user, "username"),
            id = last.id,
        ));
    }
    let body = format!(
        "<h2 class=\"searchresults-title\">Search found {} matches</h2>\n<div class=\"forumbg\">\n\t<div class=\"inner\">\n\t<ul class=\"topiclist\">\n\t\t<li class=\"header\"><dl class=\"row-item\"><dt><div class=\"list-inner\">Topics</div></dt><dd class=\"posts\">Replies</dd><dd class=\"lastpost\"><span>Last post</span></dd></dl></li>\n\t</ul>\n\t<ul class=\"topiclist topics\">\n{rows}\t</ul>\n\t</div>\n</div>\n{}",
        topics.len(),
        jumpbox()
    );
    page(
        "Search",
        "section-search",
        &format!("search.php?search_id={which}"),
        "",
        &[("./search.php".into(), "Search".into())],
        &body,
    )
}

pub(super) fn search_form() -> String {
    let mut forums = String::new();
    for &(f, name, _) in FORUMS {
        forums.push_str(&format!(
            "<option value=\"{f}\">&nbsp; &nbsp;{name}</option>"
        ));
    }
    let body = format!(
        r##"<h2 class="solo">Search</h2>
<form method="get" action="./search.php" data-focus="keywords">
<div class="panel">
	<div class="inner">
	<h3>Search query</h3>
	<fieldset>
	<dl>
		<dt><label for="keywords">Search for keywords:</label><br /><span>Place <strong>+</strong> in front of a word which must be found and <strong>-</strong> in front of a word which must not be found. Put a list of words separated by <strong>|</strong> into brackets if only one of the words must be found. Use * as a wildcard for partial matches.</span></dt>
		<dd><input type="search" class="inputbox" name="keywords" id="keywords" size="40" title="Search for keywords" /></dd>
		<dd><label for="terms1"><input type="radio" name="terms" id="terms1" value="all" checked="checked" /> Search for all terms or use query as entered</label></dd>
		<dd><label for="terms2"><input type="radio" name="terms" id="terms2" value="any" /> Search for any terms</label></dd>
	</dl>
	<dl>
		<dt><label for="author">Search for author:</label><br /><span>Use * as a wildcard for partial matches.</span></dt>
		<dd><input type="search" class="inputbox" name="author" id="author" size="40" title="Search for author" /></dd>
	</dl>
	</fieldset>
	</div>
</div>
<div class="panel bg2">
	<div class="inner">
	<h3>Search options</h3>
	<fieldset>
	<dl>
		<dt><label for="search_forum">Search in forums:</label><br /><span>Select the forum or forums you wish to search in. Subforums are searched if you do not disable &quot;search subforums&quot; below.</span></dt>
		<dd><select name="fid[]" id="search_forum" multiple="multiple" size="8" title="Search in forums"><option value="1">Birds</option>{forums}</select></dd>
	</dl>
	<dl>
		<dt><label for="search_child1">Search subforums:</label></dt>
		<dd><label for="search_child1"><input type="radio" name="sc" id="search_child1" value="1" checked="checked" /> Yes</label> <label for="search_child2"><input type="radio" name="sc" id="search_child2" value="0" /> No</label></dd>
		<dt><label for="sf1">Search within:</label></dt>
		<dd><label for="sf1"><input type="radio" name="sf" id="sf1" value="all" checked="checked" /> Post subjects and message text</label></dd>
		<dd><label for="sf2"><input type="radio" name="sf" id="sf2" value="msgonly" /> Message text only</label></dd>
		<dd><label for="sf3"><input type="radio" name="sf" id="sf3" value="titleonly" /> Topic titles only</label></dd>
		<dd><label for="sf4"><input type="radio" name="sf" id="sf4" value="firstpost" /> First post of topics only</label></dd>
	</dl>
	</fieldset>
	</div>
</div>
<div class="panel bg3">
	<div class="inner">
	<fieldset class="submit-buttons">
		<input type="hidden" name="t" value="0" /><input type="reset" value="Reset" name="reset" class="button2" />&nbsp;
		<input type="submit" name="submit" value="Search" class="button1" />
	</fieldset>
	</div>
</div>
</form>
"##
    );
    page(
        "Search",
        "section-search",
        "search.php",
        "",
        &[("./search.php".into(), "Search".into())],
        &body,
    )
}

pub(super) fn faq() -> String {
    let qs = [
        "Why can\u{2019}t I login?",
        "Why do I need to register at all?",
        "Why do I get logged off automatically?",
        "How do I prevent my username appearing in the online user listings?",
        "I\u{2019}ve lost my password!",
        "I registered but cannot login!",
        "How do I change my settings?",
        "How do I post a topic in a forum?",
        "How do I edit or delete a post?",
        "How do I add a signature to my post?",
        "How do I create a poll?",
        "What is BBCode?",
        "Can I use HTML?",
        "What are Smilies?",
        "What are global announcements?",
        "Why are some topics locked?",
        "What are the administrators and moderators?",
        "What are usergroups?",
        "How can I search a forum?",
        "What are topic bookmarks?",
    ];
    let mut body = String::from("<h2 class=\"faq-title\">Frequently Asked Questions</h2>\n<div class=\"panel bg1\" id=\"faqlinks\">\n\t<div class=\"inner\">\n\t\t<div class=\"column1\">\n\t\t<dl class=\"faq\">\n\t\t\t<dt><strong>Login and Registration Issues</strong></dt>\n");
    for (i, q) in qs.iter().enumerate() {
        body.push_str(&format!("\t\t\t<dd><a href=\"#f0r{i}\">{q}</a></dd>\n"));
    }
    body.push_str("\t\t</dl>\n\t\t</div>\n\t</div>\n</div>\n<div class=\"panel bg2\">\n\t<div class=\"inner\">\n\t<div class=\"content\">\n");
    for (i, q) in qs.iter().enumerate() {
        body.push_str(&format!(
            "\t\t<dl class=\"faq\">\n\t\t\t<dt id=\"f0r{i}\"><strong>{q}</strong></dt>\n\t\t\t<dd>{}</dd>\n\t\t</dl>\n\t\t<a href=\"#faqlinks\" class=\"top\"><i class=\"icon fa-chevron-circle-up fa-fw icon-gray\" aria-hidden=\"true\"></i><span>Top</span></a>\n\t\t<hr class=\"dashed\" />\n",
            prose(8000 + i as u64, 70)
        ));
    }
    body.push_str("\t</div>\n\t</div>\n</div>\n");
    // Pages of `app.php` routes get their relative links corrected to the board root.
    page(
        "Frequently Asked Questions",
        "section-faq",
        "app.php/help/faq",
        "",
        &[],
        &body,
    )
    .replace("href=\"./", "href=\"./../../")
    .replace("action=\"./", "action=\"./../../")
    .replace("src=\"./", "src=\"./../../")
}

/// An Atom feed of `posts` (newest first, at most 15, full content), as `app.php/feed`.
pub(super) fn feed(b: &Board, base: &str, title: &str, self_path: &str, posts: &[&Post]) -> String {
    let mut entries = String::new();
    for p in posts.iter().rev().take(15) {
        let (iso, human) = time(p);
        let f = b.forum_of(p.topic);
        entries.push_str(&format!(
            r##"<entry>
<author><name><![CDATA[{user}]]></name></author>
<updated>{iso}</updated>
<published>{iso}</published>
<id>{base}/viewtopic.php?p={id}#p{id}</id>
<link href="{base}/viewtopic.php?p={id}#p{id}"/>
<title type="html"><![CDATA[{fname} &bull; {title}]]></title>
<category term="{fname}" scheme="{base}/viewforum.php?f={f}" label="{fname}"/>
<content type="html" xml:base="{base}/viewtopic.php?p={id}#p{id}"><![CDATA[
{text}<p>Statistics: Posted by <a href="{base}/memberlist.php?mode=viewprofile&amp;u={uid}">{user}</a> — {human}</p><hr />
]]></content>
</entry>
"##,
            user = USERS[p.user].1,
            uid = USERS[p.user].0,
            id = p.id,
            fname = forum_name(f),
            title = b.topic_title(p.topic),
            text = p.text,
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"en-gb\">\n<link rel=\"self\" type=\"application/atom+xml\" href=\"{base}{self_path}\" />\n\n<title>Heron Watchers</title>\n<subtitle>Herons, egrets and bitterns of the fens</subtitle>\n<link href=\"{base}/index.php\" />\n<updated>2024-05-31T09:00:00+00:00</updated>\n\n<author><name><![CDATA[Heron Watchers]]></name></author>\n<id>{base}{self_path}</id>\n<title type=\"html\">{title}</title>\n{entries}</feed>\n"
    )
}

pub(super) fn css(path: &str) -> String {
    // A stylesheet of realistic rule density (prosilver's files are 5-60 KB).
    let mut s = format!("/* phpBB3 Style Sheet\n    --------------------------------------------------------------\n\tStyle name:\t\t\tprosilver\n\tFile: {path}\n   -------------------------------------------------------------- */\n");
    for i in 0..120 {
        s.push_str(&format!(".rule-{i} .inner, .panel-{i} > dl {{ margin: {}px 0 {}px; padding: 0 {}px; color: #{:06x}; }}\n", i % 7, i % 5, i % 9, rnd(i) & 0xFF_FFFF));
    }
    s
}
