//! Tests of the host model: furniture, template votes, sections and its bounds.

use super::*;

fn root() -> url::Url {
    url::Url::parse("http://h/").unwrap()
}

fn shape(u: &str) -> Shape {
    Shape::of(&url::Url::parse(u).unwrap())
}

#[test]
fn furniture_is_what_most_pages_share_once_three_are_read() {
    let mut m = HostModel::default();
    let nav: HashSet<u64> = [1].into();
    let both: HashSet<u64> = [1, 2].into();
    m.observe(
        &root(),
        None,
        &both,
        &HashSet::new(),
        &[0; 6],
        shape("http://h/a"),
    );
    m.observe(
        &root(),
        None,
        &nav,
        &HashSet::new(),
        &[0; 6],
        shape("http://h/b"),
    );
    assert!(!m.is_furniture(1), "two pages are too few to say");
    m.observe(
        &root(),
        None,
        &nav,
        &HashSet::new(),
        &[0; 6],
        shape("http://h/c"),
    );
    assert!(m.is_furniture(1));
    assert!(!m.is_furniture(2), "one page of three");
}

#[test]
fn a_template_has_furniture_the_host_does_not() {
    let mut m = HostModel::default();
    let menu: HashSet<u64> = [7].into();
    for i in 0..6 {
        m.observe(
            &root(),
            None,
            &HashSet::new(),
            &HashSet::new(),
            &[0; 6],
            shape(&format!("http://h/{i}")),
        );
    }
    for n in 0..3 {
        assert!(
            !m.is_template_furniture("+index/*", 7),
            "{n} pages are too few"
        );
        m.observe(
            &root(),
            None,
            &menu,
            &HashSet::new(),
            &[0; 6],
            shape(&format!("http://h/+index/{n}")),
        );
        m.observe_template("+index/*", &menu);
    }
    assert!(m.is_template_furniture("+index/*", 7));
    assert!(!m.is_furniture(7), "three pages of the host's nine");
    assert!(!m.is_template_furniture("other/*", 7));
    m.observe_template("+index/*", &HashSet::new());
    assert!(
        !m.is_template_furniture("+index/*", 7),
        "three of four is under the template's share"
    );
    for _ in 0..6 {
        m.observe_template("+index/*", &HashSet::new());
    }
    for _ in 0..20 {
        m.observe_template("+index/*", &menu);
    }
    assert!(
        !m.is_template_furniture("+index/*", 7),
        "learned from the first ten pages, where it was on three"
    );
    for _ in 0..20 {
        m.observe_template("late/*", &menu);
    }
    assert!(m.is_template_furniture("late/*", 7));
    assert!(m.template_keys.len() <= 2, "{} keys", m.template_keys.len());
}

#[test]
fn a_weak_reading_follows_its_templates_majority() {
    let mut m = HostModel::default();
    m.vote("t/N".into(), LevelKind::Terminal);
    assert_eq!(m.template_kind("t/N"), None, "one vote is too few");
    m.vote("t/N".into(), LevelKind::Terminal);
    m.vote("t/N".into(), LevelKind::Intermediate);
    assert_eq!(m.template_kind("t/N"), Some(LevelKind::Terminal));
    m.vote("t/N".into(), LevelKind::Intermediate);
    assert_eq!(m.template_kind("t/N"), None, "two against two");
}

#[test]
fn tables_are_bounded() {
    let mut m = HostModel::default();
    for i in 0..(MAX_KEYS as u64 + 10) {
        m.observe(
            &root(),
            None,
            &[i].into(),
            &HashSet::new(),
            &[0; 6],
            shape("http://h/"),
        );
    }
    assert_eq!(m.keys.len(), MAX_KEYS);
}

#[test]
fn a_section_named_for_another_category_with_its_own_evidence_keeps_it() {
    let at = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap();
    let (mut blog, mut docs, mut lists) = ([0; 6], [0; 6], [0; 6]);
    blog[at(Category::Blog)] = 4;
    docs[at(Category::Docs)] = 3;
    docs[at(Category::Blog)] = 1;
    // Lists with feeds and dates (NodeBB's `/category/`).
    lists[at(Category::Blog)] = 2;
    let mut m = HostModel::default();
    let page = |u: &str| url::Url::parse(u).unwrap();
    for i in 0..10 {
        let u = page(&format!("http://h/blog/post-{i}"));
        m.observe(
            &u,
            None,
            &HashSet::new(),
            &HashSet::new(),
            &blog,
            Shape::of(&u),
        );
        let u = page(&format!("http://h/category/{i}/x"));
        m.observe(
            &u,
            None,
            &HashSet::new(),
            &HashSet::new(),
            &lists,
            Shape::of(&u),
        );
    }
    let doc = page("http://h/docs/intro");
    assert_eq!(
        m.section_category(&doc, None),
        None,
        "no page of /docs/ read yet"
    );
    for i in 0..MIN_PAGES {
        let u = page(&format!("http://h/docs/part-{i}"));
        m.observe(
            &u,
            None,
            &HashSet::new(),
            &HashSet::new(),
            &docs,
            Shape::of(&u),
        );
    }
    assert_eq!(m.category(), Some(Category::Blog));
    assert_eq!(m.section_category(&doc, None), Some(Category::Docs));
    // A section named for nothing is part of the rest of the host, here a blog.
    assert_eq!(
        m.section_category(&page("http://h/category/1/x"), None),
        Some(Category::Blog)
    );
}

#[test]
fn the_rest_of_a_host_beside_a_section_named_for_a_category_keeps_its_own() {
    let at = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap();
    let (mut blog, mut docs) = ([0; 6], [0; 6]);
    blog[at(Category::Blog)] = 4;
    docs[at(Category::Docs)] = 3;
    let mut m = HostModel::default();
    let page = |u: &str| url::Url::parse(u).unwrap();
    let mut read = |u: &str, e: &[u32; 6]| {
        let u = page(u);
        m.observe(&u, None, &HashSet::new(), &HashSet::new(), e, Shape::of(&u));
    };
    for i in 0..10 {
        read(&format!("http://h/blog/2023/post-{i}"), &blog);
    }
    for i in 0..4 {
        read(&format!("http://h/birds/bird-{i}/"), &docs);
    }
    assert_eq!(m.category(), Some(Category::Blog));
    // A split host: each part has its own, the host's included, whichever was read first.
    assert_eq!(
        m.section_category(&page("http://h/blog/2023/x"), None),
        Some(Category::Blog)
    );
    assert_eq!(
        m.section_category(&page("http://h/blog/"), None),
        Some(Category::Blog)
    );
    assert_eq!(
        m.section_category(&page("http://h/birds/heron/"), None),
        Some(Category::Docs)
    );
    assert_eq!(
        m.section_category(&page("http://h/about/"), None),
        Some(Category::Docs)
    );
}
