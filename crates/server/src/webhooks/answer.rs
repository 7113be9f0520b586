//! What a delivery takes of a receiver's answer: at most [`READ_MAX`] bytes are read (a
//! receiver answering 400 MiB costs 64 KiB), and the delivery log keeps the start of it as
//! text.

/// The most of a receiver's answer that is read; the rest is never received.
pub const READ_MAX: usize = 64 * 1024;

/// The first `max` bytes of the answer's body (fewer if it ends or fails first); the rest is
/// not read: the connection is dropped with the response.
pub async fn read_at_most(mut response: reqwest::Response, max: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
            Ok(None) | Err(_) => break,
        }
    }
    body
}

/// At most `max` bytes of an answer as text: invalid UTF-8 replaced, control characters
/// escaped, cut at a character boundary.
pub fn excerpt(answer: &[u8], max: usize) -> String {
    // Every byte of the answer gives at least one byte of text: a few times `max` is enough, even
    // after leading white space is trimmed.
    let start = &answer[..answer.len().min(max.saturating_mul(4))];
    let text = crate::redact::escape_controls(String::from_utf8_lossy(start).trim());
    crate::redact::truncate(&text, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_at_most_so_many_bytes_of_text() {
        let long = excerpt("é".repeat(1000).as_bytes(), 200);
        assert!(long.len() <= 200 && long.len() >= 199, "{}", long.len());
        let binary = excerpt(&[0xff, 0xfe, b'\n', 0x1b, b'o', b'k'], 200);
        assert!(!binary.chars().any(char::is_control), "{binary:?}");
        assert!(binary.contains('\u{fffd}') && binary.ends_with("ok"), "{binary:?}");
    }
}
