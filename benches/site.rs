//! `cargo bench --bench site`: wall time of `zo site` (a fresh process, the whole site written
//! and swapped in) on logs of 1,000 and 10,000 decisions built from
//! tests/fixtures/adr-corpus.jsonl. Prints a Markdown table.

mod common;
use common::*;

fn main() {
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    println!("\nzo site (fresh process per run, median / p95 of {runs} runs, ms)\n");
    println!("| decisions | log size | zo site | pages |");
    println!("|---:|---:|---:|---:|");
    for n in [1000usize, 10_000] {
        if !selected(n) {
            continue;
        }
        let (_keep, path, size) = repo_with_log(n, &records);
        let d = path.as_path();
        let site = time(runs, |_| run(d, &["-q", "site"]));
        let pages = std::fs::read_dir(d.join(".zo/site/d")).map_or(0, |r| r.count());
        println!(
            "| {n} | {:.1} MB | {} | {} |",
            size as f64 / 1e6,
            fmt(site),
            pages + 7
        );
    }
    println!();
}
