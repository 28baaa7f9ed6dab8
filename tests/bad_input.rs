//! The bad-input catalogue: each case runs the real binary on one kind of bad input and checks
//! the documented exit code, a message naming what is wrong (the file and line where there is
//! one), no panic, and that no memory file changed.

mod util;
use std::path::Path;
use util::Repo;

struct Case {
    name: &'static str,
    /// Prepares the repository (a fresh `zo init` with one decision, committed).
    setup: fn(&Repo),
    args: &'static [&'static str],
    code: i32,
    /// Every one of these is in stderr.
    says: &'static [&'static str],
}

fn none(_: &Repo) {}
fn write(r: &Repo, rel: &str, bytes: &[u8]) {
    let p = r.path().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}
fn append_log(r: &Repo, text: &str) {
    let log = r.read(r.log_path());
    r.write(r.log_path(), &format!("{log}{text}"));
}

const BIG: &str = "x";

const CASES: &[Case] = &[
    Case {
        name: "empty title",
        setup: none,
        args: &["decide", "--title", "", "--decision", "d"],
        code: 2,
        says: &["decide needs a title (--title)"],
    },
    Case {
        name: "title over the limit",
        setup: none,
        args: &[
            "decide",
            "--title",
            "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT",
            "--decision",
            "d",
        ],
        code: 1,
        says: &["the limit is 200"],
    },
    Case {
        name: "title on two lines",
        setup: none,
        args: &["decide", "--title", "one\ntwo", "--decision", "d"],
        code: 1,
        says: &["one line"],
    },
    Case {
        name: "a secret",
        setup: none,
        args: &[
            "decide",
            "--title",
            "t",
            "--decision",
            "AKIAZ7VRSQ5TJXNBMQ3B",
        ],
        code: 1,
        says: &["AWS access key"],
    },
    Case {
        name: "an identical decision",
        setup: none,
        args: &[
            "decide",
            "--title",
            "Existing",
            "--decision",
            "already here",
        ],
        code: 1,
        says: &["identical decision already exists"],
    },
    Case {
        name: "a second decision with an active title",
        setup: none,
        args: &["decide", "--title", "Existing", "--decision", "other"],
        code: 1,
        says: &["already has this title", "--supersedes"],
    },
    Case {
        name: "missing --decision",
        setup: none,
        args: &["decide", "--title", "t"],
        code: 2,
        says: &["decide needs a decision (--decision)"],
    },
    Case {
        name: "--file that is missing",
        setup: none,
        args: &["decide", "--file", "nope.json"],
        code: 2,
        says: &["nope.json"],
    },
    Case {
        name: "--file with a JSON array",
        setup: |r| write(r, "a.json", br#"["ARCH","T","D"]"#),
        args: &["decide", "--file", "a.json"],
        code: 2,
        says: &["a.json:1:1", "got an array"],
    },
    Case {
        name: "--file with a JSON string",
        setup: |r| write(r, "s.json", br#""just text""#),
        args: &["decide", "--file", "s.json"],
        code: 2,
        says: &["got a string"],
    },
    Case {
        name: "--file with broken JSON",
        setup: |r| write(r, "b.json", b"{\n  \"title\": \"t\",\n  oops\n}"),
        args: &["decide", "--file", "b.json"],
        code: 2,
        says: &["b.json:3:"],
    },
    Case {
        name: "--file with a NUL byte",
        setup: |r| write(r, "n.json", br#"{"title": "a\u0000b", "decision": "d"}"#),
        args: &["decide", "--file", "n.json"],
        code: 2,
        says: &["NUL"],
    },
    Case {
        name: "--file with invalid UTF-8",
        setup: |r| write(r, "u.json", b"{\"title\": \"\xff\", \"decision\": \"d\"}"),
        args: &["decide", "--file", "u.json"],
        code: 2,
        says: &["u.json:1: invalid UTF-8"],
    },
    Case {
        name: "--file with an unknown key",
        setup: |r| {
            write(
                r,
                "k.json",
                br#"{"title": "t", "decision": "d", "colour": "red"}"#,
            )
        },
        args: &["decide", "--file", "k.json"],
        code: 2,
        says: &["unknown field `colour`"],
    },
    Case {
        name: "a huge decision",
        setup: |r| {
            write(
                r,
                "big.json",
                format!(
                    r#"{{"title": "Big", "decision": "{}"}}"#,
                    BIG.repeat(70_000)
                )
                .as_bytes(),
            )
        },
        args: &["decide", "--file", "big.json"],
        code: 1,
        says: &["limit is 65536"],
    },
    Case {
        name: "--supersedes an unknown ID",
        setup: none,
        args: &[
            "decide",
            "--title",
            "t",
            "--decision",
            "d",
            "--supersedes",
            "D-00000000",
        ],
        code: 1,
        says: &["no decision D-00000000"],
    },
    Case {
        name: "outcome for an unknown ID",
        setup: none,
        args: &["outcome", "D-00000000", "x"],
        code: 1,
        says: &["no decision D-00000000"],
    },
    Case {
        name: "an empty outcome",
        setup: none,
        args: &["outcome", "D-0000000a", " "],
        code: 1,
        says: &["outcome"],
    },
    Case {
        name: "show an unknown ID",
        setup: none,
        args: &["show", "D-deadbeef"],
        code: 1,
        says: &["no decision D-deadbeef"],
    },
    Case {
        name: "show an unknown prior",
        setup: none,
        args: &["show", "PR-404"],
        code: 1,
        says: &["no prior PR-404"],
    },
    Case {
        name: "an impossible --since",
        setup: none,
        args: &["log", "--since", "2026-13-45"],
        code: 2,
        says: &["--since"],
    },
    Case {
        name: "a count that is not a number",
        setup: none,
        args: &["log", "--limit", "many"],
        code: 2,
        says: &["many"],
    },
    Case {
        name: "recall of an unknown kind",
        setup: none,
        args: &["recall", "--kind", "files", "x"],
        code: 2,
        says: &["--kind"],
    },
    Case {
        name: "a root cause outside the list",
        setup: none,
        args: &[
            "prior",
            "add",
            "--title",
            "t",
            "--root-cause",
            "bad_luck",
            "--failure",
            "f",
            "--rule",
            "r",
        ],
        code: 2,
        says: &["root cause must be one of"],
    },
    Case {
        name: "a prior without a rule",
        setup: none,
        args: &[
            "prior",
            "add",
            "--title",
            "t",
            "--root-cause",
            "novel_case",
            "--failure",
            "f",
        ],
        code: 2,
        says: &["--rule"],
    },
    Case {
        name: "supersede an unknown prior",
        setup: none,
        args: &["prior", "supersede", "PR-001", "PR-404"],
        code: 1,
        says: &["no prior"],
    },
    Case {
        name: "a field name with spaces",
        setup: none,
        args: &["state", "set", "--set", "my key=v"],
        code: 2,
        says: &["is not a STATE field name"],
    },
    Case {
        name: "a STATE field on two lines",
        setup: none,
        args: &["state", "set", "--phase", "a\nb"],
        code: 2,
        says: &["one line"],
    },
    Case {
        name: "recall -k 0",
        setup: none,
        args: &["recall", "-k", "0", "anything"],
        code: 2,
        says: &["k (-k) must be at least 1"],
    },
    Case {
        name: "a phase name with a slash",
        setup: none,
        args: &["snapshot", "--phase", "bad/phase"],
        code: 2,
        says: &["--phase"],
    },
    Case {
        name: "a session ending of the wrong shape",
        setup: |r| write(r, "e.json", b"[1, 2]"),
        args: &["session", "end", "--file", "e.json"],
        code: 2,
        says: &["got an array"],
    },
    Case {
        name: "--repo at a file",
        setup: |r| write(r, "plain.txt", b"x"),
        args: &["--repo", "plain.txt", "status"],
        code: 3,
        says: &["is not a directory"],
    },
    Case {
        name: "--repo nowhere",
        setup: none,
        args: &["--repo", "/nonexistent/zo-nowhere", "status"],
        code: 3,
        says: &["not a directory"],
    },
    Case {
        name: "invalid UTF-8 in the log",
        setup: |r| {
            let mut b = std::fs::read(r.path().join(r.log_path())).unwrap();
            b.extend_from_slice(b"\n## Decision: 2026-01-01T00:00:00Z\n**Title:** caf\xe9\n");
            write(r, ".zo/memory/DECISION_LOG.md", &b)
        },
        args: &["log"],
        code: 1,
        says: &["DECISION_LOG.md:", "invalid UTF-8"],
    },
    Case {
        name: "a config that is not YAML",
        setup: |r| write(r, ".zo/config.yaml", b"project: [unclosed\n"),
        args: &["status"],
        code: 1,
        says: &["config.yaml"],
    },
    Case {
        name: "limits that are not numbers",
        setup: |r| {
            let c = r.read(".zo/config.yaml");
            r.write(
                ".zo/config.yaml",
                &format!("{c}limits:\n  entry_bytes: -5\n"),
            )
        },
        args: &["decide", "--title", "t", "--decision", "d"],
        code: 2,
        says: &["config.yaml:", "limits.entry_bytes"],
    },
    Case {
        name: "an index.db that is a directory",
        setup: |r| std::fs::create_dir_all(r.path().join(".zo/memory/index.db")).unwrap(),
        args: &["recall", "--mode", "lexical", "x"],
        code: 0,
        says: &["is a directory", "answering lexically from the files"],
    },
    Case {
        name: "unresolved conflict markers",
        setup: |r| {
            append_log(
                r,
                "<<<<<<< HEAD\n## Decision: 2026-01-01T00:00:00Z\n**Title:** a\n**Decision:** x\n=======\n>>>>>>> theirs\n",
            )
        },
        args: &["verify"],
        code: 4,
        says: &["unresolved merge conflict marker"],
    },
    Case {
        name: "an entry edited by hand",
        setup: |r| {
            let l = r.read(r.log_path());
            r.write(r.log_path(), &l.replace("already here", "rewritten"))
        },
        args: &["verify"],
        code: 4,
        says: &["was edited since HEAD", "--supersedes"],
    },
    Case {
        name: "a duplicate ID",
        setup: |r| append_log(r, &util::canonical_entry(10, "Again", "same id")),
        args: &["verify"],
        code: 4,
        says: &["is also used by the entry at line"],
    },
    Case {
        name: "a supersede cycle",
        setup: |r| {
            write(r, ".zo/memory/PRIORS.md", b"# PRIORS\n\n## PR-001: a\n**Root cause category:** novel_case\n**Failure:** f\n**Superseded by:** PR-002\n\n### Rules\n1. r\n\n---\n\n## PR-002: b\n**Root cause category:** novel_case\n**Failure:** f\n**Superseded by:** PR-001\n\n### Rules\n1. r\n\n---\n")
        },
        args: &["verify"],
        code: 4,
        says: &["superseded in a cycle"],
    },
    Case {
        name: "a missing merge-driver input",
        setup: none,
        args: &[
            "merge-driver",
            "nope-base",
            "nope-ours",
            "nope-theirs",
            ".zo/memory/DECISION_LOG.md",
        ],
        code: 1,
        says: &["nope-base"],
    },
    Case {
        name: "an agent hook with broken JSON (exit 1: 2 would block the agent)",
        setup: none,
        args: &["hook", "claude"],
        code: 1,
        says: &["<stdin>:1:", "goes on"],
    },
];

/// Every memory file's bytes, to check that a refused command changed none.
fn snapshot(r: &Repo) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(&r.path().join(".zo/memory"), &mut out);
    out.sort();
    out
}

#[test]
fn every_bad_input_gets_its_exit_code_a_clear_message_and_changes_nothing() {
    assert!(CASES.len() >= 35, "{} cases", CASES.len());
    let mut failures = Vec::new();
    for c in CASES {
        let r = Repo::init();
        r.write(
            r.log_path(),
            &format!(
                "{}{}",
                r.read(r.log_path()),
                util::canonical_entry(10, "Existing", "already here")
            ),
        );
        r.commit_all("base");
        (c.setup)(&r);
        let before = snapshot(&r);
        let run = if c.args == ["hook", "claude"] {
            r.run_stdin(c.args, "{ not json")
        } else {
            r.run(c.args)
        };
        let mut why = Vec::new();
        if run.code != c.code {
            why.push(format!("exit {} (expected {})", run.code, c.code));
        }
        for s in c.says {
            if !run.stderr.contains(s) {
                why.push(format!("stderr lacks {s:?}"));
            }
        }
        if run.stderr.contains("panicked") || run.stderr.contains("RUST_BACKTRACE") {
            why.push("a panic reached the user".into());
        }
        if snapshot(&r) != before {
            why.push("a memory file changed".into());
        }
        if !why.is_empty() {
            failures.push(format!(
                "{}: {}\n  stderr: {}",
                c.name,
                why.join("; "),
                run.stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// A full disk (here: a file-size limit, which fails the write the same way) leaves the log as
/// it was and says why.
#[test]
fn a_full_disk_leaves_the_log_whole() {
    let r = Repo::init();
    for i in 0..20 {
        r.decide(&format!("Decision {i}"), &"filler ".repeat(100));
    }
    let before = r.read(r.log_path());
    let out = util::user_command("sh", &util::home_for(r.path()))
        .args(["-c", &format!("trap '' XFSZ; ulimit -f 8; exec {} decide --title 'one more' --decision 'does not fit'", util::ZO)])
        .current_dir(r.path())
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("could not write") && err.contains("DECISION_LOG.md"),
        "{err}"
    );
    assert_eq!(r.read(r.log_path()), before);
    r.ok(&[
        "decide",
        "--title",
        "fits again",
        "--decision",
        "after the disk has room",
    ]);
    r.ok(&["verify"]);
}

/// A lock held by another process names it; a stale lock file from a dead process blocks
/// nobody (the OS lock died with it).
#[test]
fn held_and_stale_locks() {
    let r = Repo::init();
    r.write(".zo/memory/.lock", "999999 2020-01-01T00:00:00Z\n");
    r.ok(&[
        "decide",
        "--title",
        "after a stale lock",
        "--decision",
        "fine",
    ]);
    let mut child = std::process::Command::new("python3")
        .args(["-c", "import fcntl,sys,time; f=open(sys.argv[1],'r+'); fcntl.flock(f, fcntl.LOCK_EX); f.seek(0); f.truncate(); f.write('%d x\\n' % __import__('os').getpid()); f.flush(); print('locked', flush=True); time.sleep(30)", r.path().join(".zo/memory/.lock").to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    let pid = child.id();
    let run = util::Run::from(
        r.cmd(&["decide", "--title", "t", "--decision", "d"])
            .env("ZO_LOCK_TIMEOUT", "0.3")
            .output()
            .unwrap(),
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!("held by pid {pid}")),
        "{}",
        run.stderr
    );
}

/// A model directory with a corrupt model: recall answers lexically and says why.
#[test]
fn a_corrupt_model_directory_falls_back_to_lexical() {
    let r = Repo::example();
    let model = tempfile::tempdir().unwrap();
    for f in [
        "model.onnx",
        "tokenizer.json",
        "config.json",
        "special_tokens_map.json",
        "tokenizer_config.json",
    ] {
        std::fs::write(model.path().join(f), "garbage").unwrap();
    }
    let run = util::Run::from(
        r.cmd(&["--json", "recall", "why did we leave Express"])
            .env("ZO_MODEL_DIR", model.path())
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["mode"], "lexical");
    assert!(
        run.stderr.contains("semantic search unavailable") && !run.stderr.contains("panicked"),
        "{}",
        run.stderr
    );
}

/// Under `--json` an error left stdout empty: a script or agent reading stdout got nothing to
/// parse. Every error is one JSON document there now, with the exit code, its kind, the
/// message and the file and line it names — unless the command already printed its report.
#[test]
fn a_json_error_left_stdout_empty() {
    let r = Repo::init();
    let out = r.run(&["--json", "show", "D-00000000"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["error"]["code"], 1, "{v}");
    assert_eq!(v["error"]["kind"], "failure", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("D-00000000"),
        "{v}"
    );
    // A usage error clap finds, and one zo finds in a file (with its place).
    let out = r.run(&["--json", "log", "--limit", "x"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.json()["error"]["kind"], "usage");
    std::fs::write(r.path().join(".zo/config.yaml"), "recall:\n  top_k: 0\n").unwrap();
    let out = r.run(&["--json", "status"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let v = out.json();
    assert!(
        v["error"]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with(".zo/config.yaml")),
        "{v}"
    );
    assert_eq!(v["error"]["line"], 2, "{v}");
    // A report already printed stays the one document (verify exits 4 after it).
    std::fs::write(r.path().join(".zo/config.yaml"), "project: t\n").unwrap();
    std::fs::write(
        r.path().join(".zo/memory/DECISION_LOG.md"),
        "# DECISION LOG\n\n## Decision: 2026-01-01T00:00:00Z\n**ID:** D-1\n**Title:** a\n**Supersedes:** D-2\n**Decision:** b\n\n---\n",
    )
    .unwrap();
    let out = r.run(&["--json", "verify"]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(out.json().get("error").is_none(), "{}", out.stdout);
}

/// `zo decide --type FOO` made a type no `log --type` filter finds, and `state set --phase ""`
/// blanked the phase. A type is one zo knows, one `decision_types:` names or one the log
/// already uses; a phase is never empty.
#[test]
fn a_typo_in_type_made_a_new_type_and_an_empty_phase_blanked_state() {
    let r = Repo::init();
    let e = r.fails(
        &["decide", "--type", "FOO", "--title", "t", "--decision", "d"],
        2,
    );
    assert!(
        e.contains("--type \"FOO\"") && e.contains("ARCHITECTURE") && e.contains("decision_types"),
        "{e}"
    );
    // Any case of a known type is written as zo writes it.
    let id = r.ok(&[
        "-q",
        "decide",
        "--type",
        "architecture",
        "--title",
        "t",
        "--decision",
        "d",
    ]);
    assert_eq!(r.json(&["show", id.trim()])["type"], "ARCHITECTURE");
    std::fs::write(
        r.path().join(".zo/config.yaml"),
        "project: t\ndecision_types: [RELEASE]\n",
    )
    .unwrap();
    r.ok(&[
        "decide",
        "--type",
        "Release",
        "--title",
        "r",
        "--decision",
        "d",
    ]);
    let e = r.fails(&["state", "set", "--phase", ""], 2);
    assert!(e.contains("phase cannot be empty"), "{e}");
    assert!(r.ok(&["state", "show"]).contains("phase: phase_0"));
}

/// "Not in memory" exited 0 like an answer: `--fail-if-unanswered` lets a script tell them
/// apart (after the same output).
#[test]
fn not_in_memory_exited_like_an_answer() {
    let r = Repo::init();
    r.decide("Use Postgres for orders", "Postgres 16");
    let out = r.run(&[
        "recall",
        "--mode",
        "lexical",
        "--fail-if-unanswered",
        "which cake recipe",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("not in memory"), "{}", out.stderr);
    let out = r.run(&[
        "recall",
        "--mode",
        "lexical",
        "--fail-if-unanswered",
        "Postgres for orders",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Use Postgres for orders"));
}

/// One invalid byte in DECISION_LOG.md made the agent's hook, `status` and the bundle fail:
/// the agent started with no memory at all, and `zo doctor` said all was well. The rest of the
/// memory is delivered now, with one line naming the file and line; writes to that file are
/// refused; doctor fails naming it.
#[test]
fn one_bad_byte_silenced_all_of_memory() {
    let r = Repo::init();
    r.decide("Use Rust", "rust");
    r.ok(&[
        "prior",
        "add",
        "--title",
        "Pin the toolchain",
        "--root-cause",
        "novel_case",
        "--failure",
        "f",
        "--rule",
        "pin it",
    ]);
    r.ok(&["fact", "set", "stack:db", "Postgres"]);
    let log = r.path().join(".zo/memory/DECISION_LOG.md");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"\n\xff broken\n");
    std::fs::write(&log, &bytes).unwrap();
    let event = r#"{"hook_event_name":"SessionStart","source":"startup","session_id":"s"}"#;
    let hook = r.run_stdin(&["hook", "claude"], event);
    assert_eq!(hook.code, 0, "{}", hook.stderr);
    for want in [
        "stack:db = Postgres",
        "Pin the toolchain",
        "zo could not read part of the memory",
        "DECISION_LOG.md:",
    ] {
        assert!(hook.stdout.contains(want), "{want}: {}", hook.stdout);
    }
    let status = r.run(&["status"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(
        status.stdout.contains("1 prior") && status.stderr.contains("DECISION_LOG.md:"),
        "{}{}",
        status.stdout,
        status.stderr
    );
    let doctor = r.run(&["doctor"]);
    assert_eq!(doctor.code, 1, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("FAIL memory files") && doctor.stdout.contains("invalid UTF-8"),
        "{}",
        doctor.stdout
    );
    let decide = r.run(&["decide", "--title", "x", "--decision", "y"]);
    assert_eq!(decide.code, 1, "{}", decide.stderr);
    assert_eq!(
        std::fs::read(&log).unwrap(),
        bytes,
        "nothing written over the damage"
    );
}

/// A log cut at its start (`tail -c +300`) kept its first entry's fields without a heading,
/// and a heading mistyped `## Decison:` made zo read an entry's fields as the one above's:
/// both entries were hidden and `zo verify` said ok. It names each place now.
#[test]
fn a_cut_or_mistyped_heading_hid_an_entry_and_verify_said_ok() {
    let r = Repo::init();
    for i in 1..=3 {
        r.decide(&format!("Decision number {i}"), &format!("text {i}"));
    }
    let log = r.path().join(".zo/memory/DECISION_LOG.md");
    let text = std::fs::read_to_string(&log).unwrap();
    let first = text.find("## Decision:").unwrap();
    let cut = &text[first + "## Decision: 2026-11-28T00:00:00Z\n".len() - 1..];
    std::fs::write(&log, cut).unwrap();
    let e = r.fails(&["verify"], 4);
    assert!(
        e.contains("DECISION_LOG.md:") && e.contains("field lines outside any entry"),
        "{e}"
    );
    let doctor = r.run(&["doctor"]);
    assert_eq!(doctor.code, 1, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("FAIL memory files")
            && doctor.stdout.contains("field lines outside any entry"),
        "{}",
        doctor.stdout
    );
    let typo =
        text.replacen("## Decision:", "## Decison:", 2)
            .replacen("## Decison:", "## Decision:", 1);
    std::fs::write(&log, typo).unwrap();
    let e = r.fails(&["verify"], 4);
    assert!(e.contains("a heading zo does not read"), "{e}");
}

/// A log cut inside its last entry (`head -c`) showed a phantom row with an empty date, type
/// or title in `zo log`. An entry without a title is not listed; the log says which line.
#[test]
fn a_truncated_log_showed_a_phantom_row() {
    let r = Repo::init();
    for i in 1..=4 {
        r.decide(&format!("Decision number {i}"), &format!("text {i}"));
    }
    let log = r.path().join(".zo/memory/DECISION_LOG.md");
    let text = std::fs::read_to_string(&log).unwrap();
    let last = text.rfind("**Title:**").unwrap();
    std::fs::write(&log, &text[..last]).unwrap();
    let out = r.run(&["log"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.stdout);
    assert!(
        out.stdout.lines().all(|l| l.contains("Decision number")),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("1 entry of") && out.stderr.contains("not listed: no title (line"),
        "{}",
        out.stderr
    );
    r.fails(&["verify"], 4);
}
