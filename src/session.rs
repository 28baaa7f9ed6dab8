//! A session's lifecycle: `session start` leaves a record (`.zo/memory/.session`, local and
//! gitignored) so `session end` knows what was decided and learned in between; `session end`
//! writes `sessions/session-NNN-YYYY-MM-DD.md` and rewrites STATE.md.

use crate::format::state::Value;
use crate::fsio;
use crate::memory::Memory;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Record {
    pub started: String,
    pub agent: Option<String>,
    pub task: Option<String>,
    /// Entries in DECISION_LOG.md / PRIORS.md when the session started: the logs are
    /// append-only, so what comes after is what this session (or a pull during it) added.
    pub decisions: usize,
    pub priors: usize,
}

/// What the user says at the end of a session.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ending {
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub shipped: Vec<String>,
    #[serde(default)]
    pub next: Vec<String>,
    #[serde(default, alias = "blocker")]
    pub blockers: Vec<String>,
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub subtask: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ended {
    pub file: String,
    pub number: u32,
    pub decisions: Vec<(String, String)>,
    pub priors: Vec<(String, String)>,
}

fn record_path(memory: &Memory) -> std::path::PathBuf {
    memory.layout.memory.join(".session")
}

pub fn current(memory: &Memory) -> Option<Record> {
    let text = std::fs::read_to_string(record_path(memory)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Open a session record. Starting again replaces an open record (the previous session
/// never ended; its decisions are still in the log).
pub fn start(memory: &Memory, agent: Option<String>, task: Option<String>) -> Result<Record> {
    let rec = Record {
        started: crate::time::now(),
        agent,
        task,
        decisions: memory.decisions()?.entries.len(),
        priors: memory.priors()?.entries.len(),
    };
    fsio::write_atomic(&record_path(memory), serde_json::to_string_pretty(&rec)?.as_bytes())?;
    Ok(rec)
}

/// The next free session number.
pub fn next_number(memory: &Memory) -> Result<u32> {
    Ok(memory
        .session_names()?
        .iter()
        .filter_map(|n| crate::format::session::parse_file_name(n).map(|(n, _)| n))
        .max()
        .unwrap_or(0)
        + 1)
}

fn bullets(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.iter().map(|i| format!("- {}", i.replace('\n', " "))).collect::<Vec<_>>().join("\n")
    }
}

pub fn end(memory: &Memory, ending: &Ending) -> Result<Ended> {
    let rec = current(memory);
    let log = memory.decisions()?;
    let priors = memory.priors()?;
    let (from_d, from_p) = match &rec {
        Some(r) => (r.decisions.min(log.entries.len()), r.priors.min(priors.entries.len())),
        // No session was started: count what came after the last session — after the last
        // decision it listed, else from the time it ended.
        None => {
            let last = memory.sessions()?.pop();
            let listed = last.as_ref().and_then(|s| s.section(&["decisions"])).map(|d| {
                d.lines().filter_map(|l| l.trim_start_matches("- ").split_whitespace().next()).filter_map(|id| log.find(id).ok()).max()
            });
            let d = match (listed.flatten(), last.and_then(|s| s.ended)) {
                (Some(i), _) => i + 1,
                (None, Some(t)) => log.entries.iter().position(|e| e.timestamp >= t).unwrap_or(log.entries.len()),
                (None, None) => log.entries.len(),
            };
            (d, priors.entries.len())
        }
    };
    let decisions: Vec<(String, String)> =
        log.entries[from_d..].iter().filter(|e| !e.is_outcome()).map(|e| (e.id.clone(), e.title.clone())).collect();
    let new_priors: Vec<(String, String)> = priors.entries[from_p..].iter().map(|p| (p.id.clone(), p.title.clone())).collect();

    let (state, _) = memory.state();
    let phase = ending.phase.clone().or_else(|| state.scalar("phase")).unwrap_or_else(|| "-".into());
    let now = crate::time::now();
    let machine = crate::environment::detect_hostname().unwrap_or_else(|| "unknown".into());
    let agent = ending.agent.clone().or_else(|| rec.as_ref().and_then(|r| r.agent.clone())).unwrap_or_else(|| "-".into());
    let attempted = ending
        .summary
        .clone()
        .or_else(|| rec.as_ref().and_then(|r| r.task.clone()))
        .unwrap_or_else(|| "not recorded".into());
    let list = |v: &[(String, String)]| {
        if v.is_empty() { "none".to_string() } else { v.iter().map(|(id, t)| format!("- {id} — {t}")).collect::<Vec<_>>().join("\n") }
    };

    let _lock = fsio::Lock::acquire(&memory.layout.memory)?;
    let number = next_number(memory)?;
    let date = &now[..10];
    let name = format!("session-{number:03}-{date}.md");
    let text = format!(
        "# Session {number:03} — {date}\n\n**Started:** {}\n**Ended:** {now}\n**Machine:** {machine}\n**Phase:** {phase}\n**Agent:** {agent}\n\n\
         ## Attempted\n{}\n\n## Shipped\n{}\n\n## Decisions\n{}\n\n## Priors\n{}\n\n## Blockers\n{}\n\n## Next\n{}\n",
        rec.as_ref().map_or("unknown", |r| r.started.as_str()),
        attempted.trim(),
        bullets(&ending.shipped),
        list(&decisions),
        list(&new_priors),
        bullets(&ending.blockers),
        bullets(&ending.next),
    );
    fsio::create_dir(&memory.layout.sessions())?;
    let path = memory.layout.sessions().join(&name);
    fsio::write_atomic(&path, text.as_bytes())?;
    drop(_lock);

    let head = crate::git::Repo::discover(&memory.layout.root).and_then(|r| r.head().head);
    memory.update_state(|s| {
        if let Some(p) = &ending.phase {
            s.set("phase", Value::Scalar(p.clone()));
        }
        s.set("timestamp", Value::Scalar(now.clone()));
        if let Some(h) = &head {
            s.set("git_head", Value::Scalar(h.clone()));
        }
        if let Some(t) = ending.subtask.clone().or_else(|| ending.shipped.last().cloned()) {
            s.set("last_completed_subtask", Value::Scalar(t));
        }
        if !ending.blockers.is_empty() {
            s.set("active_blockers", Value::List(ending.blockers.clone()));
        }
        if !ending.next.is_empty() {
            s.set("next_steps", Value::List(ending.next.clone()));
        }
    })
    .context("the session file was written but STATE.md was not updated")?;
    let _ = std::fs::remove_file(record_path(memory));
    Ok(Ended { file: memory.layout.show(&path), number, decisions, priors: new_priors })
}
