//! What the application-aware helper saves, measured in the spirit of ARCOMEM's evaluation
//! against wget: a fixture phpBB forum and a fixture WordPress blog, each crawled to the end
//! twice with the same spec except `aah.enabled`, counting the HTTP requests the sites received,
//! the response bytes and the terminal pages (topic pages, posts) captured.
//!
//! The sites are generated in the markup of `tests/fixtures/kb/phpbb/*.html` (prosilver) and
//! `tests/fixtures/kb/wordpress/*.html` (Twenty Twenty-Five), with the links those templates
//! carry for a guest, and every link target a real install serves as a page is served as one:
//! login and registration forms, the login box phpBB shows a guest for "Post Reply", "Quote"
//! and member profiles, search results, print views, Atom and RSS feeds, the WordPress REST
//! API and oEmbed documents, `?replytocom=` copies of posts, calendar day archives. What each
//! site serves is listed in `docs/evaluation.md` ("What the application-aware helper saves").
//!
//! `cargo test --test aah_bandwidth -- --nocapture` prints the figures as Markdown tables.

mod support;

use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use support::{harness, FixtureWeb, Reply};

/// One response of a fixture site: what kind of target it is, the terminal page it shows (a
/// content key independent of the URL form, e.g. `t=3&start=10`), and the reply.
struct Served {
    class: &'static str,
    terminal: Option<String>,
    reply: Reply,
    body_len: usize,
}

fn served(class: &'static str, terminal: Option<String>, ctype: &str, body: String) -> Served {
    let body_len = body.len();
    let reply = if ctype.starts_with("text/html") {
        Reply::html(body)
    } else {
        Reply::typed(ctype, body)
    };
    Served {
        class,
        terminal,
        reply,
        body_len,
    }
}

fn redirect(class: &'static str, location: String) -> Served {
    Served {
        class,
        terminal: None,
        reply: Reply::redirect(301, &location),
        body_len: 0,
    }
}

fn missing() -> Served {
    Served {
        class: "missing (404)",
        terminal: None,
        reply: Reply::not_found(),
        body_len: 0,
    }
}

/// A deterministic pseudo-random number (splitmix64) for the content generators.
fn rnd(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const WORDS: &[&str] = &[
    "heron",
    "egret",
    "bittern",
    "reed",
    "marsh",
    "canal",
    "colony",
    "nest",
    "wing",
    "water",
    "morning",
    "evening",
    "scope",
    "binoculars",
    "photo",
    "light",
    "wind",
    "tide",
    "fish",
    "frog",
    "shallow",
    "grey",
    "white",
    "patient",
    "still",
    "flight",
    "season",
    "spring",
    "we",
    "saw",
    "the",
    "a",
    "two",
    "three",
    "near",
    "along",
    "across",
    "again",
    "today",
    "stood",
    "waited",
    "caught",
    "flew",
    "landed",
    "over",
    "under",
    "by",
    "with",
    "old",
    "young",
    "pair",
    "juvenile",
    "plumage",
    "count",
    "survey",
    "ringed",
    "watched",
    "bank",
];

/// `n` words of deterministic prose, as sentences.
fn prose(seed: u64, n: usize) -> String {
    let mut out = String::new();
    let mut start = true;
    for i in 0..n {
        let w = WORDS[(rnd(seed * 1000 + i as u64) % WORDS.len() as u64) as usize];
        if start {
            let mut c = w.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            out.push(first);
            out.push_str(c.as_str());
            start = false;
        } else {
            out.push(' ');
            out.push_str(w);
        }
        if rnd(seed * 7 + i as u64) % 9 == 0 || i + 1 == n {
            out.push('.');
            start = true;
        }
    }
    out
}

/// The query parameters of a request target.
fn query(target: &str) -> BTreeMap<String, String> {
    let q = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    q.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn path_of(target: &str) -> &str {
    target.split('?').next().unwrap_or(target)
}

/// A phpBB 3.3 board with the prosilver style, as a guest sees it.
mod forum {
    use super::*;

    pub const PER_PAGE: usize = 10;
    pub const USERS: &[(u32, &str)] = &[
        (2, "admin"),
        (53, "marsh_walker"),
        (54, "egret_eye"),
        (55, "reedbed"),
        (56, "lapwing"),
        (57, "old_heron"),
        (58, "fen_tiger"),
        (59, "kingfisher_k"),
    ];
    pub const FORUMS: &[(u32, &str, &str)] = &[
        (2, "Sightings", "Reports of herons, egrets and bitterns."),
        (3, "Nesting", "Colonies, nests and breeding seasons."),
        (4, "Equipment and optics", "Binoculars, scopes and cameras."),
    ];
    /// Topics: forum, title, number of posts.
    pub const TOPICS: &[(u32, &str, usize)] = &[
        (2, "Welcome to phpBB3", 12),
        (2, "Grey heron at the lock gates", 3),
        (2, "Great egret wintering on the estuary", 25),
        (2, "Bittern booming again", 7),
        (2, "Purple heron? Photo inside", 1),
        (2, "Night heron roost counts", 18),
        (3, "Heron nests along the canal", 10),
        (3, "First chicks of the season", 4),
        (3, "Colony survey 2024", 31),
        (3, "Nest cameras: worth it?", 6),
        (4, "Which scope for the reedbeds?", 2),
        (4, "Cleaning binocular lenses", 14),
        (4, "Hides with the best light", 9),
    ];

    pub struct Post {
        pub id: usize,
        pub topic: usize,
        pub user: usize,
        pub time: (u32, u32),
        pub text: String,
    }

    pub struct Board {
        pub posts: Vec<Post>,
        /// Post ids of each topic (topic id = index + 1).
        pub topic_posts: Vec<Vec<usize>>,
    }

    impl Board {
        pub fn new() -> Board {
            let mut posts = Vec::new();
            let mut topic_posts = Vec::new();
            for (ti, &(_, _, n)) in TOPICS.iter().enumerate() {
                let mut ids = Vec::new();
                for k in 0..n {
                    let id = posts.len() + 1;
                    let seed = id as u64;
                    let user = if k == 0 && ti == 0 {
                        0
                    } else {
                        (rnd(seed) % USERS.len() as u64) as usize
                    };
                    let words = 30 + (rnd(seed + 99) % 90) as usize;
                    posts.push(Post {
                        id,
                        topic: ti + 1,
                        user,
                        time: (
                            1 + (ti as u32 * 2 + k as u32 / 3) % 28,
                            (k as u32 * 37) % 60,
                        ),
                        text: prose(seed, words),
                    });
                    ids.push(id);
                }
                topic_posts.push(ids);
            }
            Board { posts, topic_posts }
        }

        pub fn topic_title(&self, t: usize) -> &'static str {
            TOPICS[t - 1].1
        }

        pub fn forum_of(&self, t: usize) -> u32 {
            TOPICS[t - 1].0
        }

        pub fn pages(&self, t: usize) -> usize {
            self.topic_posts[t - 1].len().div_ceil(PER_PAGE)
        }

        /// Every terminal page: `t=T&start=S`.
        pub fn terminal_keys(&self) -> BTreeSet<String> {
            (1..=TOPICS.len())
                .flat_map(|t| (0..self.pages(t)).map(move |p| key(t, p * PER_PAGE)))
                .collect()
        }
    }

    pub fn key(t: usize, start: usize) -> String {
        format!("t={t}&start={start}")
    }

    fn time(p: &Post) -> (String, String) {
        let (d, m) = p.time;
        (
            format!("2024-05-{d:02}T{:02}:{m:02}:00+00:00", 8 + d % 12),
            format!("May {d:02}, 2024 {}:{m:02} am", 8 + d % 4),
        )
    }

    fn forum_name(f: u32) -> &'static str {
        FORUMS.iter().find(|x| x.0 == f).unwrap().1
    }

    fn user_link(u: usize, class: &str) -> String {
        let (id, name) = USERS[u];
        let (class, style) = if id == 2 {
            ("username-coloured", " style=\"color: #AA0000;\"")
        } else {
            (class, "")
        };
        format!("<a href=\"./memberlist.php?mode=viewprofile&amp;u={id}\"{style} class=\"{class}\">{name}</a>")
    }

    /// The prosilver page around `body`: head with feeds and stylesheets, header with search
    /// box, quick links, FAQ, login and register, breadcrumbs, footer, scripts.
    /// `here` is the current page relative to the board root (for the login redirect).
    fn page(
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

    fn pagination(base: &str, count_label: &str, total: usize, per: usize, start: usize) -> String {
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
                    s.push_str(&format!("\t\t\t<li><a class=\"button\" href=\"{href}\" role=\"button\">{}</a></li>\n", p + 1));
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

    fn last_post(b: &Board, t: usize) -> &Post {
        &b.posts[*b.topic_posts[t - 1].last().unwrap() - 1]
    }

    /// The board index, or with `category` the category's own page (`viewforum.php?f=1`),
    /// which lists the same forums.
    fn index(b: &Board, category: bool) -> String {
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

    fn viewforum(b: &Board, f: u32) -> String {
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

    fn jumpbox() -> String {
        let mut s = String::from("<div class=\"action-bar actions-jump\">\n\t<p class=\"jumpbox-return\"><a href=\"./index.php\" class=\"left-box arrow-left\" accesskey=\"r\"><i class=\"icon fa-angle-left fa-fw icon-black\" aria-hidden=\"true\"></i><span>Return to Board Index</span></a></p>\n\t<div class=\"jumpbox dropdown-container dropdown-container-right dropdown-up dropdown-left dropdown-button-control\" id=\"jumpbox\">\n\t\t<span title=\"Jump to\" class=\"button button-secondary dropdown-trigger dropdown-select\"><span>Jump to</span></span>\n\t\t<div class=\"dropdown\"><ul class=\"dropdown-contents\">\n");
        for &(f, name, _) in FORUMS {
            s.push_str(&format!("\t\t\t<li><a href=\"./viewforum.php?f={f}\" class=\"jumpbox-sub-link\"><span class=\"spacer\"></span> <span>&#8627; &nbsp;</span><span>{name}</span></a></li>\n"));
        }
        s.push_str("\t\t</ul></div>\n\t</div>\n</div>\n");
        s
    }

    fn post_html(b: &Board, p: &Post, first: bool) -> String {
        let (uid, _) = USERS[p.user];
        let (iso, human) = time(p);
        let subject = if first {
            b.topic_title(p.topic).to_string()
        } else {
            format!("Re: {}", b.topic_title(p.topic))
        };
        let nposts = 1 + rnd(uid as u64) % 300;
        format!(
            r##"			<div id="p{id}" class="post has-profile bg{bg}">
		<div class="inner">

		<dl class="postprofile" id="profile{id}">
			<dt class="no-profile-rank no-avatar">
				<div class="avatar-container"></div>
				{ul}
			</dt>
		<dd class="profile-posts"><strong>Posts:</strong> <a href="./search.php?author_id={uid}&amp;sr=posts">{nposts}</a></dd>		<dd class="profile-joined"><strong>Joined:</strong> Thu May 02, 2024 8:15 am</dd>
		</dl>

		<div class="postbody">
			<div id="post_content{id}">

			<h3 {h3class}>
				<a href="./viewtopic.php?p={id}#p{id}">{subject}</a>
			</h3>

			<ul class="post-buttons">
				<li>
					<a href="./posting.php?mode=quote&amp;p={id}" title="Reply with quote" class="button button-icon-only">
						<i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span>Quote</span>
					</a>
				</li>
			</ul>

			<p class="author">
				<a class="unread" href="./viewtopic.php?p={id}#p{id}" title="Post">
					<i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">Post</span>
				</a>
				<span class="responsive-hide">by <strong>{ul}</strong> &raquo; </span><time datetime="{iso}">{human}</time>
			</p>

			<div class="content">{text}</div>

			</div>
		</div>

		<div class="back2top">
			<a href="#top" class="top" title="Top">
				<i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i>
				<span class="sr-only">Top</span>
			</a>
		</div>

		</div>
	</div>

	<hr class="divider" />
"##,
            id = p.id,
            bg = 1 + p.id % 2,
            ul = user_link(p.user, "username"),
            h3class = if first { "class=\"first\"" } else { "" },
            text = p.text,
        )
    }

    /// A topic page; `here` is the request target without its leading `/`, which phpBB puts
    /// in the login link's `redirect` parameter (so a post permalink has its own login URL).
    fn viewtopic(b: &Board, t: usize, start: usize, here: &str) -> String {
        let ids = &b.topic_posts[t - 1];
        let f = b.forum_of(t);
        let title = b.topic_title(t);
        let print = if start == 0 {
            format!("./viewtopic.php?t={t}&amp;view=print")
        } else {
            format!("./viewtopic.php?t={t}&amp;start={start}&amp;view=print")
        };
        let pag = pagination(
            &format!("./viewtopic.php?t={t}"),
            &format!("{} posts", ids.len()),
            ids.len(),
            PER_PAGE,
            start,
        );
        let posts: String = ids
            .iter()
            .skip(start)
            .take(PER_PAGE)
            .map(|&id| post_html(b, &b.posts[id - 1], id == ids[0]))
            .collect();
        let body = format!(
            r##"<h2 class="topic-title"><a href="./viewtopic.php?t={t}">{title}</a></h2>
<div class="action-bar bar-top">
	<a href="./posting.php?mode=reply&amp;t={t}" class="button" title="Post a reply">
		<span>Post Reply</span> <i class="icon fa-reply fa-fw" aria-hidden="true"></i>
	</a>
	<div class="dropdown-container dropdown-button-control topic-tools">
		<span title="Topic tools" class="button button-secondary dropdown-trigger dropdown-select">
			<i class="icon fa-wrench fa-fw" aria-hidden="true"></i>
			<span class="caret"><i class="icon fa-sort-down fa-fw" aria-hidden="true"></i></span>
		</span>
		<div class="dropdown">
			<div class="pointer"><div class="pointer-inner"></div></div>
			<ul class="dropdown-contents">
				<li>
					<a href="{print}" title="Print view" accesskey="p">
						<i class="icon fa-print fa-fw" aria-hidden="true"></i><span>Print view</span>
					</a>
				</li>
			</ul>
		</div>
	</div>
	<div class="search-box" role="search">
		<form method="get" id="topic-search" action="./search.php">
		<fieldset>
			<input class="inputbox search tiny"  type="search" name="keywords" id="search_keywords" size="20" placeholder="Search this topic…" />
			<button class="button button-search" type="submit" title="Search"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></button>
			<input type="hidden" name="t" value="{t}" />
			<input type="hidden" name="sf" value="msgonly" />
		</fieldset>
		</form>
	</div>
	{pag}
</div>

{posts}
<div class="action-bar bar-bottom">
	<a href="./posting.php?mode=reply&amp;t={t}" class="button" title="Post a reply">
		<span>Post Reply</span> <i class="icon fa-reply fa-fw" aria-hidden="true"></i>
	</a>
	{pag}
</div>
{jump}
"##,
            jump = jumpbox(),
        );
        let canonical = if start == 0 {
            format!("viewtopic.php?t={t}")
        } else {
            format!("viewtopic.php?t={t}&amp;start={start}")
        };
        let head = format!(
            "\t<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Feed - Forum - {fname}\" href=\"/app.php/feed/forum/{f}\">\n\t<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Feed - Topic - {title}\" href=\"/app.php/feed/topic/{t}\">\n\t<link rel=\"canonical\" href=\"./{canonical}\">",
            fname = forum_name(f)
        );
        page(
            title,
            "section-viewtopic",
            here,
            &head,
            &[(format!("./viewforum.php?f={f}"), forum_name(f).to_string())],
            &body,
        )
    }

    /// `viewtopic.php?...&view=print`: the printable page, as `viewtopic_print.html` renders it.
    fn print_view(b: &Board, t: usize, start: usize) -> String {
        let ids = &b.topic_posts[t - 1];
        let mut posts = String::new();
        for &id in ids.iter().skip(start).take(PER_PAGE) {
            let p = &b.posts[id - 1];
            let (_, human) = time(p);
            posts.push_str(&format!(
                "\t<div class=\"post\">\n\t\t<h3>{}{}</h3>\n\t\t<div class=\"date\">Post by <strong>{}</strong> &raquo; {human}</div>\n\t\t<div class=\"content\">{}</div>\n\t</div>\n\t<hr />\n",
                if id == ids[0] { "" } else { "Re: " },
                b.topic_title(t),
                USERS[p.user].1,
                p.text
            ));
        }
        format!(
            r##"<!DOCTYPE html>
<html dir="ltr" lang="en-gb">
<head>
<meta charset="utf-8" />
<meta name="robots" content="noindex" />
<title>Heron Watchers &bull; {title}</title>
<link href="./styles/prosilver/theme/print.css" rel="stylesheet">
</head>
<body id="phpbb">
<div id="wrap" class="wrap">
	<a id="top" class="top-anchor" accesskey="t"></a>
	<div id="page-header">
		<h1>Heron Watchers</h1>
		<p>Herons, egrets and bitterns of the fens<br /><a href="./index.php">https://forum.example.org/</a></p>
		<h2>{title}</h2>
		<p><a href="./viewtopic.php?t={t}">https://forum.example.org/viewtopic.php?t={t}</a></p>
	</div>
	<div id="page-body" class="page-body">
		<div class="page-number">Page <strong>{page}</strong> of <strong>{pages}</strong></div>
{posts}	</div>
	<div id="page-footer" class="page-footer">
		<div class="page-number">All times are <span title="UTC">UTC</span><br />Page <strong>{page}</strong> of <strong>{pages}</strong></div>
		<div class="copyright">
			<p>Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</p>
			<p>https://www.phpbb.com/</p>
		</div>
	</div>
</div>
</body>
</html>
"##,
            title = b.topic_title(t),
            page = start / PER_PAGE + 1,
            pages = b.pages(t),
        )
    }

    /// The login box phpBB shows a guest for login, posting and profiles (`login_body.html`).
    fn login_box(here: &str, message: &str) -> String {
        let body = format!(
            r##"<form action="./ucp.php?mode=login" method="post" id="login" data-focus="username">
<div class="panel">
	<div class="inner">
	<div class="content">
		<h2 class="login-title">Login</h2>
		<p>{message}</p>
		<fieldset class="fields1">
		<dl>
			<dt><label for="username">Username:</label></dt>
			<dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" autocomplete="username" /></dd>
		</dl>
		<dl>
			<dt><label for="password">Password:</label></dt>
			<dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="current-password" /></dd>
			<dd><a href="./ucp.php?mode=sendpassword">I forgot my password</a></dd>
			<dd><a href="./ucp.php?mode=resend_act">Resend activation email</a></dd>
		</dl>
		<dl>
			<dd><label for="autologin"><input type="checkbox" name="autologin" id="autologin" tabindex="4" /> Remember me</label></dd>
			<dd><label for="viewonline"><input type="checkbox" name="viewonline" id="viewonline" tabindex="5" /> Hide my online status this session</label></dd>
		</dl>
		<input type="hidden" name="redirect" value="./{here}" />
		<input type="hidden" name="creation_time" value="1716800000" />
		<input type="hidden" name="form_token" value="6b0b9a1c0d6e2f3a4b5c6d7e8f901234abcdef01" />
		<dl>
			<dt>&nbsp;</dt>
			<dd><input type="submit" name="login" tabindex="6" value="Login" class="button1" /></dd>
		</dl>
		</fieldset>
	</div>
	</div>
</div>

<div class="panel">
	<div class="inner">
	<div class="content">
		<h3>Register</h3>
		<p>In order to login you must be registered. Registering takes only a few moments but gives you increased capabilities. The board administrator may also grant additional permissions to registered users. Before you register please ensure you are familiar with our terms of use and related policies. Please ensure you read any forum rules as you navigate around the board.</p>
		<p><strong><a href="./ucp.php?mode=terms">Terms of use</a> | <a href="./ucp.php?mode=privacy">Privacy policy</a></strong></p>
		<hr class="dashed" />
		<p><a href="./ucp.php?mode=register" class="button2">Register</a></p>
	</div>
	</div>
</div>
</form>
"##
        );
        page("Login", "section-ucp", "ucp.php", "", &[], &body)
    }

    const TERMS: &str = "By accessing \u{201c}Heron Watchers\u{201d} (hereinafter \u{201c}we\u{201d}, \u{201c}us\u{201d}, \u{201c}our\u{201d}, \u{201c}Heron Watchers\u{201d}, \u{201c}https://forum.example.org\u{201d}), you agree to be legally bound by the following terms. If you do not agree to be legally bound by all of the following terms then please do not access and/or use \u{201c}Heron Watchers\u{201d}. We may change these at any time and we\u{2019}ll do our utmost in informing you, though it would be prudent to review this regularly yourself as your continued usage of \u{201c}Heron Watchers\u{201d} after changes mean you agree to be legally bound by these terms as they are updated and/or amended.<br><br>Our forums are powered by phpBB (hereinafter \u{201c}they\u{201d}, \u{201c}them\u{201d}, \u{201c}their\u{201d}, \u{201c}phpBB software\u{201d}, \u{201c}www.phpbb.com\u{201d}, \u{201c}phpBB Limited\u{201d}, \u{201c}phpBB Teams\u{201d}) which is a bulletin board solution released under the \u{201c}GNU General Public License v2\u{201d} (hereinafter \u{201c}GPL\u{201d}) and can be downloaded from www.phpbb.com. The phpBB software only facilitates internet based discussions; phpBB Limited is not responsible for what we allow and/or disallow as permissible content and/or conduct.<br><br>You agree not to post any abusive, obscene, vulgar, slanderous, hateful, threatening, sexually-orientated or any other material that may violate any laws be it of your country, the country where \u{201c}Heron Watchers\u{201d} is hosted or International Law. Doing so may lead to you being immediately and permanently banned, with notification of your Internet Service Provider if deemed required by us. The IP address of all posts are recorded to aid in enforcing these conditions. You agree that \u{201c}Heron Watchers\u{201d} have the right to remove, edit, move or close any topic at any time should we see fit. As a user you agree to any information you have entered to being stored in a database. While this information will not be disclosed to any third party without your consent, neither \u{201c}Heron Watchers\u{201d} nor phpBB shall be held responsible for any hacking attempt that may lead to the data being compromised.";

    fn text_page(title: &str, here: &str, text: &str, form: &str) -> String {
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

    fn search_posts(b: &Board, u: u32, start: usize) -> String {
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

    fn search_topics(b: &Board, which: &str) -> String {
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

    fn search_form() -> String {
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

    fn faq() -> String {
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
    fn feed(b: &Board, base: &str, title: &str, self_path: &str, posts: &[&Post]) -> String {
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

    fn css(path: &str) -> String {
        // A stylesheet of realistic rule density (prosilver's files are 5-60 KB).
        let mut s = format!("/* phpBB3 Style Sheet\n    --------------------------------------------------------------\n\tStyle name:\t\t\tprosilver\n\tFile: {path}\n   -------------------------------------------------------------- */\n");
        for i in 0..120 {
            s.push_str(&format!(".rule-{i} .inner, .panel-{i} > dl {{ margin: {}px 0 {}px; padding: 0 {}px; color: #{:06x}; }}\n", i % 7, i % 5, i % 9, rnd(i) & 0xFF_FFFF));
        }
        s
    }

    /// Serves `target` on the board whose absolute base URL is `base`.
    pub fn serve(b: &Board, base: &str, target: &str) -> Served {
        let q = query(target);
        let num = |k: &str| q.get(k).and_then(|v| v.parse::<usize>().ok());
        let html = "text/html; charset=UTF-8";
        match path_of(target) {
            "/" | "/index.php" => served("listings (index, category, forums)", None, html, index(b, false)),
            "/viewforum.php" => match num("f") {
                Some(1) => served("listings (index, category, forums)", None, html, index(b, true)),
                Some(f) if FORUMS.iter().any(|x| x.0 as usize == f) => {
                    served("listings (index, category, forums)", None, html, viewforum(b, f as u32))
                }
                _ => missing(),
            },
            "/viewtopic.php" => {
                let (t, start) = match (num("t"), num("p")) {
                    (Some(t), _) if (1..=TOPICS.len()).contains(&t) => {
                        let start = num("start").unwrap_or(0);
                        if start % PER_PAGE != 0 || start >= b.topic_posts[t - 1].len() {
                            return missing();
                        }
                        (t, start)
                    }
                    (None, Some(p)) if (1..=b.posts.len()).contains(&p) => {
                        let t = b.posts[p - 1].topic;
                        let k = b.topic_posts[t - 1].iter().position(|&x| x == p).unwrap();
                        (t, k / PER_PAGE * PER_PAGE)
                    }
                    _ => return missing(),
                };
                if q.get("view").map(String::as_str) == Some("print") {
                    return served("print view", None, html, print_view(b, t, start));
                }
                let class = if num("p").is_some() {
                    "topic page (post permalink)"
                } else {
                    "topic page"
                };
                served(class, Some(key(t, start)), html, viewtopic(b, t, start, target.trim_start_matches('/')))
            }
            "/posting.php" => {
                let msg = match q.get("mode").map(String::as_str) {
                    Some("post") => "You need to login in order to post new topics within this forum.",
                    _ => "You need to login in order to reply to topics within this forum.",
                };
                served("reply / quote / new topic (login box)", None, html, login_box("posting.php", msg))
            }
            "/ucp.php" => match q.get("mode").map(String::as_str) {
                Some("login") => served("login / register", None, html, login_box("index.php", "")),
                Some("register") => served(
                    "login / register",
                    None,
                    html,
                    text_page("Registration", "ucp.php?mode=register", TERMS, "<form method=\"post\" action=\"./ucp.php?mode=register\" id=\"agreement\"><fieldset class=\"submit-buttons\"><input type=\"submit\" name=\"agreed\" id=\"agreed\" value=\"I agree to these terms\" class=\"button1\" />&nbsp; <input type=\"submit\" name=\"not_agreed\" value=\"I do not agree to these terms\" class=\"button2\" /></fieldset></form>"),
                ),
                Some("sendpassword") | Some("resend_act") | Some("delete_cookies") => served(
                    "login / register",
                    None,
                    html,
                    text_page("User Control Panel", &format!("ucp.php?mode={}", q["mode"]), "", &format!("<form action=\"./ucp.php?mode={}\" method=\"post\"><fieldset><dl><dt><label for=\"email\">Email address:</label></dt><dd><input class=\"inputbox\" type=\"email\" name=\"email\" id=\"email\" size=\"25\" maxlength=\"100\" /></dd></dl><input type=\"submit\" name=\"submit\" value=\"Submit\" class=\"button1\" /></fieldset></form>", q["mode"])),
                ),
                Some("privacy") => served("board pages (FAQ, terms, privacy)", None, html, text_page("Privacy policy", "ucp.php?mode=privacy", TERMS, "")),
                Some("terms") => served("board pages (FAQ, terms, privacy)", None, html, text_page("Terms of use", "ucp.php?mode=terms", TERMS, "")),
                _ => missing(),
            },
            "/memberlist.php" => match q.get("mode").map(String::as_str) {
                Some("contactadmin") => served(
                    "member profiles / team / contact",
                    None,
                    html,
                    text_page("Contact", "memberlist.php?mode=contactadmin", "", "<form method=\"post\" action=\"./memberlist.php?mode=contactadmin\" id=\"post\"><fieldset class=\"fields2\"><dl><dt><label for=\"email\">Your email address:</label></dt><dd><input class=\"inputbox autowidth\" type=\"email\" name=\"email\" id=\"email\" size=\"50\" maxlength=\"100\" /></dd></dl><dl><dt><label for=\"name\">Your name:</label></dt><dd><input class=\"inputbox autowidth\" type=\"text\" name=\"name\" id=\"name\" size=\"50\" /></dd></dl><dl><dt><label for=\"subject\">Subject:</label></dt><dd><input class=\"inputbox autowidth\" type=\"text\" name=\"subject\" id=\"subject\" size=\"50\" /></dd></dl><dl><dt><label for=\"message\">Message body:</label></dt><dd><textarea class=\"inputbox\" name=\"message\" id=\"message\" rows=\"15\" cols=\"76\"></textarea></dd></dl></fieldset><input type=\"submit\" class=\"button1\" name=\"submit\" value=\"Send email\" /></form>"),
                ),
                _ => served(
                    "member profiles / team / contact",
                    None,
                    html,
                    login_box("memberlist.php", "The board requires you to be registered and logged in to view this page."),
                ),
            },
            "/search.php" => {
                let body = if let Some(u) = num("author_id") {
                    search_posts(b, u as u32, num("start").unwrap_or(0))
                } else if let Some(which) = q.get("search_id") {
                    search_topics(b, which)
                } else {
                    search_form()
                };
                served("search", None, html, body)
            }
            "/app.php/help/faq" => served("board pages (FAQ, terms, privacy)", None, html, faq()),
            p if p.starts_with("/app.php/feed") => {
                let rest = p.trim_start_matches("/app.php/feed");
                let all: Vec<&Post> = b.posts.iter().collect();
                let posts: Vec<&Post> = if let Some(t) = rest.strip_prefix("/topic/") {
                    let t: usize = t.parse().unwrap_or(0);
                    all.into_iter().filter(|p| p.topic == t).collect()
                } else if let Some(f) = rest.strip_prefix("/forum/") {
                    let f: u32 = f.parse().unwrap_or(0);
                    all.into_iter().filter(|p| b.forum_of(p.topic) == f).collect()
                } else {
                    all
                };
                if posts.is_empty() {
                    return missing();
                }
                served("feeds", None, "application/atom+xml; charset=UTF-8", feed(b, base, "Heron Watchers", p, &posts))
            }
            p if p.ends_with(".css") => served("page requisites (CSS, JS)", None, "text/css", css(p)),
            p if p.ends_with(".js") => served(
                "page requisites (CSS, JS)",
                None,
                "application/javascript",
                format!("/* {p} */\n{}", "function phpbb_fn(a){return a;}\n".repeat(60)),
            ),
            _ => missing(),
        }
    }
}

/// A WordPress 6.7 blog with the Twenty Twenty-Five theme and default settings, as a visitor
/// (not logged in) sees it.
mod blog {
    use super::*;

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

    /// The document around `main`: head with feeds, REST API, RSD and generator, header with
    /// the site title and page list, footer with the calendar and categories.
    fn page(
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
    fn listing(
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

    fn comment(base: &str, p: &Post, c: usize, depth: usize) -> String {
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

    fn single(b: &Blog, base: &str, i: usize) -> String {
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

    fn about(b: &Blog, base: &str) -> String {
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

    /// RSS 2.0 of `posts` (at most 10, full content), as WordPress's `/feed/` family emits.
    fn rss(base: &str, title: &str, self_url: &str, posts: &[&Post]) -> String {
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
    fn comments_rss(base: &str, title: &str, self_url: &str, posts: &[&Post]) -> String {
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
    fn post_json(base: &str, p: &Post) -> String {
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
    fn api_index(base: &str) -> String {
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

    fn oembed(base: &str, p: &Post, xml: bool) -> (String, &'static str) {
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

    fn robots(base: &str) -> String {
        format!("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: {base}/wp-sitemap.xml\n")
    }

    fn urlset(urls: &[String]) -> String {
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?xml-stylesheet type=\"text/xsl\" href=\"/wp-sitemap.xsl\" ?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
        for u in urls {
            s.push_str(&format!("<url><loc>{u}</loc></url>"));
        }
        s.push_str("</urlset>\n");
        s
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
}

/// A fixture site: `(base URL, request target)` to response.
type Site = Arc<dyn Fn(&str, &str) -> Served + Send + Sync>;

/// What one crawl of a fixture site cost and reached.
struct Measure {
    requests: usize,
    bytes_received: u64,
    body_bytes: usize,
    archived: u64,
    app_skip: u64,
    terminal: BTreeSet<String>,
    terminal_fetches: usize,
    by_class: BTreeMap<&'static str, (usize, usize)>,
}

/// Crawls the site `serve` describes from `seed_path` to the end, with the helper on or off.
fn measure(name: &str, seed_path: &str, aah: bool, serve: Site) -> Measure {
    let web = FixtureWeb::start(1);
    let base = web.base(0);
    let (b, s) = (base.clone(), serve.clone());
    web.route_prefix(0, "/", move |target| s(&b, target).reply);
    let data = tempfile::tempdir().unwrap();
    let crawl = format!("{name}-{}", if aah { "on" } else { "off" });
    let spec = harness::spec(
        &crawl,
        &[web.url(0, seed_path)],
        json!({
            "aah": { "enabled": aah },
            "limits": { "max_pages": 20000 },
            // Commenters' avatars: the only off-site requisites; no network here.
            "scope": { "deny": ["^https?://secure\\.gravatar\\.com/"] }
        }),
    );
    let summary = harness::run(spec, data.path());
    assert_eq!(summary.stop_reason, "finished", "{summary:?}");
    let hits = web.hits();
    let mut by_class: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut body_bytes = 0;
    for h in &hits {
        let s = serve(&base, &h.target);
        let e = by_class.entry(s.class).or_default();
        e.0 += 1;
        e.1 += s.body_len;
        body_bytes += s.body_len;
    }
    // Terminal pages: from what was archived, by the content each response showed.
    let recs = harness::records(data.path(), &crawl);
    let mut terminal = BTreeSet::new();
    let mut terminal_fetches = 0;
    for r in recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
    {
        let target = r.uri.strip_prefix(&base).unwrap_or("/");
        if let Some(k) = serve(&base, target).terminal {
            terminal.insert(k);
            terminal_fetches += 1;
        }
    }
    Measure {
        requests: hits.len(),
        bytes_received: summary.bytes_received,
        body_bytes,
        archived: summary.pages_fetched,
        app_skip: summary
            .out_of_scope_by_reason
            .get("app-skip")
            .copied()
            .unwrap_or(0),
        terminal,
        terminal_fetches,
        by_class,
    }
}

fn pct(on: f64, off: f64) -> String {
    format!("{:.0}%", 100.0 * (off - on) / off)
}

fn report(site: &str, all_terminal: usize, off: &Measure, on: &Measure) -> String {
    let mut s =
        format!("\n#### {site}\n\n| | helper off | helper on | saved |\n|---|---:|---:|---:|\n");
    s.push_str(&format!(
        "| HTTP requests (robots.txt included) | {} | {} | {} |\n",
        off.requests,
        on.requests,
        pct(on.requests as f64, off.requests as f64)
    ));
    s.push_str(&format!(
        "| bytes received (`bytes_received`, headers included) | {} | {} | {} |\n",
        off.bytes_received,
        on.bytes_received,
        pct(on.bytes_received as f64, off.bytes_received as f64)
    ));
    s.push_str(&format!(
        "| response body bytes served | {} | {} | {} |\n",
        off.body_bytes,
        on.body_bytes,
        pct(on.body_bytes as f64, off.body_bytes as f64)
    ));
    s.push_str(&format!(
        "| responses archived (`pages_fetched`) | {} | {} | |\n",
        off.archived, on.archived
    ));
    s.push_str(&format!(
        "| terminal pages captured (of {all_terminal}) | {} | {} | |\n",
        off.terminal.len(),
        on.terminal.len()
    ));
    s.push_str(&format!(
        "| responses showing a terminal page (with duplicates) | {} | {} | |\n",
        off.terminal_fetches, on.terminal_fetches
    ));
    s.push_str(&format!(
        "| links refused by the helper (`app-skip`) | {} | {} | |\n",
        off.app_skip, on.app_skip
    ));
    s.push_str(&format!(
        "| requests per terminal page | {:.1} | {:.1} | |\n\nRequests (body bytes) by kind of target:\n\n| target | helper off | helper on |\n|---|---:|---:|\n",
        off.requests as f64 / off.terminal.len().max(1) as f64,
        on.requests as f64 / on.terminal.len().max(1) as f64
    ));
    let classes: BTreeSet<&str> = off
        .by_class
        .keys()
        .chain(on.by_class.keys())
        .copied()
        .collect();
    for c in classes {
        let f = |m: &Measure| {
            m.by_class
                .get(c)
                .map(|(n, b)| format!("{n} ({b})"))
                .unwrap_or_else(|| "0".into())
        };
        s.push_str(&format!("| {c} | {} | {} |\n", f(off), f(on)));
    }
    s
}

fn check(site: &str, all: &BTreeSet<String>, off: &Measure, on: &Measure) {
    // The plain crawl reaches every terminal page of the site: the fixture is connected.
    assert_eq!(
        &off.terminal, all,
        "{site}: helper off misses terminal pages"
    );
    let missed: Vec<&String> = off.terminal.difference(&on.terminal).collect();
    assert!(missed.is_empty(), "{site}: helper on misses {missed:?}");
    assert!(
        on.requests < off.requests,
        "{site}: requests {} vs {}",
        on.requests,
        off.requests
    );
    assert!(
        on.bytes_received < off.bytes_received,
        "{site}: bytes {} vs {}",
        on.bytes_received,
        off.bytes_received
    );
    assert!(
        on.app_skip > 0 && off.app_skip == 0,
        "{site}: app-skip {} / {}",
        on.app_skip,
        off.app_skip
    );
}

#[test]
fn helper_saves_requests_and_bytes_on_a_phpbb_forum_and_reaches_the_same_topic_pages() {
    let board = Arc::new(forum::Board::new());
    let all = board.terminal_keys();
    assert!(all.len() >= 20, "a few dozen terminal pages: {}", all.len());
    let b = board.clone();
    let serve: Site = Arc::new(move |base, target| forum::serve(&b, base, target));
    let off = measure("forum", "/", false, serve.clone());
    let on = measure("forum", "/", true, serve);
    println!(
        "{}",
        report(
            &format!(
                "phpBB forum: {} topics, {} posts, {} topic pages",
                forum::TOPICS.len(),
                board.posts.len(),
                all.len()
            ),
            all.len(),
            &off,
            &on
        )
    );
    check("forum", &all, &off, &on);
}

#[test]
fn helper_saves_requests_and_bytes_on_a_wordpress_blog_and_reaches_the_same_posts() {
    let blog = Arc::new(blog::Blog::new());
    let all = blog.terminal_keys();
    assert!(all.len() >= 20, "a few dozen terminal pages: {}", all.len());
    let b = blog.clone();
    let serve: Site = Arc::new(move |base, target| blog::serve(&b, base, target));
    let off = measure("blog", "/", false, serve.clone());
    let on = measure("blog", "/", true, serve);
    let comments: usize = blog.posts.iter().map(|p| p.comments).sum();
    println!(
        "{}",
        report(
            &format!(
                "WordPress blog: {} posts, {comments} comments, 1 static page",
                blog.posts.len()
            ),
            all.len(),
            &off,
            &on
        )
    );
    check("blog", &all, &off, &on);
}
