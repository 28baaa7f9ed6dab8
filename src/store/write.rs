//! Every write to the memory's Markdown files: what a writer asks for (`DecisionInput`,
//! `PriorInput`) and the operations on `Memory` that record it (decide, outcome, confirm,
//! add / supersede a prior, set STATE), each as lock → re-read → gate → render → atomic write.
//! Facts are written the same way in `facts`.

use super::memory::{Memory, find_error};
use crate::format::Status;
use crate::format::decision::{self, DecisionLog, NewDecision};
use crate::format::fields::{self, normalize_value};
use crate::format::prior::{self, NewPrior};
use crate::format::state::State;
use crate::format::{Text, same_folded};
use crate::store::fsio;
use crate::store::gate::{self, Limits};
use anyhow::{Context, Result, anyhow, bail};

/// What a user asks to record with `zo decide` (and the MCP tool `decide`, which advertises
/// this type's schema: the doc comments below are its parameter descriptions).
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionInput {
    /// ARCHITECTURE, SCOPE, BUGFIX… (default DECISION)
    #[serde(default, alias = "kind")]
    pub r#type: Option<String>,
    /// one line
    #[serde(default)]
    pub title: String,
    /// what was decided
    #[serde(default)]
    pub decision: String,
    /// why
    #[serde(default)]
    pub rationale: Option<String>,
    /// what else was considered
    #[serde(default)]
    pub alternatives: Option<String>,
    /// default pending
    #[serde(default)]
    pub outcome: Option<String>,
    /// the ID it replaces
    #[serde(default)]
    pub supersedes: Option<String>,
    #[serde(default)]
    pub tags: Option<StringOrList>,
    /// e.g. session-024
    #[serde(default)]
    pub session: Option<String>,
    /// 0-1 (default 1); below 0.7 provisional
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// paths it governs
    #[serde(default)]
    pub paths: Option<StringOrList>,
    /// What the writer consents to let through the gate: the command line's flags only, never
    /// JSON an agent sends.
    #[serde(skip)]
    #[schemars(skip)]
    pub allow: gate::Allow,
}

/// `"tags": "a, b"` or `"tags": ["a", "b"]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(untagged)]
pub enum StringOrList {
    One(String),
    Many(Vec<String>),
}

/// Advertised as a list (what an agent should send); a comma-separated string is still read.
impl schemars::JsonSchema for StringOrList {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StringOrList".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "array", "items": { "type": "string" } })
    }
}

impl StringOrList {
    pub fn joined(&self) -> String {
        match self {
            StringOrList::One(s) => s.clone(),
            StringOrList::Many(v) => v.join(", "),
        }
    }
}

/// What a user asks to record with `zo prior add`.
#[derive(Debug, Clone, Default)]
pub struct PriorInput {
    pub title: String,
    pub root_cause: String,
    pub failure: String,
    pub rules: Vec<String>,
    pub source: String,
    pub solution: String,
}

/// A new entry of `kind` (OUTCOME, CONFIRM) that refers to decision `i`: a fresh ID, now, and
/// a title naming the decision (cut to the title limit).
fn annotation(log: &DecisionLog, i: usize, kind: &str, limits: Limits) -> Result<NewDecision> {
    annotation_of(log, &log.entries[i].id, &log.entries[i].title, kind, limits)
}

/// A new entry of `kind` (OUTCOME, CONFIRM, PROMOTE) that refers to the entry `refs` titled
/// `title` (a decision, or for PROMOTE a prior too).
fn annotation_of(
    log: &DecisionLog,
    refs: &str,
    title: &str,
    kind: &str,
    limits: Limits,
) -> Result<NewDecision> {
    let word = match kind {
        "OUTCOME" => "Outcome",
        "PROMOTE" => "Promoted",
        _ => "Confirm",
    };
    Ok(NewDecision {
        id: gate::new_id("D", |id| log.has_id(id))?,
        timestamp: crate::time::now(),
        kind: kind.into(),
        title: fit_title(format!("{word}: {title}"), limits),
        refs: refs.to_string(),
        ..Default::default()
    })
}

/// A title zo composes (an annotation's, from the entries it names), cut with "…" to the
/// title limit.
fn fit_title(title: String, limits: Limits) -> String {
    if title.chars().count() > limits.title_chars {
        title
            .chars()
            .take(limits.title_chars.saturating_sub(1))
            .collect::<String>()
            + "…"
    } else {
        title
    }
}

/// Active decisions whose titles nearly match `title`, from the log's text: the `**Title:**`
/// lines are compared first (a search for line starts), and the log is parsed only when one
/// of them is near, so a 10,000-entry log still appends in about the time its copy takes.
fn similar_in(text: Text, title: &str, threshold: f64) -> Vec<crate::format::Similar> {
    use crate::format::{line_at, line_starts};
    let t = text.as_str();
    let titles = line_starts(t, "**Title:**")
        .filter_map(|at| fields::parse_field_line(line_at(t, at)).map(|(_, v)| ("", v.trim())));
    let near = !gate::near_duplicates(title, titles).is_empty();
    // Older logs keep titles in their headings, which that search does not see: parse them.
    let older = line_starts(t, "## Decision:")
        .any(|at| !crate::time::starts_with_date(line_at(t, at)["## Decision:".len()..].trim()));
    if !near && !older {
        return vec![];
    }
    similar(&DecisionLog::parse(text).with_threshold(threshold), title)
}

/// Active decisions whose titles nearly match `title`.
fn similar(log: &DecisionLog, title: &str) -> Vec<crate::format::Similar> {
    let others = (0..log.entries.len())
        .filter(|&i| {
            !log.entries[i].is_annotation()
                && log.status(i) == Status::Active
                && !same_folded(&log.entries[i].title, title)
        })
        .map(|i| (log.entries[i].id.as_str(), log.entries[i].title.as_str()));
    gate::near_duplicates(title, others)
}

/// `a, b ,c/` → `a, b, c` (paths relative to the repository root, `/`-separated).
fn normalize_paths(v: &str) -> String {
    v.split([',', '\n'])
        .map(|p| p.trim().trim_start_matches("./").trim_end_matches('/'))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Refuse a new decision whose title an active one already has (in any case or spacing): an
/// identical decision always, another one unless the new one supersedes it.
fn refuse_same_title(log: &DecisionLog, new: &NewDecision) -> Result<()> {
    for (i, e) in log.entries.iter().enumerate() {
        if !(same_folded(&e.title, &new.title)
            && log.status(i) == Status::Active
            && !e.is_annotation())
        {
            continue;
        }
        if same_folded(log.field(i, "Decision").unwrap_or(""), &new.decision) {
            bail!(
                "refused: an identical decision already exists: {} ({})",
                e.id,
                e.title
            );
        }
        // Two active decisions under one title leave recall and people guessing which holds.
        if new.supersedes != e.id {
            bail!(
                "refused: the active decision {} already has this title ({}); to change it, record the new one with --supersedes {}, or give it a title of its own",
                e.id,
                e.title,
                e.id
            );
        }
    }
    Ok(())
}

impl Memory {
    /// Append a decision. Returns what was written.
    pub fn decide(
        &self,
        input: &DecisionInput,
        allow: impl Into<gate::Allow>,
    ) -> Result<NewDecision> {
        let allow = allow.into();
        let limits = self.limits()?;
        let mut new = self.new_decision(input)?;
        let threshold = self.threshold()?;
        new.status =
            if decision::Decision::would_be_tentative(&new.kind, input.confidence, threshold) {
                Status::Provisional
            } else {
                Status::Active
            };
        gate::title(&new.title, limits)?;
        gate::require("the decision text (--decision)", &new.decision)?;
        if new.kind.contains('\n') || new.kind.is_empty() {
            bail!("refused: the type must be one word or phrase on one line");
        }
        // The kinds zo's own annotations use: an entry typed so by hand would be read as one
        // (and fail `verify` for good: the log is append-only).
        match new.kind.to_ascii_uppercase().as_str() {
            "OUTCOME" => bail!("refused: record an outcome with `zo outcome ID TEXT`"),
            "CONFIRM" => bail!("refused: confirm a decision with `zo confirm ID`"),
            "FORGOTTEN" => bail!("refused: erase an entry with `zo forget ID --reason …`"),
            "PROMOTE" => {
                bail!("refused: copy an entry into a linked memory with `zo promote ID --to NAME`")
            }
            _ => {}
        }
        let check: Vec<(&str, &str)> = new.fields();
        new.allowed = gate::hashes(&gate::check_fields(&check, allow)?);

        let _lock = self.lock()?;
        let text = self.read(&self.layout.decision_log())?;
        new.kind = self.known_type(&new.kind, text.as_str())?;
        if new.supersedes.is_empty() && !decision::may_hold_title(text.as_str(), &new.title) {
            // No entry can have this title, so there is no duplicate to look for and the log
            // need not be parsed: a 10,000-entry log appends in the time its copy takes.
            new.id = gate::new_id("D", |id| decision::mentions(text.as_str(), id))?;
            new.timestamp = crate::time::now();
            self.append_decision(&text, decision::last_separated(text.as_str()), &new, limits)?;
            drop(_lock);
            new.similar = similar_in(text, &new.title, threshold);
            return Ok(new);
        }
        let log = DecisionLog::parse(text).with_threshold(self.threshold()?);
        let file = self.layout.show(&self.layout.decision_log());
        if !new.supersedes.is_empty() {
            let i = log
                .find(&new.supersedes)
                .map_err(|e| find_error(e, &new.supersedes, &file))?;
            refuse_forgotten(
                &log.entries[i].id,
                log.entries[i].is_forgotten(),
                "supersede",
            )?;
            new.supersedes = log.entries[i].id.clone();
        }
        refuse_same_title(&log, &new)?;
        new.id = gate::new_id("D", |id| log.has_id(id))?;
        new.timestamp = crate::time::now();
        self.append_decision(&log.text, log.last_separated(), &new, limits)?;
        let replaced = log.find(&new.supersedes).ok();
        new.similar = similar(&log, &new.title)
            .into_iter()
            .filter(|s| replaced.is_none_or(|i| log.entries[i].id != s.id))
            .collect();
        Ok(new)
    }

    /// The decision as `input` gives it, normalised, its defaults filled in and, when it names
    /// paths, the commit `zo stale` measures from; refused when its confidence is out of range.
    fn new_decision(&self, input: &DecisionInput) -> Result<NewDecision> {
        let norm = |o: &Option<String>| o.as_deref().map(normalize_value).unwrap_or_default();
        let mut new = NewDecision {
            kind: input
                .r#type
                .as_deref()
                .map(normalize_value)
                .unwrap_or_default()
                .to_uppercase(),
            title: normalize_value(&input.title),
            decision: normalize_value(&input.decision),
            rationale: norm(&input.rationale),
            alternatives: norm(&input.alternatives),
            outcome: norm(&input.outcome),
            supersedes: norm(&input.supersedes),
            tags: input
                .tags
                .as_ref()
                .map(|t| normalize_value(&t.joined()))
                .unwrap_or_default(),
            session: norm(&input.session),
            confidence: input
                .confidence
                .map(crate::format::fact::format_confidence)
                .unwrap_or_default(),
            paths: input
                .paths
                .as_ref()
                .map(|p| normalize_paths(&p.joined()))
                .unwrap_or_default(),
            ..Default::default()
        };
        if let Some(c) = input.confidence {
            if !(0.0..=1.0).contains(&c) {
                return Err(crate::error::Error::Usage(format!(
                    "refused: --confidence must be from 0 to 1 (got {c})"
                ))
                .into());
            }
        }
        if !new.paths.is_empty() {
            // The commit the decision was made at: `zo stale` measures change since then.
            new.commit = crate::git::Repo::discover(&self.layout.root)
                .and_then(|r| r.head_full())
                .unwrap_or_default();
        }
        if new.kind.is_empty() {
            new.kind = "DECISION".into();
        }
        if new.outcome.is_empty() {
            new.outcome = "pending".into();
        }
        Ok(new)
    }

    /// Promote entry `source` (a decision or prior of this memory, titled `title`): under this
    /// memory's lock, `copy` writes it elsewhere and names the copy (`team:PR-004`), then a
    /// PROMOTE entry that refers to the source records it. Nothing is written here when `copy`
    /// fails, and the copy is not made when the lock cannot be had.
    pub fn promotion(
        &self,
        source: &str,
        title: &str,
        hash: &str,
        copy: impl FnOnce() -> Result<String>,
    ) -> Result<(String, NewDecision)> {
        let limits = self.limits()?;
        let _lock = self.lock()?;
        let log = self.decisions()?;
        let to = copy()?;
        // The hash finds the copy again should a merge there renumber it.
        let mut new = NewDecision {
            decision: format!("promoted to {to} ({hash})"),
            ..annotation_of(&log, source, title, "PROMOTE", limits)?
        };
        // The title is the entry's own, which passed the gate when it was written.
        new.allowed = gate::hashes(&gate::check_fields_with(
            &new.fields(),
            gate::Allow::default(),
            &[],
        )?);
        self.append_decision(&log.text, log.last_separated(), &new, limits)
            .map_err(|e| {
                anyhow!("{to} was written, but the project's record of it was not: {e:#}")
            })?;
        Ok((to, new))
    }

    /// Append an OUTCOME entry for decision `id`.
    pub fn outcome(
        &self,
        id: &str,
        text: &str,
        allow: impl Into<gate::Allow>,
    ) -> Result<NewDecision> {
        let allow = allow.into();
        let limits = self.limits()?;
        let text = normalize_value(text);
        gate::require("the outcome text", &text)?;
        gate::check_fields(&[("Outcome", &text)], allow)?;
        let _lock = self.lock()?;
        let log = self.decisions()?;
        let file = self.layout.show(&self.layout.decision_log());
        let i = log.find(id).map_err(|e| find_error(e, id, &file))?;
        let target = &log.entries[i];
        if target.is_outcome() {
            bail!(
                "{} is itself an OUTCOME entry; name the decision it refers to",
                target.id
            );
        }
        refuse_forgotten(&target.id, target.is_forgotten(), "record an outcome for")?;
        if log
            .latest_outcome_entry(i)
            .and_then(|o| log.field(o, "Outcome"))
            .is_some_and(|o| same_folded(o, &text))
        {
            bail!(
                "refused: that outcome is already recorded for {}",
                target.id
            );
        }
        let mut new = NewDecision {
            outcome: text,
            ..annotation(&log, i, "OUTCOME", limits)?
        };
        // The title is copied from the decision: a secret allowed there stays allowed here.
        new.allowed = gate::hashes(&gate::check_fields_with(
            &new.fields(),
            allow,
            &gate::allowed_in(target.raw(&log)),
        )?);
        self.append_decision(&log.text, log.last_separated(), &new, limits)?;
        Ok(new)
    }

    /// Confirm a provisional decision: append a CONFIRM entry that refers to it, after which
    /// it is active (in the bundle and default recall).
    /// Confirm a provisional decision: append a CONFIRM entry. An active one (confirmed
    /// already, or never provisional) is left as it is: `None`, so `zo confirm` twice is a no-op.
    pub fn confirm_decision(&self, id: &str) -> Result<Option<NewDecision>> {
        let limits = self.limits()?;
        let _lock = self.lock()?;
        let log = self.decisions()?;
        let file = self.layout.show(&self.layout.decision_log());
        let i = log.find(id).map_err(|e| find_error(e, id, &file))?;
        let target = &log.entries[i];
        refuse_forgotten(&target.id, target.is_forgotten(), "confirm")?;
        match log.status(i) {
            Status::Provisional => {}
            Status::Active => return Ok(None),
            other => bail!(
                "{} is not provisional (it is {other}); nothing to confirm",
                target.id
            ),
        }
        let mut new = NewDecision {
            status: Status::Active,
            ..annotation(&log, i, "CONFIRM", limits)?
        };
        new.allowed = gate::hashes(&gate::check_fields_with(
            &new.fields(),
            false,
            &gate::allowed_in(target.raw(&log)),
        )?);
        self.append_decision(&log.text, log.last_separated(), &new, limits)?;
        Ok(Some(new))
    }

    /// Record two active decisions that read as one subject with two choices as holding
    /// together: one CONFIRM entry referring to both (`zo confirm A --compatible-with B`), so
    /// `zo verify`, `status` and the merge driver no longer name the pair. `named` says whether
    /// the detector names the pair (it lives above the store); only such a pair is recorded:
    /// a confirmation is permanent. Checked on the log read under the lock. Returns both IDs as
    /// the log writes them, and the entry (None when the pair was recorded already).
    pub fn confirm_compatible(
        &self,
        a: &str,
        b: &str,
        named: &dyn Fn(&DecisionLog, &str, &str) -> bool,
    ) -> Result<(String, String, Option<NewDecision>)> {
        let limits = self.limits()?;
        let _lock = self.lock()?;
        let log = self.decisions()?;
        let file = self.layout.show(&self.layout.decision_log());
        let ia = log.find(a).map_err(|e| find_error(e, a, &file))?;
        let ib = log.find(b).map_err(|e| find_error(e, b, &file))?;
        for i in [ia, ib] {
            let e = &log.entries[i];
            refuse_forgotten(&e.id, e.is_forgotten(), "confirm")?;
            if e.is_annotation() {
                bail!(
                    "{} is not a decision of its own (an outcome or a confirmation)",
                    e.id
                );
            }
            match log.status(i) {
                Status::Superseded => {
                    bail!("{} is superseded: only what holds can hold together", e.id)
                }
                Status::Provisional => bail!(
                    "{} is provisional: confirm it first (zo confirm {}), if it holds",
                    e.id,
                    e.id
                ),
                _ => {}
            }
        }
        let (ida, idb) = (log.entries[ia].id.clone(), log.entries[ib].id.clone());
        if ia == ib {
            bail!("{ida} and {idb} are one decision");
        }
        if log.recorded_compatible(&ida, &idb) {
            return Ok((ida, idb, None));
        }
        if !named(&log, &ida, &idb) {
            bail!(
                "{a} and {b} are not a pair zo verify names (one subject, two choices); nothing to record"
            );
        }
        let mut new = annotation(&log, ia, "CONFIRM", limits)?;
        new.title = fit_title(
            format!(
                "Compatible: {} / {}",
                log.entries[ia].title, log.entries[ib].title
            ),
            limits,
        );
        new.refs = format!("{ida}, {idb}");
        new.allowed = gate::hashes(&gate::check_fields_with(
            &new.fields(),
            false,
            &gate::allowed_in(log.entries[ia].raw(&log)),
        )?);
        self.append_decision(&log.text, log.last_separated(), &new, limits)?;
        Ok((ida, idb, Some(new)))
    }

    /// Add `id` to the open session's record (`written`, in `.zo/memory/.session`), so the
    /// session's file lists exactly what it wrote — not what a pull brought in meanwhile.
    /// Called with the memory lock held, after the entry is written; best effort: a record that
    /// cannot be updated never fails the write (session end then falls back to its baseline).
    fn note_written(&self, id: &str, entry: &str) {
        crate::store::provenance::note_written_here(&self.layout, entry);
        let path = self.layout.session_record();
        let Ok(Some(text)) = fsio::read_text(&path) else {
            return;
        };
        let Ok(mut record) = serde_json::from_str::<serde_json::Value>(text.as_str()) else {
            return;
        };
        // Only a record this user's zo wrote is added to, and it is signed again after.
        if !crate::store::trust::unseal_json(crate::store::trust::SESSION_RECORD, &mut record) {
            return;
        }
        let Some(obj) = record.as_object_mut() else {
            return;
        };
        let list = obj.entry("written").or_insert(serde_json::Value::Null);
        if list.is_null() {
            *list = serde_json::json!([]);
        }
        if let Some(ids) = list.as_array_mut() {
            ids.push(id.into());
        }
        if !crate::store::trust::seal_json(crate::store::trust::SESSION_RECORD, &mut record) {
            return;
        }
        if let Ok(out) = serde_json::to_string_pretty(&record) {
            // Unsynced, like every write of the record (`record::save` says why).
            let _ = fsio::write_atomic_unsynced(&path, out.as_bytes());
        }
    }

    /// The type of a new decision as the log writes it: one zo knows, one `decision_types:`
    /// names, or one the log already uses (a team's own vocabulary), in the case it is
    /// written there; anything else is a usage error naming them (`--type FOO` made a type no
    /// `log --type` filter finds).
    fn known_type(&self, kind: &str, log: &str) -> Result<String> {
        let configured: Vec<String> = self
            .layout
            .config
            .get(&["decision_types"])
            .and_then(|v| v.as_sequence())
            .map(|l| {
                l.iter()
                    .filter_map(|x| x.as_str().map(|s| s.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let known = decision::TYPES
            .iter()
            .map(|t| t.to_string())
            .chain(configured.iter().cloned());
        for t in known {
            if t.eq_ignore_ascii_case(kind) {
                return Ok(t);
            }
        }
        let up = kind.to_ascii_uppercase();
        for form in [kind, up.as_str()] {
            if memchr::memmem::find(log.as_bytes(), format!("**Type:** {form}\n").as_bytes())
                .is_some()
            {
                return Ok(form.to_string());
            }
        }
        Err(crate::error::Error::usage(format!(
            "--type {kind:?} is not a decision type here: use one of {}{}, or add it to `decision_types:` in {}",
            decision::TYPES.join(", "),
            if configured.is_empty() {
                String::new()
            } else {
                format!(" or {}", configured.join(", "))
            },
            self.layout.show(&self.layout.config_file())
        ))
        .into())
    }

    fn append_decision(
        &self,
        text: &Text,
        last_separated: Option<bool>,
        new: &NewDecision,
        limits: Limits,
    ) -> Result<()> {
        let entry = new.render();
        gate::entry_size(&entry, limits)?;
        let joint = if text.as_str().is_empty() {
            ""
        } else {
            text.joint(last_separated)
        };
        let parts = text.appended_parts(&format!("{joint}{entry}"));
        fsio::write_atomic_parts(
            &self.layout.decision_log(),
            &[&parts[0], &parts[1], &parts[2]],
        )?;
        self.note_written(&new.id, &entry);
        approve_consented(&new.id, &entry, &new.allowed);
        Ok(())
    }

    /// Add a prior under the next free number. Returns its ID and the active priors whose
    /// titles nearly match.
    pub fn add_prior(
        &self,
        input: &PriorInput,
        allow: impl Into<gate::Allow>,
    ) -> Result<(String, Vec<crate::format::Similar>)> {
        let allow = allow.into();
        let limits = self.limits()?;
        let mut new = NewPrior {
            number: 0,
            title: normalize_value(&input.title),
            source: normalize_value(&input.source),
            root_cause: normalize_value(&input.root_cause).to_lowercase(),
            failure: normalize_value(&input.failure),
            rules: input
                .rules
                .iter()
                .map(|r| normalize_value(r))
                .filter(|r| !r.is_empty())
                .collect(),
            solution: normalize_value(&input.solution),
            allowed: vec![],
        };
        gate::title(&new.title, limits)?;
        if !prior::ROOT_CAUSES.contains(&new.root_cause.as_str()) {
            return Err(crate::error::Error::usage(format!(
                "refused: root cause must be one of {} (got {:?})",
                prior::ROOT_CAUSES.join(", "),
                new.root_cause
            ))
            .into());
        }
        gate::require("the failure (--failure)", &new.failure)?;
        if new.rules.is_empty() {
            bail!("refused: a prior needs at least one --rule");
        }
        let mut check = vec![
            ("Title", new.title.as_str()),
            ("Source", &new.source),
            ("Root cause category", &new.root_cause),
            ("Failure", &new.failure),
            ("Verified Solution", &new.solution),
        ];
        check.extend(new.rules.iter().map(|r| ("Rules", r.as_str())));
        new.allowed = gate::hashes(&gate::check_fields(&check, allow)?);

        let _lock = self.lock()?;
        let file = self.priors()?;
        if let Some(p) = file
            .entries
            .iter()
            .find(|p| p.superseded_by().is_none() && same_folded(&p.title, &new.title))
        {
            bail!(
                "refused: a prior with this title already exists: {} ({})",
                p.id,
                p.title
            );
        }
        new.number = file.next_number();
        let entry = new.render();
        gate::entry_size(&entry, limits)?;
        let text = if file.text.as_str().is_empty() {
            Text::new(crate::templates::PRIORS.to_string())
        } else {
            file.text.clone()
        };
        let joint = text.joint(file.last_separated());
        fsio::write_atomic(
            &self.layout.priors(),
            text.with_appended(&format!("{joint}{entry}")).as_bytes(),
        )?;
        self.note_written(&prior::format_id(new.number), &entry);
        approve_consented(&prior::format_id(new.number), &entry, &new.allowed);
        let others = file
            .entries
            .iter()
            .filter(|p| p.superseded_by().is_none() && !p.is_forgotten())
            .map(|p| (p.id.as_str(), p.title.as_str()));
        Ok((
            prior::format_id(new.number),
            gate::near_duplicates(&new.title, others),
        ))
    }

    /// Mark prior `old` as superseded by `new`: the one edit zo makes to an existing prior,
    /// setting its `Superseded by` field (the append-only check allows exactly this).
    pub fn supersede_prior(&self, old: &str, new: &str) -> Result<(String, String)> {
        let _lock = self.lock()?;
        let file = self.priors()?;
        let path = self.layout.show(&self.layout.priors());
        let oi = file
            .find(old)
            .ok_or_else(|| anyhow!("no prior {old} in {path}"))?;
        let ni = file
            .find(new)
            .ok_or_else(|| anyhow!("no prior {new} in {path}"))?;
        let (o, n) = (&file.entries[oi], &file.entries[ni]);
        if oi == ni {
            bail!("a prior cannot supersede itself");
        }
        // Editing a tombstone would make `verify` (and so the pre-commit hook) fail for good.
        refuse_forgotten(&o.id, o.is_forgotten(), "supersede")?;
        refuse_forgotten(&n.id, n.is_forgotten(), "supersede another prior with")?;
        if let Some(by) = o.superseded_by() {
            bail!("{} is already superseded by {by}", o.id);
        }
        // A prior superseded, directly or down a chain, by the one it would replace: a cycle,
        // after which neither counts as active.
        let mut next = n.superseded_by();
        for _ in 0..=file.entries.len() {
            let Some(id) = next else { break };
            if file.find(id) == Some(oi) {
                bail!(
                    "refused: {} is already superseded (via {id}) by {}; superseding it back would make a cycle",
                    n.id,
                    o.id
                );
            }
            next = file.find(id).and_then(|i| file.entries[i].superseded_by());
        }
        let raw = o.raw(&file);
        let eol = if file.text.crlf { "\r\n" } else { "\n" };
        let field_name = if o.number.is_some() {
            "**Superseded by:**"
        } else {
            "**Superseded By**:"
        };
        let new_line = format!("{field_name} {}{eol}", n.id);
        let mut lines: Vec<&str> = raw.split_inclusive('\n').collect();
        let mut fence = fields::Fence::default();
        let mut replace_at = None;
        let mut insert_at = lines.len();
        for (i, l) in lines.iter().enumerate().skip(1) {
            let l = fields::strip_eol(l);
            if fence.feed(l) {
                continue;
            }
            if let Some((name, _)) = fields::parse_field_line(l) {
                if name.eq_ignore_ascii_case("Superseded by") {
                    replace_at = Some(i);
                    break;
                }
            }
            if fields::heading(l, 3).is_some() || fields::is_separator(l) {
                insert_at = i;
                break;
            }
        }
        let edited = match replace_at {
            Some(i) => {
                lines[i] = &new_line;
                lines.concat()
            }
            None => {
                // Attach the field to the others: before the blank lines that precede the section.
                while insert_at > 1 && lines[insert_at - 1].trim().is_empty() {
                    insert_at -= 1;
                }
                let mut l = lines.clone();
                let needs_eol = insert_at > 0 && !l[insert_at - 1].ends_with('\n');
                let joined = if needs_eol {
                    format!("{eol}{new_line}")
                } else {
                    new_line.clone()
                };
                l.insert(insert_at, &joined);
                l.concat()
            }
        };
        let t = file.text.as_str();
        let text = format!("{}{}{}", &t[..o.span.start], edited, &t[o.span.end..]);
        let out = file.text.with_text(text).with_appended("");
        fsio::write_atomic(&self.layout.priors(), out.as_bytes())?;
        Ok((o.id.clone(), n.id.clone()))
    }

    /// Set STATE.md fields through the gate: every key and value is checked; the hashes of
    /// secrets written with `allow_secret` join its `allowed_secrets` list (STATE.md is one
    /// entry to `zo verify`), as do `allowed` (hashes the caller's own check recorded).
    /// Set STATE.md's fields (a key: letters, digits, `_` and `-`; a scalar: one line), every
    /// key and value through the gate, in one locked write.
    pub fn set_state(
        &self,
        updates: Vec<(String, crate::format::state::Value)>,
        allowed: &[String],
        allow: impl Into<gate::Allow>,
    ) -> Result<State> {
        self.set_state_at(updates, None, allowed, allow)
    }

    /// `set_state`, and `position` (what a session's end or a snapshot says of where the work
    /// stands) as zo's line of `## Current Position` (`State::set_position`), in one write.
    pub fn set_state_at(
        &self,
        updates: Vec<(String, crate::format::state::Value)>,
        position: Option<&str>,
        allowed: &[String],
        allow: impl Into<gate::Allow>,
    ) -> Result<State> {
        let allow = allow.into();
        use crate::format::state::Value;
        check_state_fields(&updates)?;
        let mut fields: Vec<(&str, &str)> = position
            .map(|p| ("Current Position", p))
            .into_iter()
            .collect();
        for (k, v) in &updates {
            fields.push(("STATE key", k.as_str()));
            match v {
                Value::Scalar(s) => fields.push((k.as_str(), s.as_str())),
                Value::List(l) => fields.extend(l.iter().map(|s| (k.as_str(), s.as_str()))),
            }
        }
        let mut new = gate::hashes(&gate::check_fields(&fields, allow)?);
        new.extend(allowed.iter().cloned());
        // Secrets' hashes under `allowed_secrets`, directive rules under `allowed_directives`.
        let (rules, hashes): (Vec<String>, Vec<String>) = new
            .into_iter()
            .partition(|h| h.starts_with(gate::DIRECTIVE_PREFIX));
        let rules: Vec<String> = rules
            .iter()
            .map(|r| r[gate::DIRECTIVE_PREFIX.len()..].to_string())
            .collect();
        self.update_state(|s| {
            for (k, v) in updates {
                s.set(&k, v);
            }
            if let Some(p) = position {
                s.set_position(p);
            }
            for (key, new) in [
                (gate::STATE_ALLOWED, hashes),
                (gate::directives::STATE_ALLOWED, rules),
            ] {
                if new.is_empty() {
                    continue;
                }
                let mut all = s.get(key).map(|v| v.as_list()).unwrap_or_default();
                for h in new {
                    if !all.contains(&h) {
                        all.push(h);
                    }
                }
                s.set(key, Value::List(all));
            }
        })
    }

    /// Read-modify-write STATE.md under the lock.
    pub fn update_state(&self, f: impl FnOnce(&mut State)) -> Result<State> {
        let _lock = self.lock()?;
        let path = self.layout.state();
        let text = match fsio::read_text(&path)? {
            Some(t) => t,
            None => Text::new(crate::templates::STATE.replace("{project}", &self.layout.project())),
        };
        // A merge left unresolved (made without zo's driver): writing would bury the markers
        // under a valid-looking file and keep one side by accident.
        if crate::store::verify::may_hold_conflict_markers(text.as_str().as_bytes()) {
            if let Some(p) =
                crate::store::verify::conflict_markers(&self.layout.show(&path), text.as_str())
                    .into_iter()
                    .next()
            {
                bail!(
                    "{p}; resolve the merge in STATE.md first (or let zo's merge driver do it: `zo hooks install`), then run this again"
                );
            }
        }
        let mut state = State::parse(text);
        f(&mut state);
        fsio::write_atomic(&path, state.render().as_bytes())
            .with_context(|| "STATE.md was not changed")?;
        Ok(state)
    }
}

/// A forgotten entry is a tombstone: nothing may point at it or edit it (SPEC §2).
fn refuse_forgotten(id: &str, forgotten: bool, what: &str) -> Result<()> {
    if forgotten {
        bail!("refused: {id} was forgotten (`zo forget`); there is nothing left to {what}");
    }
    Ok(())
}

/// An entry written here with `--allow-directive` is approved here (`store::approvals`): the
/// person who wrote it consented; teammates who pull it approve it themselves. Best effort: an
/// approval that cannot be kept leaves the entry withheld here too, never the write undone.
pub(crate) fn approve_consented(id: &str, entry: &str, allowed: &[String]) {
    if allowed
        .iter()
        .any(|a| a.starts_with(gate::DIRECTIVE_PREFIX))
    {
        let _ = crate::store::approvals::approve(id, &crate::format::content_of(entry));
    }
}

/// STATE.md's rules for what a writer sets (usage errors, whoever the writer is): a key is a
/// field name, a value one line (the file's fields are `key: value` lines; a line break would
/// start a field of its own).
pub fn check_state_fields(updates: &[(String, crate::format::state::Value)]) -> Result<()> {
    use crate::format::state::Value;
    for (k, v) in updates {
        if k.is_empty()
            || !k
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(crate::error::Error::usage(format!(
                "{k:?} is not a STATE field name (letters, digits, _ and -)"
            ))
            .into());
        }
        let lines: Vec<&str> = match v {
            Value::Scalar(s) => vec![s.as_str()],
            Value::List(l) => l.iter().map(String::as_str).collect(),
        };
        if lines.iter().any(|s| s.contains(['\n', '\r'])) {
            return Err(crate::error::Error::usage(format!(
                "STATE fields are one line each: {k} holds a line break"
            ))
            .into());
        }
        // The fields everything reads (the bundle, snapshots' names, `status`) need a value:
        // `--phase ""` blanked the phase.
        if matches!(k.as_str(), "phase" | "mode" | "project")
            && matches!(v, Value::Scalar(s) if s.trim().is_empty())
        {
            return Err(crate::error::Error::usage(format!(
                "{k} cannot be empty: give it a value (`zo state show` prints the current one)"
            ))
            .into());
        }
    }
    Ok(())
}
