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
/// `zo forget ID …` at `now`, as a person runs it: at a terminal, the ID typed back.
fn forget_at(r: &Repo, now: &str, args: &[&str]) -> String {
    let mut c = r.cmd(args);
    c.env("ZO_NOW", now);
    let out = util::forget(&c, args[1]);
    assert_eq!(out.code, 0, "zo {args:?} failed: {}", out.stdout);
    out.stdout.trim().to_string()
}

fn at(r: &Repo, now: &str, args: &[&str]) -> String {
    let out = r
        .cmd(args)
        .env("ZO_NOW", now)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "zo {args:?} failed\nstdout: {o}\nstderr: {e}"
    );
    o.trim().to_string()
}

/// A decision made 1 March (committed), an outcome 15 March (committed), a replacement
/// 1 April (committed): (first ID, replacement ID).
fn three_commits() -> (Repo, String, String) {
    let r = Repo::init();
    r.commit_all("zo init");
    let a = at(
        &r,
        MAR1,
        &[
            "decide",
            "--title",
            "Use Postgres",
            "--decision",
            "Postgres for the orders service",
        ],
    );
    r.commit_all("decide Postgres");
    at(&r, MAR15, &["outcome", &a, "worked under load"]);
    r.commit_all("outcome for Postgres");
    let b = at(
        &r,
        APR1,
        &[
            "decide",
            "--title",
            "Use CockroachDB",
            "--decision",
            "CockroachDB, multi-region",
            "--supersedes",
            &a,
        ],
    );
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
    assert!(
        text.contains("decide Postgres")
            && text.contains("worked under load")
            && text.contains(&format!("by {b}")),
        "{text}"
    );
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
    let a = at(
        &r,
        MAR1,
        &[
            "decide",
            "--title",
            "Use Redis",
            "--decision",
            "Redis for the cache",
        ],
    );
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "cache work",
            "--agent",
            "claude-test",
        ],
    );
    let h = r.json(&["history", &a]);
    assert!(
        h["written"]["session"]
            .as_str()
            .is_some_and(|s| s.starts_with("session-")),
        "{h}"
    );
    assert_eq!(h["written"]["agent"], "claude-test");
}

#[test]
fn history_of_a_forgotten_decision_shows_the_tombstone_never_the_text() {
    let r = Repo::init();
    let a = at(
        &r,
        MAR1,
        &[
            "decide",
            "--title",
            "Secret plan",
            "--decision",
            "the words that were erased",
        ],
    );
    r.commit_all("decide");
    forget_at(&r, MAR15, &["forget", &a, "--reason", "asked to"]);
    let h = r.json(&["history", &a]);
    assert_eq!(h["status"], "forgotten");
    assert_eq!(h["forgotten"]["reason"], "asked to");
    assert!(
        h["forgotten"]["forgotten"]
            .as_str()
            .unwrap()
            .starts_with("2026-03-15"),
        "{h}"
    );
    let all = format!("{h}{}", r.ok(&["history", &a]));
    assert!(
        !all.contains("words that were erased") && !all.contains("Secret plan"),
        "{all}"
    );
}

#[test]
fn log_as_of_a_date_leaves_out_later_entries_and_later_supersessions() {
    let (r, a, b) = three_commits();
    let v = r.json(&["log", "--as-of", "2026-03-20"]);
    let ids: Vec<&str> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [a.as_str()], "{v}");
    assert_eq!(v["decisions"][0]["status"], "active");
    assert_eq!(v["decisions"][0]["outcome"], "worked under load");
    assert_eq!(v["as_of"]["kind"], "date");
    // The day itself counts whole: the decision of 1 March is in the log of 1 March.
    let v = r.json(&["log", "--as-of", "2026-03-01"]);
    assert_eq!(v["decisions"][0]["outcome"], "pending", "{v}");
    // Before anything was written, nothing.
    assert!(
        r.json(&["log", "--as-of", "2026-02-28"])["decisions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
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
    assert!(
        text.contains("worked under load") && !text.contains("Superseded by"),
        "{text}"
    );
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
    let ids: Vec<&str> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
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
    assert_eq!(
        r.ok(&["fact", "get", "stack:db", "--as-of", "2026-03-20"])
            .trim(),
        "Postgres"
    );
    assert_eq!(
        r.ok(&["fact", "get", "stack:db", "--as-of", "HEAD~1"])
            .trim(),
        "Postgres"
    );
    let err = r.fails(&["fact", "get", "stack:cache", "--as-of", "2026-04-05"], 1);
    assert!(err.contains("as of 2026-04-05"), "{err}");
    let v = r.json(&["fact", "list", "--as-of", "2026-04-05"]);
    let pairs: Vec<(&str, &str)> = v["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["key"].as_str().unwrap(), f["value"].as_str().unwrap()))
        .collect();
    assert_eq!(pairs, [("stack:db", "CockroachDB")], "{v}");
    assert!(
        r.json(&["fact", "list", "--as-of", "2026-02-01"])["facts"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn user_facts_as_of_a_commit_are_read_as_of_its_time() {
    let r = Repo::init();
    at(
        &r,
        MAR1,
        &["fact", "set", "pref:tabs", "4", "--scope", "user"],
    );
    r.git(&["add", "-A"]);
    // A commit dated 15 March: the user's version of 1 April had not been set then.
    let c = util::git_command(r.path())
        .args(["commit", "-q", "-m", "mid-March"])
        .env("GIT_COMMITTER_DATE", "2026-03-15T10:00:00Z")
        .env("GIT_AUTHOR_DATE", "2026-03-15T10:00:00Z")
        .status()
        .unwrap();
    assert!(c.success());
    at(
        &r,
        APR1,
        &["fact", "set", "pref:tabs", "2", "--scope", "user"],
    );
    assert_eq!(r.ok(&["fact", "get", "pref:tabs"]).trim(), "2");
    assert_eq!(
        r.ok(&["fact", "get", "pref:tabs", "--as-of", "HEAD"])
            .trim(),
        "4"
    );
}

#[test]
fn recall_as_of_finds_what_held_then_with_its_status_of_then() {
    let (r, a, b) = three_commits();
    // Now: A is superseded, so default recall leaves it out.
    let now = r.json(&["recall", "Postgres orders service", "--mode", "lexical"]);
    assert!(
        now["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] != a.as_str()),
        "{now}"
    );
    // On 20 March A held, and B did not exist yet.
    let then = r.json(&[
        "recall",
        "Postgres orders service",
        "--mode",
        "lexical",
        "--as-of",
        "2026-03-20",
    ]);
    let hits = then["results"].as_array().unwrap();
    assert_eq!(hits[0]["id"], a.as_str(), "{then}");
    assert_eq!(hits[0]["status"], "active");
    assert!(hits.iter().all(|h| h["id"] != b.as_str()));
    // At the first commit too; before anything, nothing.
    let then = r.json(&[
        "recall",
        "Postgres orders service",
        "--mode",
        "lexical",
        "--as-of",
        "HEAD~2",
    ]);
    assert_eq!(then["results"][0]["id"], a.as_str(), "{then}");
    let before = r.json(&[
        "recall",
        "Postgres orders service",
        "--mode",
        "lexical",
        "--as-of",
        "2026-02-01",
    ]);
    assert!(before["results"].as_array().unwrap().is_empty(), "{before}");
    assert_eq!(before["answered"], false);
}

/// Commit everything with both git dates pinned: a date's STATE.md and priors come from the
/// last commit at or before it, by commit time.
fn commit_at(r: &Repo, msg: &str, when: &str) {
    r.git(&["add", "-A"]);
    let ok = util::git_command(r.path())
        .args(["commit", "-q", "-m", msg])
        .env("GIT_COMMITTER_DATE", when)
        .env("GIT_AUTHOR_DATE", when)
        .status()
        .unwrap();
    assert!(ok.success());
}

/// 1 March: decision A, phase alpha, prior PR-001, stack:db = Postgres (committed that day);
/// 15 March: A's outcome (committed); 1 April: B supersedes A, phase beta, PR-002 supersedes
/// PR-001, stack:db = CockroachDB (committed). Returns (A, B).
fn a_memory_that_changed() -> (Repo, String, String) {
    let r = Repo::init();
    commit_at(&r, "zo init", "2026-02-20T10:00:00Z");
    let a = at(
        &r,
        MAR1,
        &[
            "decide",
            "--title",
            "Use Postgres",
            "--decision",
            "Postgres for the orders service",
        ],
    );
    at(&r, MAR1, &["state", "set", "--phase", "alpha"]);
    at(
        &r,
        MAR1,
        &[
            "prior",
            "add",
            "--title",
            "Migrations need a dry run",
            "--root-cause",
            "missing_rule",
            "--failure",
            "a migration locked the orders table",
            "--rule",
            "dry-run every migration",
        ],
    );
    at(&r, MAR1, &["fact", "set", "stack:db", "Postgres"]);
    commit_at(&r, "decide Postgres", "2026-03-01T11:00:00Z");
    at(&r, MAR15, &["outcome", &a, "worked under load"]);
    commit_at(&r, "outcome for Postgres", "2026-03-15T11:00:00Z");
    let b = at(
        &r,
        APR1,
        &[
            "decide",
            "--title",
            "Use CockroachDB",
            "--decision",
            "CockroachDB, multi-region",
            "--supersedes",
            &a,
        ],
    );
    at(&r, APR1, &["state", "set", "--phase", "beta"]);
    at(
        &r,
        APR1,
        &[
            "prior",
            "add",
            "--title",
            "Migrations need a dry run on a copy of production",
            "--root-cause",
            "incomplete_rule",
            "--failure",
            "the dry run passed on an empty database",
            "--rule",
            "dry-run on a production-sized copy",
        ],
    );
    at(&r, APR1, &["prior", "supersede", "PR-001", "PR-002"]);
    at(&r, APR1, &["fact", "set", "stack:db", "CockroachDB"]);
    commit_at(&r, "move to CockroachDB", "2026-04-01T11:00:00Z");
    (r, a, b)
}

/// The bundle's sections by name (the name's first word: `Next, from …` is `Next,`).
fn section(v: &serde_json::Value, name: &str) -> String {
    v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with(name))
        .map(|s| s["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn context_as_of_a_date_is_the_bundle_of_then() {
    let (r, a, b) = a_memory_that_changed();
    let v = r.json(&["context", "--as-of", "2026-03-10"]);
    let (state, priors, recent, facts) = (
        section(&v, "State"),
        section(&v, "Priors"),
        section(&v, "Recent"),
        section(&v, "Facts"),
    );
    assert!(
        state.contains("phase: alpha") && !state.contains("beta"),
        "{state}"
    );
    assert!(
        priors.contains("PR-001")
            && priors.contains("dry-run every migration")
            && !priors.contains("PR-002"),
        "{priors}"
    );
    // A was active then (superseded only in April), and its outcome was not yet written.
    assert!(
        recent.contains(&a) && !recent.contains(&b) && !recent.contains("worked under load"),
        "{recent}"
    );
    assert_eq!(facts.trim(), "- stack:db = Postgres");
    // State and priors have no time of their own: the bundle names the commit they come from.
    assert_eq!(v["as_of"]["at"]["kind"], "date");
    assert_eq!(
        v["as_of"]["state_and_priors_from"]["subject"], "decide Postgres",
        "{v}"
    );
    let md = v["markdown"].as_str().unwrap();
    assert!(
        md.contains("carry no time of their own") && md.contains("last at or before"),
        "{md}"
    );
    // After the outcome, before the move: the outcome is there, A still active.
    let recent = section(&r.json(&["context", "--as-of", "2026-03-20"]), "Recent");
    assert!(
        recent.contains(&a) && recent.contains("worked under load") && !recent.contains(&b),
        "{recent}"
    );
    // Now: B, beta, CockroachDB, PR-002 only.
    let now = r.json(&["context"]);
    assert!(now["as_of"].is_null());
    assert!(section(&now, "State").contains("phase: beta"));
    assert!(
        section(&now, "Recent").contains(&b)
            && !section(&now, "Recent").contains(&format!("**ID:** {a}"))
    );
    assert!(
        section(&now, "Priors").contains("PR-002") && !section(&now, "Priors").contains("PR-001")
    );
    assert_eq!(section(&now, "Facts").trim(), "- stack:db = CockroachDB");
    // Before the first commit, nothing says what STATE.md and the priors held: left out, said so.
    let v = r.json(&["context", "--as-of", "2026-02-01"]);
    assert!(v["as_of"]["state_and_priors_from"].is_null(), "{v}");
    assert!(
        section(&v, "State").contains("no STATE.md then") && section(&v, "Priors").is_empty(),
        "{v}"
    );
    assert!(v["markdown"].as_str().unwrap().contains("left out"));
}

#[test]
fn context_as_of_a_commit_reads_that_commits_files() {
    let (r, a, b) = a_memory_that_changed();
    let v = r.json(&["context", "--as-of", "HEAD~1"]);
    assert_eq!(v["as_of"]["at"]["kind"], "commit");
    assert_eq!(
        v["as_of"]["at"]["commit"]["subject"],
        "outcome for Postgres"
    );
    let recent = section(&v, "Recent");
    assert!(
        recent.contains(&a) && recent.contains("worked under load") && !recent.contains(&b),
        "{recent}"
    );
    assert!(section(&v, "State").contains("phase: alpha"));
    assert!(section(&v, "Priors").contains("PR-001") && !section(&v, "Priors").contains("PR-002"));
    assert_eq!(section(&v, "Facts").trim(), "- stack:db = Postgres");
    let text = r.ok(&["context", "--as-of", "HEAD~2"]);
    assert!(
        text.contains("As of commit")
            && text.contains("decide Postgres")
            && !text.contains("worked under load"),
        "{text}"
    );
    assert!(
        r.git(&["status", "--porcelain"]).trim().is_empty(),
        "nothing checked out or written"
    );
}

#[test]
fn context_as_of_a_date_keeps_the_sessions_of_then() {
    let r = Repo::init();
    at(&r, MAR1, &["session", "start"]);
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "march work",
            "--next",
            "ship the March thing",
        ],
    );
    at(&r, APR1, &["session", "start"]);
    at(
        &r,
        APR1,
        &[
            "session",
            "end",
            "--summary",
            "april work",
            "--next",
            "ship the April thing",
        ],
    );
    r.commit_all("sessions");
    let then = section(&r.json(&["context", "--as-of", "2026-03-20"]), "Next");
    assert!(
        then.contains("March thing") && !then.contains("April thing"),
        "{then}"
    );
    assert!(section(&r.json(&["context"]), "Next").contains("April thing"));
    assert!(section(&r.json(&["context", "--as-of", "2026-02-20"]), "Next").is_empty());
}

#[test]
fn context_as_of_that_is_not_a_moment_of_this_repository_is_a_usage_error() {
    let (r, _, _) = a_memory_that_changed();
    for (bad, says) in [
        ("no-such-branch", "not a date"),
        ("2026-02-30x", "not a date"),
        ("2999-01-01", "in the future"),
        ("2999-01-01T00:00:00Z", "in the future"),
    ] {
        let err = r.fails(&["context", "--as-of", bad], 2);
        assert!(
            err.contains("--as-of") && err.contains(says),
            "{bad}: {err}"
        );
    }
    // Today is not the future, though its last second is; tomorrow is.
    at(&r, MAR15, &["context", "--as-of", "2026-03-15"]);
    let out = r
        .cmd(&["context", "--as-of", "2026-03-16"])
        .env("ZO_NOW", MAR15)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in the future"));
}

#[test]
fn history_of_a_prior_names_its_commit_and_what_superseded_it() {
    let (r, _, _) = a_memory_that_changed();
    let h = r.json(&["history", "PR-001"]);
    assert_eq!(h["entry"], "prior");
    assert_eq!(h["status"], "superseded");
    assert_eq!(h["root_cause"], "missing_rule");
    assert_eq!(h["written"]["commit"]["subject"], "decide Postgres", "{h}");
    assert_eq!(h["superseded_by"]["id"], "PR-002");
    assert_eq!(
        h["superseded_by"]["commit"]["subject"],
        "move to CockroachDB"
    );
    let h2 = r.json(&["history", "pr-2"]);
    assert_eq!(h2["status"], "active");
    assert_eq!(h2["supersedes"][0]["id"], "PR-001");
    let text = r.ok(&["history", "PR-001"]);
    assert!(
        text.contains("carry no time of their own")
            && text.contains("by PR-002")
            && text.contains("decide Postgres"),
        "{text}"
    );
    assert!(
        r.fails(&["history", "PR-009"], 1)
            .contains("no prior PR-009")
    );
}

#[test]
fn history_of_a_prior_names_the_session_that_listed_it() {
    let r = Repo::init();
    at(&r, MAR1, &["session", "start", "--agent", "claude-test"]);
    at(
        &r,
        MAR1,
        &[
            "prior",
            "add",
            "--title",
            "Pin the toolchain",
            "--root-cause",
            "novel_case",
            "--failure",
            "a new compiler broke CI",
            "--rule",
            "pin rustc",
        ],
    );
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "ci",
            "--agent",
            "claude-test",
        ],
    );
    let h = r.json(&["history", "PR-001"]);
    assert!(
        h["written"]["session"]
            .as_str()
            .is_some_and(|s| s.starts_with("session-")),
        "{h}"
    );
    assert_eq!(h["written"]["session_ended"], "2026-03-01T10:00:00Z");
    assert_eq!(h["written"]["agent"], "claude-test");
    assert!(h["written"]["commit"].is_null());
}

#[test]
fn history_of_a_fact_key_lists_every_version() {
    let r = Repo::init();
    r.commit_all("zo init");
    at(&r, MAR1, &["session", "start", "--agent", "claude-test"]);
    at(
        &r,
        MAR1,
        &["fact", "set", "stack:db", "Postgres", "--source", "kickoff"],
    );
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "db",
            "--agent",
            "claude-test",
        ],
    );
    r.commit_all("db is Postgres");
    at(&r, APR1, &["fact", "set", "stack:db", "CockroachDB"]);
    at(
        &r,
        APR10,
        &[
            "fact",
            "set",
            "stack:db",
            "CockroachDB 24",
            "--confidence",
            "0.4",
        ],
    );
    r.commit_all("db moves");
    let h = r.json(&["history", "stack:db"]);
    assert_eq!(h["entry"], "fact");
    assert_eq!(h["key"], "stack:db");
    let v = h["versions"].as_array().unwrap();
    let values: Vec<&str> = v.iter().map(|x| x["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["Postgres", "CockroachDB", "CockroachDB 24"], "{h}");
    let status: Vec<&str> = v.iter().map(|x| x["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["superseded", "active", "provisional"]);
    assert_eq!(h["holds"], v[1]["id"]);
    assert_eq!(v[0]["set"], "2026-03-01T10:00:00.000Z");
    assert_eq!(v[0]["source"], "kickoff");
    assert_eq!(v[0]["agent"], "claude-test", "{h}");
    assert!(
        v[0]["session"]
            .as_str()
            .is_some_and(|s| s.starts_with("session-"))
    );
    assert_eq!(v[0]["commit"]["subject"], "db is Postgres");
    assert_eq!(v[0]["superseded_by"][0], v[1]["id"]);
    assert_eq!(v[1]["supersedes"][0], v[0]["id"]);
    assert_eq!(v[2]["confidence"], 0.4);
    // Asked by a version's ID: the same key's life.
    let by_id = r.json(&["history", v[0]["id"].as_str().unwrap()]);
    assert_eq!(by_id["versions"].as_array().unwrap().len(), 3);
    assert_eq!(by_id["asked"], v[0]["id"]);
    // Confirming the provisional one appends a confirmed copy that names it (an hour later:
    // versions of one second are ordered by their random IDs).
    at(&r, "1775818800", &["confirm", v[2]["id"].as_str().unwrap()]);
    let h = r.json(&["history", "stack:db"]);
    let v = h["versions"].as_array().unwrap();
    assert_eq!(v.len(), 4, "{h}");
    assert_eq!(v[2]["confirmed_by"], v[3]["id"]);
    assert_eq!(h["holds"], v[3]["id"]);
    let text = r.ok(&["history", "stack:db"]);
    assert!(
        text.contains("= Postgres")
            && text.contains("confirmed by")
            && text.contains("superseded by"),
        "{text}"
    );
    assert!(
        r.fails(&["history", "stack:nothing"], 1)
            .contains("no fact stack:nothing")
    );
}

#[test]
fn history_of_a_forgotten_prior_or_fact_shows_the_tombstone_never_the_text() {
    let (r, _, _) = a_memory_that_changed();
    let old = r.json(&["history", "stack:db"])["versions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    forget_at(
        &r,
        APR10,
        &["forget", "PR-001", "--reason", "held a hostname"],
    );
    forget_at(&r, APR10, &["forget", &old, "--reason", "held a password"]);
    let p = r.json(&["history", "PR-001"]);
    assert_eq!(p["status"], "forgotten");
    assert_eq!(p["forgotten"]["reason"], "held a hostname");
    assert!(p["root_cause"].is_null());
    let f = r.json(&["history", "stack:db"]);
    let v0 = &f["versions"][0];
    assert_eq!(
        v0["id"],
        old.as_str(),
        "the tombstone stays in the key's life: {f}"
    );
    assert_eq!(v0["status"], "forgotten");
    assert_eq!(v0["forgotten"]["reason"], "held a password");
    assert!(v0["value"].is_null() && v0["set"].is_null());
    let by_id = r.json(&["history", &old]);
    let all = format!(
        "{p}{f}{by_id}{}{}{}",
        r.ok(&["history", "PR-001"]),
        r.ok(&["history", "stack:db"]),
        r.ok(&["history", &old])
    );
    for erased in [
        "Migrations need a dry run\n",
        "\"Migrations need a dry run\"",
        "dry-run every migration",
        "orders table",
        "Postgres\n",
        "\"Postgres\"",
    ] {
        assert!(!all.contains(erased), "{erased:?} came back: {all}");
    }
    assert!(!all.contains("= Postgres"), "{all}");
}

/// A commit's files still hold what was forgotten since; reading them for `--as-of` showed the
/// erased value again (`fact get --as-of HEAD~2` printed it).
#[test]
fn as_of_a_commit_does_not_bring_back_forgotten_text() {
    let (r, a, _) = a_memory_that_changed();
    let old = r.json(&["history", "stack:db"])["versions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    forget_at(&r, APR10, &["forget", &old, "--reason", "held a password"]);
    forget_at(&r, APR10, &["forget", &a, "--reason", "named a customer"]);
    forget_at(
        &r,
        APR10,
        &["forget", "PR-001", "--reason", "held a hostname"],
    );
    let err = r.fails(&["fact", "get", "stack:db", "--as-of", "HEAD~1"], 1);
    assert!(!err.contains("Postgres"), "{err}");
    let shown = r.json(&["show", &a, "--as-of", "HEAD~1"]);
    assert_eq!(shown["status"], "forgotten", "{shown}");
    let ctx = r.ok(&["--json", "context", "--as-of", "HEAD~1"]);
    for erased in [
        "Postgres for the orders service",
        "worked under load",
        "dry-run every migration",
        "= Postgres",
    ] {
        assert!(!ctx.contains(erased), "{erased:?} came back: {ctx}");
    }
    let log = r.ok(&["--json", "log", "--as-of", "HEAD~2"]);
    assert!(!log.contains("Use Postgres"), "{log}");
}

#[test]
fn mcp_tools_take_as_of_and_history() {
    let (r, a, b) = a_memory_that_changed();
    let calls = [
        ("log", serde_json::json!({"as_of": "2026-03-20"})),
        (
            "fact_get",
            serde_json::json!({"key": "stack:db", "as_of": "HEAD~1"}),
        ),
        ("fact_list", serde_json::json!({"as_of": "2026-03-20"})),
        ("show", serde_json::json!({"id": a, "as_of": "2026-03-20"})),
        ("context", serde_json::json!({"as_of": "2026-03-10"})),
        (
            "recall",
            serde_json::json!({"query": "Postgres orders service", "mode": "lexical", "as_of": "2026-03-20"}),
        ),
        ("history", serde_json::json!({"id": "PR-001"})),
        ("log", serde_json::json!({"as_of": "no-such-branch"})),
        ("context", serde_json::json!({"as_of": "2999-01-01"})),
    ];
    let mut input = String::from(
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
    );
    for (i, (name, args)) in calls.iter().enumerate() {
        let req = serde_json::json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": name, "arguments": args}});
        input.push_str(&format!("{req}\n"));
    }
    let out = r.run_stdin(&["mcp"], &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut res: Vec<serde_json::Value> = vec![serde_json::Value::Null; calls.len() + 1];
    for line in out.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        res[v["id"].as_u64().unwrap() as usize] = v["result"].clone();
    }
    let ok = |i: usize| {
        assert!(res[i]["isError"] != true, "{:?}: {}", calls[i - 1], res[i]);
        res[i]["structuredContent"].clone()
    };
    let log = ok(1);
    assert_eq!(log["decisions"].as_array().unwrap().len(), 1, "{log}");
    assert_eq!(log["decisions"][0]["id"], a.as_str());
    assert_eq!(log["decisions"][0]["status"], "active");
    assert_eq!(log["as_of"]["kind"], "date");
    assert_eq!(ok(2)["value"], "Postgres");
    assert_eq!(ok(3)["facts"][0]["value"], "Postgres");
    assert!(ok(4)["superseded_by"].is_null());
    let ctx = ok(5);
    assert_eq!(
        ctx["as_of"]["state_and_priors_from"]["subject"],
        "decide Postgres"
    );
    assert!(!ctx["markdown"].as_str().unwrap().contains(&b));
    let hits = ok(6)["results"].as_array().unwrap().clone();
    assert_eq!(hits[0]["id"], a.as_str(), "{hits:?}");
    assert_eq!(hits[0]["status"], "active");
    assert_eq!(ok(7)["superseded_by"]["id"], "PR-002");
    for i in [8, 9] {
        assert_eq!(res[i]["isError"], true, "{}", res[i]);
        let text = res[i]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("--as-of"), "{text}");
    }
}

#[test]
fn forgetting_a_session_takes_its_text_out_of_state_now_and_as_of() {
    let r = Repo::init();
    r.commit_all("zo init");
    at(&r, MAR1, &["session", "start"]);
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "s",
            "--next",
            "call the vendor about quokka-77",
            "--blocker",
            "waiting on quokka-88",
            "--shipped",
            "quokka-99 shipped",
        ],
    );
    r.commit_all("session");
    assert!(r.read(".zo/memory/STATE.md").contains("quokka-77"));
    assert!(
        at(&r, APR1, &["context", "--as-of", "HEAD"]).contains("quokka-77"),
        "the as-of bundle shows STATE.md's fields"
    );
    let name = std::fs::read_dir(r.path().join(".zo/memory/sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("session-"))
        .unwrap();
    let session = name.trim_end_matches(".md");
    let f = util::forget(
        &r.cmd(&["--json", "forget", session, "--reason", "asked to"]),
        session,
    );
    let f = util::json_in(&f.stdout);
    assert_eq!(f["state_cleared"].as_array().unwrap().len(), 4, "{f}");
    let state = r.read(".zo/memory/STATE.md");
    assert!(!state.contains("quokka"), "{state}");
    assert!(
        state.contains("phase:") && state.contains("## Current Position"),
        "the rest of STATE.md stays: {state}"
    );
    // Now, and at the commit before the forget (whose STATE.md still holds the text).
    for args in [
        vec!["context"],
        vec!["context", "--as-of", "HEAD"],
        vec!["context", "--as-of", "2026-03-02"],
    ] {
        let c = at(&r, APR1, &args);
        assert!(!c.contains("quokka"), "{args:?}: {c}");
    }
}

#[test]
fn forgetting_a_session_keeps_state_fields_written_since() {
    let r = Repo::init();
    at(&r, MAR1, &["session", "start"]);
    at(
        &r,
        MAR1,
        &[
            "session",
            "end",
            "--summary",
            "one",
            "--next",
            "first plan quokka",
            "--blocker",
            "same blocker",
        ],
    );
    let first = std::fs::read_dir(r.path().join(".zo/memory/sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("session-"))
        .unwrap();
    at(&r, MAR15, &["session", "start"]);
    at(
        &r,
        MAR15,
        &[
            "session",
            "end",
            "--summary",
            "two",
            "--next",
            "second plan",
        ],
    );
    let session = first.trim_end_matches(".md");
    let f = util::forget(
        &r.cmd(&["forget", session, "--reason", "asked to"]),
        session,
    );
    assert_eq!(f.code, 0, "{}", f.stdout);
    let state = r.read(".zo/memory/STATE.md");
    assert!(state.contains("second plan"), "{state}");
    // The blockers were the first session's and nobody changed them: cleared.
    assert!(
        !state.contains("same blocker") && !state.contains("quokka"),
        "{state}"
    );
}

#[test]
fn shallow_clone_says_the_first_commit_is_unknown_not_the_tip() {
    let r = Repo::init();
    r.commit_all("zo init");
    let a = r.decide("Use Postgres", "Postgres for orders");
    r.commit_all("decide Postgres");
    let b = r.decide("Use Redis", "Redis for the cache");
    r.commit_all("decide Redis");
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("c");
    util::git_in(
        dir.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "2",
            &format!("file://{}", r.path().display()),
            clone.to_str().unwrap(),
        ],
    );
    // `a` is in the oldest commit here: when it entered history is not here.
    let ha = util::zo_in(&clone, &["history", &a, "--json"]).json();
    assert!(ha["written"]["commit"].is_null(), "{ha}");
    assert!(
        ha["written"]["shallow"]
            .as_str()
            .is_some_and(|s| s.starts_with("shallow clone: history before ")),
        "{ha}"
    );
    let text = util::zo_ok(&clone, &["history", &a]);
    assert!(
        text.contains("first commit unknown (shallow clone: history before ")
            && !text.contains("not in any commit"),
        "{text}"
    );
    // `b` came in a commit that is here.
    let hb = util::zo_in(&clone, &["history", &b, "--json"]).json();
    assert_eq!(hb["written"]["commit"]["subject"], "decide Redis", "{hb}");
    assert!(hb["written"]["shallow"].is_null(), "{hb}");
    // The site tells the same life.
    util::zo_ok(&clone, &["site"]);
    let page = std::fs::read_to_string(clone.join(format!(".zo/site/d/{a}.html"))).unwrap();
    assert!(
        page.contains("first commit unknown (shallow clone: history before ")
            && !page.contains("first committed in"),
        "{page}"
    );
    let page = std::fs::read_to_string(clone.join(format!(".zo/site/d/{b}.html"))).unwrap();
    assert!(page.contains("first committed in"), "{page}");
    // A date before the commits here: the history is shallow, not empty.
    let c = util::zo_ok(&clone, &["context", "--as-of", "2020-01-01"]);
    assert!(
        c.contains("shallow clone: history before ") && !c.contains("no commit was made"),
        "{c}"
    );
}

#[test]
fn supersedes_line_is_dated_when_the_supersession_was_recorded() {
    let (r, a, b) = three_commits();
    let hb = r.json(&["history", &b]);
    assert_eq!(hb["supersedes"][0]["id"], a.as_str());
    assert_eq!(
        hb["supersedes"][0]["timestamp"], "2026-04-01T10:00:00Z",
        "{hb}"
    );
    let text = r.ok(&["history", &b]);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("supersedes"))
        .unwrap();
    assert!(
        line.contains("2026-04-01T10:00:00Z") && !line.contains("2026-03-01"),
        "{text}"
    );
}

#[test]
fn forgotten_is_said_once_in_log_and_history_lines() {
    let r = Repo::init();
    let a = r.decide("Secret plan", "erase me");
    assert_eq!(
        util::forget(&r.cmd(&["forget", &a, "--reason", "asked to"]), &a).code,
        0
    );
    let log = r.ok(&["log", "--all"]);
    let line = log.lines().find(|l| l.starts_with(&a)).unwrap();
    assert_eq!(line.matches("[forgotten]").count(), 1, "{line}");
    let h = r.ok(&["history", &a]);
    assert_eq!(
        h.lines().next().unwrap().matches("[forgotten]").count(),
        1,
        "{h}"
    );
}

#[test]
fn as_of_offset_beyond_23_59_is_a_usage_error() {
    let r = Repo::init();
    r.commit_all("zo init");
    for bad in [
        "2026-10-05T00:00:00+99:00",
        "2026-10-05T00:00:00+24:00",
        "2026-10-05T00:00:00-00:60",
        "2026-10-05T00:00:00++1:00",
    ] {
        r.fails(&["log", "--as-of", bad], 2);
    }
    // The edges of the range are offsets.
    at(&r, APR10, &["log", "--as-of", "2026-03-05T00:00:00+23:59"]);
    at(&r, APR10, &["log", "--as-of", "2026-03-05T00:00:00-23:59"]);
}

#[test]
fn log_as_of_a_commit_without_memory_says_so() {
    let r = Repo::new();
    r.write("README.md", "before zo");
    r.commit_all("before zo");
    r.ok(&["init"]);
    r.decide("Use Postgres", "Postgres");
    r.commit_all("zo init");
    let out = r.cmd(&["log", "--as-of", "HEAD~1"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("holds no zo memory") && !err.contains("no decisions match"),
        "{err}"
    );
    // A commit with memory and nothing that matches still says so.
    let out = r
        .cmd(&["log", "--as-of", "HEAD", "--type", "nonesuch"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("holds no zo memory"), "{err}");
}
