//! Integrity checks (SPEC §6): every entry parses, IDs are unique, references resolve, and the
//! append-only files keep every entry of a base version (HEAD, the index, a parent commit).

use crate::format::content_of;
use crate::format::decision::{DecisionLog, referenced_ids};
use crate::format::fact::FactsFile;
use crate::format::prior::PriorsFile;
use std::collections::HashMap;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

fn problem(file: &str, line: usize, message: String) -> Problem {
    Problem {
        file: file.to_string(),
        line,
        message,
    }
}

/// Structure of DECISION_LOG.md.
pub fn decisions(file: &str, log: &DecisionLog) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let known = |r: &str| log.find(r).is_ok();
    for (i, e) in log.entries.iter().enumerate() {
        let line = e.span.line;
        let body = log.body(i);
        if let Some(first) = seen.insert(e.id.as_str(), line) {
            out.push(problem(
                file,
                line,
                format!("ID {} is also used by the entry at line {first}", e.id),
            ));
        }
        if body.fields.is_empty() {
            out.push(problem(
                file,
                line,
                "decision has no fields (expected **Title:**, **Decision:** …)".into(),
            ));
            continue;
        }
        if e.title.trim().is_empty() {
            out.push(problem(file, line, "decision has no **Title:**".into()));
        }
        if e.timestamp.is_empty() {
            out.push(problem(
                file,
                line,
                format!(
                    "decision {} has no timestamp (in its heading or **Timestamp:**)",
                    e.id
                ),
            ));
        } else if !crate::time::starts_with_date(&e.timestamp) {
            out.push(problem(
                file,
                line,
                format!(
                    "decision {} has an unreadable timestamp {:?}",
                    e.id, e.timestamp
                ),
            ));
        }
        if e.is_outcome() || e.is_confirmation() || e.is_promotion() {
            if body
                .get("Refs")
                .is_none_or(|r| referenced_ids(r).is_empty())
            {
                out.push(problem(
                    file,
                    line,
                    format!("{} entry {} has no **Refs:**", e.kind.to_uppercase(), e.id),
                ));
            }
        } else if e.is_forgotten() {
            if body.get("Forgotten").is_none() {
                out.push(problem(
                    file,
                    line,
                    format!("FORGOTTEN entry {} has no **Forgotten:** date", e.id),
                ));
            }
        } else if body.get("Decision").is_none_or(|d| d.trim().is_empty()) {
            out.push(problem(
                file,
                line,
                format!("decision {} has no **Decision:** text", e.id),
            ));
        }
        for name in ["Supersedes", "Refs"] {
            if let Some(v) = body.get(name) {
                for r in referenced_ids(v)
                    .iter()
                    .filter(|r| r.starts_with("D-") && !known(r))
                {
                    let at = body
                        .fields
                        .iter()
                        .find(|f| f.name.eq_ignore_ascii_case(name))
                        .map_or(line, |f| f.line);
                    out.push(problem(
                        file,
                        at,
                        format!("{} names {r}, which is not in the log", e.id),
                    ));
                }
            }
        }
    }
    // A hand-written cycle: every member is read as active (SPEC §2), which is surely not what
    // was meant. The log runs newest last, so the chain is told from the superseding side.
    for cycle in log.cycles() {
        let rev: Vec<usize> = cycle.iter().rev().copied().collect();
        let chain = chain(
            rev.iter()
                .map(|&i| (log.entries[i].id.as_str(), log.entries[i].span.line)),
            "supersedes",
        );
        let e = &log.entries[cycle[0]];
        out.push(problem(
            file,
            e.span.line,
            format!("a supersede cycle: {chain}; none of them is read as superseded; record which holds with a new decision --supersedes"),
        ));
    }
    out
}

/// Structure of PRIORS.md.
pub fn priors(file: &str, pf: &PriorsFile) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for p in &pf.entries {
        let line = p.span.line;
        if let Some(first) = seen.insert(p.id.as_str(), line) {
            out.push(problem(
                file,
                line,
                format!(
                    "{} is also used by the prior at line {first}: two priors share a number (a merge without zo's driver?); renumber one of them by hand",
                    p.id
                ),
            ));
        }
        if p.title.trim().is_empty() {
            out.push(problem(file, line, format!("{} has no title", p.id)));
        }
        if let Some(by) = p.superseded_by() {
            if pf.find(by).is_none() {
                out.push(problem(
                    file,
                    line,
                    format!("{} is superseded by {by}, which is not in the file", p.id),
                ));
            }
        }
    }
    // A cycle reads as every member holding (SPEC §2); say which and where, once per member.
    for cycle in pf.cycles() {
        let chain = chain(
            cycle
                .iter()
                .map(|&i| (pf.entries[i].id.as_str(), pf.entries[i].span.line)),
            "is superseded by",
        );
        for &i in &cycle {
            let p = &pf.entries[i];
            out.push(problem(
                file,
                p.span.line,
                format!("{} is superseded in a cycle ({chain}); all of them are read as holding; point one of them at a prior that holds", p.id),
            ));
        }
    }
    out
}

/// `A (line 3) <verb> B (line 9) <verb> A`: a cycle as the chain a person follows.
fn chain<'a>(members: impl Iterator<Item = (&'a str, usize)>, verb: &str) -> String {
    let members: Vec<_> = members.collect();
    let mut s: Vec<String> = members
        .iter()
        .map(|(id, line)| format!("{id} (line {line})"))
        .collect();
    if let Some((id, _)) = members.first() {
        s.push(id.to_string());
    }
    s.join(&format!(" {verb} "))
}

/// Every entry of `base` must still be in `current`, unchanged.
pub fn decisions_append_only(
    file: &str,
    base_name: &str,
    base: &DecisionLog,
    current: &DecisionLog,
) -> Vec<Problem> {
    let now: HashMap<&str, usize> = current
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (bi, e) in base.entries.iter().enumerate() {
        let before = e.content(base);
        let line = e.span.line;
        match now.get(e.id.as_str()) {
            Some(&i) if current.entries[i].content(current) == before => {}
            // `zo forget`: the entry replaced by exactly its tombstone.
            Some(&i)
                if current.entries[i].is_forgotten() && !e.is_forgotten() && {
                    let (when, why) = (current.field(i, "Forgotten").unwrap_or(""), current.field(i, "Reason").unwrap_or(""));
                    content_of(&crate::format::decision::tombstone(base, bi, when.trim(), why.trim())) == current.entries[i].content(current)
                } => {}
            Some(&i) => out.push(problem(
                file,
                current.entries[i].span.line,
                format!(
                    "decision {} ({}) was edited since {base_name}; entries are append-only: \
                     restore it and record the change as a new decision with --supersedes {}",
                    e.id, e.title, e.id
                ),
            )),
            None if e.id_derived => out.push(problem(
                file,
                line,
                format!(
                    "the decision at line {line} in {base_name} ({}) was edited or deleted; entries are append-only: \
                     restore it and record the change as a new decision",
                    e.title
                ),
            )),
            None => {
                out.push(problem(file, line, format!("decision {} ({}) was deleted since {base_name}; entries are append-only: restore it", e.id, e.title)))
            }
        }
    }
    out
}

/// Every prior of `base` must still be in `current`, unchanged except for its `Superseded by`.
pub fn priors_append_only(
    file: &str,
    base_name: &str,
    base: &PriorsFile,
    current: &PriorsFile,
) -> Vec<Problem> {
    // A merge may renumber a prior that got the same number on two machines: a prior whose
    // text (heading number aside) is still there under another number is not lost.
    let unnumbered = |f: &PriorsFile, e: &crate::format::prior::Prior| {
        let c = e.content_without_supersession(f);
        match c.split_once('\n') {
            Some((head, rest)) => {
                format!("{}\n{rest}", head.split_once(':').map_or(head, |(_, t)| t))
            }
            None => c,
        }
    };
    let moved: std::collections::HashSet<String> = current
        .entries
        .iter()
        .map(|e| unnumbered(current, e))
        .collect();
    let mut out = Vec::new();
    for p in &base.entries {
        let before = p.content_without_supersession(base);
        let renumbered = moved.contains(&unnumbered(base, p));
        // With a number used twice (a merge made without zo), the copy with the same text is
        // this prior; the other one is reported as a duplicate number, not as an edit.
        let same = current
            .entries
            .iter()
            .find(|c| c.id == p.id && c.content_without_supersession(current) == before);
        match same.or_else(|| current.entries.iter().find(|c| c.id == p.id)) {
            _ if renumbered && current.entries.iter().all(|c| c.id != p.id || c.content_without_supersession(current) != before) => {}
            Some(c)
                if c.is_forgotten() && !p.is_forgotten() && {
                    let (when, why) = (c.field("Forgotten").unwrap_or("").trim(), c.field("Reason").unwrap_or("").trim());
                    content_of(&p.tombstone(when, why)) == c.content(current)
                } => {}
            Some(c) if c.content_without_supersession(current) == before => {
                if p.superseded_by().is_some() && c.superseded_by() != p.superseded_by() {
                    out.push(problem(file, c.span.line, format!("{}'s **Superseded by:** was changed since {base_name}", p.id)));
                }
            }
            Some(c) => out.push(problem(
                file,
                c.span.line,
                format!(
                    "{} ({}) was edited since {base_name}; priors are append-only: restore it, add a new prior and run `zo prior supersede {} NEW`",
                    p.id, p.title, p.id
                ),
            )),
            None => out.push(problem(
                file,
                p.span.line,
                format!("{} ({}) was deleted or renumbered since {base_name}; priors are append-only: restore it", p.id, p.title),
            )),
        }
    }
    out
}

/// Structure of FACTS.md: IDs unique, keys well formed, a value and a time on each version.
pub fn facts(file: &str, f: &FactsFile) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for e in &f.entries {
        let line = e.span.line;
        if e.id.is_empty() {
            out.push(problem(file, line, "fact has no **ID:**".into()));
        } else if let Some(first) = seen.insert(e.id.as_str(), line) {
            out.push(problem(
                file,
                line,
                format!("ID {} is also used by the fact at line {first}", e.id),
            ));
        }
        if e.is_forgotten() {
            continue;
        }
        if let Err(m) = crate::format::fact::check_key(&e.key) {
            out.push(problem(file, line, m));
        }
        if e.value().trim().is_empty() {
            out.push(problem(
                file,
                line,
                format!("fact {} has no **Value:**", e.id),
            ));
        }
        if !crate::time::starts_with_date(e.set()) {
            out.push(problem(
                file,
                line,
                format!("fact {} has no readable **Set:** time", e.id),
            ));
        }
    }
    fact_cycles(file, f, &mut out);
    out
}

/// Versions whose `Supersedes` lead back to themselves (written by hand). The latest confirmed
/// version of the key holds (SPEC §2), but the file no longer says which replaced which.
/// One depth-first pass: each edge that closes a cycle is reported once.
fn fact_cycles(file: &str, f: &FactsFile, out: &mut Vec<Problem>) {
    let by_id: HashMap<String, usize> = f
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.to_ascii_lowercase(), i))
        .collect();
    let next: Vec<Vec<usize>> = f
        .entries
        .iter()
        .map(|e| {
            let v = e.field("Supersedes").unwrap_or("");
            v.split([',', ' '])
                .filter_map(|id| by_id.get(&id.trim().to_ascii_lowercase()).copied())
                .collect()
        })
        .collect();
    // 0: not seen; 1: on the current path; 2: done.
    let mut state = vec![0u8; next.len()];
    for start in 0..next.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(top) = stack.last_mut() {
            let (v, k) = *top;
            if let Some(&w) = next[v].get(k) {
                top.1 += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => {
                        let (a, b) = (&f.entries[v], &f.entries[w]);
                        out.push(problem(
                            file,
                            a.span.line,
                            format!(
                                "a supersede cycle: {} (line {}) supersedes {} (line {}), which leads back to it; the latest confirmed version holds; set the key again to settle it",
                                a.id, a.span.line, b.id, b.span.line
                            ),
                        ));
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
}

/// Every fact version of `base` must still be in `current`, unchanged or replaced by exactly
/// its tombstone.
pub fn facts_append_only(
    file: &str,
    base_name: &str,
    base: &FactsFile,
    current: &FactsFile,
) -> Vec<Problem> {
    let mut out = Vec::new();
    for e in &base.entries {
        let before = e.content(base);
        match current.find(&e.id).map(|i| &current.entries[i]) {
            Some(c) if c.content(current) == before => {}
            Some(c)
                if c.is_forgotten() && !e.is_forgotten() && {
                    let (when, why) = (c.field("Forgotten").unwrap_or(""), c.field("Reason").unwrap_or(""));
                    content_of(&crate::format::fact::tombstone(e, when, why)) == c.content(current)
                } => {}
            Some(c) => out.push(problem(
                file,
                c.span.line,
                format!("fact {} ({}) was edited since {base_name}; facts are append-only: restore it and set the key again (`zo fact set`)", e.id, e.key),
            )),
            None => out.push(problem(file, e.span.line, format!("fact {} ({}) was deleted since {base_name}; facts are append-only: restore it", e.id, e.key))),
        }
    }
    out
}

/// Whether `text` may hold conflict markers (one search; `conflict_markers` says where).
pub fn may_hold_conflict_markers(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"<<<<<<<").is_some()
}

/// Lines git leaves where a merge could not be resolved (a merge without zo's driver). They
/// are named as what they are, with the fix, rather than as edited or broken entries.
pub fn conflict_markers(file: &str, text: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut fence = crate::format::fields::Fence::default();
    for (n, line) in text.lines().enumerate() {
        if fence.feed(line) {
            continue;
        }
        if line.starts_with("<<<<<<< ")
            || line == "<<<<<<<"
            || line.starts_with(">>>>>>> ")
            || line == ">>>>>>>"
        {
            out.push(problem(
                file,
                n + 1,
                "unresolved merge conflict marker: `zo resolve` merges the file again through zo's driver \
                 while git still has the merge in progress; otherwise keep every entry of both sides, delete the \
                 marker lines (<<<<<<<, =======, >>>>>>>), then `zo verify`"
                    .into(),
            ));
        }
    }
    out
}
