//! The ZIP container of a WACZ: the WARC files stored (uncompressed, hashed while copied),
//! the index and page list, `datapackage.json` listing every entry's size and SHA-256, and
//! `datapackage-digest.json`, written through `<out>.partial` and renamed when complete.

use super::{io_error, pages_jsonl, Page, WaczError, WACZ_VERSION};
use crate::export::cdxj::{write_sorted, CdxjEntry};
use chrono::{Datelike, SecondsFormat, Timelike, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// One file of the package, as `datapackage.json` lists it.
#[derive(Debug, Serialize)]
struct Resource {
    name: String,
    path: String,
    hash: String,
    bytes: u64,
}

#[derive(Serialize)]
struct DataPackage<'a> {
    profile: &'static str,
    resources: &'a [Resource],
    title: &'a str,
    created: String,
    wacz_version: &'static str,
    software: &'static str,
}

#[derive(Serialize)]
struct PackageDigest {
    path: &'static str,
    hash: String,
}

/// Writes the ZIP through `<out>.partial` (renamed when complete, removed on failure) and
/// returns its size.
pub(super) fn write_package(
    out: &Path,
    title: &str,
    warcs: &[(String, PathBuf)],
    cdxj: &[CdxjEntry],
    pages: &[Page],
) -> Result<u64, WaczError> {
    let mut partial = out.as_os_str().to_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let result = write_zip(&partial, out, title, warcs, cdxj, pages).and_then(|n| {
        std::fs::rename(&partial, out).map_err(io_error(out))?;
        Ok(n)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

fn write_zip(
    partial: &Path,
    out: &Path,
    title: &str,
    warcs: &[(String, PathBuf)],
    cdxj: &[CdxjEntry],
    pages: &[Page],
) -> Result<u64, WaczError> {
    let file = File::create(partial).map_err(io_error(partial))?;
    let mut z = Zip {
        w: ZipWriter::new(BufWriter::with_capacity(1 << 20, file)),
        out,
        resources: Vec::new(),
    };
    for (name, path) in warcs {
        z.copy(&format!("archive/{name}"), path)?;
    }
    let mut index = Vec::new();
    write_sorted(cdxj, &mut index).map_err(io_error(out))?;
    // CDXJ, as WACZ 1.1.1 requires, under the one name every reader takes: ReplayWeb.page
    // (wabac.js) loads `*.cdx`, `*.cdxj` and `*.idx` (a bare `*.cdx.gz` is skipped), pywb's
    // `wb-manager add --unpack-wacz` only `*.cdx` and `*.cdx.gz` (an `index.cdxj` is ignored
    // and nothing is added); py-wacz's validator lists `index.cdx` among the names it knows.
    z.add("indexes/index.cdx", &index, true)?;
    let encode = |entry: &'static str| {
        move |source| WaczError::Encode {
            path: out.to_path_buf(),
            entry,
            source,
        }
    };
    let pages = pages_jsonl(pages).map_err(encode("pages/pages.jsonl"))?;
    z.add("pages/pages.jsonl", pages.as_bytes(), true)?;
    let package = DataPackage {
        profile: "data-package",
        resources: &z.resources,
        title,
        created: Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true),
        wacz_version: WACZ_VERSION,
        software: concat!("magpie ", env!("CARGO_PKG_VERSION")),
    };
    let package = serde_json::to_vec_pretty(&package).map_err(encode("datapackage.json"))?;
    let digest = PackageDigest {
        path: "datapackage.json",
        hash: format!("sha256:{:x}", Sha256::digest(&package)),
    };
    let digest = serde_json::to_vec_pretty(&digest).map_err(encode("datapackage-digest.json"))?;
    z.add("datapackage.json", &package, false)?;
    z.add("datapackage-digest.json", &digest, false)?;
    let w = z.w.finish().map_err(|source| WaczError::Zip {
        path: out.to_path_buf(),
        entry: "the central directory".into(),
        source,
    })?;
    let file = w.into_inner().map_err(|e| WaczError::Io {
        path: partial.to_path_buf(),
        source: e.into_error(),
    })?;
    file.sync_all().map_err(io_error(partial))?;
    Ok(file.metadata().map_err(io_error(partial))?.len())
}

/// The ZIP being written and the resources listed so far.
struct Zip<'a> {
    w: ZipWriter<BufWriter<File>>,
    out: &'a Path,
    resources: Vec<Resource>,
}

impl Zip<'_> {
    fn start(&mut self, entry: &str, bytes: u64, stored: bool) -> Result<(), WaczError> {
        let method = if stored {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        let opts = SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(zip_now())
            .large_file(bytes >= u64::from(u32::MAX));
        self.w
            .start_file(entry, opts)
            .map_err(|source| WaczError::Zip {
                path: self.out.to_path_buf(),
                entry: entry.into(),
                source,
            })
    }

    /// Adds a file's bytes uncompressed (WARC files: read by range), hashing as it copies.
    fn copy(&mut self, entry: &str, path: &Path) -> Result<(), WaczError> {
        let f = File::open(path).map_err(io_error(path))?;
        let len = f.metadata().map_err(io_error(path))?.len();
        self.start(entry, len, true)?;
        let mut h = Hashing {
            inner: &mut self.w,
            hasher: Sha256::new(),
            n: 0,
        };
        io::copy(&mut BufReader::with_capacity(1 << 20, f), &mut h).map_err(io_error(path))?;
        let (hash, n) = (h.hasher.finalize(), h.n);
        self.list(entry, format!("sha256:{hash:x}"), n);
        Ok(())
    }

    /// Adds a small file; `deflate` for text that compresses well.
    fn add(&mut self, entry: &str, data: &[u8], deflate: bool) -> Result<(), WaczError> {
        self.start(entry, data.len() as u64, !deflate)?;
        self.w.write_all(data).map_err(io_error(self.out))?;
        if entry.starts_with("datapackage") {
            return Ok(());
        }
        let hash = format!("sha256:{:x}", Sha256::digest(data));
        self.list(entry, hash, data.len() as u64);
        Ok(())
    }

    fn list(&mut self, path: &str, hash: String, bytes: u64) {
        self.resources.push(Resource {
            name: resource_name(path),
            path: path.into(),
            hash,
            bytes,
        });
    }
}

/// A resource name as Frictionless Data packages allow it (`[-a-z0-9._/]`): the file name,
/// lowercased, other characters replaced by `-`.
fn resource_name(path: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Counts and hashes what passes through.
struct Hashing<'a, W: Write> {
    inner: &'a mut W,
    hasher: Sha256,
    n: u64,
}

impl<W: Write> Write for Hashing<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.hasher.update(&buf[..k]);
        self.n += k as u64;
        Ok(k)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Now, as a ZIP entry's modification time (UTC; the ZIP epoch when out of its range).
fn zip_now() -> zip::DateTime {
    let t = Utc::now();
    let small = |v: u32| u8::try_from(v).unwrap_or(0);
    u16::try_from(t.year())
        .ok()
        .and_then(|y| {
            zip::DateTime::from_date_and_time(
                y,
                small(t.month()),
                small(t.day()),
                small(t.hour()),
                small(t.minute()),
                small(t.second()),
            )
            .ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names_are_what_frictionless_allows() {
        assert_eq!(
            resource_name("archive/MAGPIE-2026-00000-My Host.warc.gz"),
            "magpie-2026-00000-my-host.warc.gz"
        );
        assert_eq!(resource_name("pages/pages.jsonl"), "pages.jsonl");
    }
}
