//! `cargo bench --bench mcp`: `zo mcp` as a client sees it, on the 326 ADR records as
//! decisions: time to answer `initialize`, the size of `tools/list`, the first recall (which
//! loads the model) and warm recalls after it: of a question alone, with three phrasings new to
//! the server (each call's differ), and the same question and phrasings asked again.

mod common;
use common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let records = corpus();
    let n = records.len();
    let (_keep, path, _) = repo_with_log(n, &records);
    let d = path.as_path();
    run(d, &["index", "refresh"]); // embeddings built once, as on any machine in use
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(31);

    let mut init_ms = Vec::new();
    let mut list_bytes = 0;
    let mut first_ms = 0.0;
    let mut warm = Vec::new();
    let (mut phrased, mut repeated) = (Vec::new(), Vec::new());
    let also = [
        "secrets credentials scanning",
        "Use a secret manager for credentials",
        "gitleaks pre-commit secret detection",
    ];
    let queries = [
        "how do we keep secrets out of the repository",
        "which database do we use",
        "how are services deployed",
        "what happens when a form is submitted",
    ];
    for round in 0..5 {
        let mut child = Command::new(ZO)
            .arg("mcp")
            .current_dir(d)
            .env_remove("ZO_REPO")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut id = 0;
        let mut req = |method: &str, params: Value| -> (Value, f64) {
            id += 1;
            let t = Instant::now();
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            )
            .unwrap();
            stdin.flush().unwrap();
            loop {
                let mut line = String::new();
                stdout.read_line(&mut line).unwrap();
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"] == id {
                    return (v, t.elapsed().as_secs_f64() * 1000.0);
                }
            }
        };
        let (_, ms) = req(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        init_ms.push(ms);
        let (list, _) = req("tools/list", json!({}));
        list_bytes = list["result"].to_string().len();
        let (_, ms) = req(
            "tools/call",
            json!({"name": "recall", "arguments": {"query": queries[0]}}),
        );
        if round == 0 {
            first_ms = ms;
        }
        for i in 0..runs / 5 {
            let (v, ms) = req(
                "tools/call",
                json!({"name": "recall", "arguments": {"query": queries[i % queries.len()]}}),
            );
            assert_eq!(v["result"]["structuredContent"]["mode"], "hybrid", "{v}");
            warm.push(ms);
            // Three phrasings no earlier call used (the server embeds all four, in one run).
            let fresh: Vec<String> = also.iter().map(|a| format!("{a} {round} {i}")).collect();
            let args = json!({"query": format!("{} ({round} {i})", queries[i % queries.len()]), "also": fresh});
            let (v, ms) = req(
                "tools/call",
                json!({"name": "recall", "arguments": args.clone()}),
            );
            assert_eq!(v["result"]["structuredContent"]["pass"], "phrasings", "{v}");
            phrased.push(ms);
            let (_, ms) = req("tools/call", json!({"name": "recall", "arguments": args}));
            repeated.push(ms);
        }
        drop(stdin);
        assert!(
            child.wait().unwrap().success(),
            "the server exits cleanly when stdin closes"
        );
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (v[v.len() / 2], v[(v.len() * 95 / 100).min(v.len() - 1)])
    };
    println!("\nzo mcp on {n} decisions (median / p95 ms)\n");
    println!(
        "| initialize | tools/list | first recall (loads the model) | warm recall | warm, + 3 new phrasings | the same again |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} bytes ≈ {} tokens | {first_ms:.0} | {} | {} | {} |\n",
        fmt(med(&mut init_ms)),
        list_bytes,
        list_bytes.div_ceil(4),
        fmt(med(&mut warm)),
        fmt(med(&mut phrased)),
        fmt(med(&mut repeated))
    );
}
