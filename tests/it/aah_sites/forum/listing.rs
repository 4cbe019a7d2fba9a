//! The prosilver page frame and the board's listings: index, categories, forums, pagination.

use super::*;

/// The prosilver page around `body`: head with feeds and stylesheets, header with search
/// box, quick links, FAQ, login and register, breadcrumbs, footer, scripts.
/// `here` is the current page relative to the board root (for the login redirect).
pub(super) fn page(
    title: &str,
    section: &str,
    here: &str,
    head: &str,
    crumbs: &[(String, String)],
    body: &str,
) -> String {
    let redirect = here
        .replace('?', "%3F")
        .replace('=', "%3D")
        .replace('&', "%26");
    let login = if here.is_empty() || here.starts_with("ucp.php") {
        "./ucp.php?mode=login".to_string()
    } else {
        format!("./ucp.php?mode=login&amp;redirect={redirect}")
    };
    let mut bc = String::from("<span class=\"crumb\" itemtype=\"https://schema.org/ListItem\" itemprop=\"itemListElement\" itemscope><a href=\"./index.php\" itemtype=\"https://schema.org/Thing\" itemscope itemprop=\"item\" accesskey=\"h\" data-navbar-reference=\"index\"><i class=\"icon fa-home fa-fw\"></i><span itemprop=\"name\">Board index</span></a><meta itemprop=\"position\" content=\"1\" /></span>\n");
    for (i, (href, name)) in crumbs.iter().enumerate() {
        bc.push_str(&format!("\t\t\t\t\t<span class=\"crumb\" itemtype=\"https://schema.org/ListItem\" itemprop=\"itemListElement\" itemscope><a href=\"{href}\" itemtype=\"https://schema.org/Thing\" itemscope itemprop=\"item\"><span itemprop=\"name\">{name}</span></a><meta itemprop=\"position\" content=\"{}\" /></span>\n", i + 2));
    }
    format!(
        r##"<!DOCTYPE html>
<html dir="ltr" lang="en-gb">
<head>
<meta charset="utf-8" />
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1" />

<title>{title} - Heron Watchers</title>

	<link rel="alternate" type="application/atom+xml" title="Feed - Heron Watchers" href="/app.php/feed">
{head}
<link href="./assets/css/font-awesome.min.css?assets_version=4" rel="stylesheet">
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=4" rel="stylesheet">
<link href="./styles/prosilver/theme/en/stylesheet.css?assets_version=4" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch {section} ltr ">

<div id="wrap" class="wrap">
	<a id="top" class="top-anchor" accesskey="t"></a>
	<div id="page-header">
		<div class="headerbar" role="banner">
			<div class="inner">
			<div id="site-description" class="site-description">
				<a id="logo" class="logo" href="./index.php" title="Board index"><span class="site_logo"></span></a>
				<h1>Heron Watchers</h1>
				<p>Herons, egrets and bitterns of the fens</p>
				<p class="skiplink"><a href="#start_here">Skip to content</a></p>
			</div>
			<div id="search-box" class="search-box search-header" role="search">
				<form action="./search.php" method="get" id="search">
				<fieldset>
					<input name="keywords" id="keywords" type="search" maxlength="128" title="Search for keywords" class="inputbox search tiny" size="20" value="" placeholder="Search…" />
					<button class="button button-search" type="submit" title="Search"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></button>
					<a href="./search.php" class="button button-search-end" title="Advanced search"><i class="icon fa-cog fa-fw" aria-hidden="true"></i><span class="sr-only">Advanced search</span></a>
				</fieldset>
				</form>
			</div>
			</div>
		</div>
		<div class="navbar" role="navigation">
			<div class="inner">
			<ul id="nav-main" class="nav-main linklist" role="menubar">
				<li id="quick-links" class="quick-links dropdown-container responsive-menu" data-skip-responsive="true">
					<a href="#" class="dropdown-trigger"><i class="icon fa-bars fa-fw" aria-hidden="true"></i><span>Quick links</span></a>
					<div class="dropdown">
						<div class="pointer"><div class="pointer-inner"></div></div>
						<ul class="dropdown-contents" role="menu">
							<li class="separator"></li>
							<li><a href="./search.php?search_id=unanswered" role="menuitem"><i class="icon fa-file-o fa-fw icon-gray" aria-hidden="true"></i><span>Unanswered topics</span></a></li>
							<li><a href="./search.php?search_id=active_topics" role="menuitem"><i class="icon fa-file-o fa-fw icon-blue" aria-hidden="true"></i><span>Active topics</span></a></li>
							<li class="separator"></li>
							<li><a href="./search.php" role="menuitem"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span>Search</span></a></li>
							<li class="separator"></li>
							<li><a href="./memberlist.php?mode=team" role="menuitem"><i class="icon fa-shield fa-fw" aria-hidden="true"></i><span>The team</span></a></li>
							<li class="separator"></li>
						</ul>
					</div>
				</li>
				<li data-skip-responsive="true">
					<a href="/app.php/help/faq" rel="help" title="Frequently Asked Questions" role="menuitem">
						<i class="icon fa-question-circle fa-fw" aria-hidden="true"></i><span>FAQ</span>
					</a>
				</li>
				<li class="rightside"  data-skip-responsive="true">
					<a href="{login}" title="Login" accesskey="x" role="menuitem">
						<i class="icon fa-power-off fa-fw" aria-hidden="true"></i><span>Login</span>
					</a>
				</li>
				<li class="rightside" data-skip-responsive="true">
					<a href="./ucp.php?mode=register" role="menuitem">
						<i class="icon fa-pencil-square-o  fa-fw" aria-hidden="true"></i><span>Register</span>
					</a>
				</li>
			</ul>
			<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
				<li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList">
					{bc}				</li>
				<li class="rightside responsive-search">
					<a href="./search.php" title="View the advanced search options" role="menuitem">
						<i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span>
					</a>
				</li>
			</ul>
			</div>
		</div>
	</div>

	<a id="start_here" class="anchor"></a>
	<div id="page-body" class="page-body" role="main">
{body}
	</div>

<div id="page-footer" class="page-footer" role="contentinfo">
	<div class="navbar" role="navigation">
	<div class="inner">
	<ul id="nav-footer" class="nav-footer linklist" role="menubar">
		<li class="breadcrumbs">
			<span class="crumb"><a href="./index.php" data-navbar-reference="index"><i class="icon fa-home fa-fw" aria-hidden="true"></i><span>Board index</span></a></span>
		</li>
		<li class="rightside">All times are <span title="UTC">UTC</span></li>
		<li class="rightside">
			<a href="./ucp.php?mode=delete_cookies" data-ajax="true" data-refresh="true" role="menuitem">
				<i class="icon fa-trash fa-fw" aria-hidden="true"></i><span>Delete cookies</span>
			</a>
		</li>
		<li class="rightside" data-last-responsive="true">
			<a href="./memberlist.php?mode=contactadmin" role="menuitem">
				<i class="icon fa-envelope fa-fw" aria-hidden="true"></i><span>Contact us</span>
			</a>
		</li>
	</ul>
	</div>
	</div>

	<div class="copyright">
		<p class="footer-row" role="menuitem">
			<span class="footer-copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</span>
		</p>
		<p class="footer-row" role="menu">
			<a class="footer-link" href="./ucp.php?mode=privacy" title="Privacy" role="menuitem">
				<span class="footer-link-text">Privacy</span>
			</a>
			|
			<a class="footer-link" href="./ucp.php?mode=terms" title="Terms" role="menuitem">
				<span class="footer-link-text">Terms</span>
			</a>
		</p>
	</div>

	<div id="darkenwrapper" class="darkenwrapper" data-ajax-error-title="AJAX error" data-ajax-error-text="Something went wrong when processing your request." data-ajax-error-text-abort="User aborted request." data-ajax-error-text-timeout="Your request timed out; please try again." data-ajax-error-text-parsererror="Something went wrong with the request and the server returned an invalid reply.">
		<div id="darken" class="darken">&nbsp;</div>
	</div>
</div>

</div>

<script src="./assets/javascript/jquery-3.7.1.min.js?assets_version=4"></script>
<script src="./assets/javascript/core.js?assets_version=4"></script>
<script src="./styles/prosilver/template/forum_fn.js?assets_version=4"></script>
<script src="./styles/prosilver/template/ajax.js?assets_version=4"></script>
</body>
</html>
"##
    )
}

pub(super) fn pagination(
    base: &str,
    count_label: &str,
    total: usize,
    per: usize,
    start: usize,
) -> String {
    let pages = total.div_ceil(per);
    let mut s = format!("<div class=\"pagination\">\n\t\t\t{count_label}\n");
    if pages > 1 {
        s.push_str("\t\t\t<ul>\n");
        let cur = start / per;
        if cur > 0 {
            let prev = (cur - 1) * per;
            let href = if prev == 0 {
                base.to_string()
            } else {
                format!("{base}&amp;start={prev}")
            };
            s.push_str(&format!("\t<li class=\"arrow previous\"><a class=\"button button-icon-only\" href=\"{href}\" rel=\"prev\" role=\"button\"><i class=\"icon fa-chevron-left fa-fw\" aria-hidden=\"true\"></i><span class=\"sr-only\">Previous</span></a></li>\n"));
        }
        for p in 0..pages {
            if p == cur {
                s.push_str(&format!(
                    "\t<li class=\"active\"><span>{}</span></li>\n",
                    p + 1
                ));
            } else {
                let href = if p == 0 {
                    base.to_string()
                } else {
                    format!("{base}&amp;start={}", p * per)
                };
                s.push_str(&format!(
                    "\t\t\t<li><a class=\"button\" href=\"{href}\" role=\"button\">{}</a></li>\n",
                    p + 1
                ));
            }
        }
        if cur + 1 < pages {
            s.push_str(&format!("\t\t\t<li class=\"arrow next\"><a class=\"button button-icon-only\" href=\"{base}&amp;start={}\" rel=\"next\" role=\"button\"><i class=\"icon fa-chevron-right fa-fw\" aria-hidden=\"true\"></i><span class=\"sr-only\">Next</span></a></li>\n", (cur + 1) * per));
        }
        s.push_str("\t</ul>\n");
    } else {
        s.push_str("\t\t\t&bull; Page <strong>1</strong> of <strong>1</strong>\n");
    }
    s.push_str("\t\t</div>\n");
    s
}

pub(super) fn last_post(b: &Board, t: usize) -> &Post {
    &b.posts[*b.topic_posts[t - 1].last().unwrap() - 1]
}

/// The board index, or with `category` the category's own page (`viewforum.php?f=1`),
/// which lists the same forums.
pub(super) fn index(b: &Board, category: bool) -> String {
    let mut rows = String::new();
    for &(f, name, desc) in FORUMS {
        let topics: Vec<usize> = (1..=TOPICS.len()).filter(|&t| b.forum_of(t) == f).collect();
        let posts: usize = topics.iter().map(|&t| b.topic_posts[t - 1].len()).sum();
        let last = last_post(b, *topics.last().unwrap());
        let (iso, human) = time(last);
        rows.push_str(&format!(
            r##"			<li class="row">
				<dl class="row-item forum_read">
					<dt title="No unread posts">
						<div class="list-inner">
							<a href="./viewforum.php?f={f}" class="forumtitle">{name}</a>
							<br />{desc}
						</div>
					</dt>
					<dd class="topics">{} <dfn>Topics</dfn></dd>
					<dd class="posts">{posts} <dfn>Posts</dfn></dd>
					<dd class="lastpost">
						<span>
							<dfn>Last post</dfn>
							<a href="./viewtopic.php?p={id}#p{id}" title="{tt}" class="lastsubject">{tt}</a> <br />
							by {u}
							<a href="./viewtopic.php?p={id}#p{id}" title="View the latest post"><i class="icon fa-external-link-square fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">View the latest post</span></a>
							<br /><time datetime="{iso}">{human}</time>
						</span>
					</dd>
				</dl>
			</li>
"##,
            topics.len(),
            id = last.id,
            tt = b.topic_title(last.topic),
            u = user_link(last.user, "username"),
        ));
    }
    let body = format!(
        r##"<p class="right responsive-center time">It is currently Fri May 31, 2024 9:00 am</p>
	<div class="forabg">
		<div class="inner">
		<ul class="topiclist">
			<li class="header">
				<dl class="row-item">
					<dt><div class="list-inner"><a href="./viewforum.php?f=1">Birds</a></div></dt>
					<dd class="topics">Topics</dd>
					<dd class="posts">Posts</dd>
					<dd class="lastpost"><span>Last post</span></dd>
				</dl>
			</li>
		</ul>
		<ul class="topiclist forums">
{rows}		</ul>
		</div>
	</div>
	<form method="post" action="./ucp.php?mode=login" class="headerspace">
	<h3><a href="./ucp.php?mode=login">Login</a>&nbsp; &bull; &nbsp;<a href="./ucp.php?mode=register">Register</a></h3>
		<fieldset class="quick-login">
			<label for="username"><span>Username:</span> <input type="text" tabindex="1" name="username" id="username" size="10" class="inputbox" title="Username" /></label>
			<label for="password"><span>Password:</span> <input type="password" tabindex="2" name="password" id="password" size="10" class="inputbox" title="Password" autocomplete="off" /></label>
			<a href="./ucp.php?mode=sendpassword">I forgot my password</a>
			<input type="submit" tabindex="5" name="login" value="Login" class="button2" />
		</fieldset>
	</form>
	<div class="stat-block online-list">
		<h3>Who is online</h3>
		<p>In total there are <strong>4</strong> users online :: 0 registered, 0 hidden and 4 guests (based on users active over the past 5 minutes)<br />Most users ever online was <strong>31</strong> on Sat Apr 13, 2024 7:12 pm<br /></p>
	</div>
	<div class="stat-block statistics">
		<h3>Statistics</h3>
		<p>Total posts <strong>{}</strong> &bull; Total topics <strong>{}</strong> &bull; Total members <strong>{}</strong> &bull; Our newest member {}</p>
	</div>
"##,
        b.posts.len(),
        TOPICS.len(),
        USERS.len(),
        user_link(USERS.len() - 1, "username"),
    );
    if category {
        return page(
            "Birds",
            "section-viewforum",
            "viewforum.php?f=1",
            "",
            &[("./viewforum.php?f=1".into(), "Birds".into())],
            &body,
        );
    }
    page("Index page", "section-index", "index.php", "", &[], &body)
}

pub(super) fn viewforum(b: &Board, f: u32) -> String {
    let topics: Vec<usize> = (1..=TOPICS.len()).filter(|&t| b.forum_of(t) == f).collect();
    let mut rows = String::new();
    for &t in &topics {
        let first = &b.posts[b.topic_posts[t - 1][0] - 1];
        let last = last_post(b, t);
        let (iso, human) = time(first);
        let (liso, lhuman) = time(last);
        let mut mini = String::new();
        if b.pages(t) > 1 {
            mini.push_str("<div class=\"pagination\"><span><i class=\"icon fa-clone fa-fw\" aria-hidden=\"true\"></i></span><ul>");
            for p in 0..b.pages(t) {
                let href = if p == 0 {
                    format!("./viewtopic.php?t={t}")
                } else {
                    format!("./viewtopic.php?t={t}&amp;start={}", p * PER_PAGE)
                };
                mini.push_str(&format!(
                    "<li><a class=\"button\" href=\"{href}\">{}</a></li>",
                    p + 1
                ));
            }
            mini.push_str("</ul></div>");
        }
        rows.push_str(&format!(
            r##"		<li class="row bg{bg}">
			<dl class="row-item topic_read">
				<dt title="No unread posts">
					<div class="list-inner">
						<a href="./viewtopic.php?t={t}" class="topictitle">{title}</a>
						<br />
						<div class="responsive-show" style="display: none;">
							Last post by {lu} &laquo; <a href="./viewtopic.php?p={lid}#p{lid}" title="Go to last post"><time datetime="{liso}">{lhuman}</time></a>
						</div>
						{mini}
						<div class="topic-poster responsive-hide left-box">
							by {fu} &raquo; <time datetime="{iso}">{human}</time>
						</div>
					</div>
				</dt>
				<dd class="posts">{replies} <dfn>Replies</dfn></dd>
				<dd class="views">{views} <dfn>Views</dfn></dd>
				<dd class="lastpost">
					<span><dfn>Last post </dfn>by {lu}
						<a href="./viewtopic.php?p={lid}#p{lid}" title="Go to last post"><i class="icon fa-external-link-square fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only"></span></a>
						<br /><time datetime="{liso}">{lhuman}</time>
					</span>
				</dd>
			</dl>
		</li>
"##,
            bg = 1 + t % 2,
            title = b.topic_title(t),
            lu = user_link(last.user, "username"),
            lid = last.id,
            fu = user_link(first.user, "username"),
            replies = b.topic_posts[t - 1].len() - 1,
            views = 40 + rnd(t as u64) % 900,
        ));
    }
    let name = forum_name(f);
    let pag = pagination(
        &format!("./viewforum.php?f={f}"),
        &format!("{} topics", topics.len()),
        topics.len(),
        25,
        0,
    );
    let body = format!(
        r##"<h2 class="forum-title"><a href="./viewforum.php?f={f}">{name}</a></h2>
<div>
	<div style="display: none !important;">{desc}<br /></div>
</div>
<div class="action-bar bar-top">
	<a href="./posting.php?mode=post&amp;f={f}" class="button" title="Post a new topic">
		<span>New Topic</span> <i class="icon fa-pencil fa-fw" aria-hidden="true"></i>
	</a>
	<div class="search-box" role="search">
		<form method="get" id="forum-search" action="./search.php">
		<fieldset>
			<input class="inputbox search tiny" type="search" name="keywords" id="search_keywords" size="20" placeholder="Search this forum…" />
			<button class="button button-search" type="submit" title="Search"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></button>
			<input type="hidden" name="fid[0]" value="{f}" />
		</fieldset>
		</form>
	</div>
	{pag}
</div>
	<div class="forumbg">
		<div class="inner">
		<ul class="topiclist">
			<li class="header">
				<dl class="row-item">
					<dt><div class="list-inner">Topics</div></dt>
					<dd class="posts">Replies</dd>
					<dd class="views">Views</dd>
					<dd class="lastpost"><span>Last post</span></dd>
				</dl>
			</li>
		</ul>
		<ul class="topiclist topics">
{rows}		</ul>
		</div>
	</div>
<div class="action-bar bar-bottom">
	<a href="./posting.php?mode=post&amp;f={f}" class="button" title="Post a new topic">
		<span>New Topic</span> <i class="icon fa-pencil fa-fw" aria-hidden="true"></i>
	</a>
	{pag}
</div>
{jump}
"##,
        desc = FORUMS.iter().find(|x| x.0 == f).unwrap().2,
        jump = jumpbox(),
    );
    let head = format!("\t<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Feed - Forum - {name}\" href=\"/app.php/feed/forum/{f}\">");
    page(
        name,
        "section-viewforum",
        &format!("viewforum.php?f={f}"),
        &head,
        &[(format!("./viewforum.php?f={f}"), name.to_string())],
        &body,
    )
}

pub(super) fn jumpbox() -> String {
    let mut s = String::from("<div class=\"action-bar actions-jump\">\n\t<p class=\"jumpbox-return\"><a href=\"./index.php\" class=\"left-box arrow-left\" accesskey=\"r\"><i class=\"icon fa-angle-left fa-fw icon-black\" aria-hidden=\"true\"></i><span>Return to Board Index</span></a></p>\n\t<div class=\"jumpbox dropdown-container dropdown-container-right dropdown-up dropdown-left dropdown-button-control\" id=\"jumpbox\">\n\t\t<span title=\"Jump to\" class=\"button button-secondary dropdown-trigger dropdown-select\"><span>Jump to</span></span>\n\t\t<div class=\"dropdown\"><ul class=\"dropdown-contents\">\n");
    for &(f, name, _) in FORUMS {
        s.push_str(&format!("\t\t\t<li><a href=\"./viewforum.php?f={f}\" class=\"jumpbox-sub-link\"><span class=\"spacer\"></span> <span>&#8627; &nbsp;</span><span>{name}</span></a></li>\n"));
    }
    s.push_str("\t\t</ul></div>\n\t</div>\n</div>\n");
    s
}
