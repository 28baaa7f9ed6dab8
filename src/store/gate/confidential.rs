//! The confidentiality gate (SPEC §3c): what `zo promote` refuses to carry out of a project into
//! a linked memory, which other projects and people read. A lesson is generic or it stays
//! home: text that names the project (its name, its remote's host, owner and repository, the
//! path it lives at, a path inside it) or any term of its `confidential:` list is refused,
//! naming each term and the field it is in. ZO's confidentiality priors (PR-024/028/030) are
//! the origin: the platform memory never holds project specifics.

use crate::error::Error;
use crate::store::config::{Config, Value};
use crate::store::layout::Layout;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Hosts that say nothing about a project: everyone's code is there.
const PUBLIC_HOSTS: &[&str] = &[
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    "sr.ht",
    "git.sr.ht",
    "dev.azure.com",
    "ssh.dev.azure.com",
];

/// Names nearly every project has: a path made only of these says nothing about this one.
const COMMON: &[&str] = &[
    ".github",
    ".gitignore",
    ".zo",
    "Cargo.lock",
    "Cargo.toml",
    "Dockerfile",
    "LICENSE",
    "Makefile",
    "README.md",
    "bin",
    "build",
    "dist",
    "doc",
    "docs",
    "go.mod",
    "index.js",
    "index.ts",
    "lib",
    "lib.rs",
    "main.go",
    "main.py",
    "main.rs",
    "mod.rs",
    "node_modules",
    "package-lock.json",
    "package.json",
    "pyproject.toml",
    "scripts",
    "setup.py",
    "src",
    "target",
    "test",
    "tests",
];

/// One thing that names the project, and what it is.
#[derive(Debug, Clone)]
struct Term {
    text: String,
    what: String,
}

/// What names this project, gathered once per promotion.
pub struct Confidential {
    terms: Vec<Term>,
    root: PathBuf,
    /// The files git tracks in the project, lowercased (`src/billing/charge.rs`).
    tracked: Vec<String>,
}

impl Confidential {
    /// The project's name, its remotes' hosts (but the public ones), owners and repository
    /// names, the path it lives at, and its `confidential:` lists (config.yaml, local.yaml).
    pub fn of(layout: &Layout) -> Result<Confidential> {
        let mut c = Confidential {
            terms: Vec::new(),
            root: layout.root.clone(),
            tracked: Vec::new(),
        };
        c.add(&layout.project(), "the project's name");
        if let Some(name) = layout.root.file_name() {
            c.add(&name.to_string_lossy(), "the project's folder");
        }
        if let Some(repo) = crate::git::Repo::discover(&layout.root) {
            for url in repo.remote_urls() {
                let (host, owner, name) = remote_parts(&url);
                if let Some(h) =
                    host.filter(|h| !PUBLIC_HOSTS.contains(&h.to_ascii_lowercase().as_str()))
                {
                    c.add(&h, "the remote's host");
                }
                for o in owner {
                    c.add(&o, "the remote's owner");
                }
                if let Some(n) = name {
                    c.add(&n, "the remote's repository");
                }
            }
        }
        c.add(&layout.root.to_string_lossy(), "the project's path");
        for file in [layout.config_file(), layout.local_file()] {
            // A local.yaml that cannot be read holds terms nobody can check: refused, not skipped.
            let config = if file == layout.config_file() {
                layout.config.clone()
            } else {
                Config::load(&file).map_err(|e| Error::usage(format!("{e:#}")))?
            };
            c.list(&config, &file)?;
        }
        c.tracked = crate::git::Repo::discover(&layout.root)
            .map(|r| r.tracked_paths())
            .unwrap_or_default();
        Ok(c)
    }

    fn add(&mut self, term: &str, what: &str) {
        let term = term.trim();
        if term.chars().count() >= 2
            && !self.terms.iter().any(|t| t.text.eq_ignore_ascii_case(term))
        {
            self.terms.push(Term {
                text: term.to_string(),
                what: what.to_string(),
            });
        }
    }

    /// `confidential:` in a config file: a list of words or phrases.
    fn list(&mut self, config: &Config, file: &Path) -> Result<()> {
        match config.get(&["confidential"]) {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Sequence(items)) => {
                for v in items {
                    match v {
                        Value::String(s) if s.trim().chars().count() < 2 => {
                            return Err(bad(
                                file,
                                config,
                                &format!(
                                    "{s:?} (a term of one character would refuse nearly any text)"
                                ),
                            ));
                        }
                        Value::String(s) => self.add(s, "a confidential term"),
                        other => {
                            return Err(bad(file, config, &crate::store::config::show(other)));
                        }
                    }
                }
                Ok(())
            }
            Some(other) => Err(bad(file, config, &crate::store::config::show(other))),
        }
    }

    /// Refuse fields that name the project: every term found, with its field and what it is.
    /// `fields` are (name, text) as the entry would hold them.
    pub fn check(&self, fields: &[(&str, &str)]) -> Result<()> {
        let mut found: Vec<String> = Vec::new();
        for (field, text) in fields {
            for t in &self.terms {
                if contains_word(text, &t.text) {
                    found.push(format!("{:?} ({}) in {field}", t.text, t.what));
                }
            }
            for p in self.paths_in(text) {
                found.push(format!("{p:?} (a path in the project) in {field}"));
            }
        }
        found.dedup();
        if found.is_empty() {
            return Ok(());
        }
        Err(anyhow::anyhow!(
            "refused: the text names this project — {}; a linked memory is read beyond this project, so a lesson goes there only in words of its own: reword it (`--edit`), or leave it in the project",
            found.join("; ")
        ))
    }

    /// Words of `text` that name a path inside the project: one that exists there, or the end
    /// or start of a file git tracks (`billing/charge.rs`, `src/billing/charge`), however
    /// decorated (`charge.rs:42`, `#L10`, `path=…`, `*.rs`, any case); the names nearly every
    /// project has are not the project's.
    fn paths_in(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for w in text.split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '`' | '"'
                        | '\''
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | ','
                        | ';'
                        | '<'
                        | '>'
                        | '='
                        | '#'
                        | '|'
                )
        }) {
            // `charge.rs:42:7` is `charge.rs`; a glob's stars are no part of the name.
            let w = w
                .split([':', '*', '?'])
                .next()
                .unwrap_or("")
                .trim_end_matches(['.', '!'])
                .trim_start_matches("./")
                .to_string();
            if w.is_empty()
                || !(w.contains('/') || w.contains('.'))
                || w.starts_with('/')
                || w.split('/').any(|c| c == "..")
            {
                continue;
            }
            // `src//billing/` is `src/billing`.
            let w = w
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect::<Vec<_>>()
                .join("/");
            let w = w.trim_end_matches('.').to_string();
            if w.is_empty()
                || w.split('/')
                    .all(|c| COMMON.iter().any(|n| n.eq_ignore_ascii_case(c)))
            {
                continue;
            }
            let lower = w.to_lowercase();
            let named = std::fs::symlink_metadata(self.root.join(&w)).is_ok()
                || (lower.contains('/') || lower.contains('.'))
                    && self.tracked.iter().any(|t| {
                        t.ends_with(&format!("/{lower}"))
                            || *t == lower
                            || t.starts_with(&format!("{lower}/"))
                            || (lower.contains('/') && t.starts_with(&format!("{lower}.")))
                    });
            if named && !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }
}

fn bad(file: &Path, config: &Config, got: &str) -> anyhow::Error {
    Error::usage(format!(
        "{}:{}: confidential must be a list of words or phrases (`confidential: [acme, Project Falcon]`), not {got}",
        file.display(),
        config.line_of(&["confidential"])
    ))
    .into()
}

/// Whether `term` occurs in `text` as a whole word or phrase, ignoring case, lookalike
/// letters and how its words are joined or split: "billing-svc" is found as `BILLING_SVC`,
/// `billing svc`, `billingsvc`, `ｂｉｌｌｉｎｇ-svc`; "falconpay" as `falcon-pay` or `falcon**pay**`;
/// a path as its words in a row.
fn contains_word(text: &str, term: &str) -> bool {
    let words = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(fold)
            .collect::<Vec<_>>()
    };
    let (text, term) = (words(text), words(term));
    if term.is_empty() {
        return false;
    }
    let joined = term.concat();
    text.windows(term.len()).any(|w| w == term.as_slice())
        // Split where the term is one word, or joined where it is several: up to 4 pieces.
        || (1..=4).any(|n| text.windows(n).any(|w| w.concat() == joined))
}

/// A word as the gate compares it: lowercase, fullwidth forms as ASCII, and the Cyrillic and
/// Greek letters that look like Latin ones as those (`fаlcon` with a Cyrillic а is `falcon`).
fn fold(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0)
                .unwrap_or(c)
                .to_ascii_lowercase(),
            'а' => 'a',
            'в' => 'b',
            'е' | 'ё' => 'e',
            'і' => 'i',
            'ј' => 'j',
            'к' => 'k',
            'м' => 'm',
            'н' => 'h',
            'о' | 'ο' => 'o',
            'р' | 'ρ' => 'p',
            'с' => 'c',
            'т' => 't',
            'у' => 'y',
            'х' | 'χ' => 'x',
            'ѕ' => 's',
            'ԁ' => 'd',
            'ɡ' => 'g',
            'ν' => 'v',
            'α' => 'a',
            'ι' => 'i',
            'κ' => 'k',
            'τ' => 't',
            'υ' => 'u',
            c => c,
        })
        .collect()
}

/// A remote URL's host, owner (the path's folders) and repository name: `git@host:o/r.git`,
/// `https://host/o/r`, `ssh://git@host:22/o/r.git`, or a local path (`/srv/git/r.git`).
fn remote_parts(url: &str) -> (Option<String>, Vec<String>, Option<String>) {
    // A query or fragment is no part of the repository's name.
    let url = url.trim().split(['?', '#']).next().unwrap_or("");
    let (host, path) = if let Some((_, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority
            .rsplit('@')
            .next()
            .unwrap_or(authority)
            .split(':')
            .next()
            .unwrap_or("");
        (
            Some(host.to_string()).filter(|h| !h.is_empty()),
            path.to_string(),
        )
    } else if let Some((authority, path)) = url.split_once(':').filter(|(a, _)| !a.contains('/')) {
        let host = authority.rsplit('@').next().unwrap_or(authority);
        (
            Some(host.to_string()).filter(|h| !h.is_empty()),
            path.to_string(),
        )
    } else {
        (None, url.to_string())
    };
    let mut parts: Vec<String> = path
        .split('/')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let name = parts
        .pop()
        .map(|n| n.strip_suffix(".git").unwrap_or(&n).to_string());
    // A local path's folders (`/home/me/src`) are this machine's, not an owner.
    let owner = if host.is_some() { parts } else { Vec::new() };
    (host, owner, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_give_host_owner_and_name() {
        assert_eq!(
            remote_parts("git@git.acme.io:payments/billing-api.git"),
            (
                Some("git.acme.io".into()),
                vec!["payments".into()],
                Some("billing-api".into())
            )
        );
        assert_eq!(
            remote_parts("https://github.com/acme/billing"),
            (
                Some("github.com".into()),
                vec!["acme".into()],
                Some("billing".into())
            )
        );
        assert_eq!(
            remote_parts("ssh://git@host.example:2222/a/b/c.git"),
            (
                Some("host.example".into()),
                vec!["a".into(), "b".into()],
                Some("c".into())
            )
        );
        assert_eq!(
            remote_parts("/srv/git/falcon.git"),
            (None, vec![], Some("falcon".into()))
        );
    }

    #[test]
    fn terms_match_whole_words_only() {
        assert!(contains_word("Ask Acme first", "acme"));
        assert!(contains_word("acme-billing", "acme"));
        assert!(!contains_word("acmes and pacmen", "acme"));
        assert!(contains_word(
            "in /home/me/src/falcon today",
            "/home/me/src/falcon"
        ));
        assert!(contains_word("Project Falcon ships", "project falcon"));
    }

    /// Found however the term's words are joined or cased (a fresh-eyes run promoted each).
    #[test]
    fn a_term_split_or_joined_by_punctuation_passed_the_gate() {
        for text in [
            "BILLING_SVC",
            "billing svc",
            "billing.svc",
            "billingsvc",
            "the Billing-Svc team",
        ] {
            assert!(contains_word(text, "billing-svc"), "{text}");
        }
        for text in ["project  falcon", "project-falcon", "PROJECT_FALCON"] {
            assert!(contains_word(text, "Project Falcon"), "{text}");
        }
        assert!(!contains_word("billing service", "billing-svc"));
        for text in [
            "falcon-pay",
            "falcon pay",
            "falcon_pay",
            "falcon**pay**",
            "falcon<!-- -->pay",
            "ｆａｌｃｏｎｐａｙ",
            "fаlconpay",
            "FALCON PAY",
        ] {
            assert!(contains_word(text, "falconpay"), "{text}");
        }
        assert!(contains_word("Nоrthwind", "Northwind"));
        assert!(contains_word("north wind", "Northwind"));
        assert_eq!(
            remote_parts("https://h.example/initech/payroll-core.git?x=1#frag").2,
            Some("payroll-core".into())
        );
    }
}
