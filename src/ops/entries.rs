//! Entries written and read: the reports of decide, outcome, prior add, log, show (any kind),
//! recall, context and session end.

use crate::error::Error;
use crate::format::decision::{DecisionLog, NewDecision};
use crate::format::session::SessionFile;
use crate::lifecycle::context::Bundle;
use crate::store::memory::Memory;
use anyhow::{Result, anyhow, bail};
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    pub id: String,
    pub timestamp: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `active`, or `provisional` (below the promotion threshold, or a PROPOSAL / IDEA):
    /// out of the bundle and default recall until `zo confirm`.
    pub status: crate::format::Status,
    /// Active decisions with nearly the same title.
    pub similar: Vec<crate::format::Similar>,
}

impl From<NewDecision> for Decided {
    fn from(d: NewDecision) -> Self {
        Decided {
            id: d.id,
            timestamp: d.timestamp,
            title: d.title,
            kind: d.kind,
            status: d.status,
            similar: d.similar,
        }
    }
}

impl Decided {
    /// What a person should hear besides the ID: provisional, or near another decision.
    pub fn notes(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.status == crate::format::Status::Provisional {
            v.push(format!(
                "{} is provisional: out of the bundle and default recall until `zo confirm {}`",
                self.id, self.id
            ));
        }
        for s in &self.similar {
            // Said after the write: the decision stands either way, and a replacement is
            // recorded by a decision of its own (entries are never edited).
            v.push(format!(
                "{} is written, and looks like {} {}: if it replaces that one, record that with a decision written with --supersedes {}",
                self.id,
                s.id,
                crate::store::gate::frame::name(&s.title),
                s.id
            ));
        }
        v
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OutcomeRecorded {
    pub id: String,
    pub timestamp: String,
    pub refs: String,
}

impl From<NewDecision> for OutcomeRecorded {
    fn from(d: NewDecision) -> Self {
        OutcomeRecorded {
            id: d.id,
            timestamp: d.timestamp,
            refs: d.refs,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PriorAdded {
    pub id: String,
    /// Active priors with nearly the same title.
    pub similar: Vec<crate::format::Similar>,
}

impl PriorAdded {
    /// A line per near-duplicate, with the command that records a replacement.
    pub fn notes(&self) -> Vec<String> {
        self.similar
            .iter()
            .map(|s| {
                format!(
                    "{} is written, and looks like {} {}: if it replaces that one, `zo prior supersede {} {}` records it",
                    self.id,
                    s.id,
                    crate::store::gate::frame::name(&s.title),
                    s.id,
                    self.id
                )
            })
            .collect()
    }
}

/// The stable summary of one decision (SPEC "Machine output").
#[derive(Debug, Clone, Serialize)]
pub struct DecisionSummary {
    pub id: String,
    pub timestamp: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: crate::format::Status,
    pub superseded_by: Option<String>,
    pub outcome: Option<String>,
    pub line: usize,
}

pub fn summary(log: &DecisionLog, i: usize) -> DecisionSummary {
    let e = &log.entries[i];
    DecisionSummary {
        id: e.id.clone(),
        timestamp: e.timestamp.clone(),
        kind: e.kind.clone(),
        title: e.title.clone(),
        status: log.status(i),
        superseded_by: log.superseded_by(i).map(|s| s.id.clone()),
        outcome: log.latest_outcome(i).map(str::to_string),
        line: e.span.line,
    }
}

/// What `zo log` lists.
#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    /// Only decisions of this type (any case).
    pub decision_type: Option<String>,
    /// `YYYY-MM-DD`.
    pub since: Option<String>,
    pub limit: Option<usize>,
    /// Include OUTCOME entries.
    pub all: bool,
    /// Only decisions with this tag (any case).
    pub tag: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LogReport {
    pub decisions: Vec<DecisionSummary>,
    /// The moment the log was read at (`--as-of`), absent for now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<crate::store::asof::AsOf>,
    /// The log's indices of the listed decisions, for renderers that need more of each.
    #[serde(skip)]
    pub picked: Vec<usize>,
    /// The lines of entries not listed because they have no title (a heading whose fields
    /// were cut off or lost): no row of blanks, but said (`zo verify` says what is wrong).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untitled: Vec<usize>,
}

impl LogQuery {
    /// A usage error for an impossible date, before anything is read.
    pub fn check(&self) -> Result<()> {
        match &self.since {
            Some(since) if !crate::time::is_date(since) => Err(Error::usage(format!(
                "--since takes a date as YYYY-MM-DD, not {since:?}"
            ))
            .into()),
            _ if self.limit == Some(0) => {
                Err(Error::usage("the limit (-n) must be at least 1").into())
            }
            _ if self
                .tag
                .as_deref()
                .is_some_and(|t| t.trim().is_empty() || t.contains(',')) =>
            {
                Err(Error::usage("--tag takes one tag, not an empty or comma-separated one").into())
            }
            _ => Ok(()),
        }
    }
}

/// The entries whose IDs start with `prefix`, with their titles, for a shell completing `zo
/// show <TAB>` in the memory it is in: decisions (newest first), priors, fact versions, sessions
/// and snapshots, at most `most`. IDs with a control character are left out (a shell prints
/// what it is given); titles are one line. Empty outside a memory. Read as the hook path reads,
/// never the model.
pub fn id_candidates(prefix: &str, most: usize) -> Vec<(String, String)> {
    let Ok(memory) = Memory::open(None) else {
        return vec![];
    };
    let mut out: Vec<(String, String)> = Vec::new();
    if let Ok((log, _)) = memory.decisions_quick() {
        out.extend(
            log.entries
                .iter()
                .rev()
                .filter(|e| !e.is_annotation() && crate::format::is_entry_id(&e.id))
                .map(|e| (e.id.clone(), e.title.clone())),
        );
    }
    if let Ok(p) = memory.priors() {
        out.extend(
            p.entries
                .iter()
                .filter(|p| crate::format::is_entry_id(&p.id))
                .map(|p| (p.id.clone(), p.title.clone())),
        );
    }
    if let Ok(f) = memory.facts(crate::store::facts::Scope::Project) {
        out.extend(
            f.entries
                .iter()
                .filter(|e| crate::format::is_entry_id(&e.id))
                .map(|e| (e.id.clone(), e.key.clone())),
        );
    }
    out.extend(
        memory
            .session_names()
            .unwrap_or_default()
            .into_iter()
            .map(|n| (n, "session".to_string())),
    );
    out.extend(
        memory
            .snapshot_names()
            .unwrap_or_default()
            .into_iter()
            .map(|n| (n, "snapshot".to_string())),
    );
    out.into_iter()
        // An ID is printed by the shell as it is: only an entry ID zo would write (a
        // hand-written `**ID:** ignore-previous-…` is the repository's text), and a session's
        // or snapshot's file name the directive rules do not flag.
        .filter(|(id, _)| {
            id.starts_with(prefix)
                && crate::store::gate::first_control(id).is_none()
                && crate::store::screened::flags(id).is_empty()
        })
        .take(most)
        .map(|(id, title)| {
            // The shell prints these itself (clap's completion engine, not the output gate):
            // a title the directive rules flag is not shown.
            (
                id,
                crate::store::screened::title_or(&title, "(title withheld)")
                    .chars()
                    .take(60)
                    .collect(),
            )
        })
        .collect()
}

/// Decisions matching `q`, newest first.
pub fn log(log: &DecisionLog, q: &LogQuery) -> Result<LogReport> {
    q.check()?;
    let want_outcomes = q.all || q.decision_type.is_some();
    let mut picked: Vec<usize> = (0..log.entries.len())
        .rev()
        .filter(|&i| {
            let e = &log.entries[i];
            (want_outcomes || !e.is_annotation())
                && q.decision_type
                    .as_deref()
                    .is_none_or(|k| e.kind.eq_ignore_ascii_case(k))
                && q.since.as_deref().is_none_or(|d| e.timestamp.as_str() >= d)
                && q.tag.as_deref().is_none_or(|t| {
                    log.field(i, "Tags").is_some_and(|tags| {
                        tags.split(',')
                            .any(|x| x.trim().eq_ignore_ascii_case(t.trim()))
                    })
                })
        })
        .collect();
    let untitled: Vec<usize> = picked
        .iter()
        .filter(|&&i| log.entries[i].title.trim().is_empty())
        .map(|&i| log.entries[i].span.line)
        .collect();
    picked.retain(|&i| !log.entries[i].title.trim().is_empty());
    if let Some(n) = q.limit {
        picked.truncate(n);
    }
    Ok(LogReport {
        decisions: picked.iter().map(|&i| summary(log, i)).collect(),
        as_of: None,
        picked,
        untitled,
    })
}

/// snake_case key for a field name: "Alternatives considered" → "alternatives_considered".
fn key(name: &str) -> String {
    let mut k = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            k.extend(c.to_lowercase());
        } else if !k.ends_with('_') {
            k.push('_');
        }
    }
    k.trim_matches('_').to_string()
}

/// Any entry by ID: a decision (`D-…`, a unique prefix or its heading timestamp) with every
/// field, its latest outcome and what superseded it; a prior (`PR-…`); a session (its file
/// name, a unique prefix, or `last`). The JSON `zo show` prints; `text` is the entry itself.
pub fn show(memory: &Memory, id: &str) -> Result<Value> {
    show_as_of(memory, id, None)
}

/// The directive rules' flags of a shown entry that no person here approved (SPEC §3a), as
/// `directives` in its report: `show` gives the text, marked as recall marks it.
fn marked(mut v: Value) -> Value {
    if let Some(text) = v.get("text").and_then(Value::as_str) {
        let flags = crate::store::approvals::withheld(text);
        if !flags.is_empty() {
            v["directives"] = serde_json::to_value(flags).unwrap_or_default();
        }
    }
    v
}

/// An entry's provenance (SPEC §3a) added to what `show` reports of it now: written here, or
/// which commit and author brought it. It walks git's history, so `show --json` and MCP add
/// it, not the text `show` on the hook path.
pub fn with_origin(memory: &Memory, mut v: Value) -> Result<Value> {
    // A session or snapshot is named by its file name.
    let id = v
        .get("id")
        .or_else(|| v.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(id) = id {
        let text = v
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let origin = crate::store::provenance::origins(&memory.layout, &[(&id, &text)])
            .pop()
            .unwrap_or_default();
        v["origin"] = serde_json::to_value(origin)?;
    }
    Ok(v)
}

/// `show` as the memory stood at a past moment (`--as-of`): the decision as then written,
/// with the outcome and supersession recorded by then. Decisions only: priors, facts and
/// sessions have their own as-of reads (or none yet).
pub fn show_as_of(
    memory: &Memory,
    id: &str,
    at: Option<&crate::store::asof::AsOf>,
) -> Result<Value> {
    let upper = id.to_ascii_uppercase();
    if at.is_some()
        && (upper.starts_with("PR-")
            || upper.starts_with("F-")
            || id.starts_with("session")
            || id == "last")
    {
        return Err(Error::usage(format!(
            "--as-of shows decisions; {id} is not one (`zo fact get KEY --as-of` reads a fact then)"
        ))
        .into());
    }
    if id.to_ascii_uppercase().starts_with("PR-") {
        return show_prior(memory, id).map(marked);
    }
    if id.to_ascii_uppercase().starts_with("F-") {
        return show_fact(memory, id).map(marked);
    }
    if id.starts_with("session") || id == "last" {
        return show_session(memory, id);
    }
    let log = memory.decisions_as_of(at)?;
    let file = memory.layout.show(&memory.layout.decision_log());
    let i = log.find(id).map_err(|e| match at {
        Some(at) => anyhow!(
            "{:#} as of {}",
            crate::store::memory::find_error(e, id, &file),
            at.label()
        ),
        None => crate::store::memory::find_error(e, id, &file),
    })?;
    let e = &log.entries[i];
    let mut v = serde_json::to_value(summary(&log, i))?;
    let obj = v.as_object_mut().expect("a summary is an object");
    for f in &log.body(i).fields {
        obj.entry(key(&f.name))
            .or_insert_with(|| Value::String(f.value.clone()));
    }
    obj.insert("kind".into(), "decision".into());
    obj.insert("file".into(), file.into());
    obj.insert("text".into(), e.content(&log).into());
    if let Some(j) = log.latest_outcome_entry(i) {
        let o = &log.entries[j];
        obj.insert("outcome_entry".into(), o.content(&log).into());
        obj.insert("outcome_entry_id".into(), o.id.clone().into());
        obj.insert("outcome_entry_timestamp".into(), o.timestamp.clone().into());
    }
    if let Some(by) = log.superseded_by(i) {
        obj.insert("superseded_by_title".into(), by.title.clone().into());
        obj.insert(
            "superseded_by_timestamp".into(),
            by.timestamp.clone().into(),
        );
    }
    if let Some(at) = at {
        obj.insert("as_of".into(), serde_json::to_value(at)?);
    }
    Ok(marked(v))
}

/// A prior as `prior list --json` shows it (`show` adds its file and text).
/// One fact version, project or user, with its status and its text.
fn show_fact(memory: &Memory, id: &str) -> Result<Value> {
    let threshold = memory.threshold()?;
    for scope in [
        crate::store::facts::Scope::Project,
        crate::store::facts::Scope::User,
    ] {
        let Ok(file) = memory.facts(scope) else {
            continue;
        };
        let Some(i) = file.find(id) else { continue };
        let status = crate::store::facts::status(&file, i, threshold);
        let mut v = serde_json::to_value(memory.fact_view(&file, i, scope, status)?)?;
        v["kind"] = "fact".into();
        v["text"] = file.entries[i].content(&file).into();
        return Ok(v);
    }
    Err(anyhow!(
        "no fact version {id} in {} or the user's facts",
        memory.layout.show(&memory.layout.facts())
    ))
}

pub fn prior_summary(p: &crate::format::prior::Prior) -> Value {
    json!({
        "id": p.id,
        "title": p.title,
        "root_cause": p.root_cause(),
        "superseded_by": p.superseded_by(),
        "rules": p.rules(),
        "line": p.span.line,
    })
}

fn show_prior(memory: &Memory, id: &str) -> Result<Value> {
    let pf = memory.priors()?;
    let file = memory.layout.show(&memory.layout.priors());
    let i = pf
        .find(id)
        .ok_or_else(|| anyhow!("no prior {id} in {file}"))?;
    let p = &pf.entries[i];
    let mut v = prior_summary(p);
    v["kind"] = "prior".into();
    v["file"] = file.into();
    v["text"] = p.content(&pf).into();
    Ok(v)
}

pub fn show_session(memory: &Memory, name: &str) -> Result<Value> {
    let names = memory.session_names()?;
    let dir = memory.layout.show(&memory.layout.sessions());
    let found: Vec<&String> = if name == "last" {
        names.last().into_iter().collect()
    } else {
        let exact: Vec<&String> = names
            .iter()
            .filter(|n| *n == name || n.trim_end_matches(".md") == name)
            .collect();
        if exact.is_empty() {
            names.iter().filter(|n| n.starts_with(name)).collect()
        } else {
            exact
        }
    };
    let n = match found.as_slice() {
        [one] => *one,
        [] => bail!("no session {name} in {dir} (`zo session list` shows them)"),
        many => bail!(
            "{name} matches several sessions: {}",
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let path = memory.layout.sessions().join(n);
    let text = memory.session_text(n)?;
    // Priors under the numbers they have now (a merge may have renumbered one since); an
    // unreadable PRIORS.md leaves the session as written, it never hides it.
    let priors = memory.priors().unwrap_or_default();
    let text = crate::lifecycle::session::resolve_priors(text.as_str(), &priors);
    let s = SessionFile::parse(n, &text);
    Ok(json!({
        "kind": "session",
        "name": n,
        "file": memory.layout.show(&path),
        "number": s.number,
        "date": s.date,
        "title": s.title,
        "ended": s.ended,
        "sections": s.sections.iter().map(|(h, b)| json!({"heading": h, "text": b})).collect::<Vec<_>>(),
        "text": text,
    }))
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionListed {
    pub name: String,
    pub number: Option<u32>,
    pub date: Option<String>,
    pub title: String,
    pub ended: Option<String>,
}

/// Every session, oldest first.
pub fn sessions(memory: &Memory) -> Result<Vec<SessionListed>> {
    Ok(memory
        .sessions()?
        .into_iter()
        .map(|s| SessionListed {
            name: s.file_name,
            number: s.number,
            date: s.date,
            title: s.title,
            ended: s.ended,
        })
        .collect())
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RecallReport {
    // Echoes of the request, and the cascade's pass, are in the JSON but not in the
    // advertised shape (`outputSchema`): `tools/list` is paid on every session.
    #[schemars(skip)]
    pub mode: &'static str,
    #[schemars(skip)]
    pub query: String,
    /// The other phrasings searched with the question (`--also`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// False when nothing reached the `standard` tier: the memory does not seem to hold an
    /// answer (the hits, if any, are the nearest it has).
    pub answered: bool,
    /// Which pass of the cascade answered: key, first, expanded or phrasings.
    #[schemars(skip)]
    pub pass: &'static str,
    #[schemars(with = "Vec<Value>")]
    pub results: Vec<crate::search::recall::Hit>,
    /// Why the search was lexical from the files: the index could not be used or written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Entries not yet embedded, ranked lexically only (the MCP server catches up meanwhile).
    #[serde(skip_serializing_if = "crate::search::recall::is_zero")]
    pub pending_embeddings: usize,
    /// Whether the reader asked why (`--explain`): `render` then says which pass answered.
    #[serde(skip)]
    pub explained: bool,
    /// The weakest tier asked for (`min_tier`): what the note says when it left no hit.
    #[serde(skip)]
    pub min_tier: crate::search::recall::Tier,
    /// Not answered, but entries not yet confirmed would answer (`--provisional` finds them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<Value>")]
    pub provisional_matches: Vec<ProvisionalMatch>,
    /// Why the memory does or does not seem to answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The question's words some entry holds (`found`) and those none does (`missing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub terms: Option<crate::search::answerable::Terms>,
}

/// A provisional entry that answers a question the confirmed memory does not.
#[derive(Debug, Clone, Serialize)]
pub struct ProvisionalMatch {
    pub id: String,
    pub title: String,
    pub tier: crate::search::recall::Tier,
}

impl RecallReport {
    /// The report of a query; `explain` keeps each hit's ranks and scores.
    pub fn new(query: String, r: crate::search::recall::Recalled, explain: bool) -> RecallReport {
        let mut results = r.hits;
        if !explain {
            results.iter_mut().for_each(|h| h.explain = None);
        }
        // Marked, not hidden: the agent asked, and must know what it must not act on.
        for h in &mut results {
            h.directives = crate::store::approvals::withheld(&h.row.text);
        }
        crate::store::screened::save();
        RecallReport {
            mode: r.mode.name(),
            query,
            also: vec![],
            answered: r.answered,
            pass: r.pass,
            results,
            note: r.note,
            pending_embeddings: r.pending,
            explained: explain,
            min_tier: crate::search::recall::Tier::Low,
            provisional_matches: Vec::new(),
            why: r.why,
            terms: r.terms,
        }
    }

    /// The report of a query searched with other phrasings too.
    pub fn with_also(mut self, also: Vec<String>) -> RecallReport {
        self.also = also;
        self
    }

    /// Each hit's origin (SPEC §3a): written here, or the commit and author that brought it;
    /// one walk of each file's history for all hits. For `--json` and MCP results.
    pub fn with_origins(&mut self, memory: &Memory) {
        // A decision's hit carries its latest outcome after it (`index::rows`): the entry's own
        // text is what came before that entry's heading.
        let own = |t: &'_ str| -> usize { t.find("\n\n## Decision:").unwrap_or(t.len()) };
        let entries: Vec<(&str, &str)> = self
            .results
            .iter()
            .map(|h| (h.row.id.as_str(), &h.row.text[..own(&h.row.text)]))
            .collect();
        let origins = crate::store::provenance::origins(&memory.layout, &entries);
        for (h, o) in self.results.iter_mut().zip(origins) {
            h.origin = Some(o);
        }
    }

    /// Name the priors a session hit lists by the numbers they have now, as `zo show` does
    /// (the index keeps each session file's text as written).
    pub fn resolve_sessions(&mut self, memory: &Memory) -> Result<()> {
        if !self.results.iter().any(|h| h.row.kind == "session") {
            return Ok(());
        }
        let priors = memory.priors().unwrap_or_default();
        for h in self.results.iter_mut().filter(|h| h.row.kind == "session") {
            if let std::borrow::Cow::Owned(t) =
                crate::lifecycle::session::resolve_priors(&h.row.text, &priors)
            {
                h.row.text = t;
            }
        }
        Ok(())
    }

    /// Name the linked memory every hit (and provisional match) is from.
    pub fn name_memory(&mut self, name: &str) {
        for h in &mut self.results {
            h.memory = Some(name.to_string());
        }
        for p in &mut self.provisional_matches {
            p.id = format!("{name}:{}", p.id);
        }
    }

    /// Join the answers of the linked memories to the project's: one list of `k`, merged by
    /// tier, then by each hit's rank in its own memory (each memory's order kept), the project
    /// first when they tie (the seed's scope priority). Answered when any memory answers; the words "no entry mentions"
    /// are those no memory holds.
    pub fn merge_linked(&mut self, linked: Vec<RecallReport>, k: usize) {
        let project_answered = self.answered;
        if !project_answered {
            if let Some(l) = linked.iter().find(|l| l.answered) {
                self.why = l.why.clone();
            }
        }
        self.answered |= linked.iter().any(|l| l.answered);
        if self.answered {
            self.provisional_matches.clear();
        }
        if let Some(t) = self.terms.as_mut() {
            for l in linked.iter().filter_map(|l| l.terms.as_ref()) {
                for w in &l.found {
                    if !t.found.contains(w) {
                        t.found.push(w.clone());
                    }
                }
                t.missing.retain(|w| l.missing.contains(w));
                // Held by no memory: a name (or its group) another memory holds is held.
                t.names_missing.retain(|w| l.names_missing.contains(w));
            }
        }
        // Each memory's hits with their rank in it: scores of different indexes do not compare
        // (BM25 grows with a memory's size), ranks and tiers do.
        let mut all: Vec<(usize, usize, crate::search::recall::Hit)> = Vec::new();
        let mut judged: Vec<(Option<String>, Option<f64>, Option<f64>)> = vec![(None, None, None)];
        let mut lists = vec![std::mem::take(&mut self.results)];
        for l in linked {
            judged.push((
                l.why,
                l.terms.as_ref().map(|t| t.first_hit_holds),
                l.terms.as_ref().map(|t| t.first_hit_holds_all),
            ));
            lists.push(l.results);
        }
        for (m, hits) in lists.into_iter().enumerate() {
            all.extend(hits.into_iter().enumerate().map(|(rank, h)| (rank, m, h)));
        }
        all.sort_by(|a, b| {
            b.2.tier
                .cmp(&a.2.tier)
                .then(a.0.cmp(&b.0))
                .then(a.1.cmp(&b.1))
        });
        // What is said of the first hit is said by the memory it is from.
        if let Some(&(_, m, _)) = all.first().filter(|(_, m, _)| *m > 0) {
            let (why, holds, holds_all) = judged[m].clone();
            if self.answered {
                self.why = why.or(self.why.take());
            }
            if let (Some(t), Some(h), Some(a)) = (self.terms.as_mut(), holds, holds_all) {
                t.first_hit_holds = h;
                t.first_hit_holds_all = a;
            }
        }
        self.results = all.into_iter().take(k).map(|(_, _, h)| h).collect();
    }

    /// What a report needs from the memory it was searched in: stale flags, sessions' priors
    /// by their numbers now, and (for JSON readers) each hit's origin.
    pub fn annotate(&mut self, memory: &Memory, origins: bool) -> Result<()> {
        self.flag_stale(memory)?;
        self.resolve_sessions(memory)?;
        if origins {
            self.with_origins(memory);
        }
        Ok(())
    }

    /// Mark the decisions whose governed paths moved on since they were made.
    pub fn flag_stale(&mut self, memory: &Memory) -> Result<()> {
        // Recall is a hot path: only a decision that names paths can be stale, and each hit
        // carries its entry's text, so the log is read only when a hit names paths (reading
        // it was 3–4 ms of a 22 ms lexical recall at 10,000 decisions).
        if !self
            .results
            .iter()
            .any(|h| h.row.kind == "decision" && crate::lifecycle::stale::names_paths(&h.row.text))
        {
            return Ok(());
        }
        let text =
            crate::store::fsio::read_text(&memory.layout.decision_log())?.unwrap_or_default();
        let log =
            crate::format::decision::DecisionLog::parse(text).with_threshold(memory.threshold()?);
        let stale = crate::lifecycle::stale::stale_ids(memory, &log)?;
        for h in &mut self.results {
            h.stale = stale.contains_key(&h.row.id);
        }
        Ok(())
    }

    /// The line that says the memory holds no answer, when it does not, and what to try next:
    /// a question alone is worth one more search with phrasings that name things; after that,
    /// the memory has no answer (the agent should stop searching).
    pub fn not_answered(&self) -> Option<String> {
        (!self.answered).then(|| {
            // A question naming what no entry mentions has its reason say so already.
            let lexical = self.mode == crate::search::recall::Mode::Lexical.name();
            let named = !self.results.is_empty() && self.terms.as_ref().is_some_and(|t| crate::search::answerable::names_are_why(lexical, t));
            let none = self.unmentioned().filter(|_| !named).map(|m| format!(" (no entry mentions {m})")).unwrap_or_default();
            let found = match self.results.len() {
                0 => format!("not in memory{none}: nothing matches ({} search)", self.mode),
                _ => {
                    let why = self.why.as_deref().unwrap_or("nothing scored above the low tier");
                    format!("not in memory{none}: {why} ({} search); the nearest entries follow", self.mode)
                }
            };
            let next = if self.also.is_empty() {
                "search once more with 2-3 phrasings (`also`; --also on the command line) that name what a record would: products, vendors, a likely title such as \"Use X for Y\""
            } else {
                "one more try with different names may help; if that finds nothing either, the memory holds no answer"
            };
            // Unconfirmed entries would answer: say so, or the agent acts as if nothing did.
            let provisional = match self.provisional_matches.as_slice() {
                [] => String::new(),
                [one] => {
                    format!(" — 1 provisional entry matches ({}, {}): recall with provisional (`zo recall --provisional …`) shows it", one.id, one.tier.name())
                }
                many => format!(" — {} provisional entries match: recall with provisional (`zo recall --provisional …`) shows them", many.len()),
            };
            format!("{found}{provisional}; {next}")
        })
    }

    /// What to tell the reader before the hits, if anything: the memory holds no answer, or
    /// `--min-tier` left none; and the question's words no entry holds (the hits answer the
    /// rest of the question, not that).
    pub fn note(&self, min_tier: crate::search::recall::Tier) -> Option<String> {
        let missing = self.unmentioned().map(|m| format!("no entry mentions {m}"));
        // `--min-tier` left nothing: that is what to say (it is not an answer either).
        let filtered = self.results.is_empty() && min_tier > crate::search::recall::Tier::Low;
        let main = if filtered {
            // The names no entry searched holds are news whatever the tier asked for.
            let why = match self.terms.as_ref().map(|t| t.names_missing.as_slice()) {
                Some(names) if !names.is_empty() => {
                    format!("; {}", crate::search::answerable::names_unmentioned(names))
                }
                _ => String::new(),
            };
            Some(format!(
                "nothing at or above the {} tier ({} search){why}",
                min_tier.name(),
                self.mode
            ))
        } else {
            self.not_answered()
        };
        match (main, missing) {
            (None, Some(missing)) if !self.results.is_empty() => Some(format!(
                "{missing}: the entries below may not answer that part of the question"
            )),
            (main, _) => main,
        }
    }

    /// The question's words (and, when not answered, its phrasings' too) that no entry holds,
    /// quoted, at most eight. When the memory answers, only the names among them: a verb of
    /// the question's own ("leave") is no news, a product no entry names is.
    fn unmentioned(&self) -> Option<String> {
        let terms = self.terms.as_ref()?;
        let names = crate::search::names::words_of_names(&self.query);
        let shown: Vec<String> = terms
            .missing
            .iter()
            .filter(|w| !self.answered || names.contains(w))
            .take(8)
            .map(|w| crate::store::gate::frame::name(w))
            .collect();
        (!shown.is_empty()).then(|| shown.join(", "))
    }

    /// The hits as people (and agents reading text) see them: a line per hit with its ID,
    /// kind, tier and any status or staleness, the ranks and scores behind it when explained,
    /// then the entry in full. The fused score is not on the line: the tier comes from the
    /// similarity, not from it, and a number beside the tier read as the tier's reason
    /// (`--explain` gives both, `--json` the score). The CLI prints it; the MCP server returns it as text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        if self.explained {
            let why = match self.pass {
                "key" => "the question is a fact key",
                "expanded" => {
                    "nothing reached standard, so the question was widened with the best hits' title words"
                }
                "phrasings" => "the question and its phrasings, one ranking",
                _ => "one ranking",
            };
            // The pass found the hits; whether they answer is the verdict's, said with its reason.
            let verdict = match (&self.why, self.answered) {
                (Some(why), false) => format!("; not answered: {why}"),
                _ => String::new(),
            };
            s.push_str(&format!(
                "(found by the {} pass: {why}{verdict})\n\n",
                self.pass
            ));
        }
        for h in &self.results {
            let status = if matches!(
                <crate::format::Status as crate::named::Named>::parse(&h.row.status),
                Some(crate::format::Status::Superseded | crate::format::Status::Provisional)
            ) {
                format!(" · {}", h.row.status)
            } else {
                String::new()
            };
            let stale = if h.stale { " · stale" } else { "" };
            s.push_str(&format!(
                "── {} · {} · {}{status}{stale}\n",
                crate::store::gate::frame::one_line(&h.shown_id()),
                h.row.kind,
                h.tier.name(),
            ));
            if let Some(x) = &h.explain {
                let rank = |r: Option<usize>, what: &str, v: Option<f64>| match (r, v) {
                    (Some(r), Some(v)) => format!("{what} #{r} ({v:.3})"),
                    _ => format!("{what} –"),
                };
                s.push_str(&format!(
                    "   why: {} · {} · fused {:.3}\n",
                    rank(x.lexical_rank, "bm25", x.bm25),
                    rank(x.semantic_rank, "similarity", x.similarity),
                    x.fused
                ));
                if !x.phrasings.is_empty() {
                    let each: Vec<String> = x
                        .phrasings
                        .iter()
                        .map(|p| format!("#{} ({:.3})", p.rank, p.similarity))
                        .collect();
                    s.push_str(&format!(
                        "   each phrasing (question first): {}\n",
                        each.join(" · ")
                    ));
                }
            }
            // Quoted as data (`gate::frame`): no entry can print a line that reads as zo's.
            s.push_str(&format!(
                "{}\n\n",
                crate::store::gate::frame::quote(&h.row.text)
            ));
        }
        s
    }
}

/// The bundle as `zo context --json` prints it: its parts and the Markdown.
#[derive(Debug, Clone, Serialize)]
pub struct ContextReport {
    #[serde(flatten)]
    pub bundle: Bundle,
    pub markdown: String,
}

impl From<Bundle> for ContextReport {
    fn from(bundle: Bundle) -> Self {
        let markdown = bundle.markdown();
        ContextReport { bundle, markdown }
    }
}

/// The context bundle for a task (or none), to the budget asked for, else `context.budget_tokens`
/// in config, else 4000. For a task, `rank` finds the best-matching decisions (the CLI loads the
/// model for it, the MCP server keeps one loaded).
pub fn context(
    memory: &Memory,
    task: Option<&str>,
    budget: Option<usize>,
    rank: &mut dyn FnMut(
        &str,
        &crate::search::index::Filter,
    ) -> Result<Vec<crate::search::recall::Hit>>,
) -> Result<Bundle> {
    context_as_of(memory, task, budget, None, rank)
}

/// The same bundle as the memory held it at `at` (None: now; `zo context --as-of`). For a
/// task, the index (which holds the memory of now) is searched for every decision, and only
/// those active in the log of then are kept.
pub fn context_as_of(
    memory: &Memory,
    task: Option<&str>,
    budget: Option<usize>,
    at: Option<&crate::store::asof::AsOf>,
    rank: &mut dyn FnMut(
        &str,
        &crate::search::index::Filter,
    ) -> Result<Vec<crate::search::recall::Hit>>,
) -> Result<Bundle> {
    let budget = budget
        .or_else(|| {
            memory
                .layout
                .config
                .u64(&["context", "budget_tokens"])
                .map(|v| v as usize)
        })
        .unwrap_or(4000);
    let matches = match task.filter(|t| !t.trim().is_empty()) {
        Some(t) => {
            let filter = crate::search::index::Filter {
                kind: Some("decision".into()),
                all: at.is_some(),
                ..Default::default()
            };
            let hits = rank(t, &filter)?;
            let log = memory.decisions_as_of(at)?;
            let found = |id: &str| {
                log.find(id).ok().filter(|&i| {
                    log.entries[i].id == id
                        && (at.is_none() || log.status(i) == crate::format::Status::Active)
                })
            };
            Some((t, hits.iter().filter_map(|h| found(&h.row.id)).collect()))
        }
        None => None,
    };
    crate::lifecycle::context::build_as_of(memory, budget, matches, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::recall::{Hit, Recalled, Tier};

    fn hit(id: &str, tier: Tier, score: f64) -> Hit {
        let row = crate::search::index::Row {
            rowid: 0,
            kind: "prior".into(),
            id: id.into(),
            source: String::new(),
            line: 1,
            title: id.into(),
            subtype: String::new(),
            timestamp: String::new(),
            status: "active".into(),
            superseded_by: None,
            text: id.into(),
        };
        Hit {
            row,
            score,
            tier,
            explain: None,
            stale: false,
            directives: vec![],
            origin: None,
            memory: None,
        }
    }

    fn report(hits: Vec<Hit>, answered: bool) -> RecallReport {
        let r = Recalled {
            mode: crate::search::recall::Mode::Lexical,
            answered,
            pass: "first",
            hits,
            note: None,
            pending: 0,
            why: None,
            terms: None,
        };
        RecallReport::new("q".into(), r, false)
    }

    /// Merged by tier, then rank in each memory, the project first on a tie; scores of two
    /// indexes are not compared (a bigger memory's BM25 pushed the project's hits out).
    #[test]
    fn linked_hits_pushed_the_projects_own_out_by_raw_score() {
        let mut project = report(
            vec![
                hit("P1", Tier::Standard, 0.001),
                hit("P2", Tier::Standard, 0.0005),
                hit("P3", Tier::Low, 0.0001),
            ],
            true,
        );
        let mut team = report(
            vec![
                hit("T1", Tier::High, 0.5),
                hit("T2", Tier::Standard, 14.0),
                hit("T3", Tier::Standard, 13.0),
                hit("T4", Tier::Low, 9.0),
            ],
            false,
        );
        team.name_memory("team");
        project.merge_linked(vec![team], 6);
        let got: Vec<String> = project.results.iter().map(Hit::shown_id).collect();
        assert_eq!(got, ["team:T1", "P1", "P2", "team:T2", "team:T3", "P3"]);
        assert!(project.answered);
        let mut project = report(vec![hit("P1", Tier::Low, 1.0)], false);
        let mut team = report(vec![hit("T1", Tier::Standard, 1.0)], true);
        team.name_memory("team");
        project.merge_linked(vec![team], 1);
        assert_eq!(project.results.len(), 1);
        assert!(project.answered, "a linked memory's answer answers");
    }
}
