//! The helper's reading of unknown applications: pages kept, read again and revised.

use super::*;

#[test]
fn a_host_without_any_category_is_read_ten_times_then_one_page_in_ten() {
    let helper = Helper::from_kb(crate::aah::builtin().unwrap());
    let plain = "<html><head><title>Opening hours</title></head><body><h1>Opening hours</h1>\
                <p>We are open from nine to five on weekdays, and closed on public holidays \
                all through the year, as the sign on the door says.</p></body></html>";
    let pages = |helper: &Helper| helper.model_of("shop.example").map_or(0, |m| m.pages());
    let mut i = 0;
    let mut read = |helper: &Helper, page: &str| {
        i += 1;
        let url = Url::parse(&format!("http://shop.example/p{i}")).unwrap();
        helper.analyze(&url, &[], page.as_bytes(), &[]).unwrap().app
    };
    let topics = [
        "Opening hours",
        "Delivery",
        "Returns",
        "Gift cards",
        "Repairs",
        "Our shop",
        "Careers",
        "Contact",
        "Privacy",
        "Terms",
        "Press",
        "Stockists",
        "Sizes",
        "Care",
        "Bulk orders",
        "Events",
        "Workshops",
        "Rentals",
        "Samples",
    ];
    for (n, topic) in topics.into_iter().enumerate() {
        // Pages of their own: a block repeated on most pages of a host is its furniture.
        let page = plain.replace("Opening hours", topic).replace(
            "weekdays",
            &format!("weekdays about {}", topic.to_lowercase()),
        );
        let m = read(&helper, &page);
        assert!(m.application.is_none());
        // Read while the host is not given up, with no application claimed: the page's kind,
        // title and body all the same; passed over after.
        let kind = m.level.map(|l| l.kind);
        if n < MAX_READS_WITHOUT_CATEGORY as usize {
            assert_eq!(kind, Some(LevelKind::Terminal), "page {n}");
            let title = m.objects[0].fields.iter().find(|(k, _)| k == "title");
            assert_eq!(title.map(|(_, v)| v.as_str()), Some(topic));
        } else {
            assert_eq!(kind, None, "page {n}");
        }
    }
    assert_eq!(pages(&helper), MAX_READS_WITHOUT_CATEGORY);
    // The twentieth page is read again, and a blog found then is read from there on.
    let post = format!(
        "<html><head><title>Crust</title><meta name=\"generator\" content=\"blog engine\">\
         </head><body><article itemscope itemtype=\"https://schema.org/BlogPosting\">\
         <h1>Crust</h1><p>{}</p></article></body></html>",
        "A good crust comes from a hot oven and a little steam at the start. ".repeat(8)
    );
    let m = read(&helper, &post);
    assert_eq!(pages(&helper), MAX_READS_WITHOUT_CATEGORY + 1);
    assert_eq!(m.application.map(|a| a.category), Some(Category::Blog));
    let m = read(&helper, &post);
    assert_eq!(m.application.map(|a| a.category), Some(Category::Blog));
    // The pages passed over were kept unread, and are read now that the host said blog: the
    // first ten as well as the nine after them.
    let revised: Vec<String> = helper
        .settle()
        .unwrap()
        .into_iter()
        .filter(|r| r.reading.application.as_ref().map(|a| a.category) == Some(Category::Blog))
        .map(|r| r.reading.url)
        .collect();
    for p in ["/p1", "/p10", "/p11", "/p19"] {
        assert!(
            revised.iter().any(|u| u.ends_with(p)),
            "{p} read again: {revised:?}"
        );
    }
}

#[test]
fn a_page_read_before_its_host_showed_a_category_is_read_again_with_its_capture() {
    let helper = Helper::from_kb(crate::aah::builtin().unwrap());
    let read = |path: &str, page: &str, id: &str| {
        let url = Url::parse(&format!("http://blog.example{path}")).unwrap();
        let capture = Capture {
            record_id: id.into(),
            date: "2026-11-29T00:00:00Z".into(),
        };
        let doc = crate::parse::HtmlDoc::parse(page.as_bytes(), None, &Default::default());
        let (reading, taught) = helper
            .read_doc(&url, &[], &doc, &[], Some(capture))
            .unwrap();
        if let Some(due) = helper.learn(taught) {
            helper.reread_done(due.run());
        }
        reading.app
    };
    let home = "<html><head><title>Field notes</title></head><body><h1>Field notes</h1>\
                <p>Notes from walks along the river, written up in the evening when the \
                light is gone and the kettle is on.</p></body></html>";
    assert!(read("/", home, "<urn:uuid:1>").application.is_none());
    helper.archived("<urn:uuid:1>");
    let post = |title: &str| {
        format!(
            "<html><head><title>{title}</title><meta name=\"generator\" content=\"blog \
             engine\"></head><body><article itemscope \
             itemtype=\"https://schema.org/BlogPosting\"><h1>{title}</h1><p>{}</p>\
             </article></body></html>",
            "A good crust comes from a hot oven and a little steam at the start. ".repeat(8)
        )
    };
    for (i, t) in ["Crust", "Crumb", "Rye"].iter().enumerate() {
        let m = read(&format!("/posts/{i}"), &post(t), "<urn:uuid:x>");
        assert_eq!(m.application.map(|a| a.category), Some(Category::Blog));
    }
    let revisions = helper.settle().unwrap();
    let home = revisions
        .iter()
        .find(|r| r.reading.url == "http://blog.example/")
        .expect("the home page is read again");
    assert_eq!(
        home.capture.as_ref().map(|c| c.record_id.as_str()),
        Some("<urn:uuid:1>")
    );
    let app = home.reading.application.as_ref().unwrap();
    assert_eq!(
        (app.name.as_str(), app.category),
        ("unknown", Category::Blog)
    );
    assert!(home
        .reading
        .actions
        .iter()
        .any(|a| a.action == REREAD_ACTION));
    assert!(
        helper.settle().unwrap().is_empty(),
        "each page is read again once"
    );
}

#[test]
fn a_damaged_record_in_the_helpers_store_is_an_error_for_the_crawl() {
    use crate::store::{Key, Store, WriteSet};
    let store = Store::temporary().unwrap();
    let mut ws = WriteSet::default();
    let key = Key::Adoption {
        host: "blog.example",
        application: UNKNOWN_APP,
        action: CATEGORY_ACTION,
    };
    ws.put(key.bytes(), b"{\"host\": ".to_vec());
    store.commit(ws).unwrap();
    let helper = Helper::from_kb(crate::aah::builtin().unwrap()).with_store(store);
    let url = Url::parse("http://blog.example/").unwrap();
    let page = b"<html><body><p>Hello</p></body></html>";
    let e = helper
        .analyze(&url, &[], page, &[])
        .expect_err("the damaged adoption is reported");
    assert!(e.to_string().contains("blog.example"), "{e}");
    // The host's memory is never built from what could be read: the next page meets it too.
    assert!(helper.analyze(&url, &[], page, &[]).is_err());
    let other = Url::parse("http://other.example/").unwrap();
    assert!(helper.analyze(&other, &[], page, &[]).is_ok());
}
