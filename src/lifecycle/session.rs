//! A session's lifecycle: `session start` leaves a record (`.zo/memory/.session`, local and
//! gitignored) so `session end` knows what was decided and learned in between; `session end`
//! writes `sessions/session-<time>-<suffix>.md` and rewrites STATE.md.

use crate::format::decision::DecisionLog;
use crate::format::fields;
use crate::format::prior::PriorsFile;
use crate::format::session;
use crate::format::state::Value;
use crate::store::fsio;
use crate::store::gate;
use crate::store::memory::Memory;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::record::{Record, current, record_path};

/// What the user says at the end of a session (and the MCP tool `session_end`'s arguments).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ending {
    /// what was attempted
    #[serde(default)]
    pub summary: Option<String>,
    // shipped, next, blockers: the names say it, and a schema description would cost
    // tools/list bytes on every session.
    #[serde(default)]
    pub shipped: Vec<String>,
    #[serde(default)]
    pub next: Vec<String>,
    #[serde(default, alias = "blocker")]
    pub blockers: Vec<String>,
    /// the phase now
    #[serde(default)]
    pub phase: Option<String>,
    /// last subtask done
    #[serde(default)]
    pub subtask: Option<String>,
    /// who worked
    #[serde(default)]
    pub agent: Option<String>,
    /// Write even if a text looks like a secret (the command line's --allow-secret).
    #[serde(skip)]
    #[schemars(skip)]
    pub allow_secret: bool,
    /// `--allow-directive`: the writer consents to text the directive rules flag (the command
    /// line only: never from JSON an agent sends).
    #[serde(skip)]
    #[schemars(skip)]
    pub allow_directive: bool,
}

impl Ending {
    /// The values this ending gives STATE.md: its phase, last subtask (else the last thing
    /// shipped), blockers and next steps, those it has.
    fn state_fields(&self) -> Vec<(String, Value)> {
        let scalar = |k: &str, v: Option<String>| v.map(|v| (k.to_string(), Value::Scalar(v)));
        let list = |k: &str, v: &[String]| {
            (!v.is_empty()).then(|| (k.to_string(), Value::List(v.to_vec())))
        };
        [
            scalar("phase", self.phase.clone()),
            scalar(
                "last_completed_subtask",
                self.subtask
                    .clone()
                    .or_else(|| self.shipped.last().cloned()),
            ),
            list("active_blockers", &self.blockers),
            list("next_steps", &self.next),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Those values checked by STATE.md's rules (`store::write::check_state_fields`).
    fn check_state(&self) -> Result<()> {
        crate::store::write::check_state_fields(&self.state_fields())
    }
}

/// An entry a session lists: its ID and title.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Listed {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ended {
    pub file: String,
    pub number: u32,
    pub decisions: Vec<Listed>,
    pub priors: Vec<Listed>,
}

/// Open a new session (SPEC §5 `session start`; one policy for the CLI, MCP and the agents'
/// hooks): a session record still open — a session that never ended, a crash, a start by hand
/// — is ended first, its file written when anything happened, so nothing it wrote belongs to no
/// session. Returns the new record being started (`record::Starting::finish` writes it, after
/// the caller built its bundle) and what ending the old one wrote.
pub fn open(
    memory: &Memory,
    agent: Option<String>,
    task: Option<String>,
    session_id: Option<String>,
) -> Result<(super::record::Starting, Option<Ended>)> {
    let ended = match current(memory) {
        // A record that kept what zo's writers wrote, and lists nothing, would write no file:
        // it is replaced without reading the log (the SessionStart hook's common case).
        Some(old) if old.written.as_ref().is_some_and(|w| w.is_empty()) => None,
        Some(old) => end(
            memory,
            &Ending {
                agent: old.agent.clone(),
                ..Default::default()
            },
            true,
        )?,
        None => None,
    };
    Ok((
        super::record::begin_as(memory, agent, task, session_id)?,
        ended,
    ))
}

/// The next session number: one more than the highest in any session's name or title. Numbers
/// are for people; names, not numbers, keep sessions apart, so two clones may both use a number.
pub fn next_number(memory: &Memory) -> Result<u32> {
    let dir = memory.layout.sessions();
    let mut max = 0;
    for name in memory.session_names()? {
        let n = session::parse_file_name(&name)
            .and_then(|n| n.number)
            .or_else(|| {
                let file = fsio::open_regular(&dir.join(&name)).ok()??;
                let text =
                    fsio::read_bounded(std::io::Read::take(file, 200), &dir.join(&name), 200)
                        .ok()?;
                session::title_number(&String::from_utf8_lossy(&text))
            });
        max = max.max(n.unwrap_or(0));
    }
    Ok(max + 1)
}

/// A fresh session file name for a session ended at `now`.
fn new_name(memory: &Memory, now: &str) -> Result<String> {
    let dir = memory.layout.sessions();
    for _ in 0..16 {
        let mut b = [0u8; 3];
        getrandom::fill(&mut b)
            .map_err(|e| anyhow::anyhow!("no randomness for a session name: {e}"))?;
        let name = session::new_file_name(now, &format!("{:02x}{:02x}{:02x}", b[0], b[1], b[2]));
        if !dir.join(&name).exists() {
            return Ok(name);
        }
    }
    anyhow::bail!(
        "could not find a free session file name in {}",
        memory.layout.show(&dir)
    )
}

/// IDs of the decisions and priors in HEAD's versions of the files (empty without git).
fn committed_ids(memory: &Memory) -> std::collections::HashSet<String> {
    let l = &memory.layout;
    let Some(repo) = crate::git::Repo::discover(&l.root) else {
        return Default::default();
    };
    let at_head = |path: std::path::PathBuf| {
        repo.file_at_head(std::path::Path::new(&l.rel(&path)))
            .ok()
            .flatten()
            .map(|b| crate::format::Text::new(String::from_utf8_lossy(&b).into_owned()))
    };
    let mut ids = std::collections::HashSet::new();
    if let Some(t) = at_head(l.decision_log()) {
        ids.extend(DecisionLog::parse(t).entries.iter().map(|e| e.id.clone()));
    }
    if let Some(t) = at_head(l.priors()) {
        ids.extend(PriorsFile::parse(t).entries.iter().map(|p| p.id.clone()));
    }
    ids
}

/// Where the current session's entries begin in the log and in the priors: the open record's
/// counts; without one (a fresh clone, a crashed agent), after the last session file — after
/// the last decision it listed, else from the time it ended.
pub(super) fn baseline(
    memory: &Memory,
    rec: Option<&Record>,
    log: &DecisionLog,
    priors: &PriorsFile,
) -> Result<(usize, usize)> {
    if let Some(r) = rec {
        return Ok((
            r.decisions.min(log.entries.len()),
            r.priors.min(priors.entries.len()),
        ));
    }
    let Some(last) = memory.sessions()?.pop() else {
        // No session was ever recorded: everything so far belongs to this one.
        return Ok((0, 0));
    };
    let listed = |section: &str, find: &dyn Fn(&str) -> Option<usize>| {
        last.section(&[section])
            .map(|d| {
                d.lines()
                    .filter_map(|l| l.trim().trim_start_matches("- ").split_whitespace().next())
                    .filter_map(find)
                    .max()
            })
            .unwrap_or(None)
    };
    let ended = last.ended.clone();
    let after = |ts: &dyn Fn(usize) -> String, n: usize| match &ended {
        Some(t) => (0..n).find(|&i| ts(i).as_str() > t.as_str()).unwrap_or(n),
        None => n,
    };
    let d = match listed("decisions", &|id| log.find(id).ok()) {
        Some(i) => i + 1,
        None => after(&|i| log.entries[i].timestamp.clone(), log.entries.len()),
    };
    let p = match last
        .section(&["priors"])
        .and_then(|body| listed_priors(body, priors).into_iter().max())
    {
        Some(i) => i + 1,
        None => priors.entries.len(),
    };
    Ok((d, p))
}

/// Fingerprints of every prior, computed on first need.
struct Fingerprints<'a> {
    priors: &'a PriorsFile,
    all: std::cell::OnceCell<Vec<String>>,
}

impl Fingerprints<'_> {
    fn get(&self) -> &[String] {
        self.all.get_or_init(|| {
            self.priors
                .entries
                .iter()
                .map(|p| p.fingerprint(self.priors))
                .collect()
        })
    }
}

/// The prior a session's list names as `id` — `title`: the one whose fingerprint the line
/// recorded (the listed ID first, since a merge renumbers only one side's prior); for an older
/// line without one, or a prior since forgotten, the listed ID while its title still matches,
/// else the one prior with that title; else the listed ID.
fn listed_prior(
    fps: &Fingerprints,
    id: &str,
    title: &str,
    fingerprint: Option<&str>,
) -> Option<usize> {
    let priors = fps.priors;
    let at_id = priors.find(id);
    if let Some(fp) = fingerprint {
        if let Some(i) = at_id.filter(|&i| fps.get()[i] == fp) {
            return Some(i);
        }
        if let Some(i) = fps.get().iter().position(|f| f == fp) {
            return Some(i);
        }
    }
    let titled = |i: usize| gate::visible(&priors.entries[i].title) == title;
    if title.is_empty() || at_id.is_some_and(titled) {
        return at_id;
    }
    let mut same = (0..priors.entries.len()).filter(|&i| titled(i));
    match (same.next(), same.next()) {
        (Some(i), None) => Some(i),
        _ => at_id,
    }
}

/// The priors a `## Priors` section body lists, as they are numbered now.
fn listed_priors(body: &str, priors: &PriorsFile) -> Vec<usize> {
    let fps = Fingerprints {
        priors,
        all: Default::default(),
    };
    body.lines()
        .filter_map(session::parse_listed)
        .filter_map(|(id, title, fp)| listed_prior(&fps, id, title, fp))
        .collect()
}

/// A session file's text as a reader sees it: each prior its `## Priors` list names under the
/// number it has now, without the fingerprint comment zo finds it by (`session show` printed
/// `<!-- zo:prior … -->`). A merge renumbers a prior two clones numbered alike, but the session
/// files that list it arrive whole, unseen by the merge driver, and keep the old number; every
/// reader that shows a session goes through this. Borrowed when nothing changed.
pub fn resolve_priors<'a>(text: &'a str, priors: &PriorsFile) -> std::borrow::Cow<'a, str> {
    let fps = Fingerprints {
        priors,
        all: Default::default(),
    };
    let mut out: Option<String> = None;
    let mut in_priors = false;
    let mut fence = fields::Fence::default();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let l = fields::strip_eol(line);
        let in_fence = fence.feed(l);
        let mut replaced = None;
        if !in_fence {
            if let Some((level, h)) = fields::heading(l, 2) {
                in_priors = level == 2 && h.to_ascii_lowercase().starts_with("priors");
            } else if in_priors {
                if let Some((id, title, fp)) = session::parse_listed(l) {
                    let now = listed_prior(&fps, id, title, fp).map(|i| &priors.entries[i].id);
                    let new = now.filter(|n| n.as_str() != id);
                    if fp.is_some() {
                        // The line as zo wrote it, `- ID — title <!-- zo:prior … -->`.
                        replaced = Some(format!(
                            "- {} — {title}{}",
                            new.map_or(id, |n| n.as_str()),
                            &line[l.len()..]
                        ));
                    } else if let Some(new) = new {
                        // The ID is the first word after `- `; only it changes.
                        let start = line.find(id).unwrap_or(0);
                        replaced = Some(format!(
                            "{}{new}{}",
                            &line[..start],
                            &line[start + id.len()..]
                        ));
                    }
                }
            }
        }
        match (replaced, &mut out) {
            (Some(r), Some(o)) => o.push_str(&r),
            (Some(r), None) => out = Some(format!("{}{r}", &text[..at])),
            (None, Some(o)) => o.push_str(line),
            (None, None) => {}
        }
        at += line.len();
    }
    out.map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
}

impl Ending {
    /// Whether the user said anything at all.
    pub fn is_empty(&self) -> bool {
        self.summary.as_deref().is_none_or(|s| s.trim().is_empty())
            && self.shipped.is_empty()
            && self.next.is_empty()
            && self.blockers.is_empty()
            && self.phase.is_none()
            && self.subtask.is_none()
    }
}

/// End the session: write its file and update STATE.md. With `skip_if_empty` (agent hooks),
/// a session in which nothing was recorded or said writes nothing and returns `None`.
pub fn end(memory: &Memory, ending: &Ending, skip_if_empty: bool) -> Result<Option<Ended>> {
    // STATE.md's rules before anything is written: a refusal after the session file would
    // leave the two disagreeing.
    ending.check_state()?;
    let rec = current(memory);
    let log = memory.decisions()?;
    let priors = memory.priors()?;
    let (decisions, mine, nothing_written) = this_sessions(memory, rec.as_ref(), &log, &priors)?;
    let new_priors: Vec<Listed> = mine
        .iter()
        .map(|p| Listed {
            id: p.id.clone(),
            title: p.title.clone(),
        })
        .collect();
    if skip_if_empty
        && decisions.is_empty()
        && new_priors.is_empty()
        && nothing_written
        && ending.is_empty()
    {
        let _ = fsio::remove_file(&record_path(memory));
        return Ok(None);
    }
    let (state, _) = memory.state();
    let phase = ending
        .phase
        .clone()
        .or_else(|| state.scalar("phase"))
        .unwrap_or_else(|| "-".into());
    let now = crate::time::now();
    let machine = crate::store::environment::detect_hostname().unwrap_or_else(|| "unknown".into());
    let agent = ending
        .agent
        .clone()
        .or_else(|| rec.as_ref().and_then(|r| r.agent.clone()))
        .unwrap_or_else(|| "-".into());
    let attempted = ending
        .summary
        .clone()
        .or_else(|| rec.as_ref().and_then(|r| r.task.clone()))
        // Ended by an agent's hook, no summary given: what it recorded says something.
        .unwrap_or_else(|| {
            format!(
                "no summary given ({} and {} recorded)",
                crate::format::count(decisions.len(), "decision", "decisions"),
                crate::format::count(mine.len(), "lesson", "lessons")
            )
        });
    let allowed = gate_texts(
        ending,
        &state,
        [attempted.as_str(), phase.as_str(), agent.as_str()],
    )?;
    // STATE.md is written after the session file: one it cannot write (a link, a FIFO) is
    // refused now, or the session file would stand alone and a retry write it twice.
    fsio::open_regular(&memory.layout.state())?;
    let _lock = fsio::Lock::acquire(&memory.layout.memory)?;
    // Ended meanwhile by another process (an agent's SessionEnd fired twice, `session end` run
    // beside the hook): its file is written; a second one would list the same entries.
    if let Some(r) = &rec {
        if current(memory).is_none_or(|now| now.started != r.started) {
            return Ok(None);
        }
    }
    let number = next_number(memory)?;
    let date = &now[..10];
    let name = new_name(memory, &crate::time::now_millis())?;
    // Titles copied from the logs: a hand-written control character is shown, not replayed.
    let shown = |l: &Listed| {
        (
            gate::visible(&l.id).into_owned(),
            gate::visible(&l.title).into_owned(),
        )
    };
    let text = session::Rendered {
        number,
        ended: now.clone(),
        started: gate::visible(rec.as_ref().map_or("unknown", |r| r.started.as_str())).into_owned(),
        machine: gate::visible(&machine).into_owned(),
        phase: phase.clone(),
        agent,
        allowances: gate::allowance_lines(&allowed),
        attempted: attempted.clone(),
        shipped: ending.shipped.clone(),
        decisions: decisions.iter().map(shown).collect(),
        // Each prior with its fingerprint: a merge may renumber it later, and readers find it
        // by that (`resolve_priors`).
        priors: mine
            .iter()
            .map(|p| {
                (
                    gate::visible(&p.id).into_owned(),
                    gate::visible(&p.title).into_owned(),
                    session::prior_marker(&p.fingerprint(&priors)),
                )
            })
            .collect(),
        blockers: ending.blockers.clone(),
        next: ending.next.clone(),
    }
    .render();
    fsio::create_dir(&memory.layout.sessions())?;
    let path = memory.layout.sessions().join(&name);
    fsio::write_atomic(&path, text.as_bytes())?;
    let _ = fsio::remove_file(&record_path(memory));
    drop(_lock);
    crate::store::provenance::note_written_here(
        &memory.layout,
        &crate::store::provenance::record_name(&name),
    );

    // Where the work stands, for whoever opens STATE.md next (it read "Just initialised"
    // forever): this session, what it attempted, what comes next.
    let next = if ending.next.is_empty() {
        String::new()
    } else {
        format!(" Next: {}.", ending.next.join("; ").replace('\n', " "))
    };
    let position = format!(
        "Session {number:03} ended {date} ({}): {}{next}",
        memory.layout.show(&path),
        attempted.replace('\n', " ").trim()
    );
    memory
        .set_state_at(
            state_updates(memory, ending, &now),
            Some(&position),
            &allowed,
            gate::Allow {
                secret: ending.allow_secret,
                directive: ending.allow_directive,
            },
        )
        .context("the session file was written but STATE.md was not updated")?;
    Ok(Some(Ended {
        file: memory.layout.show(&path),
        number,
        decisions,
        priors: new_priors,
    }))
}

/// What this session wrote: its decisions, its priors, and whether it wrote nothing at all.
fn this_sessions<'p>(
    memory: &Memory,
    rec: Option<&Record>,
    log: &DecisionLog,
    priors: &'p PriorsFile,
) -> Result<(Vec<Listed>, Vec<&'p crate::format::prior::Prior>, bool)> {
    let (from_d, from_p) = baseline(memory, rec, log, priors)?;
    // Without a start, the baseline is a guess from the last session file; entries already
    // committed (by this clone before, or pulled from another) are never this session's.
    let committed = if rec.is_none() {
        committed_ids(memory)
    } else {
        Default::default()
    };
    // With a record that kept what zo's writers wrote, exactly those: a pull during the
    // session brings entries after the baseline that another clone wrote.
    let written: Option<std::collections::HashSet<&str>> = rec
        .and_then(|r| r.written.as_ref())
        .map(|w| w.iter().map(String::as_str).collect());
    let ours =
        |id: &str| written.as_ref().is_none_or(|w| w.contains(id)) && !committed.contains(id);
    let decisions: Vec<Listed> = log.entries[from_d..]
        .iter()
        .filter(|e| !e.is_annotation() && ours(&e.id))
        .map(|e| Listed {
            id: e.id.clone(),
            title: e.title.clone(),
        })
        .collect();
    let mine: Vec<&crate::format::prior::Prior> = priors.entries[from_p..]
        .iter()
        .filter(|p| ours(&p.id))
        .collect();
    // Without a record the baseline is a guess, and entries after it may be another clone's
    // (pulled, committed): only what is left after leaving those out counts as written.
    let nothing_written = match &written {
        Some(w) => w.is_empty(),
        None => decisions.is_empty() && mine.is_empty(),
    };
    Ok((decisions, mine, nothing_written))
}

/// The gate's check of every field the session file and STATE.md get (`[attempted, phase,
/// agent]` and the ending's lists), the record's and STATE's included: a hand-edited record or
/// STATE.md never went through the gate. Returns the hashes of what was let through.
fn gate_texts(
    ending: &Ending,
    state: &crate::format::state::State,
    [attempted, phase, agent]: [&str; 3],
) -> Result<Vec<String>> {
    let texts: Vec<(&str, &str)> = [("Attempted", attempted), ("Phase", phase), ("Agent", agent)]
        .into_iter()
        .chain(ending.shipped.iter().map(|s| ("Shipped", s.as_str())))
        .chain(ending.next.iter().map(|s| ("Next", s.as_str())))
        .chain(ending.blockers.iter().map(|s| ("Blockers", s.as_str())))
        .chain(ending.subtask.iter().map(|s| ("Subtask", s.as_str())))
        .collect();
    let allow = gate::Allow {
        secret: ending.allow_secret,
        directive: ending.allow_directive,
    };
    Ok(gate::hashes(&gate::check_fields_with(
        &texts,
        allow,
        &gate::allowed_in(&state.render()),
    )?))
}

/// What a session's end sets in STATE.md: its phase, when, the commit, the last subtask, and
/// the blockers and next steps it gave.
fn state_updates(memory: &Memory, ending: &Ending, now: &str) -> Vec<(String, Value)> {
    let head = crate::git::Repo::discover(&memory.layout.root).and_then(|r| r.head().head);
    let mut fields = ending.state_fields();
    // When and at which commit, after the phase (the order new keys take in STATE.md).
    let at = usize::from(ending.phase.is_some());
    let when = std::iter::once(("timestamp".to_string(), Value::Scalar(now.to_string())));
    fields.splice(
        at..at,
        when.chain(head.map(|h| ("git_head".to_string(), Value::Scalar(h)))),
    );
    fields
}

/// Sessions written by older clones were named by number and date, so two clones could write
/// the same name, and the merge driver kept both sessions in that one file. Split such a file
/// into one file per session (each new one under a collision-free name), under the lock, new
/// files first so a crash leaves a duplicate rather than a loss. Returns (file, new files).
pub fn split_merged(memory: &Memory) -> Result<Vec<(String, Vec<String>)>> {
    let dir = memory.layout.sessions();
    let merged = |name: &str| -> Option<crate::format::Text> {
        // An unreadable session file is reported by the commands that read it; it never stops
        // this repair for the others.
        let text = fsio::read_text(&dir.join(name)).ok().flatten()?;
        (session::session_starts(text.as_str()).len() > 1).then_some(text)
    };
    let names: Vec<String> = memory
        .session_names()?
        .into_iter()
        .filter(|n| merged(n).is_some())
        .collect();
    if names.is_empty() {
        return Ok(vec![]);
    }
    let _lock = fsio::Lock::acquire(&memory.layout.memory)?;
    let mut out = Vec::new();
    for name in names {
        let Some(text) = merged(&name) else { continue };
        let t = text.as_str();
        let starts = session::session_starts(t);
        let mut pieces: Vec<&str> = Vec::new();
        for (k, &s) in starts.iter().enumerate() {
            pieces.push(
                &t[if k == 0 { 0 } else { s }..starts.get(k + 1).copied().unwrap_or(t.len())],
            );
        }
        let mut created = Vec::new();
        for piece in &pieces[1..] {
            let ended = session::SessionFile::parse("", piece)
                .ended
                .filter(|e| crate::time::starts_with_date(e));
            // `get`: the time part of a hand-written date may hold any character.
            let at = ended
                .and_then(|e| e.get(..19).map(|t| format!("{t}.000Z")))
                .unwrap_or_else(crate::time::now_millis);
            let new = new_name(memory, &at)?;
            fsio::write_atomic(
                &dir.join(&new),
                format!("{}\n", piece.trim_end()).as_bytes(),
            )?;
            created.push(new);
        }
        fsio::write_atomic(
            &dir.join(&name),
            format!("{}\n", pieces[0].trim_end()).as_bytes(),
        )?;
        out.push((name, created));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::prior::NewPrior;

    fn priors(titles: &[&str]) -> PriorsFile {
        let text: String = titles
            .iter()
            .enumerate()
            .map(|(i, t)| {
                NewPrior {
                    number: i as u32 + 1,
                    title: t.to_string(),
                    root_cause: "novel_case".into(),
                    failure: "f".into(),
                    rules: vec![format!("rule {t}")],
                    ..Default::default()
                }
                .render()
            })
            .collect();
        PriorsFile::parse(crate::format::Text::new(format!("# PRIORS\n\n{text}")))
    }

    #[test]
    fn listed_priors_follow_a_renumbering() {
        // Written on a clone where "beta" was PR-001; a merge made it PR-002.
        let before = priors(&["beta"]);
        let fp = before.entries[0].fingerprint(&before);
        let after = priors(&["alpha", "beta"]);
        let marked = format!(
            "# Session 001\n\n## Priors\n- PR-001 — beta {}\n\n## Next\n- PR-001 — beta\n",
            session::prior_marker(&fp)
        );
        let resolved = resolve_priors(&marked, &after);
        let shown = marked.replacen(
            &format!("- PR-001 — beta {}", session::prior_marker(&fp)),
            "- PR-002 — beta",
            1,
        );
        assert_eq!(
            resolved, shown,
            "only the Priors list changes, and its fingerprint is not shown"
        );
        // An older line without a fingerprint: the one prior with its title.
        assert_eq!(
            resolve_priors("## Priors\n- PR-001 — beta\n", &after),
            "## Priors\n- PR-002 — beta\n"
        );
        // Nothing to change: the text is borrowed as it is.
        let same = "## Priors\n- PR-001 — alpha\n- PR-009 — gone\nnone\n";
        assert!(matches!(
            resolve_priors(same, &after),
            std::borrow::Cow::Borrowed(_)
        ));
        // Two priors with one title and no fingerprint: the listed ID holds.
        let twins = priors(&["x", "beta", "beta"]);
        assert_eq!(
            resolve_priors("## Priors\n- PR-001 — beta\n", &twins),
            "## Priors\n- PR-001 — beta\n"
        );
    }
}
