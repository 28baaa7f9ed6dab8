//! The git side: reading the repository (this module) and the merge driver's logic (`merge`).
//!
//! Reading the repository with gix: discovery, HEAD, a file's content at HEAD, in the index or
//! at any commit, a path's history, dirtiness of `.zo/`; `run` for the few writes (config,
//! commit). zo never writes git objects here; commits go through the `git` binary (checkpoint).
//! `merge` — per file kind, the three-way merge of memory files (decisions and facts union by
//! ID, a tombstone wins) and `append_only`, the exact merge of a side that only appended.
//!
//! Invariants: git is optional for every command that only needs the files (no repository reads
//! as "nothing to say"); a merge never silently drops an entry. Where zo wires itself into a
//! clone (hooks, the merge driver's registration) is `wiring::hooks`.

pub mod merge;

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The largest memory file zo reads, from the work tree (`store::fsio::MAX_FILE_BYTES`) or from
/// git's history.
pub const MAX_BLOB_BYTES: u64 = 1 << 30;

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
        let mut repo = gix::discover(dir).ok()?;
        // Compare nanoseconds of mtimes, as git built with USE_NSEC (the usual build) does.
        // gix does not by default on Linux, so every file written in the same second as the
        // git index counts as "racily clean" and is hashed on each status: all 15 MB of a
        // 10,000-decision log, on every `zo status`, until something rewrites the index.
        let _ = repo
            .config_snapshot_mut()
            .set_value(&gix::config::tree::gitoxide::Core::USE_NSEC, "true");
        Some(Repo { repo })
    }

    /// The repository's own `.git/config` value for `key` (the last one), read from the
    /// configuration gix already loaded: no `git config` process. None when absent there (or
    /// gix did not load that file); callers that must know then ask git.
    pub fn local_config(&self, key: &str) -> Option<String> {
        let snapshot = self.repo.config_snapshot();
        snapshot
            .plumbing()
            .string_filter(key, |m| m.source == gix::config::Source::Local)
            .map(|v| v.to_string())
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
        let head = self
            .repo
            .head_id()
            .ok()
            .map(|id| id.to_hex_with_len(7).to_string());
        HeadInfo { branch, head }
    }

    /// A blob's bytes, refused before it is inflated when larger than `MAX_BLOB_BYTES`: a
    /// clone's history is as untrusted as its files (a commit can hold a huge or
    /// highly-compressed memory file that `--as-of` or `history` would read).
    fn blob(&self, id: gix::ObjectId, path: &Path) -> Result<Vec<u8>> {
        let size = self.repo.find_header(id)?.size();
        if size > MAX_BLOB_BYTES {
            anyhow::bail!(
                "{} in git history (blob {}) is {size} bytes; zo reads memory files up to {MAX_BLOB_BYTES} bytes",
                path.display(),
                id.to_hex_with_len(12)
            );
        }
        Ok(self.repo.find_object(id)?.detach().data)
    }

    /// How many commits HEAD's upstream (the branch it tracks, as last fetched) has that HEAD
    /// has not: `zo continue` says a linked memory is behind. None without a branch, an
    /// upstream or a readable walk.
    pub fn behind_upstream(&self) -> Option<usize> {
        let head = self.repo.head_name().ok()??;
        let tracking = self
            .repo
            .branch_remote_tracking_ref_name(head.as_ref(), gix::remote::Direction::Fetch)?
            .ok()?;
        let upstream = self
            .repo
            .find_reference(tracking.as_ref())
            .ok()?
            .into_fully_peeled_id()
            .ok()?
            .detach();
        let here = self.repo.head_id().ok()?.detach();
        let walk = self
            .repo
            .rev_walk([upstream])
            .with_hidden([here])
            .all()
            .ok()?;
        Some(walk.take_while(Result::is_ok).count())
    }

    /// Every remote's fetch URL (`remote.*.url`), as configured.
    pub fn remote_urls(&self) -> Vec<String> {
        let snapshot = self.repo.config_snapshot();
        let Some(sections) = snapshot.plumbing().sections_by_name("remote") else {
            return Vec::new();
        };
        sections
            .flat_map(|s| s.values("url").into_iter().map(|v| v.to_string()))
            .collect()
    }

    /// HEAD's full commit id, None when unborn.
    pub fn head_full(&self) -> Option<String> {
        self.repo.head_id().ok().map(|id| id.to_string())
    }

    /// The bytes of `path` (relative to the work tree) in HEAD's tree; None when HEAD is unborn
    /// or the file is not there.
    pub fn file_at_head(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        let Ok(commit) = self.repo.head_commit() else {
            return Ok(None);
        };
        let tree = commit.tree().context("could not read HEAD's tree")?;
        let Some(entry) = tree
            .lookup_entry_by_path(path)
            .context("could not look up a path in HEAD")?
        else {
            return Ok(None);
        };
        Ok(Some(
            self.blob(entry.object_id(), path)
                .context("could not read a blob at HEAD")?,
        ))
    }

    /// The commits a shallow clone's history stops at (`.git/shallow`), None for a whole clone.
    pub fn shallow_boundary(&self) -> Option<Vec<String>> {
        let text = std::fs::read_to_string(self.repo.common_dir().join("shallow")).ok()?;
        let ids: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    /// How a shallow clone says where its history stops (`history`, the site and `zo verify
    /// --history` all say it so):
    /// "shallow clone: history before 1a2b3c4d5e6f is not here". None for a whole clone.
    pub fn shallow_note(&self) -> Option<String> {
        let ids = self.shallow_boundary()?;
        let at: Vec<String> = ids.iter().map(|id| id.chars().take(12).collect()).collect();
        Some(format!(
            "shallow clone: history before {} is not here",
            at.join(", ")
        ))
    }

    /// A "first commit holding it" answer, checked against a shallow clone's boundary: a
    /// boundary commit is only the oldest one here, so what it holds may be older. Then the
    /// first commit is unknown: (None, the shallow note).
    pub fn shallow_cut(&self, c: Option<CommitRef>) -> (Option<CommitRef>, Option<String>) {
        match (&c, self.shallow_boundary()) {
            (Some(r), Some(ids)) if ids.contains(&r.id) => (None, self.shallow_note()),
            _ => (c, None),
        }
    }

    /// The commit being merged in, while a merge is in progress (`.git/MERGE_HEAD`).
    pub fn merge_head(&self) -> Option<gix::ObjectId> {
        let text = std::fs::read_to_string(self.repo.git_dir().join("MERGE_HEAD")).ok()?;
        gix::ObjectId::from_hex(text.lines().next()?.trim().as_bytes()).ok()
    }

    /// HEAD's parents when HEAD is a merge commit (empty otherwise).
    pub fn head_merge_parents(&self) -> Vec<(gix::ObjectId, String)> {
        let Ok(commit) = self.repo.head_commit() else {
            return vec![];
        };
        let parents: Vec<gix::ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
        if parents.len() < 2 {
            return vec![];
        }
        parents
            .into_iter()
            .map(|p| (p, p.to_hex_with_len(7).to_string()))
            .collect()
    }

    /// The bytes of `path` in a commit's tree, None when absent.
    pub fn file_at(&self, commit: gix::ObjectId, path: &Path) -> Result<Option<Vec<u8>>> {
        Ok(self.blob_in_commit(commit, path)?.map(|(_, data)| data))
    }

    /// The blob of `path` in a commit's tree (by commit id), None when absent.
    fn blob_in_commit(
        &self,
        commit: gix::ObjectId,
        path: &Path,
    ) -> Result<Option<(gix::ObjectId, Vec<u8>)>> {
        let commit = self.repo.find_object(commit)?.try_into_commit()?;
        let tree = commit.tree()?;
        let Some(entry) = tree.lookup_entry_by_path(path)? else {
            return Ok(None);
        };
        let id = entry.object_id();
        Ok(Some((id, self.blob(id, path)?)))
    }

    /// Every path git's index holds (relative to the work tree, `/`-separated), lowercased:
    /// what `zo promote` looks a path-like word up in.
    pub fn tracked_paths(&self) -> Vec<String> {
        let Ok(index) = self.repo.index_or_empty() else {
            return Vec::new();
        };
        index
            .entries()
            .iter()
            .map(|e| e.path(&index).to_string().to_lowercase())
            .collect()
    }

    /// Whether git's index holds `path` (relative to the work tree): it is tracked.
    pub fn is_tracked(&self, path: &Path) -> bool {
        let Ok(index) = self.repo.index_or_empty() else {
            return false;
        };
        let key = path.to_string_lossy().replace('\\', "/");
        index.entry_by_path(key.as_str().into()).is_some()
    }

    pub fn file_staged(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        let index = self.repo.index_or_empty()?;
        let key = path.to_string_lossy().replace('\\', "/");
        let Some(entry) = index.entry_by_path(key.as_str().into()) else {
            return Ok(None);
        };
        Ok(Some(self.blob(entry.id, path)?))
    }

    /// Every commit reachable from HEAD whose version of `path` differs from one of its
    /// parents': (commit, short id, subject, [(parent version)…], this version). Versions are
    /// the file's bytes or None where it did not exist.
    pub fn history_of(&self, path: &Path) -> Result<Vec<Change>> {
        self.history_moving(&|_| path.to_path_buf())
    }

    /// `history_of` a file whose place may move from commit to commit: at each commit (and
    /// each parent) the file is where `locate` says for that commit, so a move with the same
    /// bytes is no change and a move that rewrites them is one (memory moved by its
    /// `memory_root`, or to another layout: SPEC §3a).
    pub fn history_moving(&self, locate: &dyn Fn(gix::ObjectId) -> PathBuf) -> Result<Vec<Change>> {
        let Ok(head) = self.repo.head_id() else {
            return Ok(vec![]);
        };
        let at = |commit: gix::ObjectId| -> Result<PathBuf> { Ok(locate(commit)) };
        let mut out = Vec::new();
        for info in self.repo.rev_walk([head.detach()]).all()? {
            let info = info?;
            let this = self.blob_in_commit(info.id, &at(info.id)?)?;
            let parents: Vec<gix::ObjectId> = info.parent_ids.iter().copied().collect();
            let mut parent_versions = Vec::new();
            let mut changed = parents.is_empty() && this.is_some();
            for p in &parents {
                let pv = self.blob_in_commit(*p, &at(*p)?)?;
                if pv.as_ref().map(|x| x.0) != this.as_ref().map(|x| x.0) {
                    changed = true;
                }
                parent_versions.push(pv.map(|x| x.1));
            }
            if changed {
                let commit = self.repo.find_object(info.id)?.try_into_commit()?;
                let subject = commit
                    .message_raw_sloppy()
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                out.push(Change {
                    short: info.id.to_hex_with_len(7).to_string(),
                    subject,
                    parents: parent_versions,
                    this: this.map(|x| x.1),
                });
            }
        }
        Ok(out)
    }

    /// The commit a revision names (anything `git rev-parse` takes: a hash or a prefix of
    /// one, a branch, a tag, `HEAD~2`), None when it names none.
    pub fn resolve_commit(&self, spec: &str) -> Option<CommitRef> {
        let id = self
            .repo
            .rev_parse_single(spec)
            .ok()?
            .object()
            .ok()?
            .peel_to_commit()
            .ok()?
            .id;
        self.commit_ref(id).ok()
    }

    /// The best common ancestor of two commits (where a branch left its base), if any.
    pub fn merge_base(&self, a: &CommitRef, b: &CommitRef) -> Option<CommitRef> {
        let (x, y) = (
            gix::ObjectId::from_hex(a.id.as_bytes()).ok()?,
            gix::ObjectId::from_hex(b.id.as_bytes()).ok()?,
        );
        let id = self.repo.merge_base(x, y).ok()??;
        self.commit_ref(id.detach()).ok()
    }

    /// The commits reachable from `to` and not from `from` (`git log from..to`), oldest first.
    pub fn range(&self, from: &CommitRef, to: &CommitRef) -> Result<Vec<CommitRef>> {
        let (a, b) = (
            gix::ObjectId::from_hex(from.id.as_bytes())?,
            gix::ObjectId::from_hex(to.id.as_bytes())?,
        );
        let mut out = Vec::new();
        for info in self.repo.rev_walk([b]).with_hidden([a]).all()? {
            out.push(self.commit_ref(info?.id)?);
        }
        out.reverse();
        Ok(out)
    }

    fn commit_ref(&self, id: gix::ObjectId) -> Result<CommitRef> {
        let commit = self.repo.find_object(id)?.try_into_commit()?;
        let subject = commit
            .message_raw_sloppy()
            .to_string()
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        let time = commit.time().map(|t| t.seconds).unwrap_or(0);
        let (author, email) = commit
            .author()
            .map(|a| (a.name.to_string(), a.email.to_string()))
            .unwrap_or_default();
        let signed = commit.signature().ok().flatten().is_some();
        Ok(CommitRef {
            id: id.to_string(),
            short: id.to_hex_with_len(7).to_string(),
            subject,
            time: crate::time::rfc3339(time),
            author,
            email,
            signed,
        })
    }

    /// The bytes of `path` at the commit `c` names.
    pub fn file_at_ref(&self, c: &CommitRef, path: &Path) -> Result<Option<Vec<u8>>> {
        self.file_at(gix::ObjectId::from_hex(c.id.as_bytes())?, path)
    }

    /// Every commit reachable from HEAD whose tree has `path`, in walk order: (commit time,
    /// commit, the blob of that version). The two "first commit holding" searches share it.
    fn versions_of(&self, path: &Path) -> Result<Vec<(i64, gix::ObjectId, gix::ObjectId)>> {
        let Ok(head) = self.repo.head_id() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for info in self.repo.rev_walk([head.detach()]).all()? {
            let info = info?;
            let commit = self.repo.find_object(info.id)?.try_into_commit()?;
            let Some(entry) = commit.tree()?.lookup_entry_by_path(path)? else {
                continue;
            };
            out.push((
                commit.time().map(|t| t.seconds).unwrap_or(0),
                info.id,
                entry.object_id(),
            ));
        }
        Ok(out)
    }

    /// `first_commit_holding` for every token that follows `prefix` in any version of `path`
    /// (`**ID:** ` → each entry's ID) in one walk: the earliest commit (by commit time)
    /// reachable from HEAD whose version holds `prefix` + token, by token. Each distinct
    /// version is read once, so a site of 1,000 entries walks history once, not 1,000 times.
    pub fn first_commits_holding(
        &self,
        path: &Path,
        prefix: &str,
    ) -> Result<std::collections::HashMap<String, CommitRef>> {
        let mut tokens: std::collections::HashMap<gix::ObjectId, std::rc::Rc<Vec<String>>> =
            std::collections::HashMap::new();
        let mut best: std::collections::HashMap<String, (i64, gix::ObjectId)> =
            std::collections::HashMap::new();
        for (t, id, blob) in self.versions_of(path)? {
            let held = match tokens.get(&blob) {
                Some(t) => t.clone(),
                None => {
                    // A version too large to read holds nothing: one bad commit in history does
                    // not stop every entry's life from being told.
                    let data = self.blob(blob, path).unwrap_or_default();
                    let mut found: Vec<String> =
                        memchr::memmem::find_iter(&data, prefix.as_bytes())
                            .map(|i| {
                                let rest = &data[i + prefix.len()..];
                                let end = rest
                                    .iter()
                                    .position(|b| b.is_ascii_whitespace())
                                    .unwrap_or(rest.len());
                                String::from_utf8_lossy(&rest[..end]).into_owned()
                            })
                            .filter(|t| !t.is_empty())
                            .collect();
                    found.sort_unstable();
                    found.dedup();
                    let found = std::rc::Rc::new(found);
                    tokens.insert(blob, found.clone());
                    found
                }
            };
            for token in held.iter() {
                // As first_commit_holding: the earliest time; among equal times the one met last.
                match best.get_mut(token) {
                    Some(b) if t <= b.0 => *b = (t, id),
                    Some(_) => {}
                    None => {
                        best.insert(token.clone(), (t, id));
                    }
                }
            }
        }
        let mut refs: std::collections::HashMap<gix::ObjectId, CommitRef> =
            std::collections::HashMap::new();
        let mut out = std::collections::HashMap::with_capacity(best.len());
        for (token, (_, id)) in best {
            let r = match refs.get(&id) {
                Some(r) => r.clone(),
                None => {
                    let r = self.commit_ref(id)?;
                    refs.insert(id, r.clone());
                    r
                }
            };
            out.insert(token, r);
        }
        Ok(out)
    }

    /// For each `(token, text)` of `wanted`, the earliest commit (by commit time) reachable from
    /// HEAD whose version of `path` holds `text` exactly (line ends read as LF), both read
    /// through `same` (what counts as the same text: a lesson renumbered by a merge is the
    /// same lesson): where an entry, as it is now, entered history. Each distinct version is
    /// read once.
    pub fn first_commits_with(
        &self,
        path: &Path,
        wanted: &[(String, String)],
        same: fn(&str) -> String,
    ) -> Result<std::collections::HashMap<String, CommitRef>> {
        let wanted: Vec<(String, String)> = wanted
            .iter()
            .map(|(id, text)| (id.clone(), same(text)))
            .collect();
        let mut held: std::collections::HashMap<gix::ObjectId, Vec<usize>> =
            std::collections::HashMap::new();
        let mut best: Vec<Option<(i64, gix::ObjectId)>> = vec![None; wanted.len()];
        for (t, id, blob) in self.versions_of(path)? {
            let found = held.entry(blob).or_insert_with(|| {
                // A version too large to read holds nothing (as in first_commits_holding).
                let data = self.blob(blob, path).unwrap_or_default();
                let data = same(&String::from_utf8_lossy(&data).replace("\r\n", "\n"));
                wanted
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, text))| !text.is_empty() && data.contains(text.as_str()))
                    .map(|(i, _)| i)
                    .collect()
            });
            for &i in found.iter() {
                if best[i].is_none_or(|(bt, _)| t <= bt) {
                    best[i] = Some((t, id));
                }
            }
        }
        let mut out = std::collections::HashMap::new();
        for (i, b) in best.into_iter().enumerate() {
            if let Some((_, id)) = b {
                out.insert(wanted[i].0.clone(), self.commit_ref(id)?);
            }
        }
        Ok(out)
    }

    /// The earliest commit (by commit time) reachable from HEAD whose version of `path` holds
    /// `needle`: where an entry entered history. Each distinct version is searched once.
    pub fn first_commit_holding(&self, path: &Path, needle: &str) -> Result<Option<CommitRef>> {
        let mut seen: std::collections::HashMap<gix::ObjectId, bool> =
            std::collections::HashMap::new();
        let mut best: Option<(i64, gix::ObjectId)> = None;
        for (t, id, blob) in self.versions_of(path)? {
            let holds = *seen.entry(blob).or_insert_with(|| {
                // A version too large to read holds nothing (as in first_commits_holding).
                let data = self.blob(blob, path).unwrap_or_default();
                memchr::memmem::find(&data, needle.as_bytes()).is_some()
            });
            if holds && best.is_none_or(|(bt, _)| t <= bt) {
                best = Some((t, id));
            }
        }
        best.map(|(_, id)| self.commit_ref(id)).transpose()
    }

    /// The latest commit (by commit time) reachable from HEAD made at or before unix second
    /// `secs`: what the repository held at that moment, for files that carry no time of
    /// their own. None without commits then.
    pub fn last_commit_until(&self, secs: i64) -> Result<Option<CommitRef>> {
        let Ok(head) = self.repo.head_id() else {
            return Ok(None);
        };
        let mut best: Option<(i64, gix::ObjectId)> = None;
        for info in self.repo.rev_walk([head.detach()]).all()? {
            let info = info?;
            let t = self
                .repo
                .find_object(info.id)?
                .try_into_commit()?
                .time()
                .map(|t| t.seconds)
                .unwrap_or(0);
            // Strictly later only: among commits of one second, the walk meets descendants first.
            if t <= secs && best.is_none_or(|(bt, _)| t > bt) {
                best = Some((t, info.id));
            }
        }
        best.map(|(_, id)| self.commit_ref(id)).transpose()
    }

    /// The names of the files directly in directory `dir` at commit `c` (none when absent).
    pub fn names_at(&self, c: &CommitRef, dir: &Path) -> Result<Vec<String>> {
        let id = gix::ObjectId::from_hex(c.id.as_bytes())?;
        self.children_at(id, dir, |m| m.is_blob())
    }

    /// The names of the entries directly in `dir` of a commit's tree whose mode `keep` takes,
    /// in tree order (none when `dir` is absent or no directory).
    fn children_at(
        &self,
        commit: gix::ObjectId,
        dir: &Path,
        keep: fn(gix::object::tree::EntryMode) -> bool,
    ) -> Result<Vec<String>> {
        let commit = self.repo.find_object(commit)?.try_into_commit()?;
        let tree = commit.tree()?;
        let Some(entry) = tree.lookup_entry_by_path(dir)? else {
            return Ok(vec![]);
        };
        if !entry.mode().is_tree() {
            return Ok(vec![]);
        }
        let sub = entry.object()?.try_into_tree()?;
        let mut out = Vec::new();
        for e in sub.iter() {
            let e = e?;
            if keep(e.mode()) {
                out.push(e.filename().to_string());
            }
        }
        Ok(out)
    }

    /// What a path is in a commit's tree: a directory, a file, a link (or a submodule), or
    /// nothing.
    pub fn kind_at(&self, commit: gix::ObjectId, path: &Path) -> Result<Option<TreeKind>> {
        let commit = self.repo.find_object(commit)?.try_into_commit()?;
        let tree = commit.tree()?;
        let Some(entry) = tree.lookup_entry_by_path(path)? else {
            return Ok(None);
        };
        let mode = entry.mode();
        Ok(Some(if mode.is_tree() {
            TreeKind::Dir
        } else if mode.is_blob() {
            TreeKind::File
        } else {
            TreeKind::Other
        }))
    }

    /// The names of the directories in `dir` of a commit's tree, sorted.
    pub fn dirs_at(&self, commit: gix::ObjectId, dir: &Path) -> Result<Vec<String>> {
        let mut out = self.children_at(commit, dir, |m| m.is_tree())?;
        out.sort();
        Ok(out)
    }

    /// Every directory named `name` below the top of the commit's tree (not the top's own),
    /// with its tree's ID: where a memory other than the top's could be (`zo` run in that
    /// folder finds it first).
    pub fn nested_dirs_at(&self, c: &CommitRef, name: &str) -> Result<Vec<(String, String)>> {
        let commit = self
            .repo
            .find_object(gix::ObjectId::from_hex(c.id.as_bytes())?)?
            .try_into_commit()?;
        let mut out = Vec::new();
        let mut stack: Vec<(String, gix::ObjectId)> =
            vec![(String::new(), commit.tree_id()?.detach())];
        while let Some((path, id)) = stack.pop() {
            let tree = self.repo.find_object(id)?.try_into_tree()?;
            for e in tree.iter() {
                let e = e?;
                if !e.mode().is_tree() {
                    continue;
                }
                let file = e.filename().to_string();
                let child = if path.is_empty() {
                    file.clone()
                } else {
                    format!("{path}/{file}")
                };
                if file == name {
                    if !path.is_empty() {
                        out.push((child, e.oid().to_string()));
                    }
                    continue;
                }
                stack.push((child, e.oid().to_owned()));
            }
        }
        out.sort();
        Ok(out)
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

impl Repo {
    /// How much the code under `paths` (files or directories, relative to the work tree) moved
    /// between commit `since` and HEAD: the commits that changed any of them (walking from
    /// HEAD, `since` and its ancestors hidden; a commit counts when a path differs from its
    /// first parent's), and the lines added plus removed between the two trees. None when
    /// `since` is not in this repository (a shallow clone, a rewritten history).
    pub fn changes_since(&self, since: &str, paths: &[String]) -> Result<Option<Movement>> {
        let Ok(since) = gix::ObjectId::from_hex(since.trim().as_bytes()) else {
            return Ok(None);
        };
        if self.repo.find_object(since).is_err() {
            return Ok(None);
        }
        let Ok(head) = self.repo.head_id() else {
            return Ok(None);
        };
        let tree_of = |id: gix::ObjectId| -> Result<gix::Tree<'_>> {
            Ok(self.repo.find_object(id)?.try_into_commit()?.tree()?)
        };
        let entry_id = |tree: &gix::Tree<'_>, path: &str| -> Result<Option<gix::ObjectId>> {
            Ok(tree
                .lookup_entry_by_path(Path::new(path))?
                .map(|e| e.object_id()))
        };
        let mut commits = 0;
        for info in self
            .repo
            .rev_walk([head.detach()])
            .with_hidden([since])
            .all()?
        {
            let info = info?;
            let this = tree_of(info.id)?;
            let parent = match info.parent_ids.first() {
                Some(p) => Some(tree_of(*p)?),
                None => None,
            };
            for p in paths {
                let before = match &parent {
                    Some(t) => entry_id(t, p)?,
                    None => None,
                };
                if entry_id(&this, p)? != before {
                    commits += 1;
                    break;
                }
            }
        }
        let (old, new) = (tree_of(since)?, tree_of(head.detach())?);
        let mut lines = 0u64;
        for p in paths {
            let (a, b) = (self.blobs_under(&old, p)?, self.blobs_under(&new, p)?);
            let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for name in names {
                let (x, y) = (a.get(name), b.get(name));
                if x == y {
                    continue;
                }
                let data = |id: Option<&gix::ObjectId>| -> Result<Vec<u8>> {
                    Ok(match id {
                        Some(id) => self.blob(*id, Path::new(&name))?,
                        None => Vec::new(),
                    })
                };
                let (x, y) = (data(x)?, data(y)?);
                let input = gix::diff::blob::InternedInput::new(x.as_slice(), y.as_slice());
                let diff =
                    gix::diff::blob::Diff::compute(gix::diff::blob::Algorithm::Histogram, &input);
                lines += u64::from(diff.count_additions()) + u64::from(diff.count_removals());
            }
        }
        Ok(Some(Movement {
            commits,
            lines,
            since_short: since.to_hex_with_len(7).to_string(),
        }))
    }

    /// The blobs at `path` in a tree: the file itself, or every file under the directory.
    fn blobs_under(
        &self,
        tree: &gix::Tree<'_>,
        path: &str,
    ) -> Result<std::collections::HashMap<String, gix::ObjectId>> {
        let mut out = std::collections::HashMap::new();
        let Some(entry) = tree.lookup_entry_by_path(Path::new(path))? else {
            return Ok(out);
        };
        if entry.mode().is_tree() {
            let sub = entry.object()?.try_into_tree()?;
            for f in sub.traverse().breadthfirst.files()? {
                if f.mode.is_blob() {
                    out.insert(f.filepath.to_string(), f.oid);
                }
            }
        } else if entry.mode().is_blob() {
            out.insert(String::new(), entry.object_id());
        }
        Ok(out)
    }
}

/// How much governed code moved (see `Repo::changes_since`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Movement {
    pub commits: usize,
    pub lines: u64,
    pub since_short: String,
}

/// A commit as reports name it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommitRef {
    pub id: String,
    pub short: String,
    pub subject: String,
    /// The commit time, RFC 3339 UTC.
    pub time: String,
    /// Who wrote it (the author; provenance, SPEC §3a).
    pub author: String,
    pub email: String,
    /// Whether it carries a signature (`gpgsig`); zo does not verify it (`git log
    /// --show-signature` does).
    pub signed: bool,
}

impl CommitRef {
    /// `abc1234 by Ana <ana@example.com>, unsigned`: who brought something, as a line says it
    /// (the name and address quoted on one line: they are anyone's text).
    pub fn by(&self) -> String {
        let one = |s: &str| s.replace(['\n', '\r'], " ");
        format!(
            "{} by {} <{}>, {}",
            self.short,
            one(&self.author),
            one(&self.email),
            if self.signed { "signed" } else { "unsigned" }
        )
    }
}

/// What a path is in a commit's tree (`Repo::kind_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    Dir,
    File,
    /// A link or a submodule: nothing zo reads memory through.
    Other,
}

/// One commit that changed a file (see `Repo::history_of`).
pub struct Change {
    pub short: String,
    pub subject: String,
    pub parents: Vec<Option<Vec<u8>>>,
    pub this: Option<Vec<u8>>,
}

/// Whether `s` is a full commit ID (40 hex digits, or 64 for SHA-256 repositories): what zo
/// accepts before passing a commit to a git process.
pub fn is_commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// HEAD's commit ID read straight from the files (`.git/HEAD`, the loose ref, `packed-refs`),
/// without opening the repository: the bundle asks at every agent start whether HEAD moved,
/// and opening it costs about a millisecond. None when anything is not as expected (the caller
/// then asks gix). A worktree's `.git` file is followed to its git directory and the common
/// directory named there.
/// The repository's common git directory (the main `.git` of every worktree), read from the
/// files as `head_id_fast` reads them: what names this repository on this machine.
pub fn common_dir_fast(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot).ok()?;
    let git_dir = if meta.is_dir() {
        dot
    } else {
        let text = std::fs::read_to_string(&dot).ok()?;
        let p = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        if p.is_absolute() { p } else { root.join(p) }
    };
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map_or_else(|| git_dir.clone(), |c| git_dir.join(c.trim()));
    Some(common.canonicalize().unwrap_or(common))
}

pub fn head_id_fast(root: &Path) -> Option<String> {
    let dot = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot).ok()?;
    let git_dir = if meta.is_dir() {
        dot
    } else {
        let text = std::fs::read_to_string(&dot).ok()?;
        let p = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        if p.is_absolute() { p } else { root.join(p) }
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(r) = head.strip_prefix("ref:") else {
        return is_commit_id(head).then(|| head.to_string());
    };
    let r = r.trim();
    if !r.starts_with("refs/") || r.contains("..") {
        return None;
    }
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map_or_else(|| git_dir.clone(), |c| git_dir.join(c.trim()));
    for dir in [&git_dir, &common] {
        if let Ok(id) = std::fs::read_to_string(dir.join(r)) {
            let id = id.trim();
            return is_commit_id(id).then(|| id.to_string());
        }
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        l.strip_suffix(r)
            .and_then(|id| id.strip_suffix(' '))
            .filter(|id| is_commit_id(id))
            .map(str::to_string)
    })
}

/// Run the `git` binary in `dir` (for writes: config, commits). Returns stdout.
pub fn run(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .with_context(|| "could not run git; is it installed?")?;
    if !out.status.success() {
        anyhow::bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
