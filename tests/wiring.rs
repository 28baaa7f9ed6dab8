//! Agent and git wiring driven the way the agent and git drive it (issue 22): hook events as
//! JSON on stdin, git hooks run by real commits, a moved binary.

mod util;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use util::{Repo, Run, ZO, git_command, zo_anywhere, zo_command};

/// `zo hook claude` with `event` on stdin, run from `dir`, with extra environment.
fn hook(dir: &Path, event: &serde_json::Value, env: &[(&str, &str)], extra: &[&str]) -> Run {
    // The agent runs as the person working in the project (the event's cwd): their key signs
    // the session record, so a hook and a `decide` there are one user.
    let project = event
        .get("cwd")
        .and_then(|c| c.as_str())
        .map(std::path::PathBuf::from)
        .filter(|p| p.join(".git").is_dir())
        .unwrap_or_else(|| dir.to_path_buf());
    let mut c = util::user_command(util::ZO, &util::home_for(&project));
    c.args(["hook", "claude"]).args(extra).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    Run::from(child.wait_with_output().unwrap())
}

fn event(name: &str, cwd: &Path) -> serde_json::Value {
    serde_json::json!({"hook_event_name": name, "session_id": "s-1", "cwd": cwd, "transcript_path": "/dev/null"})
}

#[test]
fn hook_without_memory_is_silent_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "SessionStart",
        "SessionEnd",
        "PreCompact",
        "Stop",
        "UserPromptSubmit",
    ] {
        let r = hook(dir.path(), &event(name, dir.path()), &[], &[]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (0, "", ""),
            "{name}"
        );
    }
    let r = hook(
        dir.path(),
        &event("SessionStart", dir.path()),
        &[],
        &["--verbose"],
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("no zo memory"), "{}", r.stderr);
}

#[test]
fn hook_finds_the_project_from_the_event_cwd_then_the_agents_project_dir() {
    let r = Repo::init();
    r.decide("Use Postgres for orders", "one database");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = hook(elsewhere.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("Use Postgres for orders"),
        "{}",
        out.stdout
    );
    let mut ev = event("SessionStart", r.path());
    ev.as_object_mut().unwrap().remove("cwd");
    let out = hook(
        elsewhere.path(),
        &ev,
        &[("CLAUDE_PROJECT_DIR", r.path().to_str().unwrap())],
        &[],
    );
    assert!(
        out.stdout.contains("Use Postgres for orders"),
        "{}",
        out.stdout
    );
    // The event's cwd holds no memory (the agent `cd`'d out of the project): the project
    // directory the agent names is the project, so the bundle, the Stop reminder and the
    // PreCompact save are not lost (issue 34).
    let out = hook(
        elsewhere.path(),
        &event("SessionStart", elsewhere.path()),
        &[("CLAUDE_PROJECT_DIR", r.path().to_str().unwrap())],
        &[],
    );
    assert!(
        out.stdout.contains("Use Postgres for orders"),
        "{}",
        out.stderr
    );
    // A cwd that holds memory comes first.
    let other = Repo::init();
    other.decide("Use SQLite for the cache", "small");
    let out = hook(
        elsewhere.path(),
        &event("SessionStart", other.path()),
        &[("CLAUDE_PROJECT_DIR", r.path().to_str().unwrap())],
        &[],
    );
    assert!(
        out.stdout.contains("Use SQLite for the cache") && !out.stdout.contains("Use Postgres"),
        "{}",
        out.stdout
    );
    // Neither holds memory: silent, as everywhere without memory.
    let none = tempfile::tempdir().unwrap();
    let out = hook(
        elsewhere.path(),
        &event("SessionStart", elsewhere.path()),
        &[("CLAUDE_PROJECT_DIR", none.path().to_str().unwrap())],
        &[],
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
}

fn tracked(r: &Repo, file: &str, text: &str) {
    r.write(file, text);
    r.git(&["add", file]);
    r.git(&["commit", "-qm", "code"]);
}

#[test]
fn stop_asks_once_when_files_changed_and_nothing_was_recorded() {
    let r = Repo::init();
    tracked(&r, "src.txt", "one\n");
    r.commit_all("memory");
    let start = hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(start.code, 0, "{}", start.stderr);
    // Nothing changed yet: no question.
    let out = hook(r.path(), &event("Stop", r.path()), &[], &[]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    r.write("src.txt", "two\n");
    // Claude Code says it is already continuing because of a Stop hook: never block then.
    let mut active = event("Stop", r.path());
    active["stop_hook_active"] = true.into();
    assert_eq!(hook(r.path(), &active, &[], &[]).stdout, "");
    let out = hook(r.path(), &event("Stop", r.path()), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"].as_str().unwrap().contains("src.txt")
            && v["reason"].as_str().unwrap().contains("zo decide"),
        "{v}"
    );
    // Once per session.
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        ""
    );
}

#[test]
fn stop_is_quiet_when_the_session_recorded_something_or_found_the_work_in_progress() {
    let r = Repo::init();
    tracked(&r, "a.txt", "a\n");
    r.commit_all("memory");
    // Work in progress before the session started is not the session's.
    r.write("a.txt", "dirty before the session\n");
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        ""
    );
    // The session changes a file and records a decision: nothing to ask.
    tracked(&r, "b.txt", "b\n");
    r.decide("Keep b.txt", "because");
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        ""
    );
    // Off by config.
    let r2 = Repo::init();
    tracked(&r2, "c.txt", "c\n");
    let cfg = r2.read(".zo/config.yaml");
    r2.write(
        ".zo/config.yaml",
        &format!("{cfg}agents:\n  stop_reminder: false\n"),
    );
    r2.commit_all("memory");
    hook(r2.path(), &event("SessionStart", r2.path()), &[], &[]);
    r2.write("c.txt", "changed\n");
    assert_eq!(
        hook(r2.path(), &event("Stop", r2.path()), &[], &[]).stdout,
        ""
    );
}

/// Memory kept in a folder of a larger repository (`.zo/` moved into `app/`, which zo finds
/// from there as it finds any memory above the working directory): the session's baseline
/// named a tracked file by its path from the repository's top and looked for it under the
/// memory's folder, so a file already changed when the session started read as deleted at both
/// ends and its later changes were never the session's.
#[test]
fn a_file_changed_before_the_session_and_again_in_it_was_missed_when_memory_lives_in_a_subfolder() {
    let r = Repo::new();
    r.write("app/main.rs", "fn main() {}\n");
    r.write("top.txt", "top\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-qm", "code"]);
    let app = r.path().join("app");
    util::zo_ok(r.path(), &["init", "--project", "app"]);
    std::fs::rename(r.path().join(".zo"), app.join(".zo")).unwrap();
    r.git(&["add", "-A"]);
    r.git(&["commit", "-qm", "memory"]);
    // Work in progress before the session (in the memory's folder and outside it), and an
    // untracked scratch file.
    r.write("app/main.rs", "fn main() { wip() }\n");
    r.write("top.txt", "changed outside the memory's folder\n");
    r.write("app/scratch.txt", "notes\n");
    let start = hook(&app, &event("SessionStart", &app), &[], &[]);
    assert_eq!(start.code, 0, "{}", start.stderr);
    assert_eq!(
        hook(&app, &event("Stop", &app), &[], &[]).stdout,
        "",
        "nothing changed since the start"
    );
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(app.join(".zo/memory/.session")).unwrap())
            .unwrap();
    assert!(
        rec["dirty"]["main.rs"]
            .as_str()
            .is_some_and(|h| h.len() == 40),
        "named from the memory's folder, hashed: {rec}"
    );
    assert!(rec["untracked"].get("scratch.txt").is_some(), "{rec}");
    // The session changes the file that was already dirty.
    r.write("app/main.rs", "fn main() { done() }\n");
    let out = hook(&app, &event("Stop", &app), &[], &[]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", out.stdout, out.stderr));
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("main.rs")
            && !reason.contains("top.txt")
            && !reason.contains("scratch.txt"),
        "{reason}"
    );
}

#[test]
fn a_session_that_only_created_untracked_files_was_never_reminded() {
    let r = Repo::init();
    tracked(&r, "a.txt", "a\n");
    r.write(".gitignore", "build/\n");
    r.git(&["add", ".gitignore"]);
    r.commit_all("memory");
    // Untracked before the session (not the session's), and ignored output (never counted).
    r.write("notes.txt", "scratch\n");
    r.write("build/out.o", "binary\n");
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    r.write("build/more.o", "binary\n");
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        "",
        "ignored files are no change"
    );
    // The session only creates a new file, in a new folder (named as git status names it).
    r.write("src/new_module.rs", "pub fn f() {}\n");
    let out = hook(r.path(), &event("Stop", r.path()), &[], &[]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", out.stdout, out.stderr));
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("changed 1 folder (\"src/\")"), "{reason}");
    assert!(
        !reason.contains("notes.txt") && !reason.contains("build/"),
        "{reason}"
    );

    // An untracked file the session found and then changed is the session's too, and so is
    // one it deleted. A folder of untracked files is one entry in the record, not walked.
    let r = Repo::init();
    r.commit_all("memory");
    r.write("draft.md", "first\n");
    r.write("old-notes.md", "to be deleted\n");
    for i in 0..50 {
        r.write(&format!("vendor/pkg{i}/index.js"), "x\n");
    }
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    let rec: serde_json::Value = serde_json::from_str(&r.read(".zo/memory/.session")).unwrap();
    let untracked: Vec<&String> = rec["untracked"].as_object().unwrap().keys().collect();
    assert_eq!(untracked, ["draft.md", "old-notes.md", "vendor/"], "{rec}");
    r.write("draft.md", "first, then much more\n");
    std::fs::remove_file(r.path().join("old-notes.md")).unwrap();
    let out = hook(r.path(), &event("Stop", r.path()), &[], &[]);
    assert!(
        out.stdout
            .contains(r#"2 files (\"draft.md\", \"old-notes.md\")"#),
        "{} {}",
        out.stdout,
        out.stderr
    );

    // More untracked entries than a record keeps (a build folder nobody ignored, files in a
    // tracked folder): none are recorded, and untracked files are not counted this session.
    let r = Repo::init();
    r.write("out/.keep", "");
    r.git(&["add", "out/.keep"]);
    r.commit_all("memory");
    for i in 0..5_001 {
        std::fs::write(r.path().join(format!("out/{i}.o")), "").unwrap();
    }
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    let rec: serde_json::Value = serde_json::from_str(&r.read(".zo/memory/.session")).unwrap();
    assert!(
        rec["untracked"].is_null() && r.read(".zo/memory/.session").len() < 4096,
        "{rec}"
    );
    r.write("new.txt", "x\n");
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        ""
    );

    // A record from an older zo has no untracked list: nothing untracked counts as new.
    let r = Repo::init();
    r.commit_all("memory");
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    let rec_path = ".zo/memory/.session";
    let mut rec: serde_json::Value = serde_json::from_str(&r.read(rec_path)).unwrap();
    rec.as_object_mut().unwrap().remove("untracked");
    r.write(rec_path, &rec.to_string());
    r.write("new.txt", "x\n");
    assert_eq!(
        hook(r.path(), &event("Stop", r.path()), &[], &[]).stdout,
        ""
    );
}

#[test]
fn pre_compact_progress_opens_the_context_after_the_compaction() {
    let r = Repo::init();
    tracked(&r, "app.rs", "fn main() {}\n");
    r.commit_all("memory");
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    let id = r.decide("Split the parser", "two passes");
    r.write("app.rs", "fn main() { parse() }\n");
    let out = hook(r.path(), &event("PreCompact", r.path()), &[], &[]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    let mut ev = event("SessionStart", r.path());
    ev["source"] = "compact".into();
    let out = hook(r.path(), &ev, &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let at = out
        .stdout
        .find("## This session so far")
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let section = &out.stdout[at..];
    assert!(
        section.contains(id.trim()) && section.contains("app.rs"),
        "{section}"
    );
    // It comes before the recent decisions.
    assert!(
        out.stdout
            .find("## Recent decisions")
            .is_none_or(|d| d > at)
    );
}

#[test]
fn session_start_bundle_fits_claude_codes_hook_limit() {
    let r = Repo::init();
    let mut log = r.read(r.log_path());
    for i in 0..120 {
        log.push_str(&util::canonical_entry(
            i,
            &format!("Decision number {i}"),
            &"a long rationale that goes on ".repeat(30),
        ));
    }
    r.write(r.log_path(), &log);
    r.ok(&["fact", "set", "stack:db", "Postgres"]);
    let out = hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.chars().count() <= 9000,
        "{} characters",
        out.stdout.chars().count()
    );
    assert!(
        out.stdout.contains("stack:db = Postgres"),
        "facts always come first"
    );
    assert!(out.stdout.contains("Left out"), "{}", out.stdout);
    // The plain command keeps its token budget.
    assert!(r.ok(&["context"]).chars().count() > 9000);
}

#[test]
fn facts_stay_in_the_bundle_at_a_small_budget() {
    let r = Repo::init();
    r.ok(&["fact", "set", "stack:web-framework", "Hono"]);
    r.ok(&["fact", "set", "pref:indent", "tabs"]);
    let out = r.ok(&["context", "--budget", "60"]);
    assert!(
        out.contains("stack:web-framework = Hono") && out.contains("pref:indent = tabs"),
        "{out}"
    );
}

#[test]
fn git_hooks_survive_the_binary_moving_and_never_block_when_zo_is_gone() {
    let r = Repo::init();
    r.commit_all("memory");
    let bin = tempfile::tempdir().unwrap();
    let zo = bin.path().join("zo");
    util::copy_executable(Path::new(ZO), &zo);
    let path = "/usr/bin:/bin";
    let run = |args: &[&str], exe: &Path| {
        Run::from(
            util::user_command(&exe.to_string_lossy(), &r.home())
                .args(args)
                .current_dir(r.path())
                .env("PATH", path)
                .output()
                .unwrap(),
        )
    };
    let installed = run(&["hooks", "install"], &zo);
    assert_eq!(installed.code, 0, "{}", installed.stderr);
    // zo moves: the hooks find the one on PATH.
    let moved = tempfile::tempdir().unwrap();
    std::fs::rename(&zo, moved.path().join("zo")).unwrap();
    let with_path = format!("{}:/usr/bin:/bin", moved.path().display());
    r.write("x.txt", "x\n");
    let c = git_command(r.path())
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qam",
            "x",
            "--allow-empty",
        ])
        .env("PATH", &with_path)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(!String::from_utf8_lossy(&c.stderr).contains("not on PATH"));
    // Edits to an entry are still refused through the zo found on PATH.
    let id = r.decide("Keep it", "yes");
    r.commit_all("decided");
    let log = r
        .read(r.log_path())
        .replace("**Decision:** yes", "**Decision:** no");
    r.write(r.log_path(), &log);
    r.git(&["add", "-A"]);
    let c = git_command(r.path())
        .args(["commit", "-qm", "edit"])
        .env("PATH", &with_path)
        .output()
        .unwrap();
    assert!(!c.status.success(), "the edit of {id} must be refused");
    r.git(&["checkout", "HEAD", "--", "."]);
    // zo is gone entirely: commits go through, with a warning, and status/doctor say so.
    r.write("y.txt", "y\n");
    r.git(&["add", "y.txt"]);
    let c = git_command(r.path())
        .args(["commit", "-qm", "y"])
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "a missing zo blocked a commit: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    assert!(
        String::from_utf8_lossy(&c.stderr).contains("zo is not on PATH"),
        "{}",
        String::from_utf8_lossy(&c.stderr)
    );
    let status = run(&["--json", "hooks", "status"], Path::new(ZO));
    let hooks = status.json()["hooks"].as_array().unwrap().clone();
    assert!(
        hooks
            .iter()
            .all(|h| h["installed"] == true && h["zo"].is_null()),
        "{hooks:?}"
    );
    let text = run(&["hooks", "status"], Path::new(ZO));
    assert!(text.stdout.contains("zo not found"), "{}", text.stdout);
    // It used to exit 0, so a script checking the hooks saw nothing wrong: now 1 for both, with
    // the table still printed and stderr naming the hooks.
    assert_eq!((status.code, text.code), (1, 1), "{}", text.stderr);
    assert!(
        text.stderr.contains("post-merge")
            && text
                .stderr
                .contains("cannot find zo (fix: zo hooks install)"),
        "{}",
        text.stderr
    );
    let doctor = run(&["--json", "doctor"], Path::new(ZO));
    let checks = doctor.json()["checks"].as_array().unwrap().clone();
    assert!(
        checks
            .iter()
            .any(|c| c["check"] == "git hooks" && c["level"] == "fail"),
        "{checks:?}"
    );
}

#[test]
fn man_pages_exist_for_every_command_the_main_page_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = zo_anywhere()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every page, at every depth, names only pages that were written (`man zo-prior-add`
    // found none: only the top-level commands had pages).
    let mut pages = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap().replace("\\-", "-");
        let named: Vec<String> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("zo-") && w.len() > 3)
            .map(str::to_string)
            .collect();
        if path.ends_with("zo.1") {
            assert!(named.len() > 10, "zo.1 names its commands: {named:?}");
        }
        for page in named {
            assert!(
                dir.path().join(format!("{page}.1")).is_file(),
                "{} names {page}(1) but it was not written",
                path.display()
            );
        }
        pages += 1;
    }
    assert!(
        dir.path().join("zo-prior-add.1").is_file() && dir.path().join("zo-fact-set.1").is_file(),
        "{pages} pages"
    );
    assert!(
        !dir.path().join("zo-cache-help.1").exists() && pages < 100,
        "clap's nested help commands are no pages: {pages}"
    );
    // A missing directory is made, as `mkdir -p` would; a file in the way is a usage error.
    let fresh = dir.path().join("new/man1");
    assert!(
        zo_anywhere()
            .args(["man", "--dir"])
            .arg(&fresh)
            .output()
            .unwrap()
            .status
            .success()
    );
    assert!(fresh.join("zo.1").is_file());
    let r = Run::from(
        zo_anywhere()
            .args(["man", "--dir"])
            .arg(dir.path().join("zo.1"))
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn doctor_outside_a_repository_checks_the_machine() {
    let dir = tempfile::tempdir().unwrap();
    let r = Run::from(
        zo_command(dir.path())
            .args(["--json", "doctor"])
            .env_remove("ZO_REPO")
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let checks: Vec<String> = r.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap().to_string())
        .collect();
    for want in ["layout", "git", "zo on PATH", "model"] {
        assert!(
            checks.iter().any(|c| c == want),
            "{want} not checked: {checks:?}"
        );
    }
}

#[test]
fn setup_asks_for_the_model_only_when_it_is_missing() {
    let home = tempfile::tempdir().unwrap();
    let run = |cache: &Path| {
        Run::from(
            zo_command(home.path())
                .arg("setup")
                .env("HOME", home.path())
                .env("XDG_CONFIG_HOME", home.path().join(".config"))
                .env("ZO_CACHE", cache)
                .env_remove("ZO_MODEL_DIR")
                .env_remove("ORT_DYLIB_PATH")
                .output()
                .unwrap(),
        )
    };
    let r = run(&home.path().join("no-cache"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("zo model install"), "{}", r.stdout);
    util::require_model();
    let real = std::env::var_os("ZO_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").unwrap()).join(".cache"))
                .join("zo")
        });
    let r = run(&real);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains("zo model install"),
        "the model is installed, yet: {}",
        r.stdout
    );
}

/// A session ended without `session start` (a crashed agent, a fresh clone) guessed its
/// baseline from the last session file and claimed every entry after it, even ones pulled from
/// another clone or committed before. Committed entries are never the session's now.
#[test]
fn a_session_ended_without_start_claimed_entries_pulled_from_another_clone() {
    let r = Repo::init();
    let theirs = r.decide("Written on another clone", "and pulled here");
    r.commit_all("pulled");
    let mine = r.decide("Written in this session", "not committed yet");
    let ended = r.json(&["session", "end", "--summary", "crashed agent's session"]);
    let ids: Vec<&str> = ended["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [mine.trim()],
        "claimed {ids:?}; {} was committed before",
        theirs.trim()
    );
}

/// Codex took Claude Code's hook format: `init --agent codex` wires SessionStart, PreCompact,
/// Stop and SessionEnd in `.codex/hooks.json`, and `zo hook codex` answers SessionStart in the
/// JSON Codex reads (`hookSpecificOutput.additionalContext`), Stop in the same protocol.
#[test]
fn codex_hooks_are_wired_and_answer_in_codexs_json() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    r.decide("Use Postgres for orders", "one database");
    r.commit_all("memory");
    r.ok(&["init", "--agent", "codex"]);
    let hooks: serde_json::Value = serde_json::from_str(&r.read(".codex/hooks.json")).unwrap();
    for event in ["SessionStart", "PreCompact", "Stop", "SessionEnd"] {
        assert!(
            hooks["hooks"][event].to_string().contains("zo")
                && hooks["hooks"][event].to_string().contains("hook codex"),
            "{event}: {hooks}"
        );
    }
    let run = |name: &str| {
        let mut c = zo_command(r.path());
        c.args(["hook", "codex"]);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event(name, r.path()).to_string().as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    };
    let start = run("SessionStart");
    assert_eq!(start.code, 0, "{}", start.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&start.stdout).unwrap_or_else(|e| panic!("{e}: {}", start.stdout));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Use Postgres for orders"),
        "{v}"
    );
    assert_eq!(
        v.as_object().unwrap().len(),
        1,
        "Codex refuses extra fields: {v}"
    );
    r.write("lib.rs", "fn b() {}\n");
    let stop = run("Stop");
    let v: serde_json::Value =
        serde_json::from_str(&stop.stdout).unwrap_or_else(|e| panic!("{e}: {}", stop.stdout));
    assert_eq!(v["decision"], "block");
    let removed = r.json(&["init", "--agent", "codex", "--remove"]);
    assert!(
        removed["removed"].to_string().contains(".codex/hooks.json"),
        "{removed}"
    );
    assert!(
        !r.path().join(".codex").exists(),
        ".codex/ emptied and removed"
    );
}

/// A session started, then a pull brought another clone's decision in: the session's file
/// listed it as its own (the baseline was a count of entries). It lists what it wrote.
#[test]
fn a_session_listed_a_decision_pulled_during_it_as_its_own() {
    let w = util::World::new();
    let a = w.clone("a");
    util::zo_ok(&a, &["init", "--project", "p"]);
    util::commit_in(&a, "memory");
    util::git_in(&a, &["push", "-q", "origin", "HEAD:main"]);
    let b = w.clone("b");
    util::zo_ok(&a, &["session", "start", "--agent", "t"]);
    let mine = util::zo_ok(
        &a,
        &[
            "decide",
            "--title",
            "Mine",
            "--decision",
            "written in the session",
        ],
    );
    let theirs = util::zo_ok(
        &b,
        &[
            "decide",
            "--title",
            "Theirs",
            "--decision",
            "from the other clone",
        ],
    );
    util::commit_in(&b, "theirs");
    util::git_in(&b, &["push", "-q", "origin", "HEAD:main"]);
    util::commit_in(&a, "mine");
    util::git_in(&a, &["pull", "-q", "--no-rebase", "origin", "main"]);
    let ended = util::zo_ok(&a, &["--json", "session", "end", "--summary", "s"]);
    let v: serde_json::Value = serde_json::from_str(&ended).unwrap();
    let ids: Vec<&str> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [mine.trim()],
        "{} came from the other clone",
        theirs.trim()
    );
}

/// Cursor's hooks have their own names and fields: `init --agent cursor` wires beforeSubmitPrompt
/// and stop in `.cursor/hooks.json` (Cursor's flat format, `version: 1`), the first prompt of a
/// conversation opens its session, and stop sends the reminder once as `followup_message` —
/// never after an aborted loop or a loop that was itself a follow-up. A second conversation ends
/// the first one's session. `--remove` leaves the user's own hooks and nothing of zo's.
#[test]
fn cursor_hooks_open_the_session_and_follow_up_once() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    r.commit_all("memory");
    // A hook of the user's own is kept.
    r.write(
        ".cursor/hooks.json",
        r#"{"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}"#,
    );
    r.ok(&["init", "--agent", "cursor"]);
    r.ok(&["init", "--agent", "cursor"]);
    let hooks: serde_json::Value = serde_json::from_str(&r.read(".cursor/hooks.json")).unwrap();
    assert_eq!(hooks["version"], 1, "{hooks}");
    assert_eq!(
        hooks["hooks"]["afterFileEdit"][0]["command"], "./format.sh",
        "{hooks}"
    );
    for ev in ["beforeSubmitPrompt", "stop"] {
        let list = hooks["hooks"][ev]
            .as_array()
            .unwrap_or_else(|| panic!("{ev}: {hooks}"));
        assert_eq!(
            list.len(),
            1,
            "wired once, however often init runs: {hooks}"
        );
        assert_eq!(list[0]["command"], "zo -q hook cursor");
    }
    // Cursor's own payloads: no cwd, the project in workspace_roots; run from elsewhere.
    let elsewhere = tempfile::tempdir().unwrap();
    let cursor = |payload: serde_json::Value| {
        let mut c = util::user_command(util::ZO, &r.home());
        c.args(["-q", "hook", "cursor"])
            .current_dir(elsewhere.path());
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        let out = Run::from(child.wait_with_output().unwrap());
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    };
    // A multi-root workspace whose first root has no memory: the root that has it is used.
    let roots = serde_json::json!([elsewhere.path(), r.path()]);
    let prompt = |conv: &str| serde_json::json!({"hook_event_name": "beforeSubmitPrompt", "conversation_id": conv, "generation_id": "g", "workspace_roots": roots, "prompt": "fix it"});
    let stop = |conv: &str, status: &str, loops: u64| serde_json::json!({"hook_event_name": "stop", "conversation_id": conv, "generation_id": "g", "workspace_roots": roots, "status": status, "loop_count": loops});
    let p = cursor(prompt("c-1"));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&p.stdout).unwrap(),
        serde_json::json!({"continue": true})
    );
    assert!(
        r.path().join(".zo/memory/.session").exists(),
        "the first prompt opened the session"
    );
    // Nothing changed yet: no reminder.
    assert_eq!(cursor(stop("c-1", "completed", 0)).stdout, "");
    r.write("lib.rs", "fn b() {}\n");
    assert_eq!(
        cursor(stop("c-1", "aborted", 0)).stdout,
        "",
        "an aborted loop is not asked"
    );
    assert_eq!(
        cursor(stop("c-1", "completed", 1)).stdout,
        "",
        "a follow-up's own loop is not asked again"
    );
    let asked = cursor(stop("c-1", "completed", 0));
    let v: serde_json::Value =
        serde_json::from_str(&asked.stdout).unwrap_or_else(|e| panic!("{e}: {}", asked.stdout));
    assert!(
        v["followup_message"].as_str().unwrap().contains("lib.rs"),
        "{v}"
    );
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    assert_eq!(
        cursor(stop("c-1", "completed", 0)).stdout,
        "",
        "asked once per session"
    );
    // Later prompts of the same conversation keep its session; a new conversation ends it.
    cursor(prompt("c-1"));
    r.decide("Use Postgres for orders", "one database");
    cursor(prompt("c-2"));
    let sessions: Vec<String> = std::fs::read_dir(r.path().join(".zo/memory/sessions"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        sessions
            .iter()
            .any(|s| s.contains("cursor") && s.contains("Use Postgres for orders")),
        "{sessions:?}"
    );
    // Taken out again: the user's hook stays, zo's go, and so does nothing else.
    let removed = r.json(&["init", "--agent", "cursor", "--remove"]);
    assert!(
        removed["removed"]
            .to_string()
            .contains(".cursor/hooks.json"),
        "{removed}"
    );
    let hooks: serde_json::Value = serde_json::from_str(&r.read(".cursor/hooks.json")).unwrap();
    assert_eq!(
        hooks,
        serde_json::json!({"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}})
    );
}

/// `zo hook` with raw bytes on stdin (not necessarily JSON), run from `dir`.
fn hook_raw(dir: &Path, agent: &str, input: &[u8]) -> Run {
    let mut c = zo_command(dir);
    c.args(["hook", agent]);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    Run::from(child.wait_with_output().unwrap())
}

/// Exit 2 from a hook is "block" to Claude Code and Codex: a bad config value committed by
/// anyone made every Stop exit 2, so the agent could not stop and was fed the error. A hook's
/// error is exit 1 now (shown to the person, the agent goes on); an event that is not JSON, or
/// has null or mistyped fields, is silent where there is no memory and never exit 2 anywhere.
#[test]
fn a_hook_error_exited_2_and_kept_the_agent_from_stopping() {
    let empty = tempfile::tempdir().unwrap();
    for input in [&b"{bad"[..], b"null", b"[1]", br#"{"hook_event_name":"Stop","stop_hook_active":null,"workspace_roots":null,"loop_count":1.0}"#] {
        for agent in ["claude", "codex", "cursor"] {
            let r = hook_raw(empty.path(), agent, input);
            assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""), "{agent} {:?}", String::from_utf8_lossy(input));
        }
    }
    let r = Repo::init();
    tracked(&r, "src.txt", "one\n");
    r.commit_all("memory");
    // Mistyped fields are their defaults: the hook works.
    let ok = hook_raw(r.path(), "claude", br#"{"hook_event_name":"SessionStart","source":null,"session_id":7,"stop_hook_active":"yes"}"#);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    // Broken JSON where there is memory: a failure, exit 1, named.
    let bad = hook_raw(r.path(), "claude", b"{bad");
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("<stdin>:1") && bad.stderr.contains("goes on"),
        "{}",
        bad.stderr
    );
    // A committed config value zo refuses: every hook exits 1, never 2, and prints nothing on stdout.
    let cfg = r.read(".zo/config.yaml");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}\nagents:\n  stop_reminder: \"no\"\n"),
    );
    r.write("src.txt", "two\n");
    for name in ["SessionStart", "Stop", "PreCompact", "SessionEnd"] {
        let out = hook(r.path(), &event(name, r.path()), &[], &[]);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (1, ""),
            "{name}: {}",
            out.stderr
        );
        assert!(out.stderr.contains("config.yaml"), "{name}: {}", out.stderr);
    }
}

/// A broken settings file made `init --agent` fail after it had written CLAUDE.md's block (and
/// `--remove` after it had deleted another file), while saying "nothing was changed". Every
/// file is checked before any is written.
#[test]
fn init_agent_with_a_broken_file_wrote_other_files_before_failing() {
    let r = Repo::init();
    r.commit_all("memory");
    r.write(".claude/settings.json", "{ broken");
    let out = util::Run::from(r.cmd(&["init", "--agent", "claude"]).output().unwrap());
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(".claude/settings.json:1")
            && out.stderr.contains("nothing was changed"),
        "{}",
        out.stderr
    );
    assert!(
        !r.path().join("CLAUDE.md").exists() && !r.path().join(".mcp.json").exists(),
        "written before the failure"
    );
    // --remove: the good file stays when another is broken.
    std::fs::remove_file(r.path().join(".claude/settings.json")).unwrap();
    r.ok(&["init", "--agent", "cursor"]);
    let mcp = r.read(".cursor/mcp.json");
    r.write(".cursor/hooks.json", "{\"version\": 1, \"hooks\": []}");
    let out = util::Run::from(
        r.cmd(&["init", "--agent", "cursor", "--remove"])
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("hooks") && out.stderr.contains("nothing was changed"),
        "{}",
        out.stderr
    );
    assert_eq!(r.read(".cursor/mcp.json"), mcp);
    assert!(r.read("AGENTS.md").contains("zo:begin"));
}

/// `.codex/config.toml` was edited as text: broken TOML got a stanza appended, a server already
/// written as `zo = {…}` got a second (invalid) table, and `--remove` left `[mcp_servers.zo.env]`
/// behind. It is parsed and edited as TOML now, the user's formatting and comments kept.
#[test]
fn codex_config_was_edited_as_text_and_could_be_left_invalid() {
    let r = Repo::init();
    r.commit_all("memory");
    r.write(".codex/config.toml", "[broken\n");
    let out = util::Run::from(r.cmd(&["init", "--agent", "codex"]).output().unwrap());
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("config.toml:1") && out.stderr.contains("not valid TOML"),
        "{}",
        out.stderr
    );
    assert_eq!(r.read(".codex/config.toml"), "[broken\n");
    assert!(!r.path().join("AGENTS.md").exists());
    let inline = "# my servers\nmcp_servers.zo = { command = \"zo\", args = [\"mcp\"] }\n";
    r.write(".codex/config.toml", inline);
    r.ok(&["init", "--agent", "codex"]);
    assert_eq!(
        r.read(".codex/config.toml"),
        inline,
        "already there, in another form"
    );
    r.write(".codex/config.toml", "# mine\nmodel = \"o3\"\n\n[mcp_servers.zo]\ncommand = \"zo\"\nargs = [\"mcp\"]\n\n[mcp_servers.zo.env]\nA = \"1\"\n");
    r.ok(&["init", "--agent", "codex", "--remove"]);
    assert_eq!(r.read(".codex/config.toml"), "# mine\nmodel = \"o3\"\n");
}

/// The hooks ignored the agent's session ID: a crashed session's record was overwritten by the
/// next startup (its decisions in no session file), and a SessionEnd of another session (or
/// another agent in the same project) ended the open one.
#[test]
fn a_crashed_sessions_record_was_overwritten_and_another_sessions_end_closed_it() {
    let r = Repo::init();
    r.commit_all("memory");
    let with_id = |name: &str, id: &str| {
        let mut e = event(name, r.path());
        e["session_id"] = id.into();
        e["source"] = "startup".into();
        e
    };
    hook(r.path(), &with_id("SessionStart", "s-1"), &[], &[]);
    let id = r.decide("Written by the session that crashed", "before its end");
    // s-1 never ends; s-2 starts: s-1's session file is written first.
    hook(r.path(), &with_id("SessionStart", "s-2"), &[], &[]);
    let sessions = || -> Vec<String> {
        std::fs::read_dir(r.path().join(".zo/memory/sessions")).map_or(vec![], |d| {
            d.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                .collect()
        })
    };
    assert!(
        sessions().iter().any(|s| s.contains(id.trim())),
        "{:?}",
        sessions()
    );
    // A SessionEnd from another session leaves s-2's record open.
    let out = hook(r.path(), &with_id("SessionEnd", "s-9"), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        r.path().join(".zo/memory/.session").exists(),
        "another session's end closed this one"
    );
    let mine = r.decide("Written by s-2", "kept");
    hook(r.path(), &with_id("SessionEnd", "s-2"), &[], &[]);
    assert!(!r.path().join(".zo/memory/.session").exists());
    assert_eq!(
        sessions()
            .iter()
            .filter(|s| s.contains(mine.trim()))
            .count(),
        1
    );
}

/// Concurrent Stop hooks each found the reminder not yet asked (16 at once gave 5 reminders),
/// and concurrent SessionEnds wrote a session file each. Claimed under the memory lock now.
#[test]
fn concurrent_stops_asked_several_times_and_concurrent_ends_wrote_several_files() {
    let r = Repo::init();
    tracked(&r, "src.txt", "one\n");
    r.commit_all("memory");
    hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    r.write("src.txt", "two\n");
    let run_all = |name: &str, n: usize| -> Vec<Run> {
        let children: Vec<_> = (0..n)
            .map(|_| {
                let mut c = zo_command(r.path());
                c.args(["-q", "hook", "claude"]);
                let mut child = c
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(event(name, r.path()).to_string().as_bytes())
                    .unwrap();
                child
            })
            .collect();
        children
            .into_iter()
            .map(|c| Run::from(c.wait_with_output().unwrap()))
            .collect()
    };
    let stops = run_all("Stop", 12);
    assert!(
        stops.iter().all(|s| s.code == 0),
        "{:?}",
        stops.iter().map(|s| &s.stderr).collect::<Vec<_>>()
    );
    assert_eq!(
        stops
            .iter()
            .filter(|s| s.stdout.contains("\"block\""))
            .count(),
        1
    );
    r.decide("Recorded after the reminder", "once");
    let ends = run_all("SessionEnd", 6);
    assert!(
        ends.iter().all(|s| s.code == 0),
        "{:?}",
        ends.iter().map(|s| &s.stderr).collect::<Vec<_>>()
    );
    let files = std::fs::read_dir(r.path().join(".zo/memory/sessions"))
        .unwrap()
        .count();
    assert_eq!(files, 1, "one session, one file");
}

/// A session ended without a start, right after a pull brought another clone's decision, wrote
/// a session file listing nothing.
#[test]
fn a_session_end_without_start_after_a_pull_wrote_an_empty_session_file() {
    let r = Repo::init();
    r.decide("Pulled from another clone", "committed");
    r.commit_all("pulled");
    let out = hook(r.path(), &event("SessionEnd", r.path()), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        std::fs::read_dir(r.path().join(".zo/memory/sessions")).map_or(0, |d| d.count()) == 0,
        "an empty session file was written"
    );
}

/// With long decisions the SessionStart bundle dropped "Recent decisions" whole and printed
/// little more than State and Facts, with room for several entries left. Whole entries go from
/// the end first; the footer says how many.
#[test]
fn a_long_memory_lost_every_recent_decision_at_session_start() {
    let r = Repo::init();
    let long = "word ".repeat(230);
    for i in 0..40 {
        r.ok(&[
            "decide",
            "--title",
            &format!("Decision number {i} of a long memory"),
            "--decision",
            &long,
            "--rationale",
            "measured",
        ]);
    }
    r.commit_all("memory");
    let out = hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let chars = out.stdout.chars().count();
    assert!(chars <= 9000, "{chars} characters");
    assert!(
        chars > 6000,
        "the budget was left mostly unused: {chars} characters\n{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("## Recent decisions") && out.stdout.contains("Decision number 39"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Left out") && out.stdout.contains("of Recent decisions"),
        "{}",
        out.stdout
    );
}

/// The SessionStart hook's work-tree baseline (its `git diff` now started before the rest of
/// the record is gathered and read after) still names HEAD and each file already changed,
/// with the blob it held then; the record is written without fsync but whole.
#[test]
fn session_start_records_the_dirty_baseline_with_the_diff_overlapped() {
    let r = Repo::init();
    tracked(&r, "a.txt", "a\n");
    tracked(&r, "b.txt", "b\n");
    r.commit_all("memory");
    r.write("a.txt", "dirty before the session\n");
    std::fs::remove_file(r.path().join("b.txt")).unwrap();
    let start = hook(r.path(), &event("SessionStart", r.path()), &[], &[]);
    assert_eq!(start.code, 0, "{}", start.stderr);
    let rec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(r.path().join(".zo/memory/.session")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        rec["head"].as_str(),
        Some(r.git(&["rev-parse", "HEAD"]).trim())
    );
    let blob = r.git(&["hash-object", "a.txt"]);
    assert_eq!(rec["dirty"]["a.txt"].as_str(), Some(blob.trim()), "{rec}");
    assert_eq!(rec["dirty"]["b.txt"].as_str(), Some("deleted"), "{rec}");
    assert_eq!(rec["dirty"].as_object().map(|o| o.len()), Some(2), "{rec}");
}

/// `zo hooks install` with a global `core.hooksPath` wrote zo's hooks into that shared
/// directory: every repository on the machine then ran them, and in each one without zo memory
/// the pre-commit hook failed, so no commit could be made anywhere else. zo refuses to install
/// there and says what to do; a block an older zo left there is silent where there is no memory;
/// `doctor` and `hooks status` name the shared directory.
#[test]
fn hooks_installed_into_a_global_hooks_path_blocked_commits_in_every_other_repository() {
    let r = Repo::init();
    r.commit_all("memory");
    let shared = tempfile::tempdir().unwrap();
    let cfg = r.home().join(".gitconfig");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&format!(
        "[core]\n\thooksPath = {}\n",
        shared.path().display()
    ));
    std::fs::write(&cfg, text).unwrap();
    let e = r.fails(&["hooks", "install"], 1);
    assert!(
        e.contains("outside the repository")
            && e.contains("git config --local core.hooksPath .git/hooks"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(shared.path()).unwrap().count(),
        0,
        "nothing written into the shared directory"
    );
    let doctor = r.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("outside this repository"),
        "{}",
        doctor.stdout
    );
    assert!(
        r.ok(&["hooks", "status"])
            .contains("shared with every repository")
    );
    // What an older zo wrote there: a commit in a repository without memory goes through.
    r.git(&["config", "--local", "core.hooksPath", ".git/hooks"]);
    r.ok(&["hooks", "install"]);
    for h in ["pre-commit", "post-checkout"] {
        std::fs::copy(r.path().join(".git/hooks").join(h), shared.path().join(h)).unwrap();
    }
    // The same user (whose global config names the shared directory), another repository.
    let other = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        util::user_command("git", &r.home())
            .args(args)
            .current_dir(other.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    std::fs::write(other.path().join("a.txt"), "a\n").unwrap();
    assert!(git(&["add", "a.txt"]).status.success());
    let out = git(&["commit", "-qm", "x"]);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The line zo suggests for a shared pre-commit hook, appended as a user would: it blocked
    // every commit where there is no zo memory (`[ -e .zo ] && …` ends the hook with 1).
    let line = e
        .split('`')
        .find(|s| s.contains("verify --staged") && s.contains(".zo"))
        .unwrap_or_else(|| panic!("{e}"))
        .to_string();
    std::fs::write(
        shared.path().join("pre-commit"),
        format!("#!/bin/sh\necho shared >/dev/null\n{line}\n"),
    )
    .unwrap();
    std::fs::write(other.path().join("b.txt"), "b\n").unwrap();
    assert!(git(&["add", "b.txt"]).status.success());
    let out = git(&["commit", "-qm", "y"]);
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Where there is memory, it checks: an edited entry is refused.
    r.git(&["config", "--local", "--unset", "core.hooksPath"]);
    let id = r.decide("Checked by the shared hook", "x");
    r.commit_all("decided");
    let text = r.read(r.log_path());
    r.write(
        r.log_path(),
        &text.replace("**Decision:** x", "**Decision:** rewritten"),
    );
    r.git(&["add", "-A"]);
    let out = util::git_command(r.path())
        .args(["commit", "-qm", "edit"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "{id} edited, committed through the shared hook"
    );
}

/// Gemini CLI: `zo init --agent gemini` puts the server and the hooks (its own event names)
/// in `.gemini/settings.json` and zo's block in GEMINI.md; `zo hook gemini` answers
/// SessionStart with the bundle as `additionalContext`, saves progress on PreCompress, asks
/// once on AfterAgent (Gemini's "block" sends the reason as a new prompt), and `--remove`
/// takes out exactly what it added. The events are as Gemini CLI's hook reference gives them.
#[test]
fn gemini_is_wired_and_its_hooks_answer_in_its_json() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    r.decide("Use Postgres for orders", "one database");
    r.commit_all("memory");
    r.write(".gemini/settings.json", "{\"theme\": \"dark\"}\n");
    r.ok(&["init", "--agent", "gemini"]);
    let settings: serde_json::Value =
        serde_json::from_str(&r.read(".gemini/settings.json")).unwrap();
    assert_eq!(settings["theme"], "dark", "the user's settings are kept");
    assert_eq!(
        settings["mcpServers"]["zo"]["args"],
        serde_json::json!(["mcp"])
    );
    for e in ["SessionStart", "PreCompress", "AfterAgent", "SessionEnd"] {
        assert!(
            settings["hooks"][e].to_string().contains("hook gemini"),
            "{e}: {settings}"
        );
    }
    assert!(
        r.read("GEMINI.md").contains("zo recall"),
        "the block tells the agent when to recall"
    );
    let run = |e: serde_json::Value| {
        let mut c = zo_command(r.path());
        c.args(["hook", "gemini"]);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(e.to_string().as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    };
    let base = |name: &str| serde_json::json!({"session_id": "g-1", "transcript_path": "/dev/null", "cwd": r.path(), "hook_event_name": name, "timestamp": "2026-11-25T20:00:00Z"});
    let mut start = base("SessionStart");
    start["source"] = "startup".into();
    let out = run(start);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Use Postgres for orders"),
        "{v}"
    );
    r.write("lib.rs", "fn b() {}\n");
    let mut compress = base("PreCompress");
    compress["trigger"] = "auto".into();
    assert_eq!(run(compress).code, 0);
    assert!(
        r.read(".zo/memory/.session").contains("progress"),
        "PreCompress saved the progress"
    );
    let mut after = base("AfterAgent");
    after["prompt"] = "fix it".into();
    after["prompt_response"] = "done".into();
    after["stop_hook_active"] = false.into();
    let out = run(after.clone());
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert_eq!(v["decision"], "block", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("lib.rs"), "{v}");
    assert_eq!(run(after).stdout, "", "once per session");
    let mut end = base("SessionEnd");
    end["reason"] = "exit".into();
    assert_eq!(run(end).code, 0);
    let removed = r.json(&["init", "--agent", "gemini", "--remove"]);
    assert!(
        removed["removed"]
            .to_string()
            .contains(".gemini/settings.json"),
        "{removed}"
    );
    assert_eq!(
        r.read(".gemini/settings.json"),
        "{\n  \"theme\": \"dark\"\n}\n",
        "only zo's part went"
    );
    assert!(!r.path().join("GEMINI.md").exists());
}

/// Qwen Code takes Claude Code's events and groups in `.qwen/settings.json`, and its context
/// file is QWEN.md; the SessionStart context is its JSON. A fresh project: the whole settings
/// file is zo's and goes with `--remove`.
#[test]
fn qwen_is_wired_and_its_hooks_answer() {
    let r = Repo::init();
    r.decide("Use Postgres for orders", "one database");
    r.commit_all("memory");
    let added = r.json(&["init", "--agent", "qwen"]);
    assert!(
        added["created"].to_string().contains(".qwen/settings.json")
            && added["created"].to_string().contains("QWEN.md"),
        "{added}"
    );
    let settings: serde_json::Value = serde_json::from_str(&r.read(".qwen/settings.json")).unwrap();
    for e in ["SessionStart", "PreCompact", "Stop", "SessionEnd"] {
        assert!(
            settings["hooks"][e].to_string().contains("hook qwen"),
            "{e}: {settings}"
        );
    }
    let mut c = zo_command(r.path());
    c.args(["hook", "qwen"]);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut start = event("SessionStart", r.path());
    start["source"] = "startup".into();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(start.to_string().as_bytes())
        .unwrap();
    let out = Run::from(child.wait_with_output().unwrap());
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Use Postgres for orders"),
        "{v}"
    );
    r.ok(&["init", "--agent", "qwen", "--remove"]);
    assert!(!r.path().join(".qwen").exists() && !r.path().join("QWEN.md").exists());
}

/// opencode reads AGENTS.md and its servers from `opencode.json` (`mcp.zo`: a local command
/// list); Copilot CLI reads AGENTS.md and `.github/mcp.json`. Both share the AGENTS.md block:
/// removing one keeps it for the other.
#[test]
fn opencode_and_copilot_share_the_agents_md_block() {
    let r = Repo::init();
    r.commit_all("memory");
    r.write("opencode.json", "{\"model\": \"x\"}\n");
    r.ok(&["init", "--agent", "opencode"]);
    r.ok(&["init", "--agent", "copilot"]);
    let oc: serde_json::Value = serde_json::from_str(&r.read("opencode.json")).unwrap();
    assert_eq!(
        oc["mcp"]["zo"],
        serde_json::json!({"type": "local", "command": ["zo", "mcp"], "enabled": true}),
        "{oc}"
    );
    assert_eq!(oc["model"], "x");
    let gh: serde_json::Value = serde_json::from_str(&r.read(".github/mcp.json")).unwrap();
    assert_eq!(gh["mcpServers"]["zo"]["command"], "zo");
    let block = r.read("AGENTS.md");
    assert!(
        block.contains("copilot") && block.contains("opencode"),
        "{block}"
    );
    let removed = r.json(&["init", "--agent", "opencode", "--remove"]);
    assert!(removed["kept"].to_string().contains("copilot"), "{removed}");
    assert_eq!(r.read("opencode.json"), "{\n  \"model\": \"x\"\n}\n");
    r.ok(&["init", "--agent", "copilot", "--remove"]);
    assert!(!r.path().join("AGENTS.md").exists() && !r.path().join(".github/mcp.json").exists());
    let doctor = r.json(&["doctor"]);
    assert!(
        !doctor
            .to_string()
            .contains("opencode.json has no zo server"),
        "a file zo left is not a problem: {doctor}"
    );
}

/// Copilot CLI runs every `.github/hooks/*.json`: zo's file (its own) runs `zo hook copilot`
/// under the PascalCase event names, for which Copilot sends Claude Code's snake_case fields
/// (its CLI hooks reference). SessionStart opens the session record and prints nothing
/// (Copilot ignores it), PreCompact saves the progress, Stop asks once (`decision: block`, as
/// Copilot's agentStop takes it; it sends no `stop_hook_active`), SessionEnd writes the session.
/// `--remove` takes the file and the folders it made.
#[test]
fn copilot_hooks_run_from_their_own_file_with_copilots_payloads() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    r.commit_all("memory");
    r.write(".github/workflows/ci.yml", "on: push\n");
    r.ok(&["init", "--agent", "copilot"]);
    let hooks: serde_json::Value = serde_json::from_str(&r.read(".github/hooks/zo.json")).unwrap();
    assert_eq!(hooks["version"], 1, "{hooks}");
    for e in ["SessionStart", "PreCompact", "Stop", "SessionEnd"] {
        assert_eq!(
            hooks["hooks"][e][0]["bash"], "zo -q hook copilot",
            "{e}: {hooks}"
        );
        assert_eq!(hooks["hooks"][e][0]["type"], "command", "{e}: {hooks}");
    }
    let run = |e: serde_json::Value| {
        let mut c = zo_command(r.path());
        c.args(["-q", "hook", "copilot"]);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(e.to_string().as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    };
    let base = |name: &str| serde_json::json!({"hook_event_name": name, "session_id": "c-1", "timestamp": "2026-11-25T20:00:00.000Z", "cwd": r.path()});
    let mut start = base("SessionStart");
    start["source"] = "new".into();
    let out = run(start);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(
        r.read(".zo/memory/.session").contains("c-1"),
        "the session record is open"
    );
    r.write("lib.rs", "fn b() {}\n");
    let mut compact = base("PreCompact");
    compact["trigger"] = "auto".into();
    compact["transcript_path"] = "/dev/null".into();
    compact["custom_instructions"] = "".into();
    assert_eq!(run(compact).code, 0);
    assert!(
        r.read(".zo/memory/.session").contains("progress"),
        "PreCompact saved the progress"
    );
    let mut stop = base("Stop");
    stop["transcript_path"] = "/dev/null".into();
    stop["stop_reason"] = "end_turn".into();
    let out = run(stop.clone());
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert_eq!(v["decision"], "block", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("lib.rs"), "{v}");
    assert_eq!(run(stop).stdout, "", "once per session");
    let mut end = base("SessionEnd");
    end["reason"] = "user_exit".into();
    assert_eq!(run(end).code, 0);
    assert!(
        !r.path().join(".zo/memory/.session").exists(),
        "the session was ended"
    );
    let removed = r.json(&["init", "--agent", "copilot", "--remove"]);
    assert!(
        removed["removed"]
            .to_string()
            .contains(".github/hooks/zo.json"),
        "{removed}"
    );
    assert!(
        !r.path().join(".github/hooks").exists() && !r.path().join(".github/mcp.json").exists()
    );
    assert_eq!(
        r.read(".github/workflows/ci.yml"),
        "on: push\n",
        "the user's .github stays"
    );
}

/// Claude Code 2.1.332 starts a project's `.mcp.json` server only once the folder is trusted
/// or the server is approved in the user's settings: `zo setup --agent claude` approves it
/// there (shown, kept with the user's other settings, through a link to the real file), and
/// `--undo` takes exactly that out.
#[test]
fn setup_approves_zos_project_server_in_the_users_claude_settings_and_undoes_it() {
    let home = tempfile::tempdir().unwrap();
    let dotfiles = home.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        dotfiles.join("claude.json"),
        "{\"model\": \"opus\", \"enabledMcpjsonServers\": [\"other\"]}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        dotfiles.join("claude.json"),
        home.path().join(".claude/settings.json"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Run::from(
            util::user_command(ZO, home.path())
                .args(args)
                .current_dir(home.path())
                .output()
                .unwrap(),
        )
    };
    let read = || {
        serde_json::from_str::<serde_json::Value>(
            &std::fs::read_to_string(dotfiles.join("claude.json")).unwrap(),
        )
        .unwrap()
    };
    let out = run(&["setup", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("enabledMcpjsonServers") && out.stdout.contains("--undo"),
        "{}",
        out.stdout
    );
    assert_eq!(
        read()["enabledMcpjsonServers"],
        serde_json::json!(["other", "zo"])
    );
    assert_eq!(read()["model"], "opus");
    assert!(
        std::fs::symlink_metadata(home.path().join(".claude/settings.json"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is kept"
    );
    assert!(
        run(&["setup", "--agent", "claude"])
            .stdout
            .contains("nothing changed")
    );
    assert_eq!(run(&["setup", "--agent", "claude", "--undo"]).code, 0);
    assert_eq!(
        read()["enabledMcpjsonServers"],
        serde_json::json!(["other"])
    );
    // A broken file is named with its line, and left as it was.
    std::fs::write(dotfiles.join("claude.json"), "{\n  \"model\": \n").unwrap();
    let out = run(&["setup", "--agent", "claude"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("settings.json:3") && out.stderr.contains("not valid JSON"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dotfiles.join("claude.json")).unwrap(),
        "{\n  \"model\": \n"
    );
}

/// A CLAUDE.md that mentions zo's begin marker inside a line (a note about tools' markers)
/// was taken for zo's block running to the end of the file: `init` replaced the rest of the
/// file and `--remove` cut it off. A marker counts only at the start of a line and with its
/// end marker; anything else is the user's text, kept byte for byte.
#[test]
fn a_mention_of_zos_marker_lost_the_rest_of_claude_md() {
    let r = Repo::init();
    let text = "# Rules\nHTML comments like <!-- zo:begin are used by tools.\n\n## Build\nRun make.\n## Secrets\nNever commit .env\n";
    r.write("CLAUDE.md", text);
    r.ok(&["init", "--agent", "claude"]);
    let wired = r.read("CLAUDE.md");
    assert!(
        wired.starts_with(text) && wired.contains("zo recall"),
        "{wired}"
    );
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(r.read("CLAUDE.md"), text);
    // Both markers inside a line of AGENTS.md: still the user's.
    let agents = "Notes: zo marks its block with `<!-- zo:begin` … `<!-- zo:end -->`.\n";
    r.write("AGENTS.md", agents);
    r.ok(&["init", "--agent", "codex"]);
    r.ok(&["init", "--agent", "codex", "--remove"]);
    assert_eq!(r.read("AGENTS.md"), agents);
}

/// A Stop of one session claimed the reminder of another: after a second session started
/// (its own record), the first one's Stop was asked again and the second's never was. The
/// reminder is the open record's session's, once.
#[test]
fn a_stop_of_an_older_session_took_the_newer_sessions_reminder() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    let with = |name: &str, id: &str| {
        let mut e = event(name, r.path());
        e["session_id"] = id.into();
        e["source"] = "startup".into();
        e
    };
    hook(r.path(), &with("SessionStart", "s-1"), &[], &[]);
    r.write("lib.rs", "fn b() {}\n");
    assert!(
        hook(r.path(), &with("Stop", "s-1"), &[], &[])
            .stdout
            .contains("\"block\""),
        "s-1 is asked once"
    );
    hook(r.path(), &with("SessionStart", "s-2"), &[], &[]);
    r.write("lib.rs", "fn c() {}\n");
    assert_eq!(
        hook(r.path(), &with("Stop", "s-1"), &[], &[]).stdout,
        "",
        "s-1's Stop does not take s-2's reminder"
    );
    assert!(
        hook(r.path(), &with("Stop", "s-2"), &[], &[])
            .stdout
            .contains("\"block\""),
        "s-2 is asked"
    );
}

/// `init --agent NAME --remove` in a repository without memory created all of `.zo/` (and
/// the merge driver in .git/config) to say there was nothing to remove; a misspelt agent
/// created it too, then failed with exit 1. Now neither makes anything, and a misspelt agent
/// is a usage error (exit 2).
#[test]
fn init_remove_and_an_unknown_agent_created_memory() {
    let r = Repo::new();
    let config = r.read(".git/config");
    let out = r.run(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("no wiring of zo for claude"),
        "{}",
        out.stdout
    );
    let out = r.run(&["init", "--agent", "bogus"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("bogus") && out.stderr.contains("claude"),
        "names it and the agents there are: {}",
        out.stderr
    );
    assert!(!r.path().join(".zo").exists(), "no memory was made");
    assert_eq!(r.read(".git/config"), config, "no merge driver registered");
}

/// `zo setup --agent claude` read the user's settings with a plain read: a FIFO there hung it
/// for good. It wrote through a temporary file, so a 0644 settings file became 0600. And its
/// `--json` said "zo added" when nothing changed. Now a FIFO is refused by name, the mode is
/// kept, and `--json` says whether it changed and what the file now says.
#[test]
fn setup_hung_on_a_fifo_and_changed_the_settings_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let run = |args: &[&str]| {
        Run::from(
            util::user_command(ZO, home.path())
                .args(args)
                .current_dir(home.path())
                .output()
                .unwrap(),
        )
    };
    let fifo = claude.join("settings.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = run(&["setup", "--agent", "claude"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("settings.json"), "{}", out.stderr);
    std::fs::remove_file(&fifo).unwrap();
    std::fs::write(&fifo, "{\"model\": \"opus\"}\n").unwrap();
    std::fs::set_permissions(&fifo, std::fs::Permissions::from_mode(0o644)).unwrap();
    let v = Run::from(
        util::user_command(ZO, home.path())
            .args(["--json", "setup", "--agent", "claude"])
            .current_dir(home.path())
            .output()
            .unwrap(),
    );
    assert_eq!(
        (&v.json()["changed"], &v.json()["approved"]),
        (&serde_json::json!(true), &serde_json::json!(true)),
        "{}",
        v.stdout
    );
    assert_eq!(
        std::fs::metadata(&fifo).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let again = Run::from(
        util::user_command(ZO, home.path())
            .args(["--json", "setup", "--agent", "claude"])
            .current_dir(home.path())
            .output()
            .unwrap(),
    );
    assert_eq!(
        (&again.json()["changed"], &again.json()["approved"]),
        (&serde_json::json!(false), &serde_json::json!(true)),
        "{}",
        again.stdout
    );
}

/// An event whose `hook_event_name` was not a string (`{"name": "Stop"}`, a number) was taken
/// for a SessionStart: it printed the bundle, wrote the open session's file early and opened a
/// new record. Now it is no event zo knows: nothing printed, the session left as it was.
#[test]
fn a_mistyped_event_name_ended_the_open_session() {
    let r = Repo::init();
    tracked(&r, "lib.rs", "fn a() {}\n");
    let mut start = event("SessionStart", r.path());
    start["source"] = "startup".into();
    hook(r.path(), &start, &[], &[]);
    r.decide("Use Postgres", "one database");
    let record = r.read(".zo/memory/.session");
    for name in [serde_json::json!({"name": "Stop"}), serde_json::json!(5)] {
        let mut e = event("x", r.path());
        e["hook_event_name"] = name;
        let out = hook(r.path(), &e, &[], &[]);
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    }
    assert_eq!(
        r.read(".zo/memory/.session"),
        record,
        "the open session is untouched"
    );
    assert!(
        std::fs::read_dir(r.path().join(".zo/memory/sessions"))
            .unwrap()
            .next()
            .is_none(),
        "no session file written"
    );
}
