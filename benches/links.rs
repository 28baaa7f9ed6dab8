//! `cargo bench --bench links`: linked memories at scale (issue 35). A lexical recall across
//! 20 linked memories of 500 decisions each against one memory of 10,000 (target: at most
//! 3×), and the SessionStart hook of a 10,000-decision project with 0 and 5 linked memories
//! (target: within the hook's budget, ≤ 10 ms as without links); each with its ratio to `git
//! status` in the same run. Fresh processes, median of ZO_BENCH_RUNS (default 11), wall ms.

mod common;
use common::*;
use std::path::Path;

const SESSION_START: &str =
    r#"{"hook_event_name":"SessionStart","source":"startup","session_id":"bench"}"#;
const QUERY: &str = "how do we keep secrets out of the repository";

/// One fresh zo process in `dir` (this bench's own HOME and cache), `input` on stdin; ms.
fn once(dir: &Path, home: &Path, args: &[&str], input: Option<&str>) -> f64 {
    let (h, cache, user) = (
        home.to_string_lossy(),
        home.join("cache"),
        home.join("config"),
    );
    let env = [
        ("HOME", h.as_ref()),
        ("ZO_CACHE", cache.to_str().unwrap()),
        ("ZO_USER_DIR", user.to_str().unwrap()),
    ];
    run_measured(dir, ZO, args, input, &env).0 * 1000.0
}

fn median(runs: usize, f: impl Fn() -> f64) -> f64 {
    f(); // warm: the index and the summaries exist, the page cache holds the files
    let mut v: Vec<f64> = (0..runs).map(|_| f()).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[runs / 2]
}

fn main() {
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (_big_keep, big, _) = repo_with_log(10_000, &records);
    let (_small_keep, small, _) = repo_with_log(10, &records);
    let links: Vec<_> = (0..20).map(|_| repo_with_log(500, &records)).collect();
    for (i, (_, p, _)) in links.iter().enumerate() {
        once(
            &small,
            h,
            &["link", p.to_str().unwrap(), "--name", &format!("team{i}")],
            None,
        );
    }
    let lexical = ["recall", "--mode", "lexical", QUERY];
    // Every index built, every summary written, the files settled (store/summary/).
    once(&big, h, &lexical, None);
    once(&small, h, &lexical, None);
    once(&big, h, &["status"], None);
    std::thread::sleep(std::time::Duration::from_secs(4));

    let git_big = git_status(&big, runs).0;
    let git_small = git_status(&small, runs).0;
    let one = median(runs, || once(&big, h, &lexical, None));
    let twenty = median(runs, || once(&small, h, &lexical, None));

    let hook0 = median(runs, || {
        once(&big, h, &["hook", "claude"], Some(SESSION_START))
    });
    for (i, (_, p, _)) in links.iter().take(5).enumerate() {
        once(
            &big,
            h,
            &["link", p.to_str().unwrap(), "--name", &format!("team{i}")],
            None,
        );
    }
    once(&big, h, &["status"], None);
    let hook5 = median(runs, || {
        once(&big, h, &["hook", "claude"], Some(SESSION_START))
    });

    println!(
        "\nlinked memories (fresh process per run, median of {runs}, no model; wall ms, × git status in the same repository)\n"
    );
    println!("| figure | ms | × git status | target |\n|---|---:|---:|---|");
    println!(
        "| lexical recall, one memory of 10,000 decisions | {one:.1} | {:.1}× | |",
        one / git_big
    );
    println!(
        "| lexical recall, 20 linked memories × 500 decisions | {twenty:.1} | {:.1}× | |",
        twenty / git_small
    );
    println!(
        "| ratio, 20 × 500 linked to one of 10,000 | {:.2}× | | ≤ 3× |",
        twenty / one
    );
    println!(
        "| SessionStart hook at 10,000 decisions, no link | {hook0:.1} | {:.1}× | ≤ 10 ms |",
        hook0 / git_big
    );
    println!(
        "| SessionStart hook at 10,000 decisions, 5 links × 500 | {hook5:.1} | {:.1}× | ≤ 10 ms |",
        hook5 / git_big
    );
}
