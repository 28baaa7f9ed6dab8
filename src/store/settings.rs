//! Validated settings: every environment variable zo reads and every `config.yaml` key it
//! understands, checked once with a usage error that names the variable (or the file and line)
//! and says what is allowed. A cloned repository's config is written by someone else, and a bad
//! value must never panic, hang or be silently ignored (issue 20).

use crate::error::Error;
use crate::store::config::{Config, Value, show};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest lock wait `ZO_LOCK_TIMEOUT` may ask for: beyond an hour a wait is a hang.
const MAX_LOCK_TIMEOUT_SECS: f64 = 3600.0;

/// Check every environment variable zo reads, before a command runs, so a bad one is reported
/// up front and not by whichever command happens to read it (or not at all).
pub fn check_env() -> Result<()> {
    lock_timeout()?;
    crate::time::pinned()?;
    for name in [
        "ZO_REPO",
        "ZO_USER_DIR",
        "ZO_MODEL_DIR",
        "ZO_CACHE",
        "ZO_VECTOR_CACHE",
    ] {
        dir_var(name)?;
    }
    cache_max()?;
    Ok(())
}

/// `ZO_LOCK_TIMEOUT`: how long to wait for a lock (default 30 s). Any finite number of seconds
/// from 0 to 3600; a negative, NaN or huge value once panicked in `Duration::from_secs_f64`.
pub fn lock_timeout() -> Result<Duration> {
    let Some(v) = var("ZO_LOCK_TIMEOUT")? else {
        return Ok(Duration::from_secs(30));
    };
    match v.trim().parse::<f64>() {
        Ok(s) if (0.0..=MAX_LOCK_TIMEOUT_SECS).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(usage(format!(
            "ZO_LOCK_TIMEOUT: {v:?} is not a lock timeout (a number of seconds, 0 to 3600)"
        ))),
    }
}

/// A variable naming a directory: unset or empty means "not set"; set, it must be a directory
/// or not exist yet (zo creates the user and cache directories on first use).
fn dir_var(name: &str) -> Result<Option<PathBuf>> {
    let Some(v) = std::env::var_os(name).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let p = PathBuf::from(v);
    if p.exists() && !p.is_dir() {
        return Err(usage(format!("{name}: {} is not a directory", p.display())));
    }
    if name == "ZO_REPO" && !p.exists() {
        return Err(usage(format!("{name}: {} does not exist", p.display())));
    }
    Ok(Some(p))
}

/// A variable's value; unset or empty is None. Not UTF-8 is a usage error naming it.
fn var(name: &str) -> Result<Option<String>> {
    match std::env::var(name) {
        Ok(v) if v.is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(usage(format!("{name}: the value is not UTF-8")))
        }
    }
}

fn usage(msg: String) -> anyhow::Error {
    Error::Usage(msg).into()
}

/// What a key may hold.
enum Kind {
    /// A whole number in the range.
    Whole(u64, u64),
    /// A finite number in the range (inclusive), or above the lower bound when `open_low`.
    Number {
        low: f64,
        high: f64,
        open_low: bool,
    },
    Bool,
    /// A string (a path, a name).
    Text,
    /// One of these words (or a boolean).
    Word(&'static [&'static str]),
    /// A section: a mapping of keys.
    Section,
    /// A list of one-line names.
    Names,
}

/// Every key zo reads from `config.yaml`, with what it may hold. Unknown keys are kept and not
/// judged (SPEC §1). `memory_root` is checked where the memory is found.
const KEYS: &[(&[&str], Kind, &str)] = &[
    (&["project"], Kind::Text, "a name"),
    (&["hooks"], Kind::Bool, "true or false"),
    (&["index"], Kind::Section, "a section of `key: value` lines"),
    (
        &["index", "embedding"],
        Kind::Word(&["auto", "fastembed", "off"]),
        "auto, fastembed or off",
    ),
    (&["index", "model"], Kind::Text, "a model name"),
    (&["index", "model_dir"], Kind::Text, "a path"),
    (&["index", "runtime"], Kind::Text, "a path"),
    (
        &["recall"],
        Kind::Section,
        "a section of `key: value` lines",
    ),
    (
        &["recall", "top_k"],
        Kind::Whole(1, 1000),
        "a whole number from 1 to 1000",
    ),
    (
        &["recall", "session_half_life_days"],
        Kind::Number {
            low: 0.0,
            high: 1e9,
            open_low: true,
        },
        "a number of days above 0",
    ),
    (
        &["context"],
        Kind::Section,
        "a section of `key: value` lines",
    ),
    (
        &["context", "budget_tokens"],
        Kind::Whole(1, 10_000_000),
        "a whole number of tokens from 1 to 10000000",
    ),
    (
        &["promotion"],
        Kind::Section,
        "a section of `key: value` lines",
    ),
    (
        &["promotion", "threshold"],
        Kind::Number {
            low: 0.0,
            high: 1.0,
            open_low: false,
        },
        "a number from 0 to 1",
    ),
    (
        &["limits"],
        Kind::Section,
        "a section of `key: value` lines",
    ),
    (
        &["limits", "title_chars"],
        Kind::Whole(1, u32::MAX as u64),
        "a positive whole number",
    ),
    (
        &["limits", "entry_bytes"],
        Kind::Whole(1, u32::MAX as u64),
        "a positive whole number",
    ),
    (
        &["agents"],
        Kind::Section,
        "a section of `key: value` lines",
    ),
    (
        &["agents", "bundle_chars"],
        Kind::Whole(1000, 1_000_000),
        "a whole number of characters from 1000 to 1000000",
    ),
    (&["agents", "stop_reminder"], Kind::Bool, "true or false"),
    (
        &["decision_types"],
        Kind::Names,
        "a list of type names (`[SECURITY, RELEASE]`)",
    ),
];

/// Check the keys zo understands in `config`, read from `text` at `path`. The first bad one is
/// a usage error `<path>:<line>: <key> must be …, not <value>`.
pub fn check_config(config: &Config, path: &Path, text: &str) -> Result<()> {
    for (key, kind, want) in KEYS {
        let Some(v) = config.get(key) else { continue };
        if !fits(kind, v) {
            let line = crate::store::config::line_of(text, key);
            return Err(usage(format!(
                "{}:{line}: {} must be {want}, not {}",
                path.display(),
                key.join("."),
                show(v)
            )));
        }
    }
    Ok(())
}

fn fits(kind: &Kind, v: &Value) -> bool {
    match kind {
        Kind::Whole(lo, hi) => v.as_u64().is_some_and(|n| (*lo..=*hi).contains(&n)),
        Kind::Number {
            low,
            high,
            open_low,
        } => v.as_f64().is_some_and(|n| {
            n.is_finite() && n <= *high && if *open_low { n > *low } else { n >= *low }
        }),
        Kind::Bool => v.is_bool(),
        Kind::Text => matches!(v, Value::String(s) if !s.trim().is_empty()),
        Kind::Word(words) => {
            v.is_bool() || matches!(v, Value::String(s) if words.contains(&s.as_str()))
        }
        Kind::Section => v.is_mapping(),
        Kind::Names => v.as_sequence().is_some_and(|l| {
            l.iter()
                .all(|x| matches!(x, Value::String(s) if !s.trim().is_empty() && !s.contains('\n')))
        }),
    }
}

/// The machine's vector cache is bounded to 1 GiB unless `ZO_CACHE_MAX` says otherwise.
pub const CACHE_MAX_DEFAULT: u64 = 1 << 30;

/// The size bound: `ZO_CACHE_MAX` (bytes, or with K, M, G suffix), else 1 GiB.
pub fn cache_max() -> Result<u64> {
    match std::env::var("ZO_CACHE_MAX")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        None => Ok(CACHE_MAX_DEFAULT),
        Some(v) => parse_size(&v).ok_or_else(|| {
            crate::error::Error::Usage(format!(
                "ZO_CACHE_MAX: {v:?} is not a size (bytes, or a number with K, M or G)"
            ))
            .into()
        }),
    }
}

/// `1234`, `500K`, `64M`, `1G` (binary multiples; a trailing `B` or `iB` allowed).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_suffix("iB")
        .or_else(|| s.strip_suffix('B'))
        .unwrap_or(s);
    let (num, mult) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 1u64 << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        'T' => (&s[..s.len() - 1], 1 << 40),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<()> {
        let path = Path::new(".zo/config.yaml");
        check_config(&Config::parse(path, text).unwrap(), path, text)
    }

    #[test]
    fn names_the_key_and_its_line() {
        let e = check("project: p\n\nrecall:\n  # how many\n  top_k: 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            ".zo/config.yaml:5: recall.top_k must be a whole number from 1 to 1000, not 0"
        );
        let e = check("project: p\nrecall: {top_k: many}\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(".zo/config.yaml:2: recall.top_k"), "{e}");
        let e = check("limits:\n  title_chars: 5\ncontext:\n  budget_tokens: -1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(".zo/config.yaml:4: context.budget_tokens"),
            "{e}"
        );
    }

    #[test]
    fn good_values_pass() {
        check("project: p\nhooks: true\nindex:\n  embedding: off\nrecall:\n  top_k: 5\n  session_half_life_days: 0.5\npromotion:\n  threshold: 0\nlimits:\n  entry_bytes: 100\nother: [kept]\n").unwrap();
        check("index:\n  embedding: false\n").unwrap();
    }

    #[test]
    fn bad_values_fail() {
        for bad in [
            "hooks: yes please\n",
            "index:\n  embedding: sometimes\n",
            "recall:\n  session_half_life_days: 0\n",
            "recall:\n  session_half_life_days: .nan\n",
            "promotion:\n  threshold: 1.5\n",
            "limits:\n  entry_bytes: 0\n",
            "recall: 5\n",
            "index:\n  model_dir: [a, b]\n",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }
}
