//! `zo eval FILE.jsonl`: Recall@1/3/10, MRR, the no-answer signal, `high` precision and
//! latency for each search mode, on the user's own memory and questions.

use super::Ctx;
use crate::cli::EvalArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: EvalArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let text = super::read_input(&a.file)?;
    let note = |m: &str| ctx.note(m);
    let r = crate::search::eval::eval(&memory, &a.file, &text, &note)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if !r.unknown_ids.is_empty() {
        ctx.note(format!("{}: {} relevant IDs are not in this memory: {}", r.file, r.unknown_ids.len(), r.unknown_ids.join(", ")));
    }
    let mut s = format!(
        "{}: {} questions ({} with an answer, {} without){}\n\n| mode | searched | Recall@1 | Recall@3 | Recall@10 | MRR | no-answer flagged | answered flagged | top `high`: right | median ms | p95 ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        r.file,
        r.questions,
        r.with_answer,
        r.without_answer,
        r.model_load_s.map_or(", no model: lexical only".to_string(), |s| format!(", model loaded in {:.2} s", s))
    );
    for m in &r.modes {
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {}/{} | {}/{} | {}/{} | {:.1} | {:.1} |\n",
            m.mode.name(),
            if m.phrasings { "with phrasings" } else { "question alone" },
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
    ctx.print(&s)
}
