//! `cargo bench --bench scale`: the hook-path commands and the lexical index at 10,000 and
//! 100,000 decisions (ADR records, cut like hand-written entries), and `status` on the 326 ADRs:
//! wall time (median of a few fresh processes; the index build once), peak memory (max RSS,
//! from /usr/bin/time), and each time's ratio to `git status` measured in the same run in the
//! same repository. The growth row shows 10k → 100k: 10× is linear, 1× is flat.

mod common;
use common::*;

/// The SessionStart event Claude Code sends its hook on stdin.
const SESSION_START: &str =
    r#"{"hook_event_name":"SessionStart","source":"startup","session_id":"bench"}"#;

/// One fresh process with no HOME or cache (no model, no user key), `input` on stdin.
fn measure_with(d: &std::path::Path, program: &str, args: &[&str], input: Option<&str>) -> M {
    run_measured(
        d,
        program,
        args,
        input,
        &[("HOME", "/nonexistent"), ("ZO_CACHE", "/nonexistent")],
    )
}

fn measure(d: &std::path::Path, args: &[&str]) -> M {
    measure_with(d, ZO, args, None)
}

/// The median wall time and, separately, the median CPU time of `runs` runs.
fn median_of(runs: usize, f: &dyn Fn(usize) -> M) -> M {
    let v: Vec<M> = (0..runs).map(f).collect();
    let mid = |k: fn(&M) -> f64| {
        let mut x: Vec<f64> = v.iter().map(k).collect();
        x.sort_by(|a, b| a.partial_cmp(b).unwrap());
        x[runs / 2]
    };
    (mid(|m| m.0), mid(|m| m.1), mid(|m| m.2))
}

fn median(d: &std::path::Path, runs: usize, args: &dyn Fn(usize) -> Vec<String>) -> M {
    median_of(runs, &|i| {
        measure(d, &args(i).iter().map(String::as_str).collect::<Vec<_>>())
    })
}

/// `git status` in the same repository: the yardstick every row is divided by.
fn git_status(d: &std::path::Path, runs: usize) -> M {
    median_of(runs, &|_| {
        measure_with(d, "git", &["status", "--short"], None)
    })
}

fn main() {
    let records = corpus();
    let runs: usize = std::env::var("ZO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    let f = |(s, c, m): M| format!("{:.1} / {:.1} / {m:.0}", s * 1000.0, c * 1000.0);
    let ratio = |x: M, git: M| format!("{:.1}× / {:.1}×", x.0 / git.0, x.1 / git.1.max(1e-6));
    let mut rows = Vec::new();
    for n in [10_000usize, 100_000] {
        if !selected(n) {
            continue;
        }
        let (_keep, path, size) = repo_with_log(n, &records);
        let d = path.as_path();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let mid = bench_id(n / 2);
        run(d, &["fact", "set", "bench:key", "a value"]);
        // The first hook-path command reads the log whole and writes its summary; the files
        // are then left to settle, as a memory between sessions is (store/summary/).
        run(d, &["status"]);
        std::thread::sleep(std::time::Duration::from_secs(4));
        let git = git_status(d, runs);
        let status = median(d, runs, &|_| s(&["status"]));
        let log = median(d, runs, &|_| s(&["log", "--limit", "20"]));
        let show = median(d, runs, &|_| vec!["show".into(), mid.clone()]);
        let context = median(d, runs, &|_| s(&["context"]));
        let hook = median_of(runs, &|_| {
            measure_with(d, ZO, &["hook", "claude"], Some(SESSION_START))
        });
        let fact = median(d, runs, &|_| s(&["fact", "get", "bench:key"]));
        let decide = median(d, runs, &|i| {
            vec![
                "decide".into(),
                "--title".into(),
                format!("scale {i}"),
                "--decision".into(),
                "measured".into(),
            ]
        });
        // The first hook-path read after a write finds the summary of the log before it (the
        // common case in a session: an agent decides, the next hook reads).
        let after_write = median_of(runs, &|i| {
            run(
                d,
                &[
                    "decide",
                    "--title",
                    &format!("then status {i}"),
                    "--decision",
                    "d",
                ],
            );
            measure(d, &["status"])
        });
        let build = measure(d, &["index", "rebuild"]);
        let recall = median(d, runs, &|_| {
            s(&[
                "recall",
                "--mode",
                "lexical",
                "how do we keep secrets out of the repository",
            ])
        });
        let _after = measure(
            d,
            &[
                "decide",
                "--title",
                "one more after the index",
                "--decision",
                "d",
            ],
        );
        let refresh = measure(
            d,
            &["recall", "--mode", "lexical", "one more after the index"],
        );
        rows.push((
            n,
            size,
            [
                git,
                status,
                log,
                show,
                context,
                hook,
                fact,
                decide,
                after_write,
                build,
                recall,
                refresh,
            ],
        ));
    }
    const NAMES: [&str; 12] = [
        "git status",
        "status",
        "log --limit 20",
        "show ID",
        "context",
        "SessionStart hook",
        "fact get",
        "decide",
        "status, first after a decide",
        "index rebuild (lexical)",
        "lexical recall",
        "recall after one decide (refresh)",
    ];
    println!(
        "\nscale (fresh process per run, median of {runs}, no model; wall ms / CPU ms / peak MB, and × git status in wall / CPU time)\n"
    );
    print!("| figure |");
    for (n, size, _) in &rows {
        print!(
            " {n} decisions ({:.0} MB log) | × git status |",
            *size as f64 / 1e6
        );
    }
    if rows.len() == 2 {
        print!(" 10k → 100k |");
    }
    println!();
    println!(
        "|---|{}",
        "---:|".repeat(rows.len() * 2 + usize::from(rows.len() == 2))
    );
    for (k, name) in NAMES.iter().enumerate() {
        print!("| {name} |");
        for (_, _, m) in &rows {
            print!(" {} | {} |", f(m[k]), ratio(m[k], m[0]));
        }
        if let [a, b] = rows.as_slice() {
            print!(" {:.1}× |", b.2[k].0 / a.2[k].0);
        }
        println!();
    }
    if selected(10_000) {
        arrivals(&records, runs);
    }
    // `status` on the 326 ADR records whole (the corpus the issue's targets are stated on).
    if selected(326) {
        let (_keep, path, _) = repo_with_adr_corpus();
        let d = path.as_path();
        run(d, &["status"]);
        std::thread::sleep(std::time::Duration::from_secs(4));
        let git = git_status(d, runs);
        let status = median(d, runs, &|_| vec!["status".into()]);
        let context = median(d, runs, &|_| vec!["context".into()]);
        println!(
            "\n| 326 ADRs | wall ms / CPU ms / peak MB | × git status (wall / CPU) |\n|---|---:|---:|"
        );
        for (name, m) in [
            ("git status", git),
            ("status", status),
            ("context", context),
        ] {
            println!("| {name} | {} | {} |", f(m), ratio(m, git));
        }
    }
    println!();
}

/// The SessionStart hook when much arrived (SPEC §3a, "what arrived since your last session"):
/// 10,000 decisions seen at a session start, then 60 commits of a teammate's — 59 adding a
/// decision each, the last 1,441 more (1,500 in all). Each run starts from the user's state at
/// that session start (its cache copied fresh), so each pays the whole lookup; beside it the
/// same hook once that state is up to date (nothing arrived), and `git status`.
fn arrivals(records: &[Record], runs: usize) {
    let (_keep, path, _) = repo_with_log(10_000, records);
    let d = path.as_path();
    let seeded = tempfile::tempdir().unwrap();
    // The user's cache (the vector cache holds the key and what the last start saw): named
    // directly, as cargo's config names a shared one for every process it starts.
    let cache = |dir: &std::path::Path| {
        [
            ("HOME", "/nonexistent".to_string()),
            ("ZO_CACHE", dir.to_string_lossy().into_owned()),
            (
                "ZO_VECTOR_CACHE",
                dir.join("vectors").to_string_lossy().into_owned(),
            ),
        ]
    };
    let with = |dir: &std::path::Path| {
        let env = cache(dir);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run_measured(d, ZO, &["hook", "claude"], Some(SESSION_START), &env)
    };
    hook(d, seeded.path());
    let log = d.join(".zo/memory/DECISION_LOG.md");
    let mut text = std::fs::read_to_string(&log).unwrap();
    let entry = |i: usize| {
        format!(
            "## Decision: 2026-11-20T10:00:00Z\n**ID:** D-{:08x}\n**Type:** ARCHITECTURE\n**Title:** Arrived {i}\n**Decision:** pulled from a teammate\n\n---\n\n",
            0x0a00_0000 + i
        )
    };
    let mut i = 0;
    for c in 0..60 {
        let k = if c < 59 { 1 } else { 1_441 };
        for _ in 0..k {
            text.push_str(&entry(i));
            i += 1;
        }
        std::fs::write(&log, &text).unwrap();
        git(d, &["commit", "-qam", &format!("teammate {c}")]);
    }
    let _ = std::process::Command::new("sync").status();
    let git_m = git_status(d, runs);
    let fresh = |_: usize| {
        let run = tempfile::tempdir().unwrap();
        copy_tree(seeded.path(), run.path());
        with(run.path())
    };
    let arrived = median_of(runs, &fresh);
    // What the measured runs printed: the arrivals were there to find.
    let check = tempfile::tempdir().unwrap();
    copy_tree(seeded.path(), check.path());
    let said = hook(d, check.path());
    assert!(said.contains("## Arrived since"), "{said}");
    let done = tempfile::tempdir().unwrap();
    copy_tree(seeded.path(), done.path());
    with(done.path());
    with(done.path());
    let nothing = median_of(runs, &|_| with(done.path()));
    let f = |(s, c, m): M| format!("{:.1} / {:.1} / {m:.0}", s * 1000.0, c * 1000.0);
    println!(
        "\n| SessionStart at 10,000 decisions | wall ms / CPU ms / peak MB | × git status (wall / CPU) |\n|---|---:|---:|"
    );
    for (name, m) in [
        ("git status", git_m),
        ("nothing arrived", nothing),
        ("1,500 arrived over 60 commits", arrived),
    ] {
        println!(
            "| {name} | {} | {:.1}× / {:.1}× |",
            f(m),
            m.0 / git_m.0,
            m.1 / git_m.1.max(1e-6)
        );
    }
    println!(
        "| extra for the arrivals | {:.1} / {:.1} | |",
        (arrived.0 - nothing.0) * 1000.0,
        (arrived.1 - nothing.1) * 1000.0
    );
}

/// Copy a directory tree (the user's cache as a session start left it).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The SessionStart hook's output, run with `cache` as the user's cache.
fn hook(d: &std::path::Path, cache: &std::path::Path) -> String {
    let out = std::process::Command::new(ZO)
        .args(["hook", "claude"])
        .current_dir(d)
        .env("HOME", "/nonexistent")
        .env("ZO_CACHE", cache)
        .env("ZO_VECTOR_CACHE", cache.join("vectors"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            std::io::Write::write_all(&mut c.stdin.take().unwrap(), SESSION_START.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
