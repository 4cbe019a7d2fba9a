//! The engine's archiving: appending an exchange's records to the WARC file, with a payload
//! archived before written as a revisit of its first capture (looked up in memory, then in the
//! store).

use super::*;

/// The first capture of a payload, for revisit records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Original {
    pub(super) id: String,
    pub(super) uri: String,
    pub(super) date: String,
}

impl Engine {
    /// Appends an exchange's records; a payload archived before becomes a revisit.
    pub(super) fn archive(
        &mut self,
        r: &EncodedRecords,
    ) -> Result<Archived, crate::crawl::CrawlError> {
        let info = &r.info;
        self.stats.bytes_received.fetch_add(r.response_len, Relaxed);
        let before = self.writer.bytes_written();
        let dedup = self.spec.raw.warc.dedup
            && (200..300).contains(&info.status)
            && info.truncated.is_none();
        let original = if dedup {
            self.lookup_digest(&info.payload_digest)?
        } else {
            None
        };
        let revisit = match &original {
            Some(o) => {
                let common = RecordCommon {
                    record_id: &r.record_id,
                    date: &r.date,
                    target_uri: &info.url,
                    warcinfo_id: &r.warcinfo_id,
                    ip: Some(info.ip),
                };
                Some(archive::revisit_record(
                    &common,
                    &info.payload_digest,
                    &o.id,
                    &o.uri,
                    &o.date,
                    &r.http_head,
                    self.spec.raw.warc.gzip_level,
                )?)
            }
            None => None,
        };
        // The exchange's records go to one file; the writer re-points them at that file's
        // warcinfo if it rotated since the worker encoded them.
        let first = revisit.as_deref().unwrap_or(&r.response);
        let locations = self
            .writer
            .append_encoded_for(&[first, &r.request_and_metadata], &r.warcinfo_id)?;
        if original.is_some() {
            self.stats.revisits.fetch_add(1, Relaxed);
        } else if dedup {
            let o = Original {
                id: r.record_id.clone(),
                uri: info.url.clone(),
                date: r.date.clone(),
            };
            let v = crate::crawl::state::to_json(&o, "a payload's first capture")?;
            self.frontier
                .stage(keys::digest_key(&info.payload_digest), v);
            self.digests.insert(info.payload_digest.clone(), o);
        }
        let written = self.writer.bytes_written().saturating_sub(before);
        self.stats.warc_bytes.fetch_add(written, Relaxed);
        self.rotate_log_with_warc()?;
        Ok(Archived {
            locations,
            revisit_of: original.map(|o| RevisitOf {
                record_id: o.id,
                url: o.uri,
                date: o.date,
            }),
        })
    }

    fn lookup_digest(
        &mut self,
        digest: &str,
    ) -> Result<Option<Original>, crate::crawl::CrawlError> {
        if let Some(o) = self.digests.get(digest) {
            return Ok(Some(o.clone()));
        }
        let found: Option<Original> = crate::crawl::state::read_json(
            &self.frontier,
            &keys::digest_key(digest),
            &format!("the first capture of payload {digest}"),
        )?;
        if let Some(o) = &found {
            self.digests.insert(digest.to_string(), o.clone());
        }
        Ok(found)
    }
}
