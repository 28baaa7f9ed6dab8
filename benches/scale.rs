//! `cargo bench --bench scale`: the hook-path commands and the lexical index at 10,000 and
//! 100,000 decisions (ADR records, cut like hand-written entries): wall time (median of a few
//! fresh processes; the index build once) and peak memory (max RSS, from /usr/bin/time). The
//! ratio column shows growth from 10k to 100k: 10× is linear.

mod common;
use common::*;
use std::process::Command;
use std::time::Instant;

/// Wall seconds and peak RSS (MB) of one fresh `zo` process, without the model.
fn measure(d: &std::path::Path, args: &[&str]) -> (f64, f64) {
    let t = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(ZO)
        .args(args)
        .current_dir(d)
        .env_remove("ZO_REPO")
        .env("ZO_CACHE", "/nonexistent")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(out.status.success(), "zo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let kb: f64 = String::from_utf8_lossy(&out.stderr).lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(0.0);
    (secs, kb / 1024.0)
}

fn median(d: &std::path::Path, runs: usize, args: &dyn Fn(usize) -> Vec<String>) -> (f64, f64) {
    let mut v: Vec<(f64, f64)> = (0..runs).map(|i| measure(d, &args(i).iter().map(String::as_str).collect::<Vec<_>>())).collect();
    v.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    v[runs / 2]
}

fn main() {
    let records = corpus();
    let runs = 7;
    let mut rows = Vec::new();
    for n in [10_000usize, 100_000] {
        if !selected(n) {
            continue;
        }
        let (_keep, path, size) = repo_with_log(n, &records);
        let d = path.as_path();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let status = median(d, runs, &|_| s(&["status"]));
        let decide = median(d, runs, &|i| vec!["decide".into(), "--title".into(), format!("scale {i}"), "--decision".into(), "measured".into()]);
        let log = median(d, runs, &|_| s(&["log", "--limit", "20"]));
        let build = measure(d, &["index", "rebuild"]);
        let recall = median(d, runs, &|_| s(&["recall", "--mode", "lexical", "how do we keep secrets out of the repository"]));
        let after = measure(d, &["decide", "--title", "one more after the index", "--decision", "d"]);
        let refresh = measure(d, &["recall", "--mode", "lexical", "one more after the index"]);
        rows.push((n, size, status, decide, log, build, recall, after, refresh));
    }
    println!("\nscale (fresh process per run, no model; wall ms / peak MB)\n");
    println!("| decisions | log | status | decide | log --limit 20 | index rebuild (lexical) | lexical recall | recall after one decide (refresh) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    let f = |(s, m): (f64, f64)| format!("{:.0} / {m:.0}", s * 1000.0);
    for (n, size, status, decide, log, build, recall, _, refresh) in &rows {
        println!("| {n} | {:.0} MB | {} | {} | {} | {} | {} | {} |", *size as f64 / 1e6, f(*status), f(*decide), f(*log), f(*build), f(*recall), f(*refresh));
    }
    if let [a, b] = rows.as_slice() {
        let r = |x: (f64, f64), y: (f64, f64)| format!("{:.1}×", y.0 / x.0);
        println!("| 10k → 100k | {:.1}× | {} | {} | {} | {} | {} | {} |\n", b.1 as f64 / a.1 as f64, r(a.2, b.2), r(a.3, b.3), r(a.4, b.4), r(a.5, b.5), r(a.6, b.6), r(a.8, b.8));
    }
}
