//! Sentence embeddings with fastembed, loaded from a local model folder, ONNX Runtime loaded
//! dynamically (SPEC §8, docs/EMBEDDINGS.md). Loading costs about half a second, so only
//! commands that need semantics call `Embedder::load`; finding the files is cheap.

use crate::store::config::Config;
use anyhow::{Context, Result, anyhow};
use std::path::{Path, PathBuf};

pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
pub const DIM: usize = 384;
/// How many tokens of an entry the model reads: its whole window.
pub const MAX_TOKENS: usize = 512;
/// An entry is embedded twice: its opening (title and about the first 128 tokens, counted as
/// words so no tokenizer pass is needed) and its whole text up to `MAX_TOKENS`; its similarity
/// to a question is the mean of the two cosines. Measured on 98 labelled questions over 326
/// decision records (docs/RECALL.md): semantic Recall@3 0.72 reading 128 tokens, 0.76 reading
/// 512, 0.77 for the mean of both; MRR 0.62, 0.66, 0.70.
pub const HEAD_WORDS: usize = 90;
pub const VECTORS_PER_ENTRY: usize = 2;
/// What the stored vectors were computed with; a change re-embeds every entry. `fp32`: the
/// weights `zo model install` writes since issue 24 (before, an int8 file); an index built with
/// the old file is re-embedded once rather than mixing vectors of the two.
pub fn vectors_id() -> String {
    format!("{MODEL_NAME}:fp32:{DIM}:head{HEAD_WORDS}w+{MAX_TOKENS}t")
}
/// The files of a model folder; the vector cache hashes them all (weights and tokenizer).
pub const MODEL_FILES: [&str; 5] = [
    "model.onnx",
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];
pub const INSTALL_HINT: &str = "`zo model install`";

#[cfg(target_os = "macos")]
const ORT_LIB: &str = "libonnxruntime.dylib";
#[cfg(not(target_os = "macos"))]
const ORT_LIB: &str = "libonnxruntime.so";

pub use crate::store::layout::cache_dir;

/// Where the model and the runtime were found.
#[derive(Debug, Clone)]
pub struct Paths {
    pub model_dir: PathBuf,
    pub runtime: PathBuf,
}

/// What was looked for and where: for `doctor` and the one-line reason in lexical mode.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Search {
    pub disabled: bool,
    pub model_dir: Option<PathBuf>,
    pub model_candidates: Vec<PathBuf>,
    pub runtime: Option<PathBuf>,
    pub runtime_candidates: Vec<PathBuf>,
}

impl Search {
    pub fn paths(&self) -> Result<Paths, String> {
        if self.disabled {
            return Err("semantic search is off (index.embedding: off in .zo/config.yaml)".into());
        }
        match (&self.model_dir, &self.runtime) {
            (Some(m), Some(r)) => Ok(Paths {
                model_dir: m.clone(),
                runtime: r.clone(),
            }),
            (None, _) => Err(format!(
                "no embedding model found (looked in {}); run {INSTALL_HINT}",
                show(&self.model_candidates)
            )),
            (_, None) => Err(format!(
                "no ONNX Runtime library found (looked for {}); run {INSTALL_HINT}",
                show(&self.runtime_candidates)
            )),
        }
    }
}

fn show(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn model_complete(dir: &Path) -> bool {
    MODEL_FILES.iter().all(|f| dir.join(f).is_file())
}

/// Keys a repository's config may hold but zo ignores because they would choose code to load.
pub fn ignored_paths(config: &Config) -> Vec<&'static str> {
    ["model_dir", "runtime"]
        .into_iter()
        .filter(|k| config.get(&["index", k]).is_some())
        .collect()
}

/// Look for the model folder and the runtime library, in the documented order: the user's
/// environment (`ZO_MODEL_DIR`, `ORT_DYLIB_PATH`), beside the zo binary, zo's cache. Never from
/// a repository: ONNX Runtime is a library zo loads, and a committed `index.runtime` pointing at
/// a library of the repository's own ran its code in every clone (a found attack). Those keys in
/// `.zo/config.yaml` are ignored; `ignored_paths` names them for `doctor`.
pub fn locate(config: &Config) -> Search {
    let disabled = config
        .str(&["index", "embedding"])
        .is_some_and(|v| v == "off" || v == "false");
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let cache = cache_dir();

    let mut model_candidates = Vec::new();
    model_candidates.extend(env("ZO_MODEL_DIR"));
    model_candidates.extend(cache.as_ref().map(|c| c.join("models").join(MODEL_NAME)));
    let model_dir = model_candidates.iter().find(|d| model_complete(d)).cloned();

    let mut runtime_candidates = Vec::new();
    runtime_candidates.extend(env("ORT_DYLIB_PATH"));
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        runtime_candidates.push(dir.join(ORT_LIB));
    }
    runtime_candidates.extend(cache.as_ref().map(|c| c.join("onnxruntime").join(ORT_LIB)));
    let runtime = runtime_candidates.iter().find(|p| p.is_file()).cloned();

    Search {
        disabled,
        model_dir,
        model_candidates,
        runtime,
        runtime_candidates,
    }
}

/// The model loaded with graph optimisation, for embedding many texts (and questions in a
/// long-lived process). One session on every core answers single texts; a call with `BULK` or
/// more texts also loads one single-thread helper session per further core, which joins the
/// work as soon as it is ready and is kept for later bulk calls; a holder that only embeds
/// questions (the MCP server, `zo eval`) keeps one session's memory. Every session is fed one
/// text at a time, longest first. Measured building the index of 326 ADRs on 2 cores: one
/// 2-thread session in batches of 16 took 95 s and 2.1 GB (a batch is padded to its longest
/// text, and the runtime's working memory grows with the batch); batches of 1, 68 s and
/// 0.3 GB; with the helper, 51–56 s and 0.6 GB; two one-thread sessions, 53–56 s but
/// questions at 19–22 ms instead of 10–15.
/// Batching even the short openings was slower (65 s).
pub struct Embedder {
    first: fastembed::TextEmbedding,
    helpers: Vec<fastembed::TextEmbedding>,
    source: SessionSource,
    paths: Paths,
}

/// What a session is made from, kept to load helpers.
struct SessionSource {
    model: fastembed::UserDefinedEmbeddingModel,
    env: ort::environment::Environment,
    max_tokens: usize,
    model_dir: PathBuf,
    cores: usize,
}

impl SessionSource {
    fn session(&self, threads: usize) -> Result<fastembed::TextEmbedding> {
        let options = fastembed::InitOptionsUserDefined::new()
            .with_environment(self.env.clone())
            .with_max_length(self.max_tokens)
            .with_intra_threads(threads)
            // Threads sleep rather than spin between operators, leaving the cores to the
            // helper sessions while the index is built.
            .with_session_config("session.intra_op.allow_spinning", "0")
            // Pre-packing weights at load costs more than it saves for zo's short-lived
            // processes: measured load 0.27 s → 0.24 s, bulk embedding no slower.
            .with_session_config("session.disable_prepacking", "1");
        fastembed::TextEmbedding::try_new_from_user_defined(self.model.clone(), options).map_err(
            |e| {
                anyhow!(
                    "could not load the embedding model from {}: {e}",
                    self.model_dir.display()
                )
            },
        )
    }
}

/// From how many texts a call loads helper sessions: each costs about 0.3 s of a core to load,
/// worth it once the work is a few seconds (a 512-token text takes about 0.15 s). Below it,
/// embedding three new entries took 0.77–0.83 s and 570 MB with a helper, 0.73 s and 310 MB
/// without.
const BULK: usize = 16;

/// Either embedder: unit-length vectors, one per text.
pub trait Embed {
    fn embed_texts(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Where the model was loaded from: the machine's vector cache is keyed by it. None (a
    /// test double) keeps the cache out of it.
    fn paths(&self) -> Option<&Paths> {
        None
    }
}

impl Embed for Embedder {
    fn embed_texts(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts)
    }
    fn paths(&self) -> Option<&Paths> {
        // A measurement at another window computes other vectors than the cache's key says.
        (self.source.max_tokens == MAX_TOKENS).then_some(&self.paths)
    }
}

impl Embed for QueryEmbedder {
    fn embed_texts(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.embed(t)).collect()
    }
    fn paths(&self) -> Option<&Paths> {
        Some(&self.paths)
    }
}

/// The stored vectors of entries, one `VECTORS_PER_ENTRY × DIM` vector per text: the opening,
/// then the whole text. All of them go to the embedder at once, so its sessions stay busy.
pub fn embed_entries(e: &mut dyn Embed, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let heads: Vec<String> = texts
        .iter()
        .map(|t| {
            t.split_whitespace()
                .take(HEAD_WORDS)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let all: Vec<&str> = heads
        .iter()
        .map(String::as_str)
        .chain(texts.iter().copied())
        .collect();
    let mut vecs = e.embed_texts(&all)?;
    let wholes = vecs.split_off(texts.len());
    Ok(vecs
        .into_iter()
        .zip(wholes)
        .map(|(mut h, w)| {
            h.extend(w);
            h
        })
        .collect())
}

/// The ONNX Runtime environment, created once per process from the runtime we found.
fn environment(paths: &Paths) -> Result<ort::environment::Environment> {
    // Every model load passes here: from now on this process embeds (src/alloc.rs).
    crate::alloc::release_freed_memory_at_once();
    static ENV: std::sync::OnceLock<Result<ort::environment::Environment, String>> =
        std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        ort::init_from(&paths.runtime)
            .map_err(|e| {
                format!(
                    "could not load ONNX Runtime from {}: {e}",
                    paths.runtime.display()
                )
            })?
            .with_name("zo")
            // The PyPI build has telemetry on; this alone does not stop it writing a device ID,
            // so `main` also sets ORT_DISABLE_TELEMETRY (docs/EMBEDDINGS.md).
            .with_telemetry(false)
            .build()
            .map_err(|e| {
                format!(
                    "could not start ONNX Runtime from {}: {e}",
                    paths.runtime.display()
                )
            })
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

/// Embeds one question, loaded in a fraction of the time `Embedder` takes: ONNX Runtime's graph
/// optimisation is most of a model load (measured 0.25 s of 0.33 s here) and pays off only
/// over many texts, so a process that embeds only its question skips it (session load
/// 0.04–0.06 s). Same tokenizer, truncation and mean pooling as fastembed, so the same vector
/// (a test holds the two to each other).
pub struct QueryEmbedder {
    session: ort::session::Session,
    tokenizer: tokenizers::Tokenizer,
    paths: Paths,
}

impl QueryEmbedder {
    pub fn load(paths: &Paths) -> Result<QueryEmbedder> {
        let env = environment(paths)?;
        let model_path = paths.model_dir.join("model.onnx");
        let fail = |e: &dyn std::fmt::Display| {
            anyhow!(
                "could not load the embedding model from {}: {e}",
                paths.model_dir.display()
            )
        };
        let session = ort::session::Session::builder(&env)
            .map_err(|e| fail(&e))?
            .with_optimization_level(ort::session::builder::GraphOptimizationLevel::Disable)
            .map_err(|e| fail(&e))?
            .with_intra_threads(1)
            .map_err(|e| fail(&e))?
            .commit_from_file(&model_path)
            .map_err(|e| fail(&e))?;
        let tok_path = paths.model_dir.join("tokenizer.json");
        let mut tokenizer = tokenizers::Tokenizer::from_file(&tok_path)
            .map_err(|e| anyhow!("could not read {}: {e}", tok_path.display()))?;
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| {
                anyhow!(
                    "could not set up the tokenizer from {}: {e}",
                    tok_path.display()
                )
            })?;
        tokenizer.with_padding(None);
        Ok(QueryEmbedder {
            session,
            tokenizer,
            paths: paths.clone(),
        })
    }

    /// The unit-length embedding of one text (mean of the token vectors, as fastembed pools).
    pub fn embed(&mut self, text: &str) -> Result<Vec<f32>> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| anyhow!("could not tokenize the question: {e}"))?;
        let n = enc.get_ids().len();
        let as_i64 = |v: &[u32]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let tensor = |v: Vec<i64>| {
            ort::value::Tensor::from_array(([1usize, n], v))
                .map_err(|e| anyhow!("embedding failed: {e}"))
        };
        let ids = tensor(as_i64(enc.get_ids()))?;
        let mask_values = as_i64(enc.get_attention_mask());
        let mask = tensor(mask_values.clone())?;
        let types = tensor(as_i64(enc.get_type_ids()))?;
        let outputs = self
            .session
            .run(ort::inputs!["input_ids" => ids, "attention_mask" => mask, "token_type_ids" => types])
            .map_err(|e| anyhow!("embedding failed: {e}"))?;
        let (shape, data) = outputs["last_hidden_state"]
            .try_extract_tensor::<f32>()
            .map_err(|e| anyhow!("embedding failed: {e}"))?;
        if shape.len() != 3 || shape[1] as usize != n || shape[2] as usize != DIM {
            anyhow::bail!("embedding failed: the model returned shape {shape:?}");
        }
        let mut v = vec![0f32; DIM];
        for (t, m) in mask_values.iter().enumerate() {
            if *m != 0 {
                v.iter_mut()
                    .zip(&data[t * DIM..(t + 1) * DIM])
                    .for_each(|(a, b)| *a += b);
            }
        }
        unit(&mut v);
        Ok(v)
    }
}

/// Vectors with the position of their text.
type Indexed = Vec<(usize, Vec<f32>)>;

impl Embedder {
    /// Load ONNX Runtime and the model. Every failure is an error, never a panic: ORT is
    /// initialised from the path we found before fastembed touches it.
    pub fn load(paths: &Paths) -> Result<Embedder> {
        Embedder::load_with(paths, MAX_TOKENS)
    }

    /// Like `load`, reading at most `max_tokens` tokens of each text (for measurements).
    pub fn load_with(paths: &Paths, max_tokens: usize) -> Result<Embedder> {
        let env = environment(paths)?;
        let read = |f: &str| {
            let p = paths.model_dir.join(f);
            std::fs::read(&p).with_context(|| format!("could not read {}", p.display()))
        };
        let tokenizer = fastembed::TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let model = fastembed::UserDefinedEmbeddingModel::new(read("model.onnx")?, tokenizer)
            .with_pooling(fastembed::Pooling::Mean);
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(4);
        let source = SessionSource {
            model,
            env,
            max_tokens,
            model_dir: paths.model_dir.clone(),
            cores,
        };
        Ok(Embedder {
            first: source.session(cores)?,
            helpers: Vec::new(),
            source,
            paths: paths.clone(),
        })
    }

    /// Unit-length embeddings, one per text, in the order of `texts`; the sessions take the
    /// longest texts first so they finish together.
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (order, next) = (&order, &next);
        let want = if texts.len() >= BULK {
            self.source.cores - 1
        } else {
            0
        };
        let missing = want.saturating_sub(self.helpers.len());
        let source = &self.source;
        let work = move |w: &mut fastembed::TextEmbedding| -> Result<Indexed> {
            let mut got = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
            {
                let mut v = w
                    .embed(&texts[i..=i], Some(1))
                    .map_err(|e| anyhow!("embedding failed: {e}"))?
                    .remove(0);
                unit(&mut v);
                got.push((i, v));
            }
            Ok(got)
        };
        let (first, helpers) = (&mut self.first, &mut self.helpers);
        let (done, loaded) = std::thread::scope(|s| {
            let mut handles = vec![s.spawn(move || work(first))];
            handles.extend(
                helpers
                    .iter_mut()
                    .take(want)
                    .map(|w| s.spawn(move || work(w))),
            );
            // New helpers join as soon as they are loaded; one that cannot load (memory, say)
            // leaves its share to the others.
            let new: Vec<_> = (0..missing)
                .map(|_| {
                    s.spawn(move || match source.session(1) {
                        Ok(mut w) => {
                            let got = work(&mut w);
                            (Some(w), got)
                        }
                        Err(_) => (None, Ok(Vec::new())),
                    })
                })
                .collect();
            let stopped = || anyhow!("embedding failed: a worker stopped");
            let mut done: Vec<Result<Indexed>> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(stopped())))
                .collect();
            let mut loaded = Vec::new();
            for h in new {
                let (w, got) = h.join().unwrap_or_else(|_| (None, Err(stopped())));
                loaded.extend(w);
                done.push(got);
            }
            (done, loaded)
        });
        self.helpers.extend(loaded);
        let mut out = vec![Vec::new(); texts.len()];
        for got in done {
            for (i, v) in got? {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Several short questions (a question and its phrasings, issue 23) in one run of the model:
/// padded to the longest, the padding masked out, so each vector is the one `embed` gives.
/// One run of four short texts costs little more than one (the model's fixed cost per run
/// dominates at a few tokens), where four runs cost four times as much.
impl QueryEmbedder {
    pub fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.len() < 2 {
            return texts.iter().map(|t| self.embed(t)).collect();
        }
        let encs = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| anyhow!("could not tokenize the question: {e}"))?;
        let (rows, len) = (
            encs.len(),
            encs.iter().map(|e| e.get_ids().len()).max().unwrap_or(0),
        );
        let padded = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<i64> {
            encs.iter()
                .flat_map(|e| {
                    f(e).iter()
                        .map(|&x| x as i64)
                        .chain(std::iter::repeat(0))
                        .take(len)
                })
                .collect()
        };
        let mask_values = padded(&|e| e.get_attention_mask());
        let tensor = |v: Vec<i64>| {
            ort::value::Tensor::from_array(([rows, len], v))
                .map_err(|e| anyhow!("embedding failed: {e}"))
        };
        let (ids, mask, types) = (
            tensor(padded(&|e| e.get_ids()))?,
            tensor(mask_values.clone())?,
            tensor(padded(&|e| e.get_type_ids()))?,
        );
        let outputs = self
            .session
            .run(ort::inputs!["input_ids" => ids, "attention_mask" => mask, "token_type_ids" => types])
            .map_err(|e| anyhow!("embedding failed: {e}"))?;
        let (shape, data) = outputs["last_hidden_state"]
            .try_extract_tensor::<f32>()
            .map_err(|e| anyhow!("embedding failed: {e}"))?;
        if shape.len() != 3
            || shape[0] as usize != rows
            || shape[1] as usize != len
            || shape[2] as usize != DIM
        {
            anyhow::bail!("embedding failed: the model returned shape {shape:?}");
        }
        let mut out = vec![vec![0f32; DIM]; rows];
        for (r, v) in out.iter_mut().enumerate() {
            for t in (0..len).filter(|t| mask_values[r * len + t] != 0) {
                let at = (r * len + t) * DIM;
                v.iter_mut()
                    .zip(&data[at..at + DIM])
                    .for_each(|(a, b)| *a += b);
            }
            unit(v);
        }
        Ok(out)
    }
}

impl Embedder {
    /// Several short questions in one run of the model (see `QueryEmbedder::embed_batch`);
    /// `embed` runs one text at a time, which suits entries of very different lengths.
    pub fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut vecs = self
            .first
            .embed(texts, Some(texts.len().max(1)))
            .map_err(|e| anyhow!("embedding failed: {e}"))?;
        vecs.iter_mut().for_each(|v| unit(v));
        Ok(vecs)
    }
}

/// Scale to unit length (a zero vector, from a text with no tokens, stays zero), so the
/// stored vectors' dot products are cosines whichever embedder made them.
fn unit(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

pub fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
