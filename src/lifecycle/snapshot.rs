//! Phase snapshots (SPEC §2): `snapshots/<phase>_<YYYY-MM-DDTHH-MM-SS>.md` with YAML front
//! matter, the STATE at that moment, the phase's decisions and a handoff for the next phase.

use crate::format::snapshot::Snapshot;
use crate::store::fsio;
use crate::store::memory::Memory;
use anyhow::{Context, Result, bail};

#[derive(Debug, Clone, serde::Serialize)]
pub struct Written {
    pub file: String,
    pub decisions: Vec<String>,
    pub priors: Vec<String>,
    pub sessions: Vec<String>,
    /// STATE.md's fields the snapshot copied withheld: the directive rules flag them and no
    /// person here approved them (as the bundle withholds them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
}

/// STATE.md as a snapshot copies it: a value (or a list's item) the directive rules flag and no
/// person here approved is withheld, as the bundle withholds it — the snapshot is written, it
/// does not refuse the person whose STATE.md a pull filled. Returns the keys withheld.
fn screened(state: &crate::format::state::State) -> (crate::format::state::State, Vec<String>) {
    use crate::format::state::Value;
    let withheld = |v: &str| {
        let flags = crate::store::approvals::withheld(v);
        (!flags.is_empty()).then(|| {
            let rules: Vec<&str> = flags.iter().map(|f| f.rule).collect();
            format!(
                "(withheld: it reads as an instruction to an agent, rule {})",
                rules.join(", ")
            )
        })
    };
    let mut out = state.clone();
    let mut keys = Vec::new();
    for (k, v) in state.fields() {
        let new = match v {
            Value::Scalar(s) => withheld(s).map(Value::Scalar),
            Value::List(items) => {
                let screened: Vec<String> = items
                    .iter()
                    .map(|i| withheld(i).unwrap_or_else(|| i.clone()))
                    .collect();
                (screened != *items).then_some(Value::List(screened))
            }
        };
        if let Some(new) = new {
            keys.push(k.to_string());
            out.set(k, new);
        }
    }
    (out, keys)
}

/// What earlier snapshots covered: the last one's decisions, priors and sessions, and when.
struct Covered {
    decisions: Vec<String>,
    priors: Vec<String>,
    sessions: Vec<String>,
    at: Option<String>,
}

fn covered(memory: &Memory) -> Result<Covered> {
    let layout = &memory.layout;
    let prev = memory.snapshot_names()?.last().map(|n| {
        fsio::read_text(&layout.snapshots().join(n))
            .ok()
            .flatten()
            .unwrap_or_default()
            .as_str()
            .to_string()
    });
    let prev = prev
        .as_deref()
        .map(Snapshot::parse_front)
        .unwrap_or_default();
    let at = Some(prev.completed_at).filter(|t| !t.is_empty());
    Ok(Covered {
        decisions: prev.decisions,
        priors: prev.priors,
        sessions: prev.sessions,
        at,
    })
}

/// The handoff a snapshot gives the next phase: the one given, else STATE's next steps and
/// blockers.
fn handoff_from(state: &crate::format::state::State, given: Option<&str>) -> String {
    if let Some(h) = given {
        return h.trim().to_string();
    }
    let items = |v: Vec<String>, none: &str| {
        if v.is_empty() {
            format!("- {none}\n")
        } else {
            v.iter().map(|n| format!("- {n}\n")).collect()
        }
    };
    let h = format!(
        "Next steps:\n{}\nBlockers:\n{}",
        items(state.list("next_steps"), "none recorded"),
        items(state.list("active_blockers"), "none")
    );
    h.trim_end().to_string()
}

/// The gate's check of what the snapshot records (its own fields, and STATE's values, whose
/// secrets allowed there stay allowed here): the lines recording what was let through.
fn gate(
    state: &crate::format::state::State,
    snap: &Snapshot,
    handoff: Option<&str>,
    allow: crate::store::gate::Allow,
) -> Result<Vec<String>> {
    use crate::store::gate;
    let mut fields: Vec<(&str, &str)> = vec![("Phase", &snap.phase), ("Outcome", &snap.outcome)];
    fields.extend(handoff.map(|h| ("Handoff", h)));
    let mut allowed =
        gate::hashes(&gate::check_fields(&fields, allow).context("no snapshot was written")?);
    if snap.outcome.contains('\n') {
        bail!("refused: the outcome must be one line; no snapshot was written");
    }
    let inherited = gate::allowed_in(&state.render());
    let copied =
        gate::check_fields_with(&[("STATE", snap.state_lines().as_str())], false, &inherited)
            .context("no snapshot was written")?;
    for h in gate::hashes(&copied) {
        if !allowed.contains(&h) {
            allowed.push(h);
        }
    }
    Ok(allowed
        .iter()
        .map(|h| format!("{} {h}", gate::ALLOWED_FIELD))
        .collect())
}

/// Close a phase: write its snapshot (what happened since the last one) and say so in STATE.md.
pub fn write(
    memory: &Memory,
    phase: &str,
    outcome: &str,
    handoff: Option<&str>,
    allow: impl Into<crate::store::gate::Allow>,
) -> Result<Written> {
    let allow = allow.into();
    // A name: it starts the file's name (a leading dot hid the file from every reader) and
    // must fit in one.
    if phase.is_empty()
        || phase.starts_with('.')
        || phase.len() > 64
        || !phase
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err(crate::error::Error::usage(format!(
            "--phase must be a name like phase_3 (letters, digits, _ - ., not starting with a dot, at most 64), not {phase:?}"
        ))
        .into());
    }
    let layout = &memory.layout;
    let prev = covered(memory)?;
    let log = memory.decisions()?;
    let decisions: Vec<usize> = (0..log.entries.len())
        .filter(|&i| {
            let e = &log.entries[i];
            !e.is_annotation()
                && !prev.decisions.contains(&e.id)
                && prev.at.as_ref().is_none_or(|t| e.timestamp >= *t)
        })
        .collect();
    let (state, _) = memory.state();
    let (state, withheld) = screened(&state);
    let mut snap = Snapshot {
        phase: phase.into(),
        outcome: outcome.into(),
        completed_at: crate::time::now(),
        git_head: crate::git::Repo::discover(&layout.root)
            .and_then(|r| r.head().head)
            .unwrap_or_else(|| "null".into()),
        decisions: decisions
            .iter()
            .map(|&i| log.entries[i].id.clone())
            .collect(),
        priors: memory
            .priors()?
            .entries
            .iter()
            .map(|p| p.id.clone())
            .filter(|id| !prev.priors.contains(id))
            .collect(),
        sessions: memory
            .session_names()?
            .into_iter()
            .filter(|s| !prev.sessions.contains(s))
            .collect(),
        allowed: vec![],
        state: state
            .fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        decision_lines: decisions
            .iter()
            .map(|&i| {
                (
                    log.entries[i].id.clone(),
                    crate::store::gate::visible(&log.entries[i].title).into_owned(),
                    log.superseded_by(i).map(|b| b.id.clone()),
                )
            })
            .collect(),
        handoff: handoff_from(&state, handoff),
    };
    snap.allowed = gate(&state, &snap, handoff, allow)?;
    // STATE.md is written after the snapshot: one it cannot write is refused first.
    fsio::open_regular(&layout.state())?;
    fsio::create_dir(&layout.snapshots())?;
    let path = layout.snapshots().join(snap.file_name());
    let _lock = fsio::Lock::acquire(&layout.memory)?;
    if path.exists() {
        bail!(
            "{} already exists (one snapshot per phase per second)",
            layout.show(&path)
        );
    }
    fsio::write_atomic(&path, snap.render().as_bytes())?;
    drop(_lock);
    // Written here: provenance knows it by its name (`store::provenance::record_name`).
    crate::store::provenance::note_written_here(
        layout,
        &crate::store::provenance::record_name(&snap.file_name()),
    );
    // STATE.md says where the work stands: this phase closed, at this commit.
    let mut updates = vec![];
    if snap.git_head != "null" {
        updates.push((
            "git_head".to_string(),
            crate::format::state::Value::Scalar(snap.git_head.clone()),
        ));
    }
    let position = format!(
        "Phase {phase} closed {} ({outcome}): {}",
        &snap.completed_at[..10],
        layout.show(&path)
    );
    memory
        .set_state_at(updates, Some(&position), &[], allow)
        .context("the snapshot was written but STATE.md was not updated")?;
    Ok(Written {
        file: layout.show(&path),
        decisions: snap.decisions,
        priors: snap.priors,
        sessions: snap.sessions,
        withheld,
    })
}
