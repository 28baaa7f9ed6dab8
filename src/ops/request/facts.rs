//! `fact_get`, `fact_set`, `fact_list`: exact facts and preferences by key.

use super::{APPENDS, Env, Hints, Operation, READS, Report};
use crate::store::facts::{FactInput, FactSet, FactView, Scope};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The exact value of a fact by key.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactGet {
    /// category:entity
    pub key: String,
    /// a date, time or commit
    pub as_of: Option<String>,
    /// Only this scope (`--scope`).
    #[serde(skip)]
    pub scope: Option<Scope>,
    /// A newer provisional version wins (`--provisional`).
    #[serde(skip)]
    pub provisional: bool,
}

/// A fact's value, or why there is none.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum FactGot {
    Found(FactView),
    Missing {
        key: String,
        found: bool,
        /// "no fact K", with the moment asked about and a provisional value's existence.
        #[serde(skip)]
        why: String,
    },
}

impl Operation for FactGet {
    const NAME: &'static str = "fact_get";
    const ABOUT: &'static str =
        "The exact value of a fact by key, e.g. stack:web-framework. Look here before searching.";
    const HINTS: Hints = READS;
    type Report = FactGot;

    fn run(self, env: &mut Env) -> Result<FactGot> {
        let memory = env.memory;
        let at = super::as_of(memory, self.as_of.as_deref())?;
        if let Some(v) =
            memory.fact_get_as_of(&self.key, self.scope, self.provisional, at.as_ref())?
        {
            return Ok(FactGot::Found(v));
        }
        let provisional = !self.provisional
            && memory
                .fact_get_as_of(&self.key, self.scope, true, at.as_ref())?
                .is_some();
        let hint = if provisional {
            " (only a provisional value: see `zo fact get --provisional`)"
        } else {
            ""
        };
        let then = at
            .map(|at| format!(" as of {}", at.label()))
            .unwrap_or_default();
        Ok(FactGot::Missing {
            why: format!("no fact {}{then}{hint}", self.key),
            key: self.key,
            found: false,
        })
    }
}

impl Report for FactGot {
    fn text(&self) -> String {
        match self {
            FactGot::Found(v) => format!("{} = {}", v.key, v.value),
            FactGot::Missing { why, .. } => why.clone(),
        }
    }
}

/// `fact_set`: the request is the store's input itself (`FactInput`).
pub type FactSetRequest = FactInput;

impl Operation for FactInput {
    const NAME: &'static str = "fact_set";
    const ABOUT: &'static str = "Set a fact or preference (a new version; the latest holds).";
    // Not idempotent: the same active value again writes nothing, but a provisional one is a
    // new version each time.
    const HINTS: Hints = APPENDS;
    type Report = FactSet;

    fn run(self, env: &mut Env) -> Result<FactSet> {
        let memory = env.memory;
        let file = memory
            .facts_path(self.scope.unwrap_or(Scope::Project))
            .map(|p| memory.layout.show(&p))
            .unwrap_or_default();
        memory
            .fact_set(&self, self.allow)
            .with_context(|| format!("nothing was written to {file}"))
    }
}

impl Report for FactSet {
    fn text(&self) -> String {
        let line = format!("{}: {} = {}", self.fact.id, self.fact.key, self.fact.value);
        if self.unchanged {
            line
        } else {
            format!("recorded {line}")
        }
    }

    fn notes(&self) -> Vec<String> {
        if self.unchanged {
            vec![format!(
                "{} already holds this value ({}); nothing was written",
                self.fact.key, self.fact.id
            )]
        } else if self.status == crate::format::Status::Provisional {
            vec![format!(
                "{} is provisional: `zo fact get` keeps the confirmed value until `zo confirm {}`",
                self.fact.id, self.fact.id
            )]
        } else {
            vec![]
        }
    }
}

/// Every fact that holds.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactList {
    /// e.g. stack:
    pub prefix: Option<String>,
    /// a date, time or commit
    pub as_of: Option<String>,
    /// Only this scope (`--scope`).
    #[serde(skip)]
    pub scope: Option<Scope>,
    /// Every version (`--all`).
    #[serde(skip)]
    pub all: bool,
}

/// The facts listed, as `{"facts": […]}`.
#[derive(Debug, Clone, Serialize)]
pub struct FactsListed {
    pub facts: Vec<FactView>,
    #[serde(skip)]
    pub all: bool,
}

impl Operation for FactList {
    const NAME: &'static str = "fact_list";
    const ABOUT: &'static str = "Every fact that holds, or those under a key prefix.";
    const HINTS: Hints = READS;
    type Report = FactsListed;

    fn run(self, env: &mut Env) -> Result<FactsListed> {
        let at = super::as_of(env.memory, self.as_of.as_deref())?;
        let facts = env.memory.fact_list_as_of(
            self.prefix.as_deref(),
            self.scope,
            self.all,
            at.as_ref(),
        )?;
        Ok(FactsListed {
            facts,
            all: self.all,
        })
    }
}

impl Report for FactsListed {
    fn text(&self) -> String {
        crate::ops::text::facts(&self.facts, self.all)
    }

    fn notes(&self) -> Vec<String> {
        if self.facts.is_empty() {
            vec!["no facts yet; set one with `zo fact set category:entity VALUE`".into()]
        } else {
            vec![]
        }
    }
}
