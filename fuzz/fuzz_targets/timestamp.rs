#![no_main]
// See zo::props::timestamp: the property this target checks on arbitrary input.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zo::props::timestamp(data);
});
