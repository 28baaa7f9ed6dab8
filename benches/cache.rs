//! `cargo bench --bench cache`: the machine's vector cache on the 326 ADRs (issue 24). `zo
//! continue` in the first checkout embeds nothing (cache cold: lexical recall is ready, semantic
//! catches up); the cold index build (`index refresh`, what the next semantic query or the MCP
//! server does) fills the cache; `zo continue` in a second clone and in a new worktree then
//! takes every vector from it, and semantic recall works right after. Each figure is also given
//! as a multiple of `git status` in the same repository, measured in the same run.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// Semantic recall answers in `dir` (the vectors are there): the mode and the first hit.
fn semantic(dir: &Path) -> String {
    let out = Command::new(ZO)
        .args([
            "--json",
            "recall",
            "--mode",
            "semantic",
            "-k",
            "1",
            "how do we keep secrets out of the repository",
        ])
        .current_dir(dir)
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "semantic", "{v}");
    v["results"][0]["id"]
        .as_str()
        .expect("a semantic hit")
        .to_string()
}

fn main() {
    let _cache = own_vector_cache();
    let (_keep, path, _) = repo_with_adr_corpus();
    let d = path.as_path();
    let cold = measured(d, &["-q", "continue"], &[]);
    let build = measured(d, &["-q", "index", "refresh"], &[]);
    let (git_status, _) = time(21, |_| git(d, &["status", "--porcelain"]));

    let clones = tempfile::tempdir().unwrap();
    let clone = clones.path().join("second");
    git(
        clones.path(),
        &["clone", "-q", d.to_str().unwrap(), clone.to_str().unwrap()],
    );
    let warm = measured(&clone, &["-q", "continue"], &[]);
    let hit = semantic(&clone);

    let wt = clones.path().join("worktree");
    git(d, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let worktree = measured(&wt, &["-q", "continue"], &[]);
    assert_eq!(semantic(&wt), hit);

    println!(
        "\n`zo continue` on the 326 ADRs, vector cache (wall s / peak MB; × git status, {git_status:.1} ms here)\n"
    );
    println!(
        "| first checkout, cache cold | cold index build (326 ADRs) | second clone, cache warm | new worktree, cache warm |"
    );
    println!("|---:|---:|---:|---:|");
    let f =
        |(s, mb): (f64, f64)| format!("{s:.2} s / {mb:.0} MB (×{:.0})", s * 1000.0 / git_status);
    println!(
        "| {} | {} | {} | {} |\n",
        f(cold),
        f(build),
        f(warm),
        f(worktree)
    );
    println!("semantic recall after the warm continue: top hit {hit}\n");
}
