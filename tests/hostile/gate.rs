//! Hostile-repository cases: the write gate (issue 20). Every byte that reaches memory, from
//! the CLI or MCP, passes one gate: control characters and secrets are refused in every field
//! of every writer; `--allow-secret` records what it allowed and `verify` accepts exactly that;
//! the pre-commit hook scans every memory file kind; a terminal never replays stored escapes.

use super::{Hostile, check, timed};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const TOKEN: &str = "ghp_rTAwR4y9ojfljoQoaF1LlqsajAIxNKu8iS2G";
const OTHER: &str = "ghp_8NPRVdD53X83RZJzzzzgEOzdmenCkhvMdgaK";

/// Every file under `.zo/memory`, bytes by path (the index and lock left out).
fn memory(h: &Hostile) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let root = h.root().join(".zo/memory");
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = p.strip_prefix(&root).unwrap().to_string_lossy().to_string();
            if name.starts_with("index.db") || name.starts_with(".lock") || name == ".session" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(name, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A prior, so writers that name one have a target.
fn seed(h: &Hostile) -> String {
    let r = h.expect(
        &[
            "decide",
            "--title",
            "Seeded",
            "--decision",
            "a decision to refer to",
        ],
        0,
    );
    r.stdout.trim().to_string()
}

/// MCP wrote NUL bytes into every memory file kind while the CLI refused them: now every MCP
/// writer refuses a NUL (and any control character) in any field, naming it, and writes nothing.
#[test]
fn mcp_writes_nul_into_every_memory_file_kind() {
    let h = Hostile::new();
    let id = seed(&h);
    let before = memory(&h);
    let calls = [
        (
            "decide",
            serde_json::json!({"title": "t\u{0}", "decision": "d"}),
        ),
        (
            "decide",
            serde_json::json!({"title": "t", "decision": "d", "rationale": "r\u{0}"}),
        ),
        ("outcome", serde_json::json!({"id": id, "text": "ok\u{0}"})),
        (
            "fact_set",
            serde_json::json!({"key": "stack:db", "value": "pg\u{0}"}),
        ),
        (
            "prior_add",
            serde_json::json!({"title": "p", "root_cause": "novel_case", "failure": "f\u{0}", "rules": ["r"]}),
        ),
        ("session_start", serde_json::json!({"task": "t\u{0}"})),
        (
            "session_end",
            serde_json::json!({"summary": "s", "agent": "a\u{0}"}),
        ),
        (
            "session_end",
            serde_json::json!({"summary": "s", "phase": "p\u{1b}]0;pwned\u{7}"}),
        ),
    ];
    let mut input = String::new();
    input.push_str(&serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string());
    input.push('\n');
    input.push_str(
        &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    );
    input.push('\n');
    for (i, (name, args)) in calls.iter().enumerate() {
        input.push_str(&serde_json::json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string());
        input.push('\n');
    }
    let r = h.run_in(&["mcp"], input.as_bytes());
    check(&r, &["mcp"], 0);
    let replies: BTreeMap<u64, serde_json::Value> = r
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| Some((v["id"].as_u64()?, v)))
        .collect();
    for (i, (name, _)) in calls.iter().enumerate() {
        let v = &replies[&(i as u64 + 1)];
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            v["result"]["isError"] == true
                && text.contains("field holds a control character (U+00"),
            "{name}: {v}"
        );
    }
    assert_eq!(memory(&h), before, "a refused MCP write changed memory");
    h.assert_outside_unchanged();
}

/// Terminal escape sequences were stored and replayed: every CLI writer refuses them, naming
/// the field and where the character is, and leaves every file as it was.
#[test]
fn terminal_escapes_are_refused_by_every_cli_writer() {
    let h = Hostile::new();
    let id = seed(&h);
    h.expect(&["fact", "set", "stack:db", "postgres"], 0);
    let before = memory(&h);
    let esc = "x\u{1b}]0;pwned\u{7}";
    let mode = format!("mode={esc}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["decide", "--title", esc, "--decision", "d"], "Title"),
        (
            vec!["decide", "--title", "t", "--decision", "d", "--tags", esc],
            "Tags",
        ),
        (vec!["outcome", &id, esc], "Outcome"),
        (
            vec![
                "prior",
                "add",
                "--title",
                "p",
                "--root-cause",
                "novel_case",
                "--failure",
                "f",
                "--rule",
                esc,
            ],
            "Rules",
        ),
        (vec!["fact", "set", "stack:web", esc], "Value"),
        (
            vec!["fact", "set", "stack:web", "hono", "--source", esc],
            "Source",
        ),
        (vec!["state", "set", "--next", esc], "next_steps"),
        (vec!["state", "set", "--set", &mode], "mode"),
        (
            vec!["session", "end", "--summary", "s", "--agent", esc],
            "Agent",
        ),
        (
            vec!["session", "end", "--summary", "s", "--phase", esc],
            "Phase",
        ),
        (vec!["session", "end", "--summary", esc], "Attempted"),
        (
            vec!["snapshot", "--phase", "p1", "--outcome", esc],
            "Outcome",
        ),
        (
            vec!["snapshot", "--phase", "p1", "--handoff", esc],
            "Handoff",
        ),
        (vec!["forget", &id, "--reason", esc], "Reason"),
        (vec!["session", "start", "--task", esc], "Task"),
    ];
    for (args, field) in cases {
        let r = h.expect(&args, 1);
        assert!(
            r.stderr.contains(&format!(
                "the {field} field holds a control character (U+001B ESC at byte 1)"
            )),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(memory(&h), before, "{args:?} changed memory");
    }
}

/// `zo log` replayed a hand-written escape (title change, screen clear) on the terminal: it is
/// shown as `\x1b` there, and on a pipe too (an agent's shell tool reads a pipe).
#[test]
fn log_on_a_terminal_replays_a_stored_escape() {
    let h = Hostile::new();
    let log = h.mem("DECISION_LOG.md");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        format!(
            "{text}{}",
            super::util::canonical_entry(9, "Evil \u{1b}]0;pwned\u{7}\u{1b}[2J title", "d")
        ),
    )
    .unwrap();
    let piped = h.expect(&["log"], 0);
    assert!(
        piped.stdout.contains("Evil \\x1b]0;pwned") && !piped.stdout.contains('\u{1b}'),
        "a pipe gets the escapes: {:?}",
        piped.stdout
    );
    let mut c = Command::new("script");
    c.args(["-qec", &format!("{} log", super::util::ZO), "/dev/null"])
        .current_dir(h.root())
        .env("HOME", h.outside.path())
        .env_remove("ZO_REPO");
    let r = timed(c, b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("Evil \\x1b]0;pwned\\x07\\x1b[2J title"),
        "{:?}",
        r.stdout
    );
    assert!(
        !r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{7}'),
        "an escape reached the terminal: {:?}",
        r.stdout
    );
    h.assert_outside_unchanged();
}

/// Of 40 common secret forms, 14 passed every writer (issue 20's list): each is refused now.
#[test]
fn fourteen_secret_forms_passed_every_writer() {
    let h = Hostile::new();
    let before = memory(&h);
    for s in [
        "postgres://admin:s3cret@db/orders",
        "password: hunter2xyz",
        "Authorization: Bearer dZAkg05rK-gqv81RKMGHZEM9YpvujA_.C5Q52ryF",
        "Authorization: Basic dXNlcjpodW50ZXIyeHl6",
        "machine api.example.com login deploy password Tr0ub4dor",
        "mysql -u root -pSecret123 orders",
        "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",
        "SKe4fb440034d6608697a8d41bed440e50",
        "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K",
        "our AWS secret key is PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA+ for now",
        r#"{"SecretAccessKey": "PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA+"}"#,
        "npm_XZjljENUhJduRHHJEYXg4JdpmrcXgGCJbW56",
        "pypi-AgEIcHlwaS5vcmceCuNGMGmSrCGIZEG8pSH4487q7J58m1CiAhzCueQpBenQtYh5Xj8TPQxjq4i9DoV8gz4Fk",
        "sk-ant-api03-f6xuI5aHUQPFeNBTxaQWk8JzFalHlsZfYcMMDktXP-tKsf2rcDkdfrUnW5gcF_Ha6ili8GjHEAD6-Wj9KfzjsQGMrb9h_AA",
    ] {
        let r = h.expect(&["decide", "--title", "t", "--decision", s], 1);
        assert!(
            r.stderr.contains("the Decision field looks like it holds"),
            "{s}: {}",
            r.stderr
        );
    }
    // AWS's documented example keys are placeholders, not secrets.
    h.expect(
        &[
            "decide",
            "--title",
            "docs",
            "--decision",
            "AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ],
        0,
    );
    assert_ne!(memory(&h), before);
}

/// Fields that were never checked for secrets: session end's agent and phase, snapshot's
/// outcome, forget's reason (the tombstone would keep the secret), a session's task.
#[test]
fn secrets_in_fields_that_were_never_checked() {
    let h = Hostile::new();
    let id = seed(&h);
    let before = memory(&h);
    let pw = "password=hunter22";
    for args in [
        vec!["session", "end", "--summary", "s", "--agent", pw],
        vec!["session", "end", "--summary", "s", "--phase", pw],
        vec!["snapshot", "--phase", "p1", "--outcome", pw],
        vec!["forget", &id, "--reason", pw],
        vec!["session", "start", "--task", pw],
    ] {
        let r = h.expect(&args, 1);
        assert!(
            r.stderr.contains("looks like it holds"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // Forget has no way around it: a tombstone must never keep a secret.
    let r = h.expect(&["forget", &id, "--reason", TOKEN, "--allow-secret"], 2);
    assert!(r.stderr.contains("--allow-secret"), "{}", r.stderr);
    assert_eq!(memory(&h), before);
}

/// An entry written with --allow-secret made `zo verify` fail forever and, with hooks
/// installed, blocked every later commit. Now each entry records what it allowed; verify and
/// the pre-commit hook accept exactly that, in that entry.
#[test]
fn allow_secret_made_verify_fail_forever_and_blocked_every_commit() {
    let h = Hostile::new();
    h.expect(&["hooks", "install"], 0);
    let id = h
        .expect(
            &[
                "decide",
                "--title",
                "CI token",
                "--decision",
                &format!("CI uses {TOKEN}"),
                "--allow-secret",
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    h.expect(
        &[
            "prior",
            "add",
            "--title",
            "Leaked",
            "--root-cause",
            "novel_case",
            "--failure",
            &format!("pushed {OTHER}"),
            "--rule",
            "r",
            "--allow-secret",
        ],
        0,
    );
    h.expect(&["fact", "set", "ci:token", TOKEN, "--allow-secret"], 0);
    h.expect(
        &[
            "state",
            "set",
            "--next",
            &format!("rotate {TOKEN}"),
            "--allow-secret",
        ],
        0,
    );
    h.expect(
        &[
            "outcome",
            &id,
            &format!("rotated, new one {OTHER}"),
            "--allow-secret",
        ],
        0,
    );
    h.expect(
        &[
            "session",
            "end",
            "--summary",
            &format!("set up {TOKEN}"),
            "--next",
            &format!("rotate {OTHER}"),
            "--allow-secret",
        ],
        0,
    );
    h.expect(
        &[
            "snapshot",
            "--phase",
            "p1",
            "--handoff",
            &format!("the token is {TOKEN}"),
        ],
        1,
    );
    h.expect(
        &[
            "snapshot",
            "--phase",
            "p1",
            "--handoff",
            &format!("the token is {TOKEN}"),
            "--allow-secret",
        ],
        0,
    );
    let log = std::fs::read_to_string(h.mem("DECISION_LOG.md")).unwrap();
    assert!(log.contains("**Allowed secret:** sha256:"), "{log}");
    h.expect(&["verify"], 0);
    h.repo.git(&["add", "-A"]);
    h.expect(&["verify", "--staged"], 0);
    let out = super::util::git_command(h.root())
        .args(["commit", "-q", "-m", "allowed secrets"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the pre-commit hook refused: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same secret in another entry is still reported.
    let text = std::fs::read_to_string(h.mem("DECISION_LOG.md")).unwrap();
    std::fs::write(
        h.mem("DECISION_LOG.md"),
        format!(
            "{text}{}",
            super::util::canonical_entry(7, "Copy", &format!("again {TOKEN}"))
        ),
    )
    .unwrap();
    let r = h.expect(&["verify"], 4);
    assert!(
        r.stderr.contains("DECISION_LOG.md:") && r.stderr.contains("a GitHub token"),
        "{}",
        r.stderr
    );
    std::fs::write(h.mem("DECISION_LOG.md"), &text).unwrap();
    h.expect(&["verify"], 0);
    // A different secret in the allowed entry is still reported.
    let edited = text.replacen(
        &format!("CI uses {TOKEN}"),
        &format!("CI uses {TOKEN} and {OTHER}"),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(h.mem("DECISION_LOG.md"), &edited).unwrap();
    let r = h.expect(&["verify"], 4);
    assert!(r.stderr.contains("a GitHub token"), "{}", r.stderr);
    h.assert_outside_unchanged();
}

/// The pre-commit hook and `verify --staged` scanned neither STATE, sessions nor snapshots.
#[test]
fn staged_session_state_and_snapshot_secrets_were_not_scanned() {
    for (file, content, line) in [
        (
            "sessions/session-hand.md",
            "# Session 001\n\npassword=hunter22\n",
            3,
        ),
        (
            "snapshots/p1_hand.md",
            "---\nphase: p1\n---\n\nkey AKIAZ7VRSQ5TJXNBMQ3B\n",
            5,
        ),
        (
            "STATE.md",
            "# STATE\nphase: p1\nnext_steps: [use postgres://admin:s3cret@db/orders]\n",
            3,
        ),
    ] {
        let h = Hostile::new();
        let path = h.mem(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        h.repo.git(&["add", "-A"]);
        let r = h.expect(&["verify", "--staged"], 4);
        let name = Path::new(".zo/memory").join(file);
        assert!(
            r.stderr.contains(&format!("{}:{line}:", name.display())),
            "{file}: {}",
            r.stderr
        );
        h.expect(&["verify"], 4);
    }
}
