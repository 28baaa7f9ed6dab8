//! Git integration with real git: two clones of a bare remote merge memory without conflicts,
//! hooks, history verification, checkpoint.

mod util;
use std::path::{Path, PathBuf};
use std::process::Command;

struct World {
    _dir: tempfile::TempDir,
    remote: PathBuf,
    root: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn zo(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(util::ZO).args(args).current_dir(dir).env_remove("ZO_REPO").output().unwrap();
    assert!(out.status.success(), "zo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    serde_json::from_str(&zo(dir, &a)).unwrap()
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let remote = root.join("remote.git");
        git(&root, &["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
        World { _dir: dir, remote, root }
    }

    fn clone(&self, name: &str) -> PathBuf {
        let p = self.root.join(name);
        git(&self.root, &["clone", "-q", self.remote.to_str().unwrap(), p.to_str().unwrap()]);
        git(&p, &["config", "user.email", &format!("{name}@example.com")]);
        git(&p, &["config", "user.name", name]);
        git(&p, &["config", "pull.rebase", "false"]);
        p
    }
}

fn commit_all(dir: &Path, msg: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", msg]);
}

/// One machine's work: decisions, a prior, a session.
fn work(dir: &Path, who: &str, round: usize) {
    zo(dir, &["session", "start", "--agent", who]);
    for i in 0..3 {
        zo(dir, &["decide", "--title", &format!("{who} decision {round}.{i}"), "--decision", &format!("made on {who}")]);
    }
    zo(dir, &["prior", "add", "--title", &format!("{who} lesson {round}"), "--root-cause", "novel_case", "--failure", "f", "--rule", &format!("rule from {who}")]);
    zo(dir, &["session", "end", "--summary", &format!("{who} round {round}"), "--next", &format!("{who} next {round}"), "--blocker", &format!("{who} blocker {round}")]);
    commit_all(dir, &format!("{who} round {round}"));
}

fn assert_clean_memory(dir: &Path, expected_decisions: usize, expected_priors: usize) {
    for f in std::fs::read_dir(dir.join(".zo/memory")).unwrap().flatten().chain(std::fs::read_dir(dir.join(".zo/memory/sessions")).unwrap().flatten()) {
        if f.path().is_file() && f.path().extension().is_some_and(|e| e == "md") {
            let t = std::fs::read_to_string(f.path()).unwrap();
            assert!(!t.contains("<<<<<<<") && !t.contains(">>>>>>>"), "conflict markers in {}", f.path().display());
        }
    }
    let log = json(dir, &["log", "--all"]);
    let ids: Vec<&str> = log["decisions"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(ids.len(), expected_decisions, "decisions");
    assert_eq!(unique.len(), ids.len(), "duplicate decision IDs");
    let priors = json(dir, &["prior", "list"]);
    let pids: Vec<&str> = priors["priors"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    let punique: std::collections::HashSet<&&str> = pids.iter().collect();
    assert_eq!(pids.len(), expected_priors, "priors: {pids:?}");
    assert_eq!(punique.len(), pids.len(), "duplicate PR numbers: {pids:?}");
    zo(dir, &["verify"]);
    zo(dir, &["verify", "--history"]);
}

#[test]
fn two_clones_merge_and_rebase_without_conflicts_or_loss() {
    let w = World::new();
    let a = w.clone("a");
    zo(&a, &["init", "--project", "shared"]);
    zo(&a, &["decide", "--title", "Base decision", "--decision", "before the fork"]);
    commit_all(&a, "base");
    git(&a, &["push", "-q", "origin", "main"]);
    let b = w.clone("b");
    zo(&b, &["continue"]);

    // Round 1: both work from the same base; B pushes, A merges with `git pull`.
    work(&a, "alpha", 1);
    work(&b, "beta", 1);
    git(&b, &["push", "-q", "origin", "main"]);
    git(&a, &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
    zo(&a, &["continue"]);
    assert_clean_memory(&a, 7, 2);
    let state = json(&a, &["state", "show"]);
    let next: Vec<&str> = state["fields"]["next_steps"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(next.contains(&"alpha next 1") && next.contains(&"beta next 1"), "neither side's next steps lost: {next:?}");
    let sessions = json(&a, &["status"])["counts"]["sessions"].as_u64().unwrap();
    assert_eq!(sessions, 2, "both sessions kept");
    commit_all(&a, "after continue");
    git(&a, &["push", "-q", "origin", "main"]);

    // Round 2: `git pull --rebase`.
    git(&b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    work(&a, "alpha", 2);
    work(&b, "beta", 2);
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "--rebase", "origin", "main"]);
    zo(&b, &["continue"]);
    assert_clean_memory(&b, 13, 4);
    assert_eq!(json(&b, &["status"])["counts"]["sessions"], 4);
}

#[test]
fn merge_driver_renumbers_colliding_priors_and_keeps_references() {
    let base = "# PRIORS\n\n---\n\n";
    let p = |n: u32, title: &str, sup: &str| {
        zo::format::prior::NewPrior { number: n, title: title.into(), root_cause: "novel_case".into(), failure: "f".into(), rules: vec!["r".into()], ..Default::default() }
            .render()
            .replace("**Superseded by:** null", &format!("**Superseded by:** {sup}"))
    };
    let ours = format!("{base}{}", p(1, "ours one", "null"));
    let theirs = format!("{base}{}{}", p(1, "theirs one", "null"), p(2, "theirs two", "PR-001").replace("theirs two", "theirs two (refines PR-001)"));
    let (merged, notes) = zo::merge::priors(base, &ours, &theirs);
    let f = zo::format::prior::PriorsFile::parse(zo::format::Text::new(merged.clone()));
    let ids: Vec<&str> = f.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["PR-001", "PR-003", "PR-002"], "{merged}");
    assert_eq!(f.entries[1].title, "theirs one");
    assert_eq!(f.entries[2].superseded_by(), Some("PR-003"), "their reference follows the renumbering");
    assert_eq!(f.entries[2].title, "theirs two (refines PR-003)");
    assert!(notes[0].contains("PR-001 was added on both sides"));
}

#[test]
fn merge_driver_falls_back_to_keeping_both_sides() {
    let w = World::new();
    let dir = w.root.join("files");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("base"), "line\n").unwrap();
    std::fs::write(dir.join("ours"), b"line\nours \xff\n").unwrap();
    std::fs::write(dir.join("theirs"), "line\ntheirs\n").unwrap();
    let out = Command::new(util::ZO)
        .args(["merge-driver", "base", "ours", "theirs", ".zo/memory/DECISION_LOG.md"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kept both sides' text"), "{err}");
    let merged = std::fs::read(dir.join("ours")).unwrap();
    let text = String::from_utf8_lossy(&merged);
    assert!(text.contains("ours") && text.contains("theirs"), "{text}");
}

fn hook_repo() -> util::Repo {
    let r = util::Repo::init();
    r.decide("Old decision", "original text");
    r.commit_all("base");
    r
}

#[test]
fn pre_commit_blocks_edits_allows_appends_and_chains_with_existing_hooks() {
    let r = hook_repo();
    let hooks = r.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let mine = "#!/bin/sh\necho mine >> \"$(git rev-parse --git-dir)/mine.log\"\nexit 0\n";
    std::fs::write(hooks.join("pre-commit"), mine).unwrap();
    let status = r.json(&["hooks", "install"]);
    assert_eq!(status["merge_driver"], true);
    assert!(status["hooks"].as_array().unwrap().iter().all(|h| h["installed"] == true));
    assert!(r.ok(&["hooks", "status"]).contains("pre-commit     zo (+ your own commands)"));

    r.decide("Appended", "fine");
    r.commit_all("append is allowed");
    assert!(r.read(".git/mine.log").contains("mine"), "the existing hook still runs");

    let text = r.read(r.log_path());
    r.write(r.log_path(), &text.replace("original text", "rewritten history"));
    r.git(&["add", "-A"]);
    let out = Command::new("git").args(["commit", "-q", "-m", "edit"]).current_dir(r.path()).output().unwrap();
    assert!(!out.status.success(), "the edit must be blocked");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(Old decision) was edited since HEAD") && err.contains("--supersedes"), "{err}");
    // --no-verify still bypasses.
    r.git(&["commit", "-q", "--no-verify", "-m", "forced edit"]);

    r.ok(&["hooks", "uninstall"]);
    assert_eq!(r.read(".git/hooks/pre-commit"), mine, "uninstall restores the previous hook exactly");
    assert!(!r.path().join(".git/hooks/post-merge").exists());
}

#[test]
fn hooks_respect_core_hooks_path() {
    let r = hook_repo();
    r.git(&["config", "core.hooksPath", ".githooks"]);
    r.ok(&["hooks", "install"]);
    assert!(r.read(".githooks/pre-commit").contains("verify --staged"));
    assert!(!r.path().join(".git/hooks/pre-commit").exists());
    r.ok(&["hooks", "uninstall"]);
    assert!(!r.path().join(".githooks/pre-commit").exists());
}

#[test]
fn after_a_pull_with_hooks_the_index_is_fresh() {
    let w = World::new();
    let a = w.clone("a");
    zo(&a, &["init", "--project", "p", "--hooks"]);
    commit_all(&a, "init");
    git(&a, &["push", "-q", "origin", "main"]);
    let b = w.clone("b");
    zo(&b, &["continue"]);
    assert_eq!(json(&b, &["hooks", "status"])["hooks"][0]["installed"], true, "config hooks: true installs on every clone");
    zo(&b, &["--json", "recall", "--mode", "lexical", "anything"]);
    let id = zo(&a, &["decide", "--title", "Pulled later", "--decision", "arrives by pull"]).trim().to_string();
    commit_all(&a, "new decision");
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    let st = json(&b, &["index", "status"]);
    assert_eq!(st["fresh"], true, "post-merge refreshed the index");
    let v = json(&b, &["recall", "--mode", "lexical", "-k", "1", "pulled later"]);
    assert_eq!(v["results"][0]["id"], id.as_str());
}

#[test]
fn verify_history_names_the_commit_that_rewrote_an_entry() {
    let r = hook_repo();
    r.decide("Second", "two");
    r.commit_all("second");
    r.ok(&["verify", "--history"]);
    let text = r.read(r.log_path());
    r.write(r.log_path(), &text.replace("original text", "quietly changed"));
    r.commit_all("sneaky rewrite");
    let short = r.git(&["rev-parse", "--short=7", "HEAD"]).trim().to_string();
    r.decide("Third", "three");
    r.commit_all("third");
    let err = r.fails(&["verify", "--history"], 4);
    assert!(err.contains(&format!("commit {short} (sneaky rewrite)")) && err.contains("(Old decision) was edited"), "{err}");
}

#[test]
fn verify_staged_checks_the_index_not_the_working_file() {
    let r = hook_repo();
    let text = r.read(r.log_path());
    r.write(r.log_path(), &text.replace("original text", "edited"));
    r.git(&["add", "-A"]);
    r.fails(&["verify", "--staged"], 4);
    r.write(r.log_path(), &text);
    r.fails(&["verify", "--staged"], 4); // the staged version is still the edited one
    r.git(&["add", "-A"]);
    r.ok(&["verify", "--staged"]);
}

#[test]
fn checkpoint_commits_only_zo() {
    let r = util::Repo::init();
    r.commit_all("init");
    r.write("src/app.rs", "fn main() {}\n");
    r.git(&["add", "src/app.rs"]);
    r.decide("Checkpointed", "c");
    let j = r.json(&["checkpoint", "-m", "memory only"]);
    assert_eq!(j["committed"], true);
    let files = r.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains(".zo/memory/DECISION_LOG.md") && !files.contains("src/app.rs"), "{files}");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]).trim(), "src/app.rs", "the unrelated file stays staged");
    let run = r.run(&["checkpoint"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("nothing to commit"), "{}", run.stderr);

    let bare = tempfile::tempdir().unwrap();
    git(bare.path(), &["init", "-q"]);
    zo(bare.path(), &["init"]);
    let out = Command::new(util::ZO)
        .args(["checkpoint"])
        .current_dir(bare.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", bare.path())
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "user.useConfigOnly")
        .env("GIT_CONFIG_VALUE_0", "true")
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL")
        .env_remove("EMAIL")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no git identity"), "{err}");
}

#[test]
fn cherry_pick_of_a_memory_commit_merges_entry_by_entry() {
    let r = util::Repo::init();
    r.decide("Base", "b");
    r.commit_all("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    let f = r.decide("On the feature branch", "f");
    r.commit_all("feature decision");
    r.git(&["checkout", "-q", "main"]);
    let m = r.decide("On main", "m");
    r.commit_all("main decision");
    r.git(&["cherry-pick", "feature"]);
    let text = r.read(r.log_path());
    assert!(!text.contains("<<<<<<<"));
    let ids = r.ids();
    assert!(ids.contains(&f) && ids.contains(&m) && ids.len() == 3, "{ids:?}");
    r.ok(&["verify", "--history"]);
}
