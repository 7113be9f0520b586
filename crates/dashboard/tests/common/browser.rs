//! The person's browser on the service's hosted pages (card entry, the sandbox bank): keeps
//! cookies, sends a page's form with its hidden fields (the CSRF token) and ticked boxes, and
//! follows the redirect after a post, as a browser does.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};

pub struct Page {
    pub url: reqwest::Url,
    pub status: StatusCode,
    pub html: String,
}

#[derive(Default)]
pub struct Browser {
    cookies: BTreeMap<String, String>,
}

impl Browser {
    fn http() -> reqwest::Client {
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("an HTTP client")
    }

    pub async fn get(&mut self, url: &str) -> Page {
        let url = reqwest::Url::parse(url).expect("a URL");
        let request = Self::http().get(url.clone());
        self.send(url, request).await
    }

    /// Submits the page's first form with its hidden fields and ticked checkboxes, `fields`
    /// replacing or adding values, and follows a redirect.
    pub async fn submit(&mut self, page: &Page, fields: &[(&str, &str)]) -> Page {
        let form = page.html.split("<form").nth(1).expect("the page has a form");
        let form_tag = form.split('>').next().unwrap_or_default();
        let action = attribute(form_tag, "action")
            .map_or_else(|| page.url.clone(), |action| page.url.join(&action).expect("an action"));
        let form = form.split("</form>").next().unwrap_or_default();
        let mut values: Vec<(String, String)> = Vec::new();
        for input in form.split("<input").skip(1) {
            let tag = input.split('>').next().unwrap_or_default();
            let Some(name) = attribute(tag, "name") else { continue };
            let kind = attribute(tag, "type").unwrap_or_default();
            let value = attribute(tag, "value").unwrap_or_default();
            let ticked = tag.split_whitespace().any(|word| word.starts_with("checked"));
            match kind.as_str() {
                "hidden" => values.push((name, value)),
                "checkbox" if ticked => values.push((name, if value.is_empty() { "on".to_owned() } else { value })),
                _ => {}
            }
        }
        for (name, value) in fields {
            values.retain(|(existing, _)| existing != name);
            values.push(((*name).to_owned(), (*value).to_owned()));
        }
        let body = serde_urlencoded::to_string(&values).expect("a form body");
        let request =
            Self::http().post(action.clone()).header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(body);
        let page = self.send(action, request).await;
        if page.status.is_redirection() {
            let location = page.html.clone();
            return Box::pin(self.get(&location)).await;
        }
        page
    }

    async fn send(&mut self, url: reqwest::Url, mut request: reqwest::RequestBuilder) -> Page {
        if !self.cookies.is_empty() {
            let cookies: Vec<String> = self.cookies.iter().map(|(name, value)| format!("{name}={value}")).collect();
            request = request.header(COOKIE, cookies.join("; "));
        }
        let response = request.send().await.expect("the page answers");
        for cookie in response.headers().get_all(SET_COOKIE) {
            let pair = cookie.to_str().unwrap_or_default().split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.insert(name.trim().to_owned(), value.trim().to_owned());
            }
        }
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers().get(LOCATION).and_then(|value| value.to_str().ok()).expect("a Location");
            // The redirect target travels in `html` so `submit` can follow it.
            return Page { html: url.join(location).expect("a target").to_string(), url, status };
        }
        let html = response.text().await.expect("a body");
        Page { url, status, html }
    }
}

/// The value of `name="…"` in a tag, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    Some(
        tag[start..end]
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}
