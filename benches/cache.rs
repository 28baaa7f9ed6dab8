//! `cargo bench --bench cache`: the machine's vector cache on the 326 ADRs (issue 24). The
//! first index build fills the cache (cold); `zo continue` in a second clone and in a new
//! worktree then takes every vector from it, and semantic recall works right after.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;


/// Semantic recall answers in `dir` (the vectors are there): the mode and the first hit.
fn semantic(dir: &Path) -> String {
    let out = Command::new(ZO)
        .args(["--json", "recall", "--mode", "semantic", "-k", "1", "how do we keep secrets out of the repository"])
        .current_dir(dir)
        .env_remove("ZO_REPO")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "semantic", "{v}");
    v["results"][0]["id"].as_str().expect("a semantic hit").to_string()
}

fn main() {
    let _cache = own_vector_cache();
    let (_keep, path, _) = repo_with_adr_corpus();
    let d = path.as_path();
    let cold = measured(d, &["-q", "continue"], &[]);

    let clones = tempfile::tempdir().unwrap();
    let clone = clones.path().join("second");
    git(clones.path(), &["clone", "-q", d.to_str().unwrap(), clone.to_str().unwrap()]);
    let warm = measured(&clone, &["-q", "continue"], &[]);
    let hit = semantic(&clone);

    let wt = clones.path().join("worktree");
    git(d, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let worktree = measured(&wt, &["-q", "continue"], &[]);
    assert_eq!(semantic(&wt), hit);

    println!("\n`zo continue` on the 326 ADRs, vector cache (wall s / peak MB)\n");
    println!("| first checkout, cache cold | second clone, cache warm | new worktree, cache warm |");
    println!("|---:|---:|---:|");
    let f = |(s, mb): (f64, f64)| format!("{s:.2} s / {mb:.0} MB");
    println!("| {} | {} | {} |\n", f(cold), f(warm), f(worktree));
    println!("semantic recall after the warm continue: top hit {hit}\n");
}
