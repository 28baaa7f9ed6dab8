//! `cargo bench --bench recall`: index build throughput and peak memory, lexical and hybrid
//! recall latency, and model load time, on the 326 ADR records whole and on logs of 1,000 and
//! 10,000 decisions (`cargo bench --bench recall -- 326` runs one size).
//! The 10,000-decision embedding build takes minutes on 2 cores; it runs only with
//! ZO_BENCH_EMBED_10K=1 (the lexical numbers at 10,000 always run).

mod common;
use common::*;
use std::process::Command;
use std::time::Instant;

fn main() {
    let _cache = own_vector_cache();
    // As zo's own main does: no ONNX Runtime telemetry from the model loaded in this process.
    // SAFETY: no other thread exists yet.
    unsafe { std::env::set_var("ORT_DISABLE_TELEMETRY", "1") };
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let no_model = [("ZO_CACHE", "/nonexistent"), ("HOME", "/nonexistent")];

    // Model load, in process (what every semantic command pays once).
    let search = zo::search::embedding::locate(&zo::store::config::Config::default());
    let paths = search.paths().expect("run scripts/install-model first");
    let t = Instant::now();
    let mut e = zo::search::embedding::Embedder::load(&paths).unwrap();
    let load = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    e.embed(&["what did we try last time for feature selection"])
        .unwrap();
    let query = t.elapsed().as_secs_f64() * 1000.0;
    let mut loads: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            let _ = zo::search::embedding::Embedder::load(&paths).unwrap();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    loads.sort_by(|a, b| a.total_cmp(b));
    println!(
        "\nmodel load: first {load:.0} ms, then median {:.0} ms; one query embedding {query:.1} ms",
        loads[1]
    );
    // The quick query embedder cold recall uses (no graph optimisation).
    let mut quick: Vec<(f64, f64)> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut q = zo::search::embedding::QueryEmbedder::load(&paths).unwrap();
            let l = t.elapsed().as_secs_f64() * 1000.0;
            q.embed("what did we try last time for feature selection")
                .unwrap();
            (l, t.elapsed().as_secs_f64() * 1000.0 - l)
        })
        .collect();
    quick.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
    println!(
        "quick query embedder: load {:.0} ms + first query {:.0} ms (median of 5)\n",
        quick[2].0, quick[2].1
    );

    println!(
        "| decisions | lexical build | embedding build | peak RSS (build) | recall --mode lexical | recall (hybrid) | recall + 3 phrasings | recall, no model installed |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    // The first embedding build (a cold vector cache) and `git status` in the same repository.
    let mut cold_build = None;
    for n in [326usize, 1000, 10_000] {
        if !selected(n) {
            continue;
        }
        // 326: the ADR corpus whole (the figures); the others cycle it, bodies cut.
        let (_keep, path, _) = if n == 326 {
            repo_with_adr_corpus()
        } else {
            repo_with_log(n, &records)
        };
        let d = path.as_path();
        let (lex_secs, lex_mb) = measured(d, &["index", "refresh"], &no_model);
        let embed = if n <= 1000 || std::env::var_os("ZO_BENCH_EMBED_10K").is_some() {
            let (secs, mb) = measured(d, &["index", "refresh"], &[]);
            if cold_build.is_none() {
                let (git_ms, _) = time(21, |_| git(d, &["status", "--porcelain"]));
                cold_build = Some((n, secs, mb, git_ms));
            }
            Some((secs, mb))
        } else {
            None
        };
        let q = "how do we keep secrets out of the repository";
        let lexical = time(runs, |_| run(d, &["recall", "--mode", "lexical", q]));
        let hybrid = embed.map(|_| time(runs.min(11), |_| run(d, &["recall", q])));
        let also = [
            "--also",
            "secrets credentials scanning",
            "--also",
            "Use a secret manager for credentials",
            "--also",
            "gitleaks pre-commit secret detection",
        ];
        let phrased = embed.map(|_| {
            time(runs.min(11), |_| {
                run(d, &[&["recall", q][..], &also].concat())
            })
        });
        let fallback = time(runs, |_| {
            let ok = Command::new(ZO)
                .args(["-q", "recall", q])
                .current_dir(d)
                .envs(no_model)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok);
        });
        let embed_cell = match embed {
            Some((s, mb)) => (
                format!("{s:.1} s ({:.0} entries/s)", n as f64 / s),
                format!("{:.0} MB (lexical build {lex_mb:.0} MB)", mb),
            ),
            None => (
                "(ZO_BENCH_EMBED_10K=1)".into(),
                format!("lexical build {lex_mb:.0} MB"),
            ),
        };
        println!(
            "| {n} | {lex_secs:.2} s ({:.0} entries/s) | {} | {} | {} | {} | {} | {} |",
            n as f64 / lex_secs,
            embed_cell.0,
            embed_cell.1,
            fmt(lexical),
            hybrid.map(fmt).unwrap_or_else(|| "-".into()),
            phrased.map(fmt).unwrap_or_else(|| "-".into()),
            fmt(fallback)
        );
    }
    println!("\n(latencies: median / p95 ms, fresh process per run; builds: one run)\n");
    if let Some((n, secs, mb, git_ms)) = cold_build {
        println!(
            "cold embedding build at {n}: {secs:.1} s, {mb:.0} MB peak = {:.0}× `git status` ({git_ms:.1} ms, same run)\n",
            secs * 1000.0 / git_ms
        );
    }
}
