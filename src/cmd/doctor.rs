//! `zo doctor`: what works and what does not, and the one command that fixes each.

use super::Ctx;
use crate::embedding;
use crate::index::Index;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx) -> Result<()> {
    let mut checks: Vec<(&str, bool, String)> = Vec::new();
    let memory = match ctx.memory() {
        Ok(m) => m,
        Err(e) => {
            checks.push(("layout", false, format!("{e:#}")));
            return report(ctx, checks);
        }
    };
    let l = &memory.layout;
    checks.push((
        "layout",
        true,
        format!("{} ({})", l.show(&l.memory), if l.legacy { "older memory/ layout" } else { ".zo/ layout" }),
    ));
    checks.push(("config", true, format!("project {:?}", l.project())));
    let search = embedding::locate(&l.config);
    match (&search.model_dir, search.disabled) {
        (_, true) => checks.push(("model", false, "semantic search is off (index.embedding: off)".into())),
        (Some(d), _) => checks.push(("model", true, format!("{} in {}", embedding::MODEL_NAME, d.display()))),
        (None, _) => checks.push((
            "model",
            false,
            format!("not found (looked in {}); fix: {}", join(&search.model_candidates), embedding::INSTALL_HINT),
        )),
    }
    match &search.runtime {
        Some(r) => checks.push(("runtime", true, format!("ONNX Runtime at {}", r.display()))),
        None => checks.push((
            "runtime",
            false,
            format!("no ONNX Runtime library (looked for {}); fix: {}", join(&search.runtime_candidates), embedding::INSTALL_HINT),
        )),
    }
    if let Ok(paths) = search.paths() {
        let t = std::time::Instant::now();
        match embedding::Embedder::load(&paths) {
            Ok(_) => checks.push(("embeddings", true, format!("model loads in {:.2}s", t.elapsed().as_secs_f64()))),
            Err(e) => checks.push(("embeddings", false, format!("{e:#}; fix: {}", embedding::INSTALL_HINT))),
        }
    }
    let path = l.memory.join("index.db");
    if path.exists() {
        let note = |_: &str| {};
        match Index::open(l, &note).and_then(|(ix, _)| Ok((ix.is_fresh(&memory)?, ix.counts()?, ix.pending_embeddings()?))) {
            Ok((fresh, (n, e, _), p)) => checks.push((
                "index",
                true,
                format!("{n} entries, {e} embedded, {p} pending; {}", if fresh { "fresh" } else { "stale (refreshed by the next read)" }),
            )),
            Err(e) => checks.push(("index", false, format!("{e:#}; fix: zo index rebuild"))),
        }
    } else {
        checks.push(("index", true, "not built yet; the first `zo recall` or `zo index refresh` builds it".into()));
    }
    let git = crate::git::Repo::discover(&l.root);
    checks.push(("git", git.is_some(), if git.is_some() { "repository found".into() } else { "not a git repository; fix: git init".into() }));
    report(ctx, checks)
}

fn join(p: &[std::path::PathBuf]) -> String {
    p.iter().map(|x| x.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn report(ctx: &Ctx, checks: Vec<(&str, bool, String)>) -> Result<()> {
    if ctx.json {
        let v: Vec<_> = checks.iter().map(|(n, ok, d)| json!({"check": n, "ok": ok, "detail": d})).collect();
        return ctx.print_json(&json!({ "ok": checks.iter().all(|c| c.1), "checks": v }));
    }
    let s: String = checks.iter().map(|(n, ok, d)| format!("{} {n:<10} {d}\n", if *ok { "ok  " } else { "FAIL" })).collect();
    ctx.print(&s)
}
