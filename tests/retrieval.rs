//! Retrieval quality with the real model: 326 real decision records and the labelled questions
//! in tests/fixtures/adr-questions.jsonl (98 written in plain language that avoid their
//! targets' title words, 12 the memory cannot answer), measured through `zo eval`, alone and
//! with the blind phrasings of tests/fixtures/adr-questions-also.jsonl (issue 23). Hybrid must
//! beat lexical and hold its measured level; the no-answer signal must hold.
//! Run `cargo test --release --test retrieval -- --nocapture` to see the table.

mod util;
use std::collections::HashMap;
use util::Repo;
use zo::search::index::Filter;
use zo::search::recall::{self, Mode};

fn decision_id(corpus_id: &str) -> String {
    zo::fixtures::adr_id(corpus_id)
}

struct Score {
    recall3: f64,
    mrr: f64,
}

fn evaluate(index: &zo::search::index::Index, embedder: &mut zo::search::embedding::Embedder, questions: &[(&str, Vec<String>)], mode: Mode) -> Score {
    let (mut hit3, mut rr) = (0.0, 0.0);
    for (q, relevant) in questions {
        let qv = embedder.embed(&[q]).unwrap().remove(0);
        let hits = zo::search::rank::rank(index, q, Some(&qv), 10, &Filter { all: true, ..Default::default() }, mode).unwrap().hits;
        if let Some(pos) = hits.iter().position(|h| relevant.contains(&h.row.id)) {
            rr += 1.0 / (pos as f64 + 1.0);
            if pos < 3 {
                hit3 += 1.0;
            }
        }
    }
    let n = questions.len() as f64;
    Score { recall3: hit3 / n, mrr: rr / n }
}

fn table(name: &str, rows: &[(Mode, Score)]) {
    println!("\n{name}\n| mode | Recall@3 | MRR@10 |\n|---|---:|---:|");
    for (m, s) in rows {
        println!("| {} | {:.3} | {:.3} |", m.name(), s.recall3, s.mrr);
    }
}

fn setup_embedder() -> zo::search::embedding::Embedder {
    let search = zo::search::embedding::locate(&zo::store::config::Config::default());
    let paths = search.paths().unwrap_or_else(|why| panic!("the real model is required for this test: {why}"));
    zo::search::embedding::Embedder::load(&paths).unwrap()
}

/// The ADR corpus as a zo memory, with the IDs the questions file uses.
fn adr_memory() -> Repo {
    let r = Repo::init();
    let corpus = std::fs::read_to_string(util::fixtures().join("adr-corpus.jsonl")).unwrap();
    let log = r.read(r.log_path()) + &zo::fixtures::adr_entries(&corpus);
    r.write(r.log_path(), &log);
    r
}

#[test]
fn adr_corpus_eval_hybrid_beats_lexical_and_flags_questions_without_an_answer() {
    util::require_model();
    let r = adr_memory();
    let questions = util::fixtures().join("adr-questions.jsonl");
    // The labels name records by their corpus ID; the memory's IDs are derived from it.
    for line in std::fs::read_to_string(&questions).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let corpus: Vec<&str> = v["corpus"].as_array().map(|a| a.iter().map(|c| c.as_str().unwrap()).collect()).unwrap_or_default();
        let ids: Vec<String> = v["relevant"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
        assert_eq!(ids, corpus.iter().map(|c| decision_id(c)).collect::<Vec<_>>(), "{line}");
    }
    // The blind phrasings, written from the question texts alone (same order), join each
    // question as `"also"`, as an agent passes them: one `zo eval` measures both ways.
    let also = std::fs::read_to_string(util::fixtures().join("adr-questions-also.jsonl")).unwrap();
    let mut merged = String::new();
    for (line, phrased) in std::fs::read_to_string(&questions).unwrap().lines().zip(also.lines()) {
        let (mut v, p): (serde_json::Value, serde_json::Value) = (serde_json::from_str(line).unwrap(), serde_json::from_str(phrased).unwrap());
        assert_eq!(v["q"], p["q"], "the phrasings file follows the questions file line by line");
        v["also"] = p["also"].clone();
        merged.push_str(&format!("{v}\n"));
    }
    let questions = r.path().join(".git/questions-with-also.jsonl");
    std::fs::write(&questions, merged).unwrap();
    let out = r.run(&["eval", questions.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    println!("{}", out.stdout);
    let j = r.json(&["eval", questions.to_str().unwrap()]);
    assert_eq!(j["questions"], 110);
    assert_eq!(j["unknown_ids"].as_array().unwrap().len(), 0, "{j}");
    let run = |name: &str, phrasings: bool| {
        j["modes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mode"] == name && m["phrasings"] == phrasings)
            .unwrap_or_else(|| panic!("{name} missing: {j}"))
            .clone()
    };
    let mode = |name: &str| run(name, false);
    let (h, l) = (mode("hybrid"), mode("lexical"));
    let f = |m: &serde_json::Value, k: &str| m[k].as_f64().unwrap();
    assert!(f(&h, "recall_at_3") > f(&l, "recall_at_3") && f(&h, "mrr") > f(&l, "mrr"), "hybrid must beat lexical: {j}");
    // Measured 0.786 / 0.680 (docs/RECALL.md); a fall of more than two questions fails
    // (two questions leaving the top 3 cost 0.02 of Recall@3; two dropping from first to
    // second place cost 0.01 of MRR).
    assert!(f(&h, "recall_at_3") >= 0.76 && f(&h, "mrr") >= 0.67, "hybrid recall regressed: {j}");
    // At most 2 of the 12 questions without an answer get a hit above `low`, and at most 5
    // of the 98 with one are wrongly flagged.
    assert!(h["no_answer_flagged"].as_u64().unwrap() >= 10, "{j}");
    assert!(h["answered_flagged"].as_u64().unwrap() <= 5, "{j}");

    // With the phrasings (docs/RECALL.md): measured R@3 1.000, MRR 0.947, 12 of 12 without an
    // answer flagged, 0 of 98 with one, first hit `high` for 63 questions, 61 of them right.
    // Floors two questions below that (the targets are R@3 ≥ 0.97, MRR ≥ 0.94,
    // `high` ≥ 60 % of questions and ≥ 95 % right, ≤ 1 in 10 and ≤ 2 in 80 flags).
    let p = run("hybrid", true);
    assert!(f(&p, "recall_at_3") >= 0.97 && f(&p, "mrr") >= 0.93, "recall with phrasings regressed: {j}");
    assert!(f(&p, "recall_at_3") > f(&h, "recall_at_3") && f(&p, "mrr") > f(&h, "mrr"), "phrasings must beat the question alone: {j}");
    assert!(p["no_answer_flagged"].as_u64().unwrap() >= 11 && p["answered_flagged"].as_u64().unwrap() <= 2, "{j}");
    let (high, right) = (p["high_top"].as_u64().unwrap(), p["high_top_right"].as_u64().unwrap());
    assert!(high >= 57 && right as f64 >= 0.93 * high as f64, "`high` with phrasings: {right} right of {high}: {j}");
}

#[test]
fn zero_operators_fixture_recall() {
    let r = Repo::new();
    let dest = r.path().join("memory/zo-platform");
    std::fs::create_dir_all(dest.join("sessions")).unwrap();
    for f in ["DECISION_LOG.md", "PRIORS.md", "STATE.md"] {
        std::fs::copy(util::fixture().join(f), dest.join(f)).unwrap();
    }
    let by_title: HashMap<String, String> = r.json(&["log"])["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["title"].as_str().unwrap().to_string(), d["id"].as_str().unwrap().to_string()))
        .collect();
    let find = |prefix: &str| by_title.iter().find(|(t, _)| t.starts_with(prefix)).map(|(_, id)| id.clone()).unwrap_or_else(|| panic!("{prefix}"));
    let qs: Vec<(&str, Vec<String>)> = vec![
        ("what happens when the vector search library is not installed", vec![find("Semantic index — graceful fallback")]),
        ("why did the agent window close right after launching", vec![find("Add startup grace + confirmation debounce")]),
        ("where does project memory live so it travels with the client's code", vec![find("Portable project memory")]),
        ("making runs cheaper for students with a small budget", vec![find("`--low-token` mode shipped")]),
        ("dollar signs in the documentation were rendered as math", vec![find("Mintlify low-token-mode page")]),
        ("should the platform itself be containerised in the first version", vec![find("Docker deferred to v2")]),
    ];
    let memory = zo::store::memory::Memory::open(Some(r.path())).unwrap();
    let (mut index, _) = recall::open_fresh(&memory, &|_| {}).unwrap();
    let mut embedder = setup_embedder();
    recall::embed_pending(&mut index, &mut embedder, &|_| {}).unwrap();
    let rows: Vec<(Mode, Score)> = [Mode::Hybrid, Mode::Lexical, Mode::Semantic].into_iter().map(|m| (m, evaluate(&index, &mut embedder, &qs, m))).collect();
    table(&format!("zero-operators fixture: {} questions", qs.len()), &rows);
    assert!(rows[0].1.recall3 >= 0.5, "hybrid recall on the fixture regressed");
}

/// Issue 33's held-out sets (tests/fixtures/heldout/, written blind before any tuning),
/// measured as zo stands: a report for the closing note and the next session, not a floor
/// (floors come with a judgement fit on other sets). Run with
/// `cargo test --release --test retrieval heldout -- --ignored --nocapture`.
#[test]
#[ignore]
fn heldout_sets_report() {
    util::require_model();
    let r = adr_memory();
    let dir = util::fixtures().join("heldout");
    let phrasings: std::collections::HashMap<String, serde_json::Value> = std::fs::read_to_string(dir.join("phrasings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["q"].as_str().unwrap().to_string(), v["also"].clone()))
        .collect();
    for set in ["answerable", "unanswerable-on-topic", "unanswerable-off-topic"] {
        let mut merged = String::new();
        for line in std::fs::read_to_string(dir.join(format!("{set}.jsonl"))).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let q = v["q"].as_str().unwrap();
            let also = phrasings.get(q).unwrap_or_else(|| panic!("no phrasings for {q:?}"));
            merged.push_str(&format!("{}\n", serde_json::json!({"q": q, "relevant": v["relevant"], "also": also})));
        }
        let file = r.path().join(format!(".git/{set}.jsonl"));
        std::fs::write(&file, merged).unwrap();
        let j = r.json(&["eval", file.to_str().unwrap()]);
        assert_eq!(j["unknown_ids"].as_array().unwrap().len(), 0, "{j}");
        println!("{set}: {} questions ({} with an answer)", j["questions"], j["with_answer"]);
        for m in j["modes"].as_array().unwrap() {
            println!(
                "  {:<8} {:<10} R@3 {:.3} MRR {:.3} | answered-but-none {} | no-answer-flagged {} | high top {} right {}",
                m["mode"].as_str().unwrap(),
                if m["phrasings"] == true { "phrasings" } else { "alone" },
                m["recall_at_3"].as_f64().unwrap(),
                m["mrr"].as_f64().unwrap(),
                m["answered_flagged"],
                m["no_answer_flagged"],
                m["high_top"],
                m["high_top_right"]
            );
        }
    }
}
