//! The context bundle (SPEC §7): what an agent reads at session start. STATE (always), the
//! priors' rules (always; compact when over budget), the latest snapshot's handoff, the last
//! session's Next, the most recent decisions, and for a task the best-matching older decisions
//! in full — filled in that order to a token budget, whole entries only.
//!
//! Here: the bundle, how it is rendered and cut to an agent's limit, and `build_as_of`, which
//! fills it in that order (`fill.rs`, each section's step) after screening every entry for
//! directives (`screen.rs`, the Withheld section).

use crate::store::asof::AsOf;
use crate::store::gate::frame;
use crate::store::memory::Memory;
use anyhow::Result;

mod fill;
mod screen;

use fill::{FOOTER_TOKENS, Filler};
use screen::Screen;

/// Tokens, estimated the usual way for English text: about four characters each.
pub fn tokens(s: &str) -> usize {
    s.len().div_ceil(4)
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Section {
    pub name: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LeftOut {
    pub state_sections: usize,
    pub decisions: usize,
    pub task_matches: usize,
    pub priors_compacted: bool,
    /// Facts that did not fit (each fact is whole or out).
    pub facts: usize,
    pub handoff: bool,
    pub last_session: bool,
    /// Lessons of the linked memories that bear on the project and did not fit.
    pub linked_lessons: usize,
    /// Pairs of decisions that disagree and did not fit.
    pub disagreements: usize,
    /// Entries that arrived since the last session and did not fit.
    pub arrivals: usize,
    /// Arrivals whose commit was not looked up in the time a session start allows.
    pub arrivals_unattributed: usize,
    /// The commit the arrivals are counted from (short), and the commits searched for who
    /// brought them of all in the range.
    #[serde(skip)]
    pub arrivals_since: String,
    #[serde(skip)]
    pub arrivals_searched: (usize, usize),
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Bundle {
    pub project: String,
    pub budget: usize,
    pub tokens: usize,
    pub sections: Vec<Section>,
    pub left_out: LeftOut,
    /// The closing line: what was left out and how to get it.
    pub footer: String,
    /// The past moment the bundle shows (`zo context --as-of`); absent for now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<AsOfNote>,
    /// Memory files that could not be read (bad bytes, a link, no permission), each with
    /// zo's message: the bundle says so in a line of its own and gives the rest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Entries the rules flag that a person here approved, as the bundle shows them: the
    /// output gate keeps them (`store::shown`).
    #[serde(skip)]
    pub vouched: Vec<crate::store::shown::Vouch>,
}

/// What an as-of bundle is read from, said in the bundle itself.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AsOfNote {
    pub at: AsOf,
    /// The commit STATE.md and the priors were read at (they carry no time of their own): the
    /// commit asked for, or for a date the last commit at or before it; None: there was none,
    /// and they are left out.
    pub state_and_priors_from: Option<crate::git::CommitRef>,
    /// The same in words (the bundle's second line).
    pub note: String,
}

impl AsOfNote {
    /// `shallow`: the repository's shallow note (`Repo::shallow_note`), when it is shallow: a
    /// date before its oldest commit is then one whose commits are not here, not one before
    /// any commit was made.
    pub fn new(
        at: &AsOf,
        from: Option<crate::git::CommitRef>,
        shallow: Option<String>,
    ) -> AsOfNote {
        // A commit's subject is anyone's text on a line of zo's own: withheld when the
        // directive rules flag it.
        let subject = |c: &crate::git::CommitRef| {
            if crate::store::screened::flags(&c.subject).is_empty() {
                c.subject.clone()
            } else {
                "(subject withheld: it reads as an instruction)".into()
            }
        };
        let note = match (at, &from) {
            (AsOf::Commit { commit, .. }, _) => format!(
                "As of commit {} ({}, {:?}): the memory files as that commit holds them (user facts as of its time).",
                commit.short,
                commit.time,
                subject(commit)
            ),
            (AsOf::Date { given, .. }, Some(c)) => format!(
                "As of {given}: decisions, outcomes, facts, sessions and snapshots by their own times; STATE.md and the priors carry no time of their own, so they are read at commit {} ({}, {:?}), the last at or before it.",
                c.short,
                c.time,
                subject(c)
            ),
            (AsOf::Date { given, .. }, None) => match shallow {
                Some(s) => format!(
                    "As of {given}: decisions, outcomes, facts, sessions and snapshots by their own times; STATE.md and the priors carry no time of their own and no commit here is that old ({s}), so they are left out."
                ),
                None => format!(
                    "As of {given}: decisions, outcomes, facts, sessions and snapshots by their own times; STATE.md and the priors carry no time of their own and no commit was made by then, so they are left out."
                ),
            },
        };
        AsOfNote {
            at: at.clone(),
            state_and_priors_from: from,
            note,
        }
    }
}

impl Bundle {
    /// Put a section right after STATE and the facts (the session's own progress, after a
    /// compaction): what the agent needs before anything older.
    pub fn insert_early(&mut self, name: impl Into<String>, text: String) {
        let at = self
            .sections
            .iter()
            .take_while(|s| s.name == "State" || s.name == "Facts")
            .count();
        let section = Section {
            name: name.into(),
            text,
        };
        self.tokens += cost(&section.name, &section.text);
        self.sections.insert(at, section);
    }

    /// Keep the Markdown within `max` characters (an agent's limit on hook output: Claude Code
    /// keeps output over about 10,000 characters in a file and shows the model a preview). Whole
    /// entries go from the end of the last section first (the oldest of the recent decisions, the
    /// last priors), then sections whose entries all went; STATE and the facts always stay. The
    /// footer says what went and how to get it.
    pub fn fit_chars(&mut self, max: usize) {
        let mut dropped: Vec<String> = Vec::new();
        let mut cut: Vec<(String, usize)> = Vec::new();
        let mut len = self.markdown().chars().count();
        let rendered = |name: &str, text: &str| section_markdown(name, text).chars().count();
        while len > max {
            let Some(i) = self
                .sections
                .iter()
                .rposition(|s| s.name != "State" && s.name != "Facts")
            else {
                break;
            };
            let (name, text) = (self.sections[i].name.clone(), self.sections[i].text.clone());
            let others = len - rendered(&name, &text);
            let starts = entry_starts(&text);
            // The most whole entries that fit, found by halving (cutting one at a time and
            // rendering the bundle again was quadratic: a long Arrived list took seconds).
            let keep = |k: usize| text[..starts[k]].trim_end();
            let fits = |k: usize| others + rendered(&name, keep(k)) <= max;
            let fitting = match starts.iter().position(|&at| at > 0) {
                Some(first) if fits(first) => {
                    let (mut lo, mut hi) = (first, starts.len() - 1);
                    while lo < hi {
                        let mid = (lo + hi).div_ceil(2);
                        if fits(mid) {
                            lo = mid;
                        } else {
                            hi = mid - 1;
                        }
                    }
                    Some(lo)
                }
                _ => None,
            };
            match fitting {
                Some(k) => {
                    let gone = starts.len() - k;
                    self.sections[i].text = keep(k).to_string();
                    match cut.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, c)) => *c += gone,
                        None => cut.push((name.clone(), gone)),
                    }
                    len = others + rendered(&name, &self.sections[i].text);
                }
                None => {
                    self.sections.remove(i);
                    cut.retain(|(n, _)| *n != name);
                    dropped.push(name);
                    len = others;
                }
            }
        }
        if !dropped.is_empty() || !cut.is_empty() {
            dropped.reverse();
            let mut parts: Vec<String> = cut
                .iter()
                .map(|(n, k)| format!("the last {k} of {}", frame::one_line(n)))
                .collect();
            parts.extend(dropped.iter().map(|n| frame::one_line(n)));
            let note = format!(
                " Left out to stay within {max} characters: {} (`zo context` prints them).",
                parts.join("; ")
            );
            self.footer.push_str(&note);
            self.tokens = tokens(&self.markdown());
        }
    }

    /// The bundle as the agent reads it (SPEC §7): zo's title, the frame line, then each
    /// section's title and its memory text quoted as data (`gate::frame`), so no entry can
    /// write a line that reads as zo's own.
    pub fn markdown(&self) -> String {
        let mut s = head(&self.project);
        if let Some(a) = &self.as_of {
            s.push_str(&format!("{}\n\n", frame::one_line(&a.note)));
        }
        for u in &self.unreadable {
            s.push_str(&format!(
                "zo could not read part of the memory, and gives the rest: {} (`zo verify` names the place; `zo doctor` the fix).\n\n",
                frame::one_line(u)
            ));
        }
        for sec in &self.sections {
            s.push_str(&section_markdown(&sec.name, &sec.text));
        }
        s.push_str(&self.footer);
        s.push('\n');
        s
    }
}

/// Where each entry of a section's Markdown starts: lines opening a heading (`## Decision: …`)
/// when the section has headings, else top-level list items (`- PR-001 …`); an entry's own
/// lists inside a heading's entry are not entries. The first is usually 0.
fn entry_starts(text: &str) -> Vec<usize> {
    let lines = || {
        text.split_inclusive('\n').scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
    };
    let marker = ["## ", "### ", "- "]
        .into_iter()
        .find(|m| lines().any(|(_, l)| l.starts_with(m)));
    marker.map_or_else(Vec::new, |m| {
        lines()
            .filter(|(_, l)| l.starts_with(m))
            .map(|(at, _)| at)
            .collect()
    })
}

/// The bundle's title and frame line.
fn head(project: &str) -> String {
    // The project's name is the repository's text on zo's own title line: quoted, and not
    // shown at all when it reads as an instruction.
    let name =
        if crate::store::screened::flags(project).is_empty() && project.chars().count() <= 120 {
            frame::name(project)
        } else {
            "(the project's name is withheld: it reads as an instruction or is over 120 characters)"
                .into()
        };
    format!("# Context: {name}\n\n{}\n", crate::templates::AGENT_FRAME)
}

/// A section as `Bundle::markdown` renders it: zo's title on one line, the text quoted.
fn section_markdown(name: &str, text: &str) -> String {
    format!("## {}\n\n{}\n\n", frame::one_line(name), frame::quote(text))
}

/// What a section costs as rendered by `Bundle::markdown`.
fn cost(name: &str, text: &str) -> usize {
    tokens(&section_markdown(name, text))
}

/// Matches for a task: (log index) of the best-matching decisions, supplied by the caller so
/// that only `--task` loads the model.
pub type TaskMatches = Vec<usize>;

pub fn build(memory: &Memory, budget: usize, task: Option<(&str, TaskMatches)>) -> Result<Bundle> {
    build_as_of(memory, budget, task, None)
}

/// The bundle as the memory held it at `at` (None: now). The task's matches are indexes into
/// the decision log of then.
pub fn build_as_of(
    memory: &Memory,
    budget: usize,
    task: Option<(&str, TaskMatches)>,
    at: Option<&AsOf>,
) -> Result<Bundle> {
    let layout = &memory.layout;
    let (state, _) = memory.state();
    let project = state.scalar("project").unwrap_or_else(|| layout.project());
    let shallow = || crate::git::Repo::discover(&memory.layout.root).and_then(|r| r.shallow_note());
    let as_of = at
        .map(|a| Ok::<_, anyhow::Error>(AsOfNote::new(a, memory.untimed_commit(a)?, shallow())))
        .transpose()?;
    let header = tokens(&format!(
        "{}{}",
        head(&project),
        as_of
            .as_ref()
            .map(|a| format!("{}\n\n", a.note))
            .unwrap_or_default()
    ));
    let mut f = Filler {
        budget: budget.saturating_sub(FOOTER_TOKENS),
        used: header,
        sections: Vec::new(),
        screen: Screen::default(),
        left: LeftOut::default(),
        state: String::new(),
    };
    // One file that cannot be read (a bad byte, a link, no permission) never silences the
    // rest: what it would give is left out, and the bundle says which file and why.
    let mut unreadable: Vec<String> = Vec::new();
    let mut readable = |r: Result<()>| {
        if let Err(e) = r {
            unreadable.push(format!("{e:#}"));
        }
    };
    readable(f.state_and_facts(memory, at));
    let priors = match at {
        None => memory.priors(),
        Some(at) => memory.priors_as_of(at).map(Option::unwrap_or_default),
    }
    .unwrap_or_else(|e| {
        unreadable.push(format!("{e:#}"));
        Default::default()
    });
    f.priors(&priors);
    if let Err(e) = f.handoff(memory, at) {
        unreadable.push(format!("{e:#}"));
    }
    if let Err(e) = f.next(memory, at) {
        unreadable.push(format!("{e:#}"));
    }

    // The most recent decisions, newest first, whole entries only.
    let log = memory.decisions_as_of(at).unwrap_or_else(|e| {
        unreadable.push(format!("{e:#}"));
        Default::default()
    });
    let candidates: Vec<usize> = (0..log.entries.len())
        .rev()
        .filter(|&i| {
            !log.entries[i].is_annotation() && log.status(i) == crate::format::Status::Active
        })
        .collect();
    // Staleness is measured to HEAD, a thing of now: a bundle of then does not claim it.
    let stale = if at.is_none() {
        crate::lifecycle::stale::stale_ids(memory, &log)?
    } else {
        Default::default()
    };
    if at.is_none() {
        f.arrivals(layout, &log, &priors);
        f.disagreements(layout, &log);
    }
    let shown = f.recent(&log, &candidates, &stale);
    f.left.decisions = candidates.len() - shown.len();
    let task_query = task.map(|(task, matches)| {
        f.task(task, matches, &log, &stale, shown);
        task.to_string()
    });
    if at.is_none() {
        f.linked(memory, &log, &priors, task_query.as_deref());
    }

    crate::store::screened::save();
    f.withheld();
    let footer = footer(&f.left, budget, at, task_query.as_deref(), f.used);
    let used = f.used + tokens(&footer) + 1;
    Ok(Bundle {
        project,
        budget,
        tokens: used,
        sections: f.sections,
        left_out: f.left,
        footer,
        as_of,
        unreadable,
        vouched: f.screen.vouched,
    })
}

/// The closing line: what was left out, and the commands that print it for the same moment.
fn footer(
    left: &LeftOut,
    budget: usize,
    at: Option<&AsOf>,
    task_query: Option<&str>,
    used: usize,
) -> String {
    let then = at
        .map(|a| format!(" --as-of {}", a.label()))
        .unwrap_or_default();
    let mut parts = Vec::new();
    if left.state_sections > 0 {
        parts.push(format!(
            "{} of STATE.md (`zo state show` for the fields, the file for the rest)",
            crate::format::count(left.state_sections, "section", "sections")
        ));
    }
    if left.decisions > 0 {
        parts.push(format!(
            "{} (`zo log{then}`, `zo show ID{then}`)",
            crate::format::count(left.decisions, "older decision", "older decisions")
        ));
    }
    if left.task_matches > 0 {
        parts.push(format!(
            "{} for the task (`zo recall \"{}\" -k 10{then}`)",
            crate::format::count(left.task_matches, "more match", "more matches"),
            task_query.unwrap_or("")
        ));
    }
    if left.facts > 0 {
        parts.push(format!(
            "{} (`zo fact list{then}`)",
            crate::format::count(left.facts, "fact", "facts")
        ));
    }
    if left.priors_compacted {
        parts.push("the priors' full rules (`zo prior list`)".into());
    }
    if left.handoff {
        parts.push("the latest snapshot's handoff (in .zo/memory/snapshots/)".into());
    }
    if left.last_session {
        parts.push("the last session's Next (in .zo/memory/sessions/)".into());
    }
    if left.disagreements > 0 {
        parts.push(format!(
            "{} (`zo verify`)",
            crate::format::count(
                left.disagreements,
                "pair of decisions that disagree",
                "pairs of decisions that disagree"
            )
        ));
    }
    if left.arrivals > 0 {
        parts.push(format!(
            "{} (`zo review {}..HEAD`)",
            crate::format::count(left.arrivals, "more arrival", "more arrivals"),
            left.arrivals_since
        ));
    }
    if left.arrivals_unattributed > 0 {
        let (searched, all) = left.arrivals_searched;
        parts.push(format!(
            "who brought {} (looked up in {searched} of {all} commits, all a session start reads: `zo review {}..HEAD` names each)",
            crate::format::count(
                left.arrivals_unattributed,
                "arrival",
                "arrivals"
            ),
            left.arrivals_since
        ));
    }
    if left.linked_lessons > 0 {
        parts.push(format!(
            "{} (`zo recall --memory NAME …`)",
            crate::format::count(
                left.linked_lessons,
                "lesson from a linked memory",
                "lessons from linked memories"
            )
        ));
    }
    if parts.is_empty() {
        format!(
            "Left out: nothing (about {} of {budget} tokens).",
            used + tokens("Left out: nothing (about 0000 of 0000 tokens).\n")
        )
    } else {
        format!(
            "Left out to stay within {budget} tokens: {}.",
            parts.join("; ")
        )
    }
}

/// STATE.md as the bundle shows it (now, or as of `at`): without a BOM, CRLF as LF, without
/// the template's placeholder. Also what `zo approve STATE` approves.
pub fn state_text(memory: &Memory, at: Option<&AsOf>) -> Result<String> {
    let layout = &memory.layout;
    let state_text = match at {
        None => crate::store::fsio::read_text(&layout.state())
            .ok()
            .flatten()
            .map_or_else(|| "(no STATE.md)".into(), |t| t.as_str().to_string()),
        Some(at) => memory
            .state_text_as_of(at)?
            .unwrap_or_else(|| "(no STATE.md then)".into()),
    };
    let state_text = state_text
        .trim_start_matches('\u{feff}')
        .replace("\r\n", "\n");
    let placeholder = crate::templates::state_placeholder();
    Ok(match state_text.strip_suffix(placeholder) {
        Some(t) if !placeholder.is_empty() => t.to_string(),
        _ => state_text,
    })
}

/// A session's or snapshot's name and text, as the directive rules read them (the name is
/// printed on a line of zo's own) and `zo approve NAME` approves them.
pub fn named_text(name: &str, text: &str) -> String {
    format!("{name}\n{text}")
}
