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
    assert!(
        r.stderr.starts_with(&format!("zo: {var}: ")),
        "{var}={value:?}: {}",
        r.stderr
    );
    assert!(r.stderr.contains(says), "{var}={value:?}: {}", r.stderr);
    h.assert_outside_unchanged();
}

#[test]
fn lock_timeout_negative_nan_or_huge_is_a_usage_error() {
    let h = Hostile::new();
    let write = ["decide", "--title", "t", "--decision", "d"];
    for bad in ["-1", "NaN", "1e30", "abc", "inf", "3601"] {
        env_refused(
            &h,
            "ZO_LOCK_TIMEOUT",
            bad,
            &write,
            "(a number of seconds, 0 to 3600)",
        );
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
        env_refused(
            &h,
            "ZO_NOW",
            bad,
            &["decide", "--title", "t", "--decision", "d"],
            "whole unix seconds",
        );
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
    env_refused(
        &h,
        "ZO_REPO",
        "/nonexistent/zo-nowhere",
        &["status"],
        "does not exist",
    );
}

/// `config.yaml` with one more section appended: exit 2, `<file>:<line>: <key> must be …`.
fn config_refused(h: &Hostile, extra: &str, key: &str, line: usize) {
    let path = h.root().join(".zo/config.yaml");
    let good = std::fs::read_to_string(&path).unwrap();
    let good = good.trim_end();
    std::fs::write(&path, format!("{good}\n{extra}")).unwrap();
    let at = good.lines().count() + line;
    for args in [
        &["log"][..],
        &["decide", "--title", "t", "--decision", "d"],
        &["recall", "--mode", "lexical", "x"],
    ] {
        let r = h.expect(args, 2);
        let want = format!(".zo/config.yaml:{at}: {key} must be ");
        assert!(
            r.stderr.starts_with("zo: ") && r.stderr.contains(&want),
            "{extra:?} {args:?}: want {want:?} in {}",
            r.stderr
        );
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
        (
            "recall:\n  session_half_life_days: -1\n",
            "recall.session_half_life_days",
            2,
        ),
        (
            "recall:\n  session_half_life_days: .nan\n",
            "recall.session_half_life_days",
            2,
        ),
        (
            "context:\n  budget_tokens: -1\n",
            "context.budget_tokens",
            2,
        ),
        (
            "context:\n  budget_tokens: 1.5\n",
            "context.budget_tokens",
            2,
        ),
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

/// Two decisions written by zo, then the first edited (before any commit) to supersede the
/// second: D-a supersedes D-b supersedes D-a.
fn decision_cycle(h: &Hostile) -> (String, String) {
    let a = h
        .expect(
            &[
                "decide",
                "--title",
                "Alpha choice",
                "--decision",
                "use alpha",
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    let b = h
        .expect(
            &[
                "decide",
                "--title",
                "Beta choice",
                "--decision",
                "use beta",
                "--supersedes",
                &a,
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    let log = h.mem("DECISION_LOG.md");
    let text = std::fs::read_to_string(&log).unwrap();
    let text = text.replacen(
        "**Title:** Alpha choice\n",
        &format!("**Title:** Alpha choice\n**Supersedes:** {b}\n"),
        1,
    );
    std::fs::write(&log, text).unwrap();
    (a, b)
}

#[test]
fn decision_supersede_cycle_fails_verify_naming_ids_and_lines() {
    let h = Hostile::new();
    let (a, b) = decision_cycle(&h);
    let r = h.expect(&["verify"], 4);
    assert!(
        r.stderr.contains("supersede cycle")
            && r.stderr.contains(&a)
            && r.stderr.contains(&b)
            && r.stderr.contains("(line "),
        "{}",
        r.stderr
    );
}

#[test]
fn decision_supersede_cycle_does_not_hide_both_from_log_and_recall() {
    let h = Hostile::new();
    let (a, b) = decision_cycle(&h);
    let log = h.expect(&["log"], 0).stdout;
    assert!(
        log.contains(&a) && log.contains(&b),
        "both are read as active: {log}"
    );
    let r = h.expect(
        &["--json", "recall", "--mode", "lexical", "alpha beta choice"],
        0,
    );
    let ids: Vec<String> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids.contains(&a) && ids.contains(&b), "{ids:?}");
}

#[test]
fn prior_supersede_cycle_fails_verify_and_keeps_both_in_the_bundle() {
    let h = Hostile::new();
    let text = "# PRIORS\n\n## PR-001: Alpha lesson\n**Root cause category:** novel_case\n**Failure:** f\n**Superseded by:** PR-002\n\n### Rules\n1. rule alpha\n\n---\n\n## PR-002: Beta lesson\n**Root cause category:** novel_case\n**Failure:** f\n**Superseded by:** PR-001\n\n### Rules\n1. rule beta\n\n---\n";
    std::fs::write(h.mem("PRIORS.md"), text).unwrap();
    let r = h.expect(&["verify"], 4);
    assert!(
        r.stderr
            .contains("PR-001 (line 3) is superseded by PR-002 (line 13) is superseded by PR-001"),
        "{}",
        r.stderr
    );
    let bundle = h.expect(&["context"], 0).stdout;
    assert!(
        bundle.contains("rule alpha") && bundle.contains("rule beta"),
        "{bundle}"
    );
}

#[test]
fn superseding_a_forgotten_prior_is_refused_and_verify_still_passes() {
    let h = Hostile::new();
    for t in ["Old lesson", "New lesson"] {
        h.expect(
            &[
                "prior",
                "add",
                "--title",
                t,
                "--root-cause",
                "novel_case",
                "--failure",
                "it broke",
                "--rule",
                "do better",
            ],
            0,
        );
    }
    h.repo.commit_all("priors");
    let f = super::util::forget(
        &h.cmd(&["forget", "PR-001", "--reason", "held personal data"]),
        "PR-001",
    );
    assert_eq!(f.code, 0, "{}", f.stdout);
    h.expect(&["verify"], 0);
    let before = std::fs::read(h.mem("PRIORS.md")).unwrap();
    for args in [
        ["prior", "supersede", "PR-001", "PR-002"],
        ["prior", "supersede", "PR-002", "PR-001"],
    ] {
        let r = h.expect(&args, 1);
        assert!(r.stderr.contains("PR-001 was forgotten"), "{}", r.stderr);
    }
    assert_eq!(
        std::fs::read(h.mem("PRIORS.md")).unwrap(),
        before,
        "the tombstone was edited"
    );
    h.expect(&["verify"], 0);
}

#[test]
fn supersede_outcome_or_confirm_of_a_forgotten_decision_is_refused() {
    let h = Hostile::new();
    let id = h
        .expect(
            &[
                "decide",
                "--title",
                "Erase me",
                "--decision",
                "d",
                "--confidence",
                "0.5",
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    let f = super::util::forget(&h.cmd(&["forget", &id, "--reason", "wrong place"]), &id);
    assert_eq!(f.code, 0, "{}", f.stdout);
    let before = std::fs::read(h.mem("DECISION_LOG.md")).unwrap();
    for args in [
        vec![
            "decide",
            "--title",
            "Instead",
            "--decision",
            "x",
            "--supersedes",
            &id,
        ],
        vec!["outcome", &id, "it worked"],
        vec!["confirm", &id],
    ] {
        let r = h.expect(&args, 1);
        assert!(
            r.stderr.contains(&format!("{id} was forgotten")),
            "{args:?}: {}",
            r.stderr
        );
    }
    assert_eq!(std::fs::read(h.mem("DECISION_LOG.md")).unwrap(), before);
}

#[test]
fn closed_stdout_is_an_error_exit() {
    let h = Hostile::new();
    h.expect(&["decide", "--title", "Something", "--decision", "d"], 0);
    let run = |script: &str| {
        let mut c = h.cmd(&[]);
        c.env("ZO_BIN", super::util::ZO);
        let mut sh = std::process::Command::new("sh");
        sh.args(["-c", script]).current_dir(h.root());
        for (k, v) in c.get_envs() {
            match v {
                Some(v) => sh.env(k, v),
                None => sh.env_remove(k),
            };
        }
        timed(sh, b"")
    };
    let r = run("exec \"$ZO_BIN\" log >&-");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.starts_with("zo: could not write to stdout: "),
        "{}",
        r.stderr
    );
    // /dev/null is a place to write to, not a closed stdout.
    let r = run("exec \"$ZO_BIN\" log >/dev/null");
    assert_eq!(r.code, 0, "{}", r.stderr);
    h.assert_outside_unchanged();
}

#[test]
fn verify_history_on_a_shallow_clone_says_it_is_shallow() {
    let h = Hostile::new();
    h.expect(&["decide", "--title", "First", "--decision", "d"], 0);
    h.repo.commit_all("one");
    h.expect(&["decide", "--title", "Second", "--decision", "d"], 0);
    h.repo.commit_all("two");
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", h.root().display());
    let st = super::util::git_anywhere()
        .args(["clone", "-q", "--depth", "1", &url])
        .arg(clone.path().join("c"))
        .status()
        .unwrap();
    assert!(st.success());
    let mut c = h.cmd(&["verify", "--history"]);
    c.current_dir(clone.path().join("c"));
    let r = timed(c, b"");
    check(&r, &["verify", "--history"], 1);
    assert!(
        r.stderr.contains("shallow clone: history before ")
            && r.stderr.contains("git fetch --unshallow"),
        "{}",
        r.stderr
    );
    h.assert_outside_unchanged();
}

#[test]
fn forget_leaves_no_copy_of_the_erased_text_in_tmpdir() {
    let h = Hostile::new();
    let id = h
        .expect(
            &[
                "decide",
                "--title",
                "Leaked contact",
                "--decision",
                "call jane.doe at her home number",
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    h.repo.commit_all("leak");
    // TMPDIR is the outside directory's tmp/, empty: expect() checks that it stays so.
    let r = super::util::forget(&h.cmd(&["forget", &id, "--reason", "personal data"]), &id);
    assert_eq!(r.code, 0, "{}", r.stdout);
    h.assert_outside_unchanged();
    assert!(r.stdout.contains("--replace-text FILE"), "{}", r.stdout);
    assert!(!r.stdout.contains("jane.doe"), "{}", r.stdout);
    assert_eq!(std::fs::read_dir(h.out("tmp")).unwrap().count(), 0);
}

#[test]
fn forget_replace_text_writes_only_a_new_private_file_outside_zo() {
    let h = Hostile::new();
    let id = h
        .expect(
            &[
                "decide",
                "--title",
                "Leaked contact",
                "--decision",
                "call jane.doe at her home number",
            ],
            0,
        )
        .stdout
        .trim()
        .to_string();
    h.repo.commit_all("leak");
    let log = std::fs::read(h.mem("DECISION_LOG.md")).unwrap();
    // Refused before anything is erased: an existing file, a path inside .zo/.
    let existing = h.root().join("notes.txt");
    std::fs::write(&existing, "mine\n").unwrap();
    for p in [existing.to_str().unwrap(), ".zo/replace.txt"] {
        let r = h.expect(
            &[
                "forget",
                &id,
                "--reason",
                "personal data",
                "--replace-text",
                p,
            ],
            2,
        );
        assert!(r.stderr.contains("--replace-text"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read(h.mem("DECISION_LOG.md")).unwrap(), log);
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "mine\n");
    let file = h.root().join("replace.txt");
    let f = super::util::forget(
        &h.cmd(&[
            "forget",
            &id,
            "--reason",
            "personal data",
            "--replace-text",
            file.to_str().unwrap(),
        ]),
        &id,
    );
    assert_eq!(f.code, 0, "{}", f.stdout);
    let body = std::fs::read_to_string(&file).unwrap();
    assert!(
        body.contains(&format!(
            "literal:call jane.doe at her home number==>[forgotten {id}]"
        )),
        "{body}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn fact_supersede_cycle_fails_verify_and_the_latest_version_holds() {
    let h = Hostile::new();
    let first = h
        .expect(&["fact", "set", "stack:db", "postgres"], 0)
        .stdout
        .trim()
        .to_string();
    let second = h
        .expect(&["fact", "set", "stack:db", "mysql"], 0)
        .stdout
        .trim()
        .to_string();
    let path = h.mem("FACTS.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replacen(
        "**Value:** postgres\n",
        &format!("**Value:** postgres\n**Supersedes:** {second}\n"),
        1,
    );
    std::fs::write(&path, text).unwrap();
    let r = h.expect(&["verify"], 4);
    assert!(
        r.stderr.contains("supersede cycle")
            && r.stderr.contains(&first)
            && r.stderr.contains(&second),
        "{}",
        r.stderr
    );
    assert_eq!(
        h.expect(&["fact", "get", "stack:db"], 0).stdout.trim(),
        "mysql"
    );
}
