//! Linked memories (issue 35): a project and a team memory, each a real git repository in a
//! temp dir; link, recall across them with sources named, the bundle, promotion through the
//! confidentiality gate, committed files that name paths (never followed), missing, moved,
//! lagging links, unlink.

mod util;
use serde_json::json;
use util::{Repo, Run, git_in};

/// A git repository with `zo init --project NAME` done.
fn repo(name: &str) -> Repo {
    let r = Repo::new();
    r.ok(&["init", "--project", name]);
    r
}

/// The team memory: two lessons, committed.
fn team() -> Repo {
    let t = repo("team");
    t.ok(&[
        "prior",
        "add",
        "--title",
        "macOS CI runners need a warm Homebrew cache",
        "--root-cause",
        "novel_case",
        "--failure",
        "builds timed out on macOS runners",
        "--rule",
        "cache Homebrew between CI runs",
    ]);
    t.ok(&[
        "prior",
        "add",
        "--title",
        "Quarterly tax reports need the fiscal calendar",
        "--root-cause",
        "missing_rule",
        "--failure",
        "a report used calendar quarters",
        "--rule",
        "read quarters from the fiscal calendar table",
    ]);
    t.commit_all("team lessons");
    t
}

/// The project (named falcon, remote git.acme.io:payments/falcon-api) with one decision.
fn project() -> Repo {
    let p = repo("falcon");
    p.git(&[
        "remote",
        "add",
        "origin",
        "git@git.acme.io:payments/falcon-api.git",
    ]);
    p.decide(
        "Run the test suite on macOS runners in CI",
        "GitHub Actions macos-14 for every pull request",
    );
    p.commit_all("init");
    p
}

fn link(p: &Repo, t: &Repo) {
    p.ok(&["link", t.path().to_str().unwrap(), "--name", "team"]);
}

/// Every byte of the team repository's tracked files and its commits, to assert that reading
/// it changed nothing zo may not change.
fn snapshot(t: &Repo) -> (String, String) {
    (
        t.git(&["status", "--porcelain"]),
        t.git(&["log", "--format=%H"]),
    )
}

#[test]
fn recall_spans_the_links_and_names_each_hits_memory() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let before = snapshot(&t);

    let v = p.json(&["recall", "macOS CI Homebrew cache", "-k", "5"]);
    let hits = v["results"].as_array().unwrap();
    let team_hit = hits
        .iter()
        .find(|h| h["memory"] == "team")
        .unwrap_or_else(|| panic!("no team hit: {v}"));
    assert_eq!(team_hit["id"], "PR-001");
    assert!(
        hits.iter()
            .any(|h| h.get("memory").is_none() && h["kind"] == "decision"),
        "the project's own decision: {v}"
    );
    let text = p.ok(&["recall", "macOS CI Homebrew cache", "-k", "5"]);
    assert!(text.contains("── team:PR-001 · prior"), "{text}");

    // Narrowed: the project alone, the team alone, a name nobody linked.
    let v = p.json(&["recall", "macOS CI Homebrew cache", "--memory", "project"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("memory").is_none()),
        "{v}"
    );
    let v = p.json(&["recall", "macOS CI Homebrew cache", "--memory", "team"]);
    let hits = v["results"].as_array().unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| h["memory"] == "team"),
        "{v}"
    );
    let e = p.fails(&["recall", "anything", "--memory", "ops"], 2);
    assert!(
        e.contains("no linked memory \"ops\"") && e.contains("linked: team"),
        "{e}"
    );

    // Reading the team memory wrote nothing there but its own derived, ignored files.
    assert_eq!(snapshot(&t), before);

    // The MCP server spans the links too, and says where each hit is from.
    let mut c = util::mcp::Client::start(p.path());
    c.initialize();
    let (v, text) = c.ok(
        "recall",
        json!({"query": "macOS CI Homebrew cache", "k": 5}),
    );
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["memory"] == "team" && h["id"] == "PR-001"),
        "{v}"
    );
    assert!(text.contains("team:PR-001"), "{text}");
    let (v, _) = c.ok("show", json!({"id": "team:PR-001"}));
    assert_eq!(v["memory"], "team");
    c.close();

    // Unlinked: gone from recall and from `zo links`; the team repository is as it was.
    p.ok(&["unlink", "team"]);
    let v = p.json(&["recall", "macOS CI Homebrew cache", "-k", "5"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("memory").is_none()),
        "{v}"
    );
    assert_eq!(p.json(&["links"])["links"], json!([]));
    assert_eq!(snapshot(&t), before);
    p.fails(&["unlink", "team"], 2);
}

#[test]
fn show_history_and_log_understand_name_id() {
    let (p, t) = (project(), team());
    let d = t.decide(
        "Use Renovate for dependency updates",
        "Renovate, weekly, grouped",
    );
    t.commit_all("decide");
    link(&p, &t);

    let shown = p.ok(&["show", "team:PR-001"]);
    assert!(
        shown.contains("(from the linked memory team)") && shown.contains("warm Homebrew cache"),
        "{shown}"
    );
    assert_eq!(p.json(&["show", &format!("team:{d}")])["memory"], "team");
    let h = p.json(&["history", &format!("team:{d}")]);
    assert_eq!(h["id"], d.as_str(), "{h}");
    let log = p.json(&["log", "--memory", "team"]);
    assert_eq!(log["decisions"][0]["id"], d.as_str());
    assert_ne!(p.json(&["log"])["decisions"][0]["id"], d.as_str());
    // An unknown prefix is the project's own (a fact key reads `category:entity`).
    p.fails(&["show", "nope:PR-001"], 1);
    // The linked memory's site, into a directory of the user's choosing (never into its repository).
    p.fails(&["site", "--memory", "team"], 2);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("team-site");
    p.ok(&["site", "--memory", "team", dir.to_str().unwrap()]);
    let page = std::fs::read_to_string(dir.join(format!("d/{d}.html"))).unwrap();
    assert!(
        page.contains("Use Renovate for dependency updates"),
        "{page}"
    );
    assert!(!t.path().join(".zo/site").exists());
}

#[test]
fn the_bundle_carries_the_linked_lessons_that_bear_on_the_project() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let md = p.ok(&["context"]);
    let section = md
        .split("## Lessons from linked memories")
        .nth(1)
        .unwrap_or_else(|| panic!("no linked section: {md}"));
    assert!(
        section.contains("team:PR-001 macOS CI runners need a warm Homebrew cache"),
        "{md}"
    );
    // The tax lesson shares no subject with this project.
    assert!(!md.contains("fiscal calendar"), "{md}");
    // Within the budget: too small a budget leaves it out and says so.
    let v = p.json(&["context", "--budget", "120"]);
    assert_eq!(v["left_out"]["linked_lessons"], 1, "{v}");
    assert!(
        !v["markdown"].as_str().unwrap().contains("team:PR-001"),
        "{v}"
    );
    assert!(
        v["footer"]
            .as_str()
            .unwrap()
            .contains("1 lesson from a linked memory"),
        "{v}"
    );
    // The agent's session-start hook carries it too.
    let out =
        p.run_stdin(&["hook", "claude"], &json!({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": p.path()}).to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("team:PR-001"), "{}", out.stdout);
}

#[test]
fn promote_refuses_project_specifics_naming_each_term_and_writes_nothing() {
    let (p, t) = (project(), team());
    link(&p, &t);
    p.write(
        ".zo/config.yaml",
        &format!("{}confidential: [Northwind]\n", p.read(".zo/config.yaml")),
    );
    std::fs::create_dir_all(p.path().join("src/billing")).unwrap();
    std::fs::write(p.path().join("src/billing/charge.rs"), "").unwrap();
    let cases: [(&str, &str); 5] = [
        (
            "Falcon deploys need a lock",
            "\"falcon\" (the project's name)",
        ),
        (
            "Deploys to git.acme.io need a lock",
            "\"git.acme.io\" (the remote's host)",
        ),
        (
            "The payments team deploys need a lock",
            "\"payments\" (the remote's owner)",
        ),
        (
            "Northwind deploys need a lock",
            "\"Northwind\" (a confidential term)",
        ),
        (
            "Deploys touching src/billing/charge.rs need a lock",
            "\"src/billing/charge.rs\" (a path in the project)",
        ),
    ];
    let (team_priors, project_log) = (t.read(".zo/memory/PRIORS.md"), p.read(p.log_path()));
    for (title, named) in cases {
        let id = p.ok(&[
            "prior",
            "add",
            "--title",
            title,
            "--root-cause",
            "novel_case",
            "--failure",
            "two deploys raced",
            "--rule",
            "take a lock",
        ]);
        let e = p.fails(&["promote", id.trim(), "--to", "team"], 1);
        assert!(
            e.contains("refused: the text names this project")
                && e.contains(named)
                && e.contains("in Title"),
            "{title}: {e}"
        );
    }
    // The project's path itself, in a rule.
    let root = p.path().canonicalize().unwrap();
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Deploys need a lock",
        "--root-cause",
        "novel_case",
        "--failure",
        "two deploys raced",
        "--rule",
        &format!("see {}/deploy.sh", root.display()),
    ]);
    let e = p.fails(&["promote", id.trim(), "--to", "team"], 1);
    assert!(e.contains("(the project's path) in Rules"), "{e}");
    assert_eq!(
        t.read(".zo/memory/PRIORS.md"),
        team_priors,
        "a refused promotion wrote to the team"
    );
    assert_eq!(
        p.read(p.log_path()),
        project_log,
        "a refused promotion recorded itself"
    );

    // A lesson in words of its own goes through, with provenance that names no project.
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Database migrations need an advisory lock",
        "--root-cause",
        "novel_case",
        "--failure",
        "two deploys ran the same migration",
        "--rule",
        "take a Postgres advisory lock before migrating",
    ]);
    let v = p.json(&["promote", id.trim(), "--to", "team"]);
    assert_eq!(v["promoted"], "team:PR-003", "{v}");
    let priors = t.read(".zo/memory/PRIORS.md");
    let entry = priors.split("## PR-003").nth(1).unwrap();
    assert!(
        entry.contains("Database migrations need an advisory lock")
            && entry.contains("promoted")
            && entry.contains("blake3:"),
        "{entry}"
    );
    for term in ["falcon", "acme", "payments", root.to_str().unwrap()] {
        assert!(!entry.to_lowercase().contains(term), "{term} in {entry}");
    }
    // The project records it; both memories verify; zo committed nothing in the team's.
    let log = p.read(p.log_path());
    assert!(
        log.contains("**Type:** PROMOTE") && log.contains("promoted to team:PR-003"),
        "{log}"
    );
    let h = p.json(&["history", id.trim()]);
    assert_eq!(h["promoted"][0]["to"], "team:PR-003", "{h}");
    assert!(p.ok(&["history", id.trim()]).contains("promoted"));
    p.ok(&["verify"]);
    t.ok(&["verify"]);
    assert_eq!(t.git(&["log", "--format=%H"]).lines().count(), 1);
    assert!(t.git(&["status", "--porcelain"]).contains("PRIORS.md"));
    // Facts stay home; an unknown link is a usage error.
    p.fails(&["promote", "stack:db", "--to", "team"], 2);
    p.fails(&["promote", id.trim(), "--to", "ops"], 2);
}

#[test]
fn a_committed_file_that_names_a_path_is_never_followed() {
    let (p, t) = (project(), team());
    let path = t.path().to_str().unwrap().to_string();
    // The repository names a team memory with a path, and commits a local.yaml that links it.
    p.write(
        ".zo/config.yaml",
        &format!("{}links:\n  team: {path}\n", p.read(".zo/config.yaml")),
    );
    p.write(".zo/local.yaml", &format!("links:\n  team: {path}\n"));
    p.git(&["add", "-f", ".zo/local.yaml", ".zo/config.yaml"]);
    p.git(&["commit", "-q", "-m", "hostile"]);

    let r = p.run(&["--json", "recall", "macOS CI Homebrew cache", "-k", "5"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.json()["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("memory").is_none()),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("local.yaml is tracked by git"),
        "{}",
        r.stderr
    );
    let md = p.ok(&["context"]);
    assert!(!md.contains("Homebrew"), "{md}");
    // `zo continue` says which memory the project expects, and follows nothing.
    let r = p.run(&["continue"]);
    assert!(
        r.stderr.contains("expects the linked memory team"),
        "{}",
        r.stderr
    );
    // A link cannot go into a tracked local.yaml; the user's own file takes it.
    let e = p.fails(&["link", &path, "--name", "team"], 2);
    assert!(e.contains("tracked by git"), "{e}");
    p.ok(&["link", &path, "--name", "team", "--user"]);
    assert!(p.user_dir().join("links.yaml").is_file());
    let v = p.json(&["recall", "macOS CI Homebrew cache", "-k", "5"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["memory"] == "team"),
        "{v}"
    );
}

#[test]
fn missing_moved_not_git_and_lagging_links_are_reported() {
    let (p, t) = (project(), team());
    // A clone of the team repository, linked; the team moves on and the clone fetches.
    let clone = t.path().parent().unwrap().join(format!(
        "{}-clone",
        t.path().file_name().unwrap().to_string_lossy()
    ));
    util::git_anywhere()
        .args([
            "clone",
            "-q",
            t.path().to_str().unwrap(),
            clone.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    p.ok(&["link", clone.to_str().unwrap(), "--name", "team"]);
    t.decide("Use Renovate for dependency updates", "Renovate, weekly");
    t.commit_all("more");
    git_in(&clone, &["fetch", "-q"]);
    let r = p.run(&["continue"]);
    assert!(
        r.stderr.contains("team is 1 commit behind its upstream"),
        "{}",
        r.stderr
    );
    let v = p.json(&["links"]);
    assert_eq!(v["links"][0]["behind"], 1, "{v}");
    assert_eq!(v["links"][0]["reachable"], true);

    // A memory that is no git repository.
    let plain = tempfile::tempdir().unwrap();
    util::zo_command(plain.path())
        .args(["init", "--project", "loose"])
        .output()
        .unwrap();
    p.ok(&["link", plain.path().to_str().unwrap(), "--name", "loose"]);
    assert!(
        p.run(&["links"])
            .stderr
            .contains("not the top of a git repository")
    );

    // Moved away: reported by name, and recall goes on without it.
    let moved = clone.with_extension("moved");
    std::fs::rename(&clone, &moved).unwrap();
    let v = p.json(&["links"]);
    let team = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "team")
        .unwrap()
        .clone();
    assert_eq!(team["reachable"], false);
    assert!(
        team["problem"]
            .as_str()
            .unwrap()
            .contains("does not exist (moved?"),
        "{team}"
    );
    let r = p.run(&["recall", "macOS CI Homebrew cache"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("linked memory team") && r.stderr.contains("not searched"),
        "{}",
        r.stderr
    );
    assert!(p.run(&["continue"]).stderr.contains("linked memory team"));
    let _ = std::fs::remove_dir_all(&moved);
}

#[test]
fn link_refuses_bad_names_and_paths() {
    let (p, t) = (project(), team());
    let path = t.path().to_str().unwrap();
    for bad in ["Team", "all", "project", "a b", "-x", ""] {
        p.fails(&["link", path, "--name", bad], 2);
    }
    let e = p.fails(&["link", p.path().to_str().unwrap(), "--name", "me"], 2);
    assert!(e.contains("is this project"), "{e}");
    let empty = tempfile::tempdir().unwrap();
    let e = p.fails(&["link", empty.path().to_str().unwrap(), "--name", "x"], 2);
    assert!(e.contains("holds no zo memory"), "{e}");
    p.fails(&["link", "/nonexistent/zo", "--name", "x"], 2);
    // A .zo that is a link is not a memory zo opens.
    let linky = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(t.path().join(".zo"), linky.path().join(".zo")).unwrap();
    p.fails(&["link", linky.path().to_str().unwrap(), "--name", "x"], 2);
    assert_eq!(p.json(&["links"])["links"], json!([]));
}

#[test]
fn promote_dropped_the_solution_and_the_alternatives() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Flush stdout before exec",
        "--root-cause",
        "novel_case",
        "--failure",
        "lost output",
        "--rule",
        "flush first",
        "--solution",
        "call fflush(NULL) before exec",
    ]);
    p.ok(&["promote", id.trim(), "--to", "team"]);
    assert!(
        t.read(".zo/memory/PRIORS.md")
            .contains("call fflush(NULL) before exec")
    );
    let d = p.ok(&[
        "decide",
        "--title",
        "Use a queue for webhooks",
        "--decision",
        "a queue",
        "--alternatives",
        "Kafka; RabbitMQ",
    ]);
    let to = p.ok(&["promote", d.trim(), "--to", "team"]);
    assert_eq!(
        p.json(&["history", d.trim()])["promoted"][0]["to"],
        to.trim()
    );
    let v = t.json(&["show", to.trim().trim_start_matches("team:")]);
    assert!(
        v["text"].as_str().unwrap().contains("Kafka; RabbitMQ"),
        "{v}"
    );
}

#[test]
fn a_promotion_the_project_could_not_record_wrote_the_copy_anyway() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Migrations need an advisory lock",
        "--root-cause",
        "novel_case",
        "--failure",
        "a race",
        "--rule",
        "lock first",
    ]);
    let (team_priors, project_log) = (t.read(".zo/memory/PRIORS.md"), p.read(p.log_path()));
    // The project's memory lock is held (another writer): the promotion writes nothing.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(p.path().join(".zo/memory/.lock"))
        .unwrap();
    lock.lock().unwrap();
    let r = Run::from(
        p.cmd(&["promote", id.trim(), "--to", "team"])
            .env("ZO_LOCK_TIMEOUT", "0")
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        t.read(".zo/memory/PRIORS.md"),
        team_priors,
        "the copy was written while the project could not record it"
    );
    assert_eq!(p.read(p.log_path()), project_log);
    drop(lock);
    // Once the lock is free it goes through.
    p.ok(&["promote", id.trim(), "--to", "team"]);
    assert!(p.read(p.log_path()).contains("**Type:** PROMOTE"));
}

#[test]
fn the_same_path_linked_under_two_names_came_back_twice() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let e = p.fails(&["link", t.path().to_str().unwrap(), "--name", "dup"], 2);
    assert!(e.contains("linked already, as team"), "{e}");
}

#[test]
fn a_link_named_like_a_fact_category_hid_the_facts_history() {
    let (p, t) = (project(), team());
    p.ok(&["fact", "set", "tool:ci", "GitHub Actions"]);
    p.ok(&["link", t.path().to_str().unwrap(), "--name", "tool"]);
    let h = p.json(&["history", "tool:ci"]);
    assert_eq!(h["key"], "tool:ci", "{h}");
    // A missing entry of the link is named as the link's.
    let e = p.fails(&["show", "tool:PR-999"], 1);
    assert!(e.contains("in the linked memory tool"), "{e}");
    // `log --memory` says whose decisions these are.
    assert_eq!(p.json(&["log", "--memory", "tool"])["memory"], "tool");
    // Unlinked locally while the user's file links the same name: said, not silent.
    p.ok(&[
        "link",
        t.path().to_str().unwrap(),
        "--name",
        "tool",
        "--user",
    ]);
    let r = p.run(&["unlink", "tool"]);
    assert!(r.stderr.contains("tool is still linked"), "{}", r.stderr);
    p.ok(&["unlink", "tool"]);
    let user = std::fs::read_to_string(p.user_dir().join("links.yaml")).unwrap();
    assert!(!user.contains("{}") && !user.contains("tool"), "{user}");
}

#[test]
fn a_broken_local_yaml_let_its_confidential_terms_through() {
    let (p, t) = (project(), team());
    p.ok(&[
        "link",
        t.path().to_str().unwrap(),
        "--name",
        "team",
        "--user",
    ]);
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Zephyr broke the builds",
        "--root-cause",
        "novel_case",
        "--failure",
        "f",
        "--rule",
        "r",
    ]);
    p.write(
        ".zo/local.yaml",
        &format!(
            "{}confidential: [Zephyr]\noops: [\n",
            p.read(".zo/local.yaml")
        ),
    );
    let before = t.read(".zo/memory/PRIORS.md");
    let e = p.fails(&["promote", id.trim(), "--to", "team"], 2);
    assert!(e.contains("local.yaml"), "{e}");
    assert_eq!(t.read(".zo/memory/PRIORS.md"), before);
    // A term of one character would refuse nearly anything: a usage error, not ignored.
    p.write(".zo/local.yaml", "confidential: [\"a\"]\n");
    p.fails(&["promote", id.trim(), "--to", "team"], 2);
}

#[test]
fn a_decisions_type_and_decorated_paths_skipped_the_gate() {
    let (p, t) = (project(), team());
    link(&p, &t);
    std::fs::create_dir_all(p.path().join("src/billing")).unwrap();
    std::fs::write(p.path().join("src/billing/charge.rs"), "").unwrap();
    p.commit_all("code");
    // A project's own type (`decision_types:`) that names the project.
    let config = p.path().join(".zo/config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\ndecision_types: [FALCON]\n")).unwrap();
    let d = p.ok(&[
        "decide",
        "--type",
        "FALCON",
        "--title",
        "Use a queue",
        "--decision",
        "a queue",
    ]);
    let e = p.fails(&["promote", d.trim(), "--to", "team"], 1);
    assert!(e.contains("in Type"), "{e}");
    for (n, text) in [
        "see src/billing/charge.rs:42",
        "billing/charge.rs#L10",
        "path=src/billing/charge.rs",
        "src/billing/*.rs",
        "src/billing/charge",
        "SRC/Billing/Charge.rs",
        "the falcon-api deploy",
    ]
    .into_iter()
    .enumerate()
    {
        let id = p.ok(&[
            "prior",
            "add",
            "--title",
            &format!("Lesson {n}"),
            "--root-cause",
            "novel_case",
            "--failure",
            "f",
            "--rule",
            text,
        ]);
        let e = p.fails(&["promote", id.trim(), "--to", "team"], 1);
        assert!(e.contains("in Rules"), "{text}: {e}");
    }
}

#[test]
fn decide_accepted_the_types_of_zos_own_annotations() {
    let p = project();
    for kind in ["CONFIRM", "forgotten", "PROMOTE", "OUTCOME"] {
        p.fails(
            &["decide", "--type", kind, "--title", "t", "--decision", "d"],
            1,
        );
    }
    p.ok(&["verify"]);
}

#[test]
fn an_unchanged_edit_rewrote_the_lesson() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let solution = "```sh\n# stop the workers first\nkill -TERM $pid\n```\nRule: not a rule";
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Stop workers before a migration",
        "--root-cause",
        "novel_case",
        "--failure",
        "f",
        "--rule",
        "stop them",
        "--solution",
        solution,
    ]);
    let r = util::at_terminal(
        p.cmd(&["promote", id.trim(), "--to", "team", "--edit"])
            .env("EDITOR", "true")
            .env_remove("VISUAL"),
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let priors = t.read(".zo/memory/PRIORS.md");
    assert!(
        priors.contains("# stop the workers first") && priors.contains("Rule: not a rule"),
        "{priors}"
    );
    assert!(!priors.contains("2. not a rule"), "{priors}");
}

#[test]
fn a_renumbered_copy_was_credited_to_another_lesson() {
    let (p, t) = (project(), team());
    link(&p, &t);
    let id = p.ok(&[
        "prior",
        "add",
        "--title",
        "Migrations need an advisory lock",
        "--root-cause",
        "novel_case",
        "--failure",
        "a race",
        "--rule",
        "lock first",
    ]);
    p.ok(&["promote", id.trim(), "--to", "team"]);
    // A merge in the team's memory renumbered the copy (another clone's lesson took PR-003).
    let priors = t
        .read(".zo/memory/PRIORS.md")
        .replace("## PR-003:", "## PR-007:");
    t.write(".zo/memory/PRIORS.md", &priors);
    let h = p.json(&["history", id.trim()]);
    assert_eq!(h["promoted"][0]["to"], "team:PR-003", "{h}");
    assert_eq!(h["promoted"][0]["now"], "team:PR-007", "{h}");
    assert!(p.ok(&["history", id.trim()]).contains("now team:PR-007"));
    // The history of a linked entry says whose it is.
    let h = p.json(&["history", "team:PR-007"]);
    assert_eq!(h["memory"], "team", "{h}");
    assert!(
        p.ok(&["history", "team:PR-007"])
            .starts_with("(from the linked memory team)")
    );
    // Its site goes anywhere but into the linked repository.
    let e = p.fails(
        &[
            "site",
            "--memory",
            "team",
            t.path().join("out").to_str().unwrap(),
        ],
        2,
    );
    assert!(e.contains("inside the linked repository"), "{e}");
    assert!(!t.path().join("out").exists());
}

/// A linked memory's provisional entry that would answer was never said (found by a
/// fresh-eyes attack): "not in memory" without the hint, where `--memory team` gave it; and a
/// question naming alternatives each memory holds one of ("Kafka or Flipper") came back
/// answered while naming "flipper" as held by no memory.
#[test]
fn a_linked_memorys_provisional_answer_went_unsaid() {
    util::require_model();
    let (p, t) = (project(), team());
    t.ok(&[
        "decide",
        "--title",
        "Ship metrics to Datadog",
        "--decision",
        "Datadog agents on every host",
        "--confidence",
        "0.5",
    ]);
    t.decide(
        "Stream events through Kafka",
        "one Kafka cluster for domain events",
    );
    t.commit_all("more");
    p.decide(
        "Gate features with Flipper",
        "Flipper flags per environment",
    );
    link(&p, &t);
    let v = p.json(&["recall", "Do we ship metrics to Datadog?"]);
    assert_eq!(v["answered"], false, "{v}");
    assert!(
        v["provisional_matches"].as_array().is_some_and(|m| m
            .iter()
            .any(|m| m["id"].as_str().is_some_and(|id| id.starts_with("team:D-")))),
        "{v}"
    );
    let text = p.run(&["recall", "Do we ship metrics to Datadog?"]);
    assert!(
        text.stderr.contains("1 provisional entry matches (team:D-"),
        "{}",
        text.stderr
    );
    let both = p.json(&["recall", "Do we use Kafka or Flipper for events?"]);
    assert_eq!(both["terms"]["names_missing"], json!([]), "{both}");
}

/// Every file under a repository's `.zo/` with its bytes (derived ones included).
fn zo_files(r: &Repo) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![r.path().join(".zo")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(r.path())
                    .unwrap()
                    .display()
                    .to_string();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Reading a linked memory wrote this user's fact text into the linked repository's
/// `index.db` (every memory's index holds the user's facts), and its summaries beside it: a
/// linked memory is read-only; what zo derives from it lives in this user's cache.
#[test]
fn reading_a_linked_memory_wrote_into_its_repository() {
    let (p, t) = (project(), team());
    link(&p, &t);
    p.ok(&[
        "fact",
        "set",
        "me:pager",
        "my personal pager number 555-0199",
        "--scope",
        "user",
    ]);
    let before = zo_files(&t);
    p.ok(&["recall", "macOS CI Homebrew cache", "-k", "5"]);
    p.ok(&["recall", "my personal pager", "--memory", "team"]);
    p.ok(&["context"]);
    p.ok(&["log", "--memory", "team"]);
    p.ok(&["show", "team:PR-001"]);
    p.ok(&["history", "team:PR-001"]);
    assert_eq!(zo_files(&t), before, "the linked repository changed");
    // Its derived files are in this user's cache.
    let linked = p.vector_dir().join("linked");
    assert!(
        std::fs::read_dir(&linked).is_ok_and(|mut d| d.next().is_some()),
        "{}",
        linked.display()
    );
}
