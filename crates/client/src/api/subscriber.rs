//! Subscriber account: signup, login, profile, secret rotation, usage; and the API document.

use std::time::Duration;

use reqwest::Method;
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::{
    RotateSecretRequest, RotateSecretResponse, SignupRequest, SignupResponse, SubscriberProfile,
    UpdateSubscriberRequest, UsageResponse,
};

use crate::auth::Secret;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::routes::{self, Safety};
use crate::transport::{Call, decode};
use crate::validate;

/// The token a login obtained, without the token itself (see [`Client::token`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    /// `validitySeconds` of the login answer.
    pub validity: Duration,
}

impl Client {
    /// `POST /subscriber/signup`: a new subscriber account. The `secret` in the answer is shown
    /// once; build a client with it (`credentials(email, secret)`). Needs no token. Never
    /// repeated by the client: a repeat would find the e-mail taken and the secret lost.
    pub async fn signup(&self, email: &str) -> Result<SignupResponse> {
        validate::email("email", email)?;
        let call = Call::new(&routes::SIGNUP, "/subscriber/signup").json(&SignupRequest { email: email.to_owned() })?;
        self.inner.call(call).await
    }

    /// `POST /subscriber/login` with the client's credentials, now, even when a token is held.
    /// Calls log in by themselves when needed; this is for checking credentials early.
    pub async fn login(&self) -> Result<Session> {
        let token = self.inner.auth.force_login(self.inner.as_ref()).await?;
        Ok(Session { validity: token.validity.unwrap_or_default() })
    }

    /// `GET /subscriber`: the caller's account.
    pub async fn subscriber(&self) -> Result<SubscriberProfile> {
        self.inner.call(Call::new(&routes::SUBSCRIBER, "/subscriber")).await
    }

    /// `PATCH /subscriber`: pins the account to `version`, the version requests without a
    /// `Subscriber-Version` header get (this client always sends one: the newest).
    pub async fn set_api_version(&self, version: ApiVersion) -> Result<SubscriberProfile> {
        self.update_subscriber(&UpdateSubscriberRequest::pin(version.as_str())).await
    }

    /// `PATCH /subscriber` with any of `apiVersion`, `displayName` (1 to 80 characters),
    /// `brandColor` (`#rrggbb`) and `returnUrls` (replacing the list: at most 10 https URLs);
    /// the fields left `None` stay as they are. At least one must be given.
    pub async fn update_subscriber(&self, request: &UpdateSubscriberRequest) -> Result<SubscriberProfile> {
        validate::branding(request)?;
        self.inner.call(Call::new(&routes::UPDATE_SUBSCRIBER, "/subscriber").json(request)?).await
    }

    /// `POST /subscriber/secret/rotate` with the secret in use now (a token alone cannot
    /// rotate): a new secret; the old one stops working and every token issued before is
    /// revoked. The client keeps the new secret and logs in with it at its next call. Never
    /// retried (a repeat would rotate again).
    pub async fn rotate_secret(&self, current_secret: &str) -> Result<RotateSecretResponse> {
        let request = RotateSecretRequest { current_secret: current_secret.to_owned() };
        let call = Call::new(&routes::ROTATE_SECRET, "/subscriber/secret/rotate").json(&request)?;
        let rotated: RotateSecretResponse = self.inner.call(call).await?;
        self.inner.auth.set_secret(Secret::new(rotated.secret.clone()));
        self.inner.auth.forget_token().await;
        Ok(rotated)
    }

    /// `GET /subscriber/usage`: billable request counts by day and endpoint.
    pub async fn usage(&self) -> Result<UsageResponse> {
        self.inner.call(Call::new(&routes::USAGE, "/subscriber/usage")).await
    }

    /// `GET /openapi.json`: the service's OpenAPI 3.1 document.
    pub async fn openapi(&self) -> Result<serde_json::Value> {
        self.inner.call(Call::new(&routes::OPENAPI, "/openapi.json")).await
    }

    /// Sends one request as written (the API shell): `method` on `path_and_query` (starting with
    /// `/`), the raw `body` as JSON, in API `version` (this client's when `None`), with the
    /// client's token; sent once, never retried. Whatever the status, the answer comes back.
    pub async fn send_raw(
        &self,
        method: Method,
        path_and_query: &str,
        body: Option<Vec<u8>>,
        version: Option<subscriber_protocol::versions::ApiVersion>,
    ) -> Result<RawAnswer> {
        if !path_and_query.starts_with('/') || path_and_query.starts_with("//") {
            return Err(Error::invalid("path", format!("must start with one '/', not {path_and_query:?}")));
        }
        let (path, query) = match path_and_query.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (path_and_query, None),
        };
        let call = Call {
            method,
            template: path.to_owned(),
            authenticated: true,
            safety: Safety::Unsafe,
            path: path.to_owned(),
            query: query.filter(|query| !query.is_empty()),
            body: body.map(bytes::Bytes::from),
            accept: None,
            version,
        };
        let started = std::time::Instant::now();
        let answer = self.inner.send_once_raw(&call).await?;
        Ok(RawAnswer {
            status: answer.status.as_u16(),
            headers: answer
                .headers
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
                .collect(),
            body: answer.body.to_vec(),
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// Any JSON endpoint by path (`/card/link`, or one newer than this client), with the
    /// client's token, retries (for GET) and error handling. `path` starts with `/`; the
    /// metrics record it as given.
    pub async fn request_json(
        &self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value> {
        if !path.starts_with('/') {
            return Err(Error::invalid("path", format!("must start with '/', not {path:?}")));
        }
        let safety = if method == Method::GET { Safety::Idempotent } else { Safety::Unsafe };
        let mut call = Call {
            method,
            template: path.split('?').next().unwrap_or(path).to_owned(),
            authenticated: true,
            safety,
            path: path.to_owned(),
            query: None,
            body: None,
            accept: None,
            version: None,
        };
        if let Some(body) = body {
            call = call.json(body)?;
        }
        let answer = self.inner.execute(&call).await?;
        decode(&call, &answer)
    }
}

/// An answer as it came back, any status ([`Client::send_raw`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RawAnswer {
    pub status: u16,
    /// In the order they came.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// From sending to the whole body read, in milliseconds.
    pub elapsed_ms: f64,
}
