//! The reads: `show`, `log`, `history`, `status`, `stale`.

use super::{Env, Hints, Operation, READS, Report};
use crate::lifecycle::stale::StaleReport;
use crate::ops::history::Life;
use crate::ops::{LogQuery, LogReport, StatusReport};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One entry in full.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Show {
    /// D-…, PR-…, F-…, a session name or last
    pub id: String,
    /// decisions: at a date, time or commit
    pub as_of: Option<String>,
    /// A person's terminal (`zo show`): the entry as written, not quoted as data, and no walk
    /// of git's history for its origin.
    #[serde(skip)]
    pub plain: bool,
}

/// The entry (`ops::show`'s JSON) and how its text is shown.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Shown {
    pub entry: Value,
    #[serde(skip)]
    pub quoted: bool,
}

impl Operation for Show {
    const NAME: &'static str = "show";
    const ABOUT: &'static str = "One entry in full.";
    const HINTS: Hints = READS;
    type Report = Shown;

    fn run(self, env: &mut Env) -> Result<Shown> {
        if self.id.trim().is_empty() {
            return Err(crate::error::Error::usage(
                "show needs an ID: D-…, PR-…, F-…, a session's name or last",
            )
            .into());
        }
        // `team:PR-004`: the entry of the linked memory `team`, shown as its own would be.
        if let Some((name, linked, id)) =
            crate::store::links::qualified(&env.memory.layout, &self.id)?
        {
            let mut sub = Env {
                memory: &linked,
                search: env.search.reborrow(),
                note: env.note,
                agent: env.agent,
            };
            let mut shown = match (Show { id, ..self.clone() }).own(&mut sub) {
                Ok(s) => s,
                // A link named like a fact's category does not hide the project's fact.
                Err(e) => {
                    return self
                        .clone()
                        .own(env)
                        .map_err(|_| e.context(format!("in the linked memory {name}")));
                }
            };
            if let Some(o) = shown.entry.as_object_mut() {
                o.insert("memory".into(), name.into());
            }
            return Ok(shown);
        }
        self.own(env)
    }
}

impl Show {
    /// The entry of the project's own memory.
    fn own(self, env: &mut Env) -> Result<Shown> {
        let at = super::as_of(env.memory, self.as_of.as_deref())?;
        let v = crate::ops::show_as_of(env.memory, &self.id, at.as_ref())?;
        // Provenance walks git's history: for readers of the JSON, never on the hook path.
        let v = if at.is_none() && !self.plain {
            crate::ops::entries::with_origin(env.memory, v)?
        } else {
            v
        };
        Ok(Shown {
            entry: v,
            quoted: !self.plain,
        })
    }
}

impl Report for Shown {
    fn text(&self) -> String {
        crate::ops::text::show(&self.entry, self.quoted)
    }
}

fn twenty() -> Option<usize> {
    Some(20)
}

/// Decisions, newest first.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Log {
    /// only this type
    #[serde(rename = "type")]
    pub decision_type: Option<String>,
    /// YYYY-MM-DD
    pub since: Option<String>,
    /// only this tag
    pub tag: Option<String>,
    /// at most this many
    #[serde(default = "twenty")]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
    /// a date, time or commit
    pub as_of: Option<String>,
    /// OUTCOME entries too (`--all`).
    #[serde(skip)]
    pub all: bool,
    /// A person's terminal (`zo log`): a title the directive rules flag is marked, not withheld.
    #[serde(skip)]
    pub plain: bool,
    /// A linked memory's log instead of the project's (`--memory NAME`).
    #[serde(skip)]
    pub memory: Option<String>,
}

/// The decisions listed, and their lines as text.
#[derive(Debug, Clone, Serialize)]
pub struct Logged {
    #[serde(flatten)]
    pub report: LogReport,
    #[serde(skip)]
    pub lines: String,
    /// Conflict markers in the log, and why nothing is listed when nothing is.
    #[serde(skip)]
    pub notes: Vec<String>,
    /// The linked memory listed (`--memory NAME`); absent: the project's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

impl Operation for Log {
    const NAME: &'static str = "log";
    const ABOUT: &'static str = "List decisions, newest first.";
    const HINTS: Hints = READS;
    type Report = Logged;

    fn run(mut self, env: &mut Env) -> Result<Logged> {
        if let Some(name) = self.memory.take().filter(|n| n != "project") {
            let (name, linked) =
                super::open_link(&crate::store::links::load(&env.memory.layout), &name)?;
            let mut sub = Env {
                memory: &linked,
                search: env.search.reborrow(),
                note: env.note,
                agent: env.agent,
            };
            let mut logged = self
                .run(&mut sub)
                .map_err(|e| e.context(format!("in the linked memory {name}")))?;
            logged.notes.insert(
                0,
                format!("the linked memory {name}'s decisions (`zo show {name}:ID`)"),
            );
            logged.memory = Some(name);
            return Ok(logged);
        }
        let q = LogQuery {
            decision_type: self.decision_type,
            since: self.since,
            limit: self.limit,
            all: self.all,
            tag: self.tag,
        };
        q.check()?;
        let memory = env.memory;
        let at = super::as_of(memory, self.as_of.as_deref())?;
        // Now: the quick read, whose summary knows whether the log holds conflict markers.
        let (log, log_conflict) = match &at {
            None => memory.decisions_quick()?,
            Some(_) => (memory.decisions_as_of(at.as_ref())?, true),
        };
        let mut notes: Vec<String> = memory
            .conflict_markers_in(log_conflict)
            .iter()
            .map(|p| p.to_string())
            .collect();
        let mut report = crate::ops::log(&log, &q)?;
        if !report.untitled.is_empty() {
            let lines: Vec<String> = report.untitled.iter().map(|l| l.to_string()).collect();
            notes.push(format!(
                "{} of {} not listed: no title (line {}); `zo verify` says what is wrong",
                crate::format::count(report.untitled.len(), "entry", "entries"),
                memory.layout.show(&memory.layout.decision_log()),
                lines.join(", ")
            ));
        }
        if report.picked.is_empty() {
            // A commit from before `zo init` holds no memory, not an empty log.
            notes.push(
                at.as_ref()
                    .and_then(|a| a.no_memory_then(memory))
                    .unwrap_or_else(|| "no decisions match".into()),
            );
        }
        let lines = report
            .picked
            .iter()
            .map(|&i| crate::ops::text::log_line(&log, i, !self.plain))
            .collect();
        report.as_of = at;
        Ok(Logged {
            report,
            lines,
            notes,
            memory: None,
        })
    }
}

impl Report for Logged {
    fn text(&self) -> String {
        self.lines.clone()
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

/// An entry's whole life.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// D-…, PR-…, F-… or a fact key
    pub id: String,
}

impl Operation for History {
    const NAME: &'static str = "history";
    const ABOUT: &'static str =
        "An entry's whole life: where written, outcomes, supersessions; a fact key's versions.";
    const HINTS: Hints = READS;
    type Report = Lived;

    fn run(self, env: &mut Env) -> Result<Lived> {
        if self.id.trim().is_empty() {
            return Err(crate::error::Error::usage(
                "history needs an ID (D-…, PR-…, F-…) or a fact key",
            )
            .into());
        }
        if let Some((name, linked, id)) =
            crate::store::links::qualified(&env.memory.layout, &self.id)?
        {
            return match crate::ops::history::life(&linked, &id) {
                Ok(life) => Ok(Lived {
                    life,
                    memory: Some(name),
                }),
                // A link named like a fact's category does not hide the project's fact key.
                Err(e) => crate::ops::history::life(env.memory, &self.id)
                    .map(|life| Lived { life, memory: None })
                    .map_err(|_| e.context(format!("in the linked memory {name}"))),
            };
        }
        Ok(Lived {
            life: crate::ops::history::life(env.memory, &self.id)?,
            memory: None,
        })
    }
}

/// An entry's life, and the linked memory it is in (`history team:PR-004`).
#[derive(Debug, Clone, Serialize)]
pub struct Lived {
    #[serde(flatten)]
    pub life: Life,
    /// The linked memory the entry is in; absent: the project's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

impl Report for Lived {
    fn text(&self) -> String {
        let from = self
            .memory
            .as_deref()
            .map(|m| {
                format!(
                    "(from the linked memory {})\n",
                    crate::store::gate::frame::one_line(m)
                )
            })
            .unwrap_or_default();
        format!("{from}{}", self.life.render())
    }
}

/// Where the project stands.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Status {}

impl Operation for Status {
    const NAME: &'static str = "status";
    const ABOUT: &'static str = "Where the project stands: phase, blockers, next steps, counts.";
    const HINTS: Hints = READS;
    type Report = StatusReport;

    fn run(self, env: &mut Env) -> Result<StatusReport> {
        crate::ops::status(env.memory)
    }
}

impl Report for StatusReport {
    fn text(&self) -> String {
        crate::ops::text::status(self)
    }

    fn notes(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

/// Active decisions whose governed paths moved on.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stale {
    /// commits on its paths (default 5)
    pub commits: Option<usize>,
    /// or lines changed (default 200)
    pub lines: Option<u64>,
    /// fresh ones too
    #[serde(default)]
    pub all: bool,
}

/// The decisions measured, and which of them to list.
#[derive(Debug, Clone, Serialize)]
pub struct StaleListed {
    #[serde(flatten)]
    pub report: StaleReport,
    #[serde(skip)]
    pub all: bool,
}

impl Operation for Stale {
    const NAME: &'static str = "stale";
    const ABOUT: &'static str = "Decisions whose paths changed a lot since.";
    const HINTS: Hints = READS;
    type Report = StaleListed;

    fn run(self, env: &mut Env) -> Result<StaleListed> {
        use crate::lifecycle::stale::{COMMITS, LINES, stale};
        let report = stale(
            env.memory,
            self.commits.unwrap_or(COMMITS),
            self.lines.unwrap_or(LINES),
        )?;
        Ok(StaleListed {
            report,
            all: self.all,
        })
    }
}

impl Report for StaleListed {
    fn text(&self) -> String {
        crate::ops::text::stale(&self.report, self.all)
    }

    fn notes(&self) -> Vec<String> {
        let r = &self.report;
        if r.checked == 0 {
            vec!["no active decision names the paths it governs (zo decide --paths src/api,docs/api.md)".into()]
        } else if r.stale == 0 && !self.all {
            vec![crate::ops::text::none_stale(r.checked)]
        } else {
            vec![]
        }
    }
}
