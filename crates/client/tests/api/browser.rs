//! The hosted pages (card entry, the sandbox bank) are for a person's browser, not for the
//! client: this drives them the way a browser would (cookies, the form's hidden fields, its
//! checkboxes, one redirect), and records which routes it used.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::header::{CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use reqwest::{StatusCode, Url};

pub struct Page {
    pub url: Url,
    pub status: StatusCode,
    pub html: String,
}

pub struct Browser {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
    /// The routes the browser hit, as `(method, template)` of `served`.
    pub visited: BTreeSet<(String, String)>,
    served: BTreeSet<(String, String)>,
}

impl Browser {
    pub fn new(served: BTreeSet<(String, String)>) -> Self {
        let http =
            reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("an HTTP client");
        Self { http, cookies: BTreeMap::new(), visited: BTreeSet::new(), served }
    }

    pub async fn get(&mut self, url: &str) -> Page {
        let url = Url::parse(url).expect("a URL");
        let request = self.http.get(url.clone());
        let page = self.send("GET", url, request).await;
        self.load_stylesheets(&page).await;
        page
    }

    /// Submits the page's (first) form with its hidden fields, its ticked checkboxes and
    /// `fields`, and follows a redirect.
    pub async fn submit(&mut self, page: &Page, fields: &[(&str, &str)]) -> Page {
        let form = page.html.split("<form").nth(1).expect("the page has a form");
        let form_tag = form.split('>').next().unwrap_or_default();
        let action = attribute(form_tag, "action")
            .map_or_else(|| page.url.clone(), |action| page.url.join(&action).expect("an action"));
        let form = form.split("</form>").next().unwrap_or_default();
        let mut values: Vec<(String, String)> = Vec::new();
        for input in form.split("<input").skip(1) {
            let tag = input.split('>').next().unwrap_or_default();
            let (Some(name), kind) = (attribute(tag, "name"), attribute(tag, "type").unwrap_or_default()) else {
                continue;
            };
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
            self.http.post(action.clone()).header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(body);
        let page = self.send("POST", action, request).await;
        if page.status == StatusCode::SEE_OTHER || page.status == StatusCode::FOUND {
            let location = page.html.clone();
            return Box::pin(self.get(&location)).await;
        }
        page
    }

    async fn send(&mut self, method: &str, url: Url, mut request: reqwest::RequestBuilder) -> Page {
        if !self.cookies.is_empty() {
            let cookies: Vec<String> = self.cookies.iter().map(|(name, value)| format!("{name}={value}")).collect();
            request = request.header(COOKIE, cookies.join("; "));
        }
        let response = request.send().await.expect("the page answers");
        self.record(method, url.path());
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

    async fn load_stylesheets(&mut self, page: &Page) {
        for link in page.html.split("<link").skip(1) {
            let tag = link.split('>').next().unwrap_or_default();
            if attribute(tag, "rel").as_deref() == Some("stylesheet")
                && let Some(href) = attribute(tag, "href")
            {
                let url = page.url.join(&href).expect("a stylesheet URL");
                let response = self.http.get(url.clone()).send().await.expect("the stylesheet answers");
                assert_eq!(response.status(), StatusCode::OK, "{url}");
                self.record("GET", url.path());
            }
        }
    }

    fn record(&mut self, method: &str, path: &str) {
        let template = self
            .served
            .iter()
            .filter(|(served_method, template)| served_method == method && path_matches(template, path))
            .map(|(_, template)| template.clone())
            .min_by_key(|template| template.matches('{').count())
            .unwrap_or_else(|| panic!("no {method} route serves {path}"));
        self.visited.insert((method.to_owned(), template));
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

pub fn path_matches(template: &str, path: &str) -> bool {
    let template: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let path: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    template.len() == path.len()
        && template.iter().zip(&path).all(|(expected, actual)| {
            (expected.starts_with('{') && expected.ends_with('}') && !actual.is_empty()) || expected == actual
        })
}
