//! The response byte store: memory for small responses, an anonymous temp file for large ones.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

/// The exact response bytes of one exchange (head and body as received).
///
/// Most pages are small and stay in memory; a large body (video, archive, PDF) would make a
/// worker's memory grow with `max_body_bytes`, so past a threshold the bytes move to an unnamed
/// temporary file (deleted by the OS when the spool is dropped) and are streamed back from disk
/// by the WARC writer.
pub struct Spool {
    mem: Vec<u8>,
    file: Option<File>,
    len: u64,
}

impl std::fmt::Debug for Spool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spool")
            .field("len", &self.len)
            .field("on_disk", &self.file.is_some())
            .finish()
    }
}

impl Spool {
    /// An empty spool.
    pub fn new() -> Spool {
        Spool {
            mem: Vec::new(),
            file: None,
            len: 0,
        }
    }

    /// A spool holding `bytes` in memory; lets other stages build exchanges in tests and tools.
    pub fn from_bytes(bytes: Vec<u8>) -> Spool {
        Spool {
            len: bytes.len() as u64,
            mem: bytes,
            file: None,
        }
    }

    /// Appends bytes, spilling everything to a temp file in `dir` once the total would exceed
    /// `mem_max`. Writes to the file are plain blocking writes: they land in the page cache and
    /// cost microseconds, far less than handing each one to a blocking thread.
    pub fn append(&mut self, data: &[u8], mem_max: usize, dir: &Path) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        match &mut self.file {
            Some(f) => f.write_all(data)?,
            None if self.mem.len() + data.len() <= mem_max => self.mem.extend_from_slice(data),
            None => {
                let mut f = tempfile::tempfile_in(dir)?;
                f.write_all(&self.mem)?;
                f.write_all(data)?;
                self.mem = Vec::new();
                self.file = Some(f);
            }
        }
        self.len += data.len() as u64;
        Ok(())
    }

    /// Prepares memory for a response of `total` bytes when it will fit under `mem_max`, so a
    /// body of known length is stored without repeated reallocation.
    pub fn reserve(&mut self, total: u64, mem_max: usize) {
        if self.file.is_none() && total <= mem_max as u64 {
            self.mem
                .reserve_exact((total as usize).saturating_sub(self.mem.len()));
        }
    }

    /// Total bytes held.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the bytes live in a temp file rather than in memory.
    pub fn is_spilled(&self) -> bool {
        self.file.is_some()
    }

    /// The bytes, when they are in memory (no copy); `None` once spilled.
    pub fn as_slice(&self) -> Option<&[u8]> {
        match self.file {
            None => Some(&self.mem),
            Some(_) => None,
        }
    }

    /// A reader over the whole block, from the first byte; several may be open at once.
    pub fn reader(&self) -> io::Result<Box<dyn Read + '_>> {
        Ok(match &self.file {
            None => Box::new(&self.mem[..]),
            Some(file) => Box::new(FileReader {
                file,
                pos: 0,
                end: self.len,
            }),
        })
    }

    /// Up to `max` bytes starting at `start` (fewer at the end; empty past the end).
    pub fn read_range(&self, start: u64, max: usize) -> io::Result<Vec<u8>> {
        let end = self.len.min(start.saturating_add(max as u64));
        if start >= end {
            return Ok(Vec::new());
        }
        let want = (end - start) as usize;
        match &self.file {
            None => Ok(self.mem[start as usize..end as usize].to_vec()),
            Some(file) => {
                let mut out = vec![0u8; want];
                let mut done = 0;
                while done < want {
                    let n = read_at(file, &mut out[done..], start + done as u64)?;
                    if n == 0 {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    done += n;
                }
                Ok(out)
            }
        }
    }
}

impl Default for Spool {
    fn default() -> Self {
        Spool::new()
    }
}

/// Reads a spilled spool by position, so readers never share (or race on) a file offset.
struct FileReader<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
}

impl Read for FileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(self.file, &mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 31 % 251) as u8).collect()
    }

    #[test]
    fn stays_in_memory_below_threshold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut s = Spool::new();
        s.append(b"hello ", 16, dir.path()).expect("append");
        s.append(b"world", 16, dir.path()).expect("append");
        assert!(!s.is_spilled());
        assert_eq!(s.len(), 11);
        assert_eq!(s.as_slice(), Some(&b"hello world"[..]));
        assert_eq!(s.read_range(6, 100).expect("range"), b"world");
        assert_eq!(s.read_range(20, 5).expect("range"), b"");
    }

    #[test]
    fn spills_to_disk_and_reads_back_identically() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = pattern(300_000);
        let mut s = Spool::new();
        for piece in data.chunks(7_001) {
            s.append(piece, 64 * 1024, dir.path()).expect("append");
        }
        assert!(s.is_spilled());
        assert_eq!(s.as_slice(), None);
        assert_eq!(s.len(), data.len() as u64);
        // Two readers at once do not disturb each other.
        let mut a = s.reader().expect("reader");
        let mut b = s.reader().expect("reader");
        let mut first = [0u8; 1000];
        a.read_exact(&mut first).expect("read");
        let mut all_b = Vec::new();
        b.read_to_end(&mut all_b).expect("read");
        let mut rest_a = Vec::new();
        a.read_to_end(&mut rest_a).expect("read");
        assert_eq!(&first[..], &data[..1000]);
        assert_eq!(rest_a, &data[1000..]);
        assert_eq!(all_b, data);
        assert_eq!(
            s.read_range(123_456, 777).expect("range"),
            &data[123_456..124_233]
        );
        assert_eq!(s.read_range(299_990, 100).expect("range"), &data[299_990..]);
        // The temp file lives in the spool directory but has no name there.
        let names = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(names, 0);
    }

    #[test]
    fn empty_spool() {
        let s = Spool::from_bytes(Vec::new());
        assert!(s.is_empty());
        let mut out = Vec::new();
        s.reader()
            .expect("reader")
            .read_to_end(&mut out)
            .expect("read");
        assert!(out.is_empty());
    }
}
