//! Calendar dates without a date crate: the feed and the arXiv client need only "today" and
//! "N days ago" as `YYYY-MM-DD` (UTC).

use std::time::{SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 -> `YYYY-MM-DD` (proleptic Gregorian; Howard Hinnant's algorithm).
pub fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The UTC date of `t`.
pub fn date_of(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    civil(secs.div_euclid(86_400))
}

/// Today's UTC date.
pub fn today() -> String {
    date_of(SystemTime::now())
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_become_dates() {
        assert_eq!(super::civil(0), "1970-01-01");
        assert_eq!(super::civil(11_016), "2000-02-29");
        assert_eq!(super::civil(20_790), "2026-12-03");
        assert_eq!(super::civil(-1), "1969-12-31");
    }
}
