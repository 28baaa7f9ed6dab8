#![no_main]
// See zo::props::agent_render: the property this target checks on arbitrary input.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zo::props::agent_render(data);
});
