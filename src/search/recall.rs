//! Hybrid recall (SPEC §4): FTS5 BM25 and embedding similarity, fused by their normalised
//! scores, filters applied before ranking, each hit labelled with a tier that says how far to
//! trust it. How each constant was chosen is in docs/RECALL.md (98 labelled questions and 12
//! with no answer, over 326 real decision records).

use crate::search::embedding::{self, Embed, Embedder, QueryEmbedder};
use crate::search::index::{Filter, Index, Refresh, Row};
use crate::store::memory::Memory;
use anyhow::{Result, bail};

use super::rank::fuse_all;
use std::collections::HashMap;

/// Up to this many entries without a vector (a decision since the last query) are embedded by
/// the quick query embedder; more load the optimised model. Measured here: the quick one takes
/// about 0.3 s per 512-token text, the optimised one 0.13 s after a 0.25 s longer load.
pub(super) const QUICK_EMBED: usize = 2;
/// How deep the lexical ranking is read, and how many of the semantic ranking join the
/// candidates fused.
pub(super) const DEPTH: usize = 50;
/// Weight of the semantic z-score in the fused score (the lexical one gets the rest).
/// Chosen by 5-fold cross-validation over 0.5–0.9 on the labelled set: 0.8 in every fold.
pub(super) const SEMANTIC_WEIGHT: f64 = 0.8;
/// Similarity at or above which a hit is `high`: the top hits above it were right 90 % of the
/// time on the labelled set.
pub const HIGH: f64 = 0.55;
/// Similarity below which a hit is `low`, and a question whose best similarity is below it is
/// not answered by the memory (unless both rankings put the same entry first): 12 of 12
/// questions without an answer fell below it, and 3 of 98 with one.
pub const ANSWERED: f64 = 0.28;

/// Besides the question, at most this many phrasings of it (`--also`, the MCP tool's `also`):
/// each one is an embedding, and the seed design's retries stop at five.
pub const MAX_ALSO: usize = 5;
/// With phrasings, the weight of the semantic z-score: the phrasings carry the names a record
/// uses, so their words are worth more than a plain question's. Chosen by 5-fold
/// cross-validation over 0.5–0.9 on the labelled set with its blind phrasings (0.7 in 20 of 25
/// folds, 0.65 in the rest).
pub(super) const ALSO_SEMANTIC_WEIGHT: f64 = 0.7;
/// With phrasings, the similarity a hit must reach under at least one of them to be above
/// `low`; a question none of whose entries reach it is not answered. On the labelled set the
/// best entry of every question without an answer stayed at or below 0.28 and that of every
/// question with one reached 0.375 or more: this sits between them.
pub const ALSO_ANSWERED: f64 = 0.33;
/// With phrasings, the first hit is `high` when its fused score leads the second's by at least
/// this many standard deviations (of the candidates' scores): most wrong first hits on the
/// labelled set were a near-twin of the right record, a close second. 63 of 98 first hits
/// qualified, 61 of them right.
pub(super) const ALSO_HIGH_LEAD: f64 = 0.9;

/// How far to trust a hit, weakest first (so `--min-tier` compares them).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Low,
    Standard,
    High,
}

crate::named!(Tier { Low => "low", Standard => "standard", High => "high" });

impl Tier {
    /// From a similarity (semantic and hybrid modes).
    pub(super) fn of_similarity(sim: f64) -> Tier {
        if sim >= HIGH {
            Tier::High
        } else if sim >= ANSWERED {
            Tier::Standard
        } else {
            Tier::Low
        }
    }

    /// BM25 has no absolute scale: a lexical hit is judged against the best one, and never
    /// called `high` (a word in common proves little).
    pub(super) fn of_lexical(score: f64, best: f64) -> Tier {
        if best > 0.0 && score >= 0.5 * best {
            Tier::Standard
        } else {
            Tier::Low
        }
    }
}

/// Why a hit came back: its place and score in each ranking, and the fused score.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Explain {
    /// 1-based; None when the words of the question do not occur in it.
    pub lexical_rank: Option<usize>,
    pub bm25: Option<f64>,
    /// 1-based; None without the model.
    pub semantic_rank: Option<usize>,
    pub similarity: Option<f64>,
    pub fused: f64,
    /// With phrasings: the hit's place and similarity under each of them, the question first
    /// (`similarity` above is then the mean of its two best).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phrasings: Vec<Phrased>,
}

/// A hit's place under one phrasing (semantic ranking, 1-based) and its similarity there.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Phrased {
    pub rank: usize,
    pub similarity: f64,
}

/// How to search: both rankings fused (the default where a model is installed), the model's
/// alone, or the words alone (BM25).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Hybrid,
    Semantic,
    Lexical,
}

crate::named!(Mode { Hybrid => "hybrid", Semantic => "semantic", Lexical => "lexical" });

#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub row: Row,
    pub score: f64,
    pub tier: Tier,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
    /// A decision whose governed paths changed a lot since it was made (`zo stale`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Dangerous directives in the entry that no person here approved (SPEC §3a): the agent
    /// must not act on it (`zo approve ID` after a person read it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub directives: Vec<crate::store::gate::directives::Flag>,
    /// Where the entry came from (`RecallReport::with_origins`; `--json` and MCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::store::provenance::Origin>,
    /// The linked memory it is from (`team`: shown `team:PR-004`); absent: the project's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

impl Hit {
    /// The ID as a reader names it: `PR-004` in the project, `team:PR-004` in a linked memory.
    pub fn shown_id(&self) -> String {
        match &self.memory {
            Some(m) => format!("{m}:{}", self.row.id),
            None => self.row.id.clone(),
        }
    }
}

/// What a query found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recalled {
    pub mode: Mode,
    /// Whether the memory seems to hold an answer: the best similarity reached the `standard`
    /// tier (semantic and hybrid), or any entry matched (lexical, which cannot tell).
    pub answered: bool,
    /// Which pass of the cascade answered: `key` (an exact fact key), `first` (the ranking),
    /// or `expanded` (nothing reached `standard`, so the question was widened with the best
    /// hits' title words and ranked again; tiers still judge the original question), or
    /// `phrasings` (the question searched with the phrasings given with it).
    pub pass: &'static str,
    pub hits: Vec<Hit>,
    /// Why the answer is lexical from a temporary index (the index could not be used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Entries still waiting for their embedding when this answer was ranked (the MCP server
    /// embeds them in the background): they took part lexically only.
    #[serde(skip_serializing_if = "is_zero")]
    pub pending: usize,
    /// Why the memory does or does not seem to answer (the answerability judgement).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The question's subject words some entry holds and those none does, and how much of
    /// them the first hit holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms: Option<crate::search::answerable::Terms>,
}

/// For serde: a count of zero is left out of the JSON (`pending` here, `pending_embeddings` in
/// `ops::RecallReport`).
pub fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Recalled {
    /// Keep hits at or above a tier. None left is not an answer: an agent told "answered"
    /// with no entry would stop with nothing.
    pub fn at_least(mut self, tier: Tier) -> Recalled {
        self.hits.retain(|h| h.tier >= tier);
        self.answered &= !self.hits.is_empty();
        self
    }
}

/// Open the index (rebuilding it when it is unusable) and bring its rows up to date. For the
/// commands that maintain the index: any failure is an error. Readers use `open_reading`.
pub fn open_fresh(memory: &Memory, note: &dyn Fn(&str)) -> Result<(Index, Refresh)> {
    let (mut index, rebuilt) = Index::open(&memory.layout, note)?;
    match index.refresh(memory) {
        Ok(mut r) => {
            r.rebuilt = rebuilt;
            Ok((index, r))
        }
        Err(e) if Index::corrupt(&e) => {
            drop(index);
            let (index, mut r) =
                Index::rebuild(memory, &format!("the database is corrupt ({e:#})"), note)?;
            r.rebuilt = Some("the database was corrupt".into());
            Ok((index, r))
        }
        Err(e) => Err(e),
    }
}

/// `open_fresh` for a reader: when the index cannot be used or written (a full disk, an
/// immutable or foreign `index.db`, a lock that never came), the files are still the truth, so
/// the answer comes from a temporary in-memory index built from them, lexically, with one line
/// saying why. If the files themselves cannot be read, that error is the answer.
pub fn open_reading(memory: &Memory, note: &dyn Fn(&str)) -> Result<(Index, Refresh)> {
    let e = match open_fresh(memory, note) {
        Ok(opened) => return Ok(opened),
        Err(e) => e,
    };
    let mut index = Index::temporary(&format!("the index could not be used: {e:#}"))?;
    let r = index.refresh(memory)?;
    note(&format!(
        "the index could not be used ({e:#}); answering lexically from the files (nothing is saved)"
    ));
    Ok((index, r))
}

/// Why a mode the user asked for cannot be had here before any search is made (None: it can,
/// as far as the files show): semantic and hybrid need the model and its runtime. Asked first,
/// so an explicit `--mode semantic` fails with one message instead of a note that it falls
/// back to lexical search followed by the refusal.
pub fn mode_unavailable(memory: &Memory, mode: Mode) -> Option<String> {
    if mode == Mode::Lexical {
        return None;
    }
    embedding::locate(&memory.layout.config).paths().err().map(|why| {
        // The reason often names the install command already: not twice.
        let install = if why.contains("zo model install") { "" } else { "install it with `zo model install`, " };
        format!("{} search needs the embedding model, which is not available here ({why}); {install}or use lexical search", mode.name())
    })
}

/// Say, in one line, why search is lexical.
fn unavailable(note: &dyn Fn(&str), why: &str) {
    note(&format!(
        "semantic search unavailable: {why}; using lexical search"
    ));
}

/// Where the model and runtime are, or None (after saying why).
fn model_paths(memory: &Memory, note: &dyn Fn(&str)) -> Option<embedding::Paths> {
    embedding::locate(&memory.layout.config)
        .paths()
        .map_err(|why| unavailable(note, &why))
        .ok()
}

/// Load the model if one is installed; otherwise say why (one line) and return None.
pub fn embedder(memory: &Memory, note: &dyn Fn(&str)) -> Option<Embedder> {
    let paths = model_paths(memory, note)?;
    Embedder::load(&paths)
        .map_err(|e| unavailable(note, &format!("{e:#}")))
        .ok()
}

/// Embed whatever has no vector yet, saying so when it is more than a few.
pub fn embed_pending(
    index: &mut Index,
    embedder: &mut dyn Embed,
    note: &dyn Fn(&str),
) -> Result<usize> {
    index.check_model(note)?;
    let pending = index.pending_embeddings()?;
    if pending > 50 {
        note(&format!(
            "embedding {pending} entries (once; later runs embed only what changed)…"
        ));
    }
    if pending == 0 {
        Ok(0)
    } else {
        index.embed_missing(embedder)
    }
}

/// Run a query. Returns the mode actually used and the hits, best first. The model loads on a
/// second thread while this one refreshes the index and reads the stored vectors, so hybrid
/// recall costs little more than the load itself.
pub fn recall(
    memory: &Memory,
    query: &str,
    k: usize,
    filter: &Filter,
    mode: Mode,
    note: &dyn Fn(&str),
) -> Result<Recalled> {
    recall_with(memory, query, &[], k, filter, mode, note)
}

/// The question and the phrasings given with it, in one list: the question first; an empty
/// question or phrasing, or more than `MAX_ALSO` phrasings, is refused.
fn phrasings<'a>(query: &'a str, also: &'a [String]) -> Result<Vec<&'a str>> {
    if query.trim().is_empty() {
        bail!("the query is empty");
    }
    // A question, not a document: ranking grows with the words, and a 2 MB query held the MCP
    // server for minutes (its one request at a time).
    for t in std::iter::once(query).chain(also.iter().map(String::as_str)) {
        let n = t.chars().count();
        if n > MAX_QUERY_CHARS {
            return Err(crate::error::Error::usage(format!(
                "a question or phrasing of {n} characters; at most {MAX_QUERY_CHARS} (ask a question, not a document)"
            ))
            .into());
        }
    }
    if also.len() > MAX_ALSO {
        bail!(
            "at most {MAX_ALSO} phrasings besides the question, not {}",
            also.len()
        );
    }
    if also.iter().any(|a| a.trim().is_empty()) {
        bail!("a phrasing is empty");
    }
    Ok(std::iter::once(query)
        .chain(also.iter().map(String::as_str))
        .collect())
}

/// The longest question or phrasing recall takes, in characters.
pub const MAX_QUERY_CHARS: usize = 2000;

/// The most entries one recall returns: every entry of any memory zo is built for (a larger
/// `-k` is clamped to it, never an SQLite error).
pub const MAX_K: usize = 1 << 20;

/// `recall` with other phrasings of the question (`--also`): every phrasing is searched and
/// the rankings are fused into one list of `k` (see `rank_phrasings`).
pub fn recall_with(
    memory: &Memory,
    query: &str,
    also: &[String],
    k: usize,
    filter: &Filter,
    mode: Mode,
    note: &dyn Fn(&str),
) -> Result<Recalled> {
    recall_across(&[memory], query, also, k, filter, mode, note)?
        .pop()
        .expect("one memory, one answer")
}

/// `recall_with` over several memories (the project and its linked ones), each ranked in its
/// own index: the model loads once (beside the first index's refresh) and the question and its
/// phrasings are embedded once. One answer per memory, in order; the first memory's error is
/// the call's, a later one's is its answer (a linked memory that cannot be read must not cost
/// the project's).
pub fn recall_across(
    memories: &[&Memory],
    query: &str,
    also: &[String],
    k: usize,
    filter: &Filter,
    mode: Mode,
    note: &dyn Fn(&str),
) -> Result<Vec<Result<Recalled>>> {
    let texts = phrasings(query, also)?;
    // More than any memory holds is "all of them": SQLite's LIMIT is an i64, and k is widened
    // (k × 4 as of a date, × the phrasings) on its way there.
    if k == 0 {
        return Err(crate::error::Error::usage(
            "k must be at least 1 (how many entries to return)",
        )
        .into());
    }
    let k = k.min(MAX_K);
    let Some(first) = memories.first() else {
        return Ok(Vec::new());
    };
    let paths = if mode == Mode::Lexical {
        None
    } else {
        model_paths(first, note)
    };
    // A key (`stack:web-framework`) is answered from FACTS.md without the model: loading it
    // then is waste. Otherwise it loads while the index opens.
    let key_shaped = crate::format::fact::check_key(texts[0].trim()).is_ok();
    let mut loader = Loader::start(paths.clone().filter(|_| !key_shaped));
    let mut quick: Option<std::result::Result<QueryEmbedder, String>> = None;
    let mut qs: Option<Vec<Vec<f32>>> = None;
    each_memory(memories, note, |memory, note| {
        one_of_many(
            memory,
            &texts,
            k,
            filter,
            mode,
            paths.as_ref(),
            &mut loader,
            &mut quick,
            &mut qs,
            note,
        )
    })
}

/// The query model, loading on its own thread. Joined on drop: a process that exits while
/// ONNX Runtime is still starting crashes in its teardown (SIGSEGV after a correct answer).
pub(crate) struct Loader(
    Option<std::thread::JoinHandle<std::result::Result<QueryEmbedder, String>>>,
);

impl Loader {
    fn start(paths: Option<embedding::Paths>) -> Loader {
        Loader(paths.map(|p| {
            std::thread::spawn(move || QueryEmbedder::load(&p).map_err(|e| format!("{e:#}")))
        }))
    }

    /// The loaded model: joined from the thread, or loaded here when none was started.
    fn join(&mut self, paths: &embedding::Paths) -> std::result::Result<QueryEmbedder, String> {
        match self.0.take() {
            Some(l) => l
                .join()
                .unwrap_or_else(|_| Err("the model loader crashed".into())),
            None => QueryEmbedder::load(paths).map_err(|e| format!("{e:#}")),
        }
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        if let Some(l) = self.0.take() {
            let _ = l.join();
        }
    }
}

/// `search` run on each memory in turn, one answer each: the first memory's error is the
/// call's, a later one's is its answer; a later memory's notes name it ("building
/// .zo/memory/index.db" twice says nothing).
pub fn each_memory<T>(
    memories: &[&Memory],
    note: &dyn Fn(&str),
    mut search: impl FnMut(&Memory, &dyn Fn(&str)) -> Result<T>,
) -> Result<Vec<Result<T>>> {
    let mut out = Vec::with_capacity(memories.len());
    for (n, memory) in memories.iter().enumerate() {
        let named = |m: &str| note(&format!("{}: {m}", memory.layout.root.display()));
        let note: &dyn Fn(&str) = if n == 0 { note } else { &named };
        match search(memory, note) {
            Err(e) if n == 0 => return Err(e),
            one => out.push(one),
        }
    }
    Ok(out)
}

/// One memory's answer in `recall_across`: the model (`quick`, joined from `loader` on first
/// need) and the question's vectors (`qs`) are shared.
#[allow(clippy::too_many_arguments)]
fn one_of_many(
    memory: &Memory,
    texts: &[&str],
    k: usize,
    filter: &Filter,
    mode: Mode,
    paths: Option<&embedding::Paths>,
    loader: &mut Loader,
    quick: &mut Option<std::result::Result<QueryEmbedder, String>>,
    qs: &mut Option<Vec<Vec<f32>>>,
    note: &dyn Fn(&str),
) -> Result<Recalled> {
    if let Some(r) = key_pass(memory, texts[0], filter, mode)? {
        return Ok(r);
    }
    let filter = &with_decay(memory, filter);
    let (mut index, _) = open_reading(memory, note)?;
    // A temporary index (read-only checkout) would embed everything on every query. Without
    // a model or with a temporary index, `fuse` ranks lexically.
    if let Some(paths) = paths.filter(|_| !index.is_temporary()) {
        let build = index.build_id()?;
        let mut vectors = index.vectors(filter)?;
        if quick.is_none() {
            *quick = Some(loader.join(paths));
            if let Some(Err(why)) = quick.as_ref() {
                unavailable(note, why);
            }
        }
        if let Some(Ok(q)) = quick.as_mut() {
            // Counted after the model check: a change of model discards every vector.
            index.check_model(note)?;
            // What this machine embedded before (another clone, a worktree) comes from its
            // vector cache, before counting what is left to embed.
            let cached =
                crate::search::index::vectors::fill(&mut index, &memory.layout.config, note)?;
            // A few new entries (a decision since the last query) are embedded here; many
            // (a fresh clone of a memory never seen here) are worth the full, optimised model.
            let embedded = cached
                + if index.pending_embeddings()? > QUICK_EMBED {
                    embed_pending(&mut index, &mut Embedder::load(paths)?, note)?
                } else {
                    embed_pending(&mut index, q, note)?
                };
            // The question and its phrasings in one run of the model, once for all memories.
            if qs.is_none() {
                *qs = Some(q.embed_batch(texts)?);
            }
            let qs = qs.as_ref().expect("set above");
            // Ranked and read in one snapshot: row ids are those of the vectors read.
            return index.snapshot(|| {
                if embedded > 0 || index.build_id()? != build {
                    vectors = index.vectors(filter)?;
                }
                let semantic = Some(qs.iter().map(|q| vectors.rank(q)).collect());
                answer(&index, fuse_all(&index, texts, semantic, k, filter, mode)?)
            });
        }
    }
    index.snapshot(|| answer(&index, fuse_all(&index, texts, None, k, filter, mode)?))
}

/// Say with the answer why it is lexical when the index was a temporary one.
fn answer(index: &Index, mut found: Recalled) -> Result<Recalled> {
    found.note = index.temporary_reason().map(str::to_string);
    Ok(found)
}

/// Recall with a model that stays loaded: a long-lived process (the MCP server) keeps one and
/// pays the model load once, on the first query that needs it. The index is opened for each
/// query and closed after it, so no lock is held between queries.
///
/// A tool call never waits for the index's embeddings: a few new entries (`QUICK_EMBED`) are
/// embedded with the question; more (a fresh clone this machine never saw) are left to a
/// `CatchUp` thread, and the answer ranks them lexically meanwhile and says how many
/// (`Recalled::pending`).
#[derive(Default)]
pub struct Recaller {
    /// None: not tried yet; Some(Err): not available (why, said once).
    embedder: Option<std::result::Result<Embedder, String>>,
    /// Recent query vectors by text: an agent that rephrases keeps some of its phrasings,
    /// and a repeated recall costs no embedding.
    recent: HashMap<String, Vec<f32>>,
    catch_up: Option<CatchUp>,
}

/// How many query vectors a `Recaller` keeps (1.5 KB each); it forgets them all when full.
const RECENT: usize = 256;

/// How many entries the catch-up thread embeds between two looks at its stop flag: about a
/// second of work on two cores, so a server asked to exit waits no longer than that.
const CATCH_UP_BATCH: usize = 8;

/// A thread embedding what an index lacks, with a model of its own (a query never waits for
/// it), a batch at a time; the index is opened for each batch and closed after it. Stopped and
/// joined when the `Recaller` is dropped: the process never exits while the runtime is busy.
struct CatchUp {
    root: std::path::PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CatchUp {
    fn start(memory: &Memory, paths: embedding::Paths) -> CatchUp {
        let root = memory.layout.root.clone();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (r, flag) = (root.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("zo-catch-up".into())
            .spawn(move || {
                // Below the foreground's priority, before the runtime makes its threads (they
                // inherit it): the agent's own work comes first.
                #[cfg(target_os = "linux")]
                // SAFETY: setpriority on this thread's own id; no memory is passed.
                unsafe {
                    let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                    libc::setpriority(libc::PRIO_PROCESS, tid, 10);
                }
                // Failures leave the entries waiting; the next query starts another try.
                let _ = catch_up(&r, &paths, &flag);
            })
            .ok();
        CatchUp { root, stop, thread }
    }

    fn running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for CatchUp {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The catch-up thread's work: batches until nothing is missing or it is told to stop.
fn catch_up(
    root: &std::path::Path,
    paths: &embedding::Paths,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<()> {
    let memory = Memory::open(Some(root))?;
    let mut e = Embedder::load(paths)?;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        // Rows were brought up to date by the query that started this; an entry added since
        // joins at the next query's refresh.
        let (mut index, _) = Index::open(&memory.layout, &|_| {})?;
        if index.is_temporary() {
            return Ok(());
        }
        index.check_model(&|_| {})?;
        if index.embed_up_to(&mut e, CATCH_UP_BATCH)? == 0 {
            return Ok(());
        }
    }
    Ok(())
}

impl Recaller {
    pub fn new() -> Recaller {
        Recaller::default()
    }

    /// The model, loaded on first use.
    fn embedder(&mut self, memory: &Memory) -> std::result::Result<&mut Embedder, String> {
        if self.embedder.is_none() {
            let loaded = embedding::locate(&memory.layout.config)
                .paths()
                .and_then(|p| Embedder::load(&p).map_err(|e| format!("{e:#}")));
            self.embedder = Some(loaded);
        }
        match self.embedder.as_mut().expect("set above") {
            Ok(e) => Ok(e),
            Err(why) => Err(why.clone()),
        }
    }

    /// Whether a catch-up thread is embedding this memory's index now.
    fn catching_up(&self, memory: &Memory) -> bool {
        self.catch_up
            .as_ref()
            .is_some_and(|c| c.root == memory.layout.root && c.running())
    }

    /// Like [`recall`], with the kept model.
    pub fn recall(
        &mut self,
        memory: &Memory,
        query: &str,
        k: usize,
        filter: &Filter,
        mode: Mode,
        note: &dyn Fn(&str),
    ) -> Result<Recalled> {
        self.recall_with(memory, query, &[], k, filter, mode, note)
    }

    /// Like [`recall_with`], with the kept model; never waits for more than a few entries'
    /// embeddings (see the type).
    #[allow(clippy::too_many_arguments)]
    pub fn recall_with(
        &mut self,
        memory: &Memory,
        query: &str,
        also: &[String],
        k: usize,
        filter: &Filter,
        mode: Mode,
        note: &dyn Fn(&str),
    ) -> Result<Recalled> {
        let texts = phrasings(query, also)?;
        if let Some(r) = key_pass(memory, query, filter, mode)? {
            return Ok(r);
        }
        let filter = &with_decay(memory, filter);
        let (mut index, _) = open_reading(memory, note)?;
        let mut qs = None;
        let mut pending = 0;
        if mode != Mode::Lexical && !index.is_temporary() {
            // The phrasings not seen lately, embedded in one call.
            let missing: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !self.recent.contains_key(*t))
                .collect();
            let busy = self.catching_up(memory);
            let fresh = match self.embedder(memory) {
                Ok(e) => {
                    index.check_model(note)?;
                    crate::search::index::vectors::fill(&mut index, &memory.layout.config, note)?;
                    pending = index.pending_embeddings()?;
                    if pending <= QUICK_EMBED && !busy {
                        embed_pending(&mut index, e, note)?;
                        pending = 0;
                    }
                    Some(if missing.is_empty() {
                        vec![]
                    } else {
                        e.embed_batch(&missing)?
                    })
                }
                Err(why) => {
                    unavailable(note, &why);
                    None
                }
            };
            if pending > 0 {
                if !busy {
                    if let Some(p) = self
                        .embedder
                        .as_ref()
                        .and_then(|e| e.as_ref().ok())
                        .and_then(|e| Embed::paths(e).cloned())
                    {
                        // The old thread (finished, or another memory's) is joined first.
                        self.catch_up = None;
                        self.catch_up = Some(CatchUp::start(memory, p));
                    }
                }
                note(&format!(
                    "semantic recall is catching up: {pending} entries await their embedding (the server embeds them in the background) and were ranked lexically only"
                ));
            }
            if let Some(vecs) = fresh {
                if self.recent.len() + missing.len() > RECENT {
                    self.recent.clear();
                }
                self.recent
                    .extend(missing.iter().map(|t| t.to_string()).zip(vecs));
                qs = Some(
                    texts
                        .iter()
                        .map(|t| self.recent[*t].clone())
                        .collect::<Vec<_>>(),
                );
            }
        }
        index.snapshot(|| {
            let semantic = match &qs {
                Some(qs) => {
                    let vectors = index.vectors(filter)?;
                    Some(qs.iter().map(|q| vectors.rank(q)).collect())
                }
                None => None,
            };
            let mut found = answer(&index, fuse_all(&index, &texts, semantic, k, filter, mode)?)?;
            found.pending = pending;
            Ok(found)
        })
    }
}

/// The first pass of the cascade: a question that is exactly a fact key (`stack:web`) is
/// answered by that fact's value, before anything fuzzy.
fn key_pass(memory: &Memory, query: &str, filter: &Filter, mode: Mode) -> Result<Option<Recalled>> {
    let q = query.trim();
    if crate::format::fact::check_key(q).is_err()
        || filter.kind.as_deref().is_some_and(|k| k != "fact")
    {
        return Ok(None);
    }
    let Some(v) = memory.fact_get(q, filter.scope, filter.provisional || filter.all)? else {
        return Ok(None);
    };
    let row = Row {
        rowid: 0,
        kind: "fact".into(),
        id: v.id,
        source: v.file,
        line: v.line as i64,
        title: v.key.clone(),
        subtype: v.scope.name().into(),
        timestamp: v.set,
        status: v.status.name().into(),
        superseded_by: None,
        text: format!("{}: {}", v.key, v.value),
    };
    Ok(Some(Recalled {
        mode,
        answered: true,
        pass: "key",
        hits: vec![Hit {
            row,
            score: 1.0,
            tier: Tier::High,
            explain: None,
            stale: false,
            directives: vec![],
            origin: None,
            memory: None,
        }],
        note: None,
        pending: 0,
        why: Some("the question names a fact's key".into()),
        terms: None,
    }))
}

/// The filter with the sessions' half-life from config (`recall.session_half_life_days`).
fn with_decay(memory: &Memory, filter: &Filter) -> Filter {
    let mut f = filter.clone();
    if f.half_life_days.is_none() {
        f.half_life_days = Some(
            memory
                .layout
                .config
                .get(&["recall", "session_half_life_days"])
                .and_then(|v| v.as_f64())
                .filter(|d| *d > 0.0)
                .unwrap_or(HALF_LIFE_DAYS),
        );
    }
    f
}

/// Sessions lose half their weight every this many days by default: what a session said a
/// month ago matters less than yesterday's; decisions and priors do not age.
pub const HALF_LIFE_DAYS: f64 = 30.0;
