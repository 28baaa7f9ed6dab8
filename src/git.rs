//! Reading the repository with gix: discovery, HEAD, a file's content at HEAD, dirtiness.
//! zo never writes git objects here; commits go through the `git` binary (checkpoint).

use anyhow::{Context, Result};
use std::path::Path;

pub struct Repo {
    repo: gix::Repository,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct HeadInfo {
    pub branch: Option<String>,
    pub head: Option<String>,
}

impl Repo {
    /// The repository containing `dir`, if any. Errors opening it read as "no repository":
    /// git is optional for every command that only needs the files.
    pub fn discover(dir: &Path) -> Option<Repo> {
        gix::discover(dir).ok().map(|repo| Repo { repo })
    }

    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    pub fn head(&self) -> HeadInfo {
        let branch = self
            .repo
            .head_name()
            .ok()
            .flatten()
            .map(|n| n.shorten().to_string());
        let head = self.repo.head_id().ok().map(|id| id.to_hex_with_len(7).to_string());
        HeadInfo { branch, head }
    }

    /// The bytes of `path` (relative to the work tree) in HEAD's tree; None when HEAD is unborn
    /// or the file is not there.
    pub fn file_at_head(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        let Ok(commit) = self.repo.head_commit() else { return Ok(None) };
        let tree = commit.tree().context("could not read HEAD's tree")?;
        let Some(entry) = tree.lookup_entry_by_path(path).context("could not look up a path in HEAD")? else {
            return Ok(None);
        };
        let object = entry.object().context("could not read a blob at HEAD")?;
        Ok(Some(object.detach().data))
    }

    /// Whether anything under `dir` (relative to the work tree) differs from HEAD: staged,
    /// modified, deleted, or new and not ignored.
    pub fn is_dirty_under(&self, dir: &str) -> Result<bool> {
        use gix::status::UntrackedFiles;
        let pattern: gix::bstr::BString = format!("{}/", dir.trim_end_matches('/')).into();
        let mut iter = self
            .repo
            .status(gix::progress::Discard)?
            .untracked_files(UntrackedFiles::Files)
            .index_worktree_rewrites(None)
            .into_iter(Some(pattern))?;
        Ok(iter.next().transpose()?.is_some())
    }
}
