//! Header-level rules of the validator: version line, required fields and their syntax, the
//! per-type requirements, and duplicate record IDs.

use super::stream::{field, RawHead};
use std::collections::HashMap;

/// Fields that may legitimately repeat in one header (WARC 1.1 section 5).
const REPEATABLE: &[&str] = &["WARC-Concurrent-To"];

/// Types that must carry a WARC-Target-URI (WARC 1.1, plus `metadata` as replay tools expect).
const NEEDS_TARGET: &[&str] = &[
    "response",
    "request",
    "revisit",
    "metadata",
    "resource",
    "conversion",
    "continuation",
];

/// File-wide state the header rules need.
#[derive(Default)]
pub(crate) struct FieldRules {
    /// Record IDs seen so far, with the offset where each first appeared.
    seen_ids: HashMap<String, u64>,
    /// Records seen so far in the file.
    records: u64,
}

impl FieldRules {
    /// True before any record was checked.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Checks one header; pushes `(offset, message)` defects into `out`.
    pub fn check(&mut self, head: &RawHead, offset: u64, out: &mut Vec<String>) {
        let first_record = self.records == 0;
        self.records += 1;
        let f = &head.fields;
        let v11 = head.version == "WARC/1.1";
        if !v11 && head.version != "WARC/1.0" {
            out.push(format!(
                "version line is {:?}, not WARC/1.1 or WARC/1.0",
                head.version
            ));
        }
        out.extend(head.issues.iter().cloned());

        let mut counts: HashMap<String, u32> = HashMap::new();
        for (name, _) in f {
            *counts.entry(name.to_ascii_lowercase()).or_default() += 1;
        }
        for (name, n) in &counts {
            if *n > 1 && !REPEATABLE.iter().any(|r| r.eq_ignore_ascii_case(name)) {
                out.push(format!("field {name} appears {n} times"));
            }
        }

        match field(f, "WARC-Record-ID") {
            None => out.push("missing WARC-Record-ID".into()),
            Some(id) => {
                if !is_urn_ref(id) {
                    out.push(format!(
                        "WARC-Record-ID {id:?} is not of the form <urn:...>"
                    ));
                }
                match self.seen_ids.get(id) {
                    Some(first) => out.push(format!(
                        "duplicate WARC-Record-ID {id} (first at offset {first})"
                    )),
                    None => {
                        self.seen_ids.insert(id.to_string(), offset);
                    }
                }
            }
        }
        match field(f, "WARC-Date") {
            None => out.push("missing WARC-Date".into()),
            Some(d) => {
                if let Err(why) = check_date(d, v11) {
                    out.push(format!("WARC-Date {d:?}: {why}"));
                }
            }
        }
        let kind = field(f, "WARC-Type");
        if kind.is_none() {
            out.push("missing WARC-Type".into());
        }
        let kind = kind.unwrap_or("").to_ascii_lowercase();
        if first_record && kind != "warcinfo" {
            out.push("first record of the file is not a warcinfo record".into());
        }
        let content_length = field(f, "Content-Length").and_then(|v| v.parse::<u64>().ok());
        if content_length.is_some_and(|n| n > 0) && field(f, "Content-Type").is_none() {
            out.push("missing Content-Type on a non-empty block".into());
        }
        match field(f, "WARC-Target-URI") {
            None if NEEDS_TARGET.contains(&kind.as_str()) => {
                out.push(format!("missing WARC-Target-URI on a {kind} record"))
            }
            Some(_) if kind == "warcinfo" => {
                out.push("warcinfo record has a WARC-Target-URI".into())
            }
            Some(uri) if uri.starts_with('<') || uri.ends_with('>') => out.push(format!(
                "WARC-Target-URI {uri:?} is wrapped in angle brackets"
            )),
            Some("") => out.push("empty WARC-Target-URI".into()),
            _ => {}
        }
        if kind == "revisit" {
            for needed in ["WARC-Refers-To-Target-URI", "WARC-Profile"] {
                if field(f, needed).is_none() {
                    out.push(format!("revisit record without {needed}"));
                }
            }
        }
        for (name, value) in f {
            let refs = ["WARC-Concurrent-To", "WARC-Refers-To", "WARC-Warcinfo-ID"];
            if refs.iter().any(|r| r.eq_ignore_ascii_case(name)) && !is_urn_ref(value) {
                out.push(format!("{name} {value:?} is not of the form <urn:...>"));
            }
        }
        if let Some(ip) = field(f, "WARC-IP-Address") {
            if ip.parse::<std::net::IpAddr>().is_err() {
                out.push(format!("WARC-IP-Address {ip:?} is not an IP address"));
            }
        }
        if let Some(t) = field(f, "WARC-Truncated") {
            if !["length", "time", "disconnect", "unspecified"].contains(&t) {
                out.push(format!("WARC-Truncated {t:?} is not a defined reason"));
            }
        }
    }
}

/// `<urn:...>` with no whitespace inside.
fn is_urn_ref(v: &str) -> bool {
    v.len() > 6
        && v.starts_with("<urn:")
        && v.ends_with('>')
        && !v.bytes().any(|b| b.is_ascii_whitespace())
        && !v[1..v.len() - 1].contains(['<', '>'])
}

/// `YYYY-MM-DDThh:mm:ss[.fraction]Z`; fractions only in WARC/1.1.
pub(crate) fn check_date(v: &str, v11: bool) -> Result<(), String> {
    let Some(body) = v.strip_suffix('Z') else {
        return Err("not UTC ISO-8601 ending in Z".into());
    };
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if main.len() != 19 || chrono::NaiveDateTime::parse_from_str(main, "%Y-%m-%dT%H:%M:%S").is_err()
    {
        return Err("not an ISO-8601 date-time YYYY-MM-DDThh:mm:ssZ".into());
    }
    if let Some(frac) = frac {
        if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err("malformed fractional seconds".into());
        }
        if !v11 {
            return Err("fractional seconds are allowed only in WARC/1.1".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(check_date("2026-11-22T03:58:05.123456Z", true).is_ok());
        assert!(check_date("2026-11-22T03:58:05Z", false).is_ok());
        assert!(check_date("2026-11-22T03:58:05.1Z", false).is_err());
        assert!(check_date("2026-11-22 03:58:05Z", true).is_err());
        assert!(check_date("2026-13-22T03:58:05Z", true).is_err());
        assert!(check_date("2026-11-22T03:58:05", true).is_err());
        assert!(check_date("2026-11-22T03:58:05.Z", true).is_err());
    }

    #[test]
    fn urn_refs() {
        assert!(is_urn_ref("<urn:uuid:0f0e>"));
        assert!(!is_urn_ref("urn:uuid:0f0e"));
        assert!(!is_urn_ref("<urn:uuid:0f 0e>"));
        assert!(!is_urn_ref("<http://x/>"));
    }
}
