//! The engine's archiving: appending an exchange's records to the WARC file, and recording a
//! payload's first capture for the revisits that later workers encode (see `crawl::dedup`).

use super::*;
use crate::crawl::dedup::{Dedup, Original};

impl Engine {
    /// Appends an exchange's records, as the worker encoded them.
    pub(super) fn archive(
        &mut self,
        r: &EncodedRecords,
    ) -> Result<Archived, crate::crawl::CrawlError> {
        let info = &r.info;
        self.stats.bytes_received.fetch_add(r.response_len, Relaxed);
        let before = self.writer.bytes_written();
        // The exchange's records go to one file; the writer re-points them at that file's
        // warcinfo if it rotated since the worker encoded them.
        let locations = self
            .writer
            .append_encoded_for(&[&r.response, &r.request_and_metadata], &r.warcinfo_id)?;
        if r.revisit_of.is_some() {
            self.stats.revisits.fetch_add(1, Relaxed);
        } else if let Some(dedup) = self.ctx.dedup.as_ref().filter(|_| Dedup::applies_to(info)) {
            // A capture of the same payload appended while this one was being encoded stays
            // the original; this one is kept in full.
            if dedup.appended(&info.payload_digest).is_none() {
                let o = Original {
                    id: r.record_id.clone(),
                    uri: info.url.clone(),
                    date: r.date.clone(),
                };
                let (key, value) = dedup.first_capture(&info.payload_digest, o)?;
                self.frontier.stage(key, value);
            }
        }
        let written = self.writer.bytes_written().saturating_sub(before);
        self.stats.warc_bytes.fetch_add(written, Relaxed);
        self.rotate_log_with_warc()?;
        Ok(Archived {
            locations,
            revisit_of: r.revisit_of.clone().map(RevisitOf::from),
        })
    }
}
