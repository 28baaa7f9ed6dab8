//! The secret scanner behind the write gate and `zo verify`.
//!
//! The rules are gitleaks' (`gitleaks.rs`, generated from its `config/gitleaks.toml`, MIT; the
//! commit is named there) plus zo's own for forms gitleaks leaves to context (`rules.rs`:
//! passwords in URLs, headers, `.netrc`, `mysql -p…`, unquoted `password: …`, bare AWS secret
//! keys, base64-wrapped PEM keys). The engine follows gitleaks' design: one Aho-Corasick pass
//! over the text finds the rules' keywords (case-insensitive), and only the rules whose
//! keyword occurs run their regex, each compiled on first use. A write whose text holds no
//! keyword costs one automaton pass: microseconds. A match is a finding when its secret (the
//! rule's capture group, else the first non-empty one, else the match) clears the rule's
//! entropy floor and no allowlist (gitleaks' global and the rule's, then zo's placeholders)
//! takes it back.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;
use std::sync::{LazyLock, OnceLock};

/// What an allowlist's regexes look at (gitleaks' `regexTarget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Secret,
    Match,
    Line,
}

/// A gitleaks allowlist: a finding is taken back when a regex matches its target or its
/// secret holds a stopword (`all`: both must hold, gitleaks' `condition = "AND"`).
#[derive(Debug)]
pub struct Allow {
    pub target: Target,
    pub all: bool,
    pub regexes: &'static [&'static str],
    pub stopwords: &'static [&'static str],
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    /// What the secret is, for the message: "a GitHub token".
    pub what: &'static str,
    pub regex: &'static str,
    /// The capture group holding the secret (0: the first non-empty group, else the match).
    pub group: usize,
    /// Shannon entropy the secret must exceed (0: no floor).
    pub entropy: f64,
    /// The regex runs only when one of these occurs in the text (any case).
    pub keywords: &'static [&'static str],
    pub allow: &'static [Allow],
    /// A test of the secret a regex cannot make (a base64 run that decodes to a private key).
    pub confirm: Option<fn(&str) -> bool>,
}

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// 1-based line of the match's start.
    pub line: usize,
    /// The rule's ID (gitleaks' ID, or `zo-…` for zo's own).
    pub rule: &'static str,
    /// What it looks like: "a GitHub token".
    pub what: &'static str,
    /// The secret as matched (what `--allow-secret` records the hash of).
    pub matched: String,
    /// Byte offset of the match in the text.
    #[serde(skip)]
    pub start: usize,
}

struct Compiled {
    re: Regex,
    allow: Vec<(&'static Allow, Vec<Regex>)>,
}

struct Engine {
    rules: Vec<&'static Rule>,
    keywords: AhoCorasick,
    /// For each keyword pattern, the rules that name it.
    owners: Vec<Vec<usize>>,
    /// Rules without keywords: they always run.
    always: Vec<usize>,
    compiled: Vec<OnceLock<Option<Compiled>>>,
    global: Vec<Regex>,
}

fn compile(p: &str) -> Option<Regex> {
    // gitleaks' generic rule is large once Unicode classes are expanded.
    regex::RegexBuilder::new(p)
        .size_limit(64 << 20)
        .build()
        .ok()
}

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let rules: Vec<&'static Rule> = super::rules::RULES
        .iter()
        .chain(super::gitleaks::RULES.iter())
        .collect();
    let mut words: Vec<String> = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        if r.keywords.is_empty() {
            always.push(i);
        }
        for k in r.keywords {
            let k = k.to_ascii_lowercase();
            match words.iter().position(|w| *w == k) {
                Some(at) => owners[at].push(i),
                None => {
                    words.push(k);
                    owners.push(vec![i]);
                }
            }
        }
    }
    let keywords = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&words)
        .expect("keywords build an automaton");
    let compiled = (0..rules.len()).map(|_| OnceLock::new()).collect();
    let global = super::gitleaks::GLOBAL
        .regexes
        .iter()
        .filter_map(|p| compile(p))
        .collect();
    Engine {
        rules,
        keywords,
        owners,
        always,
        compiled,
        global,
    }
});

impl Engine {
    fn compiled(&self, i: usize) -> Option<&Compiled> {
        self.compiled[i]
            .get_or_init(|| {
                let r = self.rules[i];
                Some(Compiled {
                    re: compile(r.regex)?,
                    allow: r
                        .allow
                        .iter()
                        .map(|a| (a, a.regexes.iter().filter_map(|p| compile(p)).collect()))
                        .collect(),
                })
            })
            .as_ref()
    }
}

/// Shannon entropy of `s` in bits per character (gitleaks' measure).
pub fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&c| c as f64 / n as f64)
        .map(|p| -p * p.log2())
        .sum()
}

fn allowed(a: &Allow, regexes: &[Regex], secret: &str, matched: &str, line: &str) -> bool {
    let target = match a.target {
        Target::Secret => secret,
        Target::Match => matched,
        Target::Line => line,
    };
    let by_regex = regexes.iter().any(|r| r.is_match(target));
    let lower = secret.to_lowercase();
    let by_word = a.stopwords.iter().any(|w| lower.contains(w));
    if a.all {
        (a.regexes.is_empty() || by_regex) && (a.stopwords.is_empty() || by_word)
    } else {
        by_regex || by_word
    }
}

/// The line(s) a match spans, without their line ends.
fn lines_of(text: &str, start: usize, end: usize) -> &str {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    &text[from..to]
}

/// A line that only records allowed secrets' hashes (a hash looks random): never scanned.
fn is_allowance_line(line: &str) -> bool {
    super::allowance_hashes(line).is_some_and(|h| !h.is_empty())
}

/// Every secret in `text`, in text order.
pub fn scan(text: &str) -> Vec<Finding> {
    // Invisible characters cannot hide a secret: the rules read the text without them, and each
    // finding points into the text as it is (lines are never joined).
    if let Some((clean, removed)) = super::chars::stripped(text) {
        let mut found = scan_plain(&clean);
        for f in &mut found {
            f.start = super::chars::original_offset(f.start, &removed);
        }
        return found;
    }
    scan_plain(text)
}

/// Which rules' regexes `text` needs run: those whose keywords it holds (and those without
/// keywords, of which there are none). None when no rule can match: the common case, a pass
/// of the keyword automaton and nothing else.
pub(super) fn rules_to_run(text: &str) -> Option<Vec<bool>> {
    let e = &*ENGINE;
    let mut run = vec![false; e.rules.len()];
    for &i in &e.always {
        run[i] = true;
    }
    let mut any = !e.always.is_empty();
    for m in e.keywords.find_overlapping_iter(text) {
        for &i in &e.owners[m.pattern().as_usize()] {
            run[i] = true;
            any = true;
        }
    }
    any.then_some(run)
}

fn scan_plain(text: &str) -> Vec<Finding> {
    let e = &*ENGINE;
    let Some(run) = rules_to_run(text) else {
        return vec![];
    };
    let mut out: Vec<Finding> = Vec::new();
    for (i, rule) in e.rules.iter().enumerate() {
        if !run[i] {
            continue;
        }
        let Some(c) = e.compiled(i) else { continue };
        for caps in c.re.captures_iter(text) {
            let Some(m) = caps.get(0) else { continue };
            // gitleaks trims line ends off a match (a rule that ends in `\n` or `$`).
            let matched = m.as_str().trim_matches('\n');
            let start = m.start() + (m.as_str().len() - m.as_str().trim_start_matches('\n').len());
            let group = |g: usize| caps.get(g).map(|x| x.as_str()).filter(|s| !s.is_empty());
            let secret = if rule.group > 0 {
                match group(rule.group) {
                    Some(s) => s,
                    None => continue,
                }
            } else {
                (1..caps.len()).find_map(group).unwrap_or(matched)
            };
            if rule.entropy > 0.0 && entropy(secret) <= rule.entropy {
                continue;
            }
            let line = lines_of(text, start, start + matched.len());
            if e.global.iter().any(|r| r.is_match(secret))
                || super::gitleaks::GLOBAL
                    .stopwords
                    .iter()
                    .any(|w| secret.to_lowercase().contains(w))
                || c.allow
                    .iter()
                    .any(|(a, res)| allowed(a, res, secret, matched, line))
                || super::rules::placeholder(secret)
                || super::rules::public(secret)
                || rule.confirm.is_some_and(|f| !f(secret))
                || (!line.contains('\n') && is_allowance_line(line))
            {
                continue;
            }
            out.push(Finding {
                line: text[..start].bytes().filter(|&b| b == b'\n').count() + 1,
                rule: rule.id,
                what: rule.what,
                matched: secret.to_string(),
                start,
            });
        }
    }
    out.sort_by_key(|f| f.start);
    // One secret caught by several rules is one finding (the first rule: zo's, then gitleaks').
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.line, f.matched.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule compiles with the regex crate (gitleaks writes Go's RE2 syntax), and every
    /// rule has a keyword, so a text without one runs no regex at all.
    #[test]
    fn every_rule_compiles_and_has_a_keyword() {
        let e = &*ENGINE;
        let broken: Vec<&str> = (0..e.rules.len())
            .filter(|&i| e.compiled(i).is_none())
            .map(|i| e.rules[i].id)
            .collect();
        assert_eq!(broken, Vec::<&str>::new());
        let bad: Vec<(&str, &str)> = e
            .rules
            .iter()
            .flat_map(|r| {
                r.allow
                    .iter()
                    .flat_map(|a| a.regexes.iter())
                    .filter(|p| compile(p).is_none())
                    .map(|p| (r.id, *p))
            })
            .collect();
        assert_eq!(bad, vec![], "allowlist regexes that do not compile");
        assert_eq!(e.always, Vec::<usize>::new(), "rules without keywords");
        assert_eq!(e.global.len(), super::super::gitleaks::GLOBAL.regexes.len());
        assert!(e.rules.len() > 200, "gitleaks' rules are all there");
    }

    #[test]
    fn entropy_is_gitleaks_measure() {
        assert_eq!(entropy(""), 0.0);
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("ab") - 1.0).abs() < 1e-9);
    }
}
