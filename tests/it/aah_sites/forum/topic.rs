//! Topic pages, posts, print views and the login box phpBB shows a guest.

use super::*;

pub(super) fn post_html(b: &Board, p: &Post, first: bool) -> String {
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
pub(super) fn viewtopic(b: &Board, t: usize, start: usize, here: &str) -> String {
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
pub(super) fn print_view(b: &Board, t: usize, start: usize) -> String {
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
pub(super) fn login_box(here: &str, message: &str) -> String {
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
