#![no_main]
// FACTS.md: any text parses; a written version reads back; the first quarter of the input is
// the value, the rest the file it is appended to.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let cut = data.len() / 4;
    zo::props::facts(&data[cut..], &String::from_utf8_lossy(&data[..cut]));
});
