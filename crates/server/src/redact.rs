//! What a client sent, made fit to keep: a card number typed anywhere in a path is masked
//! whatever separates its digits, control characters cannot forge a log line, and the text is
//! bounded. A leaf: the request log, the access log and the error messages all use it.

/// The most of a client's path that is kept (the request log, the access log).
pub const PATH_MAX_BYTES: usize = 1024;

/// Runs of this many digits or more are masked: a card number has 12 to 19.
const MASKED_RUN: usize = 12;

/// Rounds of percent-decoding: `%2534` is `%34` once decoded and `4` twice.
const DECODING_ROUNDS: usize = 3;

/// A client's path as logs and the request log keep it: percent-decoded, card numbers
/// masked, control characters escaped, at most [`PATH_MAX_BYTES`].
pub fn client_path(path: &str) -> String {
    truncate(&escape_controls(&mask_card_numbers(path)), PATH_MAX_BYTES)
}

/// Every run of 12 or more digits is masked (`*`), also when its digits are split by
/// anything that is not a letter: spaces of any kind, tabs, newlines, commas, colons,
/// semicolons, dots, dashes, slashes, plus signs, raw or percent-encoded (once or more).
/// Digits of any script count (a full-width `４` is a digit too).
pub fn mask_card_numbers(text: &str) -> String {
    let decoded = percent_decoded(text);
    let characters: Vec<char> = decoded.chars().collect();
    let mut masked = String::with_capacity(decoded.len());
    let mut index = 0;
    while index < characters.len() {
        if !characters[index].is_numeric() {
            masked.push(characters[index]);
            index += 1;
            continue;
        }
        // The run: digits, and whatever is not a letter between them.
        let mut end = index;
        let mut digits = 0;
        let mut cursor = index;
        while cursor < characters.len() {
            let character = characters[cursor];
            if character.is_numeric() {
                digits += 1;
                end = cursor + 1;
            } else if character.is_alphabetic() {
                break;
            }
            cursor += 1;
        }
        for &character in &characters[index..end] {
            masked.push(if digits >= MASKED_RUN && character.is_numeric() { '*' } else { character });
        }
        index = end;
    }
    masked
}

/// `text` with every `%XX` decoded, repeatedly (a double-encoded digit is still a digit);
/// bytes that are not UTF-8 become U+FFFD.
fn percent_decoded(text: &str) -> String {
    let mut decoded = text.to_owned();
    for _ in 0..DECODING_ROUNDS {
        let next = percent_encoding::percent_decode_str(&decoded).decode_utf8_lossy().into_owned();
        if next == decoded {
            break;
        }
        decoded = next;
    }
    decoded
}

/// Control characters (C0, DEL, C1, and the Unicode line and paragraph separators) written
/// as escapes (`\r`, `\n`, `\u{1b}`): a client's text stays on its log line. A backslash is
/// doubled, so an escape in the log was a control character and never the client's text.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_owned();
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        match character {
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            character if is_control(character) => escaped.push_str(&format!("\\u{{{:x}}}", u32::from(character))),
            character => escaped.push(character),
        }
    }
    escaped
}

fn is_control(character: char) -> bool {
    character.is_control() || matches!(character, '\u{2028}' | '\u{2029}')
}

fn needs_escape(character: char) -> bool {
    // A backslash alone needs nothing: only when escapes are written must it be told apart.
    is_control(character)
}

/// At most `max` bytes of `text`, cut at a character boundary.
pub fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(text: &str) -> usize {
        text.chars().filter(|character| character.is_numeric()).count()
    }

    #[test]
    fn card_numbers_are_masked_whatever_separates_their_digits() {
        assert_eq!(mask_card_numbers("/card/4242424242424242/x"), "/card/****************/x");
        for separated in [
            "/card/4242-4242-4242-4242",
            "/card/4242%204242%204242%204242",
            "/x/4242+4242.4242 4242/y",
            "/x/4242\t4242\t4242\t4242",
            "/x/4242\n4242\r\n4242\n4242",
            "/x/4242,4242,4242,4242",
            "/x/4242:4242:4242:4242",
            "/x/4242;4242;4242;4242",
            "/x/4242\u{2003}4242\u{00a0}4242\u{202f}4242",
            "/x/4242%09%094242%0A4242%3B4242",
            "/x/4242%252D4242%252D4242%252D4242",
            "/x/4242 / 4242 / 4242 / 4242",
            "/x/\u{ff14}\u{ff12}\u{ff14}\u{ff12}4242424242424242",
        ] {
            let masked = mask_card_numbers(separated);
            assert_eq!(digits(&masked), 0, "{separated:?} -> {masked:?}");
        }
    }

    #[test]
    fn ids_and_words_are_left_alone() {
        assert_eq!(mask_card_numbers("/card/12/transactions"), "/card/12/transactions");
        assert_eq!(mask_card_numbers("/card/12/34"), "/card/12/34");
        assert_eq!(mask_card_numbers("/merchant/123456/locations/789012"), "/merchant/123456/locations/789012");
        assert_eq!(mask_card_numbers("/events/evt_1234567890"), "/events/evt_1234567890");
    }

    #[test]
    fn control_characters_cannot_start_a_line() {
        let forged = client_path("/x%0D%0A2026-01-01T00:00:00Z  INFO forged");
        assert!(!forged.contains('\n') && !forged.contains('\r'), "{forged}");
        assert!(forged.contains("\\r\\n"), "{forged}");
        assert_eq!(escape_controls("a\u{1b}[31mb\u{85}c\u{2028}"), "a\\u{1b}[31mb\\u{85}c\\u{2028}");
        assert_eq!(escape_controls("plain\\text"), "plain\\text");
        assert_eq!(escape_controls("a\\b\n"), "a\\\\b\\n");
    }

    #[test]
    fn paths_are_kept_to_a_kibibyte() {
        let long = format!("/x/{}", "é".repeat(4000));
        let kept = client_path(&long);
        assert!(kept.len() <= PATH_MAX_BYTES && kept.len() > PATH_MAX_BYTES - 4, "{}", kept.len());
    }
}
