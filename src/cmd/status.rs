//! `zo status`: where the project stands, in one screen (`ops::request::read::Status`).

use super::Ctx;
use crate::ops::request::read::Status;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(&memory, Status {})?;
    ctx.report(&r)
}
