//! The screens the app opens by name, one grammar for all who name them: a deep link
//! (`subscriber-data://card/12`), a notification, the screen kept for the next sign-in, the
//! command palette. A name the grammar does not know opens nothing.

/// The URL scheme the app is registered for (the `.deb` names it in the desktop entry).
pub const SCHEME: &str = "subscriber-data";

/// Screens without an id.
const SCREENS: [&str; 9] =
    ["overview", "cards", "merchant", "lookup", "accounts", "identity", "developers", "credentials", "settings"];

/// Screens of one item, by the item's numeric id: `card/12`, `merchant/location/3`, `person/7`.
const ITEMS: [&str; 5] = ["card/", "account/", "merchant/location/", "developers/webhook/", "person/"];

fn numeric_id(text: &str) -> bool {
    !text.is_empty() && text.len() <= 18 && text.bytes().all(|byte| byte.is_ascii_digit()) && !text.starts_with('0')
}

/// Whether `route` names a screen of the app: `overview`, `card/12`, `merchant/location/3`,
/// `developers/webhook/2`, `account/5`, `person/7`, `event/evt_41`.
pub fn known_route(route: &str) -> bool {
    SCREENS.contains(&route)
        || ITEMS.iter().any(|prefix| route.strip_prefix(prefix).is_some_and(numeric_id))
        || route.strip_prefix("event/evt_").is_some_and(numeric_id)
}

/// The screen a `subscriber-data://…` link opens, or `None` for any other link. Case is ignored
/// in the scheme, a trailing slash, a query and a fragment are.
pub fn route_of_link(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    if !scheme.eq_ignore_ascii_case(SCHEME) {
        return None;
    }
    let path = rest.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    known_route(path).then(|| path.to_owned())
}

/// The link that opens `route` (for the hosted pages' "Return to Subscriber Data").
pub fn link_to(route: &str) -> Option<String> {
    known_route(route).then(|| format!("{SCHEME}://{route}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_open_the_screens_the_app_knows() {
        let cases = [
            ("subscriber-data://card/12", Some("card/12")),
            ("Subscriber-Data://card/12/", Some("card/12")),
            ("subscriber-data://merchant/location/3?from=page", Some("merchant/location/3")),
            ("subscriber-data://developers/webhook/2", Some("developers/webhook/2")),
            ("subscriber-data://event/evt_41", Some("event/evt_41")),
            ("subscriber-data://account/5#x", Some("account/5")),
            ("subscriber-data://person/7", Some("person/7")),
            ("subscriber-data://overview", Some("overview")),
            ("subscriber-data://card/", None),
            ("subscriber-data://card/012", None),
            ("subscriber-data://card/-1", None),
            ("subscriber-data://card/12/../admin", None),
            ("subscriber-data://event/41", None),
            ("subscriber-data://https://example.com", None),
            ("https://card/12", None),
            ("card/12", None),
            ("", None),
        ];
        for (link, route) in cases {
            assert_eq!(route_of_link(link).as_deref(), route, "{link}");
        }
    }

    #[test]
    fn every_known_route_has_a_link() {
        assert_eq!(link_to("card/7").as_deref(), Some("subscriber-data://card/7"));
        assert_eq!(link_to("nowhere"), None);
        assert!(known_route("settings") && known_route("developers/webhook/9"));
    }
}
