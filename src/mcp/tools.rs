//! The tools: their schemas (kept small: the whole list is what an agent pays in context on
//! every session) and their adapters over the library.

use super::Server;
use crate::lifecycle::session::Ending;
use crate::search::index::Filter;
use crate::search::recall::{Mode, Tier};
use crate::store::asof::AsOf;
use crate::store::memory::Memory;
use crate::store::write::{DecisionInput, PriorInput};
use anyhow::{Result, anyhow, bail};
use serde::Deserialize;
use serde_json::{Value, json};

/// A tool: name, when to call it, its parameters (name, JSON type, description), required ones.
struct Spec {
    name: &'static str,
    about: &'static str,
    params: &'static [(&'static str, &'static str, &'static str)],
    required: &'static [&'static str],
}

/// `as_of`, as the CLI's `--as-of` reads it.
const AS_OF: &str = "as the memory stood then: YYYY-MM-DD, RFC 3339 time, or a commit";

const SPECS: &[Spec] = &[
    Spec {
        name: "recall",
        about: "Search project memory for what answers a question; call before deciding anything decided before. If answered is false, retry once with other names in also, then accept it is not there.",
        params: &[
            ("query", "string", "the question, in plain words"),
            ("also", "array", "2-3 more phrasings with the names a record would use: products, vendors, a likely title (Use X for Y)"),
            ("k", "integer", "how many entries (default 3)"),
            ("kind", "string", "decision | prior | session | fact | all"),
            ("type", "string", "only decisions of this type"),
            ("mode", "string", "hybrid | semantic | lexical"),
            ("min_tier", "string", "low | standard | high: drop weaker hits"),
            ("as_of", "string", AS_OF),
        ],
        required: &["query"],
    },
    Spec {
        name: "context",
        about: "The session-start bundle: state, lessons, handoff, recent decisions, within a token budget.",
        params: &[("task", "string", "adds older decisions that match it"), ("budget", "integer", "tokens (default 4000)"), ("as_of", "string", AS_OF)],
        required: &[],
    },
    Spec {
        name: "decide",
        about: "Record a decision (a library, design, scope cut, fix strategy). To change one, pass supersedes.",
        params: &[
            ("title", "string", "one line"),
            ("decision", "string", "what was decided"),
            ("type", "string", "ARCHITECTURE, SCOPE, BUGFIX, …"),
            ("rationale", "string", "why"),
            ("alternatives", "string", "what else was considered"),
            ("outcome", "string", "default pending"),
            ("supersedes", "string", "ID of the decision this replaces"),
            ("tags", "string", "comma-separated"),
            ("confidence", "number", "0 to 1 (default 1); below 0.7 it stays provisional until confirmed"),
            ("paths", "string", "comma-separated paths it governs (zo stale watches them)"),
        ],
        required: &["title", "decision"],
    },
    Spec {
        name: "fact_get",
        about: "The exact value of a fact or preference by key (category:entity), e.g. stack:web-framework. Look here before searching.",
        params: &[("key", "string", "category:entity"), ("as_of", "string", AS_OF)],
        required: &["key"],
    },
    Spec {
        name: "fact_set",
        about: "Set a fact or preference (a new version; the latest holds). Low confidence keeps it provisional until confirmed.",
        params: &[
            ("key", "string", "category:entity"),
            ("value", "string", "the value"),
            ("source", "string", "where it comes from"),
            ("confidence", "number", "0 to 1 (default 1)"),
            ("scope", "string", "project (default) | user"),
        ],
        required: &["key", "value"],
    },
    Spec {
        name: "fact_list",
        about: "Every fact and preference that holds, optionally those whose keys start with a prefix.",
        params: &[("prefix", "string", "e.g. stack:"), ("as_of", "string", AS_OF)],
        required: &[],
    },
    Spec {
        name: "confirm",
        about: "Confirm a provisional decision (D-…) or fact version (F-…) so it joins the bundle and recall.",
        params: &[("id", "string", "the ID")],
        required: &["id"],
    },
    Spec {
        name: "forget",
        about: "Erase an entry holding a secret or personal data: its text becomes a tombstone and its index rows are purged.",
        params: &[("id", "string", "D-…, PR-… or F-…"), ("reason", "string", "why, one line")],
        required: &["id", "reason"],
    },
    Spec { name: "stale", about: "Active decisions whose governed paths changed a lot since they were made.", params: &[], required: &[] },
    Spec {
        name: "outcome",
        about: "Record what came of an earlier decision.",
        params: &[("id", "string", "the decision's ID"), ("text", "string", "what happened")],
        required: &["id", "text"],
    },
    Spec {
        name: "prior_add",
        about: "Record a lesson a failure taught, with the rules it gives.",
        params: &[
            ("title", "string", "the lesson, one line"),
            ("root_cause", "string", "missing_rule | incomplete_rule | ignored_rule | novel_case | regression"),
            ("failure", "string", "what went wrong"),
            ("rules", "array", "rules it taught"),
            ("source", "string", "where it was learned"),
            ("solution", "string", "the verified fix"),
        ],
        required: &["title", "root_cause", "failure", "rules"],
    },
    Spec {
        name: "show",
        about: "One entry in full: a decision (D-…), a prior (PR-…) or a session (name or last).",
        params: &[("id", "string", "the ID"), ("as_of", "string", "decisions: as it stood then (DATE or COMMIT)")],
        required: &["id"],
    },
    Spec {
        name: "log",
        about: "List decisions, newest first.",
        params: &[
            ("type", "string", "only this type"),
            ("since", "string", "YYYY-MM-DD"),
            ("tag", "string", "only decisions with this tag"),
            ("limit", "integer", "at most this many"),
            ("as_of", "string", AS_OF),
        ],
        required: &[],
    },
    Spec {
        name: "history",
        about: "An entry's whole life: when and where written, outcomes, supersessions, forgets; for a fact key every version.",
        params: &[("id", "string", "D-…, PR-…, F-… or a fact key")],
        required: &["id"],
    },
    Spec { name: "status", about: "Where the project stands: phase, blockers, next steps, counts.", params: &[], required: &[] },
    Spec {
        name: "session_start",
        about: "Start a session record; returns the context bundle.",
        params: &[("task", "string", "what the session is about"), ("agent", "string", "who is working")],
        required: &[],
    },
    Spec {
        name: "session_end",
        about: "End the session: write its record (decisions and lessons since the start) and update STATE.",
        params: &[
            ("summary", "string", "what was attempted"),
            ("shipped", "array", "what shipped"),
            ("next", "array", "next steps"),
            ("blockers", "array", "blockers"),
            ("phase", "string", "the phase now"),
        ],
        required: &[],
    },
];

/// Every tool's name.
pub const TOOL_NAMES: &[&str] = &[
    "recall",
    "context",
    "decide",
    "fact_get",
    "fact_set",
    "fact_list",
    "confirm",
    "forget",
    "stale",
    "outcome",
    "prior_add",
    "show",
    "log",
    "history",
    "status",
    "session_start",
    "session_end",
];

/// Decode a tool's arguments without running it (the fuzz target's entry to the decoding).
pub fn check_args(name: &str, a: Value) -> Result<()> {
    match name {
        "recall" => args::<RecallArgs>(name, a).map(|_| ()),
        "context" => args::<ContextArgs>(name, a).map(|_| ()),
        "decide" => args::<DecisionInput>(name, a).map(|_| ()),
        "outcome" => args::<OutcomeArgs>(name, a).map(|_| ()),
        "prior_add" => args::<PriorArgs>(name, a).map(|_| ()),
        "show" => args::<ShowArgs>(name, a).map(|_| ()),
        "log" => args::<LogArgs>(name, a).map(|_| ()),
        "history" => args::<IdArgs>(name, a).map(|_| ()),
        "status" => args::<NoArgs>(name, a).map(|_| ()),
        "session_start" => args::<StartArgs>(name, a).map(|_| ()),
        "session_end" => args::<Ending>(name, a).map(|_| ()),
        "fact_get" => args::<FactGetArgs>(name, a).map(|_| ()),
        "fact_set" => args::<crate::store::facts::FactInput>(name, a).map(|_| ()),
        "fact_list" => args::<FactListArgs>(name, a).map(|_| ()),
        "confirm" => args::<IdArgs>(name, a).map(|_| ()),
        "forget" => args::<ForgetArgs>(name, a).map(|_| ()),
        "stale" => args::<NoArgs>(name, a).map(|_| ()),
        other => bail!("no tool {other:?}"),
    }
}

/// The tools as `tools/list` gives them: name, description, input schema.
pub fn list() -> Vec<Value> {
    SPECS
        .iter()
        .map(|s| {
            let props: serde_json::Map<String, Value> = s
                .params
                .iter()
                .map(|(n, t, d)| {
                    let schema = if *t == "array" {
                        json!({"type": "array", "items": {"type": "string"}, "description": d})
                    } else {
                        json!({"type": t, "description": d})
                    };
                    (n.to_string(), schema)
                })
                .collect();
            let mut schema = json!({"type": "object", "properties": props});
            if !s.required.is_empty() {
                schema["required"] = json!(s.required);
            }
            json!({"name": s.name, "description": s.about, "inputSchema": schema})
        })
        .collect()
}

/// Arguments as the tool's struct; a bad shape is the tool's error, naming the tool.
fn args<T: for<'de> Deserialize<'de>>(tool: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| anyhow!("bad arguments for {tool}: {e}"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    #[serde(default)]
    also: Vec<String>,
    k: Option<usize>,
    kind: Option<String>,
    #[serde(rename = "type")]
    kind_type: Option<String>,
    mode: Option<String>,
    min_tier: Option<String>,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    task: Option<String>,
    budget: Option<usize>,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutcomeArgs {
    id: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriorArgs {
    title: String,
    root_cause: String,
    failure: String,
    rules: Vec<String>,
    source: Option<String>,
    solution: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowArgs {
    id: String,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdArgs {
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogArgs {
    #[serde(rename = "type")]
    kind: Option<String>,
    since: Option<String>,
    tag: Option<String>,
    limit: Option<usize>,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactGetArgs {
    key: String,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactListArgs {
    prefix: Option<String>,
    as_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgetArgs {
    id: String,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartArgs {
    task: Option<String>,
    agent: Option<String>,
}

/// Run one tool: (the CLI's JSON, a short text). Errors carry the CLI's message.
pub fn call(server: &Server, name: &str, a: Value) -> Result<(Value, String)> {
    let memory = Memory::open(server.repo.as_deref())?;
    let notes = std::cell::RefCell::new(Vec::<String>::new());
    let note = |m: &str| notes.borrow_mut().push(m.to_string());
    let (json, mut text) = match name {
        "recall" => {
            let a: RecallArgs = args(name, a)?;
            let kind = match a.kind.as_deref() {
                None | Some("all") => None,
                Some(k @ ("decision" | "prior" | "session" | "fact")) => Some(k.to_string()),
                Some(other) => bail!("kind takes decision, prior, session, fact or all, not {other:?}"),
            };
            let mode = match a.mode.as_deref() {
                None | Some("hybrid") => Mode::Hybrid,
                Some("semantic") => Mode::Semantic,
                Some("lexical") => Mode::Lexical,
                Some(other) => bail!("mode takes hybrid, semantic or lexical, not {other:?}"),
            };
            let min_tier = match a.min_tier.as_deref() {
                None => Tier::Low,
                Some(t) => <Tier as clap::ValueEnum>::from_str(t, false).map_err(|_| anyhow!("min_tier takes low, standard or high, not {t:?}"))?,
            };
            let k = a.k.or_else(|| memory.layout.config.u64(&["recall", "top_k"]).map(|v| v as usize)).unwrap_or(3).min(crate::search::recall::MAX_K);
            let filter = Filter { kind, kind_type: a.kind_type, ..Default::default() };
            let at = as_of(&memory, a.as_of.as_deref())?;
            if let Some(why) = a.mode.as_ref().and_then(|_| crate::search::recall::mode_unavailable(&memory, mode)) {
                bail!("mode {}: {why}", mode.name());
            }
            // As of then, entries superseded or provisional since may have held: search them
            // all, more deeply, and let the memory of then decide (as the CLI does).
            let (wide, depth) = if at.is_some() { (Filter { all: true, ..filter.clone() }, k.saturating_mul(4)) } else { (filter.clone(), k) };
            let mut found = server.recaller().recall_with(&memory, &a.query, &a.also, depth, &wide, mode, &note)?.at_least(min_tier);
            if let Some(at) = &at {
                found.hits = crate::ops::asof::recall_hits(&memory, std::mem::take(&mut found.hits), at, &filter)?;
                found.hits.truncate(k);
                found.answered &= !found.hits.is_empty();
            }
            if a.mode.is_some() && found.mode != mode {
                bail!("mode {} needs the embedding model, which is not available here; install it with `zo model install`, or use mode lexical", mode.name());
            }
            let mut report = crate::ops::RecallReport::new(a.query, found, false).with_also(a.also);
            report.flag_stale(&memory)?;
            report.with_origins(&memory);
            report.resolve_sessions(&memory)?;
            let text: Vec<String> = report.note(min_tier).into_iter().chain(Some(report.render()).filter(|t| !t.is_empty())).collect();
            (serde_json::to_value(&report)?, text.join("\n"))
        }
        "context" => {
            let a: ContextArgs = args(name, a)?;
            let at = as_of(&memory, a.as_of.as_deref())?;
            let b = bundle(server, &memory, a.task.as_deref(), a.budget, at.as_ref(), &note)?;
            let r = crate::ops::ContextReport::from(b);
            let text = r.markdown.clone();
            (serde_json::to_value(r)?, text)
        }
        "decide" => {
            let input: DecisionInput = args(name, a)?;
            if input.title.is_empty() || input.decision.is_empty() {
                bail!("decide needs title and decision");
            }
            let r = crate::ops::Decided::from(memory.decide(&input, false)?);
            let text = std::iter::once(format!("recorded {}: {}", r.id, r.title)).chain(r.notes()).collect::<Vec<_>>().join("\n");
            (serde_json::to_value(r)?, text)
        }
        "fact_get" => {
            let a: FactGetArgs = args(name, a)?;
            let at = as_of(&memory, a.as_of.as_deref())?;
            match memory.fact_get_as_of(&a.key, None, false, at.as_ref())? {
                Some(v) => {
                    let text = format!("{} = {}", v.key, v.value);
                    (serde_json::to_value(v)?, text)
                }
                None => (json!({ "key": a.key, "found": false }), format!("no fact {}", a.key)),
            }
        }
        "fact_set" => {
            let input: crate::store::facts::FactInput = args(name, a)?;
            let r = memory.fact_set(&input, false)?;
            let text = match (r.unchanged, r.status) {
                (true, _) => format!("{} already holds this value ({})", r.fact.key, r.fact.id),
                (_, "provisional") => format!("recorded {} (provisional until confirmed)", r.fact.id),
                _ => format!("recorded {}: {} = {}", r.fact.id, r.fact.key, r.fact.value),
            };
            (serde_json::to_value(r)?, text)
        }
        "fact_list" => {
            let a: FactListArgs = args(name, a)?;
            let at = as_of(&memory, a.as_of.as_deref())?;
            let list = memory.fact_list_as_of(a.prefix.as_deref(), None, false, at.as_ref())?;
            let text = crate::ops::text::facts(&list, false);
            (json!({ "facts": list }), if text.is_empty() { "no facts".into() } else { text })
        }
        "confirm" => {
            let a: IdArgs = args(name, a)?;
            let r = memory.confirm(&a.id)?;
            let text = format!("{} confirmed ({})", r.confirmed, r.id);
            (serde_json::to_value(r)?, text)
        }
        "forget" => {
            let a: ForgetArgs = args(name, a)?;
            let r = memory.forget(&a.id, &a.reason)?;
            let mut text = format!("{} forgotten; its index rows are purged", r.erasure.id);
            if r.in_history {
                text.push_str(". Git history still holds the text; a person must purge it:\n");
                text.push_str(&r.purge.join("\n"));
            }
            (serde_json::to_value(r)?, text)
        }
        "stale" => {
            let NoArgs {} = args(name, a)?;
            let r = crate::lifecycle::stale::stale(&memory, crate::lifecycle::stale::COMMITS, crate::lifecycle::stale::LINES)?;
            let text = r
                .decisions
                .iter()
                .filter(|d| d.stale)
                .map(|d| format!("{} {}: {} changed under {}", d.id, d.title, crate::ops::text::moved(d.commits, d.lines), d.paths.join(", ")))
                .collect::<Vec<_>>()
                .join("\n");
            (serde_json::to_value(&r)?, if text.is_empty() { crate::ops::text::none_stale(r.checked) } else { text })
        }
        "outcome" => {
            let a: OutcomeArgs = args(name, a)?;
            let r = crate::ops::OutcomeRecorded::from(memory.outcome(&a.id, &a.text, false)?);
            let text = format!("recorded {} for {}", r.id, r.refs);
            (serde_json::to_value(r)?, text)
        }
        "prior_add" => {
            let a: PriorArgs = args(name, a)?;
            let input = PriorInput {
                title: a.title,
                root_cause: a.root_cause,
                failure: a.failure,
                rules: a.rules,
                source: a.source.unwrap_or_default(),
                solution: a.solution.unwrap_or_default(),
            };
            let (id, similar) = memory.add_prior(&input, false)?;
            let r = crate::ops::PriorAdded { id, similar };
            let text = std::iter::once(format!("recorded {}", r.id)).chain(r.notes()).collect::<Vec<_>>().join("\n");
            (serde_json::to_value(r)?, text)
        }
        "show" => {
            let a: ShowArgs = args(name, a)?;
            let at = as_of(&memory, a.as_of.as_deref())?;
            let v = crate::ops::show_as_of(&memory, &a.id, at.as_ref())?;
            let v = if at.is_none() { crate::ops::entries::with_origin(&memory, v)? } else { v };
            let text = crate::ops::text::show(&v, true).trim_end().to_string();
            (v, text)
        }
        "log" => {
            let a: LogArgs = args(name, a)?;
            let q = crate::ops::LogQuery { kind: a.kind, since: a.since, limit: Some(a.limit.unwrap_or(20)), all: false, tag: a.tag };
            q.check()?;
            let at = as_of(&memory, a.as_of.as_deref())?;
            let mut r = crate::ops::log(&memory.decisions_as_of(at.as_ref())?, &q)?;
            // As the CLI: a commit from before `zo init` holds no memory, not an empty log.
            let none = at.as_ref().filter(|_| r.decisions.is_empty()).and_then(|a| a.no_memory_then(&memory));
            r.as_of = at;
            let text = r
                .decisions
                .iter()
                .map(|d| {
                    let one = crate::store::gate::frame::one_line;
                    // The agent reads this list: a title the directive rules flag is not in it.
                    let title = if crate::store::screened::flags(&d.title).is_empty() {
                        one(&d.title)
                    } else {
                        "(title withheld: it reads as an instruction to an agent; `show` marks it)".into()
                    };
                    format!("{}  {}  {}  {title}", one(&d.id), d.timestamp.get(..10).unwrap_or(""), one(&d.kind))
                })
                .collect::<Vec<_>>()
                .join("\n");
            (serde_json::to_value(r)?, if text.is_empty() { none.unwrap_or_else(|| "no decisions match".into()) } else { text })
        }
        "history" => {
            let a: IdArgs = args(name, a)?;
            let h = crate::ops::history::life(&memory, &a.id)?;
            let text = h.render().trim_end().to_string();
            (serde_json::to_value(h)?, text)
        }
        "status" => {
            let NoArgs {} = args(name, a)?;
            let r = crate::ops::status(&memory)?;
            let text = format!(
                "project {} · phase {} · {}, {}, {}\nblockers: {}\nnext: {}",
                r.project,
                r.phase.as_deref().unwrap_or("-"),
                crate::ops::text::count(r.counts.decisions, "decision", "decisions"),
                crate::ops::text::count(r.counts.priors, "prior", "priors"),
                crate::ops::text::count(r.counts.sessions, "session", "sessions"),
                if r.blockers.is_empty() { "none".into() } else { r.blockers.join("; ") },
                if r.next_steps.is_empty() { "none".into() } else { r.next_steps.join("; ") },
            );
            (serde_json::to_value(r)?, text)
        }
        "session_start" => {
            let a: StartArgs = args(name, a)?;
            let (starting, ended) = crate::lifecycle::session::open(&memory, a.agent.or_else(|| Some("mcp".into())), a.task.clone(), None)?;
            let b = bundle(server, &memory, a.task.as_deref(), None, None, &note);
            starting.finish(&memory)?;
            let r = crate::ops::ContextReport::from(b?);
            let mut text = r.markdown.clone();
            if let Some(e) = &ended {
                text.push_str(&format!(
                    "\nnote: the session left open was ended first: {}",
                    crate::ops::text::ended(&e.file, e.decisions.len(), e.priors.len())
                ));
            }
            (serde_json::to_value(r)?, text)
        }
        "session_end" => {
            let ending: Ending = args(name, a)?;
            let ended = crate::lifecycle::session::end(&memory, &ending, false)?.ok_or_else(|| anyhow!("no session was written"))?;
            let text = format!("{}; STATE.md updated", crate::ops::text::ended(&ended.file, ended.decisions.len(), ended.priors.len()));
            (serde_json::to_value(ended)?, text)
        }
        other => bail!("no tool {other:?}; `tools/list` has them"),
    };
    for n in notes.into_inner() {
        text.push_str(&format!("\nnote: {n}"));
    }
    Ok((json, text))
}

/// The context bundle (as of `at`, or now), with the server's kept model for a task.
fn bundle(
    server: &Server,
    memory: &Memory,
    task: Option<&str>,
    budget: Option<usize>,
    at: Option<&AsOf>,
    note: &dyn Fn(&str),
) -> Result<crate::lifecycle::context::Bundle> {
    let k = if at.is_some() { 40 } else { 10 };
    crate::ops::context_as_of(memory, task, budget, at, &mut |t, filter| {
        let mut r = server.recaller();
        Ok(r.recall(memory, t, k, filter, Mode::Hybrid, note)?.at_least(crate::search::recall::Tier::Standard).hits)
    })
}

/// `as_of`, parsed as the CLI parses `--as-of` (the same errors).
fn as_of(memory: &Memory, given: Option<&str>) -> Result<Option<AsOf>> {
    given.map(|s| AsOf::parse(memory, s)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_tools() {
        let tools = list();
        let listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(listed, TOOL_NAMES);
    }

    #[test]
    fn every_tool_has_a_short_description_and_an_object_schema() {
        for t in list() {
            assert!(t["description"].as_str().is_some_and(|d| d.len() <= 200), "{}", t["name"]);
            assert_eq!(t["inputSchema"]["type"], "object");
        }
    }
}
