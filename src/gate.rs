//! The write gate (SPEC §3): what zo refuses to write. Every check runs before anything is
//! written, so a refusal leaves the files exactly as they were.

use anyhow::{Result, bail};
use regex::RegexSet;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub title_chars: usize,
    pub entry_bytes: usize,
}

impl Limits {
    pub fn from_config(config: &crate::store::config::Config, file: &std::path::Path) -> Result<Limits> {
        let get = |key: &str, default: usize| -> Result<usize> {
            match config.get(&["limits", key]) {
                None => Ok(default),
                Some(v) => match v.as_u64().filter(|&n| n > 0) {
                    Some(n) => Ok(n as usize),
                    None => {
                        let line = std::fs::read_to_string(file)
                            .ok()
                            .and_then(|t| t.lines().position(|l| l.trim_start().starts_with(&format!("{key}:"))))
                            .map_or(1, |i| i + 1);
                        bail!("{}:{line}: limits.{key} must be a positive whole number, not {}", file.display(), crate::store::config::show(v))
                    }
                },
            }
        };
        Ok(Limits { title_chars: get("title_chars", 200)?, entry_bytes: get("entry_bytes", 64 * 1024)? })
    }
}

pub fn require(field: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        bail!("refused: {field} is empty; it is required");
    }
    Ok(())
}

pub fn title(value: &str, limits: Limits) -> Result<()> {
    require("the title", value)?;
    if value.contains('\n') {
        bail!("refused: the title must be one line");
    }
    let n = value.chars().count();
    if n > limits.title_chars {
        bail!("refused: the title is {n} characters; the limit is {}", limits.title_chars);
    }
    Ok(())
}

pub fn entry_size(rendered: &str, limits: Limits) -> Result<()> {
    if rendered.len() > limits.entry_bytes {
        bail!(
            "refused: the entry is {} bytes; the limit is {} (limits.entry_bytes in .zo/config.yaml)",
            rendered.len(),
            limits.entry_bytes
        );
    }
    Ok(())
}

const SECRET_PATTERNS: &[(&str, &str)] = &[
    (r"\b(AKIA|ASIA)[0-9A-Z]{16}\b", "an AWS access key ID"),
    (r"(?i)aws_secret_access_key\s*[=:]\s*\S{20,}", "an AWS secret access key"),
    (r"\bAIza[0-9A-Za-z_\-]{35}\b", "a Google API key"),
    (r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", "a GitHub token"),
    (r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", "a GitHub token"),
    (r"\bglpat-[A-Za-z0-9_\-]{20,}\b", "a GitLab token"),
    (r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b", "a Slack token"),
    (r"\b[sr]k_live_[A-Za-z0-9]{16,}\b", "a Stripe live key"),
    (r"\bwhsec_[A-Za-z0-9]{24,}\b", "a Stripe webhook secret"),
    (r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}", "a Slack webhook URL"),
    (r"\bnpm_[A-Za-z0-9]{36}\b", "an npm token"),
    (r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}", "a JSON Web Token"),
    (r#""type"\s*:\s*"service_account""#, "a GCP service-account key"),
    (r"(?i)\bAccountKey=[A-Za-z0-9+/=]{40,}", "an Azure storage key"),
    (r"(?i)\baws.{0,20}secret.{0,20}[=:]\s*['\x22]?[A-Za-z0-9/+]{40}\b", "an AWS secret access key"),
    (r"\bsk-(ant-|proj-)?[A-Za-z0-9_\-]{32,}\b", "an API secret key"),
    (r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----", "a private key block"),
    (
        r#"(?i)\b[a-z0-9_\-]*(password|passwd|pwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret)\s*=\s*['"]?[^\s'"]{4,}"#,
        "a password-style assignment",
    ),
    (
        r#"(?i)["']?\b[a-z0-9_\-]*(password|passwd|secret|api[_\-]?key|client[_\-]?secret|token)["']?\s*:\s*["'][^\s"']{8,}["']"#,
        "a password-style assignment",
    ),
];

/// Compiled once per process.
static SECRETS: std::sync::LazyLock<RegexSet> =
    std::sync::LazyLock::new(|| RegexSet::new(SECRET_PATTERNS.iter().map(|(p, _)| *p)).expect("secret patterns compile"));

/// Lines of `text` that look like they hold a secret: (line, what). For text written by hand,
/// which never went through the gate (`zo verify`, the pre-commit hook).
pub fn find_secrets(text: &str) -> Vec<(usize, &'static str)> {
    if !SECRETS.is_match(text) {
        return vec![];
    }
    text.lines()
        .enumerate()
        .filter_map(|(n, l)| SECRETS.matches(l).iter().next().map(|i| (n + 1, SECRET_PATTERNS[i].1)))
        .collect()
}

/// Refuse text that looks like a secret, naming the field and the kind of secret.
pub fn secrets(fields: &[(&str, &str)], allow: bool) -> Result<()> {
    if allow {
        return Ok(());
    }
    for (name, value) in fields {
        if let Some(i) = SECRETS.matches(value).iter().next() {
            bail!(
                "refused: the {name} field looks like it holds {}; remove it, or pass --allow-secret if it is not a secret",
                SECRET_PATTERNS[i].1
            );
        }
    }
    Ok(())
}


/// An entry that looks like the one being written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Similar {
    pub id: String,
    pub title: String,
    /// Word overlap of the two titles (Jaccard, 0 to 1).
    pub score: f64,
}

/// Word overlap above which two titles name the same thing: "Use Postgres for orders" and
/// "Use PostgreSQL for the orders service" do not reach it; "Adopt Hono for the API" and
/// "Adopt Hono for the HTTP API" do. A cheap test that needs no model, at write time.
pub const NEAR_DUPLICATE: f64 = 0.6;

fn title_words(t: &str) -> std::collections::HashSet<String> {
    const SMALL: [&str; 12] = ["a", "an", "the", "for", "of", "to", "in", "on", "and", "or", "with", "use"];
    t.split(|c: char| !c.is_alphanumeric())
        .map(|w| w.to_lowercase())
        .map(|w| if w.len() > 3 { w.trim_end_matches('s').to_string() } else { w })
        .filter(|w| !w.is_empty() && !SMALL.contains(&w.as_str()))
        .collect()
}

/// Titles among `others` that nearly match `title` (not exactly: exact ones are refused).
pub fn near_duplicates<'a>(title: &str, others: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Similar> {
    let mine = title_words(title);
    if mine.len() < 2 {
        return vec![];
    }
    let mut out: Vec<Similar> = others
        .filter_map(|(id, t)| {
            let theirs = title_words(t);
            let shared = mine.intersection(&theirs).count();
            let score = shared as f64 / mine.union(&theirs).count().max(1) as f64;
            (score >= NEAR_DUPLICATE && shared >= 2).then(|| Similar { id: id.to_string(), title: t.to_string(), score: (score * 100.0).round() / 100.0 })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(3);
    out
}

/// A fresh random ID, `<prefix>-` and 8 hex digits, not in `taken`. Random rather than a
/// counter so clones can append concurrently without coordination; checked under the lock
/// against what this clone already has.
pub fn new_id(prefix: &str, taken: impl Fn(&str) -> bool) -> Result<String> {
    for _ in 0..64 {
        let mut b = [0u8; 4];
        getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no randomness for a new ID: {e}"))?;
        let id = format!("{prefix}-{:02x}{:02x}{:02x}{:02x}", b[0], b[1], b[2], b[3]);
        if !taken(&id) {
            return Ok(id);
        }
    }
    bail!("could not find a free ID")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_duplicate_titles_are_found_and_different_ones_are_not() {
        let others = [("D-1", "Adopt Hono for the HTTP API"), ("D-2", "Use Postgres for orders"), ("D-3", "Cache sessions in Redis")];
        let hits = near_duplicates("Adopt Hono for the API", others.iter().copied());
        assert_eq!(hits.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["D-1"]);
        assert!(near_duplicates("Use PostgreSQL for the orders service", others.iter().copied()).is_empty());
        assert!(near_duplicates("Redis", others.iter().copied()).is_empty());
    }

    #[test]
    fn secrets_are_refused_and_prose_is_not() {
        for s in [
            "key AKIAIOSFODNN7EXAMPLE here",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "xoxb-1234567890-abcdefghij",
            "sk_live_abcdefghijklmnop1234",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "password=hunter22",
            "DB_PASSWORD = 'correcthorse'",
            "api_key=abcd1234efgh",
            "hook https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/abcdefghijklmnopqrstuvwx",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            r#"{"type": "service_account", "project_id": "p"}"#,
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----",
            "-----BEGIN EC PRIVATE KEY-----",
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH==",
            "aws_secret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            r#"token: "abcdef0123456789""#,
            "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "whsec_abcdefghijklmnopqrstuvwxyz012345",
        ] {
            assert!(secrets(&[("Decision", s)], false).is_err(), "{s}");
            assert!(secrets(&[("Decision", s)], true).is_ok());
        }
        for s in [
            "We rotate the password every 90 days.",
            "password: see the vault",
            "Use sk-learn for the baseline",
            "The token bucket rate limiter",
            "`ghp_` tokens must never be committed",
            "the token: a short-lived JWT signed by the gateway",
            "We store the service account's key in the vault",
        ] {
            assert!(secrets(&[("Decision", s)], false).is_ok(), "{s}");
        }
    }

    /// Real decision records talk about passwords, tokens and keys all the time; none of the
    /// 326 ADRs may trip the gate.
    #[test]
    fn no_adr_record_is_taken_for_a_secret() {
        let corpus = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adr-corpus.jsonl")).unwrap();
        let mut checked = 0;
        for line in corpus.lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let body = r["body"].as_str().unwrap();
            assert!(secrets(&[("Decision", body)], false).is_ok(), "{}: {:?}", r["id"], find_secrets(body));
            checked += 1;
        }
        assert_eq!(checked, 326);
        let fixture = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zero-operators-memory/DECISION_LOG.md")).unwrap();
        assert_eq!(find_secrets(&fixture), vec![], "the hand-written fixture holds no secret");
    }
}
