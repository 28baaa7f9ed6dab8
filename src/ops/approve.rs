//! `zo approve ID`: a person read an entry the directive rules flag and vouches for it on this
//! machine (`store::approvals`). The entry's text as `zo show` gives it is what is approved,
//! so an edit voids the approval; STATE.md, a session or a snapshot is approved whole.

use crate::store::gate::directives::{self, Flag};
use crate::store::memory::Memory;
use anyhow::Result;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Approved {
    /// The entry, as its own ID or file name.
    pub id: String,
    /// What the rules flag in it.
    pub flags: Vec<Flag>,
    /// False when it was approved here already.
    pub new: bool,
    /// Where approvals are kept (the user's own directory).
    pub file: String,
}

/// The text of `id` the bundle and recall screen, and its canonical name.
fn text_of(memory: &Memory, id: &str) -> Result<(String, String)> {
    if id.eq_ignore_ascii_case("STATE") || id.eq_ignore_ascii_case("STATE.md") {
        return Ok((
            "STATE".into(),
            crate::lifecycle::context::state_text(memory, None)?,
        ));
    }
    let name = id.trim_end_matches(".md");
    if memory
        .snapshot_names()?
        .iter()
        .any(|n| n.trim_end_matches(".md") == name)
    {
        let path = memory.layout.snapshots().join(format!("{name}.md"));
        let text = crate::store::fsio::read_text(&path)?
            .map(|t| t.as_str().to_string())
            .unwrap_or_default();
        let name = format!("{name}.md");
        let text = crate::lifecycle::context::named_text(&name, &text);
        return Ok((name, text));
    }
    if let Some(n) = memory
        .session_names()?
        .iter()
        .find(|n| n.trim_end_matches(".md") == name)
    {
        return Ok((
            n.clone(),
            crate::lifecycle::context::named_text(n, memory.session_text(n)?.as_str()),
        ));
    }
    let v = super::entries::show(memory, id)?;
    let shown = v
        .get("id")
        .or_else(|| v.get("name"))
        .and_then(|x| x.as_str())
        .unwrap_or(id)
        .to_string();
    Ok((
        shown,
        v.get("text")
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_string(),
    ))
}

/// An entry the rules flag, read for a person to approve: what they are shown before they
/// confirm, and what `approve` then records (the text read here, so an edit made while they
/// read is not what they approve).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pending {
    pub id: String,
    pub text: String,
    pub flags: Vec<Flag>,
    /// Approved here already.
    pub approved: bool,
}

/// The entry `id` and what the rules flag in it; a usage error when they flag nothing.
pub fn pending(memory: &Memory, id: &str) -> Result<Pending> {
    // `team:PR-003`: the linked memory's entry (an approval is this user's, keyed by the text).
    if let Some((_, linked, bare)) = crate::store::links::qualified(&memory.layout, id)? {
        return pending(&linked, &bare);
    }
    let (id, text) = text_of(memory, id)?;
    let flags = directives::with_display(&text, directives::scan);
    if flags.is_empty() {
        return Err(crate::error::Error::usage(format!(
            "{id} holds nothing the directive rules flag; there is nothing to approve"
        ))
        .into());
    }
    let approved = crate::store::approvals::is_approved(&text);
    Ok(Pending {
        id,
        text,
        flags,
        approved,
    })
}

/// Record the person's approval of what `pending` read.
pub fn approve(p: Pending) -> Result<Approved> {
    let file = crate::store::approvals::approve(&p.id, &p.text)?;
    Ok(Approved {
        id: p.id,
        flags: p.flags,
        new: !p.approved,
        file: file.display().to_string(),
    })
}
