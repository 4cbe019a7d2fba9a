//! One gzip member from one in-memory record, with libdeflate and per-thread reused state.
//!
//! At thousands of pages per second, gzip is the largest single cost of archiving. libdeflate
//! compresses a whole buffer in one call, faster than a streaming zlib at the same level and
//! with smaller output at the fast levels (on the sample web: level 1 writes about a quarter
//! less than zlib's level 1 at nearly the same speed). Its compressor, the record's plaintext
//! and the output buffer are kept per thread and reused, so encoding a record allocates only
//! the finished member. Records larger than [`ONE_SHOT_MAX`] stream through flate2 instead
//! (see `record::encode_record`), so memory stays bounded for huge blocks.
//!
//! A member may begin with a *stored head*: the first bytes of the plaintext in an uncompressed
//! deflate block, the rest compressed after it, all one standard gzip member any reader
//! inflates. A record's encoder stores its first lines (`WARC-Type`, `WARC-Warcinfo-ID`) that
//! way, so when the WARC file rotates while the record is on its way, the writer swaps the
//! warcinfo ID in place and mends the CRC ([`patch_stored`]): no record is compressed twice.

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

    /// Runs `fill` to write the plaintext, then compresses it into one gzip member, its first
    /// bytes (as many as `fill` returns) in a stored head.
    fn member(
        &mut self,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<usize, ArchiveError>,
    ) -> Result<Vec<u8>, ArchiveError> {
        self.plain.clear();
        let filled = fill(&mut self.plain);
        let member = filled.and_then(|stored| {
            let plain = &self.plain;
            let stored = if stored <= MAX_STORED && plain.len() < u32::MAX as usize {
                stored.min(plain.len())
            } else {
                0
            };
            let bound = self.compressor.deflate_compress_bound(plain.len() - stored);
            if self.out.len() < bound {
                self.out.resize(bound, 0);
            }
            let n = self
                .compressor
                .deflate_compress(&plain[stored..], &mut self.out[..bound])
                .map_err(|e| {
                    ArchiveError::Io(std::io::Error::other(format!("gzip compression: {e:?}")))
                })?;
            let mut member = Vec::with_capacity(n + stored + 32);
            start_member(&mut member, &plain[..stored]);
            member.extend_from_slice(&self.out[..n]);
            end_member(&mut member, libdeflater::crc32(plain), plain.len() as u64);
            Ok(member)
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

/// The gzip header of every member magpie writes (no name, no time, unknown OS).
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
/// Where a stored head's bytes begin: after the gzip header and the stored block's own header.
const STORED_AT: usize = 15;
/// Longest stored head (a stored block holds at most 65,535 bytes).
pub(crate) const MAX_STORED: usize = u16::MAX as usize;

/// Starts a member: the gzip header, then `stored` (at most [`MAX_STORED`] bytes, possibly none)
/// as a non-final stored deflate block. The deflate data that follows starts on a byte boundary.
pub(crate) fn start_member(out: &mut Vec<u8>, stored: &[u8]) {
    out.extend_from_slice(&GZIP_HEADER);
    if !stored.is_empty() {
        let len = stored.len() as u16;
        out.push(0); // BFINAL 0, BTYPE 00 (stored), padding to the byte boundary
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(stored);
    }
}

/// Ends a member: CRC-32 and length (modulo 2^32) of the whole plaintext.
pub(crate) fn end_member(out: &mut Vec<u8>, crc: u32, len: u64) {
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&(len as u32).to_le_bytes());
}

/// `member` with `old` replaced by `new` (of the same length) where it first occurs in the
/// member's stored head, and the CRC mended to match; `None` when the member has no stored
/// head holding `old`. Neither inflates nor compresses: CRC-32 is affine, so the CRC of the
/// changed plaintext is the old one plus the CRC of the difference shifted past the bytes that
/// follow it.
pub(crate) fn patch_stored(member: &[u8], old: &[u8], new: &[u8]) -> Option<Vec<u8>> {
    if old.len() != new.len() || old.is_empty() || member.len() < STORED_AT + 8 {
        return None;
    }
    if member[..GZIP_HEADER.len()] != GZIP_HEADER || member[10] != 0 {
        return None;
    }
    let len = u16::from_le_bytes([member[11], member[12]]);
    let nlen = u16::from_le_bytes([member[13], member[14]]);
    let end = STORED_AT + len as usize;
    if nlen != !len || member.len() < end + 8 {
        return None;
    }
    // The head `encode_record` stores ends with the line to patch. Anything else (a stored
    // block another encoder wrote, as zlib does at level 0 or on incompressible data) may be
    // part of a record of 4 GiB or more, whose length the trailer cannot give: not patched.
    if !member[STORED_AT..end].ends_with(old) {
        return None;
    }
    let at = end - old.len();
    let trailer = member.len() - 8;
    let crc = u32::from_le_bytes(member[trailer..trailer + 4].try_into().ok()?);
    let size = u32::from_le_bytes(member[trailer + 4..].try_into().ok()?) as u64;
    // Bytes of plaintext after the changed ones: the total (exact, members with a stored head
    // are under 4 GiB) less what precedes them and the changed bytes themselves.
    let after = size.checked_sub((at - STORED_AT + old.len()) as u64)?;
    let diff: Vec<u8> = old.iter().zip(new).map(|(a, b)| a ^ b).collect();
    // The CRC's linear part of the difference: crc(diff) less the CRC of as many zero bytes.
    let linear = libdeflater::crc32(&diff) ^ libdeflater::crc32(&vec![0; diff.len()]);
    let mut shifted = crc32fast::Hasher::new_with_initial(linear);
    shifted.combine(&crc32fast::Hasher::new_with_initial_len(0, after));
    let mut out = member.to_vec();
    out[at..at + new.len()].copy_from_slice(new);
    out[trailer..trailer + 4].copy_from_slice(&(crc ^ shifted.finalize()).to_le_bytes());
    Some(out)
}

/// The gzip members `data` holds one after another, found by inflating them (nothing is kept
/// of the plaintext); `None` when `data` is not a run of whole, valid members.
pub(crate) fn split_members(data: &[u8]) -> Option<Vec<&[u8]>> {
    let mut parts = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let before = rest.len();
        // The `bufread` decoder consumes exactly its member, trailer included.
        let mut member = flate2::bufread::GzDecoder::new(&mut rest);
        std::io::copy(&mut member, &mut std::io::sink()).ok()?;
        drop(member);
        let start = data.len() - before;
        let used = before - rest.len();
        if used == 0 {
            return None;
        }
        parts.push(&data[start..start + used]);
    }
    Some(parts)
}

/// Compresses the plaintext that `fill` appends to an empty buffer into one complete gzip
/// member at `level` (0-9; 0 stores); the first bytes, as many as `fill` returns (up to
/// [`MAX_STORED`]), go into a stored head. Uses this thread's reused compressor and buffers.
pub(crate) fn member(
    level: u32,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<usize, ArchiveError>,
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
                Ok(0)
            })
            .expect("compress");
            assert_eq!(gunzip(&big), text, "level {level}");
            // A small record right after a big one must not see leftovers.
            let small = member(level, |b| {
                b.extend_from_slice(b"abc");
                Ok(0)
            })
            .expect("compress");
            assert_eq!(gunzip(&small), b"abc");
        }
        let stored = member(0, |b| {
            b.extend_from_slice(&text);
            Ok(0)
        })
        .expect("store");
        let fast = member(1, |b| {
            b.extend_from_slice(&text);
            Ok(0)
        })
        .expect("compress");
        assert!(fast.len() * 4 < stored.len(), "level 1 compresses text");
    }

    #[test]
    fn a_stored_head_inflates_and_patches_in_place() {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("w{} ", i % 89).into_bytes())
            .collect();
        let old = b"<urn:uuid:00000000-1111-2222-3333-444444444444>";
        let new = b"<urn:uuid:99999999-aaaa-bbbb-cccc-dddddddddddd>";
        for level in [0, 1, 9] {
            let m = member(level, |b| {
                b.extend_from_slice(b"WARC/1.1\r\nWARC-Warcinfo-ID: ");
                b.extend_from_slice(old);
                let stored = b.len();
                b.extend_from_slice(b"\r\n");
                b.extend_from_slice(&text);
                Ok(stored)
            })
            .expect("compress");
            let plain = gunzip(&m);
            assert!(plain.ends_with(&text) && plain.len() == 28 + old.len() + 2 + text.len());
            let patched = patch_stored(&m, old, new).expect("the id is in the stored head");
            assert_eq!(patched.len(), m.len(), "patched in place");
            let want = String::from_utf8(plain).unwrap().replace(
                std::str::from_utf8(old).unwrap(),
                std::str::from_utf8(new).unwrap(),
            );
            // GzDecoder checks the CRC and the length: a wrong mend fails here.
            assert_eq!(gunzip(&patched), want.as_bytes(), "level {level}");
            assert!(patch_stored(&m, b"not there", b"nor there").is_none());
            // Only the end of the stored head is patched (where the encoder puts the line).
            assert!(patch_stored(&m, b"WARC/1.1", b"WARC/9.9").is_none());
            assert!(patch_stored(&m, old, b"shorter").is_none());
        }
        // The ID only in the compressed part is not patched (the caller re-encodes).
        let m = member(1, |b| {
            b.extend_from_slice(old);
            Ok(0)
        })
        .unwrap();
        assert!(patch_stored(&m, old, new).is_none());
    }

    #[test]
    fn members_in_a_row_are_split_where_they_end() {
        let one = member(1, |b| {
            b.extend_from_slice(b"first record");
            Ok(5)
        })
        .unwrap();
        let two = member(9, |b| {
            b.extend_from_slice(&[7u8; 70_000]);
            Ok(0)
        })
        .unwrap();
        let both = [one.clone(), two.clone()].concat();
        assert_eq!(split_members(&both), Some(vec![&one[..], &two[..]]));
        assert_eq!(split_members(&one), Some(vec![&one[..]]));
        assert_eq!(split_members(&both[..both.len() - 3]), None, "a cut member");
        assert_eq!(split_members(b"not gzip at all"), None);
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
            Ok(0)
        })
        .expect("compress");
        assert_eq!(gunzip(&ok), b"whole");
    }

    #[test]
    fn nested_use_on_one_thread_does_not_panic() {
        let outer = member(1, |b| {
            let inner = member(1, |c| {
                c.extend_from_slice(b"inner");
                Ok(0)
            })?;
            b.extend_from_slice(&gunzip(&inner));
            b.extend_from_slice(b"+outer");
            Ok(0)
        })
        .expect("compress");
        assert_eq!(gunzip(&outer), b"inner+outer");
    }
}
