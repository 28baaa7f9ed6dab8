//! `zo checkpoint [-m MSG]`: commit `.zo/` alone. Uses `git commit --only`, so whatever else is
//! staged stays staged and out of this commit.

use super::Ctx;
use crate::cli::CheckpointArgs;
use anyhow::Context as _;
use anyhow::{Result, bail};
use serde_json::json;

pub fn run(ctx: &Ctx, a: CheckpointArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    let root = &layout.root;
    if crate::git::Repo::discover(root).is_none() {
        bail!("{} is not a git repository", root.display());
    }
    let dir = if layout.legacy {
        layout.rel(&layout.memory)
    } else {
        layout.rel(&layout.zo_dir)
    };
    crate::git::run(root, &["add", "-A", "--", &dir])?;
    let changed = crate::git::run(
        root,
        &["diff", "--cached", "--name-only", "HEAD", "--", &dir],
    )
    .or_else(|_| crate::git::run(root, &["diff", "--cached", "--name-only", "--", &dir]))?;
    if changed.trim().is_empty() {
        if ctx.json {
            return ctx.print_json(&json!({ "committed": false, "reason": "nothing to commit" }));
        }
        ctx.note(format!("nothing to commit: {dir}/ has no changes"));
        return Ok(());
    }
    // The message is committed too: the gate's rules (no control characters, no secrets).
    if let Some(m) = &a.message {
        crate::store::gate::check_fields(&[("message (-m)", m)], false)
            .context("nothing was committed")?;
    }
    let (state, _) = memory.state();
    let message = a.message.unwrap_or_else(|| {
        format!(
            "zo checkpoint: {} {}",
            state.scalar("phase").unwrap_or_else(|| "memory".into()),
            crate::time::now()
        )
    });
    let out = std::process::Command::new("git")
        .args(["commit", "-q", "--only", "-m", &message, "--", &dir])
        .current_dir(root)
        .output()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("Please tell me who you are")
            || err.contains("user.email")
            || err.contains("empty ident")
        {
            bail!(
                "no git identity: set it with `git config user.name \"…\"` and `git config user.email …`, then run zo checkpoint again"
            );
        }
        bail!("git commit failed: {}", err.trim());
    }
    let head = crate::git::run(root, &["rev-parse", "--short=7", "HEAD"])?
        .trim()
        .to_string();
    let files: Vec<&str> = changed.lines().collect();
    if ctx.json {
        return ctx.print_json(
            &json!({ "committed": true, "commit": head, "files": files, "message": message }),
        );
    }
    if !ctx.quiet {
        ctx.print(&format!(
            "{head} {message} ({})\n",
            crate::ops::text::count(files.len(), "file", "files")
        ))?;
    }
    Ok(())
}
