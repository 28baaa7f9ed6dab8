//! `zo migrate [--apply]`: move the older layout into `.zo/memory/` (`lifecycle::init::migrate`).
//! A dry run unless `--apply`.

use super::Ctx;
use crate::cli::MigrateArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: MigrateArgs) -> Result<()> {
    let m = crate::lifecycle::init::migrate(ctx.repo.as_deref(), a.apply)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&m)?);
    }
    if let Some(n) = &m.note {
        ctx.note(n);
        return Ok(());
    }
    let mut s = String::new();
    for mv in &m.moves {
        let did = if m.applied { "moved" } else { "would move" };
        s.push_str(&format!(
            "{did} {} -> {}{}\n",
            mv.from,
            mv.to,
            if mv.git_mv { " (git mv)" } else { "" }
        ));
    }
    if m.applied {
        s.push_str("created .zo/config.yaml, .zo/.gitignore and .zo/.gitattributes; review and commit: git add .zo && git commit\n");
    } else {
        s.push_str("dry run: nothing changed; run `zo migrate --apply` to do it\n");
    }
    ctx.print(&s)
}
