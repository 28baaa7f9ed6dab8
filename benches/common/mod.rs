//! Shared by the benches: logs built from tests/fixtures/adr-corpus.jsonl, running zo, timing.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use zo::format::decision::NewDecision;

pub const ZO: &str = env!("CARGO_BIN_EXE_zo");

pub struct Record {
    pub title: String,
    pub body: String,
}

pub fn corpus() -> Vec<Record> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adr-corpus.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Record {
                title: v["title"].as_str().unwrap().to_string(),
                body: v["body"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// A log of `n` decisions cycling through the corpus. Bodies are cut at a line boundary near
/// 1,500 bytes, the size of a typical hand-written entry (the fixture's average is ~1.6 KB).
pub fn build_log(n: usize, records: &[Record]) -> String {
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

pub fn run(dir: &Path, args: &[&str]) {
    let out = Command::new(ZO)
        .args(args)
        .current_dir(dir)
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "zo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// Median and 95th percentile of `runs` timings, in ms.
pub fn time(runs: usize, mut f: impl FnMut(usize)) -> (f64, f64) {
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

/// A git repository with `zo init` and a log of `n` decisions, committed. Kept on disk when
/// ZO_BENCH_KEEP is set (for profiling).
pub fn repo_with_log(n: usize, records: &[Record]) -> (Option<tempfile::TempDir>, PathBuf, usize) {
    repo_with_text(build_log(n, records))
}

/// The 326 ADR records whole, with the IDs the labelled questions use (what the issue's
/// targets are stated on, and what `cargo run --example adr_memory` writes).
pub fn repo_with_adr_corpus() -> (Option<tempfile::TempDir>, PathBuf, usize) {
    let corpus = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adr-corpus.jsonl"),
    )
    .unwrap();
    repo_with_text(format!(
        "# DECISION_LOG\n\n---\n\n{}",
        zo::fixtures::adr_entries(&corpus)
    ))
}

fn repo_with_text(log: String) -> (Option<tempfile::TempDir>, PathBuf, usize) {
    let dir = tempfile::tempdir().unwrap();
    let (keep, path) = if std::env::var_os("ZO_BENCH_KEEP").is_some() {
        let p = dir.keep();
        println!("(kept {})", p.display());
        (None, p)
    } else {
        let p = dir.path().to_path_buf();
        (Some(dir), p)
    };
    let d = path.as_path();
    git(d, &["init", "-q"]);
    git(d, &["config", "user.email", "bench@example.com"]);
    git(d, &["config", "user.name", "bench"]);
    run(d, &["-q", "init", "--project", "bench"]);
    std::fs::write(d.join(".zo/memory/DECISION_LOG.md"), &log).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "bench"]);
    // Flush the setup's writes now, so the kernel writing them back does not land in the
    // first command measured.
    let _ = std::process::Command::new("sync").status();
    (keep, path, log.len())
}

/// The ID the n-th built decision gets.
pub fn bench_id(i: usize) -> String {
    format!("D-{:08x}", i as u32 ^ 0x5a5a_0000)
}

/// Whether the command-line filter (`cargo bench --bench x -- 1000`) selects size `n`.
pub fn selected(n: usize) -> bool {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filter.is_empty() || filter.iter().any(|f| f == &n.to_string())
}

pub fn fmt((m, p): (f64, f64)) -> String {
    format!("{m:.1} / {p:.1}")
}

/// Give this bench process (and every zo it runs) a vector cache of its own, empty: a bench
/// never reads or fills the person's cache, and its first build is a cold one. Keep the
/// returned directory alive for the whole bench.
pub fn own_vector_cache() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: called first thing in main, before any other thread exists.
    unsafe { std::env::set_var("ZO_VECTOR_CACHE", dir.path()) };
    dir
}

/// Wall seconds and peak RSS (MB) of one zo run, measured with GNU time.
pub fn measured(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (f64, f64) {
    let mut c = std::process::Command::new("/usr/bin/time");
    c.args(["-f", "%M", ZO])
        .args(args)
        .current_dir(dir)
        .env_remove("ZO_REPO");
    for (k, v) in env {
        c.env(k, v);
    }
    let t = std::time::Instant::now();
    let out = c.output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "zo {args:?}: {err}");
    let kb: f64 = err
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0.0);
    (secs, kb / 1024.0)
}

/// `git status` in `dir`, timed like a zo command (median / p95 of `runs` fresh processes, ms):
/// the yardstick each table divides its times by, measured in the same run and repository.
pub fn git_status(dir: &Path, runs: usize) -> (f64, f64) {
    time(runs, |_| git(dir, &["status", "--short"]))
}

/// `x` as a multiple of `git status` (medians).
pub fn times_git((x, _): (f64, f64), (g, _): (f64, f64)) -> String {
    format!("{:.1}×", x / g)
}

/// CPU seconds (user + system) of every child waited for so far: microsecond resolution, so a
/// loaded machine's waits can be told from zo's own work.
pub fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// One run: wall seconds, CPU seconds (user + system), peak RSS in MB.
pub type M = (f64, f64, f64);

/// One fresh process of `program` in `d` under GNU time, `input` on stdin and `env` set (the
/// caller's HOME and cache: none, or a bench's own).
pub fn run_measured(
    d: &Path,
    program: &str,
    args: &[&str],
    input: Option<&str>,
    env: &[(&str, &str)],
) -> M {
    use std::process::Stdio;
    let cpu0 = children_cpu();
    let t = Instant::now();
    let mut c = Command::new("/usr/bin/time");
    c.arg("-f")
        .arg("%M")
        .arg(program)
        .args(args)
        .current_dir(d)
        .env_remove("ZO_REPO");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(i) = input {
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), i.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kb: f64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0.0);
    (secs, cpu, kb / 1024.0)
}
