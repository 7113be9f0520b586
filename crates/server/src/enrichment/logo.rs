//! Brand logos drawn by the service: a monogram (the name's initials) on a rounded square in
//! the brand's colour. Nothing is downloaded; the same brand draws the same bytes on every
//! instance, so the `ETag` (a digest of them) is the same everywhere too.

use sha2::{Digest, Sha256};

use subscriber_protocol::markup::escaped;

use crate::directory::brands;

/// The SVG of a brand's logo.
pub fn svg(brand_id: &str, name: &str) -> String {
    let initials = initials(name);
    let colour = brands::colour(brand_id);
    let size = if initials.chars().count() > 1 { 26 } else { 32 };
    let label = escaped(name);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\" viewBox=\"0 0 64 64\" role=\"img\" \
         aria-label=\"{label}\"><title>{label}</title><rect width=\"64\" height=\"64\" rx=\"14\" fill=\"{colour}\"/>\
         <text x=\"32\" y=\"32\" dy=\"0.35em\" text-anchor=\"middle\" font-family=\"-apple-system, 'Segoe UI', \
         Roboto, Helvetica, Arial, sans-serif\" font-size=\"{size}\" font-weight=\"600\" fill=\"#ffffff\">{}</text></svg>",
        escaped(&initials)
    )
}

/// A strong `ETag` of the logo's bytes.
pub fn etag(svg: &str) -> String {
    let digest = Sha256::digest(svg.as_bytes());
    format!("\"{}\"", hex::encode(&digest[..12]))
}

/// Whether an `If-None-Match` header holds this tag (or `*`); weak tags compare too.
pub fn matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
}

/// Up to two letters: the first of the first two words (a leading `The` aside), or the first
/// two of a single word. `?` when the name has no letter or digit.
fn initials(name: &str) -> String {
    let words: Vec<String> = name
        .split(|c: char| c.is_whitespace() || c == '-' || c == '&' || c == '/')
        .map(|word| word.chars().filter(|c| c.is_alphanumeric()).collect::<String>())
        .filter(|word| !word.is_empty())
        .collect();
    let words: Vec<&String> = match words.split_first() {
        Some((first, rest)) if first.eq_ignore_ascii_case("the") && !rest.is_empty() => rest.iter().collect(),
        _ => words.iter().collect(),
    };
    let mut letters = String::new();
    match words.as_slice() {
        [] => letters.push('?'),
        [only] => letters.extend(only.chars().take(2)),
        [first, second, ..] => {
            letters.extend(first.chars().take(1));
            letters.extend(second.chars().take(1));
        }
    }
    letters.to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monograms_take_the_names_initials() {
        assert_eq!(initials("Blue Heron Coffee"), "BH");
        assert_eq!(initials("The Golden Fork"), "GF");
        assert_eq!(initials("StreamBox"), "ST");
        assert_eq!(initials("Café Kranich"), "CK");
        assert_eq!(initials("Bean & Leaf Coffee"), "BL");
        assert_eq!(initials("***"), "?");
    }

    #[test]
    fn names_are_escaped_inside_the_svg() {
        let drawn = svg("brd_0123456789abcdef", "<script>alert('x')</script> & \"Co\"");
        assert!(!drawn.contains("<script>"), "{drawn}");
        assert!(drawn.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Co&quot;"), "{drawn}");
        assert!(drawn.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn tags_are_stable_and_compared_as_clients_send_them() {
        let drawn = svg("brd_0123456789abcdef", "Blue Heron Coffee");
        let tag = etag(&drawn);
        assert_eq!(tag, etag(&svg("brd_0123456789abcdef", "Blue Heron Coffee")));
        assert!(matches(&tag, &tag));
        assert!(matches(&format!("W/{tag}, \"other\""), &tag));
        assert!(matches("*", &tag));
        assert!(!matches("\"other\"", &tag));
    }
}
