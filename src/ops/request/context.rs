//! `context`: the session-start bundle; `session_start`: open a session record and return it.

use super::{Env, Hints, Operation, READS, Report};
use crate::lifecycle::context::Bundle;
use crate::ops::ContextReport;
use crate::search::recall::{Mode, Tier};
use crate::store::asof::AsOf;
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// The bundle for a task (or none) as the memory holds it now, or held it at `at`. For a task,
/// older decisions that match it are ranked with hybrid recall (lexical without a model);
/// without one the model is never loaded.
pub fn bundle(
    env: &mut Env,
    task: Option<&str>,
    budget: Option<usize>,
    at: Option<&AsOf>,
) -> Result<Bundle> {
    let (memory, note) = (env.memory, env.note);
    // As of then, decisions superseded since are searched too, so ask for more.
    let k = if at.is_some() { 40 } else { 10 };
    let search = &mut env.search;
    crate::ops::context_as_of(memory, task, budget, at, &mut |t, filter| {
        Ok(search
            .recall_with(memory, t, &[], k, filter, Mode::Hybrid, note)?
            .at_least(Tier::Standard)
            .hits)
    })
}

/// The session-start bundle: state, lessons, handoff, recent decisions, within a token budget.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Context {
    /// adds older decisions matching it
    pub task: Option<String>,
    /// tokens (default 4000)
    #[schemars(range(min = 1))]
    pub budget: Option<usize>,
    /// a date, time or commit
    pub as_of: Option<String>,
}

impl Operation for Context {
    const NAME: &'static str = "context";
    const ABOUT: &'static str =
        "The session-start bundle: state, lessons, handoff, recent decisions.";
    const HINTS: Hints = READS;
    type Report = ContextReport;

    fn run(self, env: &mut Env) -> Result<ContextReport> {
        let at = super::as_of(env.memory, self.as_of.as_deref())?;
        Ok(ContextReport::from(bundle(
            env,
            self.task.as_deref(),
            self.budget,
            at.as_ref(),
        )?))
    }
}

impl Report for ContextReport {
    fn text(&self) -> String {
        self.markdown.clone()
    }

    fn vouched(&self) -> Vec<crate::store::shown::Vouch> {
        self.bundle.vouched.clone()
    }
}

/// Start a session record; returns the context bundle.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionStart {
    /// what the session is about
    pub task: Option<String>,
    /// who works (default mcp)
    pub agent: Option<String>,
    /// bundle tokens (default 4000)
    pub budget: Option<usize>,
}

/// The bundle a session starts with, and the session left open that was ended first.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    #[serde(flatten)]
    pub context: ContextReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_first: Option<crate::lifecycle::session::Ended>,
}

impl Operation for SessionStart {
    const NAME: &'static str = "session_start";
    const ABOUT: &'static str = "Start a session (ending one left open); returns the bundle.";
    // Ending a session left open rewrites STATE's fields, as session_end does.
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
    type Report = Started;

    fn run(self, env: &mut Env) -> Result<Started> {
        let agent = self.agent.or_else(|| env.agent.map(str::to_string));
        // One policy for every way a session starts (`session::open`): a record left open is
        // ended first, so what it wrote gets its session file instead of being lost.
        let (starting, ended_first) =
            crate::lifecycle::session::open(env.memory, agent, self.task.clone(), None)?;
        // The bundle is built before the record is written, so it says what arrived since the
        // last session; the record is written even when the bundle fails.
        let b = bundle(env, self.task.as_deref(), self.budget, None);
        starting.finish(env.memory)?;
        Ok(Started {
            context: ContextReport::from(b?),
            ended_first,
        })
    }
}

impl Report for Started {
    fn text(&self) -> String {
        self.context.markdown.clone()
    }

    fn vouched(&self) -> Vec<crate::store::shown::Vouch> {
        self.context.vouched()
    }

    fn notes(&self) -> Vec<String> {
        let ended = self.ended_first.iter();
        ended
            .map(|e| {
                format!(
                    "the session left open was ended first: {}",
                    crate::ops::text::ended(&e.file, e.decisions.len(), e.priors.len())
                )
            })
            .collect()
    }
}
