//! What the engine reads from a response for scheduling: a redirect's target and a server's
//! `Retry-After` (the backoff before a retry is the retry policy's, `retry.rs`).

use std::time::Duration;

/// The `Location` of a 3xx response, resolved.
pub(super) fn redirect_target(
    info: &crate::model::ExchangeInfo,
    base: &url::Url,
) -> Option<url::Url> {
    if !(300..400).contains(&info.status) {
        return None;
    }
    base.join(info.header("location")?.trim()).ok()
}

/// `Retry-After` as seconds or an HTTP date.
pub(super) fn retry_after(value: Option<&str>) -> Option<Duration> {
    let v = value?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(retry_after(Some(" 7 ")), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(Some("soon")), None);
        assert_eq!(retry_after(None), None);
    }
}
