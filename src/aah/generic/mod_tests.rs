//! Tests of the reader of unknown applications as a whole: pages read alone and with their host.

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
    let re =
        |n: u32| format!("<li><strong><a href=\"msg{n}.html\">Re: Heron at dusk</a></strong></li>");
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

#[test]
fn an_h4_is_the_title_only_when_it_holds_the_title_s_parts() {
    // Texinfo's subsection: its node name (in `<title>`) writes the heading's colon as a dash.
    let page = |h4: &str| {
        read_alone(&format!(
            "<html><head><title>Winter visit - the wren (11)</title></head><body><h4>{h4}</h4>\
             <p>We compared two maps from 1856 and found the curlew drawn in a different place \
             on each, and the mill race too, which nobody could explain until the miller's notes \
             turned up.</p><h4>Winter visit</h4><p>Anyone who walks to Harwick on a grey \
             morning will notice how the lapwing changes with the season.</p></body></html>"
        ))
    };
    let reading = page("4.1.3 Winter visit: the wren (11)");
    assert_eq!(
        reading.title.as_deref(),
        Some("4.1.3 Winter visit: the wren (11)"),
        "{reading:?}"
    );
    let reading = page("Sketches");
    assert_eq!(
        reading.title.as_deref(),
        Some("Winter visit - the wren (11)"),
        "a short h4 inside the title is a part of the page: {reading:?}"
    );
    // A card's title drawn as an `h4` classed as a title counts as a `div` so classed would.
    let reading = read_alone(
        "<html><head><title>The wren at dusk: notes from the hide</title></head><body>\
         <h4 class=\"card-title\">The wren at dusk</h4><p>We compared two maps from 1856 and \
         found the curlew drawn in a different place on each, and the mill race too, which \
         nobody could explain until the miller's notes turned up.</p></body></html>",
    );
    assert_eq!(
        reading.title.as_deref(),
        Some("The wren at dusk"),
        "{reading:?}"
    );
}

#[test]
fn whole_posts_in_cards_under_linked_titles_are_a_list() {
    // staticsite's default theme: each post in a card whose header holds its linked title.
    let card = |n: u32| {
        format!(
            "<div class=\"card\"><div class=\"card-header\"><h3><a href=\"/posts/p{n}\">Post \
             {n}</a></h3></div><div class=\"card-body\"><p>{}</p></div></div>",
            "A long walk by the river, told at length with every bird seen. ".repeat(15)
        )
    };
    let page: String = (1..=3).map(card).collect();
    let list = read_alone(&format!(
        "<html><body><h1>birds</h1><div class=\"col\">{page}</div></body></html>"
    ));
    assert_eq!(list.kind, Some(LevelKind::Intermediate));
    // A post whose header links to its author is no entry of a list.
    let post = format!(
        "<html><body><div class=\"card\"><div class=\"card-header\"><h1>Post 1</h1>\
         <a href=\"/people/ann\">Ann</a></div><div class=\"card-body\"><p>{}</p></div></div>\
         </body></html>",
        "A long walk by the river, told at length with every bird seen. ".repeat(15)
    );
    assert_eq!(read_alone(&post).kind, Some(LevelKind::Terminal));
}

#[test]
fn an_item_s_text_starts_at_its_title_written_as_code_across_inline_breaks() {
    // pydoctor's class page: the dotted name broken by `<wbr>`, a short docstring, then the
    // members, which hold most of the text.
    let method = |n: u32| {
        format!(
            "<div class=\"method\"><div class=\"header\">def wade_{n}(self)</div><p>{}</p></div>",
            "Wades through the shallows at the river's edge, slowly, looking for fish. ".repeat(4)
        )
    };
    let methods: String = (1..=6).map(method).collect();
    let r = read_alone(&format!(
        "<html><head><title>pkg.Heron</title></head><body><main><div class=\"page-header\">\
         <h1><code><a href=\"/pkg.html\">pkg</a><wbr>.<wbr><a href=\"/pkg.Heron.html\">Heron</a>\
         </code></h1></div><div class=\"doc\"><p>A grey heron, standing still in the reeds \
         until a fish comes by.</p></div><div id=\"child-list\">{methods}</div></main></body>\
         </html>"
    ));
    assert_eq!(r.kind, Some(LevelKind::Terminal));
    let body = r.body.expect("a body");
    assert!(body.starts_with("A grey heron"), "{body}");
}

#[test]
fn a_heading_saying_only_a_date_is_not_the_title() {
    // Blosxom's entry: the `<title>` and `h1` are the blog's name, a day's header above the
    // entry, then the entry's own heading.
    let page = |date: &str| {
        read_alone(&format!(
            "<html><head><title></title></head><body><h2>{date}</h2><div><h3><a \
             name=\"wren\">What the wren tells us</a></h3><div><p>Anyone who walks to the \
             Ouse valley on a still morning will notice how the wren changes with the season, \
             and the mill race too, which nobody could explain.</p></div></div></body></html>"
        ))
    };
    for date in [
        "Thu, 09 Feb 2023",
        "February 9th, 2023",
        "2023-02-09",
        "June 2023",
    ] {
        assert_eq!(
            page(date).title.as_deref(),
            Some("What the wren tells us"),
            "{date}"
        );
    }
    assert_eq!(
        page("Winter visit").title.as_deref(),
        Some("Winter visit"),
        "a heading that is not a date stays first"
    );
}
