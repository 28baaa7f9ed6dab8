//! Measurement harness for recall tuning (not a test): builds a memory from the ADR corpus,
//! and prints, per labelled question, the lexical top 50 and the cosine to every entry at
//! several token lengths, as JSON for offline analysis of fusion and tiers.
//!   cargo run --release --example adr_memory -- /tmp/adr
//!   cargo run --release --example recall_lab -- /tmp/adr > /tmp/lab.json
use std::collections::HashMap;
use zo::search::index::Filter;

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::args()
        .nth(1)
        .expect("usage: recall_lab DIR (a memory made by the adr_memory example)");
    let repo = std::path::Path::new(&dir);
    let memory0 = zo::store::memory::Memory::open(Some(repo)).unwrap();
    let log = memory0.decisions().unwrap();
    // What the lab embeds: title and decision text, as the records were written.
    let texts: Vec<(String, String)> = (0..log.entries.len())
        .map(|i| {
            (
                log.entries[i].id.clone(),
                format!(
                    "{}\n{}",
                    log.entries[i].title,
                    log.field(i, "Decision").unwrap_or("")
                ),
            )
        })
        .collect();
    let memory = zo::store::memory::Memory::open(Some(repo)).unwrap();
    let (index, _) = zo::search::recall::open_fresh(&memory, &|_| {}).unwrap();
    let qs: Vec<serde_json::Value> =
        std::fs::read_to_string(root.join("tests/fixtures/adr-questions.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let paths = zo::search::embedding::locate(&zo::store::config::Config::default())
        .paths()
        .unwrap();
    let mut cos: HashMap<String, Vec<Vec<f32>>> = HashMap::new();
    // Variants: a token length (title + body read that far), `title` (the title alone), or
    // `chunksN` (windows of N words, each prefixed with the title, at 128 tokens; best chunk).
    let lens: Vec<String> = std::env::var("LAB_LENS")
        .unwrap_or("128,256,512".into())
        .split(',')
        .map(String::from)
        .collect();
    for len in &lens {
        let t = std::time::Instant::now();
        let (tokens, pieces): (usize, Vec<(usize, String)>) = if len == "title" {
            (
                128,
                texts
                    .iter()
                    .enumerate()
                    .map(|(i, (_, t))| (i, t.lines().next().unwrap_or("").to_string()))
                    .collect(),
            )
        } else if let Some(n) = len.strip_prefix("chunks") {
            let n: usize = n.parse().unwrap();
            let mut v = Vec::new();
            for (i, (_, t)) in texts.iter().enumerate() {
                let title = t.lines().next().unwrap_or("");
                let words: Vec<&str> = t.split_whitespace().collect();
                for c in words.chunks(n) {
                    v.push((i, format!("{title}\n{}", c.join(" "))));
                }
            }
            (128, v)
        } else {
            (
                len.parse().unwrap(),
                texts
                    .iter()
                    .enumerate()
                    .map(|(i, (_, t))| (i, t.clone()))
                    .collect(),
            )
        };
        let mut e = zo::search::embedding::Embedder::load_with(&paths, tokens).unwrap();
        let tx: Vec<&str> = pieces.iter().map(|(_, t)| t.as_str()).collect();
        let vecs = e.embed(&tx).unwrap();
        eprintln!(
            "{len}: embedded {} pieces in {:.1}s",
            vecs.len(),
            t.elapsed().as_secs_f64()
        );
        let mut per_q = Vec::new();
        for q in &qs {
            let qv = e.embed(&[q["q"].as_str().unwrap()]).unwrap().remove(0);
            let mut best = vec![f32::MIN; texts.len()];
            for ((i, _), v) in pieces.iter().zip(&vecs) {
                best[*i] = best[*i].max(v.iter().zip(&qv).map(|(a, b)| a * b).sum::<f32>());
            }
            per_q.push(best);
        }
        cos.insert(len.clone(), per_q);
    }
    // Each question's own vector, for experiments over the index's stored vectors.
    let mut qe = zo::search::embedding::Embedder::load(&paths).unwrap();
    let qvecs: Vec<Vec<f32>> = qs
        .iter()
        .map(|q| qe.embed(&[q["q"].as_str().unwrap()]).unwrap().remove(0))
        .collect();
    let out: Vec<serde_json::Value> = qs
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let lex: Vec<(String, f64)> = index
                .lexical(q["q"].as_str().unwrap(), &Filter { all: true, ..Default::default() }, 50)
                .unwrap()
                .into_iter()
                .map(|(r, s)| (index.row(r).unwrap().id, s))
                .collect();
            let c: HashMap<String, &Vec<f32>> = lens.iter().map(|l| (l.clone(), &cos[l][i])).collect();
            serde_json::json!({"q": q["q"], "relevant": q["relevant"], "lex": lex, "cos": c, "qvec": qvecs[i]})
        })
        .collect();
    let ids: Vec<&String> = texts.iter().map(|(id, _)| id).collect();
    println!("{}", serde_json::json!({"ids": ids, "questions": out}));
}
