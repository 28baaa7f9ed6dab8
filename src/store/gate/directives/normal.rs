//! The text the directive rules read: what a reader sees, not how it was spelled (invisible
//! characters, compatibility forms, look-alike letters, spliced shell words, odd spacing).

/// The text the rules read: invisible characters removed, lower case, look-alike letters and
/// dashes folded (`fold`; patterns for other scripts are written against the folded text),
/// each run of spaces and tabs one space (lines kept, so a finding's line is the text's).
pub(super) fn normal(text: &str) -> String {
    let clean =
        crate::store::gate::chars::stripped(text).map_or_else(|| text.to_string(), |(t, _)| t);
    // Compatibility forms as the letters they display (`ｃｕｒｌ`, `𝐜𝐮𝐫𝐥`, `ﬁ`): NFKC, which
    // keeps line breaks, so a finding's line is still the text's. ASCII needs none.
    let clean = if clean.is_ascii()
        || unicode_normalization::is_nfkc_quick(clean.chars())
            == unicode_normalization::IsNormalized::Yes
    {
        clean
    } else {
        unicode_normalization::UnicodeNormalization::nfkc(clean.as_str()).collect()
    };
    let mut out = String::with_capacity(clean.len());
    let mut word = String::new();
    let mut space = false;
    // A word that mixes Latin letters with look-alikes from another script (`Ignоre`) is read
    // as Latin; a word all in one script (Russian, Greek) is left as it is. A word a shell
    // would splice from quoted pieces (`cu"r"l`, `c\url`, `ba''sh`) is read as the command it
    // makes when it makes one of `SPLICED`; other words keep their quotes (`don't`).
    let flush = |word: &mut String, out: &mut String| {
        let spliced: String = word.chars().filter(|c| !SPLICE.contains(c)).collect();
        let word_ref = if spliced.len() != word.len() && SPLICED.contains(&spliced.as_str()) {
            &spliced
        } else {
            &*word
        };
        let latin = word_ref.chars().any(|c| c.is_ascii_alphabetic());
        let other = word_ref.chars().any(|c| c.is_alphabetic() && !c.is_ascii());
        if latin && other {
            out.extend(word_ref.chars().map(fold_letter));
        } else {
            out.push_str(word_ref);
        }
        word.clear();
    };
    let chars: Vec<char> = clean.chars().map(fold).collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
            space = false;
            continue;
        }
        if SPLICE.contains(&c)
            && !word.is_empty()
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_alphanumeric() || SPLICE.contains(n))
        {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        // Every space but a line break is a space (U+2028, no-break, ideographic, CR): words
        // joined by any of them are read as words.
        if c != '\n' && c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            space = false;
            out.extend(c.to_lowercase());
        }
    }
    flush(&mut word, &mut out);
    out
}

/// What a shell removes when it joins a word from pieces.
const SPLICE: [char; 3] = ['"', '\'', '\\'];

/// Commands the rules name that a spliced word is read as.
const SPLICED: &[&str] = &[
    "curl", "wget", "bash", "sh", "zsh", "base64", "iex", "iwr", "irm", "eval", "rm", "python",
    "python3", "node", "scp", "nc",
];

/// A character as the rules read it: every space a space, every dash a hyphen.
fn fold(c: char) -> char {
    match c {
        c if c != '\n' && c.is_whitespace() => ' ',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe58}' | '\u{fe63}' | '\u{ff0d}' => '-',
        c => c,
    }
}

/// A Cyrillic or Greek letter that looks like a Latin one, as that Latin letter (lower case).
fn fold_letter(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'е' | 'ε' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' | 'χ' => 'x',
        'і' | 'ι' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'к' | 'κ' => 'k',
        'м' => 'm',
        'н' | 'η' => 'h',
        'т' | 'τ' => 't',
        'в' | 'β' => 'b',
        'ν' => 'v',
        c => c,
    }
}
