//! `zo history ID`: a decision's whole life, from the files and git's history of them —
//! written (when, in which session, by which agent, in which commit), its outcomes and
//! confirmations, what it superseded and what superseded it, and a forget. A forgotten entry
//! shows the tombstone (when, why), never the erased text.

use crate::format::decision::{DecisionLog, referenced_ids};
use crate::git::CommitRef;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// The `--json` shape (SPEC §5, `zo history`).
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: &'static str,
    pub written: Written,
    /// OUTCOME entries that refer to it, oldest first.
    pub outcomes: Vec<Event>,
    /// CONFIRM entries that refer to it, oldest first.
    pub confirmations: Vec<Event>,
    /// The decisions it superseded.
    pub supersedes: Vec<Event>,
    pub superseded_by: Option<Event>,
    pub forgotten: Option<Forget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub timestamp: String,
    /// Written by zo on this machine (`store::provenance`), as opposed to pulled.
    pub here: bool,
    /// The session file that lists it, if one does.
    pub session: Option<String>,
    /// The agent that session names, when it names one.
    pub agent: Option<String>,
    /// The earliest commit whose version of the log holds it (None: not committed, or no git,
    /// or unknown in a shallow clone).
    pub commit: Option<CommitRef>,
    /// In a shallow clone, when the entry is already in the oldest commit here: the first
    /// commit is unknown, and this says where history stops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<String>,
}

/// How a text report names the first commit that holds an entry.
/// The "written" line of a life: when, in which session (ended when), by which agent, the commit.
fn written_line(when: &str, session: Option<&str>, ended: Option<&str>, agent: Option<&str>, commit: String) -> String {
    let mut line = format!("  written     {when}");
    if let Some(sess) = session {
        line.push_str(&format!("  in {sess}"));
        if let Some(e) = ended {
            line.push_str(&format!(" (ended {e})"));
        }
    }
    if let Some(a) = agent {
        line.push_str(&format!("  by {a}"));
    }
    line.push_str(&format!("  {commit}\n"));
    line
}

pub(crate) fn commit_text(commit: Option<&CommitRef>, shallow: Option<&str>) -> String {
    match (commit, shallow) {
        (Some(c), _) => format!("commit {} ({}, {}, {})", c.short, c.time, c.subject, c.by().split_once(" by ").map_or("", |x| x.1)),
        (None, Some(note)) => format!("first commit unknown ({note})"),
        (None, None) => "not in any commit".into(),
    }
}

/// Another entry in this one's life.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub id: String,
    /// When it happened in this life: the other entry's time, except in `supersedes`, where
    /// it is this entry's (the supersession was recorded with it).
    pub timestamp: String,
    pub title: String,
    /// The outcome's text, for an OUTCOME.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Forget {
    pub forgotten: String,
    pub reason: String,
}

/// An event of an entry's life: the log entry `j` (with its outcome when `outcome`).
pub(super) fn event(log: &DecisionLog, j: usize, outcome: bool) -> Event {
    let e = &log.entries[j];
    Event {
        id: e.id.clone(),
        timestamp: e.timestamp.clone(),
        title: e.title.clone(),
        outcome: outcome.then(|| log.field(j, "Outcome").unwrap_or_default().to_string()),
    }
}

/// The life of decision `id` (an ID, a unique prefix, or its heading timestamp).
pub fn history(memory: &Memory, id: &str) -> Result<History> {
    let log = memory.decisions()?;
    let file = memory.layout.show(&memory.layout.decision_log());
    let i = log.find(id).map_err(|e| crate::store::memory::find_error(e, id, &file))?;
    let e = &log.entries[i];
    let resolves_to_me = |v: &str| referenced_ids(v).iter().any(|r| log.find(r).ok() == Some(i));
    let (mut outcomes, mut confirmations, mut supersedes) = (Vec::new(), Vec::new(), Vec::new());
    for (j, o) in log.entries.iter().enumerate() {
        if j == i {
            continue;
        }
        if o.is_outcome() && o.refs.as_deref().is_some_and(resolves_to_me) {
            outcomes.push(event(&log, j, true));
        } else if o.is_confirmation() && o.refs.as_deref().is_some_and(resolves_to_me) {
            confirmations.push(event(&log, j, false));
        }
    }
    if let Some(v) = &e.supersedes {
        for r in referenced_ids(v) {
            if let Some(j) = log.find(&r).ok().filter(|&j| j != i) {
                // Dated when the supersession was recorded (this entry's time), so the life
                // reads in time order; the superseded entry's own time is on its page.
                supersedes.push(Event { timestamp: e.timestamp.clone(), ..event(&log, j, false) });
            }
        }
    }
    let superseded_by = log.superseded_by(i).map(|b| {
        let j = log.find(&b.id).unwrap_or(i);
        event(&log, j, false)
    });
    let forgotten = e.is_forgotten().then(|| Forget {
        forgotten: log.field(i, "Forgotten").unwrap_or_default().to_string(),
        reason: log.field(i, "Reason").unwrap_or_default().to_string(),
    });
    let (session, agent) = session_of(memory, &e.id)?;
    let (commit, shallow) = match crate::git::Repo::discover(&memory.layout.root) {
        // The ID line, not the bare ID: an OUTCOME's Refs names the ID only after it exists.
        Some(repo) if !e.id_derived => {
            repo.shallow_cut(repo.first_commit_holding(Path::new(&memory.layout.rel(&memory.layout.decision_log())), &format!("**ID:** {}", e.id))?)
        }
        _ => (None, None),
    };
    Ok(History {
        id: e.id.clone(),
        kind: e.kind.clone(),
        title: e.title.clone(),
        status: log.status(i),
        written: Written { timestamp: e.timestamp.clone(), here: crate::store::provenance::written_here(&e.id), session, agent, commit, shallow },
        outcomes,
        confirmations,
        supersedes,
        superseded_by,
        forgotten,
    })
}

/// The session whose `## Decisions` list names `id`, and the agent it names (`-` is none).
fn session_of(memory: &Memory, id: &str) -> Result<(Option<String>, Option<String>)> {
    Ok(session_listing(memory, &["decisions"], id)?.map_or((None, None), |l| (Some(l.file), l.agent)))
}

impl History {
    /// The life as people read it, one line per event, oldest first.
    pub fn render(&self) -> String {
        // A tombstone's title is "[forgotten]" already: its status is not said twice.
        let status = if self.status == "forgotten" && self.title == crate::format::fact::FORGOTTEN { String::new() } else { format!("  [{}]", self.status) };
        // An agent reads this too: a title the directive rules flag is marked, as `show` marks it.
        let flagged = if crate::store::screened::flags(&self.title).is_empty() { "" } else { "  [not approved: reads as an instruction to an agent]" };
        let mut s = format!("{}  {}  {}{status}{flagged}\n", self.id, self.kind, self.title);
        let w = &self.written;
        s.push_str(&written_line(&w.timestamp, w.session.as_deref(), None, w.agent.as_deref(), commit_text(w.commit.as_ref(), w.shallow.as_deref())));
        for e in &self.supersedes {
            s.push_str(&format!("  supersedes  {}  {}  {}\n", e.id, e.timestamp, e.title));
        }
        for e in &self.confirmations {
            s.push_str(&format!("  confirmed   {}  {}\n", e.timestamp, e.id));
        }
        for e in &self.outcomes {
            s.push_str(&format!("  outcome     {}  {}  {}\n", e.timestamp, e.id, e.outcome.as_deref().unwrap_or("")));
        }
        if let Some(e) = &self.superseded_by {
            s.push_str(&format!("  superseded  {}  by {}  {}\n", e.timestamp, e.id, e.title));
        }
        if let Some(f) = &self.forgotten {
            s.push_str(&format!("  forgotten   {}  reason: {}\n", f.forgotten, f.reason));
        }
        s
    }
}

/// Any entry's life, as `zo history` prints it: a decision's, a prior's, or a fact key's.
/// Serialized as the report itself (a decision's is `History` unchanged); priors and facts say
/// which they are in `entry`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Life {
    Decision(History),
    Prior(PriorHistory),
    Fact(FactHistory),
}

impl Life {
    pub fn render(&self) -> String {
        match self {
            Life::Decision(h) => h.render(),
            Life::Prior(h) => h.render(),
            Life::Fact(h) => h.render(),
        }
    }
}

/// The life of whatever `id` names: `PR-…` a prior; `F-…` a fact version (its key's whole
/// life); `category:entity` a fact key; anything else a decision (an ID, a unique prefix or
/// its heading timestamp, which also holds colons).
pub fn life(memory: &Memory, id: &str) -> Result<Life> {
    let q = id.trim();
    let upper = q.to_ascii_uppercase();
    if upper.starts_with("PR-") {
        return Ok(Life::Prior(prior_history(memory, q)?));
    }
    if upper.starts_with("F-") || (q.contains(':') && !crate::time::starts_with_date(q) && crate::format::fact::check_key(q).is_ok()) {
        return Ok(Life::Fact(fact_history(memory, q)?));
    }
    Ok(Life::Decision(history(memory, q)?))
}

/// `zo history PR-…`: a prior's life. Priors carry no time of their own: when one was written
/// is told by the session that lists it (its end) and the first commit that holds it.
#[derive(Debug, Clone, Serialize)]
pub struct PriorHistory {
    /// `prior`.
    pub entry: &'static str,
    pub id: String,
    pub title: String,
    pub root_cause: Option<String>,
    /// `active`, `superseded` or `forgotten`.
    pub status: &'static str,
    pub written: PriorWritten,
    /// The priors whose `Superseded by` names this one.
    pub supersedes: Vec<PriorEvent>,
    pub superseded_by: Option<PriorEvent>,
    pub forgotten: Option<Forget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PriorWritten {
    /// The session file whose `## Priors` list names it, if one does.
    pub session: Option<String>,
    /// That session's end (`**Ended:**`).
    pub session_ended: Option<String>,
    pub agent: Option<String>,
    /// The earliest commit reachable from HEAD whose PRIORS.md holds its heading.
    pub commit: Option<CommitRef>,
    /// As `Written::shallow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<String>,
}

/// Another prior in this one's life, with the commit that first held it (a supersession is
/// written with the new prior).
#[derive(Debug, Clone, Serialize)]
pub struct PriorEvent {
    pub id: String,
    pub title: String,
    pub commit: Option<CommitRef>,
}

/// The life of prior `id` (`PR-046`, `PR-46`, or an older layout's `PR-h…`).
pub fn prior_history(memory: &Memory, id: &str) -> Result<PriorHistory> {
    let priors = memory.priors()?;
    let file = memory.layout.show(&memory.layout.priors());
    let Some(i) = priors.find(id) else {
        return Err(anyhow::anyhow!("no prior {id} in {file}"));
    };
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let rel = memory.layout.rel(&memory.layout.priors());
    let commit_of = |p: &crate::format::prior::Prior| -> Result<(Option<CommitRef>, Option<String>)> {
        // The heading keeps the number through a forget; an older prior's only stable text
        // is an `**ID:**` line (its tombstone's).
        let needle = match p.number {
            Some(n) => format!("## {}:", crate::format::prior::format_id(n)),
            None => format!("**ID:** {}", p.id),
        };
        match &repo {
            Some(r) => Ok(r.shallow_cut(r.first_commit_holding(Path::new(&rel), &needle)?)),
            None => Ok((None, None)),
        }
    };
    let ev = |j: usize| -> Result<PriorEvent> {
        let p = &priors.entries[j];
        Ok(PriorEvent { id: p.id.clone(), title: p.title.clone(), commit: commit_of(p)?.0 })
    };
    let p = &priors.entries[i];
    let superseded = priors.superseded();
    let mut supersedes = Vec::new();
    for (j, o) in priors.entries.iter().enumerate() {
        if j != i && o.superseded_by().and_then(|b| priors.find(b)) == Some(i) {
            supersedes.push(ev(j)?);
        }
    }
    let superseded_by = match p.superseded_by().and_then(|b| priors.find(b)).filter(|&j| j != i) {
        Some(j) => Some(ev(j)?),
        None => None,
    };
    let forgotten = p.is_forgotten().then(|| Forget {
        forgotten: p.field("Forgotten").unwrap_or_default().trim().to_string(),
        reason: p.field("Reason").unwrap_or_default().trim().to_string(),
    });
    let status = if forgotten.is_some() {
        "forgotten"
    } else if superseded[i] {
        "superseded"
    } else {
        "active"
    };
    let (session, session_ended, agent) = match session_listing(memory, &["priors"], &p.id)? {
        Some(l) => (Some(l.file), l.ended, l.agent),
        None => (None, None, None),
    };
    Ok(PriorHistory {
        entry: "prior",
        id: p.id.clone(),
        title: p.title.clone(),
        root_cause: if forgotten.is_some() { None } else { p.root_cause().map(str::to_string) },
        status,
        written: {
            let (commit, shallow) = commit_of(p)?;
            PriorWritten { session, session_ended, agent, commit, shallow }
        },
        supersedes,
        superseded_by,
        forgotten,
    })
}

/// A session file that lists an entry: its name, its end, its agent.
struct Listing {
    file: String,
    ended: Option<String>,
    agent: Option<String>,
}

/// The session whose `## <section>` list names `id`.
fn session_listing(memory: &Memory, section: &[&str], id: &str) -> Result<Option<Listing>> {
    for s in memory.sessions()? {
        let listed = s.section(section).is_some_and(|b| b.lines().filter_map(crate::format::session::parse_listed).any(|(l, _, _)| l == id));
        if listed {
            let agent = session_agent(memory, &s.file_name)?;
            return Ok(Some(Listing { file: s.file_name, ended: s.ended, agent }));
        }
    }
    Ok(None)
}

/// The `**Agent:**` a session file's header names (`-` is none).
fn session_agent(memory: &Memory, name: &str) -> Result<Option<String>> {
    let text = memory.session_text(name)?;
    Ok(text
        .as_str()
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .find_map(|l| crate::format::fields::parse_field_line(l).filter(|(k, _)| *k == "Agent").map(|(_, v)| v.trim().to_string()))
        .filter(|a| !a.is_empty() && a != "-"))
}

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
    pub status: &'static str,
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
    v.unwrap_or("").split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// The life of a fact key, or of the key the version `asked` belongs to.
pub fn fact_history(memory: &Memory, asked: &str) -> Result<FactHistory> {
    use crate::store::facts::{Scope, key_state};
    let threshold = memory.threshold()?;
    let files = [(Scope::Project, memory.facts(Scope::Project)?), (Scope::User, memory.user_facts())];
    // The key: as given, or the asked version's, or through the version naming a tombstone.
    let is_id = asked.to_ascii_uppercase().starts_with("F-");
    let names = |f: &crate::format::fact::Fact, id: &str| {
        id_list(f.field("Supersedes")).iter().chain(id_list(f.field("Confirms")).iter()).any(|s| s.eq_ignore_ascii_case(id))
    };
    let key: Option<String> = if !is_id {
        Some(asked.to_string())
    } else {
        let found = files.iter().find_map(|(_, f)| f.find(asked).map(|i| (f, i)));
        let Some((f, i)) = found else {
            let file = memory.layout.show(&memory.layout.facts());
            return Err(anyhow::anyhow!("no fact version {asked} in {file}"));
        };
        let e = &f.entries[i];
        if !e.key.is_empty() {
            Some(e.key.clone())
        } else {
            files.iter().find_map(|(_, f)| f.entries.iter().find(|o| !o.key.is_empty() && names(o, &e.id)).map(|o| o.key.clone()))
        }
    };
    let mut versions = Vec::new();
    let mut holds = None;
    let sessions = session_spans(memory)?;
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let rel = memory.layout.rel(&memory.layout.facts());
    for (scope, f) in &files {
        let order: Vec<usize> = match &key {
            Some(k) => {
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
            None => f.find(asked).into_iter().collect(),
        };
        let ks = key.as_deref().map(|k| key_state(f, k, threshold));
        for i in order {
            let e = &f.entries[i];
            let forgotten = e
                .is_forgotten()
                .then(|| Forget { forgotten: e.field("Forgotten").unwrap_or_default().to_string(), reason: e.field("Reason").unwrap_or_default().to_string() });
            let status = match (&forgotten, &ks) {
                (Some(_), _) | (None, None) => "forgotten",
                (None, Some(ks)) => ks.status(f, i),
            };
            let by = |field: &str| f.entries.iter().find(|o| id_list(o.field(field)).iter().any(|s| s.eq_ignore_ascii_case(&e.id))).map(|o| o.id.clone());
            let set = forgotten.is_none().then(|| e.set().to_string()).filter(|s| !s.is_empty());
            let (session, agent) = set
                .as_deref()
                .and_then(|s| crate::time::parse_instant(s, false))
                .and_then(|t| sessions.iter().find(|s| s.start <= t && t <= s.end))
                .map(|s| (Some(s.file.clone()), s.agent.clone()))
                .unwrap_or((None, None));
            let (commit, shallow) = match (&repo, scope) {
                (Some(r), Scope::Project) if !e.id.is_empty() => r.shallow_cut(r.first_commit_holding(Path::new(&rel), &format!("**ID:** {}", e.id))?),
                _ => (None, None),
            };
            versions.push(FactVersion {
                id: e.id.clone(),
                scope: *scope,
                value: forgotten.is_none().then(|| e.value().to_string()),
                set,
                source: if forgotten.is_none() { e.field("Source").map(str::to_string) } else { None },
                confidence: forgotten.is_none().then(|| e.confidence()),
                status,
                supersedes: id_list(e.field("Supersedes")),
                superseded_by: f
                    .entries
                    .iter()
                    .filter(|o| id_list(o.field("Supersedes")).iter().any(|s| s.eq_ignore_ascii_case(&e.id)))
                    .map(|o| o.id.clone())
                    .collect(),
                confirms: e.field("Confirms").map(str::to_string),
                confirmed_by: by("Confirms"),
                session,
                agent,
                commit,
                shallow,
                forgotten,
            });
        }
    }
    if versions.is_empty() {
        let file = memory.layout.show(&memory.layout.facts());
        return Err(anyhow::anyhow!("no fact {asked} in {file}"));
    }
    Ok(FactHistory { entry: "fact", key, asked: asked.to_string(), holds, versions })
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
                .find_map(|l| crate::format::fields::parse_field_line(l).filter(|(n, _)| *n == k).map(|(_, v)| v.trim().to_string()))
        };
        let at = |k: &str| field(k).and_then(|v| crate::time::parse_instant(&v, false));
        if let (Some(a), Some(b)) = (at("Started"), at("Ended")) {
            let agent = field("Agent").filter(|a| !a.is_empty() && a != "-");
            out.push(SessionSpan { file: name, start: a, end: b, agent });
        }
    }
    Ok(out)
}

impl PriorHistory {
    pub fn render(&self) -> String {
        let mut s = format!("{}  prior  {}  [{}]\n", self.id, self.title, self.status);
        if let Some(rc) = &self.root_cause {
            s.push_str(&format!("  root cause  {rc}\n"));
        }
        let w = &self.written;
        let when = "(priors carry no time of their own)";
        s.push_str(&written_line(
            when,
            w.session.as_deref(),
            w.session_ended.as_deref(),
            w.agent.as_deref(),
            commit_text(w.commit.as_ref(), w.shallow.as_deref()),
        ));
        for e in &self.supersedes {
            s.push_str(&format!("  supersedes  {}  {}\n", e.id, e.title));
        }
        if let Some(e) = &self.superseded_by {
            let when = e.commit.as_ref().map(|c| format!("  (commit {}, {})", c.short, c.time)).unwrap_or_default();
            s.push_str(&format!("  superseded  by {}  {}{when}\n", e.id, e.title));
        }
        if let Some(f) = &self.forgotten {
            s.push_str(&format!("  forgotten   {}  reason: {}\n", f.forgotten, f.reason));
        }
        s
    }
}

impl FactHistory {
    pub fn render(&self) -> String {
        let holds = self.holds.as_deref().map(|h| format!("holds {h}")).unwrap_or_else(|| "holds no value".into());
        let mut s = format!("{}  fact  {}\n", self.key.as_deref().unwrap_or(crate::format::fact::FORGOTTEN), holds);
        for v in &self.versions {
            let user = if v.scope == crate::store::facts::Scope::User { " (user)" } else { "" };
            match &v.forgotten {
                Some(f) => s.push_str(&format!("  {}{user}  [forgotten]  {}  reason: {}\n", v.id, f.forgotten, f.reason)),
                None => {
                    let value = v.value.as_deref().unwrap_or("").replace('\n', "\n      ");
                    s.push_str(&format!("  {}{user}  {}  [{}]  = {value}\n", v.id, v.set.as_deref().unwrap_or("-"), v.status));
                }
            }
            let mut more = Vec::new();
            if let Some(c) = v.confidence.filter(|c| *c < 1.0) {
                more.push(format!("confidence {}", crate::format::fact::format_confidence(c)));
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
                more.push(format!("in {sess}{}", v.agent.as_deref().map(|a| format!(" by {a}")).unwrap_or_default()));
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
