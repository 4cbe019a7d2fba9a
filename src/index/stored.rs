//! Reading stored documents back: typed accessors and the conversions to search hits and
//! capture references.

use super::doc::{from_tantivy_time, CaptureKind, Location, RevisitOf};
use super::lookup::CaptureRef;
use super::schema::Fields;
use super::search::{Hit, ObjectInfo};
use tantivy::schema::{Field, Value};
use tantivy::TantivyDocument;

/// A stored document with the schema's field handles.
pub(super) struct Stored<'a> {
    doc: &'a TantivyDocument,
    f: &'a Fields,
}

impl<'a> Stored<'a> {
    pub fn new(doc: &'a TantivyDocument, f: &'a Fields) -> Self {
        Stored { doc, f }
    }

    pub fn text(&self, field: Field) -> Option<String> {
        self.doc
            .get_first(field)
            .and_then(|v| v.as_str().map(str::to_string))
    }

    fn string(&self, field: Field) -> String {
        self.text(field).unwrap_or_default()
    }

    fn u64(&self, field: Field) -> Option<u64> {
        self.doc.get_first(field).and_then(|v| v.as_u64())
    }

    fn f32(&self, field: Field) -> Option<f32> {
        self.doc
            .get_first(field)
            .and_then(|v| v.as_f64())
            .map(|v| v as f32)
    }

    pub fn kind(&self) -> CaptureKind {
        self.text(self.f.kind)
            .and_then(|k| CaptureKind::parse(&k))
            .unwrap_or(CaptureKind::Capture)
    }

    fn time(&self) -> chrono::DateTime<chrono::Utc> {
        self.doc
            .get_first(self.f.time)
            .and_then(|v| v.as_datetime())
            .map(from_tantivy_time)
            .unwrap_or_default()
    }

    fn location(&self) -> Location {
        Location {
            file: self.string(self.f.warc_file),
            offset: self.u64(self.f.offset).unwrap_or(0),
            length: self.u64(self.f.length).unwrap_or(0),
        }
    }

    fn related(&self) -> Option<Location> {
        Some(Location {
            file: self.text(self.f.related_file)?,
            offset: self.u64(self.f.related_offset)?,
            length: self.u64(self.f.related_length)?,
        })
    }

    fn revisit_of(&self) -> Option<RevisitOf> {
        Some(RevisitOf {
            record_id: self.text(self.f.refers_to)?,
            url: self.string(self.f.refers_to_url),
            date: self.string(self.f.refers_to_date),
        })
    }

    pub fn hit(&self, rank: f32, snippet: String) -> Hit {
        let f = self.f;
        let kind = self.kind();
        let object = (kind == CaptureKind::Object).then(|| ObjectInfo {
            object_type: self.string(f.object_type),
            parent_record_id: self.string(f.parent),
            author: self.text(f.author),
        });
        Hit {
            kind,
            url: self.string(f.url),
            host: self.string(f.host),
            domain: self.string(f.domain),
            time: self.time(),
            status: self.u64(f.status).and_then(|s| u16::try_from(s).ok()),
            mime: self.text(f.mime),
            lang: self.text(f.lang),
            title: self.text(f.title),
            app: self.text(f.app),
            level: self.text(f.level),
            relevance: self.f32(f.relevance),
            score: self.f32(f.score),
            digest: self.text(f.digest),
            record_id: self.text(f.record_id),
            location: self.location(),
            object,
            snippet,
            rank,
        }
    }

    /// The capture a page document stands for; for an object, `None` (see `parent`).
    pub fn capture_ref(&self) -> Option<CaptureRef> {
        let f = self.f;
        let kind = self.kind();
        if kind == CaptureKind::Object {
            return None;
        }
        Some(CaptureRef {
            url: self.string(f.url),
            time: self.time(),
            status: self
                .u64(f.status)
                .and_then(|s| u16::try_from(s).ok())
                .unwrap_or(0),
            mime: self.string(f.mime),
            digest: self.string(f.digest),
            kind,
            record_id: self.string(f.record_id),
            hops: self.string(f.hops),
            location: self.location(),
            related: self.related(),
            revisit_of: self.revisit_of(),
        })
    }

    /// For an object, the record ID of its capture.
    pub fn parent(&self) -> Option<String> {
        self.text(self.f.parent)
    }
}

impl Stored<'_> {
    /// The capture document as stored, to compare rebuilt indexes with live ones.
    pub fn capture_doc(&self) -> Option<super::CaptureDoc> {
        let f = self.f;
        let c = self.capture_ref()?;
        Some(super::CaptureDoc {
            url: c.url,
            host: self.string(f.host),
            domain: self.string(f.domain),
            time: c.time,
            status: c.status,
            mime: c.mime,
            lang: self.text(f.lang),
            title: self.text(f.title),
            text: self.string(f.text),
            relevance: self.f32(f.relevance),
            score: self.f32(f.score),
            app: self.text(f.app),
            level: self.text(f.level),
            digest: c.digest,
            kind: c.kind,
            record_id: c.record_id,
            hops: c.hops,
            revisit_of: c.revisit_of,
            location: c.location,
            related: c.related,
        })
    }
}
