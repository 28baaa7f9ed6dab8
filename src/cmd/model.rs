//! `zo model install`: the model and ONNX Runtime that semantic recall uses, into the per-user
//! cache. The installer is `scripts/install-model`, built into the binary so an installed `zo`
//! can run it without the source tree.

use super::Ctx;
use crate::cli::ModelCommand;
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::process::{Command, Stdio};

const INSTALLER: &str = include_str!("../../scripts/install-model");

pub fn run(ctx: &Ctx, c: ModelCommand) -> Result<()> {
    match c {
        ModelCommand::Install => {
            let mut child = Command::new("bash")
                .args(["-s", "--"])
                .env("QUIET", if ctx.quiet || ctx.json { "1" } else { "" })
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .context("could not run bash for the installer")?;
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(INSTALLER.as_bytes())?;
            let status = child.wait()?;
            if !status.success() {
                bail!(
                    "the model was not installed (see the lines above); nothing half-installed is used"
                );
            }
            let search = crate::search::embedding::locate(&crate::store::config::Config::default());
            let paths = search
                .paths()
                .map_err(|why| anyhow::anyhow!("installed, but zo still cannot find it: {why}"))?;
            if ctx.json {
                return ctx.print_json(&serde_json::json!({
                    "model": paths.model_dir.display().to_string(),
                    "runtime": paths.runtime.display().to_string(),
                }));
            }
            if !ctx.quiet {
                ctx.print(&format!(
                    "model ready: {}\nruntime ready: {}\n",
                    paths.model_dir.display(),
                    paths.runtime.display()
                ))?;
            }
            Ok(())
        }
    }
}
