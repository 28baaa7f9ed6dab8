//! `cargo bench --bench session`: session start and context on a log of 1,000 decisions
//! (without a task they never load the model), with --task, and `zo continue` on a fresh
//! clone (time to a ready index; the vectors come from the machine's cache the original's
//! `index refresh` filled, as on any machine that has seen the memory).

mod common;
use common::*;
use std::process::Command;
use std::time::Instant;

fn main() {
    let _cache = own_vector_cache();
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(31);
    let n = 1000;
    let (_keep, path, _) = repo_with_log(n, &records);
    let d = path.as_path();
    let context = time(runs, |_| run(d, &["context"]));
    let start = time(runs, |_| run(d, &["session", "start", "--agent", "bench"]));
    // Embed once so --task measures a query, not the first build.
    run(d, &["index", "refresh"]);
    let task = time(runs.min(11), |_| {
        run(
            d,
            &[
                "context",
                "--task",
                "how do we keep secrets out of the repository",
            ],
        )
    });

    let clones = tempfile::tempdir().unwrap();
    let clone = clones.path().join("fresh");
    let ok = Command::new("git")
        .args(["clone", "-q"])
        .arg(d)
        .arg(&clone)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let t = Instant::now();
    run(&clone, &["continue"]);
    let cont = t.elapsed().as_secs_f64();
    let t = Instant::now();
    run(&clone, &["continue"]);
    let again = t.elapsed().as_secs_f64() * 1000.0;

    println!("\nsession commands on {n} decisions (fresh process per run, median / p95 ms)\n");
    println!(
        "| context | session start | context --task | continue, fresh clone (index ready, cache warm) | continue again |"
    );
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {cont:.1} s | {again:.0} ms |\n",
        fmt(context),
        fmt(start),
        fmt(task)
    );
}
