//! `zo verify`: renders `ops::verify`; exit 4 when anything is wrong.

use super::Ctx;
use crate::cli::VerifyArgs;
use crate::error::Error;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: VerifyArgs) -> Result<()> {
    let memory = ctx.memory()?;
    if let Some(range) = &a.range {
        let r = crate::ops::review::review(&memory, range)?;
        if ctx.json {
            ctx.print_json(&serde_json::to_value(&r)?)?;
        } else if r.ok {
            use crate::ops::text::count;
            ctx.print(&format!(
                "ok: {} changed in {}, none flagged\n",
                count(r.entries.len(), "memory entry", "memory entries"),
                count(r.commits, "commit", "commits")
            ))?;
        } else {
            super::say(&r.render());
        }
        return if r.ok {
            Ok(())
        } else {
            Err(Error::VerifyFailed(
                "the range adds or changes memory entries with flags (above)".into(),
            )
            .into())
        };
    }
    let r = crate::ops::verify(&memory, a.staged, a.history)?;
    if !ctx.json {
        for f in &r.forks {
            ctx.note(format!(
                "{}: {} was set on two clones ({} and {}); {} holds (the later). To settle it: zo fact set {} VALUE",
                memory.layout.show(&memory.layout.facts()),
                f.key,
                f.other,
                f.holds,
                f.holds,
                f.key
            ));
        }
        for c in &r.contradictions {
            ctx.note(c.describe());
        }
        if a.history {
            for e in &r.erasures {
                ctx.note(format!(
                    "{}:{}: {} ({}) forgotten {}: {}",
                    e.file, e.line, e.id, e.kind, e.forgotten, e.reason
                ));
            }
        }
    }
    if ctx.json {
        ctx.print_json(&serde_json::to_value(&r)?)?;
    } else if r.ok {
        if !ctx.quiet {
            let what = if a.staged { "staged " } else { "" };
            if r.against == Some("HEAD and MERGE_HEAD") {
                ctx.note("a merge is in progress: the result keeps every entry of both sides");
            }
            let base = match r.against {
                Some("parents") => format!(
                    ", {} each extending its parents",
                    crate::ops::text::count(r.commits_checked, "commit", "commits")
                ),
                Some(b) => format!(", append-only against {b}"),
                None => String::new(),
            };
            use crate::ops::text::count;
            let facts = if r.facts > 0 {
                format!(", {}", count(r.facts, "fact version", "fact versions"))
            } else {
                String::new()
            };
            let erased = if r.erasures.is_empty() {
                String::new()
            } else {
                format!(", {} erased", r.erasures.len())
            };
            let (d, p) = (
                count(r.decisions, "decision", "decisions"),
                count(r.priors, "prior", "priors"),
            );
            ctx.print(&format!("ok: {what}{d}, {p}{facts}{erased}{base}\n"))?;
        }
    } else {
        let text: String = r.problems.iter().map(|p| format!("{p}\n")).collect();
        super::say(&text);
    }
    if r.ok {
        Ok(())
    } else {
        Err(Error::VerifyFailed(format!(
            "verification failed: {}",
            crate::ops::text::count(r.problems.len(), "problem", "problems")
        ))
        .into())
    }
}
