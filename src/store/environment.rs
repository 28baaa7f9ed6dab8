//! What this machine is, for `.zo/local.yaml` (SPEC §1). Every probe that fails yields null;
//! nothing here can fail the command that asked.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, Serialize)]
pub struct Gpu {
    pub name: String,
    pub memory: Option<String>,
    pub driver: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Environment {
    pub hostname: Option<String>,
    pub os: String,
    pub arch: String,
    pub cpu_count: Option<usize>,
    pub memory_bytes: Option<u64>,
    pub gpus: Option<Vec<Gpu>>,
    pub cuda_version: Option<String>,
    pub docker_available: Option<bool>,
    pub zo_version: String,
    pub detected_at: String,
}

fn run(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn detect_hostname() -> Option<String> {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| run("hostname", &[]))
}

fn memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn gpus() -> (Option<Vec<Gpu>>, Option<String>) {
    let Some(list) = run(
        "nvidia-smi",
        &[
            "--query-gpu=name,memory.total,driver_version",
            "--format=csv,noheader",
        ],
    ) else {
        return (None, None);
    };
    let gpus = list
        .lines()
        .map(|l| {
            let mut parts = l.split(',').map(|s| s.trim().to_string());
            Gpu {
                name: parts.next().unwrap_or_default(),
                memory: parts.next(),
                driver: parts.next(),
            }
        })
        .collect();
    let cuda = run("nvidia-smi", &[]).and_then(|s| {
        let at = s.find("CUDA Version:")?;
        s[at + 13..].split_whitespace().next().map(str::to_string)
    });
    (Some(gpus), cuda)
}

fn docker_available() -> Option<bool> {
    // The client alone is not enough to run containers; ask the daemon, but only if a client exists.
    run("docker", &["--version"])?;
    Some(run("docker", &["info", "--format", "{{.ServerVersion}}"]).is_some())
}

pub fn detect() -> Environment {
    let (gpus, cuda_version) = gpus();
    Environment {
        hostname: detect_hostname(),
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
        cpu_count: std::thread::available_parallelism().ok().map(|n| n.get()),
        memory_bytes: memory_bytes(),
        gpus,
        cuda_version,
        docker_available: docker_available(),
        zo_version: env!("CARGO_PKG_VERSION").to_string(),
        detected_at: crate::time::now(),
    }
}

/// Whether `path` is a file this user could run (on Unix: any execute bit).
pub fn executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    path.is_file()
}

/// The first executable `name` on PATH, as a shell would find it (hooks and agents run `zo`
/// from there).
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| executable(f))
    })
}
