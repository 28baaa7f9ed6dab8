//! `recall`: the entries that answer a question, best first.

use super::{Env, Hints, Operation, READS, Report};
use crate::error::Error;
use crate::ops::RecallReport;
use crate::search::index::Filter;
use crate::search::recall::{self, Mode, Tier};
use crate::store::facts::Scope;
use anyhow::{Result, bail};
use serde::Deserialize;

/// Which entries a recall searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Among {
    #[default]
    All,
    Decision,
    Prior,
    Session,
    Fact,
}

crate::named!(Among { All => "all", Decision => "decision", Prior => "prior", Session => "session", Fact => "fact" });

/// Search project memory for what answers a question.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Recall {
    /// the question
    pub query: String,
    /// 2-3 phrasings with the names a record would use
    #[serde(default)]
    pub also: Vec<String>,
    /// how many (default 3)
    #[schemars(range(min = 1))]
    pub k: Option<usize>,
    /// only this kind
    pub kind: Option<Among>,
    /// only decisions of this type
    #[serde(rename = "type")]
    pub decision_type: Option<String>,
    /// default hybrid (lexical without a model)
    pub mode: Option<Mode>,
    /// drop weaker hits
    pub min_tier: Option<Tier>,
    /// a date, time or commit
    pub as_of: Option<String>,
    /// Superseded and provisional entries too (`--all`).
    #[serde(skip)]
    pub all: bool,
    /// unconfirmed entries too
    #[serde(default)]
    pub provisional: bool,
    /// Only this scope's facts (`--scope`).
    #[serde(skip)]
    pub scope: Option<Scope>,
    /// Each hit's ranks and scores (`--explain`).
    #[serde(skip)]
    pub explain: bool,
    /// Each hit's origin (a walk of git's history): for JSON readers, not a terminal's text.
    #[serde(skip)]
    pub without_origins: bool,
    /// Which memory to search (`--memory`): `project`, a linked memory's name, or `all` (the
    /// default: the project and every linked memory).
    #[serde(skip)]
    pub memory: Option<String>,
}

impl Recall {
    fn check(&self) -> Result<()> {
        if self.query.trim().is_empty() {
            return Err(Error::usage(
                "recall needs a query, e.g. zo recall \"why did we pick Postgres\"",
            )
            .into());
        }
        if self.also.len() > recall::MAX_ALSO {
            return Err(Error::usage(format!(
                "also (--also) takes at most {} phrasings besides the question, not {}",
                recall::MAX_ALSO,
                self.also.len()
            ))
            .into());
        }
        if self.also.iter().any(|p| p.trim().is_empty()) {
            return Err(Error::usage("also (--also) needs a phrasing, not an empty string").into());
        }
        if self.k == Some(0) {
            return Err(
                Error::usage("k (-k) must be at least 1 (how many entries to return)").into(),
            );
        }
        Ok(())
    }
}

impl Operation for Recall {
    const NAME: &'static str = "recall";
    const ABOUT: &'static str = "Search project memory for what answers a question; call it before deciding anything. If answered is false, retry once with other names in also, then accept it is not there.";
    const HINTS: Hints = READS;
    type Report = RecallReport;

    fn run(mut self, env: &mut Env) -> Result<RecallReport> {
        self.check()?;
        let which = self.memory.take().unwrap_or_else(|| "all".into());
        // `project` reads no link (a linked memory's own search is run as `project` too).
        let links = if which == "project" {
            crate::store::links::Links::default()
        } else {
            crate::store::links::load(&env.memory.layout)
        };
        if which != "all" && which != "project" {
            // One linked memory: searched as the project is, its hits named by it.
            let (name, linked) = super::open_link(&links, &which)?;
            let mut sub = Env {
                memory: &linked,
                search: env.search.reborrow(),
                note: env.note,
                agent: env.agent,
            };
            let mut report = Recall {
                memory: Some("project".into()),
                ..self
            }
            .run(&mut sub)?;
            report.name_memory(&name);
            return Ok(report);
        }
        let memory = env.memory;
        let k = self
            .k
            .or_else(|| {
                memory
                    .layout
                    .config
                    .u64(&["recall", "top_k"])
                    .map(|v| v as usize)
            })
            .unwrap_or(3)
            .min(recall::MAX_K);
        let kind = self
            .kind
            .filter(|k| *k != Among::All)
            .map(|k| k.name().to_string());
        let filter = Filter {
            kind,
            subtype: self.decision_type.clone(),
            all: self.all,
            provisional: self.provisional,
            scope: self.scope,
            ..Default::default()
        };
        let mode = self.mode.unwrap_or(Mode::Hybrid);
        // Only the default falls back to lexical search; a mode the caller asked for is a promise.
        if let Some(why) = self.mode.and_then(|m| recall::mode_unavailable(memory, m)) {
            bail!("mode {}: {why}", mode.name());
        }
        let min_tier = self.min_tier.unwrap_or(Tier::Low);
        let at = super::as_of(memory, self.as_of.as_deref())?;
        // The linked memories (all, unless `--memory project`): now only (their pasts are in
        // their own histories), and never for the user's facts, which every memory shares.
        let linked: Vec<(String, crate::store::memory::Memory)> = if which == "all"
            && self.scope != Some(Scope::User)
        {
            for n in &links.notes {
                (env.note)(n);
            }
            if at.is_some() && !links.links.is_empty() {
                (env.note)(
                    "as_of (--as-of) searches the project's memory only, not the linked memories",
                );
            }
            links
                .links
                .iter()
                .filter(|_| at.is_none())
                .filter_map(|l| match crate::store::links::open(l) {
                    Ok(m) => Some((l.name.clone(), m)),
                    Err(e) => {
                        (env.note)(&format!("{e:#}; not searched (`zo links`)"));
                        None
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        // The project first, then each linked memory (none as of a date).
        let mut targets = vec![memory];
        targets.extend(linked.iter().map(|(_, m)| m));
        let mut linked_found = Vec::new();
        let found = match &at {
            None => {
                let mut each = env
                    .search
                    .recall_across(
                        &targets,
                        &self.query,
                        &self.also,
                        k,
                        &filter,
                        mode,
                        env.note,
                    )?
                    .into_iter();
                let found = each
                    .next()
                    .expect("the project's answer")?
                    .at_least(min_tier);
                for ((name, m), r) in linked.iter().zip(each) {
                    match r {
                        Ok(f) => {
                            let mut f = f.at_least(min_tier);
                            // The user's facts are in every memory's index: the project's answer has them.
                            f.hits.retain(|h| {
                                h.row.kind != "fact" || h.row.subtype != Scope::User.name()
                            });
                            let mut report = RecallReport::new(self.query.clone(), f, self.explain);
                            report.annotate(m, !self.without_origins)?;
                            report.name_memory(name);
                            linked_found.push(report);
                        }
                        Err(e) => (env.note)(&format!("linked memory {name} not searched: {e:#}")),
                    }
                }
                found
            }
            Some(at) => {
                // Entries superseded or provisional now may have held then: search them all,
                // more deeply, and let the memory of then decide.
                let wide = Filter {
                    all: true,
                    ..filter.clone()
                };
                let mut found = env
                    .search
                    .recall_with(
                        memory,
                        &self.query,
                        &self.also,
                        k.saturating_mul(4),
                        &wide,
                        mode,
                        env.note,
                    )?
                    .at_least(min_tier);
                found.hits = crate::ops::asof::recall_hits(
                    memory,
                    std::mem::take(&mut found.hits),
                    at,
                    &filter,
                )?;
                let unnamed = crate::search::answerable::judge_names_then(&mut found, &self.query)?;
                found.hits.truncate(k);
                // Judged on the hits of then: an answer of now that did not exist then is none.
                found.answered &= found.hits.iter().any(|h| h.tier >= Tier::Standard);
                if !found.answered && !unnamed {
                    found.why = Some("nothing of then scored above the low tier".into());
                }
                found
            }
        };
        if self.mode.is_some() && found.mode != mode {
            if let Some(why) = &found.note {
                bail!(
                    "mode {} needs the index, and {why}; use mode lexical",
                    mode.name()
                );
            }
            bail!(
                "mode {} needs the embedding model, which is not available here; install it with `zo model install`, or use mode lexical",
                mode.name()
            );
        }
        // Not answered by confirmed memory: do unconfirmed entries answer? (Only then: one more
        // search, on the path that already found nothing.)
        let answered_linked = linked_found.iter().any(|r| r.answered);
        // In every memory searched: a linked memory's is named `team:ID` (it was lost).
        let provisional = if !found.answered
            && !answered_linked
            && !self.all
            && !self.provisional
            && at.is_none()
        {
            let wide = Filter {
                provisional: true,
                ..filter.clone()
            };
            let names = std::iter::once(None).chain(linked.iter().map(|(n, _)| Some(n.as_str())));
            let mut matches = Vec::new();
            for (name, more) in names.zip(env.search.recall_across(
                &targets,
                &self.query,
                &self.also,
                k,
                &wide,
                mode,
                &|_| {},
            )?) {
                let Ok(more) = more else { continue };
                let answers = more.hits.into_iter().filter(|h| {
                    h.row.status == crate::format::Status::Provisional.name()
                        && h.tier >= Tier::Standard
                });
                matches.extend(answers.map(|h| crate::ops::ProvisionalMatch {
                    id: name.map_or(h.row.id.clone(), |n| format!("{n}:{}", h.row.id)),
                    title: h.row.title,
                    tier: h.tier,
                }));
            }
            matches
        } else {
            Vec::new()
        };
        let mut report = RecallReport::new(self.query, found, self.explain).with_also(self.also);
        report.provisional_matches = provisional;
        report.min_tier = min_tier;
        report.annotate(memory, !self.without_origins)?;
        if !linked_found.is_empty() {
            report.merge_linked(linked_found, k);
        }
        Ok(report)
    }
}

impl Report for RecallReport {
    fn shape() -> Option<schemars::Schema> {
        super::shape_of::<Self>()
    }

    fn text(&self) -> String {
        self.render()
    }

    fn notes(&self) -> Vec<String> {
        self.note(self.min_tier).into_iter().collect()
    }

    fn notes_first(&self) -> bool {
        true
    }
}
