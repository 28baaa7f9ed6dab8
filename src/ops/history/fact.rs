//! A fact key's life: every version of it, in both scopes, oldest first, with the forgotten
//! versions the later ones name.

use super::{Forget, commit_text};
use crate::format::fact::{Fact, FactsFile};
use crate::git::{CommitRef, Repo};
use crate::store::facts::{KeyState, Scope, key_state};
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// `zo history KEY` or `zo history F-…`: every version of a fact's key, oldest first, in both
/// scopes. A forgotten version keeps only its ID, so it belongs to the key through the later
/// version that names it (`Supersedes`, `Confirms`); asked for by its ID alone, it is shown by
/// itself, with no key.
#[derive(Debug, Clone, Serialize)]
pub struct FactHistory {
    /// `fact`.
    pub entry: &'static str,
    /// None: a forgotten version nothing links to a key (the key went with its text).
    pub key: Option<String>,
    /// What was asked for (the key, or a version's ID).
    pub asked: String,
    /// The version that holds now, if one does.
    pub holds: Option<String>,
    pub versions: Vec<FactVersion>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FactVersion {
    pub id: String,
    pub scope: crate::store::facts::Scope,
    /// None for a forgotten version.
    pub value: Option<String>,
    /// Its `Set` time (None for a forgotten version: the tombstone keeps no time but its own).
    pub set: Option<String>,
    pub source: Option<String>,
    pub confidence: Option<f64>,
    /// Now: `active`, `provisional`, `superseded` or `forgotten`.
    pub status: crate::format::Status,
    /// The versions it names in `Supersedes`.
    pub supersedes: Vec<String>,
    /// The versions that name it in `Supersedes`.
    pub superseded_by: Vec<String>,
    /// The provisional version it confirms (`Confirms`).
    pub confirms: Option<String>,
    /// The version that confirms it, when it was provisional and someone confirmed it.
    pub confirmed_by: Option<String>,
    /// The session that was open when it was set (its start at or before `Set`, its end at or
    /// after), and that session's agent.
    pub session: Option<String>,
    pub agent: Option<String>,
    /// The earliest commit reachable from HEAD whose FACTS.md holds its `**ID:**` line
    /// (project facts only: the user's file is in no repository).
    pub commit: Option<CommitRef>,
    /// As `Written::shallow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<String>,
    pub forgotten: Option<Forget>,
}

fn id_list(v: Option<&str>) -> Vec<String> {
    v.unwrap_or("")
        .split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The life of a fact key, or of the key the version `asked` belongs to.
pub fn fact_history(memory: &Memory, asked: &str) -> Result<FactHistory> {
    let threshold = memory.threshold()?;
    let files = [
        (Scope::Project, memory.facts(Scope::Project)?),
        (Scope::User, memory.user_facts()),
    ];
    let key = key_of(memory, &files, asked)?;
    let mut versions = Vec::new();
    let mut holds = None;
    let sessions = session_spans(memory)?;
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let rel = memory.layout.rel(&memory.layout.facts());
    for (scope, f) in &files {
        let order: Vec<usize> = match &key {
            Some(k) => key_order(f, k, threshold, &mut holds),
            None => f.find(asked).into_iter().collect(),
        };
        let ks = key.as_deref().map(|k| key_state(f, k, threshold));
        for i in order {
            versions.push(version(
                f,
                i,
                *scope,
                ks.as_ref(),
                &sessions,
                repo.as_ref(),
                &rel,
            )?);
        }
    }
    if versions.is_empty() {
        let file = memory.layout.show(&memory.layout.facts());
        return Err(anyhow::anyhow!("no fact {asked} in {file}"));
    }
    Ok(FactHistory {
        entry: "fact",
        key,
        asked: asked.to_string(),
        holds,
        versions,
    })
}

/// Whether version `f` names `id` in its `Supersedes` or `Confirms`.
fn names(f: &Fact, id: &str) -> bool {
    id_list(f.field("Supersedes"))
        .iter()
        .chain(id_list(f.field("Confirms")).iter())
        .any(|s| s.eq_ignore_ascii_case(id))
}

/// The key: as given, or the asked version's, or through the version naming a tombstone (a
/// forgotten version keeps no key). None when nothing names the tombstone.
fn key_of(memory: &Memory, files: &[(Scope, FactsFile); 2], asked: &str) -> Result<Option<String>> {
    let is_id = asked.to_ascii_uppercase().starts_with("F-");
    if !is_id {
        return Ok(Some(asked.to_string()));
    }
    let found = files
        .iter()
        .find_map(|(_, f)| f.find(asked).map(|i| (f, i)));
    let Some((f, i)) = found else {
        let file = memory.layout.show(&memory.layout.facts());
        return Err(anyhow::anyhow!("no fact version {asked} in {file}"));
    };
    let e = &f.entries[i];
    if !e.key.is_empty() {
        Ok(Some(e.key.clone()))
    } else {
        Ok(files.iter().find_map(|(_, f)| {
            f.entries
                .iter()
                .find(|o| !o.key.is_empty() && names(o, &e.id))
                .map(|o| o.key.clone())
        }))
    }
}

/// Key `k`'s versions in one file, in the order the life shows them; the version that holds,
/// if `holds` has none yet (the project's file is read first).
fn key_order(f: &FactsFile, k: &str, threshold: f64, holds: &mut Option<String>) -> Vec<usize> {
    let ks = key_state(f, k, threshold);
    if let Some(a) = ks.active {
        holds.get_or_insert_with(|| f.entries[a].id.clone());
    }
    // Each tombstone a version names, just before the first version naming it.
    let mut out: Vec<usize> = Vec::new();
    for &v in &ks.versions {
        for (t, o) in f.entries.iter().enumerate() {
            if o.is_forgotten() && !out.contains(&t) && names(&f.entries[v], &o.id) {
                out.push(t);
            }
        }
        out.push(v);
    }
    out
}

/// Version `i` of `f` as the life shows it: its status under the key (`ks`; none for a lone
/// tombstone), the versions around it, the session open when it was set, its first commit.
fn version(
    f: &FactsFile,
    i: usize,
    scope: Scope,
    ks: Option<&KeyState>,
    sessions: &[SessionSpan],
    repo: Option<&Repo>,
    rel: &str,
) -> Result<FactVersion> {
    let e = &f.entries[i];
    let forgotten = e.is_forgotten().then(|| Forget {
        forgotten: e.field("Forgotten").unwrap_or_default().to_string(),
        reason: e.field("Reason").unwrap_or_default().to_string(),
    });
    let status = match (&forgotten, ks) {
        (Some(_), _) | (None, None) => crate::format::Status::Forgotten,
        (None, Some(ks)) => ks.status(f, i),
    };
    let by = |field: &str| {
        f.entries
            .iter()
            .find(|o| {
                id_list(o.field(field))
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&e.id))
            })
            .map(|o| o.id.clone())
    };
    let set = forgotten
        .is_none()
        .then(|| e.set().to_string())
        .filter(|s| !s.is_empty());
    let (session, agent) = set
        .as_deref()
        .and_then(|s| crate::time::parse_instant(s, false))
        .and_then(|t| sessions.iter().find(|s| s.start <= t && t <= s.end))
        .map(|s| (Some(s.file.clone()), s.agent.clone()))
        .unwrap_or((None, None));
    let (commit, shallow) = match (repo, scope) {
        (Some(r), Scope::Project) if !e.id.is_empty() => {
            r.shallow_cut(r.first_commit_holding(Path::new(rel), &format!("**ID:** {}", e.id))?)
        }
        _ => (None, None),
    };
    Ok(FactVersion {
        id: e.id.clone(),
        scope,
        value: forgotten.is_none().then(|| e.value().to_string()),
        set,
        source: if forgotten.is_none() {
            e.field("Source").map(str::to_string)
        } else {
            None
        },
        confidence: forgotten.is_none().then(|| e.confidence()),
        status,
        supersedes: id_list(e.field("Supersedes")),
        superseded_by: f
            .entries
            .iter()
            .filter(|o| {
                id_list(o.field("Supersedes"))
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&e.id))
            })
            .map(|o| o.id.clone())
            .collect(),
        confirms: e.field("Confirms").map(str::to_string),
        confirmed_by: by("Confirms"),
        session,
        agent,
        commit,
        shallow,
        forgotten,
    })
}

/// A session's span, from its `**Started:**` and `**Ended:**` fields (unix seconds).
struct SessionSpan {
    file: String,
    start: i64,
    end: i64,
    agent: Option<String>,
}

/// Every session's span (a session without both times readable is left out).
fn session_spans(memory: &Memory) -> Result<Vec<SessionSpan>> {
    let mut out = Vec::new();
    for name in memory.session_names()? {
        let text = memory.session_text(&name)?;
        let field = |k: &str| {
            text.as_str()
                .lines()
                .take_while(|l| !l.starts_with("## "))
                .find_map(|l| {
                    crate::format::fields::parse_field_line(l)
                        .filter(|(n, _)| *n == k)
                        .map(|(_, v)| v.trim().to_string())
                })
        };
        let at = |k: &str| field(k).and_then(|v| crate::time::parse_instant(&v, false));
        if let (Some(a), Some(b)) = (at("Started"), at("Ended")) {
            let agent = field("Agent").filter(|a| !a.is_empty() && a != "-");
            out.push(SessionSpan {
                file: name,
                start: a,
                end: b,
                agent,
            });
        }
    }
    Ok(out)
}

impl FactHistory {
    pub fn render(&self) -> String {
        let holds = self
            .holds
            .as_deref()
            .map(|h| format!("holds {h}"))
            .unwrap_or_else(|| "holds no value".into());
        let mut s = format!(
            "{}  fact  {}\n",
            self.key
                .as_deref()
                .unwrap_or(crate::format::fact::FORGOTTEN),
            holds
        );
        for v in &self.versions {
            let user = if v.scope == crate::store::facts::Scope::User {
                " (user)"
            } else {
                ""
            };
            match &v.forgotten {
                Some(f) => s.push_str(&format!(
                    "  {}{user}  [forgotten]  {}  reason: {}\n",
                    v.id, f.forgotten, f.reason
                )),
                None => {
                    let value = v.value.as_deref().unwrap_or("").replace('\n', "\n      ");
                    s.push_str(&format!(
                        "  {}{user}  {}  [{}]  = {value}\n",
                        v.id,
                        v.set.as_deref().unwrap_or("-"),
                        v.status
                    ));
                }
            }
            let mut more = Vec::new();
            if let Some(c) = v.confidence.filter(|c| *c < 1.0) {
                more.push(format!(
                    "confidence {}",
                    crate::format::fact::format_confidence(c)
                ));
            }
            if let Some(src) = &v.source {
                more.push(format!("source {src}"));
            }
            if !v.supersedes.is_empty() {
                more.push(format!("supersedes {}", v.supersedes.join(", ")));
            }
            if !v.superseded_by.is_empty() {
                more.push(format!("superseded by {}", v.superseded_by.join(", ")));
            }
            if let Some(c) = &v.confirms {
                more.push(format!("confirms {c}"));
            }
            if let Some(c) = &v.confirmed_by {
                more.push(format!("confirmed by {c}"));
            }
            if let Some(sess) = &v.session {
                more.push(format!(
                    "in {sess}{}",
                    v.agent
                        .as_deref()
                        .map(|a| format!(" by {a}"))
                        .unwrap_or_default()
                ));
            }
            if v.scope == crate::store::facts::Scope::Project {
                more.push(commit_text(v.commit.as_ref(), v.shallow.as_deref()));
            }
            if !more.is_empty() {
                s.push_str(&format!("      {}\n", more.join(" · ")));
            }
        }
        s
    }
}
