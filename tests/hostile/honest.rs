//! Hostile-repository cases: honest answers. Every setting a repository or an environment can
//! carry is validated with a usage error naming it; supersede cycles and forgotten entries are
//! reported, not silently mishandled; output that cannot be written is an error; a shallow
//! clone says so; `forget` leaves no copy of what it erased.

use super::{Hostile, check, timed};

/// `zo ARGS` with the variable set: exit 2, the message names the variable, no panic.
fn env_refused(h: &Hostile, var: &str, value: &str, args: &[&str], says: &str) {
    let mut c = h.cmd(args);
    c.env(var, value);
    let r = timed(c, b"");
    check(&r, args, 2);
    assert!(r.stderr.starts_with(&format!("zo: {var}: ")), "{var}={value:?}: {}", r.stderr);
    assert!(r.stderr.contains(says), "{var}={value:?}: {}", r.stderr);
    h.assert_outside_unchanged();
}

#[test]
fn lock_timeout_negative_nan_or_huge_is_a_usage_error() {
    let h = Hostile::new();
    let write = ["decide", "--title", "t", "--decision", "d"];
    for bad in ["-1", "NaN", "1e30", "abc", "inf", "3601"] {
        env_refused(&h, "ZO_LOCK_TIMEOUT", bad, &write, "(a number of seconds, 0 to 3600)");
    }
    // Readers refuse it too: the check runs before any command, not only at a lock.
    env_refused(&h, "ZO_LOCK_TIMEOUT", "-1", &["log"], "0 to 3600");
    let mut c = h.cmd(&write);
    c.env("ZO_LOCK_TIMEOUT", "0.5");
    check(&timed(c, b""), &write, 0);
}

#[test]
fn now_that_is_not_unix_seconds_is_a_usage_error() {
    let h = Hostile::new();
    for bad in ["yesterday", "-5", "1e9", "99999999999999"] {
        env_refused(&h, "ZO_NOW", bad, &["decide", "--title", "t", "--decision", "d"], "whole unix seconds");
    }
}

#[test]
fn directory_variables_at_a_file_are_a_usage_error() {
    let h = Hostile::new();
    let file = h.out("precious");
    let file = file.to_str().unwrap();
    for var in ["ZO_REPO", "ZO_USER_DIR", "ZO_MODEL_DIR", "ZO_CACHE"] {
        env_refused(&h, var, file, &["status"], "is not a directory");
    }
    env_refused(&h, "ZO_REPO", "/nonexistent/zo-nowhere", &["status"], "does not exist");
}

/// `config.yaml` with one more section appended: exit 2, `<file>:<line>: <key> must be …`.
fn config_refused(h: &Hostile, extra: &str, key: &str, line: usize) {
    let path = h.root().join(".zo/config.yaml");
    let good = std::fs::read_to_string(&path).unwrap();
    let good = good.trim_end();
    std::fs::write(&path, format!("{good}\n{extra}")).unwrap();
    let at = good.lines().count() + line;
    for args in [&["log"][..], &["decide", "--title", "t", "--decision", "d"], &["recall", "--mode", "lexical", "x"]] {
        let r = h.expect(args, 2);
        let want = format!(".zo/config.yaml:{at}: {key} must be ");
        assert!(r.stderr.starts_with("zo: ") && r.stderr.contains(&want), "{extra:?} {args:?}: want {want:?} in {}", r.stderr);
    }
    std::fs::write(&path, format!("{good}\n")).unwrap();
}

#[test]
fn config_values_out_of_range_are_usage_errors_naming_file_and_line() {
    let h = Hostile::new();
    for (extra, key, line) in [
        ("recall:\n  top_k: 0\n", "recall.top_k", 2),
        ("recall:\n  top_k: -3\n", "recall.top_k", 2),
        ("recall:\n  top_k: 1e30\n", "recall.top_k", 2),
        ("recall: {top_k: lots}\n", "recall.top_k", 1),
        ("recall:\n  session_half_life_days: -1\n", "recall.session_half_life_days", 2),
        ("recall:\n  session_half_life_days: .nan\n", "recall.session_half_life_days", 2),
        ("context:\n  budget_tokens: -1\n", "context.budget_tokens", 2),
        ("context:\n  budget_tokens: 1.5\n", "context.budget_tokens", 2),
        ("promotion:\n  threshold: 2\n", "promotion.threshold", 2),
        ("promotion:\n  threshold: .inf\n", "promotion.threshold", 2),
        ("limits:\n  title_chars: 0\n", "limits.title_chars", 2),
        ("limits:\n  entry_bytes: lots\n", "limits.entry_bytes", 2),
        ("index:\n  embedding: sometimes\n", "index.embedding", 2),
        ("index:\n  model_dir: [a, b]\n", "index.model_dir", 2),
        ("index:\n  runtime: {a: 1}\n", "index.runtime", 2),
        ("hooks: maybe\n", "hooks", 1),
        ("recall: 7\n", "recall", 1),
    ] {
        config_refused(&h, extra, key, line);
    }
}
