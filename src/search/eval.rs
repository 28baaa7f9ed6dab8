//! `zo eval FILE.jsonl`: how well recall answers a user's own labelled questions on their own
//! memory. Each line is `{"q": "…", "relevant": ["D-…", …]}`; an empty `relevant` marks a
//! question the memory should not answer; `"also": ["…", …]` gives other phrasings of the
//! question (as an agent would pass with `--also`), and each mode is then measured on the
//! question alone and with its phrasings, side by side. Every mode the machine can run is
//! measured on the same index, the model loaded once, each question embedded once.

use crate::error::Error;
use crate::search::index::{Filter, Index};
use crate::search::recall::{self, Mode, Tier};
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// How deep each ranking is read (Recall@10 and MRR@10).
const DEPTH: usize = 10;

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Question {
    q: String,
    #[serde(default)]
    relevant: Vec<String>,
    /// Other phrasings, searched with the question (`zo recall --also`).
    #[serde(default)]
    also: Vec<String>,
    /// Free text for the person who wrote the file (e.g. where the label came from).
    #[serde(default, rename = "corpus")]
    _corpus: Option<serde_json::Value>,
    #[serde(default, rename = "note")]
    _note: Option<serde_json::Value>,
    /// Where a question without an answer was checked, and against what (held-out sets).
    #[serde(default, rename = "repo")]
    _repo: Option<serde_json::Value>,
    #[serde(default, rename = "checked")]
    _checked: Option<serde_json::Value>,
}

/// One line of a phrasings file: a question's text and the phrasings written for it.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Phrased {
    q: String,
    also: Vec<String>,
}

/// Phrasings by question text, from a `--phrasings` file.
pub type Phrasings = std::collections::HashMap<String, Vec<String>>;

/// Read a phrasings file (`{"q": "…", "also": ["…"]}` a line).
pub fn read_phrasings(path: &Path, text: &str) -> Result<Phrasings> {
    let mut out = Phrasings::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let p: Phrased = serde_json::from_str(line).map_err(|e| {
            Error::usage(format!(
                "{}:{}:{}: not a phrasings line ({{\"q\": \"…\", \"also\": [\"…\"]}}): {e}",
                path.display(),
                i + 1,
                e.column()
            ))
        })?;
        out.insert(p.q, p.also);
    }
    Ok(out)
}

/// One mode's figures.
#[derive(Debug, Clone, Serialize)]
pub struct ModeScore {
    pub mode: Mode,
    /// Whether each question was searched with its phrasings (`"also"`), or alone.
    pub phrasings: bool,
    /// Over the questions that have an answer.
    pub recall_at_1: f64,
    pub recall_at_3: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
    /// Questions without an answer that came back `answered: false`, and questions with one
    /// that did (wrongly).
    pub no_answer_flagged: usize,
    pub answered_flagged: usize,
    /// Top hits labelled `high`: how many, and how many of them were right.
    pub high_top: usize,
    pub high_top_right: usize,
    /// Per query, the model already loaded (milliseconds).
    pub latency_median_ms: f64,
    pub latency_p95_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub file: String,
    pub questions: usize,
    pub with_answer: usize,
    pub without_answer: usize,
    /// Relevant IDs that are not in the memory (a label to fix).
    pub unknown_ids: Vec<String>,
    /// Seconds to load the model, when one was used.
    pub model_load_s: Option<f64>,
    pub modes: Vec<ModeScore>,
}

fn read(path: &Path, text: &str, phrasings: &Phrasings) -> Result<Vec<Question>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut q: Question = serde_json::from_str(line).map_err(|e| {
            Error::usage(format!(
                "{}:{}:{}: not a question line ({{\"q\": \"…\", \"relevant\": [\"D-…\"]}}): {e}",
                path.display(),
                i + 1,
                e.column()
            ))
        })?;
        if q.q.trim().is_empty() {
            return Err(Error::usage(format!(
                "{}:{}: the question is empty",
                path.display(),
                i + 1
            ))
            .into());
        }
        if q.also.is_empty() {
            q.also = phrasings.get(&q.q).cloned().unwrap_or_default();
        }
        if let Some(long) = std::iter::once(&q.q)
            .chain(&q.also)
            .find(|t| t.chars().count() > recall::MAX_QUERY_CHARS)
        {
            return Err(Error::usage(format!(
                "{}:{}: a question or phrasing of {} characters; recall takes at most {}",
                path.display(),
                i + 1,
                long.chars().count(),
                recall::MAX_QUERY_CHARS
            ))
            .into());
        }
        if q.also.len() > recall::MAX_ALSO || q.also.iter().any(|a| a.trim().is_empty()) {
            return Err(Error::usage(format!(
                "{}:{}: \"also\" takes 1 to {} phrasings, none empty",
                path.display(),
                i + 1,
                recall::MAX_ALSO
            ))
            .into());
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(Error::usage(format!(
            "{}: no questions (one JSON object a line)",
            path.display()
        ))
        .into());
    }
    Ok(out)
}

/// A set of labelled questions, read and checked (each joined by its phrasings): every set is
/// read before minutes of work on the first.
pub struct Set {
    file: String,
    questions: Vec<Question>,
}

impl Set {
    pub fn read(path: &Path, text: &str, phrasings: &Phrasings) -> Result<Set> {
        Ok(Set {
            file: path.display().to_string(),
            questions: read(path, text, phrasings)?,
        })
    }

    /// The questions' texts.
    pub fn asked(&self) -> impl Iterator<Item = &str> {
        self.questions.iter().map(|q| q.q.as_str())
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Measure every mode available here on a set's questions.
pub fn eval(memory: &Memory, set: &Set, note: &dyn Fn(&str)) -> Result<EvalReport> {
    let questions = &set.questions;
    let (mut index, _) = recall::open_reading(memory, note)?;
    // What `zo recall` returns by default: superseded and provisional entries are not answers.
    let filter = Filter::default();
    let unknown_ids = unknown_ids(memory, questions)?;
    let texts: Vec<Vec<&str>> = questions
        .iter()
        .map(|q| {
            std::iter::once(q.q.as_str())
                .chain(q.also.iter().map(String::as_str))
                .collect()
        })
        .collect();
    let phrased = questions.iter().any(|q| !q.also.is_empty());
    let embedded = embed(memory, &mut index, questions, &texts, phrased, note)?;
    let modes: &[Mode] = if embedded.model_load_s.is_some() {
        &[Mode::Hybrid, Mode::Semantic, Mode::Lexical]
    } else {
        &[Mode::Lexical]
    };
    let with_answer = questions.iter().filter(|q| !q.relevant.is_empty()).count();
    let mut scores = Vec::new();
    let runs: Vec<(Mode, bool)> = modes
        .iter()
        .flat_map(|&m| std::iter::once((m, false)).chain(phrased.then_some((m, true))))
        .collect();
    let bar = crate::progress::bar(questions.len() * runs.len(), "evaluating");
    let run = Run {
        index: &index,
        questions,
        texts: &texts,
        filter: &filter,
        embedded: &embedded,
        with_answer,
    };
    for &(mode, with_also) in &runs {
        scores.push(run.score(mode, with_also, &bar)?);
    }
    bar.finish_and_clear();
    Ok(EvalReport {
        file: set.file.clone(),
        questions: questions.len(),
        with_answer,
        without_answer: questions.len() - with_answer,
        unknown_ids,
        model_load_s: embedded.model_load_s,
        modes: scores,
    })
}

/// Relevant IDs that are not in the memory, sorted, each once: labels to fix.
fn unknown_ids(memory: &Memory, questions: &[Question]) -> Result<Vec<String>> {
    let mut known: std::collections::HashSet<String> = memory
        .decisions()?
        .entries
        .iter()
        .map(|e| e.id.clone())
        .chain(memory.priors()?.entries.iter().map(|p| p.id.clone()))
        .collect();
    // Fact versions are recalled too (F-…), from either scope.
    for scope in [
        crate::store::facts::Scope::Project,
        crate::store::facts::Scope::User,
    ] {
        if let Ok(f) = memory.facts(scope) {
            known.extend(f.entries.iter().map(|e| e.id.clone()));
        }
    }
    let mut unknown_ids: Vec<String> = questions
        .iter()
        .flat_map(|q| q.relevant.iter())
        .filter(|id| !known.contains(*id) && !id.starts_with("session"))
        .cloned()
        .collect();
    unknown_ids.sort();
    unknown_ids.dedup();
    Ok(unknown_ids)
}

/// The questions embedded by the model, if there is one, each once: alone, and with its
/// phrasings in one call as recall does; with how long each took (a mode that uses the
/// vectors counts it in its latency).
struct Embedded {
    /// Seconds to load the model; None without one.
    model_load_s: Option<f64>,
    vectors: Vec<Option<Vec<f32>>>,
    embed_ms: Vec<f64>,
    all_vectors: Vec<Option<Vec<Vec<f32>>>>,
    all_embed_ms: Vec<f64>,
}

/// Embed the questions (`texts`: each with its phrasings; those only when some question has
/// them), after bringing the index's own vectors up to date.
fn embed(
    memory: &Memory,
    index: &mut Index,
    questions: &[Question],
    texts: &[Vec<&str>],
    phrased: bool,
    note: &dyn Fn(&str),
) -> Result<Embedded> {
    let mut model_load_s = None;
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; questions.len()];
    let mut embed_ms = vec![0.0; questions.len()];
    // With phrasings: the question's and theirs, embedded in one call as recall does.
    let mut all_vectors: Vec<Option<Vec<Vec<f32>>>> = vec![None; questions.len()];
    let mut all_embed_ms = vec![0.0; questions.len()];
    if !index.is_temporary() {
        let t = Instant::now();
        if let Some(mut e) = recall::embedder(memory, note) {
            model_load_s = Some(t.elapsed().as_secs_f64());
            recall::embed_pending(index, &mut e, note)?;
            for (i, q) in questions.iter().enumerate() {
                let t = Instant::now();
                vectors[i] = Some(e.embed(&[q.q.as_str()])?.remove(0));
                embed_ms[i] = t.elapsed().as_secs_f64() * 1000.0;
                if phrased {
                    let t = Instant::now();
                    all_vectors[i] = Some(e.embed_batch(&texts[i])?);
                    all_embed_ms[i] = t.elapsed().as_secs_f64() * 1000.0;
                }
            }
        }
    }
    Ok(Embedded {
        model_load_s,
        vectors,
        embed_ms,
        all_vectors,
        all_embed_ms,
    })
}

/// What every mode is measured on: the same index, questions, filter and vectors.
struct Run<'a> {
    index: &'a Index,
    questions: &'a [Question],
    texts: &'a [Vec<&'a str>],
    filter: &'a Filter,
    embedded: &'a Embedded,
    /// The questions that have an answer (the figures are over them).
    with_answer: usize,
}

impl Run<'_> {
    /// One mode's figures, each question searched alone or `with_also` its phrasings.
    fn score(
        &self,
        mode: Mode,
        with_also: bool,
        bar: &indicatif::ProgressBar,
    ) -> Result<ModeScore> {
        let e = self.embedded;
        let (mut r1, mut r3, mut r10, mut rr) = (0.0, 0.0, 0.0, 0.0);
        let (mut no_answer_flagged, mut answered_flagged, mut high_top, mut high_top_right) =
            (0, 0, 0, 0);
        let mut times = Vec::new();
        for (i, q) in self.questions.iter().enumerate() {
            let t = Instant::now();
            let found = if with_also {
                crate::search::rank::rank_all(
                    self.index,
                    &self.texts[i],
                    e.all_vectors[i].as_deref(),
                    DEPTH,
                    self.filter,
                    mode,
                )?
            } else {
                crate::search::rank::rank(
                    self.index,
                    &q.q,
                    e.vectors[i].as_deref(),
                    DEPTH,
                    self.filter,
                    mode,
                )?
            };
            let extra = match (mode, with_also) {
                (Mode::Lexical, _) => 0.0,
                (_, true) => e.all_embed_ms[i],
                (_, false) => e.embed_ms[i],
            };
            times.push(t.elapsed().as_secs_f64() * 1000.0 + extra);
            bar.inc(1);
            if q.relevant.is_empty() {
                no_answer_flagged += usize::from(!found.answered);
                continue;
            }
            answered_flagged += usize::from(!found.answered);
            let pos = found
                .hits
                .iter()
                .position(|h| q.relevant.contains(&h.row.id));
            if let Some(p) = pos {
                rr += 1.0 / (p as f64 + 1.0);
                r1 += f64::from(p < 1);
                r3 += f64::from(p < 3);
                r10 += 1.0;
            }
            if found.hits.first().is_some_and(|h| h.tier == Tier::High) {
                high_top += 1;
                high_top_right += usize::from(pos == Some(0));
            }
        }
        let n = self.with_answer.max(1) as f64;
        let median = percentile(&mut times, 0.5);
        let p95 = percentile(&mut times, 0.95);
        Ok(ModeScore {
            mode,
            phrasings: with_also,
            recall_at_1: r1 / n,
            recall_at_3: r3 / n,
            recall_at_10: r10 / n,
            mrr: rr / n,
            no_answer_flagged,
            answered_flagged,
            high_top,
            high_top_right,
            latency_median_ms: median,
            latency_p95_ms: p95,
        })
    }
}
