//! One gzip member from one in-memory record, with libdeflate and per-thread reused state.
//!
//! At thousands of pages per second, gzip is the largest single cost of archiving. libdeflate
//! compresses a whole buffer in one call, faster than a streaming zlib at the same level and
//! with smaller output at the fast levels (on the sample web: level 1 writes about a quarter
//! less than zlib's level 1 at nearly the same speed). Its compressor, the record's plaintext
//! and the output buffer are kept per thread and reused, so encoding a record allocates only
//! the finished member. Records larger than [`ONE_SHOT_MAX`] stream through flate2 instead
//! (see `record::encode_record`), so memory stays bounded for huge blocks.

use super::ArchiveError;
use libdeflater::{CompressionLvl, Compressor};
use std::cell::RefCell;

/// Largest record plaintext (head, block and trailer) compressed in one call.
pub(crate) const ONE_SHOT_MAX: u64 = 4 << 20;

/// Buffers above this capacity are not kept between records, so a thread that once encoded a
/// large record does not hold its buffers for the rest of the crawl.
const KEEP_CAPACITY: usize = 1 << 20;

/// What one thread reuses from record to record.
struct Scratch {
    level: i32,
    compressor: Compressor,
    plain: Vec<u8>,
    out: Vec<u8>,
}

impl Scratch {
    fn new(level: i32) -> Result<Scratch, ArchiveError> {
        let lvl = CompressionLvl::new(level)
            .map_err(|_| ArchiveError::Config(format!("gzip level {level} is not supported")))?;
        Ok(Scratch {
            level,
            compressor: Compressor::new(lvl),
            plain: Vec::new(),
            out: Vec::new(),
        })
    }

    /// Runs `fill` to write the plaintext, then compresses it into one gzip member.
    fn member(
        &mut self,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<(), ArchiveError>,
    ) -> Result<Vec<u8>, ArchiveError> {
        self.plain.clear();
        let filled = fill(&mut self.plain);
        let member = filled.and_then(|()| {
            let bound = self.compressor.gzip_compress_bound(self.plain.len());
            if self.out.len() < bound {
                self.out.resize(bound, 0);
            }
            let n = self
                .compressor
                .gzip_compress(&self.plain, &mut self.out[..bound])
                .map_err(|e| {
                    ArchiveError::Io(std::io::Error::other(format!("gzip compression: {e:?}")))
                })?;
            Ok(self.out[..n].to_vec())
        });
        if self.plain.capacity() > KEEP_CAPACITY {
            self.plain = Vec::new();
        }
        if self.out.capacity() > KEEP_CAPACITY {
            self.out = Vec::new();
        }
        member
    }
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// Compresses the plaintext that `fill` appends to an empty buffer into one complete gzip
/// member at `level` (0-9; 0 stores). Uses this thread's reused compressor and buffers.
pub(crate) fn member(
    level: u32,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<(), ArchiveError>,
) -> Result<Vec<u8>, ArchiveError> {
    let level = level.min(9) as i32;
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.as_ref().is_none_or(|s| s.level != level) {
                *slot = Some(Scratch::new(level)?);
            }
            match slot.as_mut() {
                Some(scratch) => scratch.member(fill),
                None => Scratch::new(level)?.member(fill),
            }
        }
        // Only if `fill` itself encodes a record on this thread: use a private scratch.
        Err(_) => Scratch::new(level)?.member(fill),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;
    use std::io::Read;

    fn gunzip(member: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        GzDecoder::new(member)
            .read_to_end(&mut out)
            .expect("valid gzip");
        out
    }

    #[test]
    fn every_level_round_trips_and_reuse_is_clean() {
        let text: Vec<u8> = (0..50_000u32)
            .flat_map(|i| format!("word{} ", i % 97).into_bytes())
            .collect();
        for level in [0, 1, 6, 9, 12] {
            let big = member(level, |b| {
                b.extend_from_slice(&text);
                Ok(())
            })
            .expect("compress");
            assert_eq!(gunzip(&big), text, "level {level}");
            // A small record right after a big one must not see leftovers.
            let small = member(level, |b| {
                b.extend_from_slice(b"abc");
                Ok(())
            })
            .expect("compress");
            assert_eq!(gunzip(&small), b"abc");
        }
        let stored = member(0, |b| {
            b.extend_from_slice(&text);
            Ok(())
        })
        .expect("store");
        let fast = member(1, |b| {
            b.extend_from_slice(&text);
            Ok(())
        })
        .expect("compress");
        assert!(fast.len() * 4 < stored.len(), "level 1 compresses text");
    }

    #[test]
    fn a_failing_fill_is_reported_and_leaves_the_scratch_usable() {
        let err = member(1, |b| {
            b.extend_from_slice(b"partial");
            Err(ArchiveError::Config("boom".into()))
        });
        assert!(matches!(err, Err(ArchiveError::Config(_))));
        let ok = member(1, |b| {
            b.extend_from_slice(b"whole");
            Ok(())
        })
        .expect("compress");
        assert_eq!(gunzip(&ok), b"whole");
    }

    #[test]
    fn nested_use_on_one_thread_does_not_panic() {
        let outer = member(1, |b| {
            let inner = member(1, |c| {
                c.extend_from_slice(b"inner");
                Ok(())
            })?;
            b.extend_from_slice(&gunzip(&inner));
            b.extend_from_slice(b"+outer");
            Ok(())
        })
        .expect("compress");
        assert_eq!(gunzip(&outer), b"inner+outer");
    }
}
