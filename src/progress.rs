//! Progress for long work (embedding an index: tens of seconds on a fresh clone), on stderr,
//! only when stderr is a terminal and the command was not asked to be quiet or to print JSON.
//! The CLI switches it on for the process; the library only reports counts.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Called once by the front-end: progress bars are allowed in this process.
pub fn enable(on: bool) {
    ENABLED.store(on && std::io::stderr().is_terminal(), Ordering::Relaxed);
}

/// A bar counting `total` items, hidden unless enabled.
pub fn bar(total: usize, what: &str) -> indicatif::ProgressBar {
    if !ENABLED.load(Ordering::Relaxed) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "zo: {msg} {bar:30} {pos}/{len} ({per_sec}, ETA {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(what.to_string());
    bar
}
