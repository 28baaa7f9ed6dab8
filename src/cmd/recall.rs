//! `zo recall QUERY`: the entries that answer a question, in full, best first.

use super::Ctx;
use crate::cli::RecallArgs;
use crate::error::Error;
use crate::search::index::Filter;
use crate::search::recall::{self, Mode};
use anyhow::Result;

pub fn run(ctx: &Ctx, a: RecallArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let query = a.query.join(" ");
    if query.trim().is_empty() {
        return Err(Error::usage("zo recall needs a query, e.g. zo recall \"why did we pick Postgres\"").into());
    }
    if a.also.len() > recall::MAX_ALSO {
        return Err(Error::usage(format!("--also takes at most {} phrasings besides the question, not {}", recall::MAX_ALSO, a.also.len())).into());
    }
    if a.also.iter().any(|p| p.trim().is_empty()) {
        return Err(Error::usage("--also needs a phrasing, not an empty string").into());
    }
    if a.k == Some(0) {
        return Err(Error::usage("-k must be at least 1 (how many entries to return)").into());
    }
    let k = a.k.or_else(|| memory.layout.config.u64(&["recall", "top_k"]).map(|v| v as usize)).unwrap_or(3).min(recall::MAX_K);
    let kind = match a.kind.as_str() {
        "all" => None,
        k @ ("decision" | "prior" | "session" | "fact") => Some(k.to_string()),
        other => return Err(Error::usage(format!("--kind takes decision, prior, session, fact or all, not {other:?}")).into()),
    };
    let filter = Filter { kind, kind_type: a.kind_type.clone(), all: a.all, provisional: a.provisional, scope: a.scope, ..Default::default() };
    let mode = a.mode.unwrap_or(Mode::Hybrid);
    // Only the default falls back to lexical search; a mode the user asked for is a promise.
    if let Some(why) = a.mode.and_then(|m| recall::mode_unavailable(&memory, m)) {
        anyhow::bail!("--mode {}: {why}", mode.name());
    }
    let note = |m: &str| ctx.note(m);
    let at = a.as_of.as_deref().map(|s| crate::store::asof::AsOf::parse(&memory, s)).transpose()?;
    let found = match &at {
        None => recall::recall_with(&memory, &query, &a.also, k, &filter, mode, &note)?.at_least(a.min_tier),
        Some(at) => {
            // Entries superseded or provisional now may have held then: search them all, more
            // deeply, and let the memory of then decide.
            let wide = Filter { all: true, ..filter.clone() };
            let mut found = recall::recall_with(&memory, &query, &a.also, k.saturating_mul(4), &wide, mode, &note)?.at_least(a.min_tier);
            found.hits = crate::ops::asof::recall_hits(&memory, std::mem::take(&mut found.hits), at, &filter)?;
            found.hits.truncate(k);
            found.answered &= !found.hits.is_empty();
            found
        }
    };
    // Only the default falls back to lexical search; a mode the user asked for is a promise.
    if a.mode.is_some() && found.mode != mode {
        if let Some(why) = &found.note {
            anyhow::bail!("--mode {} needs the index, and {why}; use --mode lexical", mode.name());
        }
        anyhow::bail!(
            "--mode {} needs the embedding model, which is not available here; install it with `zo model install`, or use --mode lexical",
            mode.name()
        );
    }
    let mut report = crate::ops::RecallReport::new(query, found, a.explain).with_also(a.also);
    report.flag_stale(&memory)?;
    report.resolve_sessions(&memory)?;
    if ctx.json {
        report.with_origins(&memory);
        return ctx.print_json(&serde_json::to_value(&report)?);
    }
    if let Some(line) = report.note(a.min_tier) {
        ctx.note(line);
    }
    ctx.print(&report.render())
}
