//! What the engine reads from a response for scheduling: a redirect's target, the backoff
//! before a retry, and a server's `Retry-After`.

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

/// Exponential backoff: `base × 2^attempt`, at most an hour.
pub(in crate::crawl) fn backoff(base: Duration, attempt: u8) -> Duration {
    base.saturating_mul(1u32 << attempt.min(16))
        .min(Duration::from_secs(3600))
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

    #[test]
    fn backoff_doubles_and_is_bounded() {
        let ms = Duration::from_millis;
        assert_eq!(backoff(ms(100), 0), ms(100));
        assert_eq!(backoff(ms(100), 3), ms(800));
        assert_eq!(backoff(Duration::MAX, 40), Duration::from_secs(3600));
    }
}
