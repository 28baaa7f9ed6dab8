//! `zo decide`: append a decision. Never waits on the model (there is none on this path).

use super::{Ctx, read_input};
use crate::cli::DecideArgs;
use crate::error::Error;
use crate::store::write::{DecisionInput, StringOrList};
use anyhow::{Context, Result};

pub fn run(ctx: &Ctx, a: DecideArgs) -> Result<()> {
    let mut input = match &a.file {
        Some(path) => {
            let text = read_input(path)?;
            let name = if path.as_os_str() == "-" { "<stdin>".to_string() } else { path.display().to_string() };
            super::parse_json_object::<DecisionInput>(
                &name,
                &text,
                "a decision",
                "title, decision, type, rationale, alternatives, outcome, supersedes, tags, session, confidence, paths",
            )?
        }
        // Nothing given, a person at a terminal, an editor named: fill in a template, as `git
        // commit` does for its message.
        None if a.title.is_none() && a.decision.is_none() && super::editor::available().is_some() => {
            let editor = super::editor::available().unwrap_or_default();
            let names = ["Title", "Type", "Decision", "Rationale", "Alternatives", "Tags", "Paths"];
            let f = super::editor::fill(&editor, crate::templates::EDIT_DECISION, &names)?;
            let v = |n: &str| super::editor::value(&f, n);
            let opt = |n: &str| Some(v(n)).filter(|x| !x.is_empty());
            if v("Title").is_empty() || v("Decision").is_empty() {
                return Err(Error::Failed("the Title or Decision was left empty: nothing was written".into()).into());
            }
            DecisionInput {
                r#type: opt("Type"),
                title: v("Title"),
                decision: v("Decision"),
                rationale: opt("Rationale"),
                alternatives: opt("Alternatives"),
                tags: opt("Tags").map(StringOrList::One),
                paths: opt("Paths").map(StringOrList::One),
                ..Default::default()
            }
        }
        None => DecisionInput::default(),
    };
    let (a_title_given, a_decision_given) = (a.title.is_some(), a.decision.is_some());
    // Flags override the file.
    if let Some(v) = a.kind {
        input.r#type = Some(v);
    }
    if let Some(v) = a.title {
        input.title = v;
    }
    if let Some(v) = a.decision {
        input.decision = v;
    }
    for (slot, v) in [
        (&mut input.rationale, a.rationale),
        (&mut input.alternatives, a.alternatives),
        (&mut input.outcome, a.outcome),
        (&mut input.supersedes, a.supersedes),
        (&mut input.session, a.session),
    ] {
        if v.is_some() {
            *slot = v;
        }
    }
    if a.confidence.is_some() {
        input.confidence = a.confidence;
    }
    if let Some(p) = a.paths {
        input.paths = Some(StringOrList::One(p));
    }
    if let Some(t) = a.tags {
        input.tags = Some(StringOrList::One(t));
    }
    // A missing field is a usage error, like any missing required option; a field given
    // empty is the gate's to refuse.
    let missing: Vec<&str> = [("--title", a_title_given || !input.title.is_empty()), ("--decision", a_decision_given || !input.decision.is_empty())]
        .iter()
        .filter(|(_, given)| !given)
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() {
        let from = if a.file.is_some() {
            " (or their keys in the --file JSON)"
        } else {
            " (or --file FILE; at a terminal with $EDITOR set, no flags opens a template)"
        };
        return Err(Error::usage(format!("zo decide needs {}{from}; see `zo decide --help`", missing.join(" and "))).into());
    }
    let memory = ctx.memory()?;
    let new = memory
        .decide(&input, crate::store::gate::Allow { secret: a.allow_secret, directive: a.allow_directive })
        .with_context(|| format!("nothing was written to {}", memory.layout.show(&memory.layout.decision_log())))?;
    let r = crate::ops::Decided::from(new);
    for n in r.notes() {
        ctx.note(n);
    }
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.print(&format!("{}\n", r.id))
}
