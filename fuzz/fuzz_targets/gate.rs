#![no_main]
// The write gate: arbitrary fields never panic it; a refusal names a field; anything accepted
// holds no control character; `visible` leaves none (see zo::props::gate).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zo::props::gate(data);
});
