//! One test per bug fixed, named after what broke.

mod util;
use util::{Repo, Run};

/// Continuation lines of a multi-line `--rule` are indented under their list item; they were
/// read back with zo's escaping still on them (`\## …`).
#[test]
fn multi_line_prior_rule_read_back_with_escapes() {
    let r = Repo::init();
    r.ok(&[
        "prior",
        "add",
        "--title",
        "T",
        "--root-cause",
        "novel_case",
        "--failure",
        "f",
        "--rule",
        "first\n## looks like a heading\n---",
    ]);
    let j = r.json(&["prior", "list"]);
    assert_eq!(
        j["priors"][0]["rules"][0],
        "first\n## looks like a heading\n---"
    );
}

/// `DB_PASSWORD = '…'` slipped through the secret check: `\b` does not separate `_` from a word.
#[test]
fn secret_assignment_with_prefixed_name_was_accepted() {
    let r = Repo::init();
    let e = r.fails(
        &[
            "decide",
            "--title",
            "t",
            "--decision",
            "DB_PASSWORD = 'correcthorse'",
        ],
        1,
    );
    assert!(e.contains("password-style"), "{e}");
}

/// Two first readers raced to create `index.db`: the second saw the first's tables before the
/// schema version was written, called the database foreign and deleted it under the first,
/// which then failed with "disk I/O error". Readers racing an explicit `index rebuild` could
/// fail the same way.
#[test]
fn concurrent_first_readers_deleted_each_others_new_index() {
    let r = Repo::example();
    for round in 0..6 {
        if round % 2 == 1 {
            std::fs::remove_file(r.path().join(".zo/memory/index.db")).unwrap();
        }
        let children: Vec<_> = (0..8)
            .map(|i| {
                let args: &[&str] = if round % 2 == 0 && i == 0 {
                    &["-q", "index", "rebuild"]
                } else {
                    &["--json", "recall", "--mode", "lexical", "berth"]
                };
                (
                    args,
                    r.cmd(args)
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap(),
                )
            })
            .collect();
        for (args, child) in children {
            let run = util::Run::from(child.wait_with_output().unwrap());
            assert_eq!(run.code, 0, "round {round} {args:?}: {}", run.stderr);
            assert!(
                !run.stderr.contains("is not 2") && !run.stderr.contains("corrupt"),
                "round {round} {args:?}: {}",
                run.stderr
            );
        }
    }
    r.ok(&["verify"]);
    assert_eq!(r.json(&["index", "status"])["fresh"], true);
}

/// A hand-named session file holding two `# Session` headings made `zo continue` panic
/// (`&name[12..22]` on a name without a date).
#[test]
fn continue_panicked_on_a_hand_named_file_with_two_sessions() {
    let r = Repo::init();
    r.write(".zo/memory/sessions/notes.md", "# Session A\n**Ended:** 2026-03-01T10:00:00Z\n\n## Next\n- a\n\n# Session B\n\n## Next\n- b\n");
    let out = r.run(&["continue"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let names: Vec<String> = r.json(&["session", "list"])["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        r.read(".zo/memory/sessions/notes.md").contains("- a\n")
            && !r.read(".zo/memory/sessions/notes.md").contains("Session B")
    );
}

/// Splitting sessions that an older merge put in one file cut at a `# Session` line inside a
/// code block of a summary, making a second, phantom session.
#[test]
fn a_fenced_session_heading_split_a_session() {
    let r = Repo::init();
    let one = "# Session 004 — 2026-03-01\n**Ended:** 2026-03-01T10:00:00Z\n\n## Attempted\n```md\n# Session notes\n```\n\n## Next\n- a\n";
    let two = "# Session 004 — 2026-03-02\n**Ended:** 2026-03-02T10:00:00Z\n\n## Next\n- b\n";
    r.write(
        ".zo/memory/sessions/session-004-2026-03-01.md",
        &format!("{one}\n{two}"),
    );
    r.ok(&["continue"]);
    let list = r.json(&["session", "list"]);
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{list}");
    assert_eq!(
        r.read(".zo/memory/sessions/session-004-2026-03-01.md"),
        one,
        "the fenced line stays in its session"
    );
    // Twice changes nothing.
    r.ok(&["continue"]);
    assert_eq!(
        r.json(&["session", "list"])["sessions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A summary with a heading line cannot start a second session in a file zo writes.
    r.ok(&[
        "session",
        "end",
        "--summary",
        "wrote notes\n# Session notes\nmore",
    ]);
    r.ok(&["continue"]);
    assert_eq!(
        r.json(&["session", "list"])["sessions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

/// `session end` without `session start` (a fresh clone, a crashed agent) said
/// "Decisions: none" though decisions had been added since the last session.
#[test]
fn session_end_without_start_listed_no_decisions() {
    let r = Repo::init();
    r.decide("Before the first session", "a");
    r.ok(&["session", "end", "--summary", "first"]);
    let d = r.decide("After it", "b");
    let j = r.json(&["session", "end", "--summary", "second, never started"]);
    let ids: Vec<&str> = j["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [d.as_str()]);
}

/// The STATE template's "Just initialised" hint showed up in every context bundle.
#[test]
fn state_template_placeholder_leaked_into_the_bundle() {
    let r = Repo::init();
    let md = r.ok(&["context"]);
    assert!(!md.contains("Just initialised"), "{md}");
    assert!(md.contains("phase: phase_0"));
    // Once a person writes the section, it is shown.
    let state = r.read(".zo/memory/STATE.md").replace(
        "Just initialised. Record decisions with `zo decide`, lessons with `zo prior add`.",
        "Porting the billing service.",
    );
    r.write(".zo/memory/STATE.md", &state);
    assert!(r.ok(&["context"]).contains("Porting the billing service."));
}

/// `zo doctor` exited 0 with a failed check and with no memory at all.
#[test]
fn doctor_exited_0_with_a_failure_or_no_memory() {
    let r = Repo::new();
    let e = r.fails(&["doctor"], 3);
    assert!(e.contains("no memory"), "{e}");
    let r = Repo::init();
    r.write(".zo/memory/index.db", "this is not a database");
    std::fs::create_dir_all(r.path().join(".zo/memory/index.db-lock")).unwrap();
    let run = r.run(&["--json", "doctor"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json()["ok"], false);
    // Warnings (no model, routing not committed) are not failures.
    let r = Repo::init();
    let run = Run::from(
        r.cmd(&["doctor"])
            .env("ZO_CACHE", "/nonexistent")
            .env("HOME", "/nonexistent")
            .env_remove("ZO_MODEL_DIR")
            .env_remove("ORT_DYLIB_PATH")
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("WARN model") && run.stdout.contains("zo model install"),
        "{}",
        run.stdout
    );
}

/// Exit codes said different things for the same mistake: a missing `--file` exited 1, a
/// JSON array on `--file` said "title is empty", a NUL byte could be written through JSON, an
/// impossible `--since` date was accepted, `--mode semantic` without a model quietly answered
/// lexically.
#[test]
fn usage_mistakes_exited_inconsistently() {
    let r = Repo::init();
    let before = r.read(r.log_path());
    let e = r.fails(&["decide", "--file", "missing.json"], 2);
    assert!(e.contains("missing.json"), "{e}");
    r.write("a.json", r#"["ARCH", "T", "D"]"#);
    let e = r.fails(&["decide", "--file", "a.json"], 2);
    assert!(
        e.contains("a.json:1:1: expected a decision as one JSON object")
            && e.contains("got an array"),
        "{e}"
    );
    r.write("o.json", r#"[{"title": "t", "decision": "d"}]"#);
    r.fails(&["decide", "--file", "o.json"], 2);
    r.write("e.json", "[]");
    r.fails(&["decide", "--file", "e.json"], 2);
    r.write("n.json", r#"{"title": "t\u0000x", "decision": "d"}"#);
    let e = r.fails(&["decide", "--file", "n.json"], 2);
    assert!(e.contains("NUL"), "{e}");
    r.write("s.json", r#"{"title": "only a title"}"#);
    let e = r.fails(&["decide", "--file", "s.json"], 2);
    assert!(e.contains("--decision"), "{e}");
    assert_eq!(r.read(r.log_path()), before, "nothing written");
    for bad in ["2026-13-45", "2026-02-30", "yesterday", "2026-1-1"] {
        let e = r.fails(&["log", "--since", bad], 2);
        assert!(e.contains("--since"), "{e}");
    }
    r.fails(&["session", "end", "--file", "missing.json"], 2);
    r.fails(&["prior", "add", "--title", "t"], 2);
    r.fails(&["recall"], 2);
    let no_model = |args: &[&str]| {
        Run::from(
            r.cmd(args)
                .env("ZO_CACHE", "/nonexistent")
                .env("HOME", "/nonexistent")
                .env_remove("ZO_MODEL_DIR")
                .output()
                .unwrap(),
        )
    };
    let run = no_model(&["recall", "--mode", "semantic", "anything"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("mode semantic: semantic search needs the embedding model")
            && run.stderr.contains("zo model install"),
        "{}",
        run.stderr
    );
    // One message: it said it would use lexical search, and then failed.
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        !run.stderr.contains("using lexical search"),
        "{}",
        run.stderr
    );
    // The default mode still falls back, with one line saying so.
    let run = no_model(&["recall", "anything"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// Progress on long work shows on a terminal, and never on a pipe or with --json / -q.
#[test]
fn long_work_was_silent_on_a_terminal() {
    util::require_model();
    let r = Repo::example();
    let tty = std::process::Command::new("script")
        .args(["-qec", &format!("{} index rebuild", util::ZO), "/dev/null"])
        .current_dir(r.path())
        .env_remove("ZO_REPO")
        // Its own empty vector cache, so the rebuild embeds (and shows the bar for it).
        .env("ZO_VECTOR_CACHE", r.path().join(".git/zo-vectors-tty"))
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&tty.stdout);
    assert!(tty.status.success(), "{screen}");
    assert!(
        screen.contains("embedding") && screen.contains("/s"),
        "a bar with counts and rate: {screen}"
    );
    let piped = r.run(&["index", "rebuild"]);
    assert!(!piped.stderr.contains("embedding"), "{}", piped.stderr);
    let json = r.run(&["--json", "index", "rebuild"]);
    assert!(json.stderr.is_empty(), "{}", json.stderr);
}

/// With stderr a closed pipe (`zo verify 2>&1 | head -1`) the error print panicked and zo
/// exited 101 instead of the documented code.
#[test]
fn closed_stderr_turned_an_error_into_a_panic() {
    let r = Repo::init();
    for (args, code) in [
        (&["show", "D-deadbeef"][..], 1),
        (&["log", "--since", "2026-13-45"][..], 2),
    ] {
        let mut child = r
            .cmd(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        assert_eq!(child.wait().unwrap().code(), Some(code), "{args:?}");
    }
}

/// The secret gate covered only decide, outcome and prior add: a session summary, a STATE
/// field and a snapshot handoff were written without a word.
#[test]
fn secrets_slipped_in_through_session_state_and_snapshot() {
    let r = Repo::init();
    r.commit_all("base");
    let e = r.fails(
        &[
            "session",
            "end",
            "--summary",
            "rotated it, password=hunter22",
        ],
        1,
    );
    assert!(e.contains("secret"), "{e}");
    let e = r.fails(
        &["state", "set", "--next", "use key AKIAZ7VRSQ5TJXNBMQ3B"],
        1,
    );
    assert!(
        e.contains("secret") && e.contains("STATE.md was not changed"),
        "{e}"
    );
    let e = r.fails(
        &[
            "snapshot",
            "--phase",
            "phase_1",
            "--handoff",
            "db password=hunter22",
        ],
        1,
    );
    assert!(e.contains("secret"), "{e}");
    assert_eq!(r.git(&["status", "--porcelain"]), "", "nothing written");
    r.ok(&[
        "state",
        "set",
        "--next",
        "use key AKIAIOSFODNN7EXAMPLE",
        "--allow-secret",
    ]);
}

/// A symlinked DECISION_LOG.md was replaced by a regular file (its target went stale), and a
/// read-only one was replaced all the same.
#[test]
fn a_symlinked_or_read_only_log_was_replaced() {
    let r = Repo::init();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("LOG.md");
    std::fs::rename(r.path().join(r.log_path()), &target).unwrap();
    std::os::unix::fs::symlink(&target, r.path().join(r.log_path())).unwrap();
    let before = std::fs::read(&target).unwrap();
    let e = r.fails(&["decide", "--title", "t", "--decision", "d"], 1);
    assert!(e.contains("is a symbolic link"), "{e}");
    assert!(
        std::fs::symlink_metadata(r.path().join(r.log_path()))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), before);
    std::fs::remove_file(r.path().join(r.log_path())).unwrap();
    std::fs::rename(&target, r.path().join(r.log_path())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        r.path().join(r.log_path()),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    let e = r.fails(&["decide", "--title", "t", "--decision", "d"], 1);
    assert!(e.contains("is read-only"), "{e}");
    assert_eq!(std::fs::read(r.path().join(r.log_path())).unwrap(), before);
}

/// `prior supersede PR-001 PR-002` then the reverse was accepted: both priors vanished from
/// recall and `verify` passed.
#[test]
fn supersede_cycles_were_accepted() {
    let r = Repo::init();
    for t in ["one", "two"] {
        r.ok(&[
            "prior",
            "add",
            "--title",
            t,
            "--root-cause",
            "novel_case",
            "--failure",
            "f",
            "--rule",
            "r",
        ]);
    }
    r.ok(&["prior", "supersede", "PR-001", "PR-002"]);
    let e = r.fails(&["prior", "supersede", "PR-002", "PR-001"], 1);
    assert!(e.contains("cycle"), "{e}");
    // A hand-made cycle is reported.
    let text = r.read(".zo/memory/PRIORS.md");
    let i = text.find("## PR-002").unwrap();
    let (head, tail) = text.split_at(i);
    r.write(
        ".zo/memory/PRIORS.md",
        &format!(
            "{head}{}",
            tail.replacen("**Superseded by:** null", "**Superseded by:** PR-001", 1)
        ),
    );
    let e = r.fails(&["verify"], 4);
    assert!(e.contains("superseded in a cycle"), "{e}");
}

/// When another program held the memory lock, the timeout message named the last zo writer,
/// long dead.
#[test]
fn the_lock_timeout_named_a_dead_process() {
    let r = Repo::init();
    r.decide("leaves its pid in the lock file", "d");
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(r.path().join(".zo/memory/.lock"))
        .unwrap();
    lock.lock().unwrap();
    let run = Run::from(
        r.cmd(&["decide", "--title", "t", "--decision", "d"])
            .env("ZO_LOCK_TIMEOUT", "0.2")
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("held by another program") && run.stderr.contains("has exited"),
        "{}",
        run.stderr
    );
    drop(lock);
}

/// A `session end` killed mid-write left its temp file in sessions/, and nothing removed it.
#[test]
fn temp_files_of_a_killed_session_end_stayed() {
    let r = Repo::init();
    r.write(
        ".zo/memory/sessions/.session-x.md.abc123.zo-tmp",
        "half a session",
    );
    r.decide("takes the lock", "d");
    assert!(
        !r.path()
            .join(".zo/memory/sessions/.session-x.md.abc123.zo-tmp")
            .exists()
    );
}

/// Unresolved conflict markers (a merge without the driver): `log` printed `=======` lines
/// and `status` and `continue` said nothing.
#[test]
fn conflict_markers_went_unnamed_in_status_log_and_continue() {
    let r = Repo::init();
    let log = r.read(r.log_path());
    r.write(r.log_path(), &format!("{log}<<<<<<< HEAD\n## Decision: 2026-01-01T00:00:00Z\n**Title:** a\n**Decision:** x\n=======\n## Decision: 2026-01-02T00:00:00Z\n**Title:** b\n**Decision:** y\n>>>>>>> theirs\n"));
    for args in [&["status"][..], &["log"][..], &["continue"][..]] {
        let run = r.run(args);
        assert!(
            run.stderr.contains("DECISION_LOG.md:")
                && run.stderr.contains("unresolved merge conflict marker"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// An index.db that is a directory failed with SQLite's "unable to open database file". Recall
/// now answers from the files and says why; `index rebuild` refuses, naming it.
#[test]
fn an_index_db_directory_failed_without_saying_so() {
    let r = Repo::init();
    std::fs::create_dir_all(r.path().join(".zo/memory/index.db")).unwrap();
    let run = r.run(&["recall", "--mode", "lexical", "anything"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let e = run.stderr;
    assert!(
        e.contains(".zo/memory/index.db is a directory") && e.contains("move it away or remove it"),
        "{e}"
    );
    let e = r.fails(&["index", "rebuild"], 1);
    assert!(
        e.contains(".zo/memory/index.db is a directory") && e.contains("move it away or remove it"),
        "{e}"
    );
    assert!(
        r.path().join(".zo/memory/index.db").is_dir(),
        "zo never deletes a directory it did not make"
    );
}

/// One session file with invalid UTF-8 made `recall` and `session end` fail for everything.
#[test]
fn one_bad_session_file_broke_recall_and_session_end() {
    let r = Repo::init();
    r.decide("Still findable", "yes");
    std::fs::write(
        r.path()
            .join(".zo/memory/sessions/session-001-2026-01-01.md"),
        b"# Session 001\n\n## Next\n- caf\xe9\n",
    )
    .unwrap();
    let v = r.json(&["recall", "--mode", "lexical", "findable"]);
    assert_eq!(v["results"][0]["title"], "Still findable");
    r.ok(&["session", "end", "--summary", "works"]);
    assert_eq!(r.json(&["status"])["counts"]["sessions"], 2);
}

/// Limits in config that are not numbers were silently ignored.
#[test]
fn bad_config_limits_were_ignored() {
    let r = Repo::init();
    let cfg = r.read(".zo/config.yaml");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}limits:\n  title_chars: lots\n"),
    );
    let e = r.fails(&["decide", "--title", "t", "--decision", "d"], 2);
    assert!(
        e.contains(".zo/config.yaml:")
            && e.contains("limits.title_chars must be a positive whole number, not lots"),
        "{e}"
    );
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}limits:\n  title_chars: 10\n"),
    );
    let e = r.fails(
        &[
            "decide",
            "--title",
            "a title longer than ten",
            "--decision",
            "d",
        ],
        1,
    );
    assert!(e.contains("title"), "{e}");
}

/// Found by the fuzzer: a hand-written heading with a multi-byte letter across its eighth byte
/// (`## 決定事項`, `## Decisi€n`) made every command that reads the log panic.
#[test]
fn a_multi_byte_letter_in_a_heading_panicked() {
    let r = Repo::init();
    let log = r.read(r.log_path());
    r.write(r.log_path(), &format!("{log}## 決定事項: Postgres\n**Decision:** はい\n\n---\n\n## Decisi€n: x\n**Decision:** y\n"));
    r.ok(&["log"]);
    r.ok(&["status"]);
    r.write(
        ".zo/memory/sessions/session-001-2026-01-01.md",
        "# Session 001\n**Ended:** 2026-01-01T0é:00:00Z\n\n# Session 002\n**Ended:** 2026-01-01Té0:00:00Z\n",
    );
    r.ok(&["continue"]);
}

/// A hand-written example entry (`## Decision:` heading and all) inside a code block of a
/// decision split it: a phantom entry appeared in `log` and the real one lost the fields after
/// the code block.
#[test]
fn a_fenced_decision_heading_split_an_entry() {
    let r = Repo::init();
    let id = r.decide("Document the entry format", "placeholder");
    let log = r.read(r.log_path());
    let example = "Entries look like this:\n\n```md\n## Decision: 2026-01-01T00:00:00Z\n**ID:** D-00000000\n**Title:** An example\n---\n```\n";
    let edited = log.replace(
        "**Decision:** placeholder\n",
        &format!("**Decision:** {example}**Rationale:** after the code block\n"),
    );
    assert_ne!(edited, log);
    r.write(r.log_path(), &edited);
    let j = r.json(&["log"]);
    let list = j["decisions"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{j}");
    let shown = r.json(&["show", &id]);
    assert_eq!(shown["rationale"], "after the code block", "{shown}");
    assert!(
        shown["decision"]
            .as_str()
            .unwrap()
            .contains("## Decision: 2026-01-01T00:00:00Z"),
        "{shown}"
    );
    assert_eq!(r.run(&["show", "D-00000000"]).code, 1);
    // A new decision after it lands as its own entry.
    r.decide("After the example", "b");
    assert_eq!(r.ids().len(), 2);
}

/// `decide` and `prior add` took no `$EDITOR` text as `git commit` does: at a terminal with no
/// fields given, the editor fills in a template; without a terminal nothing waits for keys.
#[test]
fn decide_and_prior_add_opened_no_editor() {
    let r = Repo::init();
    let editor = |name: &str, body: &str| {
        let path = r.path().join(format!(".git/{name}.sh"));
        std::fs::write(
            &path,
            format!("#!/bin/sh\ncat > \"$1\" <<'EOF'\n{body}EOF\n"),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        path
    };
    let with = |args: &[&str], script: &std::path::Path| {
        let mut c = r.cmd(args);
        c.env("EDITOR", script).env_remove("VISUAL");
        c
    };
    let last_line = |out: &str| {
        out.lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    };
    let good = editor(
        "decision",
        "# comment\nTitle: From the editor\nType: ARCHITECTURE\nDecision: Written in the editor\nover two lines\nTags: a, b\n",
    );
    let out = util::at_terminal(&with(&["decide"], &good), "");
    assert_eq!(out.code, 0, "{}", out.stdout);
    let id = last_line(&out.stdout);
    let v = r.json(&["show", &id]);
    assert_eq!(v["title"], "From the editor", "{v}");
    assert!(
        v["text"].as_str().unwrap().contains("over two lines")
            && v["text"]
                .as_str()
                .unwrap()
                .contains("**Type:** ARCHITECTURE"),
        "{v}"
    );
    // No terminal (a script, an agent's shell): the usage error, and the editor never runs.
    let before = r.read(r.log_path());
    let e = Run::from(with(&["decide"], &good).output().unwrap());
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(
        e.stderr.contains("--title") && e.stderr.contains("$EDITOR"),
        "{}",
        e.stderr
    );
    // A template left without its Decision cancels.
    let empty = editor("empty", "Title: Only a title\nDecision: \n");
    let out = util::at_terminal(&with(&["decide"], &empty), "");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("nothing was written"), "{}", out.stdout);
    assert_eq!(r.read(r.log_path()), before);
    // A prior, each Rule line one rule.
    let prior = editor(
        "prior",
        "Title: Keep stderr on the terminal\nRoot cause: missing_rule\nFailure: the pane stayed blank\nRule: never redirect a TUI's stderr\nRule: check the pane\n",
    );
    let out = util::at_terminal(&with(&["prior", "add"], &prior), "");
    assert_eq!(out.code, 0, "{}", out.stdout);
    let p = r.json(&["show", &last_line(&out.stdout)]);
    let text = p["text"].as_str().unwrap();
    assert!(
        text.contains("Keep stderr on the terminal")
            && text.contains("never redirect a TUI's stderr")
            && text.contains("check the pane"),
        "{p}"
    );
    r.fails(&["prior", "add", "--title", "t"], 2);
}
