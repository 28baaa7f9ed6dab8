//! `zo decide`: append a decision (`ops::request::write::Decide`), from flags, a JSON file or a
//! template in `$EDITOR`. Never waits on the model (there is none on this path).

use super::{Ctx, read_input};
use crate::cli::DecideArgs;
use crate::error::Error;
use crate::ops::request::write::Decide;
use crate::store::write::StringOrList;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: DecideArgs) -> Result<()> {
    let mut input = match &a.file {
        Some(path) => {
            let text = read_input(path)?;
            let name = if path.as_os_str() == "-" {
                "<stdin>".to_string()
            } else {
                path.display().to_string()
            };
            super::parse_json_object::<Decide>(
                &name,
                &text,
                "a decision",
                "title, decision, type, rationale, alternatives, outcome, supersedes, tags, session, confidence, paths",
            )?
        }
        // Nothing given, a person at a terminal, an editor named: fill in a template, as `git
        // commit` does for its message.
        None if a.title.is_none()
            && a.decision.is_none()
            && super::editor::available().is_some() =>
        {
            let editor = super::editor::available().unwrap_or_default();
            let names = [
                "Title",
                "Type",
                "Decision",
                "Rationale",
                "Alternatives",
                "Tags",
                "Paths",
            ];
            let f = super::editor::fill(&editor, crate::templates::EDIT_DECISION, &names)?;
            let v = |n: &str| super::editor::value(&f, n);
            let opt = |n: &str| Some(v(n)).filter(|x| !x.is_empty());
            if v("Title").is_empty() || v("Decision").is_empty() {
                return Err(Error::Failed(
                    "the Title or Decision was left empty: nothing was written".into(),
                )
                .into());
            }
            Decide {
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
        None => Decide::default(),
    };
    let from_file = a.file.is_some();
    // Flags override the file.
    if let Some(v) = a.decision_type {
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
    input.allow = crate::store::gate::Allow {
        secret: a.allow_secret,
        directive: a.allow_directive,
    };
    let memory = ctx.memory()?;
    // Where the fields can come from besides flags: the CLI's to say.
    let hint = if from_file {
        "or their keys in the --file JSON"
    } else {
        "or --file FILE; at a terminal with $EDITOR set, no flags opens a template"
    };
    let missing = input.title.is_empty() || input.decision.is_empty();
    let r = ctx.run(&memory, input).map_err(|e| {
        if missing {
            super::usage_hint(e, &format!("{hint}; see `zo decide --help`"))
        } else {
            e
        }
    })?;
    ctx.report_or(&r, |r| format!("{}\n", r.id))
}
