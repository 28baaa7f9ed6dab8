//! `$VISUAL` / `$EDITOR` for `zo decide` and `zo prior add` run without their fields, as `git
//! commit` opens one for its message: a template (`templates/edit/`) to fill in, read back as
//! fields. Only at a terminal: a script or an agent gets the usage error naming the flags,
//! never an editor waiting for keys nobody will type.

use crate::error::Error;
use anyhow::{Context, Result};
use std::io::IsTerminal;

/// The editor to run, when there is one and a person at a terminal to use it.
pub fn available() -> Option<String> {
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return None;
    }
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
}

/// Open `editor` on `template` and read back its fields: (name, value) in order, a field
/// starting a line as `Name: value` for one of `names` and running on over the lines after it;
/// `#` lines are ignored. The file is private (0600) and removed afterwards.
pub fn fill(editor: &str, template: &str, names: &[&str]) -> Result<Vec<(String, String)>> {
    Ok(parse(&edit(editor, template)?, names))
}

/// Open `editor` on `template`; the text as the person saved it.
pub fn edit(editor: &str, template: &str) -> Result<String> {
    let mut file = tempfile::Builder::new()
        .prefix("zo-edit-")
        .suffix(".md")
        .tempfile()
        .context("could not create the file to edit")?;
    std::io::Write::write_all(&mut file, template.as_bytes())?;
    let path = file.path().to_path_buf();
    // As git runs it: through the shell, so `code --wait` or `vim -u NONE` work.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(editor)
        .arg(&path)
        .status()
        .with_context(|| format!("could not run the editor {editor:?} ($VISUAL / $EDITOR)"))?;
    if !status.success() {
        return Err(Error::Failed(format!(
            "the editor {editor:?} exited with {status}; nothing was written"
        ))
        .into());
    }
    Ok(crate::store::fsio::read_text(&path)?
        .map(|t| t.as_str().to_string())
        .unwrap_or_default())
}

/// The fields of an edited template (see `fill`).
pub fn parse(text: &str, names: &[&str]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let field = line.split_once(':').and_then(|(n, v)| {
            names
                .iter()
                .find(|k| k.eq_ignore_ascii_case(n.trim()))
                .map(|k| (k.to_string(), v.trim().to_string()))
        });
        match (field, out.last_mut()) {
            (Some(f), _) => out.push(f),
            (None, Some((_, v))) => {
                v.push('\n');
                v.push_str(line);
            }
            (None, None) => {}
        }
    }
    for (_, v) in &mut out {
        *v = v.trim().to_string();
    }
    out
}

/// The first value of `name` (empty when absent).
pub fn value(fields: &[(String, String)], name: &str) -> String {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// Every non-empty value of `name`, in order (a prior's `Rule:` lines).
pub fn values(fields: &[(String, String)], name: &str) -> Vec<String> {
    fields
        .iter()
        .filter(|(n, v)| n == name && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_run_on_over_lines_and_comments_are_dropped() {
        let text = "# a comment\nTitle: Use Postgres\nDecision: One database\nfor everything.\n# not this\nRule: one\nRule: two\nNot a field: stays text\n";
        let f = super::parse(text, &["Title", "Decision", "Rule"]);
        assert_eq!(super::value(&f, "Title"), "Use Postgres");
        assert_eq!(
            super::value(&f, "Decision"),
            "One database\nfor everything."
        );
        let rules: Vec<&str> = f
            .iter()
            .filter(|(n, _)| n == "Rule")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(rules, ["one", "two\nNot a field: stays text"]);
    }
}
