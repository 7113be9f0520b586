//! [`Dashboard`]: the app's state, the connection and the session. The operations of each
//! resource are in their own module (`cards`, `merchants`, `lookup`, `accounts`, `persons`,
//! `overview`), as further `impl Dashboard` blocks.

use std::path::{Path, PathBuf};

use chrono::Utc;
use subscriber_client::Client;
use subscriber_protocol::Environment;
use subscriber_server::RunningServer;
use tokio::sync::Mutex;

use crate::connection::{self, Connection};
use crate::error::{CommandError, codes};
use crate::export::Exports;
use crate::notices::NoticeWatch;
use crate::sandbox::{self, SandboxOptions};
use crate::secrets::{Account, Keyring, Secrets};
use crate::session::Session;
use crate::settings::{self, Settings};
use crate::views::{AppStatus, ConnectionInfo, ConnectionTarget, LoginInput, RotateResult, SessionInfo, SignupResult};

/// How a [`Dashboard`] is set up.
#[derive(Debug, Clone)]
pub struct DashboardOptions {
    /// Where settings and the sandbox database live (the OS's app data folder).
    pub data_dir: PathBuf,
    pub secrets: Secrets,
    /// The OS keyring, registered at start ([`crate::secrets::Keyring`]).
    pub keyring: Keyring,
    pub sandbox: SandboxOptions,
}

pub struct Dashboard {
    data_dir: PathBuf,
    secrets: Secrets,
    keyring: Keyring,
    sandbox_options: SandboxOptions,
    pub(crate) state: Mutex<State>,
    /// Started on first use, kept for the life of the app (switching environment does not stop it).
    sandbox: Mutex<Option<RunningServer>>,
    /// The rows last loaded for each table, so an export writes what the table shows.
    pub(crate) exports: parking_lot::Mutex<Exports>,
    /// Where the notices left off ([`crate::notices`]).
    pub(crate) notice_watch: Mutex<NoticeWatch>,
}

pub(crate) struct State {
    pub settings: Settings,
    pub connection: Option<Connection>,
    pub session: Option<Session>,
}

impl Dashboard {
    pub fn new(options: DashboardOptions) -> Self {
        let settings = Settings::load(&options.data_dir);
        Self {
            data_dir: options.data_dir,
            secrets: options.secrets,
            keyring: options.keyring,
            sandbox_options: options.sandbox,
            state: Mutex::new(State { settings, connection: None, session: None }),
            sandbox: Mutex::new(None),
            exports: parking_lot::Mutex::default(),
            notice_watch: Mutex::default(),
        }
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub async fn status(&self) -> AppStatus {
        let keyring = self.keyring.status().await;
        let mut state = self.state.lock().await;
        if let Some(session) = state.session.as_mut() {
            session.note_token().await;
        }
        // The connection's, or while none is open the saved environment's (the sign-in screen
        // shows while the app reconnects to it).
        let target = state.connection.as_ref().map(|connection| &connection.target).or(state.settings.target.as_ref());
        let remembered_email = target.and_then(|target| state.settings.remembered.get(&target.key()).cloned());
        AppStatus {
            connection: state.connection.as_ref().map(Connection::info),
            saved_target: state.settings.target.clone(),
            session: state.session.as_ref().map(Session::info),
            keyring,
            remembered_email,
            last_screen: state.settings.last_screen.clone(),
        }
    }

    /// Chooses the environment: starts the embedded sandbox, or checks that a remote service
    /// answers. Switching ends the session of the previous one.
    pub async fn connect(&self, target: ConnectionTarget) -> Result<ConnectionInfo, CommandError> {
        let target = match target {
            ConnectionTarget::Sandbox => ConnectionTarget::Sandbox,
            ConnectionTarget::Remote { environment, base_url } => {
                ConnectionTarget::Remote { environment, base_url: connection::normalize_base_url(&base_url)? }
            }
        };
        let (base_url, environment, guard) = match &target {
            ConnectionTarget::Sandbox => {
                (self.sandbox_url().await?, Environment::Sandbox, Some(self.sandbox_options.guard.clone()))
            }
            ConnectionTarget::Remote { environment, base_url } => (base_url.clone(), *environment, None),
        };
        let connection = Connection { target: target.clone(), base_url, environment, guard };
        connection.probe().await?;
        let mut state = self.state.lock().await;
        if state.connection.as_ref().is_none_or(|current| current.target != target) {
            state.session = None;
        }
        let info = connection.info();
        state.connection = Some(connection);
        if state.settings.target.as_ref() != Some(&target) {
            state.settings.target = Some(target);
            state.settings.save(&self.data_dir)?;
        }
        Ok(info)
    }

    /// The environment chosen last time, to reconnect to at start.
    pub async fn saved_target(&self) -> Option<ConnectionTarget> {
        self.state.lock().await.settings.target.clone()
    }

    /// The embedded sandbox's address, starting it on first use.
    pub async fn sandbox_url(&self) -> Result<String, CommandError> {
        let mut sandbox = self.sandbox.lock().await;
        if let Some(server) = sandbox.as_ref() {
            return Ok(server.base_url());
        }
        let server = sandbox::start(&self.data_dir, &self.sandbox_options).await?;
        let url = server.base_url();
        *sandbox = Some(server);
        Ok(url)
    }

    /// Stops the embedded sandbox, finishing requests in flight (at app exit).
    pub async fn shut_down(&self) {
        self.state.lock().await.session = None;
        if let Some(server) = self.sandbox.lock().await.take()
            && let Err(error) = server.stop().await
        {
            tracing::warn!(error = %error, "the sandbox did not stop cleanly");
        }
    }

    /// Signs up, signs in with the new secret, and keeps the secret in the OS keyring.
    pub async fn sign_up(&self, email: &str) -> Result<SignupResult, CommandError> {
        let email = checked_email(email)?;
        let connection = self.connection().await?;
        let signup = connection.anonymous()?.signup(&email).await?;
        let client = connection.client(&signup.email, &signup.secret)?;
        let mut session = Session::log_in(client, &signup.email, &signup.secret).await?;
        let (remembered, keyring_problem) = self.remember(&connection, &session.email, &signup.secret).await;
        session.remembered = remembered;
        let result = SignupResult {
            client_id: signup.client_id,
            public_key: signup.public_key,
            secret: signup.secret,
            remembered,
            keyring_problem,
            session: session.info(),
        };
        self.begin(connection, session).await;
        Ok(result)
    }

    /// Logs in with the key typed, or with the remembered secret when none is typed.
    pub async fn log_in(&self, input: LoginInput) -> Result<SessionInfo, CommandError> {
        let email = checked_email(&input.email)?;
        let connection = self.connection().await?;
        let account = Account::new(&connection.target.key(), &email);
        let typed = input.api_key.map(|key| key.trim().to_owned()).filter(|key| !key.is_empty());
        let secret = match typed {
            Some(secret) => secret,
            None => self.load_secret(&account).await?.ok_or_else(|| {
                CommandError::new(
                    codes::NO_REMEMBERED_SECRET,
                    format!("no secret is remembered for {email} here: type the API key"),
                )
            })?,
        };
        let client = connection.client(&email, &secret)?;
        let mut session = Session::log_in(client, &email, &secret).await?;
        if input.remember {
            let (remembered, problem) = self.remember(&connection, &session.email, &secret).await;
            if let Some(problem) = problem {
                tracing::warn!(problem, "secret not remembered");
            }
            session.remembered = remembered;
        } else {
            self.forget(&connection, &session.email).await;
        }
        let info = session.info();
        self.begin(connection, session).await;
        Ok(info)
    }

    /// Forgets the session (its client, token and secret in memory) and what was loaded with
    /// it; a remembered secret stays in the keyring.
    pub async fn sign_out(&self) {
        self.state.lock().await.session = None;
        *self.exports.lock() = Exports::default();
    }

    /// Removes the remembered secret of this connection (the "forget me" of the sign-in screen).
    pub async fn forget_remembered(&self) -> Result<(), CommandError> {
        let connection = self.connection().await?;
        let email = self.state.lock().await.settings.remembered.get(&connection.target.key()).cloned();
        if let Some(email) = email {
            self.forget(&connection, &email).await;
        }
        Ok(())
    }

    pub async fn session(&self) -> Option<SessionInfo> {
        let mut state = self.state.lock().await;
        let session = state.session.as_mut()?;
        session.note_token().await;
        Some(session.info())
    }

    /// The secret in use, for "reveal" and "copy" on the credentials screen.
    pub async fn reveal_secret(&self) -> Result<String, CommandError> {
        let state = self.state.lock().await;
        state.session.as_ref().map(|session| session.secret().to_owned()).ok_or_else(CommandError::not_signed_in)
    }

    /// A new secret; the old one stops working and the session's token is revoked. The
    /// rotation proves the secret in use (the one the session signed in with, from the OS
    /// keyring when remembered); the session's client logs in with the new one from now on,
    /// and a remembered secret is replaced in the keyring.
    pub async fn rotate_secret(&self) -> Result<RotateResult, CommandError> {
        let connection = self.connection().await?;
        let current_secret = self.reveal_secret().await?;
        let rotated = self.client().await?.rotate_secret(&current_secret).await?;
        let (email, remembered) = {
            let mut state = self.state.lock().await;
            let session = state.session.as_mut().ok_or_else(CommandError::not_signed_in)?;
            session.replace_secret(rotated.secret.clone());
            (session.email.clone(), session.remembered)
        };
        let (remembered, keyring_problem) =
            if remembered { self.remember(&connection, &email, &rotated.secret).await } else { (false, None) };
        Ok(RotateResult { secret: rotated.secret, rotated_at: rotated.rotated_at, remembered, keyring_problem })
    }

    /// Renews the token when it is about to expire; nothing when it is not, or when no one is
    /// signed in. Called on a timer so a token never expires while the app is open.
    pub async fn renew_if_due(&self) -> Result<bool, CommandError> {
        let mut state = self.state.lock().await;
        let Some(session) = state.session.as_mut() else {
            return Ok(false);
        };
        session.note_token().await;
        if !session.renewal_due(Utc::now()) {
            return Ok(false);
        }
        session.renew().await?;
        Ok(true)
    }

    /// Logins made by the current session (the first included).
    pub async fn logins(&self) -> u64 {
        self.state.lock().await.session.as_ref().map_or(0, Session::logins)
    }

    /// Keeps the screen shown, to open it again after the next sign-in.
    pub async fn remember_screen(&self, screen: &str) -> Result<(), CommandError> {
        if !settings::known_screen(screen) {
            return Err(CommandError::invalid_input("screen", format!("{screen:?} is not a screen of the app")));
        }
        let mut state = self.state.lock().await;
        if state.settings.last_screen.as_deref() != Some(screen) {
            state.settings.last_screen = Some(screen.to_owned());
            state.settings.save(&self.data_dir)?;
        }
        Ok(())
    }

    /// The signed-in session's client (cheap to clone: clones share the token).
    pub async fn client(&self) -> Result<Client, CommandError> {
        let state = self.state.lock().await;
        if state.connection.is_none() {
            return Err(CommandError::not_connected());
        }
        state.session.as_ref().map(|session| session.client.clone()).ok_or_else(CommandError::not_signed_in)
    }

    /// The environment the signed-in service reports (the connection's choice before sign-in).
    pub async fn environment(&self) -> Result<Environment, CommandError> {
        let state = self.state.lock().await;
        match (&state.session, &state.connection) {
            (Some(session), _) => Ok(session.profile.environment),
            (None, Some(connection)) => Ok(connection.environment),
            (None, None) => Err(CommandError::not_connected()),
        }
    }

    /// Refuses a link that is not a page of the connected service: the only pages the app
    /// opens in the browser.
    pub async fn check_own_url(&self, url: &str) -> Result<(), CommandError> {
        let connection = self.connection().await?;
        if connection.owns_url(url) {
            Ok(())
        } else {
            Err(CommandError::new(
                codes::FOREIGN_URL,
                format!("the link is not a page of {}: it was not opened", connection.base_url),
            ))
        }
    }

    pub(crate) async fn connection(&self) -> Result<Connection, CommandError> {
        self.state.lock().await.connection.clone().ok_or_else(CommandError::not_connected)
    }

    async fn begin(&self, connection: Connection, session: Session) {
        let mut state = self.state.lock().await;
        if let Some(current) = state.connection.as_mut()
            && current.target == connection.target
        {
            // The service knows its environment better than the choice on the connection screen.
            current.environment = session.profile.environment;
        }
        state.session = Some(session);
        *self.exports.lock() = Exports::default();
    }

    /// Keeps `secret` in the keyring and notes the e-mail; says whether that worked and why not.
    async fn remember(&self, connection: &Connection, email: &str, secret: &str) -> (bool, Option<String>) {
        let keyring = self.keyring.status().await;
        if !keyring.available {
            return (false, keyring.problem);
        }
        let account = Account::new(&connection.target.key(), email);
        let secrets = self.secrets.clone();
        let secret = secret.to_owned();
        let saved = blocking(move || secrets.save(&account, &secret)).await;
        if let Err(error) = saved {
            return (false, Some(error.message));
        }
        let mut state = self.state.lock().await;
        state.settings.remembered.insert(connection.target.key(), email.to_owned());
        if let Err(error) = state.settings.save(&self.data_dir) {
            tracing::warn!(error = %error, "remembered e-mail not saved");
        }
        (true, None)
    }

    async fn forget(&self, connection: &Connection, email: &str) {
        if self.keyring.status().await.available {
            let account = Account::new(&connection.target.key(), email);
            let secrets = self.secrets.clone();
            if let Err(error) = blocking(move || secrets.forget(&account)).await {
                tracing::warn!(error = %error, "remembered secret not forgotten");
            }
        }
        let mut state = self.state.lock().await;
        let key = connection.target.key();
        if state.settings.remembered.get(&key).is_some_and(|remembered| remembered.eq_ignore_ascii_case(email)) {
            state.settings.remembered.remove(&key);
            if let Err(error) = state.settings.save(&self.data_dir) {
                tracing::warn!(error = %error, "settings not saved");
            }
        }
    }

    async fn load_secret(&self, account: &Account) -> Result<Option<String>, CommandError> {
        let keyring = self.keyring.status().await;
        if !keyring.available {
            return Err(CommandError::new(
                codes::KEYRING_UNAVAILABLE,
                keyring.problem.unwrap_or_else(|| "the OS keyring is not available".to_owned()),
            ));
        }
        let secrets = self.secrets.clone();
        let account = account.clone();
        blocking(move || secrets.load(&account)).await
    }
}

/// The keyring stores block (D-Bus round trips): keep them off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| CommandError::new(codes::KEYRING_UNAVAILABLE, format!("the keyring call failed: {error}")))?
}

fn checked_email(email: &str) -> Result<String, CommandError> {
    let email = email.trim().to_ascii_lowercase();
    let plausible = email
        .split_once('@')
        .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.') && !domain.ends_with('.'));
    if !plausible || email.chars().any(char::is_whitespace) {
        return Err(CommandError::invalid_input("email", "must be an e-mail address such as dev@example.com"));
    }
    Ok(email)
}
