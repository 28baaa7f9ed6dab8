//! `zo verify`: integrity of the memory files; exit 4 when anything is wrong.

use super::Ctx;
use crate::cli::VerifyArgs;
use crate::error::{Exit, code};
use crate::format::Text;
use crate::format::decision::DecisionLog;
use crate::format::prior::PriorsFile;
use crate::fsio;
use crate::verify::{self, Problem};
use anyhow::Result;
use serde_json::json;
use std::path::Path;

/// Read a file for checking: unreadable text is itself a problem, not a crash.
fn load(path: &Path, label: &str, problems: &mut Vec<Problem>) -> Option<Text> {
    match fsio::read_text(path) {
        Ok(t) => Some(t.unwrap_or_default()),
        Err(e) => {
            let msg = format!("{e:#}");
            // fsio's message starts with "path:line: …"; keep the line number it found.
            let line = msg.split(':').nth(1).and_then(|l| l.trim().parse().ok()).unwrap_or(1);
            let message = msg.splitn(3, ':').nth(2).unwrap_or(&msg).trim().to_string();
            problems.push(Problem { file: label.to_string(), line, message });
            None
        }
    }
}

fn at_head(repo: &crate::git::Repo, rel: &str, label: &str, problems: &mut Vec<Problem>) -> Option<Text> {
    match repo.file_at_head(Path::new(rel)) {
        Ok(Some(bytes)) => match fsio::decode(Path::new(label), bytes) {
            Ok(t) => Some(Text::new(t)),
            Err(e) => {
                problems.push(Problem { file: label.into(), line: 1, message: format!("HEAD's version: {e:#}") });
                None
            }
        },
        Ok(None) => None,
        Err(e) => {
            problems.push(Problem { file: label.into(), line: 1, message: format!("{e:#}") });
            None
        }
    }
}

pub fn run(ctx: &Ctx, _a: VerifyArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    let (dpath, ppath) = (layout.decision_log(), layout.priors());
    let (dl, pl) = (layout.show(&dpath), layout.show(&ppath));
    let mut problems = Vec::new();
    let decisions = load(&dpath, &dl, &mut problems).map(DecisionLog::parse);
    let priors = load(&ppath, &pl, &mut problems).map(PriorsFile::parse);
    if let Some(log) = &decisions {
        problems.extend(verify::decisions(&dl, log));
    }
    if let Some(pf) = &priors {
        problems.extend(verify::priors(&pl, pf));
    }
    let repo = crate::git::Repo::discover(&layout.root);
    let mut against = None;
    if let Some(repo) = &repo {
        if let Some(log) = &decisions {
            if let Some(base) = at_head(repo, &layout.rel(&dpath), &dl, &mut problems) {
                problems.extend(verify::decisions_append_only(&dl, "HEAD", &DecisionLog::parse(base), log));
                against = Some("HEAD");
            }
        }
        if let Some(pf) = &priors {
            if let Some(base) = at_head(repo, &layout.rel(&ppath), &pl, &mut problems) {
                problems.extend(verify::priors_append_only(&pl, "HEAD", &PriorsFile::parse(base), pf));
                against = Some("HEAD");
            }
        }
    }
    let counts = (
        decisions.as_ref().map_or(0, |d| d.entries.len()),
        priors.as_ref().map_or(0, |p| p.entries.len()),
    );
    if ctx.json {
        ctx.print_json(&json!({
            "ok": problems.is_empty(),
            "decisions": counts.0,
            "priors": counts.1,
            "against": against,
            "problems": problems,
        }))?;
    } else if problems.is_empty() {
        if !ctx.quiet {
            let base = against.map(|b| format!(", append-only against {b}")).unwrap_or_default();
            ctx.print(&format!("ok: {} decisions, {} priors{base}\n", counts.0, counts.1))?;
        }
    } else {
        let text: String = problems.iter().map(|p| format!("{p}\n")).collect();
        eprint!("{text}");
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Exit::new(code::VERIFY_FAILED, format!("verification failed: {} problem(s)", problems.len())).into())
    }
}
