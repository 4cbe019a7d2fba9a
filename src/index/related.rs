//! The metadata records written next to a capture (its `related` span in the index: the
//! request record and the metadata records), read back for people: the crawl's
//! `application/warc-fields` record, the analysis record with every outlink's score components
//! (`application/vnd.magpie.analysis+json`) and the application-aware helper's findings
//! (`application/vnd.magpie.aah+json`). See `docs/warc.md`.

use super::lookup::CaptureRef;
use super::{record_path, IndexError};
use crate::archive::{ArchiveError, WarcReader};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Largest metadata block read (a page with very many outlinks still fits).
pub const MAX_METADATA_BYTES: u64 = 8 << 20;

/// One metadata record of a capture.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRecord {
    /// Its `Content-Type` (`application/warc-fields`, `application/vnd.magpie.analysis+json`, ...).
    pub content_type: String,
    /// Its `WARC-Record-ID`.
    pub record_id: String,
    /// The block as text (lossy UTF-8, at most [`MAX_METADATA_BYTES`]).
    pub text: String,
    /// The block parsed, for JSON records that parse.
    pub json: Option<serde_json::Value>,
}

impl MetadataRecord {
    /// Whether the record has this media type (parameters ignored).
    pub fn is(&self, media_type: &str) -> bool {
        self.content_type
            .split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case(media_type))
    }
}

/// The metadata records of a capture, in file order; none when the index has no related span
/// for it (an index rebuilt from WARC files without them, a capture made by another tool).
pub fn metadata_records(
    warc_dir: &Path,
    capture: &CaptureRef,
) -> Result<Vec<MetadataRecord>, IndexError> {
    let Some(rel) = &capture.related else {
        return Ok(vec![]);
    };
    let path = record_path(warc_dir, &rel.file);
    let mut file = File::open(&path).map_err(|e| ArchiveError::file(&path, e))?;
    file.seek(SeekFrom::Start(rel.offset))
        .map_err(|e| ArchiveError::file(&path, e))?;
    let span = BufReader::new(file.take(rel.length));
    let mut reader = WarcReader::with_origin(span, path.display().to_string(), rel.offset)?;
    let mut out = Vec::new();
    while let Some(head) = reader.next_record()? {
        if head.record_type() != "metadata" {
            continue;
        }
        let mut block = Vec::new();
        reader
            .block()
            .take(MAX_METADATA_BYTES)
            .read_to_end(&mut block)
            .map_err(|e| ArchiveError::Corrupt {
                file: path.display().to_string(),
                offset: head.offset,
                message: format!("reading a metadata block: {e}"),
            })?;
        let content_type = head.field("Content-Type").unwrap_or("").to_string();
        let json = if content_type.contains("json") {
            serde_json::from_slice(&block).ok()
        } else {
            None
        };
        out.push(MetadataRecord {
            record_id: head.record_id().to_string(),
            content_type,
            text: String::from_utf8_lossy(&block).into_owned(),
            json,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::test_crawl::{Page, SimCrawl};
    use crate::index::{index_dir, warc_dir, Index};

    #[test]
    fn reads_the_metadata_records_of_a_capture() {
        let data = tempfile::tempdir().unwrap();
        let warcs = warc_dir(data.path(), "c");
        let mut sim = SimCrawl::new(&warcs, 1 << 20);
        let doc = sim.archive(Page::html("/one", "", "<title>One</title><p>osprey</p>"));
        let cp = sim.checkpoint();
        let index = Index::open(&index_dir(data.path(), "c")).unwrap();
        let mut w = index.writer().unwrap();
        w.add_capture(&doc).unwrap();
        w.commit(Some(&cp)).unwrap();
        drop(w);
        index.refresh().unwrap();
        let caps = index.captures_of(&doc.url).unwrap();
        let records = metadata_records(&warcs, &caps[0]).unwrap();
        assert_eq!(records.len(), 1, "the crawl's metadata record: {records:?}");
        assert!(records[0].is("application/warc-fields"), "{records:?}");
        assert!(!records[0].record_id.is_empty());
        assert!(records[0].json.is_none());
        let mut none = caps[0].clone();
        none.related = None;
        assert!(metadata_records(&warcs, &none).unwrap().is_empty());
        sim.close();
    }
}
