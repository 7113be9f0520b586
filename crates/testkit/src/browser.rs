//! A person's browser on the service's hosted pages (card entry, the sandbox bank, the API
//! docs): it keeps the cookies the service sets, follows no redirect on its own (a test sees
//! each step), and can fill a page's form the way a browser sends it (hidden fields such as the
//! CSRF token, ticked checkboxes, then the redirect after the post).
//!
//! One implementation, two faces: [`Browser`] for async tests, [`BlockingBrowser`] for the
//! synchronous black-box suite.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, COOKIE, HeaderMap, LOCATION, SET_COOKIE};
use reqwest::{StatusCode, Url};

/// A page as the browser got it. For a redirect, `body` is empty and [`Page::location`] says
/// where it leads.
pub struct Page {
    pub url: Url,
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Page {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default()
    }

    /// The redirect target as sent (a path on the service).
    pub fn location(&self) -> &str {
        self.header(LOCATION.as_str())
    }

    /// The value of the form's hidden CSRF field.
    pub fn csrf(&self) -> String {
        let marker = "name=\"csrf\" value=\"";
        let start = self.body.find(marker).unwrap_or_else(|| panic!("no csrf field in {}", self.body)) + marker.len();
        self.body[start..].split('"').next().unwrap_or_default().to_owned()
    }

    /// The fields a browser sends when the page's first form is submitted: its hidden fields
    /// and ticked checkboxes, then `fields` (replacing or adding values); and where it goes.
    fn form_submission(&self, fields: &[(&str, &str)]) -> (Url, Vec<(String, String)>) {
        let form = self.body.split("<form").nth(1).expect("the page has a form");
        let form_tag = form.split('>').next().unwrap_or_default();
        let action = attribute(form_tag, "action")
            .map_or_else(|| self.url.clone(), |action| self.url.join(&action).expect("an action"));
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
        (action, values)
    }
}

pub struct Browser {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
    /// The routes the browser hit, as `(method, template)` of the served routes it was given.
    pub visited: BTreeSet<(String, String)>,
    /// When set, every request is matched to one of these routes (and pages' stylesheets are
    /// fetched too, as a browser does), for route-coverage checks.
    served: Option<BTreeSet<(String, String)>>,
}

impl Default for Browser {
    fn default() -> Self {
        Self::new()
    }
}

impl Browser {
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(60))
            .build()
            .expect("an HTTP client");
        Self { http, cookies: BTreeMap::new(), visited: BTreeSet::new(), served: None }
    }

    /// A browser that records which of `served` (method, template) it used.
    pub fn recording(served: BTreeSet<(String, String)>) -> Self {
        Self { served: Some(served), ..Self::new() }
    }

    pub async fn get(&mut self, url: &str) -> Page {
        let url = Url::parse(url).expect("a URL");
        let request = self.http.get(url.clone());
        let page = self.send("GET", url, request).await;
        if self.served.is_some() {
            self.load_stylesheets(&page).await;
        }
        page
    }

    /// Posts `fields` as a form (`application/x-www-form-urlencoded`) and returns the answer
    /// as is, a redirect included.
    pub async fn post_form(&mut self, url: &str, fields: &[(&str, &str)]) -> Page {
        let url = Url::parse(url).expect("a URL");
        let pairs: Vec<(String, String)> =
            fields.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect();
        self.post_pairs(url, &pairs).await
    }

    /// Submits the page's first form as a browser does (see [`Page`]) and follows a redirect.
    pub async fn submit(&mut self, page: &Page, fields: &[(&str, &str)]) -> Page {
        let (action, values) = page.form_submission(fields);
        let answer = self.post_pairs(action, &values).await;
        if answer.status.is_redirection() {
            let target = answer.url.join(answer.location()).expect("a redirect target");
            return Box::pin(self.get(target.as_str())).await;
        }
        answer
    }

    async fn post_pairs(&mut self, url: Url, pairs: &[(String, String)]) -> Page {
        let body = serde_urlencoded::to_string(pairs).expect("a form body");
        let request = self.http.post(url.clone()).header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(body);
        self.send("POST", url, request).await
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
        let headers = response.headers().clone();
        let body = response.text().await.expect("a body");
        Page { url, status, headers, body }
    }

    async fn load_stylesheets(&mut self, page: &Page) {
        for link in page.body.split("<link").skip(1) {
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
        let Some(served) = &self.served else { return };
        let template = served
            .iter()
            .filter(|(served_method, template)| served_method == method && path_matches(template, path))
            .map(|(_, template)| template.clone())
            .min_by_key(|template| template.matches('{').count())
            .unwrap_or_else(|| panic!("no {method} route serves {path}"));
        self.visited.insert((method.to_owned(), template));
    }
}

/// The same browser for synchronous tests: each call runs on the browser's own runtime.
pub struct BlockingBrowser {
    runtime: tokio::runtime::Runtime,
    browser: Browser,
}

impl Default for BlockingBrowser {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockingBrowser {
    pub fn new() -> Self {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime for the browser");
        // The HTTP client is made inside the runtime that drives it.
        let browser = runtime.block_on(async { Browser::new() });
        Self { runtime, browser }
    }

    pub fn get(&mut self, url: &str) -> Page {
        self.runtime.block_on(self.browser.get(url))
    }

    pub fn post_form(&mut self, url: &str, fields: &[(&str, &str)]) -> Page {
        self.runtime.block_on(self.browser.post_form(url, fields))
    }

    pub fn submit(&mut self, page: &Page, fields: &[(&str, &str)]) -> Page {
        self.runtime.block_on(self.browser.submit(page, fields))
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

/// Whether `path` is an instance of the route `template` (`/card/{card_id}` and `/card/7`).
pub fn path_matches(template: &str, path: &str) -> bool {
    let template: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let path: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    template.len() == path.len()
        && template.iter().zip(&path).all(|(expected, actual)| {
            (expected.starts_with('{') && expected.ends_with('}') && !actual.is_empty()) || expected == actual
        })
}
