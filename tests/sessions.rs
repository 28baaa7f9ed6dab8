//! Sessions, the context bundle, snapshots, `zo continue` and `init --agent claude`.

mod util;
use util::Repo;

fn no_model(r: &Repo, args: &[&str]) -> util::Run {
    util::Run::from(
        r.cmd(args)
            .env("ZO_CACHE", "/nonexistent")
            .env("HOME", "/nonexistent")
            .env_remove("ZO_MODEL_DIR")
            .output()
            .unwrap(),
    )
}

#[test]
fn context_respects_the_budget_and_says_what_was_left_out() {
    let r = Repo::example();
    for budget in [800usize, 1200, 4000] {
        let v = r.json(&["context", "--budget", &budget.to_string()]);
        let md = v["markdown"].as_str().unwrap();
        assert!(
            md.len().div_ceil(4) <= budget,
            "budget {budget}: {} tokens",
            md.len().div_ceil(4)
        );
        let last = md.trim_end().lines().last().unwrap();
        assert!(last.starts_with("Left out"), "{last}");
        assert!(
            md.contains("## State") && md.contains("phase: phase_2"),
            "STATE is always there"
        );
        assert!(md.contains("PR-001"), "priors are always there");
        // Whole entries only: every decision heading shown comes with its closing field.
        assert_eq!(
            md.matches("## Decision: ").count(),
            md.matches("**Outcome:**").count(),
            "an entry was cut"
        );
    }
    let small = r.ok(&["context", "--budget", "800"]);
    assert!(
        small.contains("older decisions (`zo log`, `zo show ID`)"),
        "{small}"
    );
    // Below what STATE's fields and the compact priors need, only they are given.
    let tiny = r.ok(&["context", "--budget", "100"]);
    assert!(
        tiny.contains("phase: phase_2")
            && tiny.contains("PR-003")
            && !tiny.contains("## Decision:"),
        "{tiny}"
    );
    assert!(
        tiny.contains("sections of STATE.md") && tiny.contains("the priors' full rules"),
        "{tiny}"
    );
    let big = r.ok(&["context", "--budget", "20000"]);
    assert!(big.contains("## Handoff (\"phase_1_2026-10-13T16-05-00\")"));
    assert!(big.contains("## Next, from \"session-003-2026-10-22\""));
    assert!(big.contains("**Title:** Berth scheduler as a separate worker"));
    assert!(
        big.contains("latest outcome, D-bd613649"),
        "outcomes show with their decision"
    );
    assert!(
        !big.contains("**Title:** Serve the API with Express"),
        "superseded decisions are not recent context"
    );
}

#[test]
fn context_without_task_never_loads_the_model() {
    let r = Repo::example();
    let run = no_model(&r, &["context"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.is_empty(),
        "no model lookup expected: {}",
        run.stderr
    );
    let run = no_model(&r, &["context", "--task", "double booking in the database"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("semantic search unavailable"),
        "{}",
        run.stderr
    );
}

#[test]
fn context_with_task_adds_older_matches() {
    util::require_model();
    let r = Repo::example();
    // Bury the old decision under ten new ones so it is no longer "recent".
    for i in 0..10 {
        r.decide(
            &format!("Invoice template {i}"),
            &format!("Layout choice {i} for the invoice PDF"),
        );
    }
    let plain = r.ok(&["context", "--budget", "20000"]);
    assert!(!plain.contains("**Title:** Prevent double-booking with an exclusion constraint"));
    let task = r.ok(&[
        "context",
        "--budget",
        "20000",
        "--task",
        "two dispatchers reserved the same quay at once",
    ]);
    assert!(
        task.contains("## Related to the task: two dispatchers reserved the same quay at once"),
        "{task}"
    );
    assert!(task.contains("**Title:** Prevent double-booking with an exclusion constraint"));
}

#[test]
fn fixture_bundle_is_sane_under_the_default_budget() {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/zo-platform"));
    let v = r.json(&["context"]);
    let md = v["markdown"].as_str().unwrap();
    assert!(md.len().div_ceil(4) <= 4000);
    assert!(md.contains("project: zero-operators-build"));
    assert!(
        md.contains("PR-001") && md.contains("PR-045"),
        "every active prior, compact"
    );
    assert!(
        md.contains("**Title:** CLI command-set test asserts subset"),
        "the newest decision"
    );
    assert!(md.contains("## Next, from \"session-039-2026-06-11\""));
    assert!(
        md.trim_end()
            .lines()
            .last()
            .unwrap()
            .contains("older decisions")
    );
}

#[test]
fn session_start_end_writes_numbered_files_and_keeps_state_sections() {
    let r = Repo::init();
    let state = "# STATE\nproject: test\nphase: phase_1\nactive_blockers: []\nnext_steps: []\n\n## Current Position\nKept *byte for byte*.\n\n## Other\n- keep: me\n";
    r.write(".zo/memory/STATE.md", state);
    r.commit_all("base");
    let out = r.ok(&["session", "start", "--agent", "claude", "--task", "first"]);
    assert!(out.starts_with("# Context: \"test\""), "{out}");
    let d = r.decide("During the session", "d");
    let p = r
        .ok(&[
            "prior",
            "add",
            "--title",
            "Learned",
            "--root-cause",
            "novel_case",
            "--failure",
            "f",
            "--rule",
            "r",
        ])
        .trim()
        .to_string();
    let j = r.json(&[
        "session",
        "end",
        "--summary",
        "Did things",
        "--shipped",
        "thing one",
        "--next",
        "next a",
        "--next",
        "next b",
        "--blocker",
        "quota",
        "--phase",
        "phase_2",
    ]);
    let today = &zo::time::today();
    let file = j["file"].as_str().unwrap().to_string();
    assert!(
        file.starts_with(&format!(".zo/memory/sessions/session-{today}T")) && file.ends_with(".md"),
        "{file}"
    );
    assert_eq!(j["number"], 1);
    assert_eq!(j["decisions"][0]["id"], d.as_str());
    assert_eq!(j["priors"][0]["id"], p.as_str());
    let text = r.read(&file);
    assert!(text.starts_with(&format!("# Session 001 — {today}\n\n**Started:** ")));
    assert!(text.contains("**Agent:** claude") && text.contains("**Phase:** phase_2"));
    assert!(text.contains(&format!("## Decisions\n- {d} — During the session\n")));
    // The prior's line carries its fingerprint, so a merge that renumbers it cannot falsify it.
    assert!(
        text.contains(&format!("## Priors\n- {p} — Learned <!-- zo:prior ")),
        "{text}"
    );
    assert!(
        text.contains("## Next\n- next a\n- next b\n") && text.contains("## Blockers\n- quota\n")
    );
    let st = r.read(".zo/memory/STATE.md");
    // zo's line on where the work stands comes first; what a person wrote stays below it.
    let (_, position) = st
        .split_once("\n## Current Position\nLatest: Session 001 ended ")
        .unwrap_or_else(|| panic!("{st}"));
    assert!(
        position.ends_with("\nKept *byte for byte*.\n\n## Other\n- keep: me\n"),
        "{st}"
    );
    assert!(
        st.contains("phase: phase_2\n")
            && st.contains("next_steps: [next a, next b]\n")
            && st.contains("last_completed_subtask: thing one\n")
    );
    assert!(st.contains(&format!(
        "git_head: {}",
        &r.git(&["rev-parse", "--short=7", "HEAD"]).trim()
    )));
    assert!(!r.path().join(".zo/memory/.session").exists());

    // Ending with no session started still works, and numbering continues.
    let d2 = r.decide("Between sessions", "x");
    let j = r.json(&["session", "end", "--summary", "no start"]);
    assert_eq!(j["number"], 2);
    assert_eq!(j["decisions"][0]["id"], d2.as_str());
    let run = r.run_stdin(
        &["-q", "session", "end", "--file", "-"],
        r#"{"summary": "from stdin", "next": ["n"]}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let last = r.json(&["session", "show", "last"]);
    assert!(
        last["text"].as_str().unwrap().starts_with("# Session 003"),
        "{last}"
    );
    assert!(
        last["text"]
            .as_str()
            .unwrap()
            .contains("## Attempted\nfrom stdin\n")
    );
    assert_eq!(r.json(&["status"])["counts"]["sessions"], 3);
    let titles: Vec<String> = r.json(&["session", "list"])["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap()[..11].to_string())
        .collect();
    assert_eq!(
        titles,
        ["Session 001", "Session 002", "Session 003"],
        "listed in the order they ended, even within a second"
    );
}

#[test]
fn session_numbering_continues_a_hand_written_history() {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/zo-platform"));
    let j = r.json(&["session", "end", "--summary", "first zo session"]);
    assert_eq!(j["number"], 40);
}

#[test]
fn snapshot_has_front_matter_decisions_and_handoff() {
    let r = Repo::init();
    let a = r.decide("Phase one choice", "a");
    r.ok(&["state", "set", "--next", "start phase two"]);
    let j = r.json(&["snapshot", "--phase", "phase_1"]);
    let file = j["file"].as_str().unwrap();
    assert!(file.starts_with(".zo/memory/snapshots/phase_1_") && file.ends_with(".md"));
    let text = r.read(file);
    assert!(
        text.starts_with(
            "---\nschema_version: 1\nphase: phase_1\ngate_outcome: proceed\ncompleted_at: "
        ),
        "{text}"
    );
    assert!(text.contains(&format!("decisions: [{a}]\n")));
    assert!(text.contains(&format!("## Decisions\n- {a} — Phase one choice\n")));
    assert!(text.contains("## Handoff\nNext steps:\n- start phase two\n"));
    assert!(r.ok(&["context"]).contains("## Handoff (\"phase_1_"));
    r.fails(&["snapshot", "--phase", "bad phase/name"], 2);
}

#[test]
fn continue_twice_changes_nothing_the_second_time() {
    let r = Repo::example();
    r.commit_all("example");
    let first = r.run(&["continue"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.starts_with("# Context: \"harbor\""));
    assert!(r.path().join(".zo/local.yaml").is_file());
    let snapshot = |r: &Repo| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = walk(&r.path().join(".zo"))
            .into_iter()
            .filter(|p| !p.to_string_lossy().contains("index.db"))
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = snapshot(&r);
    let second = r.run(&["continue"]);
    assert_eq!(second.code, 0);
    assert_eq!(snapshot(&r), before, "the second continue changed files");
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(
        r.git(&["status", "--porcelain"]),
        "",
        "local and derived files are ignored"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn init_agent_claude_merges_settings_and_is_idempotent() {
    let r = Repo::new();
    r.write(".claude/settings.json", r#"{"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "echo hi"}]}]}, "model": "opus"}"#);
    r.write("CLAUDE.md", "# My project\n\nHouse rules.\n");
    r.ok(&["init", "--project", "p", "--agent", "claude"]);
    let s: serde_json::Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(s["permissions"]["allow"][0], "Bash(ls:*)");
    assert_eq!(s["model"], "opus");
    let starts = s["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(starts.len(), 2, "the existing hook is kept");
    assert_eq!(starts[0]["hooks"][0]["command"], "echo hi");
    assert_eq!(starts[1]["hooks"][0]["command"], "zo hook claude");
    assert_eq!(
        s["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        "zo -q hook claude"
    );
    let md = r.read("CLAUDE.md");
    assert!(
        md.starts_with("# My project\n\nHouse rules.\n\n<!-- zo:begin"),
        "{md}"
    );
    assert!(
        md.contains("zo decide --type")
            && md.contains("zo prior add")
            && md.contains("zo session end"),
        "{md}"
    );
    let before = (r.read(".claude/settings.json"), r.read("CLAUDE.md"));
    r.ok(&["init", "--agent", "claude"]);
    assert_eq!(
        (r.read(".claude/settings.json"), r.read("CLAUDE.md")),
        before,
        "running it twice adds nothing twice"
    );
    // Removable: exactly what zo added goes, the rest stays.
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(r.read("CLAUDE.md"), "# My project\n\nHouse rules.\n");
    let s: serde_json::Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(s["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert!(s["hooks"].get("SessionEnd").is_none(), "{s}");
    assert!(!r.path().join(".claude/commands/zo-recall.md").exists());
    r.write(".claude/settings.json", "{ broken");
    let e = r.fails(&["init", "--agent", "claude"], 1);
    assert!(e.contains(".claude/settings.json:1:"), "{e}");
    assert_eq!(r.read(".claude/settings.json"), "{ broken");
    r.fails(&["init", "--agent", "vim"], 2);
    // Other agents get the same block in AGENTS.md.
    r.ok(&["init", "--agent", "generic"]);
    assert!(r.read("AGENTS.md").contains("zo recall '"));
}

#[test]
fn older_claude_wiring_is_replaced_not_doubled() {
    let r = Repo::init();
    let old = r#"{"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "zo session start --agent claude"}]}], "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "zo -q session end --agent claude"}]}]}}"#;
    r.write(".claude/settings.json", old);
    r.write(
        ".claude/commands/memory/recall.md",
        "!`zo recall \"$ARGUMENTS\"`\n",
    );
    r.ok(&["init", "--agent", "claude"]);
    let s: serde_json::Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(
        s["hooks"]["SessionStart"].as_array().unwrap().len(),
        1,
        "{s}"
    );
    assert_eq!(
        s["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "zo hook claude"
    );
    assert!(
        !r.path().join(".claude/commands/memory").exists(),
        "the command that never ran is gone"
    );
}

#[test]
fn slash_command_has_a_name_that_works_and_quotes_safely() {
    let r = Repo::example();
    r.ok(&["init", "--agent", "claude"]);
    // `/memory` is a Claude Code built-in and subdirectory commands are not `/dir:name`.
    let cmd = r.read(".claude/commands/zo-recall.md");
    assert!(!r.path().join(".claude/commands/memory").exists());
    // No shell line with the question pasted into it: `$` and quotes in a question stay text.
    assert!(!cmd.contains("!`"), "{cmd}");
    assert!(
        cmd.contains("$ARGUMENTS") && cmd.contains("single-quoted"),
        "{cmd}"
    );
    assert!(cmd.contains("allowed-tools: Bash(zo recall:*)"));
    // What the agent is told to run works for a question with quotes and `$`.
    let run = r.run(&[
        "--json",
        "recall",
        "--mode",
        "lexical",
        "why \"Express\" $HOME `ls` it's",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn hook(r: &Repo, event: &str) -> util::Run {
    r.run_stdin(
        &["hook", "claude"],
        &format!(
            r#"{{"session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": "{}", {event}}}"#,
            r.path().display()
        ),
    )
}

#[test]
fn claude_session_start_on_resume_or_compact_keeps_the_baseline() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "claude"]);
    let start = hook(
        &r,
        r#""hook_event_name": "SessionStart", "source": "startup""#,
    );
    assert_eq!(start.code, 0, "{}", start.stderr);
    assert!(
        start.stdout.starts_with("# Context: \"test\""),
        "the bundle becomes the agent's context"
    );
    let before = r.decide("Made before the compaction", "kept");
    for source in ["compact", "resume"] {
        let again = hook(
            &r,
            &format!(r#""hook_event_name": "SessionStart", "source": "{source}""#),
        );
        assert_eq!(again.code, 0);
        assert!(
            again.stdout.starts_with("# Context: \"test\""),
            "the bundle is printed again after {source}"
        );
    }
    let after = r.decide("Made after it", "kept too");
    let end = hook(&r, r#""hook_event_name": "SessionEnd", "reason": "exit""#);
    assert_eq!(end.code, 0, "{}", end.stderr);
    let list = r.json(&["session", "list"]);
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    let text = r.json(&["session", "show", "last"])["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains(&before) && text.contains(&after),
        "decisions before a compaction stay in the record: {text}"
    );
    // Unknown events are not an error for the agent.
    assert_eq!(hook(&r, r#""hook_event_name": "Stop""#).code, 0);
}

#[test]
fn claude_session_end_writes_nothing_when_nothing_happened() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "claude"]);
    r.commit_all("base");
    hook(
        &r,
        r#""hook_event_name": "SessionStart", "source": "startup""#,
    );
    let end = hook(&r, r#""hook_event_name": "SessionEnd", "reason": "exit""#);
    assert_eq!(end.code, 0, "{}", end.stderr);
    assert_eq!(
        r.json(&["status"])["counts"]["sessions"],
        0,
        "an empty session leaves no file"
    );
    assert_eq!(
        r.git(&["status", "--porcelain"]),
        "",
        "nothing written at all"
    );
    assert!(
        !r.path().join(".zo/memory/index.db").exists(),
        "the SessionEnd path never touches the index or the model"
    );
    // Ending without a start (a crashed agent, a fresh clone) is quiet too.
    assert_eq!(hook(&r, r#""hook_event_name": "SessionEnd""#).code, 0);
    assert_eq!(r.json(&["status"])["counts"]["sessions"], 0);
    // Bad input is a failure that names stdin (exit 1: a hook exiting 2 would block the agent), not a panic.
    let bad = r.run_stdin(&["hook", "claude"], "{ not json");
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert!(bad.stderr.contains("<stdin>:1:"), "{}", bad.stderr);
}

/// Two machines, one bare remote: memory, index and environment follow a plain git clone.
#[test]
fn end_to_end_across_machines() {
    util::require_model();
    let world = tempfile::tempdir().unwrap();
    let remote = world.path().join("remote.git");
    let git = |dir: &std::path::Path, args: &[&str]| {
        let out = util::git_command(dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let zo = |dir: &std::path::Path, args: &[&str]| -> util::Run {
        let run = util::Run::from(
            util::zo_command(dir)
                .args(args)
                .env_remove("ZO_REPO")
                .output()
                .unwrap(),
        );
        assert_eq!(run.code, 0, "zo {args:?}: {}", run.stderr);
        run
    };
    git(
        world.path(),
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            remote.to_str().unwrap(),
        ],
    );
    let a = world.path().join("a");
    git(
        world.path(),
        &["clone", "-q", remote.to_str().unwrap(), a.to_str().unwrap()],
    );
    git(&a, &["config", "user.email", "a@example.com"]);
    git(&a, &["config", "user.name", "A"]);
    zo(&a, &["init", "--project", "shared"]);
    zo(&a, &["session", "start", "--agent", "claude"]);
    let pg = zo(
        &a,
        &[
            "decide",
            "--title",
            "Store orders in PostgreSQL",
            "--decision",
            "Orders live in PostgreSQL 16 with JSONB line items",
            "--rationale",
            "Relational integrity for payments",
        ],
    )
    .stdout
    .trim()
    .to_string();
    zo(
        &a,
        &[
            "decide",
            "--title",
            "Deploy with blue-green releases",
            "--decision",
            "Two identical environments; switch the router after smoke tests",
        ],
    );
    zo(
        &a,
        &[
            "session",
            "end",
            "--summary",
            "Data model",
            "--next",
            "payments",
        ],
    );
    zo(&a, &["snapshot", "--phase", "phase_1"]);
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "memory from A"]);
    git(&a, &["push", "-q", "origin", "main"]);
    assert!(
        !git(&a, &["ls-files"]).contains("index.db"),
        "the index is never committed"
    );

    // Machine B: a fresh clone and nothing else.
    let b = world.path().join("b");
    git(
        world.path(),
        &["clone", "-q", remote.to_str().unwrap(), b.to_str().unwrap()],
    );
    git(&b, &["config", "user.email", "b@example.com"]);
    git(&b, &["config", "user.name", "B"]);
    let cont = zo(&b, &["continue"]);
    assert!(
        cont.stderr.contains("building") && cont.stderr.contains("index.db"),
        "{}",
        cont.stderr
    );
    assert!(cont.stdout.contains("Store orders in PostgreSQL"));
    assert!(b.join(".zo/local.yaml").is_file());
    git(&b, &["check-ignore", "-q", ".zo/local.yaml"]);
    let v: serde_json::Value = serde_json::from_str(
        &zo(
            &b,
            &[
                "--json",
                "recall",
                "--mode",
                "semantic",
                "--kind",
                "decision",
                "-k",
                "1",
                "which database holds the purchases customers make",
            ],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(v["mode"], "semantic");
    assert_eq!(v["results"][0]["id"], pg.as_str());
    let idx: serde_json::Value =
        serde_json::from_str(&zo(&b, &["--json", "index", "status"]).stdout).unwrap();
    assert_eq!(
        (idx["fresh"].as_bool(), idx["pending_embeddings"].as_u64()),
        (Some(true), Some(0))
    );
    let cache = zo(
        &b,
        &[
            "decide",
            "--title",
            "Cache product pages at the edge",
            "--decision",
            "CDN caches product pages for 60 seconds",
        ],
    )
    .stdout
    .trim()
    .to_string();
    zo(&b, &["session", "end", "--summary", "Caching"]);
    git(&b, &["add", "-A"]);
    git(&b, &["commit", "-q", "-m", "memory from B"]);
    git(&b, &["push", "-q", "origin", "main"]);

    git(&a, &["pull", "-q", "--no-rebase", "origin", "main"]);
    zo(&a, &["continue"]);
    let v: serde_json::Value = serde_json::from_str(
        &zo(
            &a,
            &[
                "--json",
                "recall",
                "--kind",
                "decision",
                "-k",
                "1",
                "keeping storefront html near shoppers for a minute",
            ],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(v["results"][0]["id"], cache.as_str());
    let st: serde_json::Value =
        serde_json::from_str(&zo(&a, &["--json", "status"]).stdout).unwrap();
    assert_eq!(st["counts"]["sessions"], 2);
    assert_eq!(st["counts"]["decisions"], 3);
}

/// STATE.md's `## Current Position` read "Just initialised" forever: a session's end and a
/// snapshot say where the work stands, and set `git_head` to the commit they saw.
#[test]
fn current_position_said_just_initialised_after_sessions_and_snapshots() {
    let r = Repo::init();
    r.commit_all("init");
    r.ok(&["session", "start"]);
    r.decide("Use Postgres", "one database");
    r.ok(&[
        "session",
        "end",
        "--summary",
        "Chose the database",
        "--next",
        "write the schema",
    ]);
    let head = r.git(&["rev-parse", "--short", "HEAD"]).trim().to_string();
    let state = r.read(".zo/memory/STATE.md");
    let position = state
        .split("## Current Position\n")
        .nth(1)
        .unwrap_or_default();
    assert!(!position.contains("Just initialised"), "{state}");
    assert!(
        position.starts_with("Latest: Session 001 ended")
            && position.contains("Chose the database")
            && position.contains("Next: write the schema."),
        "{state}"
    );
    assert!(state.contains(&format!("git_head: {head}")), "{state}");
    r.commit_all("session");
    r.ok(&["snapshot", "--phase", "phase_1", "--outcome", "passed"]);
    let head = r.git(&["rev-parse", "--short", "HEAD"]).trim().to_string();
    let state = r.read(".zo/memory/STATE.md");
    assert!(
        state.contains("## Current Position\nLatest: Phase phase_1 closed")
            && state.contains("(passed)"),
        "{state}"
    );
    assert_eq!(
        state.matches("Latest: ").count(),
        1,
        "one line of zo's: {state}"
    );
    assert!(state.contains(&format!("git_head: {head}")), "{state}");
}

/// A merge made without zo's driver left conflict markers in STATE.md; a session's end wrote
/// its fields under them, burying the conflict in a file that looked valid.
#[test]
fn session_end_wrote_state_over_unresolved_conflict_markers() {
    let r = Repo::init();
    let state = r.read(".zo/memory/STATE.md");
    let conflicted = state.replacen(
        "mode: build\n",
        "mode: build\n<<<<<<< HEAD\nphase: testing\n=======\nphase: building\n>>>>>>> other\n",
        1,
    );
    assert_ne!(conflicted, state);
    r.write(".zo/memory/STATE.md", &conflicted);
    r.ok(&["session", "start"]);
    let e = r.fails(&["session", "end", "--summary", "x"], 1);
    assert!(
        e.contains("STATE.md:") && e.contains("resolve the merge"),
        "{e}"
    );
    assert_eq!(
        r.read(".zo/memory/STATE.md"),
        conflicted,
        "STATE.md untouched"
    );
}

/// `zo forget` erased a decision but its title stayed in the session file that listed it and
/// in a snapshot taken before (SPEC: zo keeps no copy of the erased text anywhere). Both lists
/// now say `[forgotten]` there, and the report names the files.
#[test]
fn forget_left_the_title_in_session_and_snapshot_lists() {
    let r = Repo::init();
    r.ok(&["session", "start", "--agent", "test"]);
    let id = r.decide("Call Jane Doe at 555-0100", "personal data by mistake");
    let kept = r.decide("Use Postgres for orders", "kept");
    r.ok(&["session", "end", "--summary", "s"]);
    r.ok(&["snapshot", "--phase", "p1"]);
    let f = util::forget(
        &r.cmd(&["--json", "forget", &id, "--reason", "personal data"]),
        &id,
    );
    assert_eq!(f.code, 0, "{}", f.stdout);
    let v = util::json_in(&f.stdout);
    assert_eq!(v["listings_cleared"].as_array().unwrap().len(), 2, "{v}");
    let mut files = Vec::new();
    for dir in ["sessions", "snapshots"] {
        for e in std::fs::read_dir(r.path().join(".zo/memory").join(dir)).unwrap() {
            files.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
        }
    }
    let all = files.join("\n");
    assert!(
        !all.contains("Jane Doe") && !all.contains("555-0100"),
        "{all}"
    );
    assert!(
        all.contains(&format!("- {id} — [forgotten]"))
            && all.contains(&format!("- {kept} — Use Postgres for orders")),
        "{all}"
    );
    r.ok(&["verify"]);
}

/// `zo session end` with nothing given and nothing written since the last session wrote an
/// empty session file each time (exit 0). It says there is nothing to record, and writes none.
#[test]
fn session_end_wrote_an_empty_session_each_time() {
    let r = Repo::init();
    let e = r.fails(&["session", "end"], 1);
    assert!(e.contains("nothing to record"), "{e}");
    assert_eq!(
        std::fs::read_dir(r.path().join(".zo/memory/sessions"))
            .unwrap()
            .count(),
        0
    );
    r.ok(&[
        "session",
        "end",
        "--summary",
        "a summary is something to record",
    ]);
    assert_eq!(
        std::fs::read_dir(r.path().join(".zo/memory/sessions"))
            .unwrap()
            .count(),
        1
    );
}

/// A session its agent's hook ended, with no summary and no next step, said "not recorded"
/// in STATE.md and put a "Next … none" section in the bundle, above STATE.md's own next
/// steps as if it replaced them. It says what it recorded, and an empty Next is no section.
#[test]
fn a_hook_ended_session_hid_the_next_steps_behind_none() {
    let r = Repo::init();
    r.ok(&["state", "set", "--next", "write the parser"]);
    let ev =
        |e: &str| format!(r#"{{"hook_event_name":"{e}","source":"startup","session_id":"s"}}"#);
    assert_eq!(
        r.run_stdin(&["hook", "claude"], &ev("SessionStart")).code,
        0
    );
    r.decide("Use Rust", "rust 1.92");
    assert_eq!(r.run_stdin(&["hook", "claude"], &ev("SessionEnd")).code, 0);
    let b = r.ok(&["context"]);
    assert!(!b.contains("## Next, from"), "{b}");
    assert!(b.contains("write the parser"), "{b}");
    assert!(
        b.contains("no summary given (1 decision and 0 lessons recorded)"),
        "{b}"
    );
    assert!(!b.contains("not recorded"), "{b}");
}
