//! Measurement harness for multi-phrasing recall (issue 23; not a test): for each labelled
//! question and each of its blind phrasings (tests/fixtures/adr-questions-also.jsonl), the
//! hybrid ranking's top 50 with each hit's similarity and BM25, as JSON lines for offline
//! analysis of fusion rules and tiers (docs/RECALL.md).
//!   cargo run --release --example adr_memory -- /tmp/adr && (cd /tmp/adr && zo index rebuild)
//!   cargo run --release --example also_lab -- /tmp/adr > /tmp/also.jsonl
use zo::search::index::Filter;
use zo::search::recall::{self, Mode};

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::args()
        .nth(1)
        .expect("usage: also_lab DIR (a memory made by the adr_memory example)");
    let memory = zo::store::memory::Memory::open(Some(std::path::Path::new(&dir))).unwrap();
    let (index, _) = recall::open_fresh(&memory, &|_| {}).unwrap();
    let read = |f: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(root.join("tests/fixtures").join(f))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (qs, also) = (
        read("adr-questions.jsonl"),
        read("adr-questions-also.jsonl"),
    );
    let paths = zo::search::embedding::locate(&zo::store::config::Config::default())
        .paths()
        .unwrap();
    let mut e = zo::search::embedding::Embedder::load(&paths).unwrap();
    let filter = Filter {
        all: true,
        ..Default::default()
    };
    for (q, a) in qs.iter().zip(&also) {
        assert_eq!(q["q"], a["q"]);
        let texts: Vec<&str> = std::iter::once(q["q"].as_str().unwrap())
            .chain(
                a["also"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap()),
            )
            .collect();
        let vecs = e.embed(&texts).unwrap();
        let mut lists = Vec::new();
        for (t, v) in texts.iter().zip(&vecs) {
            let r = zo::search::rank::rank(&index, t, Some(v), 50, &filter, Mode::Hybrid).unwrap();
            let best_sim = index
                .semantic(v, &filter)
                .unwrap()
                .first()
                .map_or(0.0, |x| x.1);
            let hits: Vec<serde_json::Value> = r
                .hits
                .iter()
                .map(|h| {
                    let x = h.explain.as_ref().unwrap();
                    serde_json::json!({"id": h.row.id, "fused": x.fused, "sim": x.similarity, "bm25": x.bm25, "srank": x.semantic_rank, "lrank": x.lexical_rank, "tier": h.tier})
                })
                .collect();
            let sims: serde_json::Map<String, serde_json::Value> = index
                .semantic(v, &filter)
                .unwrap()
                .into_iter()
                .map(|(id, s)| (index.row(id).unwrap().id, serde_json::json!(s)))
                .collect();
            let lex: Vec<(String, f64)> = index
                .lexical(t, &filter, 50)
                .unwrap()
                .into_iter()
                .map(|(id, s)| (index.row(id).unwrap().id, s))
                .collect();
            lists.push(serde_json::json!({"text": t, "answered": r.answered, "pass": r.pass, "best_sim": best_sim, "hits": hits, "sims": sims, "lex": lex}));
        }
        let joined = texts.join(" ");
        let lex_all: Vec<(String, f64)> = index
            .lexical(&joined, &filter, 50)
            .unwrap()
            .into_iter()
            .map(|(id, s)| (index.row(id).unwrap().id, s))
            .collect();
        println!(
            "{}",
            serde_json::json!({"q": q["q"], "relevant": q["relevant"], "lists": lists, "lex_all": lex_all})
        );
    }
}
