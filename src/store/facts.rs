//! Facts and preferences: exact values by key (`category:entity`), looked up before anything
//! fuzzy and loaded whole at session start. Project facts live in `.zo/memory/FACTS.md`
//! (committed); user facts in the same format in the user's zo directory (never committed,
//! applied in every repository). A project fact wins over a user fact with the same key: it is
//! the more specific rule.

use crate::format::fact::{self, Fact, FactsFile, NewFact};
use crate::format::fields::normalize_value;
use crate::format::{Status, Text};
use crate::store::fsio::{self, Lock};
use crate::store::gate;
use crate::store::memory::Memory;
use anyhow::{Context, Result, anyhow, bail};
use std::path::PathBuf;

/// Where a fact applies.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Committed with the project, shared with the team.
    Project,
    /// This user's, in every repository; never committed.
    User,
}

crate::named!(Scope { Project => "project", User => "user" });

/// The user's zo directory: `$ZO_USER_DIR`, else `$XDG_CONFIG_HOME/zo`, else `~/.config/zo`.
pub fn user_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("ZO_USER_DIR")
        .or_else(|| var("XDG_CONFIG_HOME").map(|p| p.join("zo")))
        .or_else(|| var("HOME").map(|p| p.join(".config").join("zo")))
}

/// One version of a fact as reported.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FactView {
    pub id: String,
    pub key: String,
    pub value: String,
    pub set: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub confidence: f64,
    /// `active` (the value that holds), `provisional` (below the promotion threshold, not yet
    /// confirmed), `superseded` (an older version).
    pub status: crate::format::Status,
    pub scope: Scope,
    pub file: String,
    pub line: usize,
}

/// A key's versions, computed once: which holds, which wait for confirmation.
pub struct KeyState {
    /// Oldest first (by `Set`, then ID).
    pub versions: Vec<usize>,
    /// Confirmed versions no later version names in `Supersedes`: one, unless two clones set
    /// the key and nobody has set it since.
    pub heads: Vec<usize>,
    /// The version that holds: the latest head.
    pub active: Option<usize>,
    threshold: f64,
}

/// Whether a version is provisional by itself: its confidence is under the threshold.
pub fn below(f: &Fact, threshold: f64) -> bool {
    f.confidence() < threshold
}

/// The IDs a version names in `Supersedes`.
fn replaced(f: &Fact) -> impl Iterator<Item = &str> {
    f.field("Supersedes")
        .unwrap_or("")
        .split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

pub fn key_state(file: &FactsFile, key: &str, threshold: f64) -> KeyState {
    let versions = file.versions(key);
    let gone: std::collections::HashSet<String> = versions
        .iter()
        .flat_map(|&i| {
            replaced(&file.entries[i])
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .collect();
    let heads: Vec<usize> = versions
        .iter()
        .copied()
        .filter(|&i| {
            !below(&file.entries[i], threshold)
                && !gone.contains(&file.entries[i].id.to_ascii_lowercase())
        })
        .collect();
    // A hand edit could make every version superseded (a cycle): the latest confirmed holds.
    let active = heads.last().copied().or_else(|| {
        versions
            .iter()
            .rev()
            .copied()
            .find(|&i| !below(&file.entries[i], threshold))
    });
    KeyState {
        versions,
        heads,
        active,
        threshold,
    }
}

impl KeyState {
    /// The status of version `i`, one of this key's versions.
    pub fn status(&self, file: &FactsFile, i: usize) -> Status {
        let f = &file.entries[i];
        if f.is_forgotten() {
            return Status::Forgotten;
        }
        if self.active == Some(i) {
            return Status::Active;
        }
        let at = |v: usize| self.versions.iter().position(|&x| x == v);
        let after_active = self.active.is_none_or(|a| at(i) > at(a));
        // A provisional version that a later one confirmed is done with.
        let confirmed = self.versions.iter().any(|&v| {
            file.entries[v]
                .field("Confirms")
                .is_some_and(|c| c.eq_ignore_ascii_case(&f.id))
        });
        if below(f, self.threshold) && after_active && !confirmed {
            Status::Provisional
        } else {
            Status::Superseded
        }
    }
}

/// The status of version `i` of its key (one lookup; to go over a key's versions, take its
/// `key_state` once).
pub fn status(file: &FactsFile, i: usize, threshold: f64) -> Status {
    key_state(file, &file.entries[i].key, threshold).status(file, i)
}

/// What `zo fact set` (and the MCP tool `fact_set`) asks for.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactInput {
    /// category:entity
    pub key: String,
    /// the value
    pub value: String,
    /// where it comes from
    #[serde(default)]
    pub source: Option<String>,
    /// 0-1 (default 1); below 0.7 provisional
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
    /// The command line's `--scope`; never from an agent's JSON: the user's facts reach the
    /// bundle of every repository on the machine, and no one reviews them (SPEC §3a).
    #[serde(skip)]
    #[schemars(skip)]
    pub scope: Option<Scope>,
    /// The command line's `--allow-secret` / `--allow-directive`; never from JSON.
    #[serde(skip)]
    #[schemars(skip)]
    pub allow: crate::store::gate::Allow,
}

/// What `zo confirm` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Confirmed {
    /// The provisional entry, now active.
    pub confirmed: String,
    /// The entry that confirms it (the entry itself when it was active already).
    pub id: String,
    pub file: String,
    /// It was active already: nothing was written (confirming twice is a no-op).
    pub unchanged: bool,
    /// With `--compatible-with`: the other decision, recorded as holding together with this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatible_with: Option<String>,
}

/// What `zo fact set` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FactSet {
    #[serde(flatten)]
    pub fact: NewFact,
    pub status: crate::format::Status,
    pub scope: Scope,
    /// True when the key already held this value: nothing was written.
    pub unchanged: bool,
}

impl Memory {
    /// Where facts of a scope live.
    pub fn facts_path(&self, scope: Scope) -> Result<PathBuf> {
        match scope {
            Scope::Project => Ok(self.layout.facts()),
            Scope::User => user_dir().map(|d| d.join("FACTS.md")).ok_or_else(|| {
                anyhow!("no user directory for user-scope facts: set ZO_USER_DIR or HOME")
            }),
        }
    }

    pub fn facts(&self, scope: Scope) -> Result<FactsFile> {
        let path = self.facts_path(scope)?;
        Ok(FactsFile::parse(
            fsio::read_text(&path)?.unwrap_or_default(),
        ))
    }

    /// The user's facts, or an empty file when there is no user directory.
    pub(crate) fn user_facts(&self) -> FactsFile {
        self.facts(Scope::User).unwrap_or_default()
    }

    /// The promotion threshold (`promotion.threshold` in config.yaml, default 0.7): entries
    /// written with a lower confidence are provisional until confirmed.
    pub fn threshold(&self) -> Result<f64> {
        let Some(v) = self.layout.config.get(&["promotion", "threshold"]) else {
            return Ok(crate::format::decision::DEFAULT_THRESHOLD);
        };
        match v.as_f64() {
            Some(t) if (0.0..=1.0).contains(&t) => Ok(t),
            _ => Err(crate::error::Error::Usage(format!(
                "{}: promotion.threshold must be a number from 0 to 1 (got {})",
                self.layout.show(&self.layout.config_file()),
                crate::store::config::show(v)
            ))
            .into()),
        }
    }

    pub fn fact_view(
        &self,
        file: &FactsFile,
        i: usize,
        scope: Scope,
        status: Status,
    ) -> Result<FactView> {
        let f = &file.entries[i];
        Ok(FactView {
            id: f.id.clone(),
            key: f.key.clone(),
            value: f.value().to_string(),
            set: f.set().to_string(),
            source: f.field("Source").map(str::to_string),
            confidence: f.confidence(),
            status,
            scope,
            file: self.layout.show(&self.facts_path(scope)?),
            line: f.span.line,
        })
    }

    /// The value that holds for `key`: the project's, else the user's (`scope` narrows it).
    /// With `provisional`, a newer provisional version is returned over the active one.
    pub fn fact_get(
        &self,
        key: &str,
        scope: Option<Scope>,
        provisional: bool,
    ) -> Result<Option<FactView>> {
        self.fact_get_as_of(key, scope, provisional, None)
    }

    /// `fact_get` as the facts stood at a past moment (`--as-of`; None: now).
    pub fn fact_get_as_of(
        &self,
        key: &str,
        scope: Option<Scope>,
        provisional: bool,
        at: Option<&crate::store::asof::AsOf>,
    ) -> Result<Option<FactView>> {
        let threshold = self.threshold()?;
        for s in [Scope::Project, Scope::User] {
            if scope.is_some_and(|want| want != s) {
                continue;
            }
            let file = self.scope_facts_as_of(s, at)?;
            let ks = key_state(&file, key, threshold);
            let pick =
                if provisional {
                    ks.versions.iter().rev().copied().find(|&i| {
                        matches!(ks.status(&file, i), Status::Active | Status::Provisional)
                    })
                } else {
                    ks.active
                };
            if let Some(i) = pick {
                return Ok(Some(self.fact_view(&file, i, s, ks.status(&file, i))?));
            }
        }
        Ok(None)
    }

    /// Every key's current value (and, with `all`, provisional and older versions), project
    /// first, keys starting with `prefix`. A user fact whose key the project also sets is left
    /// out (the project's holds) unless `all`.
    pub fn fact_list(
        &self,
        prefix: Option<&str>,
        scope: Option<Scope>,
        all: bool,
    ) -> Result<Vec<FactView>> {
        self.fact_list_as_of(prefix, scope, all, None)
    }

    /// `fact_list` as the facts stood at a past moment (`--as-of`; None: now).
    pub fn fact_list_as_of(
        &self,
        prefix: Option<&str>,
        scope: Option<Scope>,
        all: bool,
        at: Option<&crate::store::asof::AsOf>,
    ) -> Result<Vec<FactView>> {
        let threshold = self.threshold()?;
        let mut out: Vec<FactView> = Vec::new();
        let prefix = prefix.unwrap_or("").to_ascii_lowercase();
        for s in [Scope::Project, Scope::User] {
            if scope.is_some_and(|want| want != s) {
                continue;
            }
            let file = self.scope_facts_as_of(s, at)?;
            for key in file.keys() {
                if !key.to_ascii_lowercase().starts_with(&prefix) {
                    continue;
                }
                let shadowed = s == Scope::User
                    && out
                        .iter()
                        .any(|v| v.scope == Scope::Project && v.key.eq_ignore_ascii_case(key));
                let ks = key_state(&file, key, threshold);
                for &i in &ks.versions {
                    let st = ks.status(&file, i);
                    if all || (st == Status::Active && !shadowed) {
                        out.push(self.fact_view(&file, i, s, st)?);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Set a fact: append a new version of its key (nothing is rewritten). Setting the value
    /// the key already holds writes nothing.
    pub fn fact_set(&self, input: &FactInput, allow: impl Into<gate::Allow>) -> Result<FactSet> {
        let allow = allow.into();
        let limits = self.limits()?;
        let threshold = self.threshold()?;
        let scope = input.scope.unwrap_or(Scope::Project);
        let key = input.key.trim().to_string();
        fact::check_key(&key).map_err(|m| crate::error::Error::Usage(format!("refused: {m}")))?;
        let value = normalize_value(&input.value);
        gate::require("the value", &value)?;
        if let Some(c) = input.confidence {
            if !(0.0..=1.0).contains(&c) {
                return Err(crate::error::Error::Usage(format!(
                    "refused: --confidence must be from 0 to 1 (got {c})"
                ))
                .into());
            }
        }
        let source = input
            .source
            .as_deref()
            .map(normalize_value)
            .unwrap_or_default();
        let allowed = gate::hashes(&gate::check_fields(
            &[("Key", &key), ("Value", &value), ("Source", &source)],
            allow,
        )?);
        let path = self.facts_path(scope)?;
        let _lock = self.fact_lock(scope)?;
        let file = FactsFile::parse(fsio::read_text(&path)?.unwrap_or_default());
        let ks = key_state(&file, &key, threshold);
        let provisional = input.confidence.is_some_and(|c| c < threshold);
        if let Some(a) = ks.active {
            if file.entries[a].value() == value && !provisional {
                let f = &file.entries[a];
                let fact = NewFact {
                    id: f.id.clone(),
                    key: f.key.clone(),
                    value,
                    set: f.set().to_string(),
                    source: f.field("Source").unwrap_or("").into(),
                    confidence: Some(f.confidence()),
                    ..Default::default()
                };
                return Ok(FactSet {
                    fact,
                    status: Status::Active,
                    scope,
                    unchanged: true,
                });
            }
        }
        let new = NewFact {
            id: gate::new_id("F", |id| file.find(id).is_some())?,
            key,
            value,
            // Milliseconds: two clones setting a key within one second still order.
            set: crate::time::now_millis(),
            source,
            confidence: input.confidence,
            // Every head: setting a key after a fork settles it.
            supersedes: if provisional {
                String::new()
            } else {
                heads(&file, &ks)
            },
            confirms: String::new(),
            allowed,
        };
        self.append_fact(&path, &file, &new, limits)?;
        Ok(FactSet {
            fact: new,
            status: if provisional {
                Status::Provisional
            } else {
                Status::Active
            },
            scope,
            unchanged: false,
        })
    }

    /// Confirm a provisional fact version: append a version of its key with its value at full
    /// confidence.
    pub fn confirm_fact(&self, id: &str) -> Result<Option<FactSet>> {
        let limits = self.limits()?;
        let threshold = self.threshold()?;
        for scope in [Scope::Project, Scope::User] {
            let Ok(path) = self.facts_path(scope) else {
                continue;
            };
            if !path.is_file() {
                continue;
            }
            let _lock = self.fact_lock(scope)?;
            let file = FactsFile::parse(fsio::read_text(&path)?.unwrap_or_default());
            let Some(i) = file.find(id) else { continue };
            let f = &file.entries[i];
            let ks = key_state(&file, &f.key, threshold);
            // Confirmed before: a later version says it confirms this one. Nothing to do.
            if let Some(j) = file.entries.iter().position(|e| {
                e.field("Confirms")
                    .is_some_and(|c| c.trim().eq_ignore_ascii_case(&f.id))
            }) {
                let c = &file.entries[j];
                return Ok(Some(FactSet {
                    fact: NewFact {
                        id: c.id.clone(),
                        key: c.key.clone(),
                        value: c.value().to_string(),
                        set: String::new(),
                        source: String::new(),
                        confidence: None,
                        supersedes: String::new(),
                        confirms: f.id.clone(),
                        allowed: Default::default(),
                    },
                    status: Status::Active,
                    scope,
                    unchanged: true,
                }));
            }
            match ks.status(&file, i) {
                Status::Provisional => {}
                // Holds already (confirmed before, or never provisional): nothing to do.
                Status::Active => {
                    return Ok(Some(FactSet {
                        fact: NewFact {
                            id: f.id.clone(),
                            key: f.key.clone(),
                            value: f.value().to_string(),
                            set: String::new(),
                            source: String::new(),
                            confidence: None,
                            supersedes: String::new(),
                            confirms: f.id.clone(),
                            allowed: Default::default(),
                        },
                        status: Status::Active,
                        scope,
                        unchanged: true,
                    }));
                }
                Status::Forgotten => bail!("{} was forgotten; there is nothing to confirm", f.id),
                other => bail!(
                    "{} is not provisional (it is {other}); nothing to confirm",
                    f.id
                ),
            }
            let mut new = NewFact {
                id: gate::new_id("F", |id| file.find(id).is_some())?,
                key: f.key.clone(),
                value: f.value().to_string(),
                set: crate::time::now_millis(),
                source: f.field("Source").unwrap_or("").to_string(),
                confidence: None,
                supersedes: heads(&file, &ks),
                confirms: f.id.clone(),
                allowed: vec![],
            };
            // The value is copied: a secret allowed in the version confirmed stays allowed.
            let raw = &file.text.as_str()[f.span.start..f.span.end];
            let check = [
                ("Key", new.key.as_str()),
                ("Value", new.value.as_str()),
                ("Source", new.source.as_str()),
            ];
            new.allowed = gate::hashes(&gate::check_fields_with(
                &check,
                false,
                &gate::allowed_in(raw),
            )?);
            self.append_fact(&path, &file, &new, limits)?;
            return Ok(Some(FactSet {
                fact: new,
                status: Status::Active,
                scope,
                unchanged: false,
            }));
        }
        Ok(None)
    }

    /// `zo confirm ID`: a fact version (F-…) or a decision. Returns what was confirmed, the
    /// entry that confirms it, and the file it was written to.
    pub fn confirm(&self, id: &str) -> Result<Confirmed> {
        if id.trim().to_ascii_uppercase().starts_with("F-") {
            let file = self.layout.show(&self.layout.facts());
            let r = self
                .confirm_fact(id)
                .with_context(|| format!("nothing was written to {file}"))?;
            let r =
                r.ok_or_else(|| anyhow!("no fact version {id} in {file} or the user's facts"))?;
            let file = self
                .facts_path(r.scope)
                .map(|p| self.layout.show(&p))
                .unwrap_or(file);
            return Ok(Confirmed {
                confirmed: r.fact.confirms,
                id: r.fact.id,
                file,
                unchanged: r.unchanged,
                compatible_with: None,
            });
        }
        let file = self.layout.show(&self.layout.decision_log());
        let r = self
            .confirm_decision(id)
            .with_context(|| format!("nothing was written to {file}"))?;
        Ok(match r {
            Some(r) => Confirmed {
                confirmed: r.refs,
                id: r.id,
                file,
                unchanged: false,
                compatible_with: None,
            },
            None => {
                let log = self.decisions()?;
                let i = log.find(id).map_err(|e| anyhow!("{e:?}"))?;
                let id = log.entries[i].id.clone();
                Confirmed {
                    confirmed: id.clone(),
                    id,
                    file,
                    unchanged: true,
                    compatible_with: None,
                }
            }
        })
    }

    /// `zo confirm A --compatible-with B`: the pair recorded as holding together (`named`: see
    /// `confirm_compatible`).
    pub fn confirm_compatible_pair(
        &self,
        a: &str,
        b: &str,
        named: &dyn Fn(&crate::format::decision::DecisionLog, &str, &str) -> bool,
    ) -> Result<Confirmed> {
        let file = self.layout.show(&self.layout.decision_log());
        let (a, b, written) = self
            .confirm_compatible(a, b, named)
            .with_context(|| format!("nothing was written to {file}"))?;
        Ok(match written {
            Some(r) => Confirmed {
                confirmed: a,
                id: r.id,
                file,
                unchanged: false,
                compatible_with: Some(b),
            },
            None => {
                // Recorded already: the CONFIRM entry that names both is the answer's ID.
                let log = self.decisions()?;
                let names = |e: &crate::format::decision::Decision, id: &str| {
                    e.refs.as_deref().is_some_and(|r| {
                        crate::format::decision::referenced_ids(r)
                            .iter()
                            .any(|x| log.find(x).ok() == log.find(id).ok())
                    })
                };
                let kept = log
                    .entries
                    .iter()
                    .rev()
                    .find(|e| e.is_confirmation() && names(e, &a) && names(e, &b))
                    .map(|e| e.id.clone());
                Confirmed {
                    confirmed: a.clone(),
                    id: kept.unwrap_or(a),
                    file,
                    unchanged: true,
                    compatible_with: Some(b),
                }
            }
        })
    }

    /// The lock for a scope's file: the memory lock, or the user directory's own.
    pub(crate) fn fact_lock(&self, scope: Scope) -> Result<Lock> {
        match scope {
            Scope::Project => self.lock(),
            Scope::User => {
                let dir = user_dir()
                    .ok_or_else(|| anyhow!("no user directory: set ZO_USER_DIR or HOME"))?;
                fsio::create_dir(&dir)?;
                Lock::acquire(&dir)
            }
        }
    }

    fn append_fact(
        &self,
        path: &std::path::Path,
        file: &FactsFile,
        new: &NewFact,
        limits: gate::Limits,
    ) -> Result<()> {
        let entry = new.render();
        gate::entry_size(&entry, limits)?;
        let text = if file.text.as_str().is_empty() {
            Text::new(crate::templates::FACTS.to_string())
        } else {
            file.text.clone()
        };
        let joint = text.joint(file.last_separated());
        let parts = text.appended_parts(&format!("{joint}{entry}"));
        fsio::write_atomic_parts(path, &[&parts[0], &parts[1], &parts[2]])?;
        crate::store::write::approve_consented(&new.id, &entry, &new.allowed);
        crate::store::provenance::note_written_here(&self.layout, &entry);
        Ok(())
    }
}

/// A fork: two versions of one key neither of which knew of the other (set on two clones and
/// merged). The later one holds; `zo verify` names the pair so someone can decide.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Fork {
    pub key: String,
    pub holds: String,
    pub other: String,
    pub line: usize,
}

/// Forks still open: a key with more than one head (set on two clones, merged, and not set
/// since). The latest head holds.
pub fn forks(file: &FactsFile, threshold: f64) -> Vec<Fork> {
    let mut out = Vec::new();
    for key in file.keys() {
        let ks = key_state(file, key, threshold);
        let Some(a) = ks.active else { continue };
        let fa = &file.entries[a];
        for &i in ks
            .heads
            .iter()
            .filter(|&&i| i != a && file.entries[i].value() != fa.value())
        {
            out.push(Fork {
                key: key.to_string(),
                holds: fa.id.clone(),
                other: file.entries[i].id.clone(),
                line: fa.span.line,
            });
        }
    }
    out
}

/// The key's heads as a `Supersedes` value.
fn heads(file: &FactsFile, ks: &KeyState) -> String {
    ks.heads
        .iter()
        .map(|&i| file.entries[i].id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
