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

/// Days in month `m` (1-12) of year `y` (Gregorian); 0 for a month that does not exist.
pub fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD` (or `YYYY-MM` with `d` None) when the date exists (years 1000-2999).
fn ymd(y: u32, m: u32, d: Option<u32>) -> Option<String> {
    if !(1000..=2999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    match d {
        Some(d) if (1..=days_in_month(y, m)).contains(&d) => Some(format!("{y:04}-{m:02}-{d:02}")),
        Some(_) => None,
        None => Some(format!("{y:04}-{m:02}")),
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month a word names, in English, whole or cut to 3 letters or more ("Sept.", "Jun").
fn month_named(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(&w))
        .map(|i| i as u32 + 1)
}

/// A date finer than its year that a library export writes, as `YYYY-MM-DD` or `YYYY-MM`:
/// year first with `-`, `/` or `.` (`2025-03-18`, `2025/3/18`, `2025.03`, a time after it),
/// or compact (`20250318`);
/// the day first with dots (`18.03.2025`); month names (`June 9, 2025`, `9 Jun 2025`,
/// `Mon, 09 Jun 2025 00:00:00 GMT`, `June 2025`); the day and month of `03/04/2025` only
/// when one of them is above 12 (otherwise either reading is a guess). `None` when no such
/// date is there, or it does not exist (`2025-02-30`): the year alone is read elsewhere.
pub fn finer_than_year(text: &str) -> Option<String> {
    let s = text.trim();
    let b = s.as_bytes();
    let digits_at = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let number = |i: usize, n: usize| s[i..i + n].parse::<u32>().ok();
    // Numeric: A sep B [sep C], nothing numeric right after.
    let a = digits_at(0);
    // Compact ISO (`20250609`, a time after it).
    if a == 8
        && !b
            .get(8)
            .is_some_and(|c| c.is_ascii_alphanumeric() && *c != b'T')
    {
        return ymd(number(0, 4)?, number(4, 2)?, number(6, 2));
    }
    if a > 0 && b.get(a).is_some_and(|c| b"-/.".contains(c)) {
        let sep = b[a];
        let bl = digits_at(a + 1);
        let c_at = a + 1 + bl + 1;
        let third = (bl > 0 && b.get(a + 1 + bl) == Some(&sep)).then(|| digits_at(c_at));
        let cl = third.filter(|&n| n > 0);
        let end = cl.map_or(a + 1 + bl, |n| c_at + n);
        if bl > 0 && bl <= 2 && !b.get(end).is_some_and(u8::is_ascii_digit) {
            let (x, y) = (number(0, a)?, number(a + 1, bl)?);
            let z = cl.and_then(|n| number(c_at, n));
            return match (a, cl) {
                (4, None) => ymd(x, y, None),
                (4, Some(n)) if n <= 2 => ymd(x, y, z),
                (1 | 2, Some(4)) if sep == b'.' => ymd(z?, y, Some(x)),
                (1 | 2, Some(4)) if x > 12 => ymd(z?, y, Some(x)),
                (1 | 2, Some(4)) if y > 12 => ymd(z?, x, Some(y)),
                _ => None,
            };
        }
    }
    // Month names: the month, a four-digit year, and a day beside the month if any.
    let words: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let (at, month) = words
        .iter()
        .enumerate()
        .find_map(|(i, w)| month_named(w).map(|m| (i, m)))?;
    let year = words
        .iter()
        .find(|w| w.len() == 4 && w.bytes().all(|c| c.is_ascii_digit()))
        .and_then(|w| w.parse::<u32>().ok())?;
    let day_of = |w: &str| {
        let w = w.trim_end_matches(['.', 's', 't', 'n', 'd', 'r', 'h']);
        (1..=2).contains(&w.len()) && w.bytes().all(|c| c.is_ascii_digit())
    };
    let day = [at.checked_sub(1), Some(at + 1)]
        .into_iter()
        .flatten()
        .filter_map(|i| words.get(i))
        .find(|w| day_of(w))
        .and_then(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .ok()
        });
    ymd(year, month, day)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_finer_than_a_year_are_read_in_the_forms_exports_write() {
        use super::finer_than_year as f;
        for (text, want) in [
            ("2025-03-18", "2025-03-18"),
            ("2025-03-18T09:00:00Z", "2025-03-18"),
            ("2025/01/02", "2025-01-02"),
            ("2025.1.2", "2025-01-02"),
            ("2025-03", "2025-03"),
            ("02.01.2025", "2025-01-02"),
            ("25/12/2024", "2024-12-25"),
            ("12/25/2024", "2024-12-25"),
            ("June 9 2025", "2025-06-09"),
            ("Jun 9, 2025", "2025-06-09"),
            ("9 June 2025", "2025-06-09"),
            ("Sept. 3rd, 2024", "2024-09-03"),
            ("Mon, 09 Jun 2025 00:00:00 GMT", "2025-06-09"),
            ("June 2025", "2025-06"),
            ("2024-02-29", "2024-02-29"),
            ("20250609", "2025-06-09"),
            ("20250609T120000Z", "2025-06-09"),
        ] {
            assert_eq!(f(text).as_deref(), Some(want), "{text}");
        }
        for text in [
            "2025",
            "2025-02-30",
            "2023-02-29",
            "2025-13",
            "01/02/2025",
            "2025-03-181",
            "",
            "May",
            "in press",
            "12345-01-01",
            "20251301",
            "123456789",
        ] {
            assert_eq!(f(text), None, "{text}");
        }
    }

    #[test]
    fn days_become_dates() {
        assert_eq!(super::civil(0), "1970-01-01");
        assert_eq!(super::civil(11_016), "2000-02-29");
        assert_eq!(super::civil(20_790), "2026-12-03");
        assert_eq!(super::civil(-1), "1969-12-31");
    }
}
