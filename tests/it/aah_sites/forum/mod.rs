//! The phpBB board: its topics, posts and users, and what it serves for each request target.

mod extra;
mod listing;
mod topic;

use super::*;
use extra::*;
use listing::*;
use topic::*;

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
