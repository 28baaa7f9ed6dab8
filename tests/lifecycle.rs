//! The memory lifecycle end to end through the binary: facts and preferences, the promotion
//! gate, near-duplicates, forgetting, staleness against the code, decay and the recall cascade,
//! including merges of real clones.

mod util;
use util::{Repo, World, commit_in, git_in, zo_command, zo_in, zo_ok};

fn json_of(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

#[test]
fn facts_set_get_list_and_exit_codes() {
    let r = Repo::init();
    let id = r
        .ok(&["fact", "set", "stack:web-framework", "Hono, not Express"])
        .trim()
        .to_string();
    assert!(id.starts_with("F-"), "{id}");
    assert_eq!(
        r.ok(&["fact", "get", "stack:web-framework"]),
        "Hono, not Express\n"
    );
    assert_eq!(
        r.ok(&["fact", "get", "STACK:web-framework"]),
        "Hono, not Express\n",
        "keys compare without ASCII case"
    );
    // Setting the same value again writes nothing.
    let before = r.read(".zo/memory/FACTS.md");
    let again = r.run(&["fact", "set", "stack:web-framework", "Hono, not Express"]);
    assert_eq!((again.code, again.stdout.trim()), (0, id.as_str()));
    assert!(
        again.stderr.contains("nothing was written"),
        "{}",
        again.stderr
    );
    assert_eq!(r.read(".zo/memory/FACTS.md"), before);
    // A new value is a new version; the latest holds and the old one is kept.
    let v2 = r
        .ok(&[
            "fact",
            "set",
            "stack:web-framework",
            "Hono 4",
            "--source",
            "team call",
        ])
        .trim()
        .to_string();
    assert_eq!(r.ok(&["fact", "get", "stack:web-framework"]), "Hono 4\n");
    let got = r.json(&["fact", "get", "stack:web-framework"]);
    assert_eq!(
        (
            got["id"].as_str(),
            got["status"].as_str(),
            got["source"].as_str(),
            got["scope"].as_str()
        ),
        (
            Some(v2.as_str()),
            Some("active"),
            Some("team call"),
            Some("project")
        )
    );
    let all = r.json(&["fact", "list", "--all"]);
    let statuses: Vec<&str> = all["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["superseded", "active"]);
    // Markdown values round-trip byte for byte.
    let md = "Dates are DD/MM/YYYY.\n\n```\n## Fact: not a heading\n**Value:** not a field\n```";
    r.ok(&["fact", "set", "format:dates", md]);
    assert_eq!(r.ok(&["fact", "get", "format:dates"]), format!("{md}\n"));
    assert_eq!(
        r.ok(&["fact", "list", "format:"]).lines().count(),
        6,
        "one fact, its value on further lines"
    );
    // Absent: exit 1, with a JSON document saying so.
    let miss = r.run(&["--json", "fact", "get", "stack:db"]);
    assert_eq!(miss.code, 1, "{}", miss.stderr);
    assert_eq!(miss.json()["found"], false);
    assert!(miss.stderr.contains("no fact stack:db"), "{}", miss.stderr);
    // Bad keys and confidences are usage errors naming the rule; nothing is written.
    let before = r.read(".zo/memory/FACTS.md");
    assert!(
        r.fails(&["fact", "set", "webframework", "x"], 2)
            .contains("category:entity")
    );
    assert!(
        r.fails(&["fact", "set", "stack:web", "x", "--confidence", "1.5"], 2)
            .contains("from 0 to 1")
    );
    assert!(
        r.fails(&["fact", "set", "infra:db", "password=hunter22"], 1)
            .contains("secret")
    );
    assert_eq!(r.read(".zo/memory/FACTS.md"), before);
    r.ok(&["verify"]);
}

#[test]
fn user_facts_apply_everywhere_and_project_facts_win() {
    let r = Repo::init();
    r.ok(&["fact", "set", "pref:indent", "tabs", "--scope", "user"]);
    r.ok(&["fact", "set", "pref:editor", "helix", "--scope", "user"]);
    r.ok(&["fact", "set", "pref:indent", "4 spaces"]);
    assert!(
        !r.path()
            .join(".zo/memory/FACTS.md")
            .read_to_string_contains("helix"),
        "user facts are never in the repository"
    );
    assert!(r.user_dir().join("FACTS.md").is_file());
    assert_eq!(
        r.ok(&["fact", "get", "pref:indent"]),
        "4 spaces\n",
        "the project's rule is the more specific one"
    );
    assert_eq!(
        r.ok(&["fact", "get", "pref:indent", "--scope", "user"]),
        "tabs\n"
    );
    assert_eq!(r.ok(&["fact", "get", "pref:editor"]), "helix\n");
    let list = r.ok(&["fact", "list"]);
    assert_eq!(
        list,
        "pref:indent = 4 spaces\npref:editor = helix  [user]\n"
    );
    // Scope filters before ranking: a user-scope recall sees only user facts.
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--scope",
        "user",
        "editor indent",
    ]);
    let ids: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_str().unwrap())
        .collect();
    assert!(!ids.is_empty() && ids.iter().all(|k| *k == "fact"), "{v}");
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["type"] == "user"),
        "{v}"
    );
    // And the bundle holds both, whole, before ranked content.
    let md = r.ok(&["context"]);
    let facts = md.find("## Facts").expect("a Facts section");
    assert!(
        facts < md.find("## Priors").unwrap_or(usize::MAX)
            && facts < md.find("## Recent decisions").unwrap_or(usize::MAX)
    );
    assert!(
        md.contains("- pref:indent = 4 spaces\n") && md.contains("- pref:editor = helix  (user)"),
        "{md}"
    );
}

trait ReadContains {
    fn read_to_string_contains(&self, s: &str) -> bool;
}
impl ReadContains for std::path::PathBuf {
    fn read_to_string_contains(&self, s: &str) -> bool {
        std::fs::read_to_string(self)
            .unwrap_or_default()
            .contains(s)
    }
}

#[test]
fn a_provisional_entry_stays_out_of_the_bundle_and_recall_until_confirmed() {
    let r = Repo::init();
    let d = r.json(&[
        "decide",
        "--title",
        "Maybe try Redis for sessions",
        "--decision",
        "Redis could hold the session cache",
        "--confidence",
        "0.4",
    ]);
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(d["status"], "provisional");
    let idea = r.json(&[
        "decide",
        "--type",
        "IDEA",
        "--title",
        "Rewrite the CLI in Zig",
        "--decision",
        "zig for speed",
    ]);
    assert_eq!(
        idea["status"], "provisional",
        "an IDEA proposes; zo decides the status, not the caller"
    );
    let sure = r.json(&[
        "decide",
        "--title",
        "Keep Postgres",
        "--decision",
        "Postgres for orders",
        "--confidence",
        "0.9",
    ]);
    assert_eq!(sure["status"], "active");
    let fact = r.json(&[
        "fact",
        "set",
        "infra:cache",
        "maybe Redis",
        "--confidence",
        "0.5",
    ]);
    assert_eq!(fact["status"], "provisional");
    let fid = fact["id"].as_str().unwrap().to_string();

    let md = r.ok(&["context"]);
    assert!(md.contains("Keep Postgres"), "{md}");
    assert!(
        !md.contains("Redis") && !md.contains("Zig"),
        "provisional entries are out of the bundle:\n{md}"
    );
    let hits = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["recall", "--mode", "lexical", "-k", "10"];
        a.extend_from_slice(args);
        r.json(&a)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        !hits(&["redis session cache"]).contains(&id),
        "out of default recall"
    );
    assert!(
        hits(&["--provisional", "redis session cache"]).contains(&id),
        "visible on request"
    );
    r.fails(&["fact", "get", "infra:cache"], 1);
    assert_eq!(
        r.ok(&["fact", "get", "--provisional", "infra:cache"]),
        "maybe Redis\n"
    );
    assert!(r.ok(&["log"]).contains("[provisional]"));
    assert_eq!(r.json(&["status"])["counts"]["provisional"], 2);

    // Confirming twice is refused the second time; the first promotes.
    r.ok(&["confirm", &id]);
    // Confirming again is a no-op (it exited 1 "not provisional" before): nothing is written.
    let log = r.read(r.log_path());
    let again = r.run(&["--json", "confirm", &id]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.json()["unchanged"], true);
    assert_eq!(r.read(r.log_path()), log);
    r.ok(&["confirm", &fid]);
    let facts = r.read(".zo/memory/FACTS.md");
    assert_eq!(r.json(&["confirm", &fid])["unchanged"], true);
    assert_eq!(r.read(".zo/memory/FACTS.md"), facts);
    assert_eq!(r.ok(&["fact", "get", "infra:cache"]), "maybe Redis\n");
    let md = r.ok(&["context"]);
    assert!(
        md.contains("Maybe try Redis for sessions") && md.contains("- infra:cache = maybe Redis"),
        "{md}"
    );
    assert!(hits(&["redis session cache"]).contains(&id));
    assert!(!md.contains("Zig"));
    r.ok(&["verify"]);
}

#[test]
fn promotion_threshold_comes_from_config_and_a_bad_one_is_named() {
    let r = Repo::init();
    let cfg = r.read(".zo/config.yaml");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}promotion:\n  threshold: 0.3\n"),
    );
    let d = r.json(&[
        "decide",
        "--title",
        "Fairly sure",
        "--decision",
        "x",
        "--confidence",
        "0.4",
    ]);
    assert_eq!(d["status"], "active");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}promotion:\n  threshold: lots\n"),
    );
    let err = r.fails(&["decide", "--title", "Other", "--decision", "y"], 2);
    assert!(
        err.contains("config.yaml") && err.contains("promotion.threshold"),
        "{err}"
    );
}

#[test]
fn a_near_duplicate_title_is_reported_with_a_supersedes_hint() {
    let r = Repo::init();
    let first = r.decide("Adopt Hono for the HTTP API", "Hono everywhere");
    let run = r.run(&[
        "--json",
        "decide",
        "--title",
        "Adopt Hono for the API",
        "--decision",
        "Hono for the public API",
    ]);
    assert_eq!(run.code, 0);
    let v = run.json();
    assert_eq!(v["similar"][0]["id"], first.as_str());
    assert!(
        run.stderr.contains(&format!("--supersedes {first}"))
            && run.stderr.contains("is written, and looks like"),
        "the warning says the decision was written: {}",
        run.stderr
    );
    // Not for a different subject, nor for the decision it supersedes.
    let other = r.run(&[
        "decide",
        "--title",
        "Cache sessions in Redis",
        "--decision",
        "redis",
    ]);
    assert!(!other.stderr.contains("looks like"), "{}", other.stderr);
    let sup = r.run(&[
        "--json",
        "decide",
        "--title",
        "Adopt Hono for all HTTP APIs",
        "--decision",
        "h",
        "--supersedes",
        &first,
    ]);
    assert!(
        sup.json()["similar"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["id"] != first.as_str()),
        "{}",
        sup.stdout
    );
    // Priors too.
    let p1 = r
        .ok(&[
            "prior",
            "add",
            "--title",
            "Never redirect stderr of a TUI",
            "--root-cause",
            "missing_rule",
            "--failure",
            "f",
            "--rule",
            "r",
        ])
        .trim()
        .to_string();
    let p2 = r.run(&[
        "--json",
        "prior",
        "add",
        "--title",
        "Never redirect the stderr of TUI apps",
        "--root-cause",
        "missing_rule",
        "--failure",
        "g",
        "--rule",
        "r",
    ]);
    assert_eq!(p2.json()["similar"][0]["id"], p1.as_str(), "{}", p2.stdout);
    assert!(
        p2.stderr.contains(&format!("zo prior supersede {p1}")),
        "{}",
        p2.stderr
    );
}

#[test]
fn two_clones_set_the_same_key_and_the_merge_keeps_both_versions() {
    let w = World::new();
    let a = w.clone("a");
    zo_ok(&a, &["init", "--project", "shared"]);
    zo_ok(&a, &["fact", "set", "stack:db", "Postgres 15"]);
    commit_in(&a, "base");
    git_in(&a, &["push", "-q", "origin", "main"]);
    let b = w.clone("b");
    zo_ok(&b, &["continue"]);
    let va = zo_ok(&a, &["fact", "set", "stack:db", "Postgres 16"])
        .trim()
        .to_string();
    commit_in(&a, "a: pg16");
    // Set later on B: B's version is the later one and holds on both sides after the merge.
    let vb = zo_in(&b, &["fact", "set", "stack:db", "CockroachDB"]);
    assert_eq!(vb.code, 0);
    let vb = vb.stdout.trim().to_string();
    zo_ok(&b, &["fact", "set", "stack:queue", "NATS"]);
    commit_in(&b, "b: crdb");
    git_in(&b, &["push", "-q", "origin", "main"]);
    git_in(
        &a,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    let facts = std::fs::read_to_string(a.join(".zo/memory/FACTS.md")).unwrap();
    assert!(!facts.contains("<<<<<<<"), "{facts}");
    assert!(
        facts.contains(&va) && facts.contains(&vb),
        "both versions kept:\n{facts}"
    );
    assert_eq!(
        zo_ok(&a, &["fact", "get", "stack:db"]),
        "CockroachDB\n",
        "the later version holds"
    );
    assert_eq!(zo_ok(&a, &["fact", "get", "stack:queue"]), "NATS\n");
    let v = json_of(&zo_ok(&a, &["--json", "verify"]));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["forks"][0]["key"], "stack:db", "{v}");
    assert_eq!(
        (
            v["forks"][0]["holds"].as_str(),
            v["forks"][0]["other"].as_str()
        ),
        (Some(vb.as_str()), Some(va.as_str()))
    );
    let text = zo_in(&a, &["verify"]);
    assert!(
        text.stderr.contains("stack:db was set on two clones"),
        "{}",
        text.stderr
    );
    zo_ok(&a, &["verify", "--history"]);
    // Setting the key again settles it.
    zo_ok(&a, &["fact", "set", "stack:db", "Postgres 16"]);
    assert_eq!(
        json_of(&zo_ok(&a, &["--json", "verify"]))["forks"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    commit_in(&a, "a: settle");
    git_in(&a, &["push", "-q", "origin", "main"]);
    // `git pull --rebase`: B's later version is replayed on top of A's; it holds.
    zo_ok(&b, &["fact", "set", "stack:db", "Spanner"]);
    commit_in(&b, "b: spanner");
    git_in(&b, &["pull", "-q", "--rebase", "origin", "main"]);
    let facts = std::fs::read_to_string(b.join(".zo/memory/FACTS.md")).unwrap();
    assert!(
        !facts.contains("<<<<<<<") && facts.contains("Postgres 16") && facts.contains("NATS"),
        "{facts}"
    );
    assert_eq!(zo_ok(&b, &["fact", "get", "stack:db"]), "Spanner\n");
    zo_ok(&b, &["verify", "--history"]);
}

#[test]
fn an_erasure_survives_a_merge_from_a_clone_that_still_has_the_text() {
    let w = World::new();
    let a = w.clone("a");
    zo_ok(&a, &["init", "--project", "shared"]);
    let leak = "the staging database answers to admin with passphrase plum-orchard-7";
    let id = zo_ok(
        &a,
        &[
            "decide",
            "--title",
            "Staging database access",
            "--decision",
            leak,
            "--rationale",
            "so agents can reach it",
        ],
    )
    .trim()
    .to_string();
    let keep = zo_ok(
        &a,
        &[
            "decide",
            "--title",
            "Keep staging small",
            "--decision",
            "one node",
        ],
    )
    .trim()
    .to_string();
    let fid = zo_ok(
        &a,
        &["fact", "set", "person:oncall", "Jane Roe, +1 555 0100"],
    )
    .trim()
    .to_string();
    commit_in(&a, "base");
    git_in(&a, &["push", "-q", "origin", "main"]);
    zo_ok(&a, &["index", "rebuild"]);
    let db = std::fs::read(a.join(".zo/memory/index.db")).unwrap();
    assert!(
        db.windows(11).any(|w| w == b"plum-orchar"),
        "the index held the text before"
    );
    let b = w.clone("b");
    zo_ok(&b, &["continue"]);

    // A forgets both; B, which still has the text, records something else meanwhile.
    let replace = a.parent().unwrap().join("replace-text.txt");
    let forgot = util::forget(
        zo_command(&a).args([
            "--json",
            "forget",
            &id,
            "--reason",
            "held a credential",
            "--replace-text",
            replace.to_str().unwrap(),
        ]),
        &id,
    );
    assert_eq!(forgot.code, 0, "{}", forgot.stdout);
    let f = util::json_in(&forgot.stdout);
    assert_eq!(
        (
            f["kind"].as_str(),
            f["in_history"].as_bool(),
            f["index_purged"].as_bool()
        ),
        (Some("decision"), Some(true), Some(true))
    );
    let plan = std::fs::read_to_string(f["replacements"].as_str().unwrap()).unwrap();
    assert!(plan.contains(&format!("literal:{leak}==>")), "{plan}");
    assert!(
        !plan.contains("literal:DECISION") && !plan.contains("literal:pending"),
        "structure is not replaced in history: {plan}"
    );
    assert!(
        f["purge"][0]
            .as_str()
            .unwrap()
            .starts_with("git filter-repo --replace-text")
    );
    std::fs::remove_file(f["replacements"].as_str().unwrap()).unwrap();
    let text = util::forget(
        zo_command(&a).args(["forget", &fid, "--reason", "personal data"]),
        &fid,
    );
    assert!(
        text.stdout.contains("Git history still holds the text"),
        "{}",
        text.stdout
    );
    for file in ["DECISION_LOG.md", "FACTS.md", "index.db"] {
        let bytes = std::fs::read(a.join(".zo/memory").join(file)).unwrap();
        assert!(
            !bytes.windows(11).any(|w| w == b"plum-orchar")
                && !bytes.windows(8).any(|w| w == b"555 0100"),
            "{file} still holds the text"
        );
    }
    assert!(
        zo_in(&a, &["forget", &id, "--reason", "again"])
            .stderr
            .contains("already forgotten")
    );
    zo_ok(&a, &["verify"]);
    commit_in(&a, "forget");
    git_in(&a, &["push", "-q", "origin", "main"]);
    zo_ok(
        &b,
        &[
            "decide",
            "--title",
            "Nightly staging reset",
            "--decision",
            "wipe at 02:00",
        ],
    );
    commit_in(&b, "b: reset");
    git_in(
        &b,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    for file in ["DECISION_LOG.md", "FACTS.md"] {
        let t = std::fs::read_to_string(b.join(".zo/memory").join(file)).unwrap();
        assert!(
            !t.contains("plum-orchard") && !t.contains("555 0100") && !t.contains("<<<<<<<"),
            "the merge resurrected erased text in {file}:\n{t}"
        );
    }
    let log = json_of(&zo_ok(&b, &["--json", "log", "--all"]));
    let ids: Vec<&str> = log["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&keep.as_str()) && ids.contains(&id.as_str()),
        "{ids:?}"
    );
    assert_eq!(
        json_of(&zo_ok(&b, &["--json", "show", &id]))["status"],
        "forgotten"
    );
    zo_ok(&b, &["verify"]);
    let hist = zo_in(&b, &["verify", "--history"]);
    assert_eq!(hist.code, 0, "{}", hist.stderr);
    assert!(
        hist.stderr.contains(&format!("{id} (decision) forgotten"))
            && hist.stderr.contains("held a credential"),
        "{}",
        hist.stderr
    );
    assert!(
        hist.stderr.contains(&format!("{fid} (fact) forgotten")),
        "{}",
        hist.stderr
    );
    // Nothing recalls it any more.
    let v = json_of(&zo_ok(
        &b,
        &[
            "--json",
            "recall",
            "--mode",
            "lexical",
            "--all",
            "staging database passphrase",
        ],
    ));
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] != id.as_str()),
        "{v}"
    );
}

#[test]
fn verify_accepts_a_tombstone_and_nothing_else() {
    let r = Repo::init();
    let id = r.decide("Secret holder", "held a token once");
    let pr = r
        .ok(&[
            "prior",
            "add",
            "--title",
            "Lesson with a name",
            "--root-cause",
            "novel_case",
            "--failure",
            "Jane's laptop",
            "--rule",
            "r",
        ])
        .trim()
        .to_string();
    r.commit_all("base");
    for (id, why) in [(&id, "token"), (&pr, "a person's name")] {
        let f = util::forget(&r.cmd(&["forget", id, "--reason", why]), id);
        assert_eq!(f.code, 0, "{}", f.stdout);
    }
    r.ok(&["verify"]);
    assert!(r.ok(&["prior", "list"]).contains(&format!("{pr}  ")));
    assert!(!r.ok(&["context"]).contains("Lesson with a name"));
    // A hand edit that keeps the tombstone's shape but changes its links is not a tombstone.
    let log = r.read(".zo/memory/DECISION_LOG.md");
    r.write(
        ".zo/memory/DECISION_LOG.md",
        &log.replace(
            "**Type:** FORGOTTEN",
            "**Type:** FORGOTTEN\n**Refs:** D-00000000",
        ),
    );
    let err = r.fails(&["verify"], 4);
    assert!(
        err.contains(&format!("decision {id}")) && err.contains("append-only"),
        "{err}"
    );
    // Nor is a deletion.
    r.write(".zo/memory/DECISION_LOG.md", &log);
    r.ok(&["verify"]);
    let text = r.read(".zo/memory/PRIORS.md");
    let cut = text.find(&format!("## {pr}")).unwrap();
    r.write(".zo/memory/PRIORS.md", &text[..cut]);
    assert!(r.fails(&["verify"], 4).contains(&pr));
}

#[test]
fn stale_decisions_are_flagged_in_stale_status_recall_and_the_bundle() {
    let r = Repo::init();
    r.write(
        "src/api/routes.txt",
        &(1..=100)
            .map(|i| format!("route {i}\n"))
            .collect::<String>(),
    );
    r.write("docs/readme.txt", "docs\n");
    r.commit_all("code");
    let id = r
        .ok(&[
            "decide",
            "--title",
            "Routes are flat",
            "--decision",
            "no nesting in the api routes",
            "--paths",
            "src/api/, ./docs/readme.txt",
        ])
        .trim()
        .to_string();
    let other = r
        .ok(&[
            "decide",
            "--title",
            "Docs in plain text",
            "--decision",
            "txt docs",
            "--paths",
            "docs",
        ])
        .trim()
        .to_string();
    assert!(
        r.read(".zo/memory/DECISION_LOG.md")
            .contains("**Paths:** src/api, docs/readme.txt")
    );
    r.commit_all("decisions");
    let fresh = r.json(&["stale", "--all"]);
    assert_eq!(
        (fresh["checked"].as_u64(), fresh["stale"].as_u64()),
        (Some(2), Some(0)),
        "{fresh}"
    );
    for i in 0..5 {
        r.write(
            "src/api/routes.txt",
            &(1..=100 + i * 20)
                .map(|n| format!("route {n} v{i}\n"))
                .collect::<String>(),
        );
        r.commit_all(&format!("routes {i}"));
    }
    let v = r.json(&["stale"]);
    let d = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == id.as_str())
        .unwrap();
    assert_eq!(
        (d["stale"].as_bool(), d["commits"].as_u64()),
        (Some(true), Some(5)),
        "{v}"
    );
    assert!(d["lines"].as_u64().unwrap() > 200, "{d}");
    let o = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == other.as_str())
        .unwrap();
    assert_eq!(
        (
            o["stale"].as_bool(),
            o["commits"].as_u64(),
            o["lines"].as_u64()
        ),
        (Some(false), Some(0), Some(0))
    );
    assert!(
        r.ok(&["stale"])
            .contains(&format!("{id}  Routes are flat  [stale]"))
    );
    assert_eq!(r.json(&["status"])["counts"]["stale"], 1);
    let hit = &r.json(&[
        "recall",
        "--mode",
        "lexical",
        "-k",
        "1",
        "nesting api routes",
    ])["results"][0];
    assert_eq!(
        (hit["id"].as_str(), hit["stale"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    assert!(r.ok(&["context"]).contains("(stale: 5 commits"));
    // Thresholds are the user's.
    assert_eq!(
        r.json(&["stale", "--commits", "6", "--lines", "100000"])["stale"],
        0
    );
}

#[test]
fn a_question_that_is_a_fact_key_is_answered_by_the_key_pass() {
    let r = Repo::init();
    r.ok(&["fact", "set", "stack:web-framework", "Hono, not Express"]);
    r.decide("Web framework", "the stack:web-framework fact says Hono");
    let v = r.json(&["recall", "--mode", "lexical", "stack:web-framework"]);
    assert_eq!(
        (v["pass"].as_str(), v["answered"].as_bool()),
        (Some("key"), Some(true)),
        "{v}"
    );
    assert_eq!(v["results"][0]["kind"], "fact");
    assert_eq!(v["results"][0]["tier"], "high");
    assert!(
        r.ok(&[
            "recall",
            "--mode",
            "lexical",
            "--explain",
            "stack:web-framework"
        ])
        .contains("found by the key pass")
    );
    let words = r.json(&["recall", "--mode", "lexical", "web framework hono"]);
    assert_eq!(words["pass"], "first");
    // Asking for another kind skips the key pass.
    assert_eq!(
        r.json(&[
            "recall",
            "--mode",
            "lexical",
            "--kind",
            "decision",
            "stack:web-framework"
        ])["pass"],
        "first"
    );
}

#[test]
fn older_sessions_rank_lower_and_superseded_entries_never_above_their_successor() {
    let r = Repo::init();
    let at = |ts: &str, args: &[&str]| {
        let out = r.cmd(args).env("ZO_NOW", ts).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // The old session matches the question better than the recent one.
    at("1577836800", &["session", "start", "--agent", "t"]); // 2020-01-01
    at(
        "1577840400",
        &[
            "session",
            "end",
            "--summary",
            "flaky deploy flaky deploy flaky deploy investigation",
        ],
    );
    r.ok(&["session", "start", "--agent", "t"]);
    r.ok(&["session", "end", "--summary", "flaky deploy fixed"]);
    let hits = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--kind",
        "session",
        "-k",
        "2",
        "flaky deploy",
    ]);
    let titles: Vec<String> = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        titles[0].contains("flaky deploy fixed"),
        "the recent session first: {titles:?}"
    );
    // Without decay (a half-life of years) the older, better-matching one leads.
    let cfg = r.read(".zo/config.yaml");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}recall:\n  session_half_life_days: 100000\n"),
    );
    let hits = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--kind",
        "session",
        "-k",
        "2",
        "flaky deploy",
    ]);
    assert!(
        hits["results"][0]["text"]
            .as_str()
            .unwrap()
            .contains("investigation"),
        "{hits}"
    );

    let old = r.decide(
        "Queue choice",
        "RabbitMQ for the queue, RabbitMQ everywhere, RabbitMQ queue",
    );
    let new = r
        .ok(&[
            "decide",
            "--title",
            "Queue choice v2",
            "--decision",
            "NATS replaces the queue",
            "--supersedes",
            &old,
        ])
        .trim()
        .to_string();
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--all",
        "--kind",
        "decision",
        "-k",
        "5",
        "rabbitmq queue",
    ]);
    let ids: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    let (pn, po) = (
        ids.iter().position(|i| *i == new),
        ids.iter().position(|i| *i == old),
    );
    assert!(
        pn.is_some() && po.is_some() && pn < po,
        "the successor ranks above what it superseded: {ids:?}"
    );
}

#[test]
fn a_session_that_holds_personal_data_can_be_forgotten() {
    let r = Repo::init();
    r.ok(&["session", "start", "--agent", "t"]);
    r.ok(&[
        "session",
        "end",
        "--summary",
        "called Jane Roe at +1 555 0100 about the outage",
    ]);
    let name = r.json(&["session", "list"])["sessions"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    r.commit_all("session");
    r.ok(&["index", "refresh"]);
    let session = name.trim_end_matches(".md");
    let f = util::forget(
        &r.cmd(&["--json", "forget", session, "--reason", "personal data"]),
        session,
    );
    let f = util::json_in(&f.stdout);
    assert_eq!(
        (f["kind"].as_str(), f["in_history"].as_bool()),
        (Some("session"), Some(true)),
        "{f}"
    );
    assert!(
        f["replacements"].is_null(),
        "no copy of the erased text unless asked: {f}"
    );
    let text = r.read(&format!(".zo/memory/sessions/{name}"));
    assert!(
        text.starts_with("# Session: [forgotten]") && !text.contains("555 0100"),
        "{text}"
    );
    let db = std::fs::read(r.path().join(".zo/memory/index.db")).unwrap();
    assert!(
        !db.windows(8).any(|w| w == b"555 0100"),
        "the index still holds it"
    );
    r.ok(&["verify"]);
    r.commit_all("forget");
    assert!(
        r.run(&["verify", "--history"])
            .stderr
            .contains("(session) forgotten")
    );
    // A merge with a side that still has the session keeps the tombstone, either way round.
    let (base, stone) = ("# Session 1\nJane Roe +1 555 0100\n", text.as_str());
    assert_eq!(zo::git::merge::session(base, stone, base), stone);
    assert_eq!(
        zo::git::merge::session(base, &format!("{base}more\n"), stone),
        stone
    );
}
