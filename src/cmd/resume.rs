//! `zo continue`: resume on this machine. Finds the memory (either layout), re-detects the
//! environment into `.zo/local.yaml`, makes sure `.zo/.gitignore` covers local and derived
//! files, renumbers sessions that collided in a merge, brings the index up to date, and prints
//! the resume brief. Running it twice changes nothing the second time.

use super::Ctx;
use crate::fsio;
use crate::memory::Memory;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    if !layout.legacy {
        if let Err(e) = super::init::ensure_gitignore(layout) {
            ctx.note(format!("could not update .zo/.gitignore: {e:#}"));
        }
        if let Err(e) = super::init::write_local(layout) {
            ctx.note(format!("could not write {}: {e:#}", layout.show(&layout.local_file())));
        }
    }
    if crate::git::Repo::discover(&layout.root).is_some() {
        if let Err(e) = crate::hooks::register_driver(&layout.root) {
            ctx.note(format!("could not register the merge driver: {e:#}"));
        }
        if layout.config.get(&["hooks"]).and_then(|v| v.as_bool()) == Some(true) {
            if let Err(e) = crate::hooks::install(&layout.root) {
                ctx.note(format!("could not install git hooks: {e:#}"));
            }
        }
    }
    split_merged_sessions(ctx, &memory)?;
    renumber_sessions(ctx, &memory)?;
    let note = |m: &str| ctx.note(m);
    match crate::recall::open_fresh(&memory, &note) {
        Ok((mut index, _)) => {
            if index.pending_embeddings()? > 0 {
                if let Some(mut e) = crate::recall::embedder(&memory, &note) {
                    crate::recall::embed_pending(&mut index, &mut e, &note)?;
                }
            }
        }
        Err(e) => ctx.note(format!("the index could not be built: {e:#}")),
    }
    let b = super::context::bundle(ctx, &memory, None, None)?;
    super::context::print(ctx, &b)
}

/// The merge driver keeps both sessions when two machines wrote the same session file name:
/// split them again, the second getting the next free number.
fn split_merged_sessions(ctx: &Ctx, memory: &Memory) -> Result<()> {
    let dir = memory.layout.sessions();
    for name in memory.session_names()? {
        let text = std::fs::read_to_string(dir.join(&name))?;
        let starts: Vec<usize> = text.match_indices("\n# Session ").map(|(i, _)| i + 1).collect();
        if starts.is_empty() || !text.starts_with("# Session ") {
            continue;
        }
        let _lock = fsio::Lock::acquire(&memory.layout.memory)?;
        let mut pieces = vec![&text[..starts[0]]];
        for (k, &s) in starts.iter().enumerate() {
            pieces.push(&text[s..starts.get(k + 1).copied().unwrap_or(text.len())]);
        }
        fsio::write_atomic(&dir.join(&name), format!("{}\n", pieces[0].trim_end()).as_bytes())?;
        for piece in &pieces[1..] {
            let next = crate::session::next_number(memory)?;
            let date = piece.lines().next().and_then(|l| l.rsplit(' ').next()).filter(|d| crate::time::starts_with_date(d)).unwrap_or(&name[12..22]);
            let new_name = format!("session-{next:03}-{date}.md");
            let body = piece.split_once('\n').map_or("", |(_, b)| b);
            fsio::write_atomic(&dir.join(&new_name), format!("# Session {next:03} — {date}\n{}", body).as_bytes())?;
            ctx.note(format!("{name} held two sessions (merged from two machines); the second is now {new_name}"));
        }
    }
    Ok(())
}

/// Sessions ended on two machines from the same base can share a number (different dates).
/// Give the later one the next free number, so numbers are unique again.
fn renumber_sessions(ctx: &Ctx, memory: &Memory) -> Result<()> {
    let names = memory.session_names()?;
    let mut by_number: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    for n in &names {
        if let Some((num, _)) = crate::format::session::parse_file_name(n) {
            by_number.entry(num).or_default().push(n.clone());
        }
    }
    if by_number.values().all(|v| v.len() < 2) {
        return Ok(());
    }
    let _lock = fsio::Lock::acquire(&memory.layout.memory)?;
    let mut next = by_number.keys().max().copied().unwrap_or(0) + 1;
    for (num, mut files) in by_number.into_iter().filter(|(_, v)| v.len() > 1) {
        files.sort(); // same number: the later date keeps it last
        for name in files.into_iter().skip(1) {
            let (_, date) = crate::format::session::parse_file_name(&name).expect("parsed above");
            let new_name = format!("session-{next:03}-{date}.md");
            let dir = memory.layout.sessions();
            let text = std::fs::read_to_string(dir.join(&name))?;
            let text = text.replacen(&format!("# Session {num:03}"), &format!("# Session {next:03}"), 1);
            fsio::write_atomic(&dir.join(&new_name), text.as_bytes())?;
            std::fs::remove_file(dir.join(&name))?;
            ctx.note(format!("renumbered {name} to {new_name}: two machines ended a session {num:03}"));
            next += 1;
        }
    }
    Ok(())
}
