//! `zo doctor`: renders `ops::doctor`. Exit 1 when a check fails, 3 when there is no memory;
//! warnings (zo works, less well) exit 0.

use super::Ctx;
use crate::error::Error;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let r = crate::ops::doctor(ctx.repo.as_deref());
    if ctx.json {
        ctx.print_json(&serde_json::to_value(&r)?)?;
    } else {
        let s: String = r
            .checks
            .iter()
            .map(|c| {
                format!(
                    "{:<4} {:<13} {}\n",
                    c.level.to_uppercase(),
                    c.check,
                    c.detail
                )
            })
            .collect();
        ctx.print(&s)?;
    }
    match (r.no_memory, r.ok) {
        (true, _) => Err(Error::NoMemory("no memory to check".into()).into()),
        (false, false) => {
            Err(Error::Failed("some checks failed (see the FAIL lines)".into()).into())
        }
        (false, true) => Ok(()),
    }
}
