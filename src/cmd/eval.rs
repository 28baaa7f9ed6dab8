//! `zo eval FILE.jsonl`: Recall@1/3/10, MRR, the no-answer signal, `high` precision and
//! latency for each search mode, on the user's own memory and questions.

use super::Ctx;
use crate::cli::EvalArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: EvalArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let mut phrasings = crate::search::eval::Phrasings::new();
    for p in &a.phrasings {
        phrasings.extend(crate::search::eval::read_phrasings(
            p,
            &super::read_input(p)?,
        )?);
    }
    let note = |m: &str| ctx.note(m);
    // Every set is read and checked first: a bad line in the third set is reported before
    // minutes of work on the first.
    let mut sets = Vec::new();
    for f in &a.files {
        sets.push(crate::search::eval::Set::read(
            f,
            &super::read_input(f)?,
            &phrasings,
        )?);
    }
    let asked: std::collections::HashSet<&str> = sets.iter().flat_map(|s| s.asked()).collect();
    let unmatched = phrasings
        .keys()
        .filter(|q| !asked.contains(q.as_str()))
        .count();
    if unmatched > 0 {
        ctx.note(format!("{unmatched} of the {} phrased questions match no question in the sets (joined by exact text)", phrasings.len()));
    }
    let reports: Vec<_> = sets
        .iter()
        .map(|set| crate::search::eval::eval(&memory, set, &note))
        .collect::<Result<_>>()?;
    if ctx.json {
        return match reports.as_slice() {
            [one] => ctx.print_json(&serde_json::to_value(one)?),
            _ => ctx.print_json(&serde_json::json!({ "sets": reports })),
        };
    }
    let tables: Vec<String> = reports.iter().map(|r| table(ctx, r)).collect();
    ctx.print(&tables.join("\n"))
}

/// One set's table (and a note for labels that name no entry here).
fn table(ctx: &Ctx, r: &crate::search::eval::EvalReport) -> String {
    if !r.unknown_ids.is_empty() {
        ctx.note(format!(
            "{}: {} relevant IDs are not in this memory: {}",
            r.file,
            r.unknown_ids.len(),
            r.unknown_ids.join(", ")
        ));
    }
    let mut s = format!(
        "{}: {} questions ({} with an answer, {} without){}\n\n| mode | searched | Recall@1 | Recall@3 | Recall@10 | MRR | no-answer flagged | answered flagged | top `high`: right | median ms | p95 ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        r.file,
        r.questions,
        r.with_answer,
        r.without_answer,
        r.model_load_s
            .map_or(", no model: lexical only".to_string(), |s| format!(
                ", model loaded in {:.2} s",
                s
            ))
    );
    for m in &r.modes {
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {}/{} | {}/{} | {}/{} | {:.1} | {:.1} |\n",
            m.mode.name(),
            if m.phrasings {
                "with phrasings"
            } else {
                "question alone"
            },
            m.recall_at_1,
            m.recall_at_3,
            m.recall_at_10,
            m.mrr,
            m.no_answer_flagged,
            r.without_answer,
            m.answered_flagged,
            r.with_answer,
            m.high_top_right,
            m.high_top,
            m.latency_median_ms,
            m.latency_p95_ms
        ));
    }
    s
}
