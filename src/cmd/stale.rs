//! `zo stale`: active decisions whose governed paths moved on.

use super::Ctx;
use crate::cli::StaleArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: StaleArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = crate::lifecycle::stale::stale(&memory, a.commits, a.lines as u64)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if r.checked == 0 {
        ctx.note("no active decision names the paths it governs (zo decide --paths src/api,docs/api.md)");
    }
    let mut s = String::new();
    for d in r.decisions.iter().filter(|d| a.all || d.stale) {
        let since = d.since.as_deref().map_or("its commit is not in this repository".to_string(), |c| format!("since {c}"));
        s.push_str(&format!(
            "{}  {}{}\n    {}: {} changed {since}\n",
            d.id,
            d.title,
            if d.stale { "  [stale]" } else { "" },
            d.paths.join(", "),
            crate::ops::text::moved(d.commits, d.lines)
        ));
    }
    if r.checked > 0 && r.stale == 0 && !a.all {
        ctx.note(crate::ops::text::none_stale(r.checked));
    }
    ctx.print(&s)
}
