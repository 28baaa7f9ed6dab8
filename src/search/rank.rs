//! Ranking and fusion (SPEC §4): BM25 and similarity turned into z-scores over the candidates
//! and fused, for one question or a question and its phrasings; tiers and the "answered" signal
//! judged on the result; supersession and session decay applied after fusion. `recall.rs`
//! decides what to rank (the cascade, the index, the model); this file only ranks.

use super::recall::*;
use crate::search::index::{Filter, Index};
use anyhow::Result;
use std::collections::HashMap;

/// Rank the index for a query. `query_vec` is the query's embedding (needed for the semantic
/// and hybrid modes; without it they rank lexically).
pub fn rank(
    index: &Index,
    query: &str,
    query_vec: Option<&[f32]>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Recalled> {
    let semantic = match query_vec {
        Some(q) if mode != Mode::Lexical => Some(vec![index.semantic(q, filter)?]),
        _ => None,
    };
    // Judged like every recall: `zo eval` measures what `zo recall` returns.
    fuse_all(index, &[query], semantic, k, filter, mode)
}

/// `rank` for a question and its phrasings (`texts[0]` is the question; `vecs` theirs, in
/// the same order).
pub fn rank_all(
    index: &Index,
    texts: &[&str],
    vecs: Option<&[Vec<f32>]>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Recalled> {
    let semantic = match vecs {
        Some(vs) if mode != Mode::Lexical => {
            let vectors = index.vectors(filter)?;
            Some(vs.iter().map(|q| vectors.rank(q)).collect())
        }
        _ => None,
    };
    fuse_all(index, texts, semantic, k, filter, mode)
}

/// Rank a question searched under several phrasings (`texts[0]` the question; `semantic` each
/// one's similarity to every row, best first). The memory is searched once with what the
/// phrasings say together: a row's similarity is the mean of its two best cosines over the
/// phrasings (one phrasing that happens to land near counts less than two that agree), the
/// lexical side is one BM25 query with the words of every phrasing, and the two are fused by
/// z-scores as for one question (`ALSO_SEMANTIC_WEIGHT`). Tiers: a hit is `standard` when one
/// phrasing's similarity reaches `ALSO_ANSWERED`, the first hit `high` when it also leads the
/// second by `ALSO_HIGH_LEAD`; `answered` is whether any row reached `ALSO_ANSWERED`.
/// docs/RECALL.md has the measurements (rank fusion and max score were measured too).
fn rank_phrasings(
    index: &Index,
    texts: &[&str],
    semantic: Option<Vec<Vec<(i64, f64)>>>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Recalled> {
    let joined = texts.join(" ");
    let Some(lists) = semantic.filter(|_| mode != Mode::Lexical) else {
        // No model: the words of every phrasing, one lexical ranking.
        let mut r = rank_once(index, &joined, None, k, filter, Mode::Lexical, None)?;
        r.pass = "phrasings";
        return Ok(r);
    };
    let depth = DEPTH.max(k);
    // Each row's place and similarity under each phrasing, in the phrasings' order.
    let mut per: HashMap<i64, Vec<(usize, f64)>> = HashMap::new();
    for list in &lists {
        for (r, &(id, s)) in list.iter().enumerate() {
            per.entry(id).or_default().push((r + 1, s));
        }
    }
    let two_best = |v: &[(usize, f64)]| {
        let (mut a, mut b) = (f64::MIN, f64::MIN);
        for &(_, s) in v {
            if s > a {
                (a, b) = (s, a);
            } else if s > b {
                b = s;
            }
        }
        if b == f64::MIN { a } else { (a + b) / 2.0 }
    };
    let mut combined: Vec<(i64, f64)> = per.iter().map(|(&id, v)| (id, two_best(v))).collect();
    combined.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let similarity: HashMap<i64, (usize, f64)> = combined
        .iter()
        .enumerate()
        .map(|(r, &(id, s))| (id, (r + 1, s)))
        .collect();
    let best_of = |id: &i64| {
        per.get(id)
            .map(|v| v.iter().map(|x| x.1).fold(f64::MIN, f64::max))
    };
    let lexical = if mode == Mode::Semantic {
        vec![]
    } else {
        index.lexical(&joined, filter, depth)?
    };
    let bm25: HashMap<i64, (usize, f64)> = lexical
        .iter()
        .enumerate()
        .map(|(r, &(id, s))| (id, (r + 1, s)))
        .collect();
    let mut candidates: Vec<i64> = combined.iter().take(depth).map(|x| x.0).collect();
    candidates.extend(
        lexical
            .iter()
            .map(|x| x.0)
            .filter(|id| similarity.get(id).is_none_or(|(r, _)| *r > depth)),
    );
    let w = if mode == Mode::Semantic {
        1.0
    } else {
        ALSO_SEMANTIC_WEIGHT
    };
    let mut fused = fused(&candidates, &similarity, &bm25, w);
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let answered = lists
        .iter()
        .filter_map(|l| l.first())
        .any(|x| x.1 >= ALSO_ANSWERED);
    let ranked = reorder(index, fused, k, filter, mode)?;
    let lead = match ranked.as_slice() {
        [first, second, ..] => first.1 - second.1,
        _ => f64::INFINITY,
    };
    let best_lexical = lexical.first().map_or(0.0, |x| x.1);
    let mut hits = Vec::new();
    for (i, (rowid, score)) in ranked.into_iter().take(k).enumerate() {
        let sim = similarity.get(&rowid).copied();
        let lex = bm25.get(&rowid).copied();
        let tier = match best_of(&rowid) {
            None => Tier::of_lexical(lex.map_or(0.0, |x| x.1), best_lexical),
            Some(s) if s < ALSO_ANSWERED => Tier::Low,
            Some(_) if i == 0 && lead >= ALSO_HIGH_LEAD => Tier::High,
            Some(_) => Tier::Standard,
        };
        let phrasings = per
            .get(&rowid)
            .map(|v| {
                v.iter()
                    .map(|&(rank, similarity)| Phrased { rank, similarity })
                    .collect()
            })
            .unwrap_or_default();
        let explain = Explain {
            lexical_rank: lex.map(|x| x.0),
            bm25: lex.map(|x| x.1),
            semantic_rank: sim.map(|x| x.0),
            similarity: sim.map(|x| x.1),
            fused: score,
            phrasings,
        };
        hits.push(Hit {
            row: index.row(rowid)?,
            score,
            tier,
            explain: Some(explain),
            stale: false,
            directives: vec![],
            origin: None,
            memory: None,
        });
    }
    Ok(Recalled {
        mode,
        answered,
        pass: "phrasings",
        hits,
        note: None,
        pending: 0,
        why: None,
        terms: None,
    })
}

/// Mean and standard deviation (1 when the values do not vary).
/// Each candidate's fused score: `w` times its similarity's z-score plus `1 - w` times its
/// BM25's (0 where the words do not match), both over the candidates. `similarity` holds every
/// row that has a vector; a candidate missing from it is still waiting for its embedding (a
/// clone catching up) and is scored by its words alone (its BM25's z-score), as the answer's
/// note says. Scored as the least similar row, an exact lexical hit fell below every embedded
/// entry until the catch-up reached it.
fn fused(
    candidates: &[i64],
    similarity: &HashMap<i64, (usize, f64)>,
    bm25: &HashMap<i64, (usize, f64)>,
    w: f64,
) -> Vec<(i64, f64)> {
    let sims: Vec<Option<f64>> = candidates
        .iter()
        .map(|id| similarity.get(id).map(|x| x.1))
        .collect();
    let lexs: Vec<f64> = candidates
        .iter()
        .map(|id| bm25.get(id).map_or(0.0, |x| x.1))
        .collect();
    let present: Vec<f64> = sims.iter().flatten().copied().collect();
    let ((ms, ss), (ml, sl)) = (spread(&present), spread(&lexs));
    candidates
        .iter()
        .zip(sims.iter().zip(&lexs))
        .map(|(&id, (s, l))| {
            let words = (l - ml) / sl;
            (
                id,
                s.map_or(words, |s| w * (s - ms) / ss + (1.0 - w) * words),
            )
        })
        .collect()
}

fn spread(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    (mean, if sd > 1e-12 { sd } else { 1.0 })
}

/// Rank per mode. `semantic` is every row's similarity, best first (None without the model:
/// the search is then lexical whatever was asked). Hybrid: the candidates are the lexical top
/// `DEPTH` and the semantic top `DEPTH`; each score is turned into a z-score over them (a row
/// the words do not match has BM25 0) and the fused score is their weighted sum.
fn fuse(
    index: &Index,
    query: &str,
    semantic: Option<Vec<(i64, f64)>>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Recalled> {
    let first = rank_once(index, query, semantic.clone(), k, filter, mode, None)?;
    // Nothing reached `standard`: widen the question with the title words of the best hits and
    // rank once more. Lexical search already takes any of the words, and a lexical tier would
    // be judged by the widened question, so only the semantic modes take this pass.
    if first.answered || first.mode == Mode::Lexical || first.hits.is_empty() {
        return Ok(first);
    }
    let titles: Vec<&str> = first
        .hits
        .iter()
        .take(2)
        .map(|h| h.row.title.as_str())
        .collect();
    let widened = format!("{query} {}", titles.join(" "));
    let mut second = rank_once(
        index,
        &widened,
        semantic,
        k,
        filter,
        mode,
        Some(first.answered),
    )?;
    second.pass = "expanded";
    Ok(second)
}

/// One ranking. `judged`: on a second pass, the first pass's `answered` (the widened question
/// must not make the memory look surer than the question did).
fn rank_once(
    index: &Index,
    query: &str,
    semantic: Option<Vec<(i64, f64)>>,
    k: usize,
    filter: &Filter,
    mode: Mode,
    judged: Option<bool>,
) -> Result<Recalled> {
    let mode = if semantic.is_none() {
        Mode::Lexical
    } else {
        mode
    };
    let semantic = semantic.unwrap_or_default();
    let lexical = if mode == Mode::Semantic {
        vec![]
    } else {
        index.lexical(query, filter, DEPTH.max(k))?
    };
    let similarity: HashMap<i64, (usize, f64)> = semantic
        .iter()
        .enumerate()
        .map(|(r, &(id, s))| (id, (r + 1, s)))
        .collect();
    let bm25: HashMap<i64, (usize, f64)> = lexical
        .iter()
        .enumerate()
        .map(|(r, &(id, s))| (id, (r + 1, s)))
        .collect();
    let ranked: Vec<(i64, f64)> = match mode {
        Mode::Lexical => lexical.clone(),
        Mode::Semantic => semantic.clone(),
        Mode::Hybrid => {
            let mut candidates: Vec<i64> =
                semantic.iter().take(DEPTH.max(k)).map(|x| x.0).collect();
            candidates.extend(
                lexical
                    .iter()
                    .map(|x| x.0)
                    .filter(|id| similarity.get(id).is_none_or(|(r, _)| *r > DEPTH.max(k))),
            );
            let mut v = fused(&candidates, &similarity, &bm25, SEMANTIC_WEIGHT);
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        }
    };
    let best_lexical = lexical.first().map_or(0.0, |x| x.1);
    // Both rankings putting the same entry first is evidence too: a short question naming a
    // thing ("why did we leave Express") can be far in embedding space from a long entry that
    // answers it. No question without an answer in the labelled set had that agreement.
    let agreed = match (mode, semantic.first(), lexical.first(), judged) {
        (Mode::Hybrid, Some(s), Some(l), None) if s.0 == l.0 => Some(s.0),
        _ => None,
    };
    let answered = judged.unwrap_or(match mode {
        Mode::Lexical => !lexical.is_empty(),
        _ => semantic.first().is_some_and(|x| x.1 >= ANSWERED) || agreed.is_some(),
    });
    let ranked = reorder(index, ranked, k, filter, mode)?;
    let mut hits = Vec::new();
    for (rowid, score) in ranked.into_iter().take(k) {
        let sim = similarity.get(&rowid).copied();
        let lex = bm25.get(&rowid).copied();
        let tier = match (mode, sim) {
            (Mode::Lexical, _) | (_, None) => {
                Tier::of_lexical(lex.map_or(0.0, |x| x.1), best_lexical)
            }
            (_, Some((_, s))) if agreed == Some(rowid) => {
                Tier::of_similarity(s).max(Tier::Standard)
            }
            (_, Some((_, s))) => Tier::of_similarity(s),
        };
        let explain = Explain {
            lexical_rank: lex.map(|x| x.0),
            bm25: lex.map(|x| x.1),
            semantic_rank: sim.map(|x| x.0),
            similarity: sim.map(|x| x.1),
            fused: score,
            phrasings: vec![],
        };
        hits.push(Hit {
            row: index.row(rowid)?,
            score,
            tier,
            explain: Some(explain),
            stale: false,
            directives: vec![],
            origin: None,
            memory: None,
        });
    }
    Ok(Recalled {
        mode,
        answered,
        pass: "first",
        hits,
        note: None,
        pending: 0,
        why: None,
        terms: None,
    })
}

/// Age and supersession, applied to the head of a ranking: a session's score falls with its
/// age (half of it per half-life: multiplied in the lexical and semantic modes, whose scores
/// are positive; in hybrid, whose z-scores are not, it loses up to two standard deviations),
/// and a superseded entry never ranks above the entry that superseded it. Reads only what
/// ranking needs of the head's rows (`Index::brief`); the caller fetches the text of the
/// `k` it keeps.
fn reorder(
    index: &Index,
    ranked: Vec<(i64, f64)>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Vec<(i64, f64)>> {
    let head = ranked.len().min(k.max(DEPTH));
    let mut rows: Vec<(crate::search::index::Brief, f64)> = Vec::with_capacity(head);
    for (rowid, score) in ranked.into_iter().take(head) {
        rows.push((index.brief(rowid)?, score));
    }
    if let Some(hl) = filter.half_life_days {
        for (row, score) in rows.iter_mut().filter(|(r, _)| r.kind == "session") {
            let Some(age) = crate::time::age_days(&row.timestamp) else {
                continue;
            };
            let weight = 0.5f64.powf(age.max(0) as f64 / hl);
            *score = if mode == Mode::Hybrid {
                *score - 2.0 * (1.0 - weight)
            } else {
                *score * weight
            };
        }
        rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.rowid.cmp(&b.0.rowid)));
    }
    // Move each superseded entry to just after its successor when that ranks below it.
    let mut i = 0;
    let mut moves = 0;
    while i < rows.len() && moves <= rows.len() {
        let after = rows[i]
            .0
            .superseded_by
            .as_ref()
            .and_then(|by| rows.iter().position(|(r, _)| &r.id == by))
            .filter(|&j| j > i);
        match after {
            Some(j) => {
                let r = rows.remove(i);
                rows.insert(j, r);
                moves += 1;
            }
            None => i += 1,
        }
    }
    Ok(rows.into_iter().map(|(r, s)| (r.rowid, s)).collect())
}

/// One question (the cascade of `fuse`) or several phrasings (`rank_phrasings`).
/// Then the verdict is checked against the question's words (`answerable`).
pub(super) fn fuse_all(
    index: &Index,
    texts: &[&str],
    semantic: Option<Vec<Vec<(i64, f64)>>>,
    k: usize,
    filter: &Filter,
    mode: Mode,
) -> Result<Recalled> {
    let mut found = match texts {
        [query] => fuse(
            index,
            query,
            semantic.map(|mut s| s.remove(0)),
            k,
            filter,
            mode,
        )?,
        _ => rank_phrasings(index, texts, semantic, k, filter, mode)?,
    };
    let terms = crate::search::answerable::see(
        index,
        texts,
        found.hits.first().map(|h| h.row.rowid),
        filter,
    )?;
    crate::search::answerable::judge(&mut found, terms, texts.len() > 1);
    Ok(found)
}
