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

fn evaluate(
    index: &zo::search::index::Index,
    embedder: &mut zo::search::embedding::Embedder,
    questions: &[(&str, Vec<String>)],
    mode: Mode,
) -> Score {
    let (mut hit3, mut rr) = (0.0, 0.0);
    for (q, relevant) in questions {
        let qv = embedder.embed(&[q]).unwrap().remove(0);
        let hits = zo::search::rank::rank(
            index,
            q,
            Some(&qv),
            10,
            &Filter {
                all: true,
                ..Default::default()
            },
            mode,
        )
        .unwrap()
        .hits;
        if let Some(pos) = hits.iter().position(|h| relevant.contains(&h.row.id)) {
            rr += 1.0 / (pos as f64 + 1.0);
            if pos < 3 {
                hit3 += 1.0;
            }
        }
    }
    let n = questions.len() as f64;
    Score {
        recall3: hit3 / n,
        mrr: rr / n,
    }
}

fn table(name: &str, rows: &[(Mode, Score)]) {
    println!("\n{name}\n| mode | Recall@3 | MRR@10 |\n|---|---:|---:|");
    for (m, s) in rows {
        println!("| {} | {:.3} | {:.3} |", m.name(), s.recall3, s.mrr);
    }
}

fn setup_embedder() -> zo::search::embedding::Embedder {
    let search = zo::search::embedding::locate(&zo::store::config::Config::default());
    let paths = search
        .paths()
        .unwrap_or_else(|why| panic!("the real model is required for this test: {why}"));
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

/// The labelled sets over the 326 ADRs, measured by `zo eval` in one run, each set on its own:
/// the fitting sets (`adr-questions.jsonl`, the labelled set the tiers were fit on, and
/// `fit/unanswerable-on-topic.jsonl`, which the answerability judgement was fit on) and the
/// held-out sets (`heldout/`, written before any tuning and never fit on: the README quotes
/// only these). Each with its blind phrasings. Floors sit about two questions below what was
/// measured (docs/RECALL.md), so a regression fails and float noise does not.
#[test]
fn adr_corpus_eval_fit_and_heldout_floors() {
    util::require_model();
    let r = adr_memory();
    let fx = util::fixtures();
    // The labels name records by their corpus ID; the memory's IDs are derived from it.
    for file in ["adr-questions.jsonl", "heldout/answerable.jsonl"] {
        for line in std::fs::read_to_string(fx.join(file)).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let corpus: Vec<&str> = v["corpus"]
                .as_array()
                .map(|a| a.iter().map(|c| c.as_str().unwrap()).collect())
                .unwrap_or_default();
            let ids: Vec<String> = v["relevant"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            assert_eq!(
                ids,
                corpus.iter().map(|c| decision_id(c)).collect::<Vec<_>>(),
                "{line}"
            );
        }
    }
    let sets = [
        "adr-questions.jsonl",
        "fit/unanswerable-on-topic.jsonl",
        "heldout/answerable.jsonl",
        "heldout/unanswerable-on-topic.jsonl",
        "heldout/unanswerable-off-topic.jsonl",
    ];
    let mut args: Vec<String> = vec!["eval".into()];
    args.extend(sets.iter().map(|s| fx.join(s).display().to_string()));
    for p in [
        "adr-questions-also.jsonl",
        "fit/phrasings.jsonl",
        "heldout/phrasings.jsonl",
    ] {
        args.extend(["--phrasings".to_string(), fx.join(p).display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = r.run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    println!("{}", out.stdout);
    let j = r.json(&args);
    let set = |i: usize| j["sets"][i].clone();
    for (i, name) in sets.iter().enumerate() {
        assert_eq!(
            set(i)["unknown_ids"].as_array().unwrap().len(),
            0,
            "{name}: {j}"
        );
        assert!(
            set(i)["modes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["phrasings"] == true),
            "{name} has its phrasings: {j}"
        );
    }
    let run = |i: usize, name: &str, phrasings: bool| {
        set(i)["modes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mode"] == name && m["phrasings"] == phrasings)
            .unwrap_or_else(|| panic!("{name} missing: {j}"))
            .clone()
    };
    let f = |m: &serde_json::Value, k: &str| m[k].as_f64().unwrap();
    let n = |m: &serde_json::Value, k: &str| m[k].as_u64().unwrap();

    // The labelled set (fit): hybrid beats lexical; measured R@3 0.786, MRR 0.680 alone,
    // 1.000 / 0.949 with phrasings; 12 of 12 without an answer flagged; with phrasings 3 of 98
    // with one taken back by the judgement, `high` first 61 times, 58 right.
    let (h, l, p) = (
        run(0, "hybrid", false),
        run(0, "lexical", false),
        run(0, "hybrid", true),
    );
    assert!(
        f(&h, "recall_at_3") > f(&l, "recall_at_3") && f(&h, "mrr") > f(&l, "mrr"),
        "hybrid must beat lexical: {j}"
    );
    assert!(
        f(&h, "recall_at_3") >= 0.76 && f(&h, "mrr") >= 0.67,
        "hybrid recall regressed: {j}"
    );
    assert!(
        n(&h, "no_answer_flagged") >= 10 && n(&h, "answered_flagged") <= 5,
        "{j}"
    );
    assert!(
        f(&p, "recall_at_3") >= 0.97 && f(&p, "mrr") >= 0.93,
        "recall with phrasings regressed: {j}"
    );
    assert!(
        f(&p, "recall_at_3") > f(&h, "recall_at_3") && f(&p, "mrr") > f(&h, "mrr"),
        "phrasings must beat the question alone: {j}"
    );
    assert!(
        n(&p, "no_answer_flagged") >= 11 && n(&p, "answered_flagged") <= 5,
        "{j}"
    );
    assert!(
        n(&p, "high_top") >= 55 && f(&p, "high_top_right") >= 0.93 * f(&p, "high_top"),
        "`high` with phrasings: {j}"
    );
    // The on-topic fit set: the judgement took back 2 of 40 alone (names no entry mentions),
    // 13 with phrasings.
    assert!(
        n(&run(1, "hybrid", false), "no_answer_flagged") >= 2
            && n(&run(1, "hybrid", true), "no_answer_flagged") >= 11,
        "{j}"
    );

    // Held-out, answerable (60): measured alone R@3 1.000, MRR 0.933, none flagged, `high`
    // first 25 times, 24 right; with phrasings 0.967 / 0.927, 2 flagged, `high` 44, all right.
    let (a, ap) = (run(2, "hybrid", false), run(2, "hybrid", true));
    assert!(
        f(&a, "recall_at_3") >= 0.95 && f(&a, "mrr") >= 0.9 && n(&a, "answered_flagged") <= 2,
        "held-out answerable alone: {j}"
    );
    assert!(
        n(&a, "high_top") >= 20 && f(&a, "high_top_right") >= 0.9 * f(&a, "high_top"),
        "held-out `high` alone: {j}"
    );
    assert!(
        f(&ap, "recall_at_3") >= 0.95 && f(&ap, "mrr") >= 0.9 && n(&ap, "answered_flagged") <= 3,
        "held-out answerable with phrasings: {j}"
    );
    assert!(
        n(&ap, "high_top") >= 30 && f(&ap, "high_top_right") >= 0.95 * f(&ap, "high_top"),
        "held-out `high` with phrasings: {j}"
    );
    // Held-out, on-topic without an answer (36): alone 10 flagged (none before the judgement),
    // with phrasings 24 (none before it). The target, at most 6 answered, is not met:
    // see README.
    assert!(
        n(&run(3, "hybrid", false), "no_answer_flagged") >= 8,
        "held-out on-topic alone: {j}"
    );
    assert!(
        n(&run(3, "hybrid", true), "no_answer_flagged") >= 22,
        "held-out on-topic with phrasings: {j}"
    );
    // Held-out, off-topic (12): 12 flagged alone and with phrasings.
    assert!(
        n(&run(4, "hybrid", false), "no_answer_flagged") >= 11
            && n(&run(4, "hybrid", true), "no_answer_flagged") >= 11,
        "held-out off-topic: {j}"
    );
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
        .map(|d| {
            (
                d["title"].as_str().unwrap().to_string(),
                d["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let find = |prefix: &str| {
        by_title
            .iter()
            .find(|(t, _)| t.starts_with(prefix))
            .map(|(_, id)| id.clone())
            .unwrap_or_else(|| panic!("{prefix}"))
    };
    let qs: Vec<(&str, Vec<String>)> = vec![
        (
            "what happens when the vector search library is not installed",
            vec![find("Semantic index — graceful fallback")],
        ),
        (
            "why did the agent window close right after launching",
            vec![find("Add startup grace + confirmation debounce")],
        ),
        (
            "where does project memory live so it travels with the client's code",
            vec![find("Portable project memory")],
        ),
        (
            "making runs cheaper for students with a small budget",
            vec![find("`--low-token` mode shipped")],
        ),
        (
            "dollar signs in the documentation were rendered as math",
            vec![find("Mintlify low-token-mode page")],
        ),
        (
            "should the platform itself be containerised in the first version",
            vec![find("Docker deferred to v2")],
        ),
    ];
    let memory = zo::store::memory::Memory::open(Some(r.path())).unwrap();
    let (mut index, _) = recall::open_fresh(&memory, &|_| {}).unwrap();
    let mut embedder = setup_embedder();
    recall::embed_pending(&mut index, &mut embedder, &|_| {}).unwrap();
    let rows: Vec<(Mode, Score)> = [Mode::Hybrid, Mode::Lexical, Mode::Semantic]
        .into_iter()
        .map(|m| (m, evaluate(&index, &mut embedder, &qs, m)))
        .collect();
    table(
        &format!("zero-operators fixture: {} questions", qs.len()),
        &rows,
    );
    assert!(
        rows[0].1.recall3 >= 0.5,
        "hybrid recall on the fixture regressed"
    );
}
