//! The operations that append to memory: `decide`, `outcome`, `confirm`, `forget`,
//! `prior_add`, `session_end`. Every one writes through `Memory` (its lock, its gate), and a
//! refusal says which file was left untouched.

use super::{APPENDS, Env, Hints, Operation, Report};
use crate::error::Error;
use crate::lifecycle::forget::Forgotten;
use crate::lifecycle::session::{Ended, Ending};
use crate::ops::{Decided, OutcomeRecorded, PriorAdded};
use crate::store::facts::Confirmed;
use crate::store::gate::Allow;
use crate::store::write::{DecisionInput, PriorInput};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::PathBuf;

/// `decide`: the request is the store's input itself (`DecisionInput`).
pub type Decide = DecisionInput;

impl Operation for DecisionInput {
    const NAME: &'static str = "decide";
    const ABOUT: &'static str = "Record a decision (a library, design, scope cut, fix strategy). To change one, pass supersedes.";
    const HINTS: Hints = APPENDS;
    const REQUIRED: &'static [&'static str] = &["title", "decision"];
    type Report = Decided;

    fn run(self, env: &mut Env) -> Result<Decided> {
        // An empty field is a missing one: there is no decision without both.
        let missing: Vec<&str> = [
            ("a title (--title)", self.title.is_empty()),
            ("a decision (--decision)", self.decision.is_empty()),
        ]
        .iter()
        .filter(|m| m.1)
        .map(|m| m.0)
        .collect();
        if !missing.is_empty() {
            return Err(Error::usage(format!("decide needs {}", missing.join(" and "))).into());
        }
        let memory = env.memory;
        let new = memory.decide(&self, self.allow).with_context(|| {
            format!(
                "nothing was written to {}",
                memory.layout.show(&memory.layout.decision_log())
            )
        })?;
        Ok(Decided::from(new))
    }
}

impl Report for Decided {
    fn text(&self) -> String {
        format!("recorded {}: {}", self.id, self.title)
    }

    fn notes(&self) -> Vec<String> {
        Decided::notes(self)
    }
}

/// Record what came of an earlier decision.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// decision ID
    pub id: String,
    /// what happened
    pub text: String,
    #[serde(skip)]
    pub allow: Allow,
}

impl Operation for Outcome {
    const NAME: &'static str = "outcome";
    const ABOUT: &'static str = "Record what came of an earlier decision.";
    const HINTS: Hints = APPENDS;
    type Report = OutcomeRecorded;

    fn run(self, env: &mut Env) -> Result<OutcomeRecorded> {
        let memory = env.memory;
        let new = memory
            .outcome(&self.id, &self.text, self.allow)
            .with_context(|| {
                format!(
                    "nothing was written to {}",
                    memory.layout.show(&memory.layout.decision_log())
                )
            })?;
        Ok(OutcomeRecorded::from(new))
    }
}

impl Report for OutcomeRecorded {
    fn text(&self) -> String {
        format!("recorded {} for {}", self.id, self.refs)
    }
}

/// Confirm a provisional decision or fact version.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Confirm {
    /// D-… or F-…
    pub id: String,
    /// `--compatible-with ID` (the CLI's): record two active decisions that read as one subject
    /// with two choices as holding together. A person's judgement, so no tool argument.
    #[serde(skip)]
    pub compatible_with: Option<String>,
}

impl Operation for Confirm {
    const NAME: &'static str = "confirm";
    const ABOUT: &'static str =
        "Confirm a provisional decision or fact so it joins the bundle and recall.";
    // Confirming what is active already writes nothing.
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    type Report = Confirmed;

    fn run(self, env: &mut Env) -> Result<Confirmed> {
        for (id, flag) in std::iter::once((&self.id, "ID")).chain(
            self.compatible_with
                .iter()
                .map(|o| (o, "--compatible-with")),
        ) {
            if id.trim().is_empty() {
                return Err(crate::error::Error::usage(format!(
                    "confirm needs a decision or fact ID ({flag}), not an empty one"
                ))
                .into());
            }
        }
        match &self.compatible_with {
            // Only a pair `zo verify` names: a confirmation is permanent, and naming two
            // unrelated decisions compatible would say something nobody asked.
            Some(other) => env.memory.confirm_compatible_pair(
                &self.id,
                other,
                &crate::lifecycle::contradictions::names,
            ),
            None => env.memory.confirm(&self.id),
        }
    }
}

impl Report for Confirmed {
    fn text(&self) -> String {
        match &self.compatible_with {
            Some(other) => format!(
                "{} and {other} confirmed compatible ({})",
                self.confirmed, self.id
            ),
            None => format!("{} confirmed ({})", self.confirmed, self.id),
        }
    }

    fn notes(&self) -> Vec<String> {
        if let Some(other) = &self.compatible_with {
            return vec![if self.unchanged {
                format!(
                    "{} and {other} are recorded as compatible already; nothing written",
                    self.confirmed
                )
            } else {
                format!(
                    "{} and {other} hold together: zo verify and the merge driver no longer name them",
                    self.confirmed
                )
            }];
        }
        vec![if self.unchanged {
            format!("{} is active already; nothing to confirm", self.confirmed)
        } else {
            format!(
                "{} is confirmed: it is in the bundle and default recall now",
                self.confirmed
            )
        }]
    }
}

/// Erase an entry holding a secret or personal data.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forget {
    /// D-…, PR-… or F-…
    pub id: String,
    /// why
    pub reason: String,
    /// `--replace-text FILE`: where to write git filter-repo's replacements (a person's file).
    #[serde(skip)]
    pub replace_text: Option<PathBuf>,
}

impl Forget {
    /// Why a forget without a terminal erases nothing (SPEC §3a: erasing memory is a person's
    /// act at a terminal, as approving is; an agent's shell has none). A usage error: exit 2.
    pub fn not_at_terminal(id: &str) -> anyhow::Error {
        crate::error::Error::usage(format!(
            "forgetting erases memory for good, so a person does it at a terminal, and stdin is not one: run `zo forget {id} --reason …` yourself in a terminal. An agent cannot erase memory; nothing was erased."
        ))
        .into()
    }
}

impl Operation for Forget {
    const NAME: &'static str = "forget";
    const ABOUT: &'static str =
        "Erase an entry holding a secret or personal data (a tombstone stays).";
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Report = Forgotten;

    fn run(self, env: &mut Env) -> Result<Forgotten> {
        env.memory
            .forget_to(&self.id, &self.reason, self.replace_text.as_deref())
            .context("nothing was erased")
    }
}

impl Report for Forgotten {
    fn vouched(&self) -> Vec<crate::store::shown::Vouch> {
        vec![crate::store::shown::Vouch::Own(
            crate::lifecycle::forget::PUSH_ALL,
        )]
    }

    fn text(&self) -> String {
        let r = self;
        let mut s = format!(
            "{} forgotten: {}:{} now holds its tombstone",
            r.erasure.id, r.erasure.file, r.erasure.line
        );
        s.push_str(if r.index_purged {
            "; its index rows and vectors are purged\n"
        } else {
            "\n"
        });
        if !r.state_cleared.is_empty() {
            s.push_str(&format!(
                "STATE.md no longer holds its text: {} cleared\n",
                r.state_cleared.join(", ")
            ));
        }
        if !r.listings_cleared.is_empty() {
            s.push_str(&format!(
                "no longer listed with its title in {}\n",
                r.listings_cleared.join(", ")
            ));
        }
        if r.in_history {
            s.push_str("\nGit history still holds the text (it is in the last commit). A person must purge it:\n");
            for c in &r.purge {
                s.push_str(&format!("  {c}\n"));
            }
        } else {
            s.push_str("The text was not in the last commit; if an older commit or a stash holds it, purge it with git filter-repo.\n");
        }
        s
    }
}

/// Record a lesson a failure taught.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorAdd {
    /// the lesson
    pub title: String,
    /// why it failed
    #[schemars(schema_with = "root_causes")]
    pub root_cause: String,
    /// what went wrong
    pub failure: String,
    /// rules it taught
    pub rules: Vec<String>,
    /// where it was learned
    pub source: Option<String>,
    /// the verified fix
    pub solution: Option<String>,
    #[serde(skip)]
    pub allow: Allow,
}

/// The root causes a prior takes (the store checks them, in any case).
fn root_causes(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": crate::format::prior::ROOT_CAUSES })
}

impl Operation for PriorAdd {
    const NAME: &'static str = "prior_add";
    const ABOUT: &'static str = "Record a lesson a failure taught, with the rules it gives.";
    const HINTS: Hints = APPENDS;
    type Report = PriorAdded;

    fn run(self, env: &mut Env) -> Result<PriorAdded> {
        let missing: Vec<&str> = [
            ("a title (--title)", self.title.is_empty()),
            ("a root cause (--root-cause)", self.root_cause.is_empty()),
            ("the failure (--failure)", self.failure.is_empty()),
            ("a rule (--rule)", self.rules.is_empty()),
        ]
        .iter()
        .filter(|m| m.1)
        .map(|m| m.0)
        .collect();
        if !missing.is_empty() {
            return Err(Error::usage(format!("prior add needs {}", missing.join(", "))).into());
        }
        let input = PriorInput {
            title: self.title,
            root_cause: self.root_cause,
            failure: self.failure,
            rules: self.rules,
            source: self.source.unwrap_or_default(),
            solution: self.solution.unwrap_or_default(),
        };
        let memory = env.memory;
        let (id, similar) = memory.add_prior(&input, self.allow).with_context(|| {
            format!(
                "nothing was written to {}",
                memory.layout.show(&memory.layout.priors())
            )
        })?;
        Ok(PriorAdded { id, similar })
    }
}

impl Report for PriorAdded {
    fn text(&self) -> String {
        format!("recorded {}", self.id)
    }

    fn notes(&self) -> Vec<String> {
        PriorAdded::notes(self)
    }
}

/// `session_end`: the request is the lifecycle's `Ending`.
pub type SessionEnd = Ending;

impl Operation for Ending {
    const NAME: &'static str = "session_end";
    const ABOUT: &'static str = "End the session: write its record and update STATE.";
    // It rewrites STATE's phase, blockers and next steps.
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Report = Ended;

    fn run(self, env: &mut Env) -> Result<Ended> {
        // Given nothing to say, a session that wrote nothing has no file to write: each call
        // wrote another empty session.
        let nothing_given = self.is_empty();
        let ended = crate::lifecycle::session::end(env.memory, &self, nothing_given)?.ok_or_else(|| {
            Error::Failed("nothing to record: no session wrote anything since the last one, and no summary, shipped or next steps were given".into())
        })?;
        // Bring the index's rows up to date; embeddings wait for the next semantic reader.
        if let Err(e) = crate::search::recall::open_fresh(env.memory, &|_| {}) {
            (env.note)(&format!("the index was not refreshed: {e:#}"));
        }
        Ok(ended)
    }
}

impl Report for Ended {
    fn text(&self) -> String {
        format!(
            "{}; STATE.md updated",
            crate::ops::text::ended(&self.file, self.decisions.len(), self.priors.len())
        )
    }
}
