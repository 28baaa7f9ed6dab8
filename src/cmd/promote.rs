//! `zo promote ID --to NAME [--edit]`: a lesson or decision copied into a linked memory
//! (`ops::promote`), reworded first in the person's editor with `--edit`.

use super::Ctx;
use crate::cli::PromoteArgs;
use crate::ops::promote::{self, Draft};
use anyhow::Result;

pub fn run(ctx: &Ctx, a: PromoteArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let source = promote::source(&memory, &a.id)?;
    let draft = if a.edit {
        edit(&source.draft)?
    } else {
        source.draft.clone()
    };
    let r = promote::promote(&memory, &a.to, &source, draft)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.note(r.text().trim_end());
    ctx.print(&format!("{}\n", r.promoted))
}

/// The draft in $VISUAL / $EDITOR, read back; an empty title cancels.
fn edit(draft: &Draft) -> Result<Draft> {
    use crate::error::Error;
    let Some(editor) = super::editor::available() else {
        return Err(Error::usage(
            "--edit needs a person at a terminal with $VISUAL or $EDITOR set",
        )
        .into());
    };
    let mut text = crate::templates::EDIT_PROMOTE.to_string();
    let names: &[&str] = match draft {
        Draft::Prior(p) => {
            text.push_str(&format!(
                "Title: {}\nRoot cause: {}\nFailure: {}\n",
                p.title, p.root_cause, p.failure
            ));
            for r in &p.rules {
                text.push_str(&format!("Rule: {r}\n"));
            }
            text.push_str(&format!("Solution: {}\n", p.solution));
            &["Title", "Root cause", "Failure", "Rule", "Solution"]
        }
        Draft::Decision(d) => {
            text.push_str(&format!(
                "Title: {}\nType: {}\nDecision: {}\nRationale: {}\nAlternatives: {}\n",
                d.title,
                d.r#type.as_deref().unwrap_or("DECISION"),
                d.decision,
                d.rationale.as_deref().unwrap_or(""),
                d.alternatives.as_deref().unwrap_or("")
            ));
            &["Title", "Type", "Decision", "Rationale", "Alternatives"]
        }
    };
    let edited = super::editor::edit(&editor, &text)?;
    // Saved as it was: the draft itself (its fields may hold lines the template's form would
    // read as fields or comments).
    if edited == text {
        return Ok(draft.clone());
    }
    let f = super::editor::parse(&edited, names);
    let v = |n: &str| super::editor::value(&f, n);
    if v("Title").is_empty() {
        return Err(Error::Failed("the Title was left empty: nothing was promoted".into()).into());
    }
    let some = |s: String| Some(s).filter(|s| !s.is_empty());
    Ok(match draft {
        Draft::Prior(p) => Draft::Prior(crate::store::write::PriorInput {
            title: v("Title"),
            root_cause: v("Root cause"),
            failure: v("Failure"),
            rules: super::editor::values(&f, "Rule"),
            source: p.source.clone(),
            solution: v("Solution"),
        }),
        Draft::Decision(d) => Draft::Decision(crate::store::write::DecisionInput {
            r#type: some(v("Type")),
            title: v("Title"),
            decision: v("Decision"),
            rationale: some(v("Rationale")),
            alternatives: some(v("Alternatives")),
            ..d.clone()
        }),
    })
}
