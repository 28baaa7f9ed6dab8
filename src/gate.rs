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
    pub fn from_config(config: &crate::config::Config, file: &std::path::Path) -> Result<Limits> {
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
                        bail!("{}:{line}: limits.{key} must be a positive whole number, not {}", file.display(), crate::config::show(v))
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
    (r"\bsk-(ant-|proj-)?[A-Za-z0-9_\-]{32,}\b", "an API secret key"),
    (r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----", "a private key block"),
    (
        r#"(?i)\b[a-z0-9_\-]*(password|passwd|pwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret)\s*=\s*['"]?[^\s'"]{4,}"#,
        "a password-style assignment",
    ),
    (
        r#"(?i)["']?\b[a-z0-9_\-]*(password|passwd|secret|api[_\-]?key|client[_\-]?secret)["']?\s*:\s*["'][^\s"']{4,}["']"#,
        "a password-style assignment",
    ),
];

/// Refuse text that looks like a secret, naming the field and the kind of secret.
pub fn secrets(fields: &[(&str, &str)], allow: bool) -> Result<()> {
    if allow {
        return Ok(());
    }
    let set = RegexSet::new(SECRET_PATTERNS.iter().map(|(p, _)| *p)).expect("secret patterns compile");
    for (name, value) in fields {
        if let Some(i) = set.matches(value).iter().next() {
            bail!(
                "refused: the {name} field looks like it holds {}; remove it, or pass --allow-secret if it is not a secret",
                SECRET_PATTERNS[i].1
            );
        }
    }
    Ok(())
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
        ] {
            assert!(secrets(&[("Decision", s)], false).is_ok(), "{s}");
        }
    }
}
