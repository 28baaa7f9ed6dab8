//! The process's memory allocator: mimalloc (v2) in place of the system's.
//!
//! Why: the hook path restores thousands of small entries and drops them again, in a process
//! that lives a few milliseconds. Measured at 10,000 decisions (`cargo bench --bench scale`,
//! this 2-core machine, THP `madvise`): `context` 7.0 → 3.3 ms, `status` 7.5 → 4.7 ms, the
//! SessionStart hook 8.2 → 5.2 ms, page faults for `context` 2,082 → 395. Most of it is fewer
//! page faults (mimalloc asks for transparent huge pages for its arenas where the system
//! allows them); with THP off the gain was still about 1 ms, from cheaper malloc and free.
//! v2 rather than v3: v3 was slower and noisier here and holds freed memory for a second.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v2's `mi_option_t` (include/mimalloc.h of the pinned
/// libmimalloc-sys); the crate names no constant for it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Give freed memory back to the system at once rather than after mimalloc's delay. Called
/// when the embedding model loads: embedding frees and reallocates large buffers batch after
/// batch, and with the delay a cold index build of the 326 ADRs peaked at 581–603 MB (508 MB
/// without it; 490–502 MB with the system allocator) against the 600 MB target. The hook
/// path keeps the delay: purging at once cost it about 1 ms.
pub fn release_freed_memory_at_once() {
    // SAFETY: mi_option_set only stores the value; mimalloc reads options atomically.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}
