#![no_main]
// Input: a prefix log and four field values, separated by 0xFF bytes (never in UTF-8 text).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xff);
    let prefix = parts.next().unwrap_or_default();
    let mut field = || String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let (title, decision, rationale, alternatives) = (field(), field(), field(), field());
    zo::props::decision_round_trip(prefix, &title, &decision, &rationale, &alternatives);
});
