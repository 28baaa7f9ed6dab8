#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| zo::props::mcp_line(data));
