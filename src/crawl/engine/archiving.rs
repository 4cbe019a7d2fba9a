//! The archiver: the part that owns the WARC writer and records each payload's first capture
//! for the revisits later workers encode (see `crawl::dedup`). The engine appends through it
//! and commits what it hands back.

use super::Engine;
use crate::archive::WarcWriter;
use crate::archive::{ArchiveError, Checkpoint};
use crate::crawl::dedup::{Dedup, Original};
use crate::crawl::online::Archived;
use crate::crawl::records::EncodedRecords;
use crate::crawl::stats::Stats;
use crate::frontier::contract::CrawlFrontier;
use crate::index::RevisitOf;
use crate::store::Entry;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// The WARC writer and the first captures, behind the few calls the engine makes.
pub(crate) struct Archiver {
    writer: WarcWriter,
    dedup: Option<Dedup>,
    stats: Arc<Stats>,
}

impl Archiver {
    /// An archiver writing through `writer`; `dedup` (whose view the workers ask) when
    /// `warc.dedup` is on: the archiver alone records first captures.
    pub(crate) fn new(writer: WarcWriter, dedup: Option<Dedup>, stats: Arc<Stats>) -> Self {
        Archiver {
            writer,
            dedup,
            stats,
        }
    }

    /// The `WARC-Warcinfo-ID` records encoded now should name.
    pub(super) fn warcinfo_id(&self) -> &str {
        self.writer.warcinfo_id()
    }

    /// Appends an exchange's records, as the worker encoded them. Returns where they landed
    /// and, for a payload's first capture, the store write that remembers it.
    pub(super) fn archive(
        &mut self,
        r: &EncodedRecords,
    ) -> Result<(Archived, Option<Entry>), crate::crawl::CrawlError> {
        let info = &r.info;
        self.stats.bytes_received.fetch_add(r.response_len, Relaxed);
        let before = self.writer.bytes_written();
        // The exchange's records go to one file; the writer re-points them at that file's
        // warcinfo if it rotated since the worker encoded them.
        let locations = self
            .writer
            .append_encoded_for(&[&r.response, &r.request_and_metadata], &r.warcinfo_id)?;
        let mut first = None;
        if r.revisit_of.is_some() {
            self.stats.revisits.fetch_add(1, Relaxed);
        } else if let Some(dedup) = self.dedup.as_ref().filter(|_| Dedup::applies_to(info)) {
            // A capture of the same payload appended while this one was being encoded stays
            // the original; this one is kept in full.
            if dedup.appended(&info.payload_digest).is_none() {
                let o = Original {
                    id: r.record_id.clone(),
                    uri: info.url.clone(),
                    date: r.date.clone(),
                };
                first = Some(dedup.first_capture(&info.payload_digest, o)?);
            }
        }
        let written = self.writer.bytes_written().saturating_sub(before);
        self.stats.warc_bytes.fetch_add(written, Relaxed);
        let archived = Archived {
            locations,
            revisit_of: r.revisit_of.clone().map(RevisitOf::from),
        };
        Ok((archived, first))
    }

    /// Appends records about earlier captures (the helper's later readings of pages), encoded
    /// for the warcinfo `encoded_for`.
    pub(super) fn append_later(
        &mut self,
        records: &[u8],
        encoded_for: &str,
    ) -> Result<(), ArchiveError> {
        let before = self.writer.bytes_written();
        self.writer.append_encoded_for(&[records], encoded_for)?;
        let written = self.writer.bytes_written().saturating_sub(before);
        self.stats.warc_bytes.fetch_add(written, Relaxed);
        Ok(())
    }

    /// Whether archiving `r` opens or rotates a WARC file.
    pub(super) fn rotates(&self, r: &EncodedRecords) -> bool {
        let len = (r.response.len() + r.request_and_metadata.len()) as u64;
        self.writer.opens_a_file(len)
    }

    /// Flushes and fsyncs the open file.
    pub(super) fn sync(&mut self) -> Result<(), ArchiveError> {
        self.writer.sync()
    }

    /// How far the archive is written, for the commit.
    pub(super) fn checkpoint(&self) -> Option<Checkpoint> {
        self.writer.checkpoint()
    }

    /// The files written so far (sealed and open).
    pub(super) fn files(&self) -> Vec<String> {
        self.writer.files()
    }

    /// Seals the open file; returns every file sealed.
    pub(super) fn close(self) -> Result<Vec<PathBuf>, ArchiveError> {
        self.writer.close()
    }
}

impl<F: CrawlFrontier> Engine<F> {
    /// Appends an exchange's records, stages its first capture for the next commit and
    /// rotates the crawl log with the WARC files. An append that seals a file and opens the
    /// next (fsync, rename) runs off the async workers, like a commit.
    pub(super) fn archive(
        &mut self,
        r: &EncodedRecords,
    ) -> Result<Archived, crate::crawl::CrawlError> {
        if self.archiver.rotates(r) {
            return crate::blocking::off_the_workers(|| self.archive_now(r));
        }
        self.archive_now(r)
    }

    /// Appends records about earlier captures ([`Archiver::append_later`]), off the async
    /// workers when that rotates a file.
    pub(super) fn archive_later(
        &mut self,
        records: &[u8],
        encoded_for: &str,
    ) -> Result<(), crate::crawl::CrawlError> {
        if records.is_empty() {
            return Ok(());
        }
        let rotates = self.archiver.writer.opens_a_file(records.len() as u64);
        let mut now = || -> Result<(), crate::crawl::CrawlError> {
            self.archiver.append_later(records, encoded_for)?;
            self.rotate_log_with_warc()
        };
        if rotates {
            return crate::blocking::off_the_workers(now);
        }
        now()
    }

    /// Appends the helper's later readings of earlier pages, made by the workers since the
    /// last call, as metadata records about those pages' captures. Taken here, on the engine,
    /// so that a worker only reads: what it read again waits in the helper for the engine.
    pub(super) fn archive_revisions(&mut self) -> Result<(), crate::crawl::CrawlError> {
        let Some(h) = &self.ctx.helper else {
            return Ok(());
        };
        let revisions = h.take_revisions();
        if revisions.is_empty() {
            return Ok(());
        }
        let id = self.archiver.warcinfo_id().to_owned();
        let records =
            crate::crawl::records::encode_revisions(&revisions, &id, self.ctx.gzip_level)?;
        self.archive_later(&records, &id)
    }

    /// At the end of the crawl, reads again the pages the helper kept, with all their hosts
    /// taught (`Helper::settle`, off the async workers), and archives the new readings.
    pub(super) fn archive_second_readings(&mut self) -> Result<(), crate::crawl::CrawlError> {
        let Some(h) = self.ctx.helper.clone() else {
            return Ok(());
        };
        let id = self.archiver.warcinfo_id().to_owned();
        let level = self.ctx.gzip_level;
        let later = crate::blocking::off_the_workers(|| {
            let revisions = h.settle()?;
            Ok::<_, crate::crawl::CrawlError>(crate::crawl::records::encode_revisions(
                &revisions, &id, level,
            )?)
        })?;
        self.archive_later(&later, &id)
    }

    fn archive_now(&mut self, r: &EncodedRecords) -> Result<Archived, crate::crawl::CrawlError> {
        let (archived, first) = self.archiver.archive(r)?;
        // A page the helper kept to read again may be read now: its capture is written.
        if let Some(h) = &self.ctx.helper {
            h.archived(&r.record_id);
        }
        if let Some((key, value)) = first {
            self.state.put(key, value);
        }
        self.rotate_log_with_warc()?;
        Ok(archived)
    }
}
