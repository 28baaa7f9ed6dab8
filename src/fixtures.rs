//! The ADR corpus (tests/fixtures/adr-corpus.jsonl) as decision log entries, with the IDs the
//! labelled questions (tests/fixtures/adr-questions.jsonl) use: one definition for the
//! retrieval test and the `adr_memory` example.
#![doc(hidden)]

use crate::format::decision::NewDecision;

/// The ID a corpus record gets: `D-` and the first 8 hex digits of the sha256 of its corpus ID.
pub fn adr_id(corpus_id: &str) -> String {
    format!("D-{}", &crate::format::sha256_hex(corpus_id)[..8])
}

/// Every record of the corpus (JSON lines with `id`, `title`, `body`), rendered as entries to
/// append to a log, a day apart.
pub fn adr_entries(corpus_jsonl: &str) -> String {
    let mut log = String::new();
    for (i, line) in corpus_jsonl.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a corpus line is JSON");
        let field = |k: &str| v[k].as_str().unwrap_or_default();
        let d = NewDecision {
            id: adr_id(field("id")),
            timestamp: crate::time::rfc3339(1_600_000_000 + i as i64 * 86_400),
            kind: "ARCHITECTURE".into(),
            title: field("title").chars().take(200).collect(),
            decision: field("body").trim().into(),
            outcome: "pending".into(),
            ..Default::default()
        };
        log.push_str(&d.render());
    }
    log
}
