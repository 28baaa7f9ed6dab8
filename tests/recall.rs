//! `zo recall`, `zo index`, `zo doctor` with the real model: modes, filters, superseded and
//! OUTCOME handling, incremental refresh, rebuilds, and the lexical fallback.

mod util;
use serde_json::Value;
use util::Repo;

fn ids(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_mode_returns_full_entries_with_tiers() {
    util::require_model();
    let r = Repo::example();
    let lex = r.json(&["recall", "--mode", "lexical", "exclusion constraint"]);
    assert_eq!(lex["mode"], "lexical");
    assert_eq!(ids(&lex)[0], "D-02e4fb86");
    let sem = r.json(&[
        "recall",
        "--mode",
        "semantic",
        "-k",
        "2",
        "stop two dispatchers reserving one berth at the same moment",
    ]);
    assert_eq!(sem["mode"], "semantic");
    let found = ids(&sem);
    assert!(
        found.contains(&"D-02e4fb86".to_string()) || found.contains(&"PR-001".to_string()),
        "{found:?}"
    );
    let hyb = r.json(&["recall", "why did we leave Express"]);
    assert_eq!(hyb["mode"], "hybrid");
    let results = hyb["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "default top_k is 3");
    assert_eq!(results[0]["id"], "D-795f9731");
    for h in results {
        for key in ["id", "kind", "title", "score", "tier", "text"] {
            assert!(h.get(key).is_some(), "{key} missing");
        }
        assert!(["high", "standard", "low"].contains(&h["tier"].as_str().unwrap()));
    }
    assert!(
        results[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("## Decision: ")
    );
    assert!(
        results[0]["text"]
            .as_str()
            .unwrap()
            .contains("**Rationale:** Cold starts")
    );
    let text = r.ok(&["recall", "-k", "1", "why did we leave Express"]);
    assert!(text.starts_with("── D-795f9731 · decision · "), "{text}");
    assert!(text.contains("**Title:** Move the API from Express to Hono"));
}

#[test]
fn filters_apply_before_ranking() {
    let r = Repo::example();
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--kind",
        "prior",
        "-k",
        "5",
        "database concurrency",
    ]);
    assert!(!ids(&v).is_empty());
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["kind"] == "prior")
    );
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--kind",
        "session",
        "-k",
        "5",
        "scheduler",
    ]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["kind"] == "session")
    );
    assert!(!ids(&v).is_empty());
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--type",
        "bugfix",
        "-k",
        "5",
        "times zone",
    ]);
    assert_eq!(ids(&v), vec!["D-7440ca3e"]);
    r.fails(&["recall", "--kind", "everything", "x"], 2);
    r.fails(&["recall", "--mode", "telepathy", "x"], 2);
}

#[test]
fn onnx_runtime_telemetry_writes_nothing_to_home_or_tmp() {
    // The PyPI build of ONNX Runtime 1.31 wrote ~/.cache/Microsoft/DeveloperTools/.onnxruntime/
    // {deviceid,onnxruntime.db} and $TMPDIR/.ses on every hybrid recall, and queues usage events
    // for Microsoft, until zo disabled its telemetry.
    util::require_model();
    let r = Repo::example();
    // Its cache its own (the model and runtime are named by the harness): this test once named
    // the real user's cache, and wrote its key and vectors into the developer's HOME.
    let (home, tmp, cache) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let out = r
        .cmd(&["recall", "why did we leave Express"])
        .env("HOME", home.path())
        .env("TMPDIR", tmp.path())
        .env("ZO_CACHE", cache.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("── D-795f9731"),
        "the model was used"
    );
    let written: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .chain(std::fs::read_dir(tmp.path()).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

#[test]
fn a_filtered_match_behind_hundreds_of_stronger_ones_is_still_found() {
    // Lexical ranking takes the best 4 × 50 matches before filtering; a filter that keeps none
    // of them must still reach the weaker match behind them.
    let r = Repo::example();
    let log = r.read(r.log_path());
    let many: String = (0..260)
        .map(|i| {
            util::canonical_entry(
                0x7000 + i,
                &format!("Walrus pier {i}"),
                "walrus walrus walrus pier",
            )
        })
        .collect();
    r.write(r.log_path(), &format!("{log}{many}"));
    r.ok(&[
        "prior",
        "add",
        "--title",
        "Boats and the harbour wall",
        "--root-cause",
        "novel_case",
        "--failure",
        "a long note about boats that mentions a walrus once among many other words",
        "--rule",
        "moor boats away from the harbour wall",
    ]);
    let v = r.json(&[
        "recall", "--mode", "lexical", "--kind", "prior", "-k", "3", "walrus",
    ]);
    let found = v["results"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(found[0]["kind"], "prior");
    let v = r.json(&["recall", "--mode", "lexical", "-k", "3", "walrus"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["kind"] == "decision"),
        "{v}"
    );
}

#[test]
fn superseded_hidden_unless_all_and_outcomes_fold_into_their_decision() {
    let r = Repo::example();
    let v = r.json(&["recall", "--mode", "lexical", "-k", "10", "Express"]);
    assert!(
        !ids(&v).contains(&"D-99598e35".to_string()),
        "superseded entry shown"
    );
    assert!(ids(&v).contains(&"D-795f9731".to_string()));
    let v = r.json(&[
        "recall", "--mode", "lexical", "-k", "10", "--all", "Express",
    ]);
    let old = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "D-99598e35")
        .expect("--all shows it");
    assert_eq!(old["status"], "superseded");
    assert_eq!(old["superseded_by"], "D-795f9731");

    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "-k",
        "10",
        "41k bookings zero double bookings",
    ]);
    assert!(
        !ids(&v).contains(&"D-bd613649".to_string()),
        "OUTCOME entries are not hits of their own"
    );
    let pg = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "D-956a2656")
        .expect("the decision");
    let text = pg["text"].as_str().unwrap();
    assert!(
        text.contains("**Title:** Store bookings in PostgreSQL 16")
            && text.contains("**Type:** OUTCOME")
            && text.contains("41k bookings")
    );
}

#[test]
fn refresh_reembeds_only_what_changed_and_deletes_orphans() {
    util::require_model();
    let r = Repo::example();
    let first = r.json(&["index", "refresh"]);
    assert_eq!(first["mode"], "hybrid");
    assert_eq!(
        first["inserted"], 20,
        "12 decisions less the outcome, 3 priors, 3 facts, 3 sessions"
    );
    assert_eq!(first["embedded"], 20);
    let again = r.json(&["index", "refresh"]);
    assert_eq!(
        (
            again["inserted"].as_u64(),
            again["updated"].as_u64(),
            again["embedded"].as_u64()
        ),
        (Some(0), Some(0), Some(0))
    );

    let id = r.decide(
        "Cache berth lists in the worker",
        "Keep each port's berth list in memory for 60 s",
    );
    let after = r.json(&["index", "refresh"]);
    assert_eq!(after["inserted"], 1);
    assert_eq!(
        after["embedded"], 1,
        "appending one decision re-embeds exactly one entry"
    );
    let hits = r.json(&[
        "recall",
        "--mode",
        "semantic",
        "-k",
        "1",
        "keeping the list of quays around between jobs",
    ]);
    assert_eq!(ids(&hits), vec![id.clone()]);

    r.ok(&[
        "outcome",
        &id,
        "Cut schedule recomputation from 20 s to 4 s",
    ]);
    let after = r.json(&["index", "refresh"]);
    assert_eq!(
        (
            after["inserted"].as_u64(),
            after["updated"].as_u64(),
            after["embedded"].as_u64()
        ),
        (Some(0), Some(1), Some(1))
    );

    std::fs::remove_file(
        r.path()
            .join(".zo/memory/sessions/session-001-2026-10-04.md"),
    )
    .unwrap();
    let after = r.json(&["index", "refresh"]);
    assert_eq!(after["deleted"], 1);
    assert_eq!(after["embedded"], 0);
    let v = r.json(&[
        "recall", "--mode", "lexical", "--kind", "session", "-k", "10", "session",
    ]);
    assert!(!ids(&v).contains(&"session-001-2026-10-04".to_string()));
    let st = r.json(&["index", "status"]);
    assert_eq!(st["fresh"], true);
    assert_eq!(st["entries"], 20);
    assert_eq!(st["pending_embeddings"], 0);
}

#[test]
fn readers_refresh_the_index_themselves() {
    let r = Repo::example();
    r.json(&["recall", "--mode", "lexical", "berth"]);
    let id = r.decide(
        "Quarantine vessels flagged by customs",
        "Flagged vessels get no berth until cleared",
    );
    assert_eq!(r.json(&["index", "status"])["fresh"], false);
    let v = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "-k",
        "1",
        "customs quarantine",
    ]);
    assert_eq!(ids(&v), vec![id]);
    assert_eq!(r.json(&["status"])["index"]["fresh"], true);
}

#[test]
fn a_missing_truncated_or_garbage_index_is_rebuilt() {
    let r = Repo::example();
    let db = r.path().join(".zo/memory/index.db");
    let run = r.run(&[
        "--json",
        "recall",
        "--mode",
        "lexical",
        "exclusion constraint",
    ]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("it did not exist"), "{}", run.stderr);
    assert_eq!(ids(&run.json())[0], "D-02e4fb86");

    for (what, damage) in [
        (
            "truncated",
            Box::new(|p: &std::path::Path| {
                let len = std::fs::metadata(p).unwrap().len();
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .unwrap()
                    .set_len(len / 3)
                    .unwrap();
            }) as Box<dyn Fn(&std::path::Path)>,
        ),
        (
            "garbage",
            Box::new(|p: &std::path::Path| std::fs::write(p, vec![0x5a; 64 * 1024]).unwrap()),
        ),
        (
            "deleted",
            Box::new(|p: &std::path::Path| std::fs::remove_file(p).unwrap()),
        ),
    ] {
        // Make sure everything is in the main file before damaging it.
        r.json(&["index", "refresh"]);
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        damage(&db);
        let run = r.run(&[
            "--json",
            "recall",
            "--mode",
            "lexical",
            "exclusion constraint",
        ]);
        assert_eq!(run.code, 0, "{what}: {}", run.stderr);
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "{what}: one line saying why: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("rebuilding") || run.stderr.contains("did not exist"),
            "{what}: {}",
            run.stderr
        );
        assert_eq!(ids(&run.json())[0], "D-02e4fb86", "{what}");
    }
}

/// Run with a home and cache where nothing is installed.
fn without(r: &Repo, args: &[&str], env: &[(&str, &std::path::Path)]) -> util::Run {
    let mut c = r.cmd(args);
    // The same user (their key, which signs the index) on a machine without the model.
    c.env_remove("ZO_MODEL_DIR")
        .env_remove("ORT_DYLIB_PATH")
        .env_remove("XDG_CACHE_HOME")
        .env("ZO_VECTOR_CACHE", r.vector_dir());
    for (k, v) in env {
        c.env(k, v);
    }
    util::Run::from(c.output().unwrap())
}

#[test]
fn lexical_fallback_when_model_or_runtime_is_missing_or_broken() {
    util::require_model();
    let r = Repo::example();
    r.json(&["index", "refresh"]);
    let empty = tempfile::tempdir().unwrap();
    // No model at all.
    let run = without(
        &r,
        &["--json", "recall", "why did we leave Express"],
        &[("ZO_CACHE", empty.path()), ("HOME", empty.path())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["mode"], "lexical");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("semantic search unavailable: no embedding model found")
            && run.stderr.contains("zo model install"),
        "{}",
        run.stderr
    );
    assert!(!ids(&run.json()).is_empty());

    // The model but no runtime.
    let cache = zo::search::embedding::cache_dir().unwrap();
    let partial = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(partial.path().join("models")).unwrap();
    std::os::unix::fs::symlink(
        cache.join("models/all-MiniLM-L6-v2"),
        partial.path().join("models/all-MiniLM-L6-v2"),
    )
    .unwrap();
    let run = without(
        &r,
        &["--json", "recall", "why did we leave Express"],
        &[("ZO_CACHE", partial.path()), ("HOME", empty.path())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["mode"], "lexical");
    assert!(
        run.stderr.contains("no ONNX Runtime library found"),
        "{}",
        run.stderr
    );

    // A file that is not ONNX Runtime: an error, never a panic.
    let bogus = partial.path().join("libonnxruntime.so");
    std::fs::write(&bogus, b"not a library").unwrap();
    let run = without(
        &r,
        &["--json", "recall", "why did we leave Express"],
        &[
            ("ZO_CACHE", partial.path()),
            ("HOME", empty.path()),
            ("ORT_DYLIB_PATH", &bogus),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["mode"], "lexical");
    assert!(
        run.stderr.contains("could not load ONNX Runtime") && !run.stderr.contains("panicked"),
        "{}",
        run.stderr
    );

    // doctor names what is missing and the command that installs it.
    let run = without(
        &r,
        &["doctor"],
        &[("ZO_CACHE", empty.path()), ("HOME", empty.path())],
    );
    assert_eq!(
        run.code, 0,
        "a missing model is a warning: zo works lexically"
    );
    assert!(
        run.stdout.contains("WARN model") && run.stdout.contains("zo model install"),
        "{}",
        run.stdout
    );
    let d = r.json(&["doctor"]);
    assert_eq!(d["ok"], true, "{d}");
    // Config can switch semantics off.
    let cfg = r.read(".zo/config.yaml");
    r.write(
        ".zo/config.yaml",
        &format!("{cfg}index:\n  embedding: off\n"),
    );
    let run = r.run(&["--json", "recall", "why did we leave Express"]);
    assert_eq!(run.json()["mode"], "lexical");
    assert!(run.stderr.contains("off"), "{}", run.stderr);
}

#[test]
fn concurrent_readers_and_writers_never_corrupt_the_index() {
    let r = Repo::example();
    let path = r.path().to_path_buf();
    let handles: Vec<_> = (0..6)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                for j in 0..5 {
                    let args: Vec<String> = if i % 2 == 0 {
                        vec![
                            "decide".into(),
                            "--title".into(),
                            format!("parallel {i}-{j}"),
                            "--decision".into(),
                            format!("text {i} {j}"),
                        ]
                    } else {
                        vec![
                            "--json".into(),
                            "recall".into(),
                            "--mode".into(),
                            "lexical".into(),
                            "parallel berth".into(),
                        ]
                    };
                    let out = util::zo_command(&path).args(&args).output().unwrap();
                    assert!(
                        out.status.success(),
                        "{args:?}: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let v = r.json(&["recall", "--mode", "lexical", "-k", "20", "parallel"]);
    assert_eq!(ids(&v).len(), 15);
    let st = r.json(&["index", "status"]);
    assert_eq!(st["fresh"], true);
    assert_eq!(st["entries"], 20 + 15);
}

/// A question the memory cannot answer says so (text and JSON); `--min-tier` drops weak hits;
/// `--explain` shows each hit's ranks and scores; lexical hits are never `high`.
#[test]
fn not_in_memory_min_tier_and_explain() {
    util::require_model();
    let r = Repo::example();
    let none = r.run(&[
        "--json",
        "recall",
        "how many vacation days do employees get",
    ]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    let j = none.json();
    assert_eq!(j["mode"], "hybrid");
    assert_eq!(j["answered"], false, "{j}");
    assert!(
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["tier"] == "low"),
        "{j}"
    );
    let text = r.run(&["recall", "how many vacation days do employees get"]);
    assert!(text.stderr.contains("not in memory"), "{}", text.stderr);
    let strict = r.json(&[
        "recall",
        "--min-tier",
        "standard",
        "how many vacation days do employees get",
    ]);
    assert_eq!(strict["results"].as_array().unwrap().len(), 0, "{strict}");
    assert_eq!(strict["answered"], false);

    let yes = r.json(&["recall", "--explain", "why did we leave Express"]);
    assert_eq!(yes["answered"], true, "{yes}");
    let top = &yes["results"][0];
    assert_eq!(top["id"], "D-795f9731");
    let x = &top["explain"];
    // Both rankings put it first: at least `standard`, whatever its similarity.
    assert_eq!(
        (x["lexical_rank"].as_u64(), x["semantic_rank"].as_u64()),
        (Some(1), Some(1)),
        "{x}"
    );
    assert_ne!(top["tier"], "low", "{top}");
    assert!(x["similarity"].as_f64().unwrap() > 0.0, "{x}");
    assert!(
        x["fused"].is_number() && x.get("lexical_rank").is_some() && x.get("bm25").is_some(),
        "{x}"
    );
    // Without --explain the JSON carries no explanation.
    assert!(
        r.json(&["recall", "why did we leave Express"])["results"][0]
            .get("explain")
            .is_none()
    );
    let shown = r.ok(&["recall", "--explain", "-k", "1", "why did we leave Express"]);
    assert!(
        shown.contains("   why: bm25 #") && shown.contains("similarity #1"),
        "{shown}"
    );

    let lex = r.json(&["recall", "--mode", "lexical", "-k", "10", "the API"]);
    assert!(
        lex["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["tier"] != "high"),
        "{lex}"
    );
    assert_eq!(r.run(&["recall", "--min-tier", "best", "x"]).code, 2);
}

/// `zo eval` on a memory: figures per mode, unknown IDs named, bad lines named by file and
/// line with exit 2.
#[test]
fn eval_measures_each_mode_and_names_bad_lines() {
    util::require_model();
    let r = Repo::example();
    r.write("q.jsonl", "{\"q\": \"why did we leave Express\", \"relevant\": [\"D-795f9731\"]}\n\n{\"q\": \"how many vacation days do employees get\", \"relevant\": []}\n{\"q\": \"what about D-00000000\", \"relevant\": [\"D-00000000\"]}\n");
    let j = r.json(&["eval", "q.jsonl"]);
    assert_eq!(j["questions"], 3);
    assert_eq!(j["with_answer"], 2);
    assert_eq!(j["unknown_ids"], serde_json::json!(["D-00000000"]));
    let modes: Vec<&str> = j["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["hybrid", "semantic", "lexical"]);
    let h = &j["modes"][0];
    assert_eq!(h["recall_at_1"], 0.5, "{h}");
    assert_eq!(h["no_answer_flagged"], 1, "{h}");
    let table = r.ok(&["eval", "q.jsonl"]);
    assert!(
        table.contains("| hybrid | question alone | 0.500 |"),
        "{table}"
    );
    assert!(
        !table.contains("with phrasings"),
        "no phrasings, no such rows: {table}"
    );
    // With `"also"`, each mode is measured alone and with the phrasings, side by side.
    r.write("also.jsonl", "{\"q\": \"why did we stop using the old web framework\", \"relevant\": [\"D-795f9731\"], \"also\": [\"Move the API from Express to Hono\"]}\n{\"q\": \"how many vacation days do employees get\", \"relevant\": [], \"also\": [\"annual leave allowance\"]}\n");
    let j = r.json(&["eval", "also.jsonl"]);
    let runs: Vec<(&str, bool)> = j["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mode"].as_str().unwrap(),
                m["phrasings"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            ("hybrid", false),
            ("hybrid", true),
            ("semantic", false),
            ("semantic", true),
            ("lexical", false),
            ("lexical", true)
        ]
    );
    let p = &j["modes"][1];
    assert_eq!(
        (p["recall_at_3"].as_f64(), p["no_answer_flagged"].as_u64()),
        (Some(1.0), Some(1)),
        "{p}"
    );
    assert!(
        r.ok(&["eval", "also.jsonl"])
            .contains("| hybrid | with phrasings | ")
    );
    r.write(
        "six.jsonl",
        "{\"q\": \"q\", \"also\": [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"]}\n",
    );
    let out = r.run(&["eval", "six.jsonl"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("six.jsonl:1:") && out.stderr.contains("\"also\""),
        "{}",
        out.stderr
    );
    r.write(
        "bad.jsonl",
        "{\"q\": \"fine\", \"relevant\": []}\n{\"query\": \"wrong key\"}\n",
    );
    let out = r.run(&["eval", "bad.jsonl"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("bad.jsonl:2:"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"));
    assert_eq!(r.run(&["eval", "missing.jsonl"]).code, 2);
    r.write("empty.jsonl", "\n");
    assert!(
        r.run(&["eval", "empty.jsonl"])
            .stderr
            .contains("no questions")
    );
    // Several sets, each reported on its own, with phrasings from a file of their own (joined
    // by question text); a bad phrasings line is named by file and line before any work.
    r.write("plain.jsonl", "{\"q\": \"why did we stop using the old web framework\", \"relevant\": [\"D-795f9731\"]}\n");
    r.write("phr.jsonl", "{\"q\": \"why did we stop using the old web framework\", \"also\": [\"Move the API from Express to Hono\"]}\n");
    let j = r.json(&["eval", "plain.jsonl", "q.jsonl", "--phrasings", "phr.jsonl"]);
    let sets = j["sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "{j}");
    assert!(
        sets[0]["modes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["phrasings"] == true),
        "{j}"
    );
    assert!(
        !sets[1]["modes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["phrasings"] == true),
        "{j}"
    );
    let table = r.ok(&["eval", "plain.jsonl", "q.jsonl", "--phrasings", "phr.jsonl"]);
    assert!(
        table.contains("plain.jsonl: 1 questions") && table.contains("q.jsonl: 3 questions"),
        "{table}"
    );
    r.write(
        "badphr.jsonl",
        "{\"q\": \"x\", \"also\": [\"y\"]}\n{\"q\": \"x\"}\n",
    );
    let out = r.run(&["eval", "plain.jsonl", "--phrasings", "badphr.jsonl"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("badphr.jsonl:2:"), "{}", out.stderr);
    // A bad line in a later set is found before the first is measured; a question recall
    // would refuse is refused here too; phrasings that match no question are said.
    let out = r.run(&["--json", "eval", "q.jsonl", "bad.jsonl"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.json()["error"]["kind"],
        "usage",
        "only the error: {}",
        out.stdout
    );
    r.write(
        "long.jsonl",
        &format!("{{\"q\": \"{}\", \"relevant\": []}}\n", "word ".repeat(500)),
    );
    let out = r.run(&["eval", "long.jsonl"]);
    assert!(
        out.code == 2
            && out.stderr.contains("long.jsonl:1:")
            && out.stderr.contains("at most 2000"),
        "{}",
        out.stderr
    );
    r.write(
        "stray.jsonl",
        "{\"q\": \"asked nowhere\", \"also\": [\"x\"]}\n",
    );
    let out = r.run(&["eval", "plain.jsonl", "--phrasings", "stray.jsonl"]);
    assert!(
        out.stderr
            .contains("1 of the 1 phrased questions match no question"),
        "{}",
        out.stderr
    );
}

/// The quick query embedder (no graph optimisation, its own tokenizer call) gives the vector
/// fastembed gives, for short, long (truncated) and non-ASCII text.
#[test]
fn quick_and_full_embedders_agree() {
    util::require_model();
    let paths = zo::search::embedding::locate(&zo::store::config::Config::default())
        .paths()
        .unwrap();
    let mut full = zo::search::embedding::Embedder::load(&paths).unwrap();
    let mut quick = zo::search::embedding::QueryEmbedder::load(&paths).unwrap();
    let long =
        "the berth scheduler assigns ships to berths by arrival window and draft ".repeat(80);
    for text in [
        "why did we leave Express",
        "Größe und Zeitzone — 時間帯",
        long.as_str(),
        "x",
    ] {
        let a = full.embed(&[text]).unwrap().remove(0);
        let b = quick.embed(text).unwrap();
        let cos: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!(cos > 0.999, "{cos} for {text:.40}");
    }
}

/// Several phrasings of a question (issue 23): one list of k, each hit's rank under every
/// phrasing with `--explain`, and `answered` judged on them all; a question the memory cannot
/// answer still says so, and tells the agent what to try and when to stop.
#[test]
fn phrasings_are_searched_together_explained_and_judged() {
    util::require_model();
    let r = Repo::example();
    let also = [
        "--also",
        "Express to Hono migration",
        "--also",
        "Move the API from Express to Hono",
    ];
    let j = r.json(
        &[
            &[
                "recall",
                "--explain",
                "-k",
                "2",
                "why did we stop using the old web framework",
            ][..],
            &also,
        ]
        .concat(),
    );
    assert_eq!(
        (j["pass"].as_str(), j["answered"].as_bool()),
        (Some("phrasings"), Some(true)),
        "{j}"
    );
    assert_eq!(
        j["also"],
        serde_json::json!([
            "Express to Hono migration",
            "Move the API from Express to Hono"
        ])
    );
    let hits = j["results"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "one list of k, not k per phrasing: {j}");
    assert_eq!(hits[0]["id"], "D-795f9731", "{j}");
    assert_ne!(hits[0]["tier"], "low", "{j}");
    let each = hits[0]["explain"]["phrasings"].as_array().unwrap();
    assert_eq!(each.len(), 3, "the question and its two phrasings: {j}");
    assert!(
        each.iter()
            .all(|p| p["rank"].as_u64().unwrap() >= 1 && p["similarity"].is_number()),
        "{j}"
    );
    let shown = r.ok(&[
        &[
            "recall",
            "--explain",
            "-k",
            "1",
            "why did we stop using the old web framework",
        ][..],
        &also,
    ]
    .concat());
    assert!(
        shown.contains("each phrasing (question first): #") && shown.contains("phrasings pass"),
        "{shown}"
    );
    // Without --explain, no explanation; the question alone is ranked as before.
    assert!(
        r.json(
            &[
                &["recall", "why did we stop using the old web framework"][..],
                &also
            ]
            .concat()
        )["results"][0]
            .get("explain")
            .is_none()
    );
    assert_eq!(
        r.json(&["recall", "why did we leave Express"])["pass"],
        "first"
    );

    let none = r.run(&[
        "--json",
        "recall",
        "how many vacation days do employees get",
        "--also",
        "annual leave allowance",
        "--also",
        "holiday entitlement policy",
    ]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    let j = none.json();
    assert_eq!(j["answered"], false, "{j}");
    assert!(
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["tier"] == "low"),
        "{j}"
    );
    let text = r.run(&[
        "recall",
        "how many vacation days do employees get",
        "--also",
        "annual leave allowance",
    ]);
    assert!(
        text.stderr.contains("not in memory") && text.stderr.contains("the memory holds no answer"),
        "{}",
        text.stderr
    );
    // The question alone is told to try phrasings that name things.
    let alone = r.run(&["recall", "how many vacation days do employees get"]);
    assert!(alone.stderr.contains("--also"), "{}", alone.stderr);
}

/// At most five phrasings besides the question, none empty: a usage error (exit 2) before
/// anything loads.
#[test]
fn also_takes_at_most_five_phrasings_and_none_empty() {
    let r = Repo::example();
    let mut args = vec!["recall", "q"];
    for _ in 0..6 {
        args.extend(["--also", "p"]);
    }
    let six = r.run(&args);
    assert_eq!(six.code, 2, "{}", six.stderr);
    assert!(six.stderr.contains("at most 5"), "{}", six.stderr);
    let empty = r.run(&["recall", "q", "--also", " "]);
    assert_eq!(empty.code, 2, "{}", empty.stderr);
    assert!(
        empty.stderr.contains("(--also) needs a phrasing"),
        "{}",
        empty.stderr
    );
}

/// Without a model, phrasings still help: their words join one lexical search.
#[test]
fn phrasings_without_a_model_search_every_phrasing_s_words() {
    let r = Repo::example();
    let run = util::Run::from(
        r.cmd(&[
            "--json",
            "recall",
            "why the new framework",
            "--also",
            "Hono",
            "--kind",
            "decision",
            "-k",
            "1",
        ])
        .env("ZO_CACHE", "/nonexistent")
        .env("HOME", "/nonexistent")
        .env_remove("ZO_MODEL_DIR")
        .output()
        .unwrap(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let j = run.json();
    assert_eq!(
        (j["mode"].as_str(), j["pass"].as_str()),
        (Some("lexical"), Some("phrasings")),
        "{j}"
    );
    assert_eq!(j["results"][0]["id"], "D-795f9731", "{j}");
}

/// The phrasings are embedded in one run of the model, padded to the longest: each vector
/// must be the one the text gets alone, from either embedder.
#[test]
fn batched_phrasings_embed_as_one_at_a_time() {
    util::require_model();
    let paths = zo::search::embedding::locate(&zo::store::config::Config::default())
        .paths()
        .unwrap();
    let mut full = zo::search::embedding::Embedder::load(&paths).unwrap();
    let mut quick = zo::search::embedding::QueryEmbedder::load(&paths).unwrap();
    let texts = [
        "why did we leave Express",
        "x",
        "Größe und Zeitzone — 時間帯",
        "Use PagerDuty for out-of-hours on-call alerting and escalation",
    ];
    let (qb, fb) = (
        quick.embed_batch(&texts).unwrap(),
        full.embed_batch(&texts).unwrap(),
    );
    assert_eq!((qb.len(), fb.len()), (4, 4));
    for (i, text) in texts.iter().enumerate() {
        let alone = quick.embed(text).unwrap();
        for (which, v) in [("quick", &qb[i]), ("full", &fb[i])] {
            let cos: f32 = alone.iter().zip(v).map(|(x, y)| x * y).sum();
            assert!(cos > 0.999, "{which}: {cos} for {text}");
        }
    }
}

/// A question only a provisional entry answers said "not in memory" with no hint that
/// `--provisional` finds one at `high` (issue 33): the note names it, `--json` lists it under
/// `provisional_matches`, and MCP recall takes `provisional`.
#[test]
fn not_in_memory_says_which_provisional_entry_would_answer() {
    let r = Repo::init();
    r.decide("Use Postgres for orders", "one database");
    r.ok(&[
        "decide",
        "--title",
        "Store cart sessions in Redis",
        "--decision",
        "redis for sessions",
        "--confidence",
        "0.4",
    ]);
    let v = r.json(&["recall", "--mode", "lexical", "redis cart sessions"]);
    // No confirmed entry holds these words: not answered, and the provisional one is named.
    assert_eq!(v["answered"], false, "{v}");
    let matches = v["provisional_matches"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(matches.len(), 1, "{v}");
    assert_eq!(matches[0]["title"], "Store cart sessions in Redis");
    let out = r.run(&["recall", "--mode", "lexical", "redis cart sessions"]);
    assert!(
        out.stderr.contains("1 provisional entry matches") && out.stderr.contains("--provisional"),
        "{}",
        out.stderr
    );
    let with = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--provisional",
        "redis cart sessions",
    ]);
    assert_eq!(
        with["results"][0]["title"], "Store cart sessions in Redis",
        "{with}"
    );
    assert!(
        with.get("provisional_matches").is_none(),
        "asked for them: no hint"
    );
}

/// A question about something no entry mentions came back with its neighbours, and nothing
/// said which of its words the memory lacks (issue 33): the note names them (before the hits,
/// and inside "not in memory" when nothing answers), `--json` gives `why` and `terms` (found,
/// missing, and how much of the question the first hit holds).
#[test]
fn recall_names_the_question_words_no_entry_mentions() {
    let r = Repo::init();
    r.decide(
        "Use Postgres for orders",
        "one database for orders and carts",
    );
    r.decide("Deploy with Kubernetes", "helm charts per service");
    let q = "which LaunchDarkly feature flag service do we use for orders";
    let v = r.json(&["recall", "--mode", "lexical", q]);
    let words = |k: &str| -> Vec<String> {
        v["terms"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(words("missing"), ["launchdarkly", "feature", "flag"], "{v}");
    assert_eq!(words("found"), ["service", "orders"], "{v}");
    assert!(
        v["why"].as_str().is_some_and(|w| w.contains("lexical")),
        "{v}"
    );
    let holds = v["terms"]["first_hit_holds"].as_f64().unwrap();
    assert!(
        holds > 0.0 && holds < 1.0,
        "the first hit holds orders, not service: {v}"
    );
    let out = r.run(&["recall", "--mode", "lexical", q]);
    // Answered: only the name is news (a plain word of the question's own is not).
    assert!(
        out.stderr.contains(
            "no entry mentions \"launchdarkly\": the entries below may not answer that part"
        ),
        "{}",
        out.stderr
    );
    let none = r.run(&["recall", "--mode", "lexical", "which cake recipe"]);
    assert!(
        none.stderr
            .contains("not in memory (no entry mentions \"cake\", \"recipe\"): nothing matches"),
        "{}",
        none.stderr
    );
    // A name first in the question (a capital inside it), and a version number, are names too.
    let first = r.run(&["recall", "--mode", "lexical", "TimescaleDB for orders"]);
    assert!(
        first.stderr.contains("no entry mentions \"timescaledb\""),
        "{}",
        first.stderr
    );
    let version = r.run(&["recall", "--mode", "lexical", "orders in postgres 17"]);
    assert!(
        version.stderr.contains("no entry mentions \"17\""),
        "{}",
        version.stderr
    );
    // Every word is held somewhere: nothing to say.
    let all = r.run(&["recall", "--mode", "lexical", "postgres orders"]);
    assert!(!all.stderr.contains("mentions"), "{}", all.stderr);
}

/// A question naming a product no entry mentions ("Flipper or LaunchDarkly") was answered by
/// its nearest neighbour at `standard` (issue 33): the memory says nothing of what it names.
/// Now not answered, every hit `low`, the reason naming the names; a question whose names the
/// memory holds is still answered; a question in title case does not make every word a name.
/// And `zo eval` measured the question alone without the judgement `zo recall` applies.
#[test]
fn a_question_naming_what_no_entry_mentions_was_answered_by_a_neighbour() {
    util::require_model();
    let r = Repo::init();
    r.decide(
        "Use Postgres for orders",
        "one database for orders and carts",
    );
    r.decide(
        "Ship features behind environment switches",
        "features are switched on per environment in the settings file",
    );
    let q = "which feature switch tool, Flipper or LaunchDarkly, do we use per environment";
    let v = r.json(&["recall", q]);
    assert_eq!(v["answered"], false, "{v}");
    assert_eq!(
        v["terms"]["names_missing"],
        serde_json::json!(["flipper", "launchdarkly"]),
        "{v}"
    );
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["tier"] == "low"),
        "{v}"
    );
    assert_eq!(
        v["results"][0]["title"], "Ship features behind environment switches",
        "the neighbour is still shown: {v}"
    );
    let text = r.run(&["recall", q]);
    assert!(
        text.stderr
            .contains("not in memory: the question names \"flipper\", \"launchdarkly\" and no entry searched mentions them: the hits are only its neighbours"),
        "{}",
        text.stderr
    );
    // Its names are held: answered as before.
    let held = r.json(&[
        "recall",
        "how are features switched on per environment in Postgres",
    ]);
    assert_eq!(
        (
            held["answered"].as_bool(),
            held["terms"]["names_missing"].as_array().map(Vec::len)
        ),
        (Some(true), Some(0)),
        "{held}"
    );
    // Title case: a capital opening each word marks no name.
    let title = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "Which Feature Switch Tool Do We Use Per Environment Today",
    ]);
    assert_eq!(
        title["terms"]["names_missing"],
        serde_json::json!([]),
        "{title}"
    );
    // zo eval judges the question alone as recall does.
    let set = r.path().join("q.jsonl");
    std::fs::write(
        &set,
        format!("{}\n", serde_json::json!({"q": q, "relevant": []})),
    )
    .unwrap();
    let e = r.json(&["eval", set.to_str().unwrap()]);
    let hybrid = e["modes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mode"] == "hybrid" && m["phrasings"] == false)
        .unwrap()
        .clone();
    assert_eq!(hybrid["no_answer_flagged"], 1, "{e}");
}

/// The first names rule (issue 33) said "not in memory" to questions the memory answers, found
/// by a fresh-eyes attack: a name spelled otherwise than the entry spells it ("ADR-047" for
/// ADR047, "Argo CD" for ArgoCD, "LameDuck" for Lame Duck, "TLSv1.1" for TLS 1.1, "Python3");
/// the alternative not chosen ("Vitest over Mocha"); a new sentence's opening capital ("…?
/// Recap it"), a month, a shouted question; a name only a provisional entry holds (and the
/// provisional hint was lost); `--as-of` judged the names against the memory of now;
/// `--min-tier` and already-`low` hits hid the names; `--explain` said "answered by". A second
/// attack: a name only a superseded entry holds ("what replaced Mocha?"), `--as-of` comparing
/// words without the index's accents and stems, "of" tying a name to another as alternatives.
#[test]
fn the_names_rule_refused_questions_the_memory_answers() {
    util::require_model();
    let r = Repo::init();
    for (t, d) in [
        (
            "ADR047: Compute submission status from delivery timestamps",
            "status comes from timestamps",
        ),
        ("Deploy with ArgoCD", "GitOps deployments for every service"),
        (
            "Lame Duck notification",
            "servers announce lame duck mode before shutting down",
        ),
        (
            "Deprecate old TLS versions",
            "TLS 1.1 and below are refused on ingress",
        ),
        ("Use python for scripts", "bash and python for tooling"),
        (
            "Swap the JS test framework to Vitest",
            "Vitest replaces Jest for speed",
        ),
    ] {
        r.decide(t, d);
    }
    let mocha = r.decide("Use Mocha for browser tests", "in the browser");
    r.ok(&[
        "decide",
        "--title",
        "Use Cypress for browser tests",
        "--decision",
        "end to end in a real browser",
        "--supersedes",
        &mocha,
    ]);
    r.decide(
        "Host EU data in Zurich",
        "one region for European customers",
    );
    r.commit_all("decisions");
    for q in [
        "What replaced Mocha for browser tests?",
        "What did ADR-047 decide about submission status?",
        "Do we deploy with Argo CD?",
        "How does the LameDuck notification work?",
        "Are we dropping TLSv1.1 on ingress?",
        "Do we use Python3 for scripts?",
        "Why did we choose Vitest over Mocha?",
        "Why did we swap Jest for Vitest? Recap it for me.",
        "What did we decide in February about the JS test framework?",
        "WHY DID WE SWAP THE JS TEST FRAMEWORK",
    ] {
        let v = r.json(&["recall", q]);
        assert_eq!(
            v["terms"]["names_missing"],
            serde_json::json!([]),
            "{q}: {v}"
        );
    }
    // A name only a provisional entry holds: not in memory, and the hint names that entry.
    r.ok(&[
        "decide",
        "--title",
        "Adopt Unleash for feature flags",
        "--decision",
        "self-hosted flags",
        "--confidence",
        "0.5",
    ]);
    let p = r.json(&["recall", "Do we use Unleash for feature flags?"]);
    assert_eq!(
        (p["answered"].as_bool(), p["terms"]["names_missing"].clone()),
        (Some(false), serde_json::json!(["unleash"])),
        "{p}"
    );
    assert_eq!(
        p["provisional_matches"][0]["title"], "Adopt Unleash for feature flags",
        "{p}"
    );
    // --as-of: a name an entry of now holds, but none of then.
    r.ok(&[
        "decide",
        "--title",
        "Adopt Flipper for feature flags",
        "--decision",
        "Flipper gates features per environment",
    ]);
    let now = r.json(&["recall", "Do we use Flipper for feature flags?"]);
    assert_eq!(now["answered"], true, "{now}");
    let then = r.json(&[
        "recall",
        "--as-of",
        "HEAD",
        "Do we use Flipper for feature flags?",
    ]);
    assert_eq!(
        (
            then["answered"].as_bool(),
            then["terms"]["names_missing"].clone()
        ),
        (Some(false), serde_json::json!(["flipper"])),
        "{then}"
    );
    // Judged as the index judges words (accents, stems), then as now.
    let zurich = r.json(&[
        "recall",
        "--as-of",
        "HEAD",
        "Is the EU data hosted in Zürich?",
    ]);
    assert_eq!(
        zurich["terms"]["names_missing"],
        serde_json::json!([]),
        "{zurich}"
    );
    // A name tied to the question by "of" is no alternative: still not in memory.
    let ttl = r.json(&["recall", "What is the retention of LaunchDarkly flags?"]);
    assert_eq!(
        (
            ttl["answered"].as_bool(),
            ttl["terms"]["names_missing"].clone()
        ),
        (Some(false), serde_json::json!(["launchdarkly"])),
        "{ttl}"
    );
    // Every way of reading the verdict names the names.
    let q = "Do we use LaunchDarkly for feature flags?";
    let min = r.run(&["recall", "--min-tier", "standard", q]);
    assert!(
        min.stderr.contains("nothing at or above the standard tier")
            && min.stderr.contains("\"launchdarkly\""),
        "{}",
        min.stderr
    );
    let explained = r.ok(&["recall", "--explain", q]);
    assert!(explained.contains("(found by the first pass: one ranking; not answered: the question names \"launchdarkly\""), "{explained}");
    let low = r.run(&[
        "recall",
        "Which bakery, Greggs or Gails, supplies the birthday cakes?",
    ]);
    assert!(
        low.stderr.contains("\"greggs\", \"gails\""),
        "hits already low still name them: {}",
        low.stderr
    );
}

/// A question the memory answers at `standard`, asked for `high` only, left no entry and said
/// `answered: true`: an agent told so (the MCP tool says to retry only when it is false)
/// stopped with nothing.
#[test]
fn min_tier_leaving_no_entry_said_answered() {
    let r = Repo::example();
    let high = r.json(&[
        "recall",
        "--mode",
        "lexical",
        "--min-tier",
        "high",
        "Express",
    ]);
    assert_eq!(high["results"].as_array().unwrap().len(), 0, "{high}");
    assert_eq!(high["answered"], false, "{high}");
    assert_eq!(
        r.json(&["recall", "--mode", "lexical", "Express"])["answered"],
        true
    );
}

/// A 2 MB query (under the MCP line cap) held `zo mcp` for minutes, its one request at a time:
/// ranking time grew with the square of the words. A question or phrasing over 2,000
/// characters is now a usage error (exit 2), on the CLI and as the MCP tool's error.
#[test]
fn a_huge_recall_query_held_the_server_for_minutes() {
    let r = Repo::example();
    let long = "a b ".repeat(100_000);
    let out = r.run(&["recall", "--mode", "lexical", &long[..100_000]]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("at most 2000"), "{}", out.stderr);
    let out = r.run(&[
        "recall",
        "--mode",
        "lexical",
        "Express",
        "--also",
        &long[..3000],
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let mut c = util::mcp::Client::start(r.path());
    c.initialize();
    let err = c.fails("recall", serde_json::json!({"query": long}));
    assert!(err.contains("at most 2000"), "{err}");
    assert!(c.close().success());
}

/// Fresh-eyes findings on the answerability judgement (issue 33), each of which misled an
/// agent: (1) while a clone's entries waited for their embeddings, the server said "not in
/// memory" beside a `standard` hit the words found; (2) `--as-of` judged the question by the
/// memory of now, "answered" with only a `low` hit of then; (3) phrasings none of whose words
/// any entry holds read as the first hit holding all of them, so the answer stood.
#[test]
fn answerability_misjudged_catch_up_as_of_and_all_words_missing() {
    util::require_model();
    // (1) Whatever the catch-up has done when the call lands, the verdict is the tiers'.
    let r = Repo::init();
    for (t, d) in [
        ("Use Stripe for payments", "card payments"),
        ("Use Postgres", "db"),
        ("Deploy on Fridays", "d"),
        ("Use Next.js", "web"),
        ("Use Redis for carts", "c"),
    ] {
        r.decide(t, d);
    }
    let cache = tempfile::tempdir().unwrap();
    let mut c = util::mcp::Client::start_with(
        util::zo_command(r.path())
            .env("ZO_VECTOR_CACHE", cache.path())
            .args(["mcp"]),
    );
    c.initialize();
    let (v, _) = c.ok(
        "recall",
        serde_json::json!({"query": "which payment provider do we use, Stripe?"}),
    );
    let standard = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["tier"] != "low");
    assert_eq!(v["answered"].as_bool(), Some(standard), "{v}");
    assert!(c.close().success());
    // (2) The example's Kysely decision is dated 2026-10-10: before it, nothing answers.
    let ex = Repo::example();
    let then = ex.json(&["recall", "--as-of", "2026-10-05", "do we use Kysely"]);
    assert_eq!(then["answered"], false, "{then}");
    // (3) Phrasings naming only what no entry mentions: taken back.
    let out = r.json(&[
        "recall",
        "shopping basket storage",
        "--also",
        "Memcached",
        "--also",
        "Hazelcast baskets",
    ]);
    assert_eq!(out["terms"]["found"].as_array().unwrap().len(), 0, "{out}");
    assert_eq!(out["terms"]["first_hit_holds_all"], 0.0, "{out}");
    assert_eq!(out["answered"], false, "{out}");
}

/// A fact key (`zo recall stack:web-framework`) is answered from FACTS.md, and the process
/// exited while ONNX Runtime was still starting on the model-loading thread: the answer was
/// printed, then SIGSEGV in the runtime's teardown (about 1 run in 150). A key now loads no
/// model, and a started load is joined before exit.
#[test]
fn a_key_recall_crashed_after_printing_its_answer() {
    util::require_model();
    let r = Repo::new();
    r.ok(&["init"]);
    r.ok(&["fact", "set", "stack:web-framework", "Hono 4"]);
    r.ok(&["recall", "which web framework"]);
    for _ in 0..40 {
        let run = r.run(&["recall", "stack:web-framework"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout.contains("stack:web-framework: Hono 4"),
            "{}",
            run.stdout
        );
    }
    // A key nothing holds goes on to the search, which loads the model then.
    let run = r.run(&["recall", "--json", "stack:database"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).unwrap()["mode"],
        "hybrid"
    );
}
