//! Hybrid recall (SPEC §4): FTS5 BM25 and embedding similarity, fused with reciprocal rank
//! fusion (k = 60), filters applied before ranking, each hit labelled with a tier.

use crate::embedding::{self, Embedder};
use crate::index::{Filter, Index, Refresh, Row};
use crate::memory::Memory;
use anyhow::{Result, bail};
use std::collections::HashMap;

const RRF_K: f64 = 60.0;
/// How deep each ranking is read.
const DEPTH: usize = 50;
/// How many of each ranking take part in fusion. With k = 60 the RRF weights are nearly flat,
/// so deep lists let anything that appears in both outrank a clear winner of one. Measured on
/// the ADR corpus (tests/retrieval.rs): Recall@3 0.41 fusing the top 50 of each, 0.50 the top 10.
const FUSE_DEPTH: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Hybrid,
    Semantic,
    Lexical,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Semantic => "semantic",
            Mode::Lexical => "lexical",
        }
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub row: Row,
    pub score: f64,
    pub tier: &'static str,
}

/// Open the index (rebuilding it when it is unusable) and bring its rows up to date.
pub fn open_fresh(memory: &Memory, note: &dyn Fn(&str)) -> Result<(Index, Refresh)> {
    let (mut index, rebuilt) = Index::open(&memory.layout, note)?;
    match index.refresh(memory) {
        Ok(mut r) => {
            r.rebuilt = rebuilt;
            Ok((index, r))
        }
        Err(e) if Index::corrupt(&e) => {
            drop(index);
            let (mut index, _) = Index::rebuild(&memory.layout, &format!("the database is corrupt ({e:#})"), note)?;
            let mut r = index.refresh(memory)?;
            r.rebuilt = Some("the database was corrupt".into());
            Ok((index, r))
        }
        Err(e) => Err(e),
    }
}

/// Say, in one line, why search is lexical.
fn unavailable(note: &dyn Fn(&str), why: &str) {
    note(&format!("semantic search unavailable: {why}; using lexical search"));
}

/// Where the model and runtime are, or None (after saying why).
fn model_paths(memory: &Memory, note: &dyn Fn(&str)) -> Option<embedding::Paths> {
    embedding::locate(&memory.layout.config).paths().map_err(|why| unavailable(note, &why)).ok()
}

/// Load the model if one is installed; otherwise say why (one line) and return None.
pub fn embedder(memory: &Memory, note: &dyn Fn(&str)) -> Option<Embedder> {
    let paths = model_paths(memory, note)?;
    Embedder::load(&paths).map_err(|e| unavailable(note, &format!("{e:#}"))).ok()
}

/// Embed whatever has no vector yet, saying so when it is more than a few.
pub fn embed_pending(index: &mut Index, embedder: &mut Embedder, note: &dyn Fn(&str)) -> Result<usize> {
    index.check_model(note)?;
    let pending = index.pending_embeddings()?;
    if pending > 50 {
        note(&format!("embedding {pending} entries (once; later runs embed only what changed)…"));
    }
    if pending == 0 { Ok(0) } else { index.embed_missing(embedder) }
}

/// Run a query. Returns the mode actually used and the hits, best first. The model loads on a
/// second thread while this one refreshes the index and reads the stored vectors, so hybrid
/// recall costs little more than the load itself.
pub fn recall(memory: &Memory, query: &str, k: usize, filter: &Filter, mode: Mode, note: &dyn Fn(&str)) -> Result<(Mode, Vec<Hit>)> {
    if query.trim().is_empty() {
        bail!("the query is empty");
    }
    let mut mode = mode;
    let loader = if mode == Mode::Lexical {
        None
    } else {
        match model_paths(memory, note) {
            Some(paths) => Some(std::thread::spawn(move || Embedder::load(&paths).map_err(|e| format!("{e:#}")))),
            None => {
                mode = Mode::Lexical;
                None
            }
        }
    };
    let (mut index, _) = open_fresh(memory, note)?;
    // A temporary index (read-only checkout) would embed everything on every query.
    let loader = loader.filter(|_| !index.is_temporary());
    if index.is_temporary() {
        mode = Mode::Lexical;
    }
    let mut vectors = if loader.is_some() { Some(index.vectors(filter)?) } else { None };
    let mut query_vec = None;
    if let Some(loader) = loader {
        match loader.join().unwrap_or_else(|_| Err("the model loader crashed".into())) {
            Ok(mut e) => {
                if embed_pending(&mut index, &mut e, note)? > 0 {
                    vectors = Some(index.vectors(filter)?);
                }
                query_vec = Some(e.embed(&[query])?.remove(0));
            }
            Err(why) => {
                unavailable(note, &why);
                mode = Mode::Lexical;
            }
        }
    }
    let semantic = match (&query_vec, &vectors) {
        (Some(q), Some(v)) if mode != Mode::Lexical => Some(v.rank(q, DEPTH.max(k))),
        _ => None,
    };
    let hits = fuse(&index, query, semantic, k, filter, mode)?;
    Ok((mode, hits))
}

/// Recall with a model that stays loaded: a long-lived process (the MCP server) keeps one and
/// pays the model load once, on the first query that needs it. The index is opened for each
/// query and closed after it, so no lock is held between queries.
#[derive(Default)]
pub struct Recaller {
    /// None: not tried yet; Some(Err): not available (why, said once).
    embedder: Option<std::result::Result<Embedder, String>>,
}

impl Recaller {
    pub fn new() -> Recaller {
        Recaller::default()
    }

    /// The model, loaded on first use.
    fn embedder(&mut self, memory: &Memory) -> std::result::Result<&mut Embedder, String> {
        if self.embedder.is_none() {
            let loaded = embedding::locate(&memory.layout.config).paths().and_then(|p| Embedder::load(&p).map_err(|e| format!("{e:#}")));
            self.embedder = Some(loaded);
        }
        match self.embedder.as_mut().expect("set above") {
            Ok(e) => Ok(e),
            Err(why) => Err(why.clone()),
        }
    }

    /// Like [`recall`], with the kept model.
    pub fn recall(&mut self, memory: &Memory, query: &str, k: usize, filter: &Filter, mode: Mode, note: &dyn Fn(&str)) -> Result<(Mode, Vec<Hit>)> {
        if query.trim().is_empty() {
            bail!("the query is empty");
        }
        let (mut index, _) = open_fresh(memory, note)?;
        let mut semantic = None;
        if mode != Mode::Lexical && !index.is_temporary() {
            match self.embedder(memory) {
                Ok(e) => {
                    embed_pending(&mut index, e, note)?;
                    let q = e.embed(&[query])?.remove(0);
                    semantic = Some(index.vectors(filter)?.rank(&q, DEPTH.max(k)));
                }
                Err(why) => unavailable(note, &why),
            }
        }
        let used = if semantic.is_some() { mode } else { Mode::Lexical };
        Ok((used, fuse(&index, query, semantic, k, filter, used)?))
    }
}

/// Rank the index for a query. `query_vec` is the query's embedding (needed for the semantic
/// and hybrid modes; without it they rank lexically).
pub fn rank(index: &Index, query: &str, query_vec: Option<&[f32]>, k: usize, filter: &Filter, mode: Mode) -> Result<Vec<Hit>> {
    let semantic = match query_vec {
        Some(q) if mode != Mode::Lexical => Some(index.semantic(q, filter, DEPTH.max(k))?),
        _ => None,
    };
    fuse(index, query, semantic, k, filter, mode)
}

/// Fuse a semantic ranking (when there is one) with the lexical one, per mode.
fn fuse(index: &Index, query: &str, semantic: Option<Vec<(i64, f64)>>, k: usize, filter: &Filter, mode: Mode) -> Result<Vec<Hit>> {
    let mode = if semantic.is_none() { Mode::Lexical } else { mode };
    let semantic = semantic.unwrap_or_default();
    let lexical = if mode == Mode::Semantic { vec![] } else { index.lexical(query, filter, DEPTH)? };
    let similarity: HashMap<i64, f64> = semantic.iter().copied().collect();
    let ranked: Vec<(i64, f64)> = match mode {
        Mode::Lexical => lexical.clone(),
        Mode::Semantic => semantic.clone(),
        Mode::Hybrid => {
            let mut fused: HashMap<i64, f64> = HashMap::new();
            for list in [&lexical, &semantic] {
                for (rank, (id, _)) in list.iter().take(FUSE_DEPTH.max(k)).enumerate() {
                    *fused.entry(*id).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
                }
            }
            let mut v: Vec<(i64, f64)> = fused.into_iter().collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        }
    };
    let best_lexical = lexical.first().map_or(0.0, |x| x.1);
    let mut hits = Vec::new();
    for (rowid, score) in ranked.into_iter().take(k) {
        let tier = match similarity.get(&rowid) {
            Some(&s) => tier_semantic(s),
            None if mode != Mode::Lexical => "low",
            None => tier_lexical(lexical.iter().find(|x| x.0 == rowid).map_or(0.0, |x| x.1), best_lexical),
        };
        hits.push(Hit { row: index.row(rowid)?, score, tier });
    }
    Ok(hits)
}

/// Cosine similarity bands measured on all-MiniLM-L6-v2: related sentences score 0.57–0.74,
/// unrelated ones −0.03–0.06 (docs/EMBEDDINGS.md).
fn tier_semantic(sim: f64) -> &'static str {
    if sim >= 0.5 {
        "high"
    } else if sim >= 0.3 {
        "standard"
    } else {
        "low"
    }
}

/// BM25 has no absolute scale; judge a hit against the best one.
fn tier_lexical(score: f64, best: f64) -> &'static str {
    if best <= 0.0 {
        "low"
    } else if score >= 0.75 * best {
        "high"
    } else if score >= 0.4 * best {
        "standard"
    } else {
        "low"
    }
}
