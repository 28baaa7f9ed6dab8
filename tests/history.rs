//! Time travel: `zo history ID` and `--as-of DATE|COMMIT` on `log`, `show`, over a repository
//! with several commits and pinned clocks (`ZO_NOW`).

mod util;
use util::Repo;

// 2026-03-01T10:00:00Z, 2026-03-15T10:00:00Z, 2026-04-01T10:00:00Z, 2026-04-10T10:00:00Z.
const MAR1: &str = "1772359200";
const MAR15: &str = "1773568800";
const APR1: &str = "1775037600";
const APR10: &str = "1775815200";

/// Run zo at a pinned time and expect success; returns stdout.
fn at(r: &Repo, now: &str, args: &[&str]) -> String {
    let out = r.cmd(args).env("ZO_NOW", now).stdin(std::process::Stdio::null()).output().unwrap();
    let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "zo {args:?} failed\nstdout: {o}\nstderr: {e}");
    o.trim().to_string()
}

/// A decision made 1 March (committed), an outcome 15 March (committed), a replacement
/// 1 April (committed): (first ID, replacement ID).
fn three_commits() -> (Repo, String, String) {
    let r = Repo::init();
    r.commit_all("zo init");
    let a = at(&r, MAR1, &["decide", "--title", "Use Postgres", "--decision", "Postgres for the orders service"]);
    r.commit_all("decide Postgres");
    at(&r, MAR15, &["outcome", &a, "worked under load"]);
    r.commit_all("outcome for Postgres");
    let b = at(&r, APR1, &["decide", "--title", "Use CockroachDB", "--decision", "CockroachDB, multi-region", "--supersedes", &a]);
    r.commit_all("move to CockroachDB");
    (r, a, b)
}

#[test]
fn history_names_the_commit_outcome_and_successor() {
    let (r, a, b) = three_commits();
    let h = r.json(&["history", &a]);
    assert_eq!(h["id"], a.as_str());
    assert_eq!(h["status"], "superseded");
    assert_eq!(h["written"]["timestamp"], "2026-03-01T10:00:00Z");
    assert_eq!(h["written"]["commit"]["subject"], "decide Postgres", "{h}");
    assert_eq!(h["outcomes"].as_array().unwrap().len(), 1);
    assert_eq!(h["outcomes"][0]["outcome"], "worked under load");
    assert_eq!(h["outcomes"][0]["timestamp"], "2026-03-15T10:00:00Z");
    assert_eq!(h["superseded_by"]["id"], b.as_str());
    assert!(h["forgotten"].is_null());
    let hb = r.json(&["history", &b]);
    assert_eq!(hb["supersedes"][0]["id"], a.as_str());
    assert_eq!(hb["written"]["commit"]["subject"], "move to CockroachDB");
    let text = r.ok(&["history", &a]);
    assert!(text.contains("decide Postgres") && text.contains("worked under load") && text.contains(&format!("by {b}")), "{text}");
}

#[test]
fn history_of_an_uncommitted_decision_has_no_commit() {
    let r = Repo::init();
    let a = r.decide("Use Redis", "Redis for the cache");
    let h = r.json(&["history", &a]);
    assert!(h["written"]["commit"].is_null(), "{h}");
    assert!(r.ok(&["history", &a]).contains("not in any commit"));
}

#[test]
fn history_names_the_session_and_agent_that_wrote_it() {
    let r = Repo::init();
    at(&r, MAR1, &["session", "start", "--agent", "claude-test"]);
    let a = at(&r, MAR1, &["decide", "--title", "Use Redis", "--decision", "Redis for the cache"]);
    at(&r, MAR1, &["session", "end", "--summary", "cache work", "--agent", "claude-test"]);
    let h = r.json(&["history", &a]);
    assert!(h["written"]["session"].as_str().is_some_and(|s| s.starts_with("session-")), "{h}");
    assert_eq!(h["written"]["agent"], "claude-test");
}

#[test]
fn history_of_a_forgotten_decision_shows_the_tombstone_never_the_text() {
    let r = Repo::init();
    let a = at(&r, MAR1, &["decide", "--title", "Secret plan", "--decision", "the words that were erased"]);
    r.commit_all("decide");
    at(&r, MAR15, &["forget", &a, "--reason", "asked to"]);
    let h = r.json(&["history", &a]);
    assert_eq!(h["status"], "forgotten");
    assert_eq!(h["forgotten"]["reason"], "asked to");
    assert!(h["forgotten"]["forgotten"].as_str().unwrap().starts_with("2026-03-15"), "{h}");
    let all = format!("{h}{}", r.ok(&["history", &a]));
    assert!(!all.contains("words that were erased") && !all.contains("Secret plan"), "{all}");
}

#[test]
fn log_as_of_a_date_leaves_out_later_entries_and_later_supersessions() {
    let (r, a, b) = three_commits();
    let v = r.json(&["log", "--as-of", "2026-03-20"]);
    let ids: Vec<&str> = v["decisions"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [a.as_str()], "{v}");
    assert_eq!(v["decisions"][0]["status"], "active");
    assert_eq!(v["decisions"][0]["outcome"], "worked under load");
    assert_eq!(v["as_of"]["kind"], "date");
    // The day itself counts whole: the decision of 1 March is in the log of 1 March.
    let v = r.json(&["log", "--as-of", "2026-03-01"]);
    assert_eq!(v["decisions"][0]["outcome"], "pending", "{v}");
    // Before anything was written, nothing.
    assert!(r.json(&["log", "--as-of", "2026-02-28"])["decisions"].as_array().unwrap().is_empty());
    // An RFC 3339 time with an offset: 1 April 12:30 at +02:00 is 10:30 UTC, after B.
    let v = r.json(&["log", "--as-of", "2026-04-01T12:30:00+02:00"]);
    assert_eq!(v["decisions"][0]["id"], b.as_str());
    assert_eq!(v["decisions"][1]["status"], "superseded");
    // Now, without --as-of, unchanged.
    assert_eq!(r.json(&["log"])["decisions"].as_array().unwrap().len(), 2);
}

#[test]
fn show_as_of_a_date_shows_the_outcome_and_successor_of_then() {
    let (r, a, b) = three_commits();
    let v = r.json(&["show", &a, "--as-of", "2026-03-10"]);
    assert_eq!(v["status"], "active");
    assert_eq!(v["outcome"], "pending");
    assert!(v["superseded_by"].is_null());
    let text = r.ok(&["show", &a, "--as-of", "2026-03-20"]);
    assert!(text.contains("worked under load") && !text.contains("Superseded by"), "{text}");
    let text = r.ok(&["show", &a]);
    assert!(text.contains(&format!("Superseded by {b}")), "{text}");
    // B did not exist yet: exit 1, saying as of when.
    let err = r.fails(&["show", &b, "--as-of", "2026-03-20"], 1);
    assert!(err.contains("as of 2026-03-20"), "{err}");
}

#[test]
fn as_of_a_commit_reads_the_files_at_that_commit_without_a_checkout() {
    let (r, a, b) = three_commits();
    // HEAD~1 is "outcome for Postgres": A with its outcome, no B.
    let v = r.json(&["log", "--as-of", "HEAD~1"]);
    let ids: Vec<&str> = v["decisions"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [a.as_str()], "{v}");
    assert_eq!(v["as_of"]["kind"], "commit");
    assert_eq!(v["as_of"]["commit"]["subject"], "outcome for Postgres");
    // A full hash works too, and the work tree is untouched.
    let first = r.git(&["rev-list", "--max-count=1", "HEAD~2"]);
    let v = r.json(&["show", &a, "--as-of", first.trim()]);
    assert_eq!(v["outcome"], "pending");
    assert!(r.read(r.log_path()).contains(&b));
    assert!(r.git(&["status", "--porcelain"]).trim().is_empty());
}

#[test]
fn as_of_something_that_is_neither_a_date_nor_a_commit_is_a_usage_error() {
    let (r, _, _) = three_commits();
    for bad in ["2026-13-45", "no-such-branch", "--", "2026-03-01T25:00:00Z"] {
        let err = r.fails(&["log", &format!("--as-of={bad}")], 2);
        assert!(err.contains("--as-of"), "{bad}: {err}");
    }
}

#[test]
fn as_of_a_commit_outside_git_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    util::zo_ok(dir.path(), &["init", "--project", "t"]);
    let r = util::zo_in(dir.path(), &["log", "--as-of", "HEAD"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no git repository"), "{}", r.stderr);
    assert!(util::zo_in(dir.path(), &["log", "--as-of", "2026-01-01"]).code == 0);
}

#[test]
fn fact_get_and_list_as_of_give_the_version_that_held_then() {
    let r = Repo::init();
    r.commit_all("zo init");
    at(&r, MAR1, &["fact", "set", "stack:db", "Postgres"]);
    r.commit_all("db is Postgres");
    at(&r, APR1, &["fact", "set", "stack:db", "CockroachDB"]);
    at(&r, APR10, &["fact", "set", "stack:cache", "Redis"]);
    r.commit_all("db is CockroachDB, cache Redis");
    assert_eq!(r.ok(&["fact", "get", "stack:db"]).trim(), "CockroachDB");
    assert_eq!(r.ok(&["fact", "get", "stack:db", "--as-of", "2026-03-20"]).trim(), "Postgres");
    assert_eq!(r.ok(&["fact", "get", "stack:db", "--as-of", "HEAD~1"]).trim(), "Postgres");
    let err = r.fails(&["fact", "get", "stack:cache", "--as-of", "2026-04-05"], 1);
    assert!(err.contains("as of 2026-04-05"), "{err}");
    let v = r.json(&["fact", "list", "--as-of", "2026-04-05"]);
    let pairs: Vec<(&str, &str)> =
        v["facts"].as_array().unwrap().iter().map(|f| (f["key"].as_str().unwrap(), f["value"].as_str().unwrap())).collect();
    assert_eq!(pairs, [("stack:db", "CockroachDB")], "{v}");
    assert!(r.json(&["fact", "list", "--as-of", "2026-02-01"])["facts"].as_array().unwrap().is_empty());
}

#[test]
fn user_facts_as_of_a_commit_are_read_as_of_its_time() {
    let r = Repo::init();
    at(&r, MAR1, &["fact", "set", "pref:tabs", "4", "--scope", "user"]);
    r.git(&["add", "-A"]);
    // A commit dated 15 March: the user's version of 1 April had not been set then.
    let c = std::process::Command::new("git")
        .args(["commit", "-q", "-m", "mid-March"])
        .current_dir(r.path())
        .env("GIT_COMMITTER_DATE", "2026-03-15T10:00:00Z")
        .env("GIT_AUTHOR_DATE", "2026-03-15T10:00:00Z")
        .status()
        .unwrap();
    assert!(c.success());
    at(&r, APR1, &["fact", "set", "pref:tabs", "2", "--scope", "user"]);
    assert_eq!(r.ok(&["fact", "get", "pref:tabs"]).trim(), "2");
    assert_eq!(r.ok(&["fact", "get", "pref:tabs", "--as-of", "HEAD"]).trim(), "4");
}

#[test]
fn recall_as_of_finds_what_held_then_with_its_status_of_then() {
    let (r, a, b) = three_commits();
    // Now: A is superseded, so default recall leaves it out.
    let now = r.json(&["recall", "Postgres orders service", "--mode", "lexical"]);
    assert!(now["results"].as_array().unwrap().iter().all(|h| h["id"] != a.as_str()), "{now}");
    // On 20 March A held, and B did not exist yet.
    let then = r.json(&["recall", "Postgres orders service", "--mode", "lexical", "--as-of", "2026-03-20"]);
    let hits = then["results"].as_array().unwrap();
    assert_eq!(hits[0]["id"], a.as_str(), "{then}");
    assert_eq!(hits[0]["status"], "active");
    assert!(hits.iter().all(|h| h["id"] != b.as_str()));
    // At the first commit too; before anything, nothing.
    let then = r.json(&["recall", "Postgres orders service", "--mode", "lexical", "--as-of", "HEAD~2"]);
    assert_eq!(then["results"][0]["id"], a.as_str(), "{then}");
    let before = r.json(&["recall", "Postgres orders service", "--mode", "lexical", "--as-of", "2026-02-01"]);
    assert!(before["results"].as_array().unwrap().is_empty(), "{before}");
    assert_eq!(before["answered"], false);
}
