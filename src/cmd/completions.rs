//! `zo completions SHELL` and `zo man`: generated from the clap definitions, so they can never
//! disagree with the commands.

use super::Ctx;
use anyhow::Result;
use clap::CommandFactory;

pub fn completions(ctx: &Ctx, shell: clap_complete::Shell) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::Cli::command(), "zo", &mut out);
    ctx.print(&String::from_utf8_lossy(&out))
}

pub fn man(ctx: &Ctx) -> Result<()> {
    let mut out = Vec::new();
    clap_mangen::Man::new(crate::cli::Cli::command()).render(&mut out)?;
    ctx.print(&String::from_utf8_lossy(&out))
}
