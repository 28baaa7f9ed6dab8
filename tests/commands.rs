//! Every core command, as a user runs it, in text and --json.

mod util;
use util::Repo;

#[test]
fn init_creates_layout_and_is_idempotent() {
    let r = Repo::new();
    let out = r.ok(&["init", "--project", "shop"]);
    assert!(out.contains("initialised zo memory for \"shop\""), "{out}");
    for f in [
        ".zo/config.yaml",
        ".zo/.gitignore",
        ".zo/local.yaml",
        ".zo/memory/STATE.md",
        ".zo/memory/DECISION_LOG.md",
        ".zo/memory/PRIORS.md",
    ] {
        assert!(r.path().join(f).is_file(), "{f} missing");
    }
    assert!(r.path().join(".zo/memory/sessions").is_dir());
    assert!(r.read(".zo/config.yaml").contains("project: \"shop\""));
    assert!(r.read(".zo/local.yaml").contains("cpu_count:"));
    let ignore = r.read(".zo/.gitignore");
    for line in ["local.yaml", "memory/index.db", "memory/.lock"] {
        assert!(ignore.lines().any(|l| l == line), "{line} not ignored");
    }

    let id = r.decide("Keep me", "memory must survive init");
    let before = r.read(r.log_path());
    let second = r.run(&["init", "--project", "shop"]);
    assert_eq!(second.code, 0);
    assert!(second.stdout.is_empty());
    assert!(second.stderr.contains("already initialised"));
    assert_eq!(r.read(r.log_path()), before);
    assert_eq!(r.ids(), vec![id]);
    let j = r.json(&["init"]);
    assert_eq!(j["created"].as_array().unwrap().len(), 0);
}

#[test]
fn init_from_a_subdirectory_uses_the_git_top() {
    let r = Repo::new();
    std::fs::create_dir_all(r.path().join("src/deep")).unwrap();
    let out = util::zo_command(r.path().join("src/deep"))
        .args(["init", "--project", "p"])
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(r.path().join(".zo/memory/STATE.md").is_file());
    assert!(!r.path().join("src/deep/.zo").exists());
}

#[test]
fn no_memory_exits_3_and_says_init() {
    let r = Repo::new();
    let err = r.fails(&["status"], 3);
    assert!(err.contains("zo init"), "{err}");
    let err = r.fails(&["--json", "log"], 3);
    assert!(err.contains("zo init"));
}

#[test]
fn memory_is_found_by_flag_env_and_walking_up() {
    let r = Repo::init();
    r.decide("Found", "yes");
    std::fs::create_dir_all(r.path().join("a/b")).unwrap();
    let from_sub = util::zo_command(r.path().join("a/b"))
        .args(["log"])
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&from_sub.stdout).contains("Found"));
    let elsewhere = tempfile::tempdir().unwrap();
    let by_flag = util::zo_command(elsewhere.path())
        .args(["--repo", r.path().to_str().unwrap(), "log"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&by_flag.stdout).contains("Found"));
    let by_env = util::zo_command(elsewhere.path())
        .args(["log"])
        .env("ZO_REPO", r.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&by_env.stdout).contains("Found"));
}

#[test]
fn decide_prints_id_and_json_shape() {
    let r = Repo::init();
    let out = r.ok(&[
        "decide",
        "--type",
        "architecture",
        "--title",
        "Use Hono instead of Express for the API",
        "--decision",
        "Hono on Node 22",
        "--rationale",
        "Smaller and faster",
        "--alternatives",
        "(1) Express — old (2) Fastify — fine",
        "--tags",
        "backend, api",
    ]);
    let id = out.trim();
    assert!(id.starts_with("D-") && id.len() == 10, "{out:?}");
    let log = r.read(r.log_path());
    assert!(log.contains(&format!(
        "**ID:** {id}\n**Type:** ARCHITECTURE\n**Title:** Use Hono instead of Express for the API\n"
    )));
    assert!(log.contains("**Alternatives considered:** (1) Express — old (2) Fastify — fine\n**Outcome:** pending\n**Tags:** backend, api\n\n---\n"));

    let j = r.json(&["decide", "--title", "Second", "--decision", "two"]);
    let id2 = j["id"].as_str().unwrap();
    assert!(id2.starts_with("D-"));
    assert!(j["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(r.ids(), vec![id.to_string(), id2.to_string()]);
}

#[test]
fn decide_reads_json_from_file_and_stdin() {
    let r = Repo::init();
    r.write("d.json", r#"{"type": "scope", "title": "From a file", "decision": "multi\nline\n\n- list", "tags": ["a", "b"]}"#);
    let id = r.ok(&["decide", "--file", "d.json"]).trim().to_string();
    let j = r.json(&["show", &id]);
    assert_eq!(j["title"], "From a file");
    assert_eq!(j["type"], "SCOPE");
    assert_eq!(j["decision"], "multi\nline\n\n- list");
    assert_eq!(j["tags"], "a, b");

    let run = r.run_stdin(
        &["--json", "decide", "--file", "-", "--title", "Flag wins"],
        r#"{"title": "ignored", "decision": "from stdin"}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let j = r.json(&["show", run.json()["id"].as_str().unwrap()]);
    assert_eq!(j["title"], "Flag wins");
    assert_eq!(j["decision"], "from stdin");

    let bad = r.run_stdin(
        &["decide", "--file", "-"],
        "{\"title\": \"x\",\n \"decision\": }",
    );
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("<stdin>:2:"), "{}", bad.stderr);
    let unknown = r.run_stdin(
        &["decide", "--file", "-"],
        r#"{"title": "x", "decison": "typo"}"#,
    );
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("decison"), "{}", unknown.stderr);
}

#[test]
fn decide_without_required_fields_is_a_usage_error() {
    let r = Repo::init();
    let before = r.read(r.log_path());
    r.fails(&["decide"], 2);
    // A missing or empty field is a usage error (2) like clap's own; a blank one is the
    // gate's refusal (1).
    let e = r.fails(&["decide", "--title", "only a title"], 2);
    assert!(e.contains("decide needs a decision (--decision)"), "{e}");
    let e = r.fails(&["decide", "--title", "a title", "--decision", "  "], 1);
    assert!(e.contains("decision"), "{e}");
    assert_eq!(r.read(r.log_path()), before);
}

#[test]
fn log_filters_and_limits_newest_first() {
    let r = Repo::init();
    let a = r
        .ok(&[
            "decide",
            "--type",
            "SCOPE",
            "--title",
            "A",
            "--decision",
            "a",
        ])
        .trim()
        .to_string();
    let b = r
        .ok(&[
            "decide",
            "--type",
            "BUGFIX",
            "--title",
            "B",
            "--decision",
            "b",
        ])
        .trim()
        .to_string();
    let c = r
        .ok(&[
            "decide",
            "--type",
            "scope",
            "--title",
            "C",
            "--decision",
            "c",
        ])
        .trim()
        .to_string();
    let text = r.ok(&["log"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0].starts_with(&c) && lines[2].starts_with(&a),
        "{text}"
    );
    let j = r.json(&["log", "--type", "Scope"]);
    let ids: Vec<&str> = j["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![c.as_str(), a.as_str()]);
    let j = r.json(&["log", "--limit", "1"]);
    assert_eq!(j["decisions"].as_array().unwrap().len(), 1);
    assert_eq!(j["decisions"][0]["id"], c.as_str());
    let _ = b;
    for key in [
        "id",
        "timestamp",
        "type",
        "title",
        "status",
        "superseded_by",
        "outcome",
    ] {
        assert!(j["decisions"][0].get(key).is_some(), "{key}");
    }
    assert_eq!(
        r.json(&["log", "--since", "2999-01-01"])["decisions"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        r.json(&["log", "--since", "2000-01-01"])["decisions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    r.fails(&["log", "--since", "yesterday"], 2);
}

#[test]
fn supersede_and_outcome_show_up_in_log_and_show() {
    let r = Repo::init();
    let old = r
        .ok(&[
            "decide",
            "--title",
            "Use Express",
            "--decision",
            "Express 4",
        ])
        .trim()
        .to_string();
    let new = r
        .ok(&[
            "decide",
            "--title",
            "Use Hono",
            "--decision",
            "Hono",
            "--supersedes",
            &old[..6],
        ])
        .trim()
        .to_string();
    let out = r
        .ok(&["outcome", &new, "Shipped; p99 down 30%"])
        .trim()
        .to_string();
    assert!(out.starts_with("D-"));

    let j = r.json(&["log"]);
    let list = j["decisions"].as_array().unwrap();
    assert_eq!(list.len(), 2, "OUTCOME entries fold into their decision");
    assert_eq!(list[0]["id"], new.as_str());
    assert_eq!(list[0]["outcome"], "Shipped; p99 down 30%");
    assert_eq!(list[1]["status"], "superseded");
    assert_eq!(list[1]["superseded_by"], new.as_str());
    assert_eq!(
        r.json(&["log", "--all"])["decisions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let shown = r.ok(&["show", &old]);
    assert!(shown.contains("**Title:** Use Express"));
    assert!(shown.contains(&format!("Superseded by {new}")));
    let shown = r.ok(&["show", &new]);
    assert!(shown.contains("Latest outcome") && shown.contains("p99 down 30%"));
    let j = r.json(&["show", &new]);
    assert_eq!(j["supersedes"], old.as_str());
    assert!(j["text"].as_str().unwrap().starts_with("## Decision: "));

    let e = r.fails(
        &[
            "decide",
            "--title",
            "X",
            "--decision",
            "x",
            "--supersedes",
            "D-ffffffff",
        ],
        1,
    );
    assert!(e.contains("no decision D-ffffffff"), "{e}");
    let e = r.fails(&["outcome", "D-ffffffff", "text"], 1);
    assert!(e.contains("no decision D-ffffffff"), "{e}");
    let e = r.fails(&["show", "D-ffffffff"], 1);
    assert!(e.contains("no decision"), "{e}");
}

#[test]
fn outcome_text_from_stdin() {
    let r = Repo::init();
    let id = r.decide("T", "d");
    let run = r.run_stdin(&["outcome", &id, "-"], "worked\n\nwith details\n");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(r.json(&["show", &id])["outcome"], "worked\n\nwith details");
}

#[test]
fn priors_add_list_supersede() {
    let r = Repo::init();
    let out = r.ok(&[
        "prior",
        "add",
        "--title",
        "Never redirect stderr of an interactive TUI",
        "--root-cause",
        "missing_rule",
        "--failure",
        "the agent pane stayed blank",
        "--rule",
        "Keep stderr on the terminal for TUIs.",
        "--rule",
        "Check the pane after launch.",
        "--source",
        "session-041 (2026-11-21)",
        "--solution",
        "Use tmux send-keys.",
    ]);
    assert_eq!(out.trim(), "PR-001");
    let text = r.read(".zo/memory/PRIORS.md");
    assert!(text.contains("## PR-001: Never redirect stderr of an interactive TUI\n**Source:** session-041 (2026-11-21)\n**Root cause category:** missing_rule\n**Failure:** the agent pane stayed blank\n**Superseded by:** null\n\n### Rules\n1. Keep stderr on the terminal for TUIs.\n2. Check the pane after launch.\n\n### Verified Solution\nUse tmux send-keys.\n"), "{text}");
    let j = r.json(&[
        "prior",
        "add",
        "--title",
        "Better lesson",
        "--root-cause",
        "incomplete_rule",
        "--failure",
        "f",
        "--rule",
        "r",
    ]);
    assert_eq!(j["id"], "PR-002");
    let e = r.fails(
        &[
            "prior",
            "add",
            "--title",
            "T",
            "--root-cause",
            "bad_luck",
            "--failure",
            "f",
            "--rule",
            "r",
        ],
        2,
    );
    assert!(e.contains("missing_rule"), "{e}");
    let e = r.fails(
        &[
            "prior",
            "add",
            "--title",
            "Better lesson",
            "--root-cause",
            "regression",
            "--failure",
            "f",
            "--rule",
            "r",
        ],
        1,
    );
    assert!(e.contains("PR-002"), "{e}");

    r.commit_all("priors");
    assert!(
        r.ok(&["prior", "supersede", "PR-001", "2"])
            .contains("PR-001 superseded by PR-002")
    );
    let j = r.json(&["prior", "list"]);
    let list = j["priors"].as_array().unwrap();
    assert_eq!(list[0]["superseded_by"], "PR-002");
    assert_eq!(list[0]["root_cause"], "missing_rule");
    assert_eq!(list[1]["superseded_by"], serde_json::Value::Null);
    assert!(r.ok(&["prior", "list"]).contains("[superseded by PR-002]"));
    // Setting Superseded by is the one edit the append-only check allows.
    r.ok(&["verify"]);
    let e = r.fails(&["prior", "supersede", "PR-001", "PR-002"], 1);
    assert!(e.contains("already superseded"), "{e}");
}

#[test]
fn state_show_and_set_keep_sections() {
    let r = Repo::init();
    let state = "# STATE\nproject: test\nmode: build\nphase: phase_3\nactive_blockers: [GPU quota on the training host]\nnext_steps: [run ablation B, write phase-3 report]\n\n## Current Position\nFree text, kept *verbatim*.\n\n```\nphase: not a field\n```\n";
    r.write(".zo/memory/STATE.md", state);
    let j = r.json(&["state", "show"]);
    assert_eq!(j["fields"]["phase"], "phase_3");
    assert_eq!(
        j["fields"]["next_steps"],
        serde_json::json!(["run ablation B", "write phase-3 report"])
    );
    r.ok(&[
        "-q",
        "state",
        "set",
        "--phase",
        "phase_4",
        "--blocker",
        "disk, full",
        "--next",
        "ship",
        "--set",
        "owner=ana",
    ]);
    let after = r.read(".zo/memory/STATE.md");
    let tail =
        "\n## Current Position\nFree text, kept *verbatim*.\n\n```\nphase: not a field\n```\n";
    assert!(after.ends_with(tail), "{after}");
    assert!(after.contains("phase: phase_4\n"));
    assert!(after.contains("active_blockers:\n  - disk, full\n"));
    assert!(after.contains("owner: ana\n"));
    let j = r.json(&["state", "show"]);
    assert_eq!(
        j["fields"]["active_blockers"],
        serde_json::json!(["disk, full"])
    );
    assert_ne!(j["fields"]["timestamp"], serde_json::Value::Null);
    r.fails(&["state", "set"], 2);
    r.fails(&["state", "set", "--set", "no-equals"], 2);
}

#[test]
fn state_missing_reads_as_defaults_with_warning() {
    let r = Repo::init();
    std::fs::remove_file(r.path().join(".zo/memory/STATE.md")).unwrap();
    let run = r.run(&["status"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("STATE.md is missing"), "{}", run.stderr);
    let run = r.run(&["-q", "status"]);
    assert!(run.stderr.is_empty());
    r.ok(&["state", "set", "--phase", "p1"]);
    assert!(r.read(".zo/memory/STATE.md").contains("phase: p1"));
}

#[test]
fn status_text_and_json() {
    let r = Repo::init();
    r.decide("First", "one");
    r.ok(&[
        "state",
        "set",
        "--phase",
        "phase_2",
        "--blocker",
        "quota",
        "--next",
        "train",
    ]);
    let j = r.json(&["status"]);
    assert_eq!(j["project"], "test");
    assert_eq!(j["phase"], "phase_2");
    assert_eq!(j["blockers"], serde_json::json!(["quota"]));
    assert_eq!(j["next_steps"], serde_json::json!(["train"]));
    assert_eq!(j["counts"]["decisions"], 1);
    assert_eq!(j["counts"]["priors"], 0);
    assert_eq!(j["counts"]["sessions"], 0);
    assert_eq!(j["git"]["branch"], "main");
    assert_eq!(j["git"]["zo_dirty"], true);
    assert!(j["index"].get("mode").is_some() && j["index"].get("fresh").is_some());
    r.commit_all("memory");
    let j = r.json(&["status"]);
    assert_eq!(j["git"]["zo_dirty"], false);
    assert_eq!(j["git"]["head"].as_str().unwrap().len(), 7);
    let text = r.ok(&["status"]);
    assert!(text.contains("phase     phase_2"));
    assert!(text.contains(".zo/ committed"));
    // An edit that keeps the size, made within the same second as the commit, is still seen
    // (zo compares mtimes to the nanosecond to skip hashing clean files, as git does).
    let log = r.read(".zo/memory/DECISION_LOG.md");
    r.write(
        ".zo/memory/DECISION_LOG.md",
        &log.replacen("First", "Fir5t", 1),
    );
    assert_eq!(r.json(&["status"])["git"]["zo_dirty"], true);
}

#[test]
fn help_teaches_and_version_prints() {
    let r = Repo::new();
    let h = r.ok(&["--help"]);
    assert!(h.contains("zo init") && h.contains("Exit codes"));
    assert!(r.ok(&["decide", "--help"]).contains("--file"));
    assert!(r.ok(&["--version"]).starts_with("zo "));
    r.fails(&["no-such-command"], 2);
}

#[test]
fn quiet_keeps_requested_data() {
    let r = Repo::init();
    let id = r.ok(&["-q", "decide", "--title", "Q", "--decision", "q"]);
    assert!(id.trim().starts_with("D-"));
    assert!(r.ok(&["-q", "log"]).contains("Q"));
}

#[test]
fn completions_and_man_page_come_from_the_cli_definition() {
    let r = Repo::new();
    let bash = r.ok(&["completions", "bash"]);
    assert!(
        bash.contains("_clap_complete_zo") && bash.contains("COMPLETE=\"bash\""),
        "{}",
        &bash[..200.min(bash.len())]
    );
    assert!(r.ok(&["completions", "zsh"]).contains("#compdef zo"));
    assert!(r.ok(&["completions", "fish"]).contains("complete "));
    r.fails(&["completions", "tcsh"], 2);
    let man = r.ok(&["man"]);
    assert!(
        man.contains(".TH zo 1") && man.contains("recall"),
        "{}",
        &man[..300.min(man.len())]
    );
}

/// `zo show <TAB>` completed no IDs (the static scripts knew the commands only): the script
/// asks zo, which answers from the memory the shell is in — driven here through bash itself.
#[test]
fn show_tab_completed_no_ids() {
    let r = Repo::init();
    let id = r.decide("Use Postgres", "one database");
    let other = r.decide("Use Redis for sessions", "fast");
    let script = r.ok(&["completions", "bash"]);
    std::fs::write(r.path().join(".git/zo-completion.bash"), &script).unwrap();
    let complete = |words: &str, current: &str| {
        let line = format!(
            "source .git/zo-completion.bash; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}}-1)); COMP_TYPE=9; _clap_complete_zo zo '{current}'; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = util::user_command("bash", &r.home())
            .args(["--norc", "-c", &line])
            .current_dir(r.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let all = complete("zo show D-", "D-");
    assert!(all.contains(&id) && all.contains(&other), "{all:?}");
    let one = complete(&format!("zo show {}", &id[..6]), &id[..6]);
    assert!(
        one.iter().all(|c| c.starts_with(&id[..6])) && one.contains(&id),
        "{one:?}"
    );
    // Options still complete, and a shell outside any memory gets no IDs and no error.
    assert!(complete("zo show --as", "--as").contains(&"--as-of".to_string()));
    let outside = tempfile::tempdir().unwrap();
    let out = util::user_command(util::ZO, &r.home())
        .args(["--", "zo", "show", "D-"])
        .env("COMPLETE", "fish")
        .current_dir(outside.path())
        .output()
        .unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim().is_empty(),
        "{out:?}"
    );
}

#[test]
fn show_finds_any_entry_kind() {
    let r = Repo::example();
    let prior = r.ok(&["show", "PR-002"]);
    assert!(prior.starts_with("## PR-002:"), "{prior}");
    assert_eq!(
        r.ok(&["prior", "show", "pr-002"]),
        prior,
        "prior show is the same, any case"
    );
    let j = r.json(&["show", "PR-002"]);
    assert_eq!(j["id"], "PR-002");
    assert!(j["rules"].as_array().is_some_and(|r| !r.is_empty()));
    let e = r.fails(&["show", "PR-999"], 1);
    assert!(e.contains("no prior PR-999 in .zo/memory/PRIORS.md"), "{e}");
    let sessions = r.json(&["session", "list"]);
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 3);
    assert_eq!(sessions["sessions"][2]["name"], "session-003-2026-10-22.md");
    let s = r.ok(&["show", "session-002"]);
    assert!(s.starts_with("# Session 002"), "{s}");
    assert_eq!(
        r.ok(&["session", "show", "last"]),
        r.ok(&["show", "session-003-2026-10-22.md"])
    );
    let e = r.fails(&["session", "show", "session-0"], 1);
    assert!(e.contains("matches several sessions"), "{e}");
    r.fails(&["session", "show", "nope"], 1);
}

#[test]
fn setup_registers_the_driver_for_every_clone_and_undo_removes_it() {
    let r = Repo::new();
    let global = r.path().join("global-gitconfig");
    std::fs::write(&global, "").unwrap();
    let run = |args: &[&str]| {
        util::Run::from(
            r.cmd(args)
                .env("GIT_CONFIG_GLOBAL", &global)
                .output()
                .unwrap(),
        )
    };
    assert_eq!(run(&["setup"]).code, 0);
    let cfg = std::fs::read_to_string(&global).unwrap();
    assert!(
        cfg.contains("[merge \"zo\"]") && cfg.contains("merge-driver"),
        "{cfg}"
    );
    let again = std::fs::read_to_string(&global).unwrap();
    assert_eq!(run(&["setup"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        again,
        "idempotent"
    );
    assert_eq!(run(&["setup", "--undo"]).code, 0);
    assert!(
        !std::fs::read_to_string(&global)
            .unwrap()
            .contains("merge-driver")
    );
}

#[test]
fn migrate_moves_the_older_layout_with_history() {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/zo-platform"));
    r.commit_all("older layout");
    let before = r.read("memory/zo-platform/DECISION_LOG.md");
    let dry = r.ok(&["migrate"]);
    assert!(
        dry.contains(
            "would move memory/zo-platform/DECISION_LOG.md -> .zo/memory/DECISION_LOG.md (git mv)"
        ),
        "{dry}"
    );
    assert!(dry.contains("dry run"), "{dry}");
    assert!(
        r.path().join("memory/zo-platform/DECISION_LOG.md").exists()
            && !r.path().join(".zo").exists(),
        "a dry run changes nothing"
    );
    r.ok(&["migrate", "--apply"]);
    assert_eq!(r.read(".zo/memory/DECISION_LOG.md"), before);
    assert!(!r.path().join("memory").exists());
    assert!(r.read(".zo/config.yaml").contains("zo-platform"));
    assert_eq!(r.json(&["status"])["counts"]["sessions"], 15);
    assert_eq!(r.json(&["status"])["legacy_layout"], false);
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "migrate"]);
    let history = r.git(&[
        "log",
        "--follow",
        "--format=%s",
        "--",
        ".zo/memory/DECISION_LOG.md",
    ]);
    assert_eq!(
        history.lines().collect::<Vec<_>>(),
        ["migrate", "older layout"],
        "history follows the file"
    );
    r.ok(&["verify", "--history"]);
    let again = r.run(&["migrate", "--apply"]);
    assert_eq!(again.code, 0);
    assert!(
        again.stderr.contains("nothing to migrate"),
        "{}",
        again.stderr
    );
}

/// `zo migrate --apply` made `.zo/memory/` before it took the lock: when the lock timed out,
/// every command found the new, empty layout first and the old memory was hidden ("nothing to
/// migrate"). It takes the lock first; a failure leaves the older layout as it was.
#[test]
fn migrate_hid_the_old_memory_when_its_lock_timed_out() {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/zo-platform"));
    r.commit_all("older layout");
    let decisions = r.json(&["status"])["counts"]["decisions"].clone();
    let lock = r.path().join("memory/zo-platform/.lock");
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .unwrap();
    held.lock().unwrap();
    let out = util::Run::from(
        r.cmd(&["migrate", "--apply"])
            .env("ZO_LOCK_TIMEOUT", "0.2")
            .output()
            .unwrap(),
    );
    drop(held);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        !r.path().join(".zo/memory").exists(),
        "nothing of the new layout was made"
    );
    assert_eq!(
        r.json(&["status"])["counts"]["decisions"],
        decisions,
        "the old memory is still the memory"
    );
    r.ok(&["migrate", "--apply"]);
    assert_eq!(r.json(&["status"])["counts"]["decisions"], decisions);
}

/// `zo migrate` moved a link (or a FIFO) that every command then refused, and reported
/// success; with two projects under `memory/` it migrated one and left the other behind
/// without a word. Both are refused before anything moves.
#[test]
fn migrate_moved_a_link_and_left_a_second_project_behind() {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/alpha"));
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes.md"), "outside\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("notes.md"),
        r.path().join("memory/alpha/notes.md"),
    )
    .unwrap();
    let e = r.fails(&["migrate", "--apply"], 1);
    assert!(
        e.contains("notes.md is a symbolic link") && e.contains("nothing was moved"),
        "{e}"
    );
    assert!(
        r.path().join("memory/alpha/DECISION_LOG.md").exists()
            && !r.path().join(".zo/memory").exists()
    );
    std::fs::remove_file(r.path().join("memory/alpha/notes.md")).unwrap();
    util::copy_dir(&util::fixture(), &r.path().join("memory/beta"));
    let e = r.fails(&["migrate"], 1);
    assert!(
        e.contains("more than one project") && e.contains("beta"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("notes.md")).unwrap(),
        "outside\n"
    );
}

/// A memory above the git repository a command ran in was used: in `up/inner` (a repository
/// of its own, a submodule) `zo init` said "already initialised" and `zo decide` wrote into
/// `up/.zo`. The walk stops at the repository's top.
#[test]
fn a_memory_above_the_repository_was_used() {
    let up = Repo::init();
    let inner = up.path().join("inner");
    std::fs::create_dir_all(inner.join("sub")).unwrap();
    util::git_in(&inner, &["init", "-q"]);
    let e = util::zo_in(&inner.join("sub"), &["status"]);
    assert_eq!(e.code, 3, "no memory of its own: {}", e.stdout);
    util::zo_ok(&inner.join("sub"), &["init", "--project", "inner"]);
    assert!(
        inner.join(".zo/memory/DECISION_LOG.md").exists(),
        "its own memory, at its top"
    );
    util::zo_ok(
        &inner.join("sub"),
        &["decide", "--title", "Inner only", "--decision", "d"],
    );
    assert!(!up.read(up.log_path()).contains("Inner only"));
}

/// `zo session end` wrote the session file, then failed on a STATE.md it could not write (a
/// link): the file stood alone, and a retry wrote the session twice. It is refused first.
#[test]
fn a_session_file_was_written_before_state_md_was_refused() {
    let r = Repo::init();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("STATE.md"), "# STATE\n").unwrap();
    std::fs::remove_file(r.path().join(".zo/memory/STATE.md")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("STATE.md"),
        r.path().join(".zo/memory/STATE.md"),
    )
    .unwrap();
    let out = r.run(&["session", "end", "--summary", "s"]);
    assert_ne!(out.code, 0);
    let sessions = std::fs::read_dir(r.path().join(".zo/memory/sessions"))
        .unwrap()
        .count();
    assert_eq!(sessions, 0, "no session file without its STATE update");
    let out = r.run(&["snapshot", "--phase", "p1", "--outcome", "passed"]);
    assert_ne!(out.code, 0);
    assert_eq!(
        std::fs::read_dir(r.path().join(".zo/memory/snapshots"))
            .unwrap()
            .count(),
        0
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("STATE.md")).unwrap(),
        "# STATE\n"
    );
}

/// Found by the attack run: `zo show ''` listed every decision as "matches several";
/// `zo log -n 0` said "no decisions match" (exit 0); `snapshot --phase .` wrote `._….md`, a
/// file no reader counts, and a 300-character phase failed on the file name. Each is a usage
/// error now (exit 2), and nothing is written.
#[test]
fn empty_ids_zero_limits_and_dot_phases_were_accepted() {
    let r = Repo::init();
    r.decide("Use Postgres for orders", "one database");
    assert!(r.fails(&["show", ""], 2).contains("show needs an ID"));
    assert!(
        r.fails(&["history", " "], 2)
            .contains("history needs an ID")
    );
    assert!(r.fails(&["log", "-n", "0"], 2).contains("at least 1"));
    for phase in [".", "..", ".hidden", &"p".repeat(300)] {
        r.fails(&["snapshot", "--phase", phase], 2);
    }
    assert_eq!(
        std::fs::read_dir(r.path().join(".zo/memory/snapshots"))
            .unwrap()
            .count(),
        0
    );
}
