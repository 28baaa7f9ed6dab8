//! UTC timestamps without a date crate: zo only needs "now" as RFC 3339 and calendar dates.

use std::time::{SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 → (year, month, day). Howard Hinnant's civil_from_days.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) → days since 1970-01-01. Howard Hinnant's days_from_civil.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Whole days from the date `s` starts with (`YYYY-MM-DD…`) to today; None when it has none.
pub fn age_days(s: &str) -> Option<i64> {
    if !starts_with_date(s) {
        return None;
    }
    let (y, m, d) = (
        s[..4].parse().ok()?,
        s[5..7].parse().ok()?,
        s[8..10].parse().ok()?,
    );
    Some(unix_now().div_euclid(86_400) - days_from_civil(y, m, d))
}

/// How far ahead of this machine's clock a timestamp in memory may be and still be taken as
/// written now (another machine's clock a little fast): an hour.
pub const SKEW_SECS: i64 = 3600;

/// Whether a date or RFC 3339 time is beyond now by more than the skew: memory dated in the
/// future, which no writer wrote (every writer takes the time from the clock) and which must
/// never be taken for the latest (SPEC §3a). Anything that is no time is not.
pub fn is_future(s: &str) -> bool {
    parse_instant(s, false).is_some_and(|t| t > unix_now() + SKEW_SECS)
}

/// The last second of year 9999: the dates zo writes have four-digit years.
const MAX_NOW: i64 = 253_402_300_799;

/// `ZO_NOW`: the clock pinned for tests and fixtures, in unix seconds. Checked with the other
/// settings before any command runs (`store::settings::check_env`), but read here: time is a
/// leaf every layer uses, so it depends on no folder.
pub fn pinned() -> anyhow::Result<Option<i64>> {
    let usage = |msg: String| -> anyhow::Error { crate::error::Error::Usage(msg).into() };
    let v = match std::env::var("ZO_NOW") {
        Ok(v) if v.is_empty() => return Ok(None),
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(usage("ZO_NOW: the value is not UTF-8".into()));
        }
    };
    match v.trim().parse::<i64>() {
        Ok(t) if (0..=MAX_NOW).contains(&t) => Ok(Some(t)),
        _ => Err(usage(format!(
            "ZO_NOW: {v:?} is not a time (whole unix seconds, 0 to {MAX_NOW})"
        ))),
    }
}

fn unix_now() -> i64 {
    // ZO_NOW pins the clock for reproducible tests and fixtures.
    // A bad value is refused before any command runs (`settings::check_env`).
    if let Ok(Some(t)) = pinned() {
        return t;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// RFC 3339 UTC at second precision for a unix time.
pub fn rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Now, as `2026-11-21T15:04:05Z`.
pub fn now() -> String {
    rfc3339(unix_now())
}

/// Now with milliseconds, `2026-11-21T15:04:05.123Z`: orders things done within one second.
pub fn now_millis() -> String {
    let ms = if std::env::var_os("ZO_NOW").is_some() {
        0
    } else {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_millis())
            .unwrap_or(0)
    };
    format!("{}.{ms:03}Z", now().trim_end_matches('Z'))
}

/// Today (UTC) as `2026-11-21`.
pub fn today() -> String {
    now()[..10].to_string()
}

/// Whether `s` starts with a `YYYY-MM-DD` date.
pub fn starts_with_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

/// Whether `s` is a real calendar date `YYYY-MM-DD` (month 1–12, a day that month has).
pub fn is_date(s: &str) -> bool {
    if s.len() != 10 || !starts_with_date(s) {
        return false;
    }
    let (y, m, d): (u32, u32, u32) = (
        s[..4].parse().unwrap_or(0),
        s[5..7].parse().unwrap_or(0),
        s[8..10].parse().unwrap_or(0),
    );
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// A calendar date or an RFC 3339 time as unix seconds (UTC; a `±HH:MM` offset is applied,
/// a fraction of a second dropped). A bare date is its first second; `end_of_day` makes it its
/// last, so "as of 2026-03-01" holds everything written that day. None for anything else.
/// The digits of `s` in `r` as a number (None when any is not an ASCII digit).
fn num_at(s: &str, r: std::ops::Range<usize>) -> Option<i64> {
    let t = s.get(r)?;
    t.bytes()
        .all(|c| c.is_ascii_digit())
        .then(|| t.parse().ok())
        .flatten()
}

pub fn parse_instant(s: &str, end_of_day: bool) -> Option<i64> {
    let s = s.trim();
    // `get`: the text is anyone's (`--as-of`, a session file's `**Started:**`), and its tenth
    // byte may fall inside a character.
    if !s.get(..10).is_some_and(is_date) {
        return None;
    }
    let day = days_from_civil(
        s[..4].parse().ok()?,
        s[5..7].parse().ok()?,
        s[8..10].parse().ok()?,
    ) * 86_400;
    if s.len() == 10 {
        return Some(if end_of_day { day + 86_399 } else { day });
    }
    let rest = s[10..].strip_prefix(['T', 't', ' '])?;
    let b = rest.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = rest.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())
            .flatten()
    };
    let (h, m, sec) = (num(0..2)?, num(3..5)?, num(6..8)?);
    if h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let mut zone = &rest[8..];
    if let Some(frac) = zone.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        zone = &frac[digits..];
    }
    let offset = match zone {
        "Z" | "z" => 0,
        z if z.len() == 6
            && (z.starts_with('+') || z.starts_with('-'))
            && z.as_bytes()[3] == b':' =>
        {
            // RFC 3339: two digits each, hours 00-23, minutes 00-59 (`+99:00` is no offset).
            let (oh, om) = (num_at(z, 1..3)?, num_at(z, 4..6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 3600 + om * 60;
            if z.starts_with('-') { -o } else { o }
        }
        _ => return None,
    };
    Some(day + h * 3600 + m * 60 + sec - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip() {
        for z in [-1000, 0, 1, 59, 365, 11_016, 20_000, 20_415] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_273_445), "2026-11-21T15:04:05Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn parses_instants() {
        assert_eq!(
            parse_instant("2026-11-21T15:04:05Z", false),
            Some(1_795_273_445)
        );
        assert_eq!(
            parse_instant("2026-11-21T15:04:05.123Z", false),
            Some(1_795_273_445)
        );
        assert_eq!(
            parse_instant("2026-11-21T17:04:05+02:00", false),
            Some(1_795_273_445)
        );
        assert_eq!(parse_instant("1970-01-01", true), Some(86_399));
        assert_eq!(parse_instant("1970-01-01", false), Some(0));
        for bad in [
            "",
            "HEAD",
            "2026-01-0é",
            "2026-01-01é",
            "2026-01-01T1é:00:00Z",
            "2026-13-01",
            "2026-11-21T15:04",
            "2026-11-21T15:04:05",
            "2026-11-21Tab:cd:efZ",
            "2026-11-21T15:04:05.Z",
        ] {
            assert_eq!(parse_instant(bad, false), None, "{bad}");
        }
    }

    #[test]
    fn recognises_dates() {
        assert!(starts_with_date("2026-11-21T15:04:05Z"));
        assert!(!starts_with_date("Use Hono"));
        assert!(is_date("2024-02-29") && is_date("2026-12-31"));
        assert!(
            !is_date("2026-13-45")
                && !is_date("2025-02-29")
                && !is_date("2026-04-31")
                && !is_date("2026-11-21T00")
        );
    }
}
