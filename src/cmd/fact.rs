//! `zo fact set|get|list`: exact facts and preferences by key (`ops::request::facts`).

use super::Ctx;
use crate::cli::FactCommand;
use crate::error::Error;
use crate::ops::request::facts::{FactGet, FactGot, FactList, FactSetRequest};
use crate::store::gate::Allow;
use anyhow::Result;

pub fn run(ctx: &Ctx, c: FactCommand) -> Result<()> {
    let memory = ctx.memory()?;
    match c {
        FactCommand::Set(a) => {
            let allow = Allow {
                secret: a.allow_secret,
                directive: a.allow_directive,
            };
            let request = FactSetRequest {
                key: a.key,
                value: a.value,
                source: a.source,
                confidence: a.confidence,
                scope: a.scope,
                allow,
            };
            let r = ctx.run(&memory, request)?;
            ctx.report_or(&r, |r| format!("{}\n", r.fact.id))
        }
        FactCommand::Get(a) => {
            let r = ctx.run(
                &memory,
                FactGet {
                    key: a.key,
                    as_of: a.as_of,
                    scope: a.scope,
                    provisional: a.provisional,
                },
            )?;
            // The value alone, for `$(zo fact get KEY)`; none is a failure (exit 1), after the
            // JSON that says so.
            ctx.report_or(&r, |r| match r {
                FactGot::Found(v) => format!("{}\n", v.value),
                FactGot::Missing { .. } => String::new(),
            })?;
            match r {
                FactGot::Found(_) => Ok(()),
                FactGot::Missing { why, .. } => Err(Error::Failed(why).into()),
            }
        }
        FactCommand::List(a) => {
            let r = ctx.run(
                &memory,
                FactList {
                    prefix: a.prefix,
                    as_of: a.as_of,
                    scope: a.scope,
                    all: a.all,
                },
            )?;
            ctx.report(&r)
        }
    }
}
