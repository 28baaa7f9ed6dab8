//! `cargo bench --bench commands`: wall time of everyday commands on logs of 1,000 and 10,000
//! decisions built from tests/fixtures/adr-corpus.jsonl. Prints a Markdown table; each
//! zo time is followed by its multiple of `git status` in the same repository.
//! Each command runs as a fresh process, as hooks and agents run it.

mod common;
use common::*;

fn main() {
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(31);
    println!("\nzo command latency (fresh process per run, median / p95 of {runs} runs, ms)\n");
    println!(
        "| decisions | log size | git status | status | decide | log --limit 20 | show | floor: process start | floor: read + atomic rewrite of the log |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in [1000usize, 10_000] {
        if !selected(n) {
            continue;
        }
        let (_keep, path, size) = repo_with_log(n, &records);
        let d = path.as_path();
        let mid = bench_id(n / 2);
        let git = git_status(d, runs);
        let status = time(runs, |_| run(d, &["status"]));
        let decide = time(runs, |i| {
            let title = format!("bench decision {i}");
            run(
                d,
                &[
                    "decide",
                    "--title",
                    &title,
                    "--decision",
                    "measured",
                    "--rationale",
                    "bench",
                ],
            )
        });
        let logl = time(runs, |_| run(d, &["log", "--limit", "20"]));
        let show = time(runs, |_| run(d, &["show", &mid]));
        // What no `decide` can go below: starting a process, and the write SPEC §3 requires
        // (map the log, copy it into a temp file, fsync, rename, fsync the directory, unmap),
        // done in-process.
        let start = time(runs, |_| run(d, &["--version"]));
        let log_path = d.join(".zo/memory/DECISION_LOG.md");
        let rewrite = time(runs, |_| {
            let text = zo::store::fsio::read_text(&log_path).unwrap().unwrap();
            zo::store::fsio::write_atomic(&log_path, text.as_str().as_bytes()).unwrap();
        });
        let g = |x| format!("{} ({})", fmt(x), times_git(x, git));
        println!(
            "| {n} | {:.1} MB | {} | {} | {} | {} | {} | {} | {} |",
            size as f64 / 1e6,
            fmt(git),
            g(status),
            g(decide),
            g(logl),
            g(show),
            g(start),
            fmt(rewrite)
        );
    }
    println!();
}
