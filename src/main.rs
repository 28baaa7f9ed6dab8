use clap::Parser;

fn main() {
    let cli = zo::cli::Cli::parse();
    if let Err(err) = zo::cmd::run(cli) {
        // A closed pipe (`zo log | head`) is not an error worth a message.
        if err.chain().any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)) {
            std::process::exit(0);
        }
        eprintln!("zo: {err:#}");
        std::process::exit(zo::error::exit_code(&err));
    }
}
