//! `cargo bench --bench commands`: wall time of everyday commands on logs of 1,000 and 10,000
//! decisions built from ../shared/eval/adr-corpus.jsonl. Prints a Markdown table.
//! Each command runs as a fresh process, as hooks and agents run it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;
use zo::format::decision::NewDecision;

const ZO: &str = env!("CARGO_BIN_EXE_zo");

struct Record {
    title: String,
    body: String,
}

fn corpus() -> Vec<Record> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/eval/adr-corpus.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Record { title: v["title"].as_str().unwrap().to_string(), body: v["body"].as_str().unwrap().to_string() }
        })
        .collect()
}

/// A log of `n` decisions cycling through the corpus. Bodies are cut at a line boundary near
/// 1,500 bytes, the size of a typical hand-written entry (the fixture's average is ~1.6 KB).
fn build_log(n: usize, records: &[Record]) -> String {
    let mut out = String::from("# DECISION_LOG\n\n---\n\n");
    for i in 0..n {
        let r = &records[i % records.len()];
        let mut body = r.body.as_str();
        if body.len() > 1500 {
            let cut = body[..1500].rfind('\n').unwrap_or(1500);
            body = &body[..cut];
        }
        let d = NewDecision {
            id: format!("D-{:08x}", i as u32 ^ 0x5a5a_0000),
            timestamp: zo::time::rfc3339(1_700_000_000 + i as i64 * 3600),
            kind: "ARCHITECTURE".into(),
            title: format!("{} ({})", r.title, i / records.len() + 1),
            decision: body.trim().to_string(),
            rationale: "From the ADR corpus.".into(),
            outcome: "pending".into(),
            ..Default::default()
        };
        out.push_str(&d.render());
    }
    out
}

fn run(dir: &Path, args: &[&str]) {
    let out = Command::new(ZO).args(args).current_dir(dir).env_remove("ZO_REPO").output().unwrap();
    assert!(out.status.success(), "zo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git").args(args).current_dir(dir).output().unwrap().status.success();
    assert!(ok, "git {args:?}");
}

/// Median and 95th percentile of `runs` timings, in ms.
fn time(runs: usize, mut f: impl FnMut(usize)) -> (f64, f64) {
    f(usize::MAX); // warm the page cache
    let mut t: Vec<f64> = (0..runs)
        .map(|i| {
            let s = Instant::now();
            f(i);
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (t[runs / 2], t[(runs * 95 / 100).min(runs - 1)])
}

fn main() {
    // `cargo bench` passes --bench; a filter argument picks sizes ("1000", "10000").
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(31);
    println!("\nzo command latency (fresh process per run, median / p95 of {runs} runs, ms)\n");
    println!("| decisions | log size | status | decide | log --limit 20 | show |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in [1000usize, 10_000] {
        if !filter.is_empty() && !filter.iter().any(|f| f == &n.to_string()) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        // ZO_BENCH_KEEP=1 leaves the repositories behind for profiling.
        let d = &if std::env::var_os("ZO_BENCH_KEEP").is_some() { dir.keep() } else { dir.path().to_path_buf() };
        git(d, &["init", "-q"]);
        git(d, &["config", "user.email", "bench@example.com"]);
        git(d, &["config", "user.name", "bench"]);
        run(d, &["-q", "init", "--project", "bench"]);
        let log = build_log(n, &records);
        std::fs::write(d.join(".zo/memory/DECISION_LOG.md"), &log).unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "bench"]);
        let mid = format!("D-{:08x}", (n / 2) as u32 ^ 0x5a5a_0000);
        let status = time(runs, |_| run(d, &["status"]));
        let decide = time(runs, |i| {
            let title = format!("bench decision {i}");
            run(d, &["decide", "--title", &title, "--decision", "measured", "--rationale", "bench"])
        });
        let logl = time(runs, |_| run(d, &["log", "--limit", "20"]));
        let show = time(runs, |_| run(d, &["show", &mid]));
        let f = |(m, p): (f64, f64)| format!("{m:.1} / {p:.1}");
        println!(
            "| {n} | {:.1} MB | {} | {} | {} | {} |",
            log.len() as f64 / 1e6,
            f(status),
            f(decide),
            f(logl),
            f(show)
        );
        if std::env::var_os("ZO_BENCH_KEEP").is_some() {
            println!("(kept {})", d.display());
        }
    }
    println!();
}
