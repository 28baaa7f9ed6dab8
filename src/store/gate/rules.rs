//! zo's own secret rules, beside gitleaks' (`gitleaks.rs`): forms a scanner of source code
//! leaves to context but that people paste into notes (credentials in URLs and headers,
//! `.netrc`, `mysql -p…`, an unquoted `password: …`, a bare AWS secret key next to its name,
//! STS JSON, a base64-wrapped PEM key), and looser token forms zo refused before it took
//! gitleaks' rules (shorter test tokens of the same prefixes). They run first, so a secret
//! both catch is reported under zo's shorter name. Then the placeholders every rule lets pass.

use super::secrets::Rule;

const fn rule(
    id: &'static str,
    what: &'static str,
    regex: &'static str,
    group: usize,
    keywords: &'static [&'static str],
) -> Rule {
    Rule {
        id,
        what,
        regex,
        group,
        entropy: 0.0,
        keywords,
        allow: &[],
        confirm: None,
    }
}

const fn confirmed(r: Rule, f: fn(&str) -> bool) -> Rule {
    Rule {
        confirm: Some(f),
        ..r
    }
}

pub static RULES: &[Rule] = &[
    // Cloud credentials.
    rule(
        "zo-aws-access-key-id",
        "an AWS access key ID",
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        0,
        &["akia", "asia"],
    ),
    rule(
        "zo-aws-secret-access-key",
        "an AWS secret access key",
        r#"(?i)\baws_secret_access_key\s*[=:]\s*["']?([^\s"']{20,})"#,
        1,
        &["aws_secret_access_key"],
    ),
    confirmed(
        rule(
            "zo-aws-secret-in-context",
            "an AWS secret access key",
            r#"(?i)\b(?:aws|amazon)\b[^\n]{0,40}?\bsecret\b[^\n]{0,30}?["'=:\s]([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            1,
            &["aws", "amazon"],
        ),
        random,
    ),
    confirmed(
        rule(
            "zo-aws-key-pair",
            "an AWS secret access key",
            r"\b(?:AKIA|ASIA)[A-Z2-7]{16}\b[^\n]{0,20}?\b([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
            1,
            &["akia", "asia"],
        ),
        random,
    ),
    rule(
        "zo-aws-sts-json",
        "an AWS secret access key",
        r#""(?:SecretAccessKey|SessionToken)"\s*:\s*"([A-Za-z0-9/+=]{40,})""#,
        1,
        &["secretaccesskey", "sessiontoken"],
    ),
    rule(
        "zo-gcp-service-account",
        "a GCP service-account key",
        r#""type"\s*:\s*"service_account""#,
        0,
        &["service_account"],
    ),
    rule(
        "zo-gcp-private-key-id",
        "a GCP service-account key",
        r#""private_key_id"\s*:\s*"([0-9a-f]{40})""#,
        1,
        &["private_key_id"],
    ),
    rule(
        "zo-azure-storage-key",
        "an Azure storage key",
        r"(?i)\bAccountKey=([A-Za-z0-9+/=]{40,})",
        1,
        &["accountkey"],
    ),
    rule(
        "zo-azure-shared-access-key",
        "an Azure connection string key",
        r"(?i)\bSharedAccessKey=([A-Za-z0-9+/=]{30,})",
        1,
        &["sharedaccesskey"],
    ),
    // Tokens with known prefixes, in the looser forms zo refused before.
    rule(
        "zo-github-token",
        "a GitHub token",
        r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",
        0,
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    ),
    rule(
        "zo-github-pat",
        "a GitHub token",
        r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
        0,
        &["github_pat_"],
    ),
    rule(
        "zo-gitlab-token",
        "a GitLab token",
        r"\bglpat-[A-Za-z0-9_\-]{20,}\b",
        0,
        &["glpat-"],
    ),
    rule(
        "zo-slack-token",
        "a Slack token",
        r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b",
        0,
        &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"],
    ),
    rule(
        "zo-stripe-webhook-secret",
        "a Stripe webhook secret",
        r"\bwhsec_[A-Za-z0-9]{24,}\b",
        0,
        &["whsec_"],
    ),
    rule(
        "zo-npm-token",
        "an npm token",
        r"\bnpm_[A-Za-z0-9]{36}\b",
        0,
        &["npm_"],
    ),
    rule(
        "zo-sendgrid-key",
        "a SendGrid API key",
        r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}\b",
        0,
        &["sg."],
    ),
    rule(
        "zo-pypi-token",
        "a PyPI upload token",
        r"\bpypi-AgE[A-Za-z0-9_\-]{50,}",
        0,
        &["pypi-age"],
    ),
    rule(
        "zo-api-secret-key",
        "an API secret key",
        r"\bsk-(?:ant-[a-z0-9]+-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}\b",
        0,
        &["sk-"],
    ),
    rule(
        "zo-jwt",
        "a JSON Web Token",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        0,
        &["eyj"],
    ),
    // Private keys in any armour.
    rule(
        "zo-private-key",
        "a private key block",
        r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----",
        0,
        &["-----begin"],
    ),
    rule(
        "zo-putty-key",
        "a PuTTY private key",
        r"PuTTY-User-Key-File-\d+:",
        0,
        &["putty-user-key-file-"],
    ),
    confirmed(
        rule(
            "zo-base64-private-key",
            "a base64-wrapped private key",
            r"LS0tLS1CRUdJT[A-Za-z0-9+/]{16,}={0,2}",
            0,
            &["ls0tls1crudjt"],
        ),
        wraps_private_key,
    ),
    // Credentials in URLs, headers and command lines.
    rule(
        "zo-url-credentials",
        "a password in a URL",
        r#"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'"`<>]{1,64}:([^\s/@'"`<>]{3,128})@[A-Za-z0-9.\-_\[\]]"#,
        1,
        &["://"],
    ),
    rule(
        "zo-authorization-header",
        "an Authorization header",
        r"(?i)\bAuthorization\s*[:=]\s*(?:Bearer|Basic|Token|Digest|Bot)\s+([A-Za-z0-9\-._~+/]{8,}=*)",
        1,
        &["authorization"],
    ),
    confirmed(
        rule(
            "zo-bearer-token",
            "a bearer token",
            r"\bBearer\s+([A-Za-z0-9\-._~+/]{20,}=*)",
            1,
            &["bearer"],
        ),
        random,
    ),
    confirmed(
        rule(
            "zo-netrc",
            "a .netrc password",
            r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)",
            1,
            &["machine"],
        ),
        not_a_word,
    ),
    rule(
        "zo-mysql-password",
        "a password on a mysql command line",
        r#"\bmysql(?:dump|admin|sh)?\b[^\n]*?\s-p([^\s'"-][^\s'"]*)"#,
        1,
        &["mysql"],
    ),
    rule(
        "zo-password-flag",
        "a password on a command line",
        r#"(?i)--password[= ]["']?([^\s'"\-][^\s'"]{3,})"#,
        1,
        &["--password"],
    ),
    // Assignments.
    rule(
        "zo-password-assignment",
        "a password-style assignment",
        r#"(?i)\b[a-z0-9_\-]*(?:password|passwd|pwd|secret|api[_\-]?key|access[_\-]?token|auth[_\-]?token|client[_\-]?secret)\s*=\s*['"]?([^\s'"]{4,})"#,
        1,
        &["password", "passwd", "pwd", "secret", "api", "token"],
    ),
    rule(
        "zo-password-quoted",
        "a password-style assignment",
        r#"(?i)["']?\b[a-z0-9_\-]*(?:password|passwd|secret|api[_\-]?key|client[_\-]?secret|token)["']?\s*:\s*["']([^\s"']{8,})["']"#,
        1,
        &["password", "passwd", "secret", "api", "token"],
    ),
    confirmed(
        rule(
            "zo-password-unquoted",
            "a password",
            r#"(?i)\b(?:password|passwd|pwd)\s*:\s*([^\s'"`<>()\[\]]{6,})"#,
            1,
            &["password", "passwd", "pwd"],
        ),
        letters_and_digits,
    ),
];

/// Letters and digits both: `hunter2xyz` is a password, `rotation-policy` is prose.
fn letters_and_digits(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_alphabetic()) && s.chars().any(|c| c.is_ascii_digit())
}

/// Not a plain word: a digit, a symbol or mixed case (`Tr0ub4dor`, not `reset`).
fn not_a_word(s: &str) -> bool {
    s.chars().any(|c| !c.is_ascii_alphabetic())
        || (s.chars().any(|c| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase()))
}

/// Random-looking: upper case, lower case and digits all occur (a 40-character AWS secret key
/// without them is a path or a word run, not a key).
fn random(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && s.chars().any(|c| c.is_ascii_digit())
}

/// A base64 run that decodes to a PEM private key header.
fn wraps_private_key(s: &str) -> bool {
    let decoded = base64_decode(&s[..s.len().min(400)]);
    memchr::memmem::find(&decoded, b"PRIVATE KEY").is_some()
}

/// Standard base64 (padding optional); decoding stops at the first byte outside the alphabet.
fn base64_decode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => break,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Text that matches a rule but is public by design: a NATS public key (56 base32 characters
/// led by N, A, C, U, O or X; seeds, which are secret, start with S), quoted in one of the ADRs.
pub fn public(secret: &str) -> bool {
    secret.len() == 56
        && secret.starts_with(['N', 'A', 'C', 'U', 'O', 'X'])
        && secret
            .bytes()
            .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
}

/// Documentation placeholders every rule lets pass (checked on the secret itself, any case):
/// AWS's documented example keys (`AKIAIOSFODNN7EXAMPLE`, `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
/// anything ending in `EXAMPLE` or `EXAMPLEKEY`), `<password>`, `${DB_PASSWORD}`, `$PASSWORD`,
/// `{{ token }}`, `%PASSWORD%`, one character repeated (`xxxxxxxx`, `********`), and the words
/// `changeme`, `changeit`, `password`, `secret`, `example`, `placeholder`, `redacted`, `dummy`,
/// `your-api-key` / `your_token_here` and the like.
pub fn placeholder(secret: &str) -> bool {
    let s = secret.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';'));
    if s.is_empty() {
        return true;
    }
    if s.ends_with("EXAMPLE") || s.ends_with("EXAMPLEKEY") {
        return true;
    }
    let mut chars = s.chars();
    let first = chars.next().unwrap_or(' ');
    if chars.all(|c| c == first) {
        return true;
    }
    if (s.starts_with('<') && s.ends_with('>'))
        || (s.starts_with("{{") && s.ends_with("}}"))
        || (s.starts_with('%') && s.ends_with('%') && s.len() > 2)
    {
        return true;
    }
    let var = s
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| s.strip_prefix('$'));
    if var.is_some_and(|v| {
        !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-')
    }) {
        return true;
    }
    let l = s.to_ascii_lowercase();
    const WORDS: [&str; 13] = [
        "changeme",
        "change-me",
        "change_me",
        "changeit",
        "password",
        "passwd",
        "secret",
        "example",
        "placeholder",
        "redacted",
        "dummy",
        "none",
        "null",
    ];
    if WORDS.contains(&l.as_str()) {
        return true;
    }
    let words = [
        "your-", "your_", "my-", "my_", "<your", "insert-", "insert_", "replace-", "replace_",
    ];
    words.iter().any(|w| l.starts_with(w))
        || l.ends_with("_here")
        || l.ends_with("-here")
        || l.contains("xxxx")
        || l.contains("****")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_a_wrapped_pem_header() {
        assert_eq!(
            base64_decode("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ=="),
            b"-----BEGIN RSA PRIVATE KEY-----"
        );
        assert!(wraps_private_key(
            "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ=="
        ));
        assert!(
            !wraps_private_key("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"),
            "a certificate is public"
        );
    }

    #[test]
    fn placeholders() {
        for p in [
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "<password>",
            "${DB_PASSWORD}",
            "$PASSWORD",
            "xxxxxxxx",
            "********",
            "changeme",
            "your-api-key",
            "your_token_here",
            "{{ token }}",
        ] {
            assert!(placeholder(p), "{p}");
        }
        for s in [
            "hunter2xyz",
            "s3cret",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Rk2LmNp",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ] {
            assert!(!placeholder(s), "{s}");
        }
    }
}
