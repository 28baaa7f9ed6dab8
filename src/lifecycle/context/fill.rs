//! Filling the bundle, section by section, in the order SPEC §7 gives them: STATE and the
//! facts, the priors, the latest handoff, the last session's Next, what arrived, the recent
//! decisions and the task's matches, each whole or left out, within the budget.

use super::screen::{Screen, fact_text, screen_decision, shown_id, shown_title};
use super::{LeftOut, Section, TaskMatches, cost, named_text, state_text};
use crate::format::decision::DecisionLog;
use crate::format::prior::PriorsFile;
use crate::lifecycle::stale::StaleEntry;
use crate::store::asof::AsOf;
use crate::store::gate::frame;
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use anyhow::Result;
use std::collections::{HashMap, HashSet};

use crate::templates::bundle::{ARRIVED, DISAGREE, LINKED, WITHHELD};

/// How many recent decisions the bundle offers before older ones count as left out.
const RECENT: usize = 10;

/// Room kept for the closing line.
pub(super) const FOOTER_TOKENS: usize = 60;

/// The bundle while it is filled: its sections within the budget, the entries screened out
/// (`screen`) and what did not fit (`left`).
pub(super) struct Filler {
    pub(super) budget: usize,
    pub(super) used: usize,
    pub(super) sections: Vec<Section>,
    pub(super) screen: Screen,
    pub(super) left: LeftOut,
    /// STATE.md as read for the State section (before screening): the project's own words,
    /// which the linked memories' lessons are matched against.
    pub(super) state: String,
}

impl Filler {
    fn fits(&self, name: &str, text: &str) -> bool {
        self.used + cost(name, text) <= self.budget
    }
    fn push(&mut self, name: impl Into<String>, text: String) {
        let name = name.into();
        self.used += cost(&name, &text);
        self.sections.push(Section { name, text });
    }

    /// STATE, always: its fields, and its sections when they fit (else their headings). Then
    /// the facts, which STATE's sections give way to.
    pub(super) fn state_and_facts(&mut self, memory: &Memory, at: Option<&AsOf>) -> Result<()> {
        // Through fsio, like every read: a STATE.md that is a link (to ~/.aws/credentials, say)
        // must never reach an agent's context.
        let state_text = state_text(memory, at)?;
        self.state = state_text.clone();
        let state_text = if self.screen.pass("STATE", "STATE.md", &state_text) {
            state_text
        } else {
            "(withheld: see Withheld below)".to_string()
        };
        let state_text = state_text.as_str();
        let state_body = match state_text.split_once('\n') {
            Some((first, rest)) if first.starts_with("# ") => rest,
            _ => state_text,
        };
        // STATE is shown whole, or its fields alone when its sections do not fit.
        let fields_only = state_body
            .find("\n## ")
            .map_or(state_body, |i| &state_body[..i + 1]);
        self.screen.shown_as(&[state_body, fields_only]);
        // Facts and preferences, the rule book: every one that holds, whole, before anything
        // ranked (provisional ones wait for `zo confirm`). Always in the bundle, whatever the
        // budget (SPEC §7): STATE's sections give way to them, not the other way round.
        let facts = memory.fact_list_as_of(None, None, false, at)?;
        let mut facts_text = String::new();
        for v in &facts {
            if v.scope == crate::store::facts::Scope::User
                || self.screen.pass(&v.id, &v.key, &fact_text(memory, v))
            {
                let line = fact_line(v);
                self.screen.shown(&line);
                facts_text.push_str(&line);
            }
        }
        let facts_cost = if facts_text.is_empty() {
            0
        } else {
            cost("Facts", &facts_text)
        };
        self.budget = self.budget.saturating_sub(facts_cost);
        if self.fits("State", state_body) {
            self.push("State", state_body.trim().to_string());
        } else {
            let (fields, sections) = match state_body.find("\n## ") {
                Some(i) => state_body.split_at(i + 1),
                None => (state_body, ""),
            };
            let headings: Vec<&str> = sections
                .lines()
                .filter_map(|l| l.strip_prefix("## "))
                .collect();
            self.left.state_sections = headings.len();
            let mut text = fields.trim().to_string();
            if !headings.is_empty() {
                text.push_str(&format!(
                    "\n\n(STATE.md sections, left out for the budget: {})",
                    headings.join("; ")
                ));
            }
            self.push("State", text);
        }

        self.budget += facts_cost;
        if !facts_text.is_empty() {
            self.push("Facts", facts_text.trim_end().to_string());
        }
        Ok(())
    }

    /// Priors' rules, always: full, or compact (one line per prior) when that does not fit.
    pub(super) fn priors(&mut self, priors: &PriorsFile) {
        let superseded = priors.superseded();
        // Each lesson in full and compact (one line), as the budget will choose.
        let mut active: Vec<(String, String)> = Vec::new();
        for p in priors
            .entries
            .iter()
            .zip(superseded)
            .filter(|(p, s)| !s && !p.is_forgotten())
            .map(|(p, _)| p)
        {
            if !self.screen.pass(&p.id, &p.title, &p.content(priors)) {
                continue;
            }
            let (full, compact) = (prior_full(p), prior_compact(p));
            self.screen.shown_as(&[&full, &compact]);
            active.push((full, compact));
        }
        if !active.is_empty() {
            let full: String = active.iter().map(|(f, _)| f.as_str()).collect();
            if self.fits("Priors", &full) {
                self.push("Priors", full.trim_end().to_string());
            } else {
                self.left.priors_compacted = true;
                let compact: String = active.iter().map(|(_, c)| c.as_str()).collect();
                self.push(
                    "Priors (compact; `zo prior list` has the rules in full)",
                    compact.trim_end().to_string(),
                );
            }
        }
    }

    /// The latest snapshot's handoff.
    pub(super) fn handoff(&mut self, memory: &Memory, at: Option<&AsOf>) -> Result<()> {
        if let Some((name, text)) = last_file(memory, at, true)? {
            let (name, text) = (name.as_str(), text.as_str());
            let snapshot = crate::format::session::SessionFile::parse(name, text);
            let handoff = snapshot.section(&["handoff"]).filter(|h| !h.is_empty());
            if let Some(h) = handoff
                .filter(|_| {
                    self.screen
                        .pass(name, "the latest snapshot", &named_text(name, text))
                })
                .map(str::to_string)
            {
                self.screen.shown(&h);
                let title = format!("Handoff ({})", frame::name(name.trim_end_matches(".md")));
                if self.fits(&title, &h) {
                    self.push(title, h);
                } else {
                    self.left.handoff = true;
                }
            }
        }
        Ok(())
    }

    /// The last session's Next.
    pub(super) fn next(&mut self, memory: &Memory, at: Option<&AsOf>) -> Result<()> {
        if let Some((name, text)) = last_file(memory, at, false)? {
            let (name, text) = (name.as_str(), text.as_str());
            let s = crate::format::session::SessionFile::parse(name, text);
            // A session that named nothing next ("none", as a hook-ended one writes) hides
            // nothing: STATE.md's next steps stand.
            let next = s
                .section(&["next", "what's next", "next steps"])
                .filter(|n| !matches!(n.trim(), "" | "none" | "-"));
            if let Some(next) = next.filter(|_| {
                self.screen
                    .pass(name, "the last session", &named_text(name, text))
            }) {
                self.screen.shown(next);
                let title = format!("Next, from {}", frame::name(name.trim_end_matches(".md")));
                if self.fits(&title, next) {
                    self.push(title, next.to_string());
                } else {
                    self.left.last_session = true;
                }
            }
        }
        Ok(())
    }

    /// What arrived since the user's last session here, and from whom (SPEC §3a): entries
    /// pulled, not written on this machine (by content: `store::provenance`). Nothing is read
    /// from git when HEAD has not moved; who brought each is looked up within a time budget,
    /// and what was not, or did not fit, is counted for the footer.
    pub(super) fn arrivals(&mut self, layout: &Layout, log: &DecisionLog, priors: &PriorsFile) {
        let Some(arrived) = crate::store::provenance::arrivals(layout, || {
            crate::store::provenance::files_now(layout, log, priors)
        }) else {
            return;
        };
        // IDs, titles and authors are the repository's text: screened as the Withheld section
        // screens them (an arrival is the likeliest entry to be withheld).
        let lines: Vec<String> = arrived
            .entries
            .iter()
            .map(|a| {
                let by = a.commit.as_ref().map_or_else(
                    || "in a commit since".to_string(),
                    |c| {
                        shown_title(
                            &c.by(),
                            &format!("{} by an author whose name the rules flag", c.short),
                        )
                    },
                );
                let what = match (a.kind, &a.refs) {
                    (Some(k), Some(r)) => format!(", {k} {}", shown_id(r)),
                    (Some(k), None) => format!(", {k}:"),
                    (None, _) => String::new(),
                };
                format!(
                    "- {}{what} {} — {}",
                    shown_id(&a.id),
                    shown_title(&a.title, "(its title is withheld: the rules flag it)"),
                    by.trim_matches('"')
                )
            })
            .collect();
        // Whole lines while they fit (found by halving, as the disagreements are); the rest
        // counted, never dropped unsaid.
        let (mut lo, mut hi) = (0, lines.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.fits(ARRIVED, &lines[..mid].join("\n")) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.left.arrivals = lines.len() - lo;
        if arrived.unfinished().is_some() {
            self.left.arrivals_unattributed = arrived
                .entries
                .iter()
                .filter(|a| a.commit.is_none())
                .count();
        }
        self.left.arrivals_since = arrived.since.clone();
        self.left.arrivals_searched = (arrived.searched, arrived.commits);
        if lo > 0 {
            self.push(ARRIVED, lines[..lo].join("\n"));
        }
    }

    /// Active decisions on one subject with different choices (issue 33), each pair on a line
    /// with how to settle it; their IDs and titles are the repository's text, screened as the
    /// arrivals are.
    pub(super) fn disagreements(&mut self, layout: &Layout, log: &DecisionLog) {
        let pairs = crate::lifecycle::contradictions::cached(layout, log);
        if pairs.is_empty() {
            return;
        }
        let withheld = "(its title is withheld: the rules flag it)";
        let lines: Vec<String> = pairs
            .iter()
            .map(|c| {
                let (a, b) = (shown_id(&c.a), shown_id(&c.b));
                format!(
                    "- {a} {} / {b} {} — settle: `zo decide … --supersedes` the one that no longer holds, or `zo confirm {a} --compatible-with {b}`",
                    shown_title(&c.a_title, withheld),
                    shown_title(&c.b_title, withheld)
                )
            })
            .collect();
        // Whole pairs, as many as fit: the rest are counted, never dropped unsaid. The cost
        // grows with the lines taken, so the most that fit are found by halving, not by pricing
        // every prefix (quadratic: 3 ms of the hook at 10,000 decisions with many pairs).
        let (mut lo, mut hi) = (0, lines.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.fits(DISAGREE, &lines[..mid].join("\n")) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.left.disagreements += lines.len() - lo;
        if lo > 0 {
            self.push(DISAGREE, lines[..lo].join("\n"));
        }
    }

    /// The most recent decisions (`candidates`, newest first), whole entries only: the ones
    /// shown.
    pub(super) fn recent(
        &mut self,
        log: &DecisionLog,
        candidates: &[usize],
        stale: &HashMap<String, StaleEntry>,
    ) -> HashSet<usize> {
        let mut shown = HashSet::new();
        let mut recent = String::new();
        let mut stopped = false;
        for &i in candidates.iter().take(RECENT) {
            // Screened where it would be shown: a withheld entry's place is not given to an older
            // one that was never screened.
            let Some(outcome) = screen_decision(&mut self.screen, log, i) else {
                continue;
            };
            let text = decision_text(log, i, outcome, stale);
            self.screen.shown(&text);
            if stopped || !self.fits("Recent decisions", &format!("{recent}{text}")) {
                stopped = true;
                continue;
            }
            recent.push_str(&text);
            shown.insert(i);
        }
        if !recent.is_empty() {
            self.push("Recent decisions", recent.trim_end().to_string());
        }
        shown
    }

    /// For a task: the best-matching older decisions not `shown` already, in full.
    pub(super) fn task(
        &mut self,
        task: &str,
        matches: TaskMatches,
        log: &DecisionLog,
        stale: &HashMap<String, StaleEntry>,
        mut shown: HashSet<usize>,
    ) {
        let mut text = String::new();
        for i in matches {
            if shown.contains(&i) {
                continue;
            }
            let Some(outcome) = screen_decision(&mut self.screen, log, i) else {
                continue;
            };
            let e = decision_text(log, i, outcome, stale);
            self.screen.shown(&e);
            if self.fits(
                &format!("Related to the task: {task}"),
                &format!("{text}{e}"),
            ) {
                text.push_str(&e);
                shown.insert(i);
                self.left.decisions = self.left.decisions.saturating_sub(1);
            } else {
                self.left.task_matches += 1;
            }
        }
        if !text.is_empty() {
            self.push(
                format!("Related to the task: {task}"),
                text.trim_end().to_string(),
            );
        }
    }

    /// The linked memories' lessons that bear on the project, last and within what the budget
    /// leaves: each link's active priors sharing subject words with the project's own (STATE,
    /// its recent decisions' and priors' titles, the task), those sharing most first, each
    /// marked with its memory (`team:PR-004`). A link that does not open is left to `zo
    /// continue` and `zo links` to report.
    pub(super) fn linked(
        &mut self,
        memory: &Memory,
        log: &DecisionLog,
        priors: &PriorsFile,
        task: Option<&str>,
    ) {
        let links = crate::store::links::load(&memory.layout);
        if links.links.is_empty() {
            return;
        }
        let titles: Vec<&str> = log
            .entries
            .iter()
            .rev()
            .filter(|e| !e.is_annotation())
            .take(50)
            .map(|e| e.title.as_str())
            .chain(priors.entries.iter().map(|p| p.title.as_str()))
            .collect();
        let mut texts: Vec<&str> = vec![self.state.as_str()];
        texts.extend(titles);
        texts.extend(task);
        let project: HashSet<String> = crate::search::answerable::subject_words(&texts)
            .into_iter()
            .collect();
        let mut found: Vec<(usize, String)> = Vec::new();
        for link in &links.links {
            let Ok(linked) = crate::store::links::open(link) else {
                continue;
            };
            let Ok(file) = linked.priors() else { continue };
            for (p, superseded) in file.entries.iter().zip(file.superseded()) {
                if superseded || p.is_forgotten() {
                    continue;
                }
                let rules = p.rules();
                let mut own: Vec<&str> = vec![p.title.as_str(), p.field("Failure").unwrap_or("")];
                own.extend(rules.iter().map(String::as_str));
                let shared = crate::search::answerable::subject_words(&own)
                    .iter()
                    .filter(|w| project.contains(*w))
                    .count();
                let id = format!("{}:{}", link.name, p.id);
                if shared == 0 || !self.screen.pass(&id, &p.title, &p.content(&file)) {
                    continue;
                }
                let rules: String = rules
                    .iter()
                    .map(|r| format!("  - {}\n", r.replace('\n', "\n    ")))
                    .collect();
                let shown = format!(
                    "- {id} {} ({})\n{rules}",
                    p.title,
                    p.root_cause().unwrap_or("-")
                );
                self.screen.shown(&shown);
                found.push((shared, shown));
            }
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        let mut text = String::new();
        for (_, entry) in found {
            if self.fits(LINKED, &format!("{text}{entry}")) {
                text.push_str(&entry);
            } else {
                self.left.linked_lessons += 1;
            }
        }
        if !text.is_empty() {
            self.push(LINKED, text.trim_end().to_string());
        }
    }

    /// What was withheld goes right after STATE and the facts, whatever the budget: the agent
    /// must know memory holds something it was not shown, and why.
    pub(super) fn withheld(&mut self) {
        if let Some(text) = self.screen.text() {
            let at = self
                .sections
                .iter()
                .take_while(|s| s.name == "State" || s.name == "Facts")
                .count();
            self.used += cost(WITHHELD, &text);
            self.sections.insert(
                at,
                Section {
                    name: WITHHELD.into(),
                    text,
                },
            );
        }
    }
}

/// The last snapshot (`snapshots`) or session file and its text: now, or as the memory held
/// them at `at`. An unreadable file now is empty text, as a missing section is.
fn last_file(
    memory: &Memory,
    at: Option<&AsOf>,
    snapshots: bool,
) -> Result<Option<(String, String)>> {
    let names = match (at, snapshots) {
        (None, true) => memory.snapshot_names()?,
        (None, false) => memory.session_names()?,
        (Some(at), _) => memory.names_as_of(at, snapshots)?,
    };
    let Some(name) = names.last() else {
        return Ok(None);
    };
    let text = match at {
        None => {
            let dir = if snapshots {
                memory.layout.snapshots()
            } else {
                memory.layout.sessions()
            };
            crate::store::fsio::read_text(&dir.join(name))
                .ok()
                .flatten()
                .map(|t| t.as_str().to_string())
                .unwrap_or_default()
        }
        Some(at) => memory.dir_text_as_of(at, name, snapshots)?,
    };
    Ok(Some((name.clone(), text)))
}

/// A decision as the bundle shows it: the full entry, with its latest outcome (`outcome`:
/// whether it may be shown; one withheld is named, never quoted).
fn entry_text(log: &DecisionLog, i: usize, outcome: bool) -> String {
    let mut s = log.entries[i].content(log);
    if let Some(j) = log.latest_outcome_entry(i) {
        if outcome {
            s.push_str(&format!(
                "\n(latest outcome, {}: {})",
                log.entries[j].id,
                log.field(j, "Outcome").unwrap_or("")
            ));
        } else {
            s.push_str(&format!(
                "\n(its latest outcome, {}, is withheld: see Withheld)",
                shown_id(&log.entries[j].id)
            ));
        }
    }
    s.push_str("\n\n");
    s
}

/// A decision as the bundle shows it (`entry_text`), with a note when it is stale.
fn decision_text(
    log: &DecisionLog,
    i: usize,
    outcome: bool,
    stale: &HashMap<String, StaleEntry>,
) -> String {
    let mut t = entry_text(log, i, outcome);
    if let Some(m) = stale.get(&log.entries[i].id) {
        t.insert_str(
            t.trim_end().len(),
            &format!(
                "\n(stale: {} changed under its paths since it was made; check it still holds)",
                crate::format::moved(m.commits, m.lines)
            ),
        );
    }
    t
}

/// A lesson as the bundle shows it in full: its ID, title and root cause, then its rules.
fn prior_full(p: &crate::format::prior::Prior) -> String {
    let rules: String = p
        .rules()
        .iter()
        .map(|r| format!("  - {}\n", r.replace('\n', "\n    ")))
        .collect();
    format!(
        "- {} {} ({})\n{rules}",
        p.id,
        p.title,
        p.root_cause().unwrap_or("-")
    )
}

/// A lesson on one line: its ID, title and first rule.
fn prior_compact(p: &crate::format::prior::Prior) -> String {
    let first = p.rules().into_iter().next().unwrap_or_default();
    let first = first
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(160)
        .collect::<String>();
    format!("- {} {}: {first}\n", p.id, p.title)
}

/// A fact as the bundle shows it: `key = value` (user facts marked).
fn fact_line(v: &crate::store::facts::FactView) -> String {
    let user = if v.scope == crate::store::facts::Scope::User {
        "  (user)"
    } else {
        ""
    };
    format!("- {} = {}{user}\n", v.key, v.value.replace('\n', "\n  "))
}
