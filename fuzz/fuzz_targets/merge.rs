#![no_main]
// Input: the three-way merge of arbitrary text (base, ours, theirs split at 0xFF bytes), and
// the same bytes read as entry titles for the merge of two valid logs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = data.splitn(3, |&b| b == 0xff).collect();
    let get = |i: usize| parts.get(i).copied().unwrap_or_default();
    zo::props::merge_any(get(0), get(1), get(2));
    let titles = |b: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(b)
            .split('\u{1}')
            .take(8)
            .map(str::to_string)
            .collect()
    };
    zo::props::merge(&titles(get(0)), &titles(get(1)), &titles(get(2)));
});
