//! The only code that writes memory files: one atomic write, one lock, one reader that turns
//! bytes into text with errors that name the file and line.
//!
//! It is also where zo stays inside the repository (SPEC "Threat model"). A repository is
//! someone else's input: any path under a repository root that zo opens has every component
//! checked — no symbolic link is followed, for reading or for writing, and only regular files
//! are read (a FIFO would hang zo, a device like /dev/zero would feed it without end). The
//! last component is opened with `O_NOFOLLOW`, so a link put there between the check and the
//! open is refused too. Every read is bounded: `MAX_FILE_BYTES` for memory files,
//! `MAX_INPUT_BYTES` for `--file` and stdin. Nothing is memory-mapped: another process
//! shrinking a mapped file kills the reader with SIGBUS.

use crate::format::Text;
use anyhow::{Context, Result, anyhow, bail};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, Instant};

const TMP_SUFFIX: &str = ".zo-tmp";

/// The largest memory file zo reads (1 GiB: a log of some 350,000 decisions). Above it the
/// read is refused with the file's name rather than exhausting memory.
pub const MAX_FILE_BYTES: u64 = crate::git::MAX_BLOB_BYTES;
/// The largest `--file` or stdin input (16 MiB; an entry is 64 KiB at most by default).
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Repository roots whose insides are confined (registered by `Layout`): canonical paths.
static ROOTS: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Confine every later read and write under `root` (a canonical path): no component below it
/// may be a link, and only regular files are read. `Layout` calls it for the repository it
/// opens; paths elsewhere (the user's own cache and config directories) are trusted.
pub fn confine(root: &Path) {
    let mut roots = ROOTS.write().unwrap_or_else(|e| e.into_inner());
    if !roots.iter().any(|r| r == root) {
        roots.push(root.to_path_buf());
    }
}

/// The registered root `path` lies under, if any (the longest, for nested repositories).
fn root_of(path: &Path) -> Option<PathBuf> {
    let roots = ROOTS.read().unwrap_or_else(|e| e.into_inner());
    roots
        .iter()
        .filter(|r| path.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
        .cloned()
}

/// Why zo refused a path inside a repository: a link, a special file, a path that leaves the
/// repository, a file over the size cap. Always names the path (relative to the repository).
#[derive(Debug)]
pub struct Refused {
    pub path: PathBuf,
    pub why: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for Refused {}

fn refused(root: Option<&Path>, path: &Path, why: impl Into<String>) -> anyhow::Error {
    let shown = root
        .and_then(|r| path.strip_prefix(r).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path);
    anyhow::Error::new(Refused {
        path: shown.to_path_buf(),
        why: why.into(),
    })
}

/// What a directory entry is, in words, when it is not a regular file or directory.
pub fn special_kind(t: &fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    if t.is_symlink() {
        return Some("a symbolic link");
    }
    if t.is_file() || t.is_dir() {
        None
    } else {
        Some("not a regular file")
    }
}

const LINK_WHY: &str = "is a symbolic link; zo never follows links inside a repository (a cloned repository could point it anywhere on this machine). Replace the link with the real file or directory";

/// Check every component of `path` below its repository root: none may be a symbolic link,
/// every directory on the way must be a directory, and the last component, when it exists,
/// must be a regular file or a directory. Paths outside every repository are not checked.
/// `.git/` is git's (a clone cannot commit it) and is left to git.
pub fn check_path(path: &Path) -> Result<()> {
    let Some(root) = root_of(path) else {
        return Ok(());
    };
    let rel = path
        .strip_prefix(&root)
        .expect("root_of checked the prefix");
    let mut cur = root.clone();
    for (i, c) in rel.components().enumerate() {
        match c {
            Component::Normal(n) => {
                if i == 0 && n == ".git" {
                    return Ok(());
                }
                cur.push(n)
            }
            Component::CurDir => continue,
            _ => {
                return Err(refused(
                    Some(&root),
                    path,
                    "leaves the repository; zo reads and writes only inside it",
                ));
            }
        }
        match fs::symlink_metadata(&cur) {
            Ok(m) => {
                let t = m.file_type();
                if t.is_symlink() {
                    return Err(refused(Some(&root), &cur, LINK_WHY));
                }
                if let Some(kind) = special_kind(&t) {
                    return Err(refused(
                        Some(&root),
                        &cur,
                        format!("is {kind}; zo reads and writes only regular files here"),
                    ));
                }
                if cur.as_path() != path && !t.is_dir() {
                    return Err(refused(Some(&root), &cur, "is not a directory"));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(anyhow!(e).context(format!("could not read {}", path.display()))),
        }
    }
    Ok(())
}

/// Open a file for reading: checked (`check_path`), never through a link (`O_NOFOLLOW`), never
/// blocking on a FIFO (`O_NONBLOCK`), and only if it is a regular file. Missing → None.
pub fn open_regular(path: &Path) -> Result<Option<File>> {
    open_checked(
        path,
        OpenOptions::new().read(true),
        "could not read",
        "zo reads only regular files",
    )
}

/// Open `path` with `options` the confined way: checked (`check_path`), the last component
/// with `O_NOFOLLOW | O_NONBLOCK` (a link put there after the check is refused, a FIFO never
/// blocks), and only a regular file kept. Missing → None. `fail` starts the message of other
/// errors; `regular` says why a special file is refused.
fn open_checked(
    path: &Path,
    options: &mut OpenOptions,
    fail: &str,
    regular: &str,
) -> Result<Option<File>> {
    check_path(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let root = root_of(path);
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refused(root.as_deref(), path, LINK_WHY));
        }
        Err(e) => return Err(anyhow!(e).context(format!("{fail} {}", path.display()))),
    };
    let m = file
        .metadata()
        .with_context(|| format!("{fail} {}", path.display()))?;
    if !m.is_file() {
        let kind = special_kind(&m.file_type()).unwrap_or("a directory");
        return Err(refused(
            root.as_deref(),
            path,
            format!("is {kind}; {regular}"),
        ));
    }
    Ok(Some(file))
}

/// Read at most `cap` bytes; more is an error naming the file and the cap.
pub fn read_bounded(mut reader: impl Read, path: &Path, cap: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    (&mut reader)
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {}", path.display()))?;
    if bytes.len() as u64 > cap {
        bail!(
            "{}: larger than {}, the most zo reads from one file",
            path.display(),
            show_bytes(cap)
        );
    }
    Ok(bytes)
}

/// `read_bounded` for a file whose length was just read: one buffer of that size (a byte more
/// to see it grow), so a large log is not read into a buffer grown by doubling, and on Linux
/// one the kernel may back with huge pages: faulting in a 15 MB log 4 KiB at a time was a
/// tenth of `zo decide`.
pub(crate) fn read_sized(file: &File, path: &Path, len: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len.min(MAX_FILE_BYTES) as usize + 1);
    huge_pages(&mut bytes);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        bail!(
            "{}: larger than {}, the most zo reads from one file",
            path.display(),
            show_bytes(MAX_FILE_BYTES)
        );
    }
    Ok(bytes)
}

/// Ask for huge pages under a large buffer's spare capacity (advice only: without them, or
/// elsewhere than Linux, the buffer is the same).
#[cfg(target_os = "linux")]
fn huge_pages(buf: &mut Vec<u8>) {
    const HUGE: usize = 2 << 20;
    if buf.capacity() < 2 * HUGE {
        return;
    }
    let start = buf.as_mut_ptr() as usize;
    let (from, to) = (
        (start + HUGE - 1) & !(HUGE - 1),
        (start + buf.capacity()) & !(HUGE - 1),
    );
    if to > from {
        // SAFETY: madvise(MADV_HUGEPAGE) changes how pages inside the buffer's own allocation
        // are backed, never their contents; its result (EINVAL without THP) is ignored.
        unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_: &mut Vec<u8>) {}

/// A byte count for people: 16 MiB, 1 GiB.
pub fn show_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Links and special files anywhere under `dir` (not followed), for `doctor` and `verify`:
/// (path, what it is). Bounded: a tree of more than 100,000 entries is not walked further.
pub fn strangers(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    if let Ok(m) = fs::symlink_metadata(dir) {
        if let Some(kind) = special_kind(&m.file_type()) {
            return vec![(dir.to_path_buf(), kind)];
        }
    }
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > 100_000 {
                return out;
            }
            let Ok(t) = e.file_type() else { continue };
            if let Some(kind) = special_kind(&t) {
                out.push((e.path(), kind));
            } else if t.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Regular files in `dir` whose names end in `ext` and do not start with a dot, sorted by
/// name; a missing directory is empty. Links and special files are left out (never read):
/// `zo verify` and `zo doctor` name them.
pub fn list_files(dir: &Path, ext: &str) -> Result<Vec<String>> {
    check_path(dir)?;
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(anyhow!(e).context(format!("could not list {}", dir.display()))),
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(ext) && !n.starts_with('.'))
        .collect();
    names.sort();
    Ok(names)
}

/// Replace `path` with `bytes` atomically: temp file in the same directory, fsync, rename over
/// the target, fsync the directory. A crash at any instant leaves the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// `write_atomic` for a file made of several pieces, written in order without first joining
/// them: appending to a large log writes its mapped text straight from the page cache instead
/// of copying it into a new buffer.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    replace(path, parts, true)
}

/// `write_atomic` without the fsyncs: still a temp file renamed over the target (a reader sees
/// the old file or the new one, never a torn one), but after a power loss the file may be the
/// old one or empty. Only for local, derived files that are rewritten often and whose loss
/// costs little (the open session's record, `.zo/memory/.session`; the decision log's summary,
/// whose CRC catches a torn one): each fsync forces a
/// journal commit, milliseconds on every agent start and every write.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, &[bytes], false)
}

fn replace(path: &Path, parts: &[&[u8]], sync: bool) -> Result<()> {
    // The rename replaces whatever is at `path`: a link would become a regular file (its target,
    // maybe outside the repository, silently stale), and a file made read-only to protect it
    // would be replaced all the same. Refuse both, before writing anything; `check_path`
    // refuses links anywhere on the way inside a repository.
    check_path(path)?;
    if let Ok(m) = fs::symlink_metadata(path) {
        if m.file_type().is_symlink() {
            return Err(anyhow!(
                "{} is a symbolic link; zo does not write through links (the link would be replaced and its target left stale). Replace the link with the file itself",
                path.display()
            ));
        }
        if m.permissions().readonly() {
            return Err(anyhow!(
                "{} is read-only; zo will not replace it (make it writable to let zo write)",
                path.display()
            ));
        }
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
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
    if sync {
        tmp.as_file().sync_all().with_context(fail)?;
    }
    tmp.persist(path).map_err(|e| e.error).with_context(fail)?;
    if sync {
        sync_dir(dir);
    }
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
    let existing = read_text(path)?
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    let have: Vec<&str> = existing.lines().map(str::trim).collect();
    let missing: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !have.contains(l))
        .collect();
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
    check_path(path)?;
    fs::create_dir_all(path).with_context(|| format!("could not create {}", path.display()))
}

/// Read a memory file as text. Missing → None. Invalid UTF-8 → an error naming file and line.
/// A link, a special file or a file over `MAX_FILE_BYTES` → an error naming it (`Refused`).
pub fn read_text(path: &Path) -> Result<Option<Text>> {
    let Some(file) = open_regular(path)? else {
        return Ok(None);
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_FILE_BYTES {
        return Err(refused(
            root_of(path).as_deref(),
            path,
            format!(
                "is {}; zo reads memory files up to {}",
                show_bytes(len),
                show_bytes(MAX_FILE_BYTES)
            ),
        ));
    }
    let bytes = read_sized(&file, path, len)?;
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: just validated as UTF-8.
        return Ok(Some(Text::new(unsafe {
            String::from_utf8_unchecked(bytes)
        })));
    }
    Ok(Some(Text::new(decode(path, bytes)?)))
}

/// A file's whole text through `read_text` (checked, bounded, never through a link); a missing
/// file is an error too. For the few files outside `.zo/` zo reads and rewrites (agent wiring,
/// `.gitattributes`): the same rules as memory files.
pub fn read_string(path: impl AsRef<Path>) -> Result<String> {
    let path = path.as_ref();
    match read_text(path)? {
        Some(t) => Ok(t.as_str().to_string()),
        None => Err(
            anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::NotFound))
                .context(format!("{} does not exist", path.display())),
        ),
    }
}

/// Remove a file zo wrote, never through a link on the way (a linked `.cursor/` would have zo
/// delete a file in the user's home). A link as the file itself is removed as a link.
pub fn remove_file(path: &Path) -> Result<()> {
    check_dirs(path)?;
    fs::remove_file(path).with_context(|| format!("could not remove {}", path.display()))
}

/// Move a file within the repository, never through a link on the way at either end.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    check_dirs(from)?;
    check_dirs(to)?;
    if to.exists() {
        bail!("{} exists already; not overwritten", to.display());
    }
    fs::rename(from, to)
        .with_context(|| format!("could not move {} to {}", from.display(), to.display()))
}

/// Remove an empty directory zo created, likewise.
pub fn remove_dir(path: &Path) -> Result<()> {
    check_path(path)?;
    fs::remove_dir(path).with_context(|| format!("could not remove {}", path.display()))
}

/// `check_path` for the directories above `path` only.
fn check_dirs(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => check_path(dir),
        _ => Ok(()),
    }
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
        format!(
            "invalid UTF-8 (byte {}); fix or remove that byte",
            self.byte
        )
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
    anyhow::Error::new(BadUtf8 {
        path: path.to_path_buf(),
        line,
        byte: at,
    })
}

/// UTF-8 decode with an error that says where the bad byte is.
pub fn decode(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes)
        .map_err(|e| utf8_error(path, e.as_bytes(), e.utf8_error().valid_up_to()))
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
        let _ =
            file.write_all(format!("{} {}\n", std::process::id(), crate::time::now()).as_bytes());
        remove_stale_temp_files(memory_dir);
        remove_stale_temp_files(&memory_dir.join("sessions"));
        remove_stale_temp_files(&memory_dir.join("snapshots"));
        Ok(Lock { _file: file })
    }

    /// The index lock on `path`: shared while a process uses the database, exclusive while
    /// one creates or deletes it.
    pub fn index(path: &Path, exclusive: bool) -> Result<Lock> {
        Ok(Lock {
            _file: wait_for_lock(path, exclusive, "the index lock")?,
        })
    }
}

/// Open `path` and wait (up to `ZO_LOCK_TIMEOUT` seconds, default 30) for a lock on it.
fn wait_for_lock(path: &Path, exclusive: bool, what: &str) -> Result<File> {
    let mut file = open_lock_file(path)?;
    let timeout = crate::store::settings::lock_timeout()?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let attempt = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
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
                            format!(
                                " (held by another program; the last zo writer, pid {pid}, has exited)"
                            )
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

/// Open (or create) a lock file: never through a link (a committed `.lock` link to `~/x` would
/// have zo truncate `~/x`), and only a regular file.
fn open_lock_file(path: &Path) -> Result<File> {
    const FAIL: &str = "could not open the lock file";
    open_checked(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
        FAIL,
        "a lock file must be a regular file",
    )?
    .ok_or_else(|| anyhow!("{FAIL} {}: its directory does not exist", path.display()))
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
    let Ok(entries) = fs::read_dir(memory_dir) else {
        return;
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read into one buffer of its size (advised to huge pages past 4 MiB) reads back
    /// exactly, at every size around the buffer's and the huge page's bounds.
    #[test]
    fn read_text_of_large_files_is_exact() {
        let dir = tempfile::tempdir().unwrap();
        for n in [0usize, 1, (4 << 20) - 1, 4 << 20, (5 << 20) + 7] {
            let text: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let path = dir.path().join(format!("f{n}.md"));
            std::fs::write(&path, &text).unwrap();
            assert_eq!(
                read_text(&path).unwrap().unwrap().as_str(),
                text,
                "{n} bytes"
            );
        }
    }
}
