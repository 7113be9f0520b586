//! [`Dashboard`]: the app's state and one method per command.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::Utc;
use subscriber_protocol::{
    CardRecord, CardTransaction, CardTransactionQuery, EnrollCardRequest, EnrollCardResponse, Environment, SandboxCard,
    SandboxTransactionRequest, codes as service_codes,
};
use subscriber_server::RunningServer;
use tokio::sync::Mutex;

use crate::cards::{self, TransactionCache};
use crate::connection::{self, Connection};
use crate::error::{CommandError, codes};
use crate::sandbox::{self, SandboxOptions};
use crate::secrets::{Account, KeyringStatus, Secrets};
use crate::service::Service;
use crate::session::Session;
use crate::settings::Settings;
use crate::views::{
    AppStatus, ConnectionInfo, ConnectionTarget, ExportResult, LoginInput, RotateResult, SessionInfo, SignupResult,
    TransactionBatch,
};

/// How a [`Dashboard`] is set up.
#[derive(Debug, Clone)]
pub struct DashboardOptions {
    /// Where settings and the sandbox database live (the OS's app data folder).
    pub data_dir: PathBuf,
    pub secrets: Secrets,
    /// The OS keyring as registered at start ([`crate::secrets::use_os_store`]).
    pub keyring: KeyringStatus,
    pub sandbox: SandboxOptions,
}

pub struct Dashboard {
    data_dir: PathBuf,
    secrets: Secrets,
    keyring: KeyringStatus,
    sandbox_options: SandboxOptions,
    state: Mutex<State>,
    /// Started on first use, kept for the life of the app (switching environment does not stop it).
    sandbox: Mutex<Option<RunningServer>>,
    transactions: parking_lot::Mutex<TransactionCache>,
}

struct State {
    settings: Settings,
    connection: Option<Connection>,
    session: Option<Session>,
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
            transactions: parking_lot::Mutex::default(),
        }
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub async fn status(&self) -> AppStatus {
        let state = self.state.lock().await;
        let remembered_email = state
            .connection
            .as_ref()
            .and_then(|connection| state.settings.remembered.get(&connection.target.key()).cloned());
        AppStatus {
            connection: state.connection.as_ref().map(Connection::info),
            saved_target: state.settings.target.clone(),
            session: state.session.as_ref().map(Session::info),
            keyring: self.keyring.clone(),
            remembered_email,
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
        let (service, environment) = match &target {
            ConnectionTarget::Sandbox => (Service::new(&self.sandbox_url().await?)?, Environment::Sandbox),
            ConnectionTarget::Remote { environment, base_url } => (Service::new(base_url)?, *environment),
        };
        service.probe().await?;
        let mut state = self.state.lock().await;
        if state.connection.as_ref().is_none_or(|current| current.target != target) {
            state.session = None;
        }
        let connection = Connection { target: target.clone(), service, environment };
        let info = connection.info();
        state.connection = Some(connection);
        if state.settings.target.as_ref() != Some(&target) {
            state.settings.target = Some(target);
            state.settings.save(&self.data_dir)?;
        }
        Ok(info)
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
        let signup = connection.service.signup(&email).await?;
        let mut session = Session::log_in(&connection.service, &signup.email, &signup.secret).await?;
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
        let mut session = Session::log_in(&connection.service, &email, &secret).await?;
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

    /// Forgets the token and the secret in memory; a remembered secret stays in the keyring.
    pub async fn sign_out(&self) {
        self.state.lock().await.session = None;
        *self.transactions.lock() = TransactionCache::default();
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
        self.state.lock().await.session.as_ref().map(Session::info)
    }

    /// The secret in use, for "reveal" and "copy" on the credentials screen.
    pub async fn reveal_secret(&self) -> Result<String, CommandError> {
        let state = self.state.lock().await;
        state.session.as_ref().map(|session| session.secret().to_owned()).ok_or_else(CommandError::not_signed_in)
    }

    /// A new secret; the old one stops working. A remembered secret is replaced in the keyring.
    pub async fn rotate_secret(&self) -> Result<RotateResult, CommandError> {
        let connection = self.connection().await?;
        let rotated = self.call(|service, token| async move { service.rotate_secret(&token).await }).await?;
        let remembered = {
            let mut state = self.state.lock().await;
            let session = state.session.as_mut().ok_or_else(CommandError::not_signed_in)?;
            session.replace_secret(rotated.secret.clone());
            session.remembered
        };
        let (remembered, keyring_problem) = if remembered {
            let email = self.session().await.map(|session| session.email).unwrap_or_default();
            self.remember(&connection, &email, &rotated.secret).await
        } else {
            (false, None)
        };
        Ok(RotateResult { secret: rotated.secret, rotated_at: rotated.rotated_at, remembered, keyring_problem })
    }

    /// Renews the token when it is about to expire; nothing when it is not, or when no one is
    /// signed in. Called on a timer so a token never expires while the app is open.
    pub async fn renew_if_due(&self) -> Result<bool, CommandError> {
        let mut state = self.state.lock().await;
        let State { connection, session, .. } = &mut *state;
        match (connection.as_ref(), session.as_mut()) {
            (Some(connection), Some(session)) if session.renewal_due(Utc::now()) => {
                session.renew(&connection.service).await?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Logins made by the current session (the first included).
    pub async fn logins(&self) -> u32 {
        self.state.lock().await.session.as_ref().map_or(0, |session| session.logins)
    }

    pub async fn cards(&self) -> Result<Vec<CardRecord>, CommandError> {
        Ok(self.call(|service, token| async move { service.cards(&token).await }).await?.cards)
    }

    /// The sandbox's test cards, for the enrollment form.
    pub async fn test_cards(&self) -> Result<Vec<SandboxCard>, CommandError> {
        Ok(self.call(|service, token| async move { service.sandbox_cards(&token).await }).await?.cards)
    }

    pub async fn enroll_card(&self, card: EnrollCardRequest) -> Result<EnrollCardResponse, CommandError> {
        let card = Arc::new(card);
        self.call(|service, token| {
            let card = Arc::clone(&card);
            async move { service.enroll_card(&token, &card).await }
        })
        .await
    }

    /// Every transaction of a card, newest first, handed to `on_batch` page by page so a long
    /// list shows progress; returns how many were read.
    pub async fn load_transactions(
        &self,
        card_id: i64,
        mut on_batch: impl FnMut(TransactionBatch) -> bool,
    ) -> Result<u32, CommandError> {
        let mut all: Vec<CardTransaction> = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let query =
                CardTransactionQuery { limit: Some(cards::PAGE_LIMIT), cursor: cursor.clone(), ..Default::default() };
            let page = self
                .call(|service, token| {
                    let query = query.clone();
                    async move { service.card_transactions(&token, card_id, &query).await }
                })
                .await?;
            let next = page.next_cursor.filter(|next| !next.is_empty() && Some(next) != cursor.as_ref());
            let done = next.is_none();
            all.extend(page.transactions.iter().cloned());
            let loaded = u32::try_from(all.len()).unwrap_or(u32::MAX);
            if !on_batch(TransactionBatch { card_id, rows: page.transactions, loaded, done }) {
                return Err(CommandError::new(codes::CANCELLED, "loading stopped"));
            }
            if done {
                break;
            }
            cursor = next;
        }
        let count = u32::try_from(all.len()).unwrap_or(u32::MAX);
        self.transactions.lock().replace(card_id, all);
        Ok(count)
    }

    /// Keeps a live arrival for export.
    pub fn remember_transaction(&self, transaction: CardTransaction) {
        self.transactions.lock().upsert(transaction);
    }

    /// Writes the listed transactions (as the table shows them, in its order) to `path`.
    pub fn export_csv(&self, card_id: i64, transaction_ids: &[i64], path: &Path) -> Result<ExportResult, CommandError> {
        let rows = self.transactions.lock().select(card_id, transaction_ids);
        cards::write_csv(path, &rows)?;
        Ok(ExportResult { path: path.display().to_string(), rows: u32::try_from(rows.len()).unwrap_or(u32::MAX) })
    }

    /// A sandbox point-of-sale purchase on the card, now.
    pub async fn simulate_transaction(&self, card_id: i64) -> Result<CardTransaction, CommandError> {
        let request = SandboxTransactionRequest { card_id: Some(card_id), ..Default::default() };
        let created = self
            .call(|service, token| {
                let request = request.clone();
                async move { service.sandbox_transaction(&token, &request).await }
            })
            .await?;
        Ok(created.transaction)
    }

    /// The service and a fresh token, renewing first when the token is about to expire.
    pub async fn authorized(&self) -> Result<(Service, String), CommandError> {
        let mut state = self.state.lock().await;
        let State { connection, session, .. } = &mut *state;
        let connection = connection.as_ref().ok_or_else(CommandError::not_connected)?;
        let session = session.as_mut().ok_or_else(CommandError::not_signed_in)?;
        if session.renewal_due(Utc::now()) {
            session.renew(&connection.service).await?;
        }
        Ok((connection.service.clone(), session.token().to_owned()))
    }

    /// Runs one authorized call; on `token_expired` (a clock that disagrees, a service that
    /// restarted) logs in once more and retries once.
    pub async fn call<T, F, Fut>(&self, call: F) -> Result<T, CommandError>
    where
        F: Fn(Service, String) -> Fut,
        Fut: Future<Output = Result<T, CommandError>>,
    {
        let (service, token) = self.authorized().await?;
        match call(service, token).await {
            Err(error) if error.is(service_codes::TOKEN_EXPIRED) => {
                let (service, token) = self.force_renewal().await?;
                call(service, token).await
            }
            other => other,
        }
    }

    async fn force_renewal(&self) -> Result<(Service, String), CommandError> {
        let mut state = self.state.lock().await;
        let State { connection, session, .. } = &mut *state;
        let connection = connection.as_ref().ok_or_else(CommandError::not_connected)?;
        let session = session.as_mut().ok_or_else(CommandError::not_signed_in)?;
        session.renew(&connection.service).await?;
        Ok((connection.service.clone(), session.token().to_owned()))
    }

    async fn connection(&self) -> Result<Connection, CommandError> {
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
        *self.transactions.lock() = TransactionCache::default();
    }

    /// Keeps `secret` in the keyring and notes the e-mail; says whether that worked and why not.
    async fn remember(&self, connection: &Connection, email: &str, secret: &str) -> (bool, Option<String>) {
        if !self.keyring.available {
            return (false, self.keyring.problem.clone());
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
        if self.keyring.available {
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
        if !self.keyring.available {
            return Err(CommandError::new(
                codes::KEYRING_UNAVAILABLE,
                self.keyring.problem.clone().unwrap_or_else(|| "the OS keyring is not available".to_owned()),
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
