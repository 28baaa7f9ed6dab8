//! Phase snapshots (SPEC §2): `snapshots/<phase>_<YYYY-MM-DDTHH-MM-SS>.md` with YAML front
//! matter, the STATE at that moment, the phase's decisions and a handoff for the next phase.

use crate::store::fsio;
use crate::store::memory::Memory;
use anyhow::{Context, Result, bail};

#[derive(Debug, Clone, serde::Serialize)]
pub struct Written {
    pub file: String,
    pub decisions: Vec<String>,
    pub priors: Vec<String>,
    pub sessions: Vec<String>,
}

fn yaml_list(v: &[String]) -> String {
    format!("[{}]", v.join(", "))
}

/// Front-matter list values of the previous snapshot (what it already covered).
fn previous_lists(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .map(|v| v.trim_matches(|c| c == '[' || c == ']').split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
        .unwrap_or_default()
}

pub fn write(memory: &Memory, phase: &str, outcome: &str, handoff: Option<&str>, allow: impl Into<crate::store::gate::Allow>) -> Result<Written> {
    let allow = allow.into();
    if phase.is_empty() || !phase.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.') {
        return Err(crate::error::Error::usage(format!("--phase must be a name like phase_3 (letters, digits, _ - .), not {phase:?}")).into());
    }
    let layout = &memory.layout;
    let prev = memory
        .snapshot_names()?
        .last()
        .map(|n| crate::store::fsio::read_text(&layout.snapshots().join(n)).ok().flatten().unwrap_or_default().as_str().to_string());
    let (prev_decisions, prev_priors, prev_sessions) = match &prev {
        Some(t) => (previous_lists(t, "decisions"), previous_lists(t, "priors"), previous_lists(t, "sessions")),
        None => Default::default(),
    };
    let prev_at = prev.as_deref().and_then(|t| previous_lists(t, "completed_at").into_iter().next());
    let log = memory.decisions()?;
    let decisions: Vec<usize> = (0..log.entries.len())
        .filter(|&i| {
            let e = &log.entries[i];
            !e.is_annotation() && !prev_decisions.contains(&e.id) && prev_at.as_ref().is_none_or(|t| e.timestamp >= *t)
        })
        .collect();
    let priors: Vec<String> = memory.priors()?.entries.iter().map(|p| p.id.clone()).filter(|id| !prev_priors.contains(id)).collect();
    let sessions: Vec<String> = memory.session_names()?.into_iter().filter(|s| !prev_sessions.contains(s)).collect();
    let (state, _) = memory.state();
    let now = crate::time::now();
    let head = crate::git::Repo::discover(&layout.root).and_then(|r| r.head().head).unwrap_or_else(|| "null".into());
    let ids: Vec<String> = decisions.iter().map(|&i| log.entries[i].id.clone()).collect();
    // Every field the snapshot gets; STATE.md's values and decision titles are copied, so a
    // secret already allowed there stays allowed here.
    let mut fields: Vec<(&str, &str)> = vec![("Phase", phase), ("Outcome", outcome)];
    fields.extend(handoff.map(|h| ("Handoff", h)));
    let mut allowed = crate::store::gate::hashes(&crate::store::gate::check_fields(&fields, allow).context("no snapshot was written")?);
    if outcome.contains('\n') {
        bail!("refused: the outcome must be one line; no snapshot was written");
    }
    let inherited = crate::store::gate::allowed_in(&state.render());
    let state_lines: String = state
        .fields()
        .iter()
        .map(|(k, v)| {
            format!(
                "{k}: {}\n",
                match v {
                    crate::format::state::Value::Scalar(s) => s.clone(),
                    crate::format::state::Value::List(l) => format!("[{}]", l.join(", ")),
                }
            )
        })
        .collect();
    let copied = crate::store::gate::check_fields_with(&[("STATE", state_lines.as_str())], false, &inherited).context("no snapshot was written")?;
    for h in crate::store::gate::hashes(&copied) {
        if !allowed.contains(&h) {
            allowed.push(h);
        }
    }
    let decision_lines: String = if decisions.is_empty() {
        "none\n".into()
    } else {
        decisions
            .iter()
            .map(|&i| {
                let e = &log.entries[i];
                let by = log.superseded_by(i).map(|b| format!(" (superseded by {})", b.id)).unwrap_or_default();
                format!("- {} — {}{by}\n", e.id, crate::store::gate::visible(&e.title))
            })
            .collect()
    };
    let handoff = match handoff {
        Some(h) => h.trim().to_string(),
        None => {
            let next = state.list("next_steps");
            let blockers = state.list("active_blockers");
            let mut h = String::from("Next steps:\n");
            h.push_str(&if next.is_empty() { "- none recorded\n".to_string() } else { next.iter().map(|n| format!("- {n}\n")).collect() });
            h.push_str("\nBlockers:\n");
            h.push_str(&if blockers.is_empty() { "- none\n".to_string() } else { blockers.iter().map(|b| format!("- {b}\n")).collect() });
            h.trim_end().to_string()
        }
    };
    let text = format!(
        "---\nschema_version: 1\nphase: {phase}\ngate_outcome: {outcome}\ncompleted_at: {now}\ngit_head: {head}\ndecisions: {}\npriors: {}\nsessions: {}\n---\n\n\
         # Snapshot: {phase} → {outcome}\n\n{}## STATE\n{state_lines}\n## Decisions\n{decision_lines}\n## Handoff\n{handoff}\n",
        yaml_list(&ids),
        yaml_list(&priors),
        yaml_list(&sessions),
        if allowed.is_empty() {
            String::new()
        } else {
            format!("{}\n", allowed.iter().map(|h| format!("{} {h}\n", crate::store::gate::ALLOWED_FIELD)).collect::<String>())
        },
    );
    let name = format!("{phase}_{}.md", now.trim_end_matches('Z').replace(':', "-"));
    fsio::create_dir(&layout.snapshots())?;
    let path = layout.snapshots().join(&name);
    let _lock = fsio::Lock::acquire(&layout.memory)?;
    if path.exists() {
        bail!("{} already exists (one snapshot per phase per second)", layout.show(&path));
    }
    fsio::write_atomic(&path, text.as_bytes())?;
    drop(_lock);
    // STATE.md says where the work stands: this phase closed, at this commit.
    let mut updates = vec![];
    if head != "null" {
        updates.push(("git_head".to_string(), crate::format::state::Value::Scalar(head.clone())));
    }
    let position = format!("Phase {phase} closed {} ({outcome}): {}", &now[..10], layout.show(&path));
    memory.set_state_at(updates, Some(&position), &[], allow).context("the snapshot was written but STATE.md was not updated")?;
    Ok(Written { file: layout.show(&path), decisions: ids, priors, sessions })
}
