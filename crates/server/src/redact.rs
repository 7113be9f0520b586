//! What a client sent, made fit to keep: a card number typed anywhere in a path is masked
//! whatever separates its digits, control characters cannot forge a log line, and the text is
//! bounded. A leaf: the request log, the access log and the error messages all use it.

use std::borrow::Cow;

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
pub fn mask_card_numbers(text: &str) -> Cow<'_, str> {
    // Most text has no run of 12 digits at all (ids, amounts, dates): said at once, on bytes,
    // and given back as it is, no copy.
    if text.is_ascii() && !text.contains('%') {
        return if has_long_ascii_run(text.as_bytes()) {
            Cow::Owned(mask_ascii_card_numbers(text))
        } else {
            Cow::Borrowed(text)
        };
    }
    Cow::Owned(mask_decoded_card_numbers(&percent_decoded(text)))
}

/// [`mask_card_numbers`] on text already percent-decoded, by characters (any script).
fn mask_decoded_card_numbers(decoded: &str) -> String {
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

/// [`mask_card_numbers`] on ASCII text with nothing percent-encoded, by bytes (a request's
/// answer is kept masked at every request: no copy of it as characters).
fn mask_ascii_card_numbers(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut index = 0;
    while index < bytes.len() {
        if !bytes[index].is_ascii_digit() {
            index += 1;
            continue;
        }
        // The run: digits, and whatever is not a letter between them.
        let (mut end, mut digits, mut cursor) = (index, 0, index);
        while cursor < bytes.len() && !bytes[cursor].is_ascii_alphabetic() {
            if bytes[cursor].is_ascii_digit() {
                digits += 1;
                end = cursor + 1;
            }
            cursor += 1;
        }
        if digits >= MASKED_RUN {
            bytes[index..end].iter_mut().filter(|byte| byte.is_ascii_digit()).for_each(|byte| *byte = b'*');
        }
        index = end;
    }
    // Only ASCII digits became `*`: still the ASCII text it was.
    String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Whether ASCII `bytes` hold a run of [`MASKED_RUN`] digits or more, whatever non-letters
/// split them (the rule [`mask_card_numbers`] masks by).
fn has_long_ascii_run(bytes: &[u8]) -> bool {
    let mut digits = 0;
    for byte in bytes {
        if byte.is_ascii_digit() {
            digits += 1;
            if digits >= MASKED_RUN {
                return true;
            }
        } else if byte.is_ascii_alphabetic() {
            digits = 0;
        }
    }
    false
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

/// What stands in for a value the history never keeps.
pub const MASK: &str = "[masked]";

/// Whether a field named `key` holds what is never kept: a secret, a token, a password, a
/// card's number or code, an identity document's digits.
pub fn is_secret_key(key: &str) -> bool {
    // Asked of every word of a body: lower-cased on the stack, no allocation; by bytes when
    // the name is ASCII, as the names of our own bodies are.
    let mut buffer = [0_u8; 48];
    let mut length = 0;
    if key.len() <= buffer.len() && key.is_ascii() {
        for byte in key.bytes().filter(u8::is_ascii_alphanumeric) {
            buffer[length] = byte.to_ascii_lowercase();
            length += 1;
        }
        return std::str::from_utf8(&buffer[..length]).is_ok_and(names_a_secret);
    }
    for character in key.chars() {
        if !character.is_alphanumeric() {
            continue;
        }
        if !character.is_ascii() || length == buffer.len() {
            return names_a_secret(
                &key.chars().filter(|character| character.is_alphanumeric()).collect::<String>().to_lowercase(),
            );
        }
        buffer[length] = character.to_ascii_lowercase() as u8;
        length += 1;
    }
    std::str::from_utf8(&buffer[..length]).is_ok_and(names_a_secret)
}

/// `key`, lower case and alphanumeric only, names a secret.
fn names_a_secret(key: &str) -> bool {
    /// Words that make a secret's name wherever they are in it, in one automaton: every field
    /// name of every body the history keeps is asked, and one pass over a short name costs a
    /// fraction of seven substring searches.
    static WITHIN: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new([
            "password",
            "secret",
            "token",
            "apikey",
            "authorization",
            "credential",
            "privatekey",
        ])
        .expect("seven literal words make an automaton")
    });
    matches!(key, "pan" | "pin" | "cvv" | "cvc" | "ssn" | "ssnlast4" | "dateofbirth" | "cardnumber")
        || WITHIN.is_match(key)
}

/// A request's or an answer's body as the request history keeps it, and whether it was cut:
/// JSON with every secret field's value and every card number masked (a number of 12 digits
/// or more too), at most `max` bytes. A body that is not JSON, or longer than `max`, is masked
/// as text: card numbers whatever separates their digits, and the value after any secret
/// field's name (`"password": "…"`, `token=…`).
pub fn body(bytes: &[u8], max: usize) -> MaskedBody {
    if bytes.len() <= max
        && let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        mask_json(&mut value);
        let text = value.to_string();
        return if text.len() <= max {
            MaskedBody { text, truncated: false, json: Some(value) }
        } else {
            MaskedBody { text: mask_text(&truncate(&text, max)), truncated: true, json: Some(value) }
        };
    }
    let kept = &bytes[..bytes.len().min(max)];
    let text = match std::str::from_utf8(kept) {
        Ok(text) => Cow::Borrowed(text),
        // Cut inside a character: the whole characters before it.
        Err(error) if error.error_len().is_none() => String::from_utf8_lossy(&kept[..error.valid_up_to()]),
        Err(_) => String::from_utf8_lossy(kept),
    };
    MaskedBody { text: truncate(&mask_text(&text), max), truncated: bytes.len() > max, json: None }
}

/// A body masked ([`body`]).
pub struct MaskedBody {
    pub text: String,
    /// Longer than kept.
    pub truncated: bool,
    /// The masked JSON, when the whole body was JSON.
    pub json: Option<serde_json::Value>,
}

fn mask_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if is_secret_key(key) && !field.is_null() {
                    *field = Value::String(MASK.to_owned());
                } else {
                    mask_json(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_json),
        Value::String(text) => {
            if text.contains("://") {
                *text = mask_link(text);
            }
            if text.chars().filter(|character| character.is_numeric()).count() >= MASKED_RUN {
                *text = mask_card_numbers(text).into_owned();
            }
        }
        Value::Number(number) => {
            if number_digits(number) >= MASKED_RUN {
                *value = Value::String(MASK.to_owned());
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

/// How many digits `number` is written with: counted, not written out, for the integers that
/// are most of a body's numbers.
fn number_digits(number: &serde_json::Number) -> usize {
    let count = |magnitude: u64| magnitude.checked_ilog10().map_or(1, |log| log as usize + 1);
    match (number.as_u64(), number.as_i64()) {
        (Some(magnitude), _) => count(magnitude),
        (None, Some(negative)) => count(negative.unsigned_abs()),
        (None, None) => number.to_string().chars().filter(char::is_ascii_digit).count(),
    }
}

/// A link with the value of every query parameter and its fragment masked: a hosted page's
/// link carries its one-time token there (`…/card/enter?session=…`), which opens the page.
pub fn mask_link(link: &str) -> String {
    let (link, fragment) = match link.split_once('#') {
        Some((link, _)) => (link, Some(MASK)),
        None => (link, None),
    };
    let mut masked = match link.split_once('?') {
        Some((base, query)) => {
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) => format!("{name}={MASK}"),
                    None => pair.to_owned(),
                })
                .collect();
            format!("{base}?{}", pairs.join("&"))
        }
        None => link.to_owned(),
    };
    if let Some(fragment) = fragment {
        masked.push('#');
        masked.push_str(fragment);
    }
    masked
}

/// Text masked: card numbers, and the value after each secret field's name.
pub fn mask_text(text: &str) -> String {
    let masked = mask_card_numbers(text);
    if masked.is_ascii() { mask_values_ascii(&masked) } else { mask_values(&masked) }
}

/// Whether a field named `name` is masked in text: a secret's, or a hosted link's token
/// (`session=`, `link=`).
fn masks_value_of(name: &str) -> bool {
    is_secret_key(name) || ["session", "link"].iter().any(|word| name.eq_ignore_ascii_case(word))
}

/// [`mask_values`] on ASCII text, by bytes: what it keeps is copied in spans.
fn mask_values_ascii(masked: &str) -> String {
    let bytes = masked.as_bytes();
    let length = bytes.len();
    let mut kept = String::with_capacity(length);
    let (mut index, mut copied_to) = (0, 0);
    while index < length {
        if !(bytes[index].is_ascii_alphanumeric() || bytes[index] == b'_') {
            index += 1;
            continue;
        }
        let start = index;
        while index < length && (bytes[index].is_ascii_alphanumeric() || matches!(bytes[index], b'_' | b'-')) {
            index += 1;
        }
        // Only a name followed by `:` or `=` has a value; the separator is cheaper to look at.
        let mut cursor = index;
        while cursor < length && matches!(bytes[cursor], b'"' | b'\'' | b' ' | b'\t') {
            cursor += 1;
        }
        if cursor >= length || !matches!(bytes[cursor], b':' | b'=') || !masks_value_of(&masked[start..index]) {
            continue;
        }
        cursor += 1;
        while cursor < length && matches!(bytes[cursor], b' ' | b'\t') {
            cursor += 1;
        }
        let quote = bytes.get(cursor).copied().filter(|byte| matches!(byte, b'"' | b'\''));
        if quote.is_some() {
            cursor += 1;
        }
        let value_start = cursor;
        while cursor < length {
            let byte = bytes[cursor];
            let ends = match quote {
                Some(quote) => byte == quote && bytes[cursor - 1] != b'\\',
                None => matches!(
                    byte,
                    b'&' | b',' | b';' | b'}' | b']' | b'"' | b'\'' | b'#' | b' ' | b'\t' | b'\n' | b'\r'
                ),
            };
            if ends {
                break;
            }
            cursor += 1;
        }
        if cursor > value_start {
            kept.push_str(&masked[copied_to..value_start]);
            kept.push_str(MASK);
            copied_to = cursor;
        }
        index = cursor;
    }
    kept.push_str(&masked[copied_to..]);
    kept
}

/// The value after each secret field's name masked (`"password": "…"`, `token=…`), any text.
fn mask_values(masked: &str) -> String {
    let characters: Vec<char> = masked.chars().collect();
    let mut kept = String::with_capacity(masked.len());
    let mut index = 0;
    while index < characters.len() {
        // A name: a run of letters, digits, `_` and `-`.
        if !(characters[index].is_alphanumeric() || characters[index] == '_') {
            kept.push(characters[index]);
            index += 1;
            continue;
        }
        let start = index;
        while index < characters.len()
            && (characters[index].is_alphanumeric() || matches!(characters[index], '_' | '-'))
        {
            index += 1;
        }
        let name: String = characters[start..index].iter().collect();
        kept.push_str(&name);
        // `session=`, `link=`: a hosted page's link carries its one-time token so.
        if !masks_value_of(&name) {
            continue;
        }
        // `"name" : "value"`, `name=value`, `name: value`: up to the separator, kept; the
        // value, masked.
        let mut cursor = index;
        while cursor < characters.len() && matches!(characters[cursor], '"' | '\'' | ' ' | '\t') {
            cursor += 1;
        }
        if cursor >= characters.len() || !matches!(characters[cursor], ':' | '=') {
            continue;
        }
        cursor += 1;
        while cursor < characters.len() && matches!(characters[cursor], ' ' | '\t') {
            cursor += 1;
        }
        let quote = characters.get(cursor).copied().filter(|character| matches!(character, '"' | '\''));
        if quote.is_some() {
            cursor += 1;
        }
        kept.extend(&characters[index..cursor]);
        let value_start = cursor;
        while cursor < characters.len() {
            let character = characters[cursor];
            let ends = match quote {
                Some(quote) => character == quote && characters[cursor - 1] != '\\',
                None => matches!(character, '&' | ',' | ';' | '}' | ']' | '"' | '\'' | '#' | ' ' | '\t' | '\n' | '\r'),
            };
            if ends {
                break;
            }
            cursor += 1;
        }
        if cursor > value_start {
            kept.push_str(MASK);
        }
        index = cursor;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(text: &str) -> usize {
        text.chars().filter(|character| character.is_numeric()).count()
    }

    /// The byte path for ASCII text masks what the character path masks.
    #[test]
    fn ascii_text_is_masked_by_bytes_as_by_characters() {
        let samples = [
            r#"{"transactions":[{"transactionId":2359,"amount":-12.5,"latitude":37.77493,"longitude":-122.41942}]}"#,
            "4242 4242 4242 4242 and 4000-0566-5566-5556, 12345678901 x 123456789012",
            "[2359,2401,2443,2491,2526,2560,2598,2638,2674,2714,2755,2797,2831]",
            "2026-11-05T10:32:11Z 2026-11-05 10:32:11.123456 +00:00",
            "a1b2c3d4e5f6g7h8i9j0k1l2m3 9 8 7 6 5 4 3 2 1 0 9 8",
            "",
            "no digits at all",
        ];
        for sample in samples {
            assert_eq!(mask_ascii_card_numbers(sample), mask_decoded_card_numbers(sample), "{sample}");
        }
        assert_eq!(mask_card_numbers("[2359,2401,2443,2491]"), "[****,****,****,****]", "16 digits, no letter");
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

    #[test]
    fn bodies_keep_no_secret_and_no_card_number() {
        let sent = br#"{"pan":"4242 4242 4242 4242","firstName":"Ada","password":"hunter2","nested":{"accessToken":"eyJ.x.y","cardId":12},"note":"card 4242-4242-4242-4242 please","raw":4242424242424242,"amount":12.5}"#;
        let MaskedBody { text: kept, truncated, .. } = body(sent, 16 * 1024);
        assert!(!truncated);
        assert!(!kept.contains("hunter2") && !kept.contains("eyJ") && digits(&kept) < 12, "{kept}");
        assert!(
            kept.contains(r#""firstName":"Ada""#) && kept.contains(r#""cardId":12"#) && kept.contains("12.5"),
            "{kept}"
        );
        for text in [
            "password=hunter2&email=a@b.c",
            "token: abc.def",
            r#"{"url":"https://x/enter?session=abc.def"}"#,
            r#"{"clientSecret" : "s3cr3t", "x": 1"#,
            r#"'api_key'='k-123'"#,
        ] {
            let kept = body(text.as_bytes(), 16 * 1024).text;
            for secret in ["hunter2", "abc.def", "s3cr3t", "k-123"] {
                assert!(!kept.contains(secret), "{text:?} -> {kept:?}");
            }
        }
        let kept = body(br#"{"url":"https://pay.example/card/enter?session=abc123XYZ&x=1#frag"}"#, 16 * 1024).text;
        assert_eq!(kept, r#"{"url":"https://pay.example/card/enter?session=[masked]&x=[masked]#[masked]"}"#);
        let long = format!(r#"{{"secret":"{}","pan":"4242424242424242"}}"#, "s".repeat(40_000));
        let MaskedBody { text: kept, truncated, .. } = body(long.as_bytes(), 16 * 1024);
        assert!(truncated && kept.len() <= 16 * 1024 && !kept.contains("sss"), "{}", &kept[..40]);
    }

    #[test]
    fn a_card_number_in_a_body_is_masked_whatever_separates_its_digits() {
        for separator in
            [" ", "-", ".", ",", ":", ";", "/", "+", "\t", "\n", "\r\n", "%20", "%252D", "\u{00a0}", "\u{2003}", " / "]
        {
            let number = ["4242", "4242", "4242", "4242"].join(separator);
            for sent in [
                format!(r#"{{"note":"{}"}}"#, number.replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t")),
                format!("note={number}"),
            ] {
                let kept = body(sent.as_bytes(), 16 * 1024).text;
                assert!(digits(&kept) < 12, "{separator:?}: {sent:?} -> {kept:?}");
            }
        }
    }

    #[test]
    fn numbers_are_counted_as_written_and_names_as_spelt() {
        for (number, digits) in [(0_i64, 1), (9, 1), (10, 2), (-123_456_789_012, 12), (i64::MIN, 19)] {
            assert_eq!(number_digits(&serde_json::Number::from(number)), digits, "{number}");
        }
        assert_eq!(number_digits(&serde_json::Number::from(u64::MAX)), 20);
        let long = serde_json::Number::from_f64(4_242_424_242.424_2).expect("finite");
        assert_eq!(number_digits(&long), 14);
        for name in ["api_key", "X-Api-Key", "clientSecret", "PASSWORD", "card_number", "ssnLast4", "PAN"] {
            assert!(is_secret_key(name), "{name}");
        }
        for name in ["cardId", "panel", "lastFour", "merchantName", "pinned", "company"] {
            assert!(!is_secret_key(name), "{name}");
        }
        // A name longer than the stack buffer, or not ASCII, is asked the same way.
        assert!(is_secret_key(&format!("{}Token", "a".repeat(60))));
        assert!(is_secret_key("pässword_token"));
    }

    #[test]
    fn a_body_cut_inside_a_character_keeps_the_characters_before_it() {
        let body_text = format!("{}é", "a".repeat(9));
        let masked = body(body_text.as_bytes(), 10);
        assert_eq!(masked.text, "a".repeat(9));
        assert!(masked.truncated);
    }

    #[test]
    fn the_fast_ascii_masking_masks_as_the_general_one() {
        for text in [
            r#"{"password":"hunter2","x":1,"token" : 'abc', "note":"a\"b"}"#,
            "password=hunter2&email=a@b.c&session=xyz#f",
            "token: abc.def, secret=s3;link=l1",
            r#"[{"amount":12.5,"createdAt":"2026-11-28T10:10:21Z","transactionId":123}]"#,
            "nothing secret here, 4242 4242 4242 4242",
        ] {
            let masked = mask_card_numbers(text);
            assert_eq!(mask_values_ascii(&masked), mask_values(&masked), "{text}");
        }
        assert_eq!(mask_card_numbers("/card/12/transactions?from=2026-01-01"), "/card/12/transactions?from=2026-01-01");
    }
}
