//! Where the site is written, and how: never over a directory the user would lose, never
//! through a link, and swapped in whole.

use super::MARKER;
use crate::error::Error;
use crate::store::fsio;
use anyhow::{Context, Result, anyhow};
use std::fs;
use std::path::Path;

/// Refuse a DIR that is a link, not a directory, or a directory that is neither empty nor an
/// earlier site. Inside a repository every component is checked as for any `.zo` path.
pub fn check(dir: &Path, shown: &str) -> Result<()> {
    // A file, FIFO, socket or device named as DIR is a wrong DIR, as a regular file is (a
    // usage error), before the repository's path rules, which refuse special files as unsafe.
    if let Ok(m) = fs::symlink_metadata(dir) {
        if !m.file_type().is_symlink() && !m.is_dir() {
            return Err(
                Error::usage(format!("{shown} is not a directory; choose another DIR")).into(),
            );
        }
    }
    fsio::check_path(dir)?;
    let meta = match fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(anyhow!(e).context(format!("could not read {shown}"))),
    };
    if meta.file_type().is_symlink() {
        return Err(Error::usage(format!("{shown} is a symbolic link; zo site writes only into a real directory (give the link's target as DIR)")).into());
    }
    if !meta.is_dir() {
        return Err(Error::usage(format!("{shown} is not a directory; choose another DIR")).into());
    }
    let mut empty = true;
    for e in fs::read_dir(dir).with_context(|| format!("could not read {shown}"))? {
        let e = e.with_context(|| format!("could not read {shown}"))?;
        if e.file_name() == MARKER && e.file_type().is_ok_and(|t| t.is_file()) {
            return Ok(());
        }
        empty = false;
    }
    if empty {
        return Ok(());
    }
    Err(Error::usage(format!("{shown} is not empty and holds no site zo built; zo site replaces only an empty directory or its own site. Choose another DIR"))
        .into())
}

/// Write `files` (path relative to the site, content) as the site at `dir`: built in a new
/// directory beside it, then swapped in (one atomic exchange where the system has one), the
/// old site removed after. A crash leaves the old site or the new one, plus at most a
/// `.zo-site-*` directory beside it.
pub fn write(dir: &Path, shown: &str, files: &[(String, String)]) -> Result<()> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fsio::check_path(parent)?;
    fs::create_dir_all(parent).with_context(|| format!("could not create {}", parent.display()))?;
    // Dropped on every path out: removes a half-built site, or the old one after the swap.
    let tmp = tempfile::Builder::new()
        .prefix(".zo-site-")
        .tempdir_in(parent)
        .with_context(|| format!("could not create a directory beside {shown}"))?;
    for (rel, text) in files {
        let path = tmp.path().join(rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p).with_context(|| format!("could not create {}", p.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("could not write {}", path.display()))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // tempdir makes it private; a site is for reading (a web server, other users).
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))?;
    }
    // Once more, right before the swap: the directory may have changed while the site was built.
    check(dir, shown)?;
    if fs::symlink_metadata(dir).is_ok() {
        if !exchange(tmp.path(), dir)? {
            // No atomic exchange here: move the old site aside into the temp name's place.
            let old = tempfile::Builder::new()
                .prefix(".zo-site-old-")
                .tempdir_in(parent)?;
            fs::rename(dir, old.path().join("site"))
                .with_context(|| format!("could not move the old {shown} aside"))?;
            fs::rename(tmp.path(), dir)
                .with_context(|| format!("could not move the new site to {shown}"))?;
        }
    } else {
        fs::rename(tmp.path(), dir)
            .with_context(|| format!("could not move the new site to {shown}"))?;
    }
    Ok(())
}

/// Swap two directories in one step (Linux `renameat2(RENAME_EXCHANGE)`); false where the
/// system or file system cannot.
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let ca = CString::new(a.as_os_str().as_bytes())?;
        let cb = CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: two NUL-terminated paths that live across the call; the call only renames.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                ca.as_ptr(),
                libc::AT_FDCWD,
                cb.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if rc == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        return match err.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::ENOTSUP) => Ok(false),
            _ => {
                Err(anyhow!(err)
                    .context(format!("could not swap the new site in at {}", b.display())))
            }
        };
    }
    #[allow(unreachable_code)]
    {
        let _ = (a, b);
        Ok(false)
    }
}
