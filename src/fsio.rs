//! The only code that writes memory files: one atomic write, one lock, one reader that turns
//! bytes into text with errors that name the file and line.

use crate::format::Text;
use anyhow::{Context, Result, anyhow};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TMP_SUFFIX: &str = ".zo-tmp";

/// Replace `path` with `bytes` atomically: temp file in the same directory, fsync, rename over
/// the target, fsync the directory. A crash at any instant leaves the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// `write_atomic` for a file made of several pieces, written in order without first joining
/// them: appending to a large log writes its mapped text straight from the page cache instead
/// of copying it into a new buffer.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    // The rename replaces whatever is at `path`: a link would become a regular file (its target,
    // maybe outside the repository, silently stale), and a file made read-only to protect it
    // would be replaced all the same. Refuse both, before writing anything.
    if let Ok(m) = fs::symlink_metadata(path) {
        if m.file_type().is_symlink() {
            return Err(anyhow!(
                "{} is a symbolic link; zo does not write through links (the link would be replaced and its target left stale). Replace the link with the file itself",
                path.display()
            ));
        }
        if m.permissions().readonly() {
            return Err(anyhow!("{} is read-only; zo will not replace it (make it writable to let zo write)", path.display()));
        }
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let fail = || format!("could not write {}", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TMP_SUFFIX)
        .tempfile_in(dir)
        .with_context(fail)?;
    for part in parts {
        tmp.write_all(part).with_context(fail)?;
    }
    // Keep the target's permissions; a new file gets the usual 0644 rather than tempfile's 0600.
    let perms = match fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::Permissions::from_mode(0o644)
            }
            #[cfg(not(unix))]
            {
                tmp.as_file().metadata().with_context(fail)?.permissions()
            }
        }
    };
    tmp.as_file().set_permissions(perms).with_context(fail)?;
    tmp.as_file().sync_all().with_context(fail)?;
    tmp.persist(path).map_err(|e| e.error).with_context(fail)?;
    sync_dir(dir);
    Ok(())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) {
    // Best effort: some filesystems refuse fsync on directories; the rename already happened.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
#[cfg(not(unix))]
fn sync_dir(_: &Path) {}

/// Make sure a line-based file (`.gitignore`, `.gitattributes`) holds `lines`: the missing ones
/// are appended under `header` (written once), everything already there is kept. True if it
/// wrote.
pub fn ensure_lines(path: &Path, header: &str, lines: &[&str]) -> Result<bool> {
    let existing = read_text(path)?.map(|t| t.as_str().to_string()).unwrap_or_default();
    let have: Vec<&str> = existing.lines().map(str::trim).collect();
    let missing: Vec<&str> = lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty() && !have.contains(l)).collect();
    if missing.is_empty() {
        return Ok(false);
    }
    let mut text = existing.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !have.contains(&header.trim()) {
        text.push_str(header);
        text.push('\n');
    }
    for l in missing {
        text.push_str(l);
        text.push('\n');
    }
    write_atomic(path, text.as_bytes())?;
    Ok(true)
}

/// Create a directory (and parents) with a clear error.
pub fn create_dir(path: &Path) -> Result<()> {
    fs::create_dir_all(path).with_context(|| format!("could not create {}", path.display()))
}

/// Read a memory file as text. Missing → None. Invalid UTF-8 → an error naming file and line.
/// Large files are mapped rather than copied (see `format::Text`).
pub fn read_text(path: &Path) -> Result<Option<Text>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow!(e).context(format!("could not read {}", path.display()))),
    };
    let fail = || format!("could not read {}", path.display());
    let len = file.metadata().with_context(fail)?.len();
    if len >= 256 * 1024 {
        // SAFETY: the mapping is read-only and zo never truncates memory files in place.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            if simdutf8::basic::from_utf8(&map).is_err() {
                let at = std::str::from_utf8(&map).err().map_or(0, |e| e.valid_up_to());
                return Err(utf8_error(path, &map, at));
            }
            return Ok(Some(Text::mapped(map)));
        }
    }
    let mut bytes = Vec::with_capacity(len as usize);
    (&file).read_to_end(&mut bytes).with_context(fail)?;
    Ok(Some(Text::new(decode(path, bytes)?)))
}

/// A file that is not UTF-8, and where.
#[derive(Debug)]
pub struct BadUtf8 {
    pub path: PathBuf,
    pub line: usize,
    pub byte: usize,
}

impl BadUtf8 {
    /// What is wrong, without the place (for reports that give the place themselves).
    pub fn what(&self) -> String {
        format!("invalid UTF-8 (byte {}); fix or remove that byte", self.byte)
    }
}

impl std::fmt::Display for BadUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.what())
    }
}

impl std::error::Error for BadUtf8 {}

fn utf8_error(path: &Path, bytes: &[u8], at: usize) -> anyhow::Error {
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    anyhow::Error::new(BadUtf8 { path: path.to_path_buf(), line, byte: at })
}

/// UTF-8 decode with an error that says where the bad byte is.
pub fn decode(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| utf8_error(path, e.as_bytes(), e.utf8_error().valid_up_to()))
}

/// A lock held on a lock file until dropped (or until the process dies). The memory lock
/// (`acquire`) is the one every read-modify-write of memory files takes; `index` is the
/// derived index's own, so that no process deletes `index.db` under another one using it.
pub struct Lock {
    _file: File,
}

impl Lock {
    /// The memory lock: exclusive, on `.zo/memory/.lock`.
    pub fn acquire(memory_dir: &Path) -> Result<Lock> {
        let path = memory_dir.join(".lock");
        let mut file = wait_for_lock(&path, true, "the memory lock")?;
        // Tell a waiting process who holds it. Best effort: the lock is what matters.
        let _ = file.set_len(0);
        let _ = file.write_all(format!("{} {}\n", std::process::id(), crate::time::now()).as_bytes());
        remove_stale_temp_files(memory_dir);
        remove_stale_temp_files(&memory_dir.join("sessions"));
        remove_stale_temp_files(&memory_dir.join("snapshots"));
        Ok(Lock { _file: file })
    }

    /// The index lock on `path`: shared while a process uses the database, exclusive while
    /// one creates or deletes it.
    pub fn index(path: &Path, exclusive: bool) -> Result<Lock> {
        Ok(Lock { _file: wait_for_lock(path, exclusive, "the index lock")? })
    }
}

/// Open `path` and wait (up to `ZO_LOCK_TIMEOUT` seconds, default 30) for a lock on it.
fn wait_for_lock(path: &Path, exclusive: bool, what: &str) -> Result<File> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("could not open the lock file {}", path.display()))?;
    let timeout = crate::settings::lock_timeout()?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let attempt = if exclusive { file.try_lock() } else { file.try_lock_shared() };
        match attempt {
            Ok(()) => return Ok(file),
            Err(fs::TryLockError::WouldBlock) => {
                if started.elapsed() >= timeout {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    let who = match holder.split_whitespace().next() {
                        // The pid zo wrote is its last writer's; if that process is gone, some
                        // other program holds the lock.
                        Some(pid) if process_alive(pid) == Some(false) => {
                            format!(" (held by another program; the last zo writer, pid {pid}, has exited)")
                        }
                        Some(pid) => format!(" (held by pid {pid})"),
                        None => String::new(),
                    };
                    return Err(anyhow!(
                        "timed out after {:.0?} waiting for {what} {}{who}; if no zo process is running, try again",
                        timeout,
                        path.display()
                    ));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(fs::TryLockError::Error(e)) => {
                return Err(anyhow!(e).context(format!("could not lock {}", path.display())));
            }
        }
    }
}

/// Whether process `pid` is running, where that can be told (Linux's /proc).
fn process_alive(pid: &str) -> Option<bool> {
    if pid.parse::<u32>().is_err() {
        return None;
    }
    let proc = Path::new("/proc");
    proc.join("self").exists().then(|| proc.join(pid).exists())
}

/// Temp files left by a writer that was killed mid-write. Only called with the lock held, so
/// nobody else is writing one.
fn remove_stale_temp_files(memory_dir: &Path) {
    let Ok(entries) = fs::read_dir(memory_dir) else { return };
    let stale: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n.ends_with(TMP_SUFFIX))
        })
        .collect();
    for p in stale {
        let _ = fs::remove_file(p);
    }
}
