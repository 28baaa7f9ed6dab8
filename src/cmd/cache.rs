//! `zo cache status|prune|clear`: the machine's vector cache (`index::vectors`).

use super::Ctx;
use crate::cli::CacheCommand;
use crate::search::index::vectors;
use anyhow::Result;

fn size(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / (1u64 << 10) as f64),
        b => format!("{b} B"),
    }
}

pub fn run(ctx: &Ctx, c: CacheCommand) -> Result<()> {
    match c {
        CacheCommand::Status => {
            let s = vectors::status()?;
            if ctx.json {
                return ctx.print_json(&serde_json::to_value(&s)?);
            }
            let ago = |t: Option<i64>| match t {
                Some(t) => crate::time::rfc3339(t),
                None => "never".into(),
            };
            ctx.print(&format!(
                "cache     {}{}\nvectors   {} ({} of {} bound; {} on disk)\nused      oldest {}, newest {}\n",
                s.path,
                if s.exists { "" } else { " (not made yet)" },
                s.entries,
                size(s.bytes),
                size(s.max_bytes),
                size(s.file_bytes),
                ago(s.oldest_use),
                ago(s.newest_use),
            ))
        }
        CacheCommand::Prune { max } => {
            let p = vectors::prune(match max {
                Some(m) => m,
                None => vectors::max_bytes()?,
            })?;
            report(ctx, &p, "pruned")
        }
        CacheCommand::Clear => report(ctx, &vectors::clear()?, "cleared"),
    }
}

fn report(ctx: &Ctx, p: &vectors::Pruned, what: &str) -> Result<()> {
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(p)?);
    }
    if ctx.quiet {
        return Ok(());
    }
    ctx.print(&format!(
        "{what} {}: {} vectors removed, {} left ({} of {} bound)\n",
        p.path,
        p.removed,
        p.entries,
        size(p.bytes),
        size(p.max_bytes)
    ))
}
