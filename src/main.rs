use clap::Parser;

fn main() {
    // ONNX Runtime from 1.29 on, as published on PyPI (what `zo model install` fetches), sends
    // usage telemetry to Microsoft and writes a device ID under ~/.cache/Microsoft and a session
    // file in $TMPDIR unless this is set before it loads. zo sends nothing anywhere.
    // SAFETY: changing the environment is sound only while no other thread can read it, and no
    // thread has been started yet.
    unsafe { std::env::set_var("ORT_DISABLE_TELEMETRY", "1") };
    let cli = zo::cli::Cli::parse();
    if let Err(err) = zo::cmd::run(cli) {
        // A closed pipe (`zo log | head`) is not an error worth a message.
        if err.chain().any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)) {
            std::process::exit(0);
        }
        // Not eprintln!: with stderr closed (`zo verify 2>&1 | head -1`) it would panic and
        // exit 101 instead of the documented code. `say` shows control characters a message
        // quotes from memory as escapes on a terminal.
        zo::cmd::say(&format!("zo: {err:#}\n"));
        std::process::exit(exit_code(&err));
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
