//! `zo promote ID --to NAME`: copy a project's lesson (a prior) or decision into a linked
//! memory, through that memory's own lock and gate and the confidentiality gate
//! (`store::gate::confidential`), with provenance that names no project. The copy is then the
//! linked memory's own entry (its ID, its history); the project records the promotion with a
//! PROMOTE entry that refers to its entry and names the copy.

use crate::store::gate::confidential::Confidential;
use crate::store::memory::Memory;
use crate::store::write::{DecisionInput, PriorInput};
use anyhow::{Result, anyhow};
use serde::Serialize;

/// What a promotion will write: the entry's fields, for a person to reword (`--edit`) first.
#[derive(Debug, Clone)]
pub enum Draft {
    Prior(PriorInput),
    Decision(DecisionInput),
}

/// The entry a promotion starts from.
#[derive(Debug, Clone)]
pub struct Source {
    pub id: String,
    pub title: String,
    /// A one-way hash of the entry's text: the copy can be traced back by whoever holds the
    /// source, and names nothing to anyone else.
    pub hash: String,
    pub draft: Draft,
}

/// The draft of entry `id` of `memory`: a prior's title, root cause, failure, rules and
/// solution; a decision's type, title, decision, rationale and alternatives. What ties it to the
/// project (its source, paths, commit, session, supersessions) is left behind.
pub fn source(memory: &Memory, id: &str) -> Result<Source> {
    let id = id.trim();
    if id.is_empty() {
        return Err(crate::error::Error::usage(
            "promote needs the ID of a prior (PR-…) or a decision (D-…)",
        )
        .into());
    }
    if id.to_ascii_uppercase().starts_with("PR-") {
        let file = memory.priors()?;
        let i = file.find(id).ok_or_else(|| {
            anyhow!(
                "no prior {id} in {}",
                memory.layout.show(&memory.layout.priors())
            )
        })?;
        let p = &file.entries[i];
        if p.is_forgotten() {
            anyhow::bail!("{} was forgotten; there is nothing to promote", p.id);
        }
        if let Some(by) = p.superseded_by() {
            anyhow::bail!(
                "{} is superseded by {by}; promote the lesson that holds",
                p.id
            );
        }
        let input = PriorInput {
            title: p.title.clone(),
            root_cause: p.root_cause().unwrap_or("novel_case").to_string(),
            failure: p.field("Failure").unwrap_or("").to_string(),
            rules: p.rules(),
            source: String::new(),
            solution: p.solution().unwrap_or_default(),
        };
        return Ok(Source {
            id: p.id.clone(),
            title: p.title.clone(),
            hash: hash(&p.content(&file)),
            draft: Draft::Prior(input),
        });
    }
    if crate::store::links::qualified(&memory.layout, id)?.is_some() {
        return Err(
            crate::error::Error::usage(format!("{id} is a linked memory's entry: promote takes this project's own (a prior PR-… or a decision D-…)")).into()
        );
    }
    if id.to_ascii_uppercase().starts_with("F-") || crate::format::fact::check_key(id).is_ok() {
        return Err(crate::error::Error::usage(format!(
            "{id} is a fact: facts are a project's own values; set the team's in its memory (`zo --repo PATH fact set KEY VALUE`)"
        ))
        .into());
    }
    let log = memory.decisions()?;
    let file = memory.layout.show(&memory.layout.decision_log());
    let i = log
        .find(id)
        .map_err(|e| crate::store::memory::find_error(e, id, &file))?;
    let e = &log.entries[i];
    if e.is_forgotten() {
        anyhow::bail!("{} was forgotten; there is nothing to promote", e.id);
    }
    if e.is_annotation() {
        anyhow::bail!(
            "{} records something about another entry ({}), it is not a decision; promote the decision it refers to",
            e.id,
            e.kind.to_uppercase()
        );
    }
    if log.status(i) == crate::format::Status::Superseded {
        anyhow::bail!("{} is superseded; promote the decision that holds", e.id);
    }
    let field = |name: &str| {
        log.field(i, name)
            .map(str::to_string)
            .filter(|v| !v.trim().is_empty())
    };
    let input = DecisionInput {
        r#type: Some(e.kind.clone()),
        title: e.title.clone(),
        decision: field("Decision").unwrap_or_default(),
        rationale: field("Rationale"),
        alternatives: field("Alternatives considered").or_else(|| field("Alternatives")),
        ..Default::default()
    };
    Ok(Source {
        id: e.id.clone(),
        title: e.title.clone(),
        hash: hash(&e.content(&log)),
        draft: Draft::Decision(input),
    })
}

fn hash(text: &str) -> String {
    format!("blake3:{}", &blake3::hash(text.as_bytes()).to_hex()[..16])
}

impl Draft {
    /// The fields the confidentiality gate reads, as the entry will hold them.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        match self {
            Draft::Prior(p) => {
                let mut v = vec![
                    ("Title", p.title.clone()),
                    ("Failure", p.failure.clone()),
                    ("Verified Solution", p.solution.clone()),
                ];
                v.extend(p.rules.iter().map(|r| ("Rules", r.clone())));
                v
            }
            Draft::Decision(d) => vec![
                ("Type", d.r#type.clone().unwrap_or_default()),
                ("Title", d.title.clone()),
                ("Decision", d.decision.clone()),
                ("Rationale", d.rationale.clone().unwrap_or_default()),
                ("Alternatives", d.alternatives.clone().unwrap_or_default()),
            ],
        }
    }
}

/// What `zo promote` did.
#[derive(Debug, Clone, Serialize)]
pub struct Promoted {
    /// The project's entry.
    pub from: String,
    /// The linked memory's name and the copy's ID in it.
    pub memory: String,
    pub id: String,
    /// `memory:id`, as recall and `show` name it.
    pub promoted: String,
    /// The project's PROMOTE entry.
    pub recorded: String,
}

impl Promoted {
    pub fn text(&self) -> String {
        format!(
            "{} promoted to {} (recorded in the project as {})\n",
            self.from, self.promoted, self.recorded
        )
    }
}

/// Promote `source` of `project` into the linked memory `name` as `draft` says: the
/// confidentiality gate first (nothing is written when it refuses), then the linked memory's
/// own write (its lock, its gate, its next ID), then the project's record.
pub fn promote(project: &Memory, name: &str, source: &Source, draft: Draft) -> Result<Promoted> {
    let links = crate::store::links::load(&project.layout);
    let (name, linked) = crate::ops::request::open_link(&links, name)?;
    let gate = Confidential::of(&project.layout)?;
    let fields = draft.fields();
    gate.check(
        &fields
            .iter()
            .map(|(n, v)| (*n, v.as_str()))
            .collect::<Vec<_>>(),
    )?;
    let provenance = format!(
        "promoted {} from a project's entry ({})",
        crate::time::today(),
        source.hash
    );
    // The project's lock is held from before the copy is written to after it is recorded: a
    // project that cannot record now (its lock held) refuses before the linked memory changes.
    let (promoted, recorded) =
        project.promotion(&source.id, &source.title, &source.hash, || {
            let id = write(&linked, draft, &provenance)
                .map_err(|e| e.context(format!("in the linked memory {name}")))?;
            Ok(format!("{name}:{id}"))
        })?;
    let id = promoted
        .split_once(':')
        .map(|(_, id)| id.to_string())
        .unwrap_or_default();
    Ok(Promoted {
        from: source.id.clone(),
        memory: name,
        id,
        promoted,
        recorded: recorded.id,
    })
}

/// The copy, written by the linked memory's own writer; its ID there.
fn write(linked: &Memory, draft: Draft, provenance: &str) -> Result<String> {
    Ok(match draft {
        Draft::Prior(mut p) => {
            p.source = provenance.to_string();
            linked
                .add_prior(&p, crate::store::gate::Allow::default())?
                .0
        }
        Draft::Decision(mut d) => {
            d.rationale = Some(match d.rationale.take() {
                Some(r) => format!("{r}\n\n({provenance})"),
                None => format!("({provenance})"),
            });
            linked.decide(&d, crate::store::gate::Allow::default())?.id
        }
    })
}

/// Where a promoted prior's copy is now: the prior of linked memory `to`'s memory
/// (`team:PR-004` as recorded) whose provenance holds `hash`. A merge in the linked memory
/// renumbers priors that two clones added at once, so the recorded number can name another
/// lesson since; a decision's random ID is never renumbered, and its log is not read. None for
/// a decision, when the link does not open, or when no prior holds the hash.
pub fn copy_now(project: &Memory, to: &str, hash: &str) -> Option<String> {
    let (name, id) = to.split_once(':')?;
    if !id.to_ascii_uppercase().starts_with("PR-") {
        return None;
    }
    let links = crate::store::links::load(&project.layout);
    let linked = crate::store::links::open(links.find(name)?).ok()?;
    let priors = linked.priors().ok()?;
    priors
        .entries
        .iter()
        .find(|p| p.field("Source").is_some_and(|s| s.contains(hash)))
        .map(|p| format!("{name}:{}", p.id))
}
