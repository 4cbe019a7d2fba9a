//! The rotating WARC file writer: appends pre-encoded gzip members, opens files lazily with a
//! warcinfo record, rotates by size, seals finished files and reports checkpoints.

use super::gzip;
use super::reader::WarcReader;
use super::{encode_record, new_record_id, warc_date, warcinfo_record, ArchiveError};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Suffix of a file still being written.
pub(crate) const OPEN_SUFFIX: &str = ".open";

/// How and where one crawl writes its WARC files.
#[derive(Debug, Clone)]
pub struct WriterConfig {
    /// Directory of the WARC files (created if missing).
    pub dir: PathBuf,
    /// First part of every file name, e.g. the crawl name.
    pub prefix: String,
    /// Rotate before an append that would make the file larger than this.
    pub max_file_bytes: u64,
    /// gzip level 0-9 for the warcinfo records (and for re-encoding on rotation).
    pub gzip_level: u32,
    /// Last part of every file name: the crawling host.
    pub hostname: String,
    /// Lines of each file's warcinfo record: software, format, operator, isPartOf (crawl name),
    /// robots policy, and so on.
    pub info_fields: Vec<(String, String)>,
}

/// What is committed: the file (name without `.open`) and the offset after the last appended
/// member. The crawl persists it (after [`WarcWriter::sync`]) together with its own state, and
/// hands it to [`super::recover`] after a crash. It names its file because a crash may come
/// after the writer rotated: recovery must know whether the committed file is the `.open` one
/// (cut back to `offset`) or one already sealed (kept whole). The JSON form,
/// `{"file":"…","offset":N}`, is the one every version of magpie has stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// File name without directory and without `.open`.
    pub file: String,
    /// Bytes of the file that are committed.
    pub offset: u64,
}

/// Where an appended member landed, for the CDX index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLocation {
    /// File name (sealed form, without `.open`).
    pub file: String,
    /// Offset of the member in the file.
    pub offset: u64,
    /// Length of the member(s) written.
    pub length: u64,
}

struct OpenFile {
    name: String,
    open_path: PathBuf,
    out: BufWriter<File>,
    len: u64,
    info_len: u64,
    warcinfo_id: String,
}

/// Writes the WARC files of one crawl, from a single thread (records are encoded elsewhere).
pub struct WarcWriter {
    cfg: WriterConfig,
    next_serial: u64,
    next_info_id: String,
    cur: Option<OpenFile>,
    files: Vec<String>,
    sealed: Vec<PathBuf>,
    bytes: u64,
    failed: bool,
}

impl WarcWriter {
    /// Prepares a writer; no file is opened until the first append. Serial numbers continue
    /// after the highest serial of a `{prefix}-…` WARC file already in the directory.
    pub fn create(cfg: WriterConfig) -> Result<Self, ArchiveError> {
        for (what, v) in [("prefix", &cfg.prefix), ("hostname", &cfg.hostname)] {
            if v.is_empty() || v.contains(['/', '\\']) || v.chars().any(char::is_control) {
                return Err(ArchiveError::Config(format!(
                    "{what} {v:?} cannot be part of a file name"
                )));
            }
        }
        if cfg.max_file_bytes == 0 {
            return Err(ArchiveError::Config(
                "max_file_bytes must be positive".into(),
            ));
        }
        std::fs::create_dir_all(&cfg.dir).map_err(|e| ArchiveError::file(&cfg.dir, e))?;
        let next_serial = highest_serial(&cfg.dir, &cfg.prefix)?.map_or(0, |s| s + 1);
        Ok(WarcWriter {
            cfg,
            next_serial,
            next_info_id: new_record_id(),
            cur: None,
            files: Vec::new(),
            sealed: Vec::new(),
            bytes: 0,
            failed: false,
        })
    }

    /// The `WARC-Record-ID` of the warcinfo record of the file the next append goes to, for
    /// the `WARC-Warcinfo-ID` of records being encoded. When no file is open yet this is the ID
    /// reserved for the next file; if an append rotates, the appended records are rewritten to
    /// name the new file's warcinfo.
    pub fn warcinfo_id(&self) -> &str {
        self.cur
            .as_ref()
            .map_or(&self.next_info_id, |f| &f.warcinfo_id)
    }

    /// Appends one or more pre-encoded gzip members (a record, or several concatenated), after
    /// rotating if the current file holds records and would grow past `max_file_bytes`. For
    /// concatenated members the location covers them all; use [`WarcWriter::append_many`] to
    /// learn where each one landed.
    pub fn append(&mut self, member: &[u8]) -> Result<RecordLocation, ArchiveError> {
        let mut locs = self.append_members(&[member], None)?;
        locs.pop()
            .ok_or_else(|| ArchiveError::Config("nothing appended".into()))
    }

    /// Appends several members (for example a response with its request and metadata) so that
    /// they land in the same file, one after another; returns each member's location.
    pub fn append_many(&mut self, members: &[&[u8]]) -> Result<Vec<RecordLocation>, ArchiveError> {
        self.append_members(members, None)
    }

    /// Like [`WarcWriter::append_many`], for members encoded while `encoded_for` was
    /// [`WarcWriter::warcinfo_id`]. Records are encoded on worker threads while the writer goes
    /// on appending, so the file may have rotated since, by this append or an earlier one;
    /// then the members are rewritten to name the warcinfo of the file they land in.
    pub fn append_encoded_for(
        &mut self,
        members: &[&[u8]],
        encoded_for: &str,
    ) -> Result<Vec<RecordLocation>, ArchiveError> {
        self.append_members(members, Some(encoded_for))
    }

    /// Whether appending `len` bytes opens a file or seals the open one first (a rotation:
    /// fsync, rename), which is blocking file work the caller may want off its async workers.
    pub fn opens_a_file(&self, len: u64) -> bool {
        self.cur.as_ref().is_none_or(|cur| {
            cur.len != cur.info_len && cur.len.saturating_add(len) > self.cfg.max_file_bytes
        })
    }

    /// Appends `members` to one file. `encoded_for` is the warcinfo ID they name; `None` means
    /// the ID current before this append.
    fn append_members(
        &mut self,
        members: &[&[u8]],
        encoded_for: Option<&str>,
    ) -> Result<Vec<RecordLocation>, ArchiveError> {
        for m in members {
            check_member(m)?;
        }
        let total = members.iter().map(|m| m.len() as u64).sum();
        let rotated_from = self.prepare(total)?;
        let named = encoded_for.or(rotated_from.as_deref());
        let current = self.warcinfo_id();
        let level = self.cfg.gzip_level;
        let data = members
            .iter()
            .map(|m| match named {
                Some(old) if old != current => rewrite_warcinfo_id(m, old, current, level),
                _ => Ok(Cow::Borrowed(*m)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        data.iter().map(|d| self.write(d)).collect()
    }

    /// Opens or rotates the file for an append of `len` bytes; on rotation returns the
    /// warcinfo ID of the file just sealed.
    fn prepare(&mut self, len: u64) -> Result<Option<String>, ArchiveError> {
        if self.failed {
            return Err(ArchiveError::Config(
                "an earlier write failed; recover from the last checkpoint".into(),
            ));
        }
        let Some(cur) = self.cur.as_ref() else {
            self.open_file()?;
            return Ok(None);
        };
        if cur.len == cur.info_len || cur.len.saturating_add(len) <= self.cfg.max_file_bytes {
            return Ok(None);
        }
        let old_id = cur.warcinfo_id.clone();
        self.seal_current()?;
        self.open_file()?;
        Ok(Some(old_id))
    }

    fn write(&mut self, data: &[u8]) -> Result<RecordLocation, ArchiveError> {
        let cur = self
            .cur
            .as_mut()
            .ok_or_else(|| ArchiveError::Config("no open file".into()))?;
        if let Err(e) = cur.out.write_all(data) {
            self.failed = true;
            return Err(ArchiveError::file(&cur.open_path, e));
        }
        let loc = RecordLocation {
            file: cur.name.clone(),
            offset: cur.len,
            length: data.len() as u64,
        };
        cur.len += loc.length;
        self.bytes += loc.length;
        Ok(loc)
    }

    /// Hands buffered bytes to the operating system (survives a process crash, not a power cut).
    pub fn flush(&mut self) -> Result<(), ArchiveError> {
        if let Some(f) = self.cur.as_mut() {
            f.out
                .flush()
                .map_err(|e| ArchiveError::file(&f.open_path, e))?;
        }
        Ok(())
    }

    /// Flushes and fsyncs the current file, so a checkpoint taken now survives a power cut.
    pub fn sync(&mut self) -> Result<(), ArchiveError> {
        if let Some(f) = self.cur.as_mut() {
            f.out
                .flush()
                .map_err(|e| ArchiveError::file(&f.open_path, e))?;
            f.out
                .get_ref()
                .sync_data()
                .map_err(|e| ArchiveError::file(&f.open_path, e))?;
        }
        Ok(())
    }

    /// The current file and the offset after the last appended member; `None` before the first
    /// append.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        self.cur.as_ref().map(|f| Checkpoint {
            file: f.name.clone(),
            offset: f.len,
        })
    }

    /// Names (without `.open`) of all files this writer has opened, oldest first.
    pub fn files(&self) -> Vec<String> {
        self.files.clone()
    }

    /// Total bytes written to all files, warcinfo records included.
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Flushes, fsyncs and seals the current file; returns the paths of all files this writer
    /// sealed, oldest first.
    pub fn close(mut self) -> Result<Vec<PathBuf>, ArchiveError> {
        self.seal_current()?;
        Ok(std::mem::take(&mut self.sealed))
    }

    fn open_file(&mut self) -> Result<(), ArchiveError> {
        let now = chrono::Utc::now();
        let name = format!(
            "{}-{}-{:05}-{}.warc.gz",
            self.cfg.prefix,
            now.format("%Y%m%d%H%M%S%3f"),
            self.next_serial,
            self.cfg.hostname
        );
        let open_path = self.cfg.dir.join(format!("{name}{OPEN_SUFFIX}"));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&open_path)
            .map_err(|e| ArchiveError::file(&open_path, e))?;
        sync_dir(&self.cfg.dir)?;
        self.next_serial += 1;
        let id = std::mem::replace(&mut self.next_info_id, new_record_id());
        let info = warcinfo_record(
            &id,
            &warc_date(now),
            &name,
            &self.cfg.info_fields,
            self.cfg.gzip_level,
        )?;
        let mut out = BufWriter::with_capacity(256 * 1024, file);
        if let Err(e) = out.write_all(&info) {
            self.failed = true;
            return Err(ArchiveError::file(&open_path, e));
        }
        let len = info.len() as u64;
        self.bytes += len;
        self.files.push(name.clone());
        self.cur = Some(OpenFile {
            name,
            open_path,
            out,
            len,
            info_len: len,
            warcinfo_id: id,
        });
        Ok(())
    }

    fn seal_current(&mut self) -> Result<(), ArchiveError> {
        let Some(mut f) = self.cur.take() else {
            return Ok(());
        };
        f.out
            .flush()
            .map_err(|e| ArchiveError::file(&f.open_path, e))?;
        f.out
            .get_ref()
            .sync_all()
            .map_err(|e| ArchiveError::file(&f.open_path, e))?;
        let sealed = self.cfg.dir.join(&f.name);
        std::fs::rename(&f.open_path, &sealed).map_err(|e| ArchiveError::file(&f.open_path, e))?;
        sync_dir(&self.cfg.dir)?;
        self.sealed.push(sealed);
        Ok(())
    }
}

/// Refuses anything that does not look like a gzip member before it reaches a file.
fn check_member(member: &[u8]) -> Result<(), ArchiveError> {
    if member.len() < 18 || member[0] != 0x1f || member[1] != 0x8b {
        return Err(ArchiveError::Corrupt {
            file: "appended member".into(),
            offset: 0,
            message: "not a gzip member".into(),
        });
    }
    Ok(())
}

/// `member` (one gzip member or several in a row) with every `WARC-Warcinfo-ID: old` replaced
/// by `new`; the input untouched when no record names `old`. A member of `encode_record` (under
/// 4 GiB) keeps the field in its stored head and is patched in place (finding where members
/// end takes inflating them, never compressing); anything else (a member from elsewhere, a
/// record of 4 GiB or more) is decoded and encoded again.
fn rewrite_warcinfo_id<'a>(
    member: &'a [u8],
    old: &str,
    new: &str,
    level: u32,
) -> Result<Cow<'a, [u8]>, ArchiveError> {
    let field = |id: &str| format!("WARC-Warcinfo-ID: {id}\r\n");
    let (old_field, new_field) = (field(old), field(new));
    let Some(parts) = gzip::split_members(member) else {
        return reencode_warcinfo_id(member, old, new, level);
    };
    let mut out = Vec::with_capacity(member.len());
    let mut changed = false;
    for part in parts {
        match gzip::patch_stored(part, old_field.as_bytes(), new_field.as_bytes()) {
            Some(patched) => {
                changed = true;
                out.extend_from_slice(&patched);
            }
            None => match reencode_warcinfo_id(part, old, new, level)? {
                Cow::Owned(o) => {
                    changed = true;
                    out.extend_from_slice(&o);
                }
                Cow::Borrowed(b) => out.extend_from_slice(b),
            },
        }
    }
    Ok(if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(member)
    })
}

fn reencode_warcinfo_id<'a>(
    member: &'a [u8],
    old: &str,
    new: &str,
    level: u32,
) -> Result<Cow<'a, [u8]>, ArchiveError> {
    let mut reader = WarcReader::with_origin(member, "appended member", 0)?;
    let mut out = Vec::with_capacity(member.len() + 64);
    let mut changed = false;
    while let Some(head) = reader.next_record()? {
        let mut fields: Vec<(&str, &str)> = Vec::with_capacity(head.fields.len());
        for (n, v) in &head.fields {
            if n.eq_ignore_ascii_case("Content-Length") {
                continue;
            }
            if n.eq_ignore_ascii_case("WARC-Warcinfo-ID") && v == old {
                changed = true;
                fields.push((n, new));
            } else {
                fields.push((n, v));
            }
        }
        out.extend_from_slice(&encode_record(
            &fields,
            &mut reader.block(),
            head.content_length,
            level,
        )?);
    }
    Ok(if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(member)
    })
}

/// Makes renames and new directory entries durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), ArchiveError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ArchiveError::file(dir, e))
}

/// The serial of a file name `{prefix}-{17 digits}-{serial}-{host}.warc[.gz][.open]`.
pub(crate) fn serial_of(name: &str, prefix: &str) -> Option<u64> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?;
    let base = rest.strip_suffix(OPEN_SUFFIX).unwrap_or(rest);
    if !(base.ends_with(".warc.gz") || base.ends_with(".warc")) {
        return None;
    }
    let (ts, rest) = rest.split_at_checked(17)?;
    if !ts.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest.strip_prefix('-')?;
    let digits: &str = rest.split('-').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn highest_serial(dir: &Path, prefix: &str) -> Result<Option<u64>, ArchiveError> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).map_err(|e| ArchiveError::file(dir, e))? {
        let entry = entry.map_err(|e| ArchiveError::file(dir, e))?;
        if let Some(s) = entry
            .file_name()
            .to_str()
            .and_then(|n| serial_of(n, prefix))
        {
            best = best.max(Some(s));
        }
    }
    Ok(best)
}
