//! Text written into markup someone else parses: an SVG the service draws (a brand's logo) and
//! a desktop notification's body (GLib markup). Both carry names other people chose, so both
//! escape the same way, here.

/// `text` with the characters markup gives a meaning to (`&`, `<`, `>`, quotes) written as
/// entities, as GLib's `g_markup_escape_text` does, and the control characters XML 1.0 does not
/// allow left out: shown as typed, never as markup. The result is valid in XML content and in
/// attribute values, and in GLib markup.
pub fn escaped(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn markup_is_shown_as_typed() {
        assert_eq!(
            escaped("<b>Caf\u{e9}</b> & <a href=\"x\">'pay'</a>"),
            "&lt;b&gt;Caf\u{e9}&lt;/b&gt; &amp; &lt;a href=&quot;x&quot;&gt;&#39;pay&#39;&lt;/a&gt;"
        );
        assert_eq!(escaped("&amp;"), "&amp;amp;", "an entity typed is shown as typed");
        assert_eq!(escaped("a\u{0}b\u{1b}c\td"), "abc\td", "what XML 1.0 forbids is left out");
    }
}
