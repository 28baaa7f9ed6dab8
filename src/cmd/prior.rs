//! `zo prior add|list|show|supersede`: the post-mortem protocol.

use super::Ctx;
use crate::cli::PriorCommand;
use crate::ops::request::write::PriorAdd;
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, c: PriorCommand) -> Result<()> {
    let memory = ctx.memory()?;
    let file = memory.layout.show(&memory.layout.priors());
    match c {
        PriorCommand::Add(a) => {
            let allow = crate::store::gate::Allow {
                secret: a.allow_secret,
                directive: a.allow_directive,
            };
            let nothing = a.title.is_none()
                && a.root_cause.is_none()
                && a.failure.is_none()
                && a.rules.is_empty();
            let request = match super::editor::available().filter(|_| nothing) {
                // As `git commit`: a template in the person's editor.
                Some(editor) => {
                    let names = [
                        "Title",
                        "Root cause",
                        "Failure",
                        "Rule",
                        "Source",
                        "Solution",
                    ];
                    let f = super::editor::fill(&editor, crate::templates::EDIT_PRIOR, &names)?;
                    let v = |n: &str| super::editor::value(&f, n);
                    let rules = super::editor::values(&f, "Rule");
                    if v("Title").is_empty() || v("Failure").is_empty() || rules.is_empty() {
                        return Err(crate::error::Error::Failed(
                            "the Title, Failure or Rule was left empty: nothing was written".into(),
                        )
                        .into());
                    }
                    let some = |s: String| Some(s).filter(|s| !s.is_empty());
                    PriorAdd {
                        title: v("Title"),
                        root_cause: v("Root cause"),
                        failure: v("Failure"),
                        rules,
                        source: some(v("Source")),
                        solution: some(v("Solution")),
                        allow,
                    }
                }
                None => PriorAdd {
                    title: a.title.unwrap_or_default(),
                    root_cause: a.root_cause.unwrap_or_default(),
                    failure: a.failure.unwrap_or_default(),
                    rules: a.rules,
                    source: a.source,
                    solution: a.solution,
                    allow,
                },
            };
            let r = ctx.run(&memory, request)?;
            ctx.report_or(&r, |r| format!("{}\n", r.id))
        }
        PriorCommand::List => {
            let pf = memory.priors()?;
            if ctx.json {
                let list: Vec<_> = pf.entries.iter().map(crate::ops::prior_summary).collect();
                return ctx.print_json(&json!({ "priors": list }));
            }
            let mut s = String::new();
            for p in &pf.entries {
                s.push_str(&format!(
                    "{}  {:<15}  {}",
                    p.id,
                    p.root_cause().unwrap_or("-"),
                    p.title
                ));
                if let Some(by) = p.superseded_by() {
                    s.push_str(&format!("  [superseded by {by}]"));
                }
                s.push('\n');
            }
            if s.is_empty() {
                ctx.note("no priors yet; add one with `zo prior add`");
            }
            ctx.print(&s)
        }
        PriorCommand::Show { id } => {
            let id = if id.to_ascii_uppercase().starts_with("PR-") {
                id
            } else {
                format!("PR-{id}")
            };
            super::show::print(ctx, crate::ops::show(&memory, &id)?)
        }
        PriorCommand::Supersede { old, new } => {
            let (o, n) = memory
                .supersede_prior(&old, &new)
                .with_context(|| format!("{file} was not changed"))?;
            if ctx.json {
                return ctx.print_json(&json!({ "id": o, "superseded_by": n }));
            }
            if !ctx.quiet {
                ctx.print(&format!("{o} superseded by {n}\n"))?;
            }
            Ok(())
        }
    }
}
