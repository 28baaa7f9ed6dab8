//! Characters memory may not hold (SPEC §3, "Characters"): control characters, and the
//! invisible or deceptive code points a person reading the file cannot see but a model reads —
//! Unicode tag characters ("ASCII smuggling"), bidi embeddings, overrides and isolates (Trojan
//! Source), zero-width characters, BOMs, soft hyphens, variation selectors used to hide bytes,
//! fillers that render as nothing. One definition serves the write gate (refused, naming the
//! field), `zo verify` (a problem naming file and line), the secret scanner (which reads the
//! text with them removed, so a zero-width space cannot split a token) and every output (shown
//! as `\u{…}` escapes, never replayed to a terminal or an agent).
//!
//! What legitimate text keeps: newlines and tabs (CR only before LF); right-to-left scripts
//! (their letters carry their direction; no explicit bidi control is needed); a zero-width
//! joiner or non-joiner between two letters of a script that uses them (Persian, the Indic
//! scripts) or inside an emoji sequence (👩‍💻); one text or emoji presentation selector
//! (U+FE0E, U+FE0F) after a visible character. General category from `unicode-properties`
//! (unicode-rs), not hand-written ranges.

use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};

/// Code points outside category Cf that show nothing: combining grapheme joiner, Hangul
/// fillers, the braille blank, Khmer's inherent vowels, Mongolian free variation selectors and
/// the line and paragraph separators (which some renderers treat as line breaks).
fn invisible_other(c: char) -> bool {
    matches!(
        c as u32,
        0x034F | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B
            ..=0x180F | 0x2028 | 0x2029 | 0x2800 | 0x3164 | 0xFFA0
    )
}

/// A variation selector that can only encode hidden bytes (VS1–14, VS17–256).
fn hiding_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0D | 0xE0100..=0xE01EF)
}

/// A character forbidden whatever its neighbours: a joiner beside one is not doing a joiner's
/// work (tag characters are emoji components, for flag sequences), and once it is shown as an
/// escape the joiner would stand alone.
pub fn hidden(c: char) -> bool {
    c.is_control()
        || c.general_category() == GeneralCategory::Format
        || invisible_other(c)
        || hiding_selector(c)
}

/// A letter or mark of a script other than ASCII: where a joiner or non-joiner does work.
fn joinable_letter(c: char) -> bool {
    !c.is_ascii()
        && !hidden(c)
        && (c.is_alphabetic()
            || matches!(
                c.general_category_group(),
                unicode_properties::GeneralCategoryGroup::Mark
            ))
}

/// A character that can stand on either side of a ZWJ in an emoji sequence.
fn emoji_side(c: char) -> bool {
    !c.is_ascii() && (c == '\u{FE0F}' || !hidden(c) && c.is_emoji_char_or_emoji_component())
}

/// Whether `c`, between `prev` and `next`, is a character memory may not hold. Newline and
/// tab pass; CR only before LF (checked by the caller, which sees the next byte).
pub fn forbidden(prev: Option<char>, c: char, next: Option<char>) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{200C}' | '\u{200D}' => {
            let (Some(p), Some(n)) = (prev, next) else {
                return true;
            };
            let letters = joinable_letter(p) && joinable_letter(n);
            let emoji = c == '\u{200D}' && emoji_side(p) && emoji_side(n);
            !(letters || emoji)
        }
        '\u{FE0E}' | '\u{FE0F}' => prev.is_none_or(|p| {
            p.is_whitespace()
                || p.is_control()
                || matches!(p, '\u{FE0E}' | '\u{FE0F}')
                || hiding_selector(p)
        }),
        c if c.is_control() => true,
        c => {
            c.general_category() == GeneralCategory::Format
                || invisible_other(c)
                || hiding_selector(c)
        }
    }
}

/// The first character of `value` that memory may not hold: (byte offset, character).
pub fn first(value: &str) -> Option<(usize, char)> {
    // Almost all text is ASCII: one pass over bytes answers without decoding.
    if value
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
    {
        return None;
    }
    let mut prev = None;
    let mut it = value.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, n)| n);
        let bad = if c == '\r' {
            next != Some('\n')
        } else {
            forbidden(prev, c, next)
        };
        if bad {
            return Some((i, c));
        }
        prev = Some(c);
    }
    None
}

/// Every forbidden character's byte offset (for the secret scanner's view and the output).
fn all(value: &str) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let Some((start, _)) = first(value) else {
        return out;
    };
    // `prev` of the first bad character is the character before it, whatever it was.
    let mut prev = value[..start].chars().next_back();
    let mut it = value[start..]
        .char_indices()
        .map(|(i, c)| (i + start, c))
        .peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, n)| n);
        let bad = if c == '\r' {
            next != Some('\n')
        } else {
            forbidden(prev, c, next)
        };
        if bad {
            out.push((i, c));
        }
        prev = Some(c);
    }
    out
}

/// The name a message gives a character.
pub fn name(c: char) -> &'static str {
    const C0: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
        "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB",
        "ESC", "FS", "GS", "RS", "US",
    ];
    const C1: [&str; 32] = [
        "PAD", "HOP", "BPH", "NBH", "IND", "NEL", "SSA", "ESA", "HTS", "HTJ", "VTS", "PLD", "PLU",
        "RI", "SS2", "SS3", "DCS", "PU1", "PU2", "STS", "CCH", "MW", "SPA", "EPA", "SOS", "SGCI",
        "SCI", "CSI", "ST", "OSC", "PM", "APC",
    ];
    match c as u32 {
        n @ 0..=0x1f => C0[n as usize],
        0x7f => "DEL",
        n @ 0x80..=0x9f => C1[(n - 0x80) as usize],
        0xAD => "SOFT HYPHEN",
        0x200B => "ZERO WIDTH SPACE",
        0x200C => "ZERO WIDTH NON-JOINER (outside a word of a script that joins)",
        0x200D => "ZERO WIDTH JOINER (outside an emoji sequence or a word of a script that joins)",
        0x200E | 0x200F | 0x061C => "bidi mark",
        0x202A..=0x202E => "bidi embedding or override",
        0x2066..=0x2069 => "bidi isolate",
        0x2060..=0x2064 => "invisible operator or word joiner",
        0xFEFF => "BYTE ORDER MARK (zero width no-break space)",
        0xE0000..=0xE007F => "TAG character (hidden ASCII)",
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => "variation selector",
        0x2028 => "LINE SEPARATOR",
        0x2029 => "PARAGRAPH SEPARATOR",
        _ if c.is_control() => "control",
        _ => "invisible character",
    }
}

/// What a refusal says about a character: `U+202E bidi embedding or override`.
pub fn describe(c: char) -> String {
    format!("U+{:04X} {}", c as u32, name(c))
}

/// Whether `c` is a control character (for messages that say "control" rather than
/// "invisible").
pub fn is_control(c: char) -> bool {
    c.is_control()
}

/// `text` with every forbidden character shown as an escape (`\x1b`, `\u{202e}`), newlines
/// and tabs kept: what every output shows in place of the character.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = all(text);
    if bad.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8 * bad.len());
    let mut at = 0;
    for (i, c) in bad {
        out.push_str(&text[at..i]);
        match c as u32 {
            n if n < 0x80 => out.push_str(&format!("\\x{n:02x}")),
            n => out.push_str(&format!("\\u{{{n:x}}}")),
        }
        at = i + c.len_utf8();
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// `text` with the invisible characters removed (controls other than CR kept, lines never
/// joined), and for each removal the byte offset in the result where it was and how many
/// bytes went: the text the secret scanner reads, so `ghp_<ZWSP>…` is still a token.
pub fn stripped(text: &str) -> Option<(String, Vec<(usize, usize)>)> {
    let bad: Vec<(usize, char)> = all(text)
        .into_iter()
        .filter(|&(_, c)| !c.is_control())
        .collect();
    if bad.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut removed = Vec::with_capacity(bad.len());
    let mut at = 0;
    for (i, c) in bad {
        out.push_str(&text[at..i]);
        removed.push((out.len(), c.len_utf8()));
        at = i + c.len_utf8();
    }
    out.push_str(&text[at..]);
    Some((out, removed))
}

/// The offset in the original text of offset `at` in the stripped one.
pub fn original_offset(at: usize, removed: &[(usize, usize)]) -> usize {
    at + removed
        .iter()
        .take_while(|&&(p, _)| p <= at)
        .map(|&(_, n)| n)
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deceptive_characters_are_found_and_legitimate_text_passes() {
        for bad in [
            "a\u{200B}b",
            "\u{202E}gnp.exe",
            "x\u{2066}y\u{2069}",
            "\u{FEFF}title",
            "hi\u{E0069}\u{E0067}",
            "soft\u{AD}hyphen",
            "a\u{200D}b",
            "\u{200D}",
            "x\u{FE01}",
            "line\u{2028}sep",
            "esc\x1b[2J",
            "cr\ralone",
            "blank\u{2800}",
            "a\u{E0100}",
            // Found by the fuzzer (agent_render): a tag character is an emoji component, so a
            // joiner beside it passed, and stood alone once the tag was escaped.
            "\u{E0041}\u{200D}\u{200D}#",
        ] {
            assert!(first(bad).is_some(), "{bad:?} passed");
            assert!(
                first(&visible(bad)).is_none(),
                "visible({bad:?}) still holds one"
            );
        }
        for good in [
            "plain ASCII\twith tab\nand lines\r\n",
            "שלום עולם — Hebrew, right to left",
            "مرحبا بالعالم",
            "می\u{200C}خواهم",                 // Persian: ZWNJ inside a word
            "क्\u{200D}ष",                      // Devanagari: ZWJ inside a word
            "👩\u{200D}💻 pairs",              // an emoji ZWJ sequence
            "❤\u{FE0F} and 1\u{FE0F}\u{20E3}", // presentation selector, keycap
            "naïve café, 日本語, ẞ",
        ] {
            assert_eq!(first(good), None, "{good:?} refused");
        }
    }

    #[test]
    fn stripped_text_maps_back() {
        let t = "ab\u{200B}cd\u{E0041}ef";
        let (s, removed) = stripped(t).unwrap();
        assert_eq!(s, "abcdef");
        assert_eq!(&t[original_offset(s.find("ef").unwrap(), &removed)..], "ef");
        assert_eq!(
            &t[original_offset(s.find("cd").unwrap(), &removed)..],
            "cd\u{E0041}ef"
        );
    }
}
