use clap::Parser;

fn main() {
    // ONNX Runtime from 1.29 on, as published on PyPI (what `zo model install` fetches), sends
    // usage telemetry to Microsoft and writes a device ID under ~/.cache/Microsoft and a session
    // file in $TMPDIR unless this is set before it loads. zo sends nothing anywhere.
    // SAFETY: changing the environment is sound only while no other thread can read it, and no
    // thread has been started yet.
    unsafe { std::env::set_var("ORT_DISABLE_TELEMETRY", "1") };
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        zo::cmd::stdout_was_closed();
    }
    // A shell asking for completions (`COMPLETE=bash zo -- zo show D-`, the script `zo
    // completions SHELL` prints): answered, then exit; any other run goes on.
    clap_complete::CompleteEnv::with_factory(<zo::cli::Cli as clap::CommandFactory>::command)
        .complete();
    let cli = match zo::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Under --json a script reads stdout: a usage error is a JSON document there too
            // (clap still prints its message and exits 2).
            use clap::error::ErrorKind;
            let asked = !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if asked && std::env::args_os().any(|a| a == "--json") {
                let err = anyhow::Error::new(zo::error::Error::usage(
                    e.render().to_string().trim().trim_start_matches("error: "),
                ));
                zo::cmd::report_json_error(&err, zo::error::code::USAGE);
            }
            e.exit()
        }
    };
    let json = cli.json;
    if let Err(err) = zo::cmd::run(cli) {
        // A closed pipe (`zo log | head`) is not an error worth a message.
        if err.chain().any(|e| {
            e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        }) {
            std::process::exit(0);
        }
        // Not eprintln!: with stderr closed (`zo verify 2>&1 | head -1`) it would panic and
        // exit 101 instead of the documented code. `say` shows control characters a message
        // quotes from memory as escapes on a terminal.
        let code = exit_code(&err);
        zo::cmd::report_error(&err, json, code);
        std::process::exit(code);
    }
}

/// The exit code for an error (SPEC §3): decided here, from the kind of the first typed error.
fn exit_code(err: &anyhow::Error) -> i32 {
    use zo::error::{Error, code};
    match zo::error::kind(err) {
        Some(Error::Usage(_)) => code::USAGE,
        Some(Error::NoMemory(_)) => code::NO_MEMORY,
        Some(Error::VerifyFailed(_)) => code::VERIFY_FAILED,
        Some(Error::Failed(_)) | None => code::FAILURE,
    }
}

/// Whether stdout was closed when the process started (`zo log >&-`). Rust's runtime reopens a
/// closed fd 1 on /dev/null before `main`, so every write would "succeed" and the output be lost
/// with exit 0; this is probed before that, from the platform's constructor list.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn probe_stdout() {
    unsafe extern "C" {
        fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    }
    // F_GETFD is 1 on Linux, macOS and the BSDs; it fails (EBADF) only for a closed fd.
    // SAFETY: fcntl(F_GETFD) reads the descriptor's flags and changes nothing.
    let closed = unsafe { fcntl(1, 1) } == -1;
    STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd"
))]
#[used]
#[unsafe(link_section = ".init_array")]
static PROBE_STDOUT: extern "C" fn() = probe_stdout;

#[cfg(target_vendor = "apple")]
#[used]
#[unsafe(link_section = "__DATA,__mod_init_func")]
static PROBE_STDOUT: extern "C" fn() = probe_stdout;
