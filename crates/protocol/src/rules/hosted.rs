//! The subscriber's branding of the hosted pages (`PATCH /subscriber`): the name they show and
//! the accent colour, and whether a colour keeps a page readable (WCAG contrast).

use super::Violations;

/// The longest `displayName`, in characters.
pub const DISPLAY_NAME_MAX: usize = 80;

/// The most return URLs a subscriber registers.
pub const RETURN_URLS_MAX: usize = 10;

/// The contrast WCAG asks of normal text (AA): the accent must keep it against the page.
pub const READABLE_CONTRAST: f64 = 4.5;

/// The pages' white card, which the accent sits on and whose white the button text is.
pub const PAGE_BACKGROUND: (u8, u8, u8) = (0xff, 0xff, 0xff);

/// `displayName`: trimmed, 1 to 80 characters (as sent, like every text limit), no control
/// characters.
pub fn display_name(violations: &mut Violations, value: &str) -> Option<String> {
    super::required_text(violations, "displayName", Some(value), DISPLAY_NAME_MAX)
}

/// `brandColor`: `#rrggbb` (hex digits of any case), kept in lower case.
pub fn brand_color(violations: &mut Violations, value: &str) -> Option<String> {
    if parse_color(value).is_none() {
        violations.reject("brandColor", "must be a colour written #rrggbb, e.g. #1f5fbf");
        return None;
    }
    Some(value.to_ascii_lowercase())
}

/// The red, green and blue of `#rrggbb`.
pub fn parse_color(value: &str) -> Option<(u8, u8, u8)> {
    let hex = value.strip_prefix('#')?;
    if hex.len() != 6 || !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    let channel = |at: usize| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok();
    Some((channel(0)?, channel(2)?, channel(4)?))
}

/// WCAG 2 relative luminance of an sRGB colour.
pub fn relative_luminance((red, green, blue): (u8, u8, u8)) -> f64 {
    let linear = |channel: u8| {
        let value = f64::from(channel) / 255.0;
        if value <= 0.039_28 { value / 12.92 } else { ((value + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
}

/// WCAG 2 contrast ratio of two colours, 1 to 21.
pub fn contrast(one: (u8, u8, u8), other: (u8, u8, u8)) -> f64 {
    let (a, b) = (relative_luminance(one), relative_luminance(other));
    let (lighter, darker) = if a >= b { (a, b) } else { (b, a) };
    (lighter + 0.05) / (darker + 0.05)
}

/// The accent a page may use for a brand colour: the colour itself when it keeps 4.5:1 against
/// the white page (and so under the white text of the buttons it fills), else `None` (the
/// pages keep their default accent).
pub fn readable_accent(color: &str) -> Option<(u8, u8, u8)> {
    let rgb = parse_color(color)?;
    (contrast(rgb, PAGE_BACKGROUND) >= READABLE_CONTRAST).then_some(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_is_wcag_s() {
        assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
        assert!((contrast((255, 255, 255), (255, 255, 255)) - 1.0).abs() < 1e-9);
        // #767676 on white is the classic 4.54:1.
        assert!((contrast((0x76, 0x76, 0x76), PAGE_BACKGROUND) - 4.54).abs() < 0.01);
    }

    #[test]
    fn only_readable_colours_are_accents() {
        assert_eq!(readable_accent("#ffff00"), None);
        assert_eq!(readable_accent("#777777"), None);
        assert_eq!(readable_accent("#1f5fbf"), Some((0x1f, 0x5f, 0xbf)));
        assert_eq!(readable_accent("#000000"), Some((0, 0, 0)));
        assert_eq!(readable_accent("red"), None);
    }

    #[test]
    fn fields_are_checked() {
        let mut violations = Violations::new();
        assert_eq!(display_name(&mut violations, "  Acme  "), Some("Acme".to_owned()));
        assert_eq!(brand_color(&mut violations, "#1F5FBF"), Some("#1f5fbf".to_owned()));
        assert!(violations.is_empty());
        assert_eq!(display_name(&mut violations, "   "), None);
        assert_eq!(display_name(&mut violations, &"x".repeat(81)), None);
        assert_eq!(display_name(&mut violations, "a\u{7}b"), None);
        assert_eq!(brand_color(&mut violations, "#12345"), None);
        assert_eq!(brand_color(&mut violations, "1f5fbf"), None);
        assert_eq!(brand_color(&mut violations, "#12345g"), None);
        assert_eq!(violations.details().len(), 6);
    }
}
