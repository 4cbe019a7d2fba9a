//! The knowledge base compiled into the program: the files of `kb/`, so a crawl gets the
//! application-aware helper without a knowledge-base folder at hand (`aah.kb` unset).

use super::kb::KnowledgeBase;
use super::AahError;
use std::path::Path;

/// `(file name, text)` of every application of `kb/`.
const FILES: [(&str, &str); 12] = [
    ("blogger.xml", include_str!("../../kb/blogger.xml")),
    ("discourse.xml", include_str!("../../kb/discourse.xml")),
    ("dokuwiki.xml", include_str!("../../kb/dokuwiki.xml")),
    ("drupal.xml", include_str!("../../kb/drupal.xml")),
    ("ghost.xml", include_str!("../../kb/ghost.xml")),
    ("joomla.xml", include_str!("../../kb/joomla.xml")),
    ("mediawiki.xml", include_str!("../../kb/mediawiki.xml")),
    ("phpbb.xml", include_str!("../../kb/phpbb.xml")),
    ("smf.xml", include_str!("../../kb/smf.xml")),
    ("vbulletin.xml", include_str!("../../kb/vbulletin.xml")),
    ("wordpress.xml", include_str!("../../kb/wordpress.xml")),
    ("xenforo.xml", include_str!("../../kb/xenforo.xml")),
];

/// The built-in knowledge base. Errors (only possible if `kb/` itself is broken, which the
/// tests rule out) name the file as `builtin:kb/<file>`.
pub fn builtin() -> Result<KnowledgeBase, AahError> {
    let apps = FILES
        .iter()
        .map(|(name, text)| KnowledgeBase::parse_file(text, &Path::new("builtin:kb").join(name)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KnowledgeBase::from_apps(apps))
}

#[cfg(test)]
mod tests {
    #[test]
    fn builtin_equals_the_kb_folder() {
        let built = super::builtin().expect("built-in knowledge base");
        let folder = super::KnowledgeBase::load(std::path::Path::new("kb")).expect("kb/");
        let ids =
            |kb: &super::KnowledgeBase| kb.apps.iter().map(|a| a.id.clone()).collect::<Vec<_>>();
        assert_eq!(
            ids(&built),
            ids(&folder),
            "every kb/*.xml file is compiled in"
        );
    }
}
