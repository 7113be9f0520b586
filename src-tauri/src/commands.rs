//! The dashboard's commands, as the table declares them (`subscriber_dashboard::for_each_command!`,
//! which the UI's typed functions and the window's permissions are made from too): for each, a
//! Tauri command that hands its arguments to the [`Desktop`] method of the same name, and one
//! handler of them all. A method the table does not name, or one whose arguments or answer are
//! not the table's, does not compile. Each answers `Result<T, CommandError>`, which the UI
//! receives as `{code, message, requestId, status, details}`. Besides calling the dashboard,
//! methods only do what needs the window: channels, the save dialog, the browser.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use subscriber_dashboard::commands::types::*;
use subscriber_dashboard::error::codes;
use subscriber_dashboard::notices::{Notice, NoticeKind};
use subscriber_dashboard::{CommandError, Dashboard};
use tauri::async_runtime::JoinHandle;
use tauri::ipc::{Channel, Invoke};
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

type Outcome<T> = Result<T, CommandError>;

/// The background tasks the window follows (live streams, pages waited for), by id, so it
/// can stop them.
#[derive(Default)]
pub struct Watches {
    next: AtomicU32,
    running: parking_lot::Mutex<HashMap<u32, JoinHandle<()>>>,
}

impl Watches {
    fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) -> u32 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.running.lock().insert(id, tauri::async_runtime::spawn(task));
        id
    }

    pub fn stop_all(&self) {
        for (_, watch) in self.running.lock().drain() {
            watch.abort();
        }
    }
}

/// What a command runs with: the app (its window, plugins and state) and the dashboard.
pub struct Desktop<R: Runtime> {
    app: AppHandle<R>,
    dashboard: Arc<Dashboard>,
}

/// From the command table: a Tauri command per entry, and [`handler`] of them all.
macro_rules! tauri_commands {
    ($( $(#[doc = $doc:literal])* $name:ident ( $($argument:ident : $ty:ty),* $(,)? ) -> $returned:ty; )*) => {
        $(
            $(#[doc = $doc])*
            #[tauri::command]
            async fn $name<R: Runtime>(
                app: AppHandle<R>,
                dashboard: State<'_, Arc<Dashboard>>,
                $($argument: $ty),*
            ) -> Outcome<$returned> {
                Desktop { app, dashboard: Arc::clone(&dashboard) }.$name($($argument),*).await
            }
        )*

        /// Every command of the table, for `Builder::invoke_handler`.
        pub fn handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }
    };
}

subscriber_dashboard::for_each_command!(tauri_commands);

impl<R: Runtime> Desktop<R> {
    fn watches(&self) -> State<'_, Watches> {
        self.app.state::<Watches>()
    }

    async fn status(&self) -> Outcome<AppStatus> {
        Ok(self.dashboard.status().await)
    }

    async fn connect(&self, target: ConnectionTarget) -> Outcome<ConnectionInfo> {
        self.dashboard.connect(target).await
    }

    async fn sign_up(&self, email: String) -> Outcome<SignupResult> {
        self.dashboard.sign_up(&email).await
    }

    async fn log_in(&self, input: LoginInput) -> Outcome<SessionInfo> {
        self.dashboard.log_in(input).await
    }

    async fn sign_out(&self) -> Outcome<()> {
        self.watches().stop_all();
        self.dashboard.sign_out().await;
        Ok(())
    }

    async fn forget_remembered(&self) -> Outcome<()> {
        self.dashboard.forget_remembered().await
    }

    async fn reveal_secret(&self) -> Outcome<String> {
        self.dashboard.reveal_secret().await
    }

    async fn rotate_secret(&self) -> Outcome<RotateResult> {
        self.dashboard.rotate_secret().await
    }

    async fn remember_screen(&self, screen: String) -> Outcome<()> {
        self.dashboard.remember_screen(&screen).await
    }

    async fn overview(&self) -> Outcome<Overview> {
        self.dashboard.overview().await
    }

    async fn list_cards(&self) -> Outcome<Vec<CardRecord>> {
        self.dashboard.cards().await
    }

    async fn test_cards(&self) -> Outcome<Vec<SandboxCard>> {
        self.dashboard.test_cards().await
    }

    /// A card's subscriptions and bills, the latest paid first.
    async fn card_recurring(&self, card_id: CardId) -> Outcome<Vec<RecurringStream>> {
        self.dashboard.card_recurring(card_id).await
    }

    /// Enriches a CSV of descriptors (read by the page from a file the user chose) and saves it.
    async fn enrich_csv(&self, csv_text: String, file_name: String) -> Outcome<Option<EnrichedFile>> {
        let stem = file_name.trim_end_matches(".csv").trim_end_matches(".CSV");
        let stem: String =
            stem.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')).take(60).collect();
        let name =
            if stem.is_empty() { "transactions-enriched.csv".to_owned() } else { format!("{stem}-enriched.csv") };
        match save_path(&self.app, &name).await? {
            Some(path) => self.dashboard.enrich_csv(&csv_text, &path).await.map(Some),
            None => Ok(None),
        }
    }

    async fn enroll_card(&self, card: EnrollCardRequest) -> Outcome<EnrollCardResponse> {
        self.dashboard.enroll_card(card).await
    }

    async fn remove_card(&self, card_id: CardId) -> Outcome<RemoveCardResponse> {
        self.dashboard.remove_card(card_id).await
    }

    /// Starts a secure card-entry page and opens it in the system browser.
    async fn start_card_session(&self) -> Outcome<SecurePage> {
        let page = self.dashboard.start_card_session().await?;
        Ok(open_page(&self.app, page))
    }

    /// Follows a card-entry page until it completes or expires; stopped with `stop_watch`.
    async fn watch_card_session(
        &self,
        session_id: CardSessionId,
        on_update: Channel<Result<CardSession, CommandError>>,
    ) -> Outcome<u32> {
        let dashboard = Arc::clone(&self.dashboard);
        Ok(self.watches().spawn(async move {
            let outcome =
                dashboard.wait_for_card_session(session_id, |session| on_update.send(Ok(session.clone())).is_ok());
            if let Err(error) = outcome.await
                && !error.is(codes::CANCELLED)
            {
                let _ = on_update.send(Err(error));
            }
        }))
    }

    async fn simulate_transaction(&self, card_id: CardId) -> Outcome<CardTransaction> {
        self.dashboard.simulate_transaction(card_id).await
    }

    async fn simulate_purchase(&self, request: SandboxTransactionRequest) -> Outcome<SandboxTransactionResponse> {
        self.dashboard.simulate_purchase(request).await
    }

    async fn settle_transaction(&self, transaction_id: TransactionId, amount: Option<f64>) -> Outcome<CardTransaction> {
        self.dashboard.settle_transaction(transaction_id, amount).await
    }

    async fn refund_transaction(&self, transaction_id: TransactionId, amount: Option<f64>) -> Outcome<CardTransaction> {
        self.dashboard.refund_transaction(transaction_id, amount).await
    }

    async fn reverse_transaction(&self, transaction_id: TransactionId) -> Outcome<SandboxReversal> {
        self.dashboard.reverse_transaction(transaction_id).await
    }

    async fn advance_sandbox_clock(&self, seconds: i64) -> Outcome<ClockAdvanced> {
        self.dashboard.advance_sandbox_clock(seconds).await
    }

    async fn reset_sandbox(&self) -> Outcome<SandboxReset> {
        self.dashboard.reset_sandbox().await
    }

    async fn sandbox_snapshots(&self) -> Outcome<Vec<SandboxSnapshot>> {
        self.dashboard.sandbox_snapshots().await
    }

    async fn take_sandbox_snapshot(&self, name: String) -> Outcome<SandboxSnapshot> {
        self.dashboard.take_sandbox_snapshot(name).await
    }

    async fn restore_sandbox_snapshot(&self, snapshot_id: SnapshotId) -> Outcome<SandboxRestored> {
        self.dashboard.restore_sandbox_snapshot(snapshot_id).await
    }

    async fn delete_sandbox_snapshot(&self, snapshot_id: SnapshotId) -> Outcome<SandboxSnapshotDeleted> {
        self.dashboard.delete_sandbox_snapshot(snapshot_id).await
    }

    async fn load_transactions(&self, card_id: CardId, on_batch: Channel<Batch<CardTransaction>>) -> Outcome<u32> {
        self.dashboard.load_transactions(card_id, |batch| on_batch.send(batch).is_ok()).await
    }

    async fn watch_transactions(&self, card_id: CardId, on_event: Channel<LiveEvent<CardTransaction>>) -> Outcome<u32> {
        let dashboard = Arc::clone(&self.dashboard);
        Ok(self.watches().spawn(async move {
            subscriber_dashboard::live::watch(&dashboard, card_id, |event| on_event.send(event).is_ok()).await;
        }))
    }

    async fn stop_watch(&self, watch_id: u32) -> Outcome<()> {
        if let Some(task) = self.watches().running.lock().remove(&watch_id) {
            task.abort();
        }
        Ok(())
    }

    async fn export_transactions_csv(
        &self,
        card_id: CardId,
        transaction_ids: Vec<TransactionId>,
    ) -> Outcome<Option<ExportResult>> {
        match save_path(&self.app, &format!("card-{card_id}-transactions.csv")).await? {
            Some(path) => self.dashboard.export_csv(card_id, &transaction_ids, &path).map(Some),
            None => Ok(None),
        }
    }

    async fn merchant(&self) -> Outcome<Option<Merchant>> {
        self.dashboard.merchant().await
    }

    async fn countries(&self) -> Outcome<Vec<Country>> {
        Ok(self.dashboard.countries())
    }

    async fn search_categories(&self, query: String) -> Outcome<Vec<MerchantCategory>> {
        self.dashboard.search_categories(&query).await
    }

    async fn check_merchant(&self, merchant: EnrollMerchantRequest) -> Outcome<FieldErrors> {
        Ok(self.dashboard.check_merchant(&merchant))
    }

    async fn enroll_merchant(&self, merchant: EnrollMerchantRequest) -> Outcome<Merchant> {
        self.dashboard.enroll_merchant(merchant).await
    }

    async fn check_location(&self, location: LocationInput) -> Outcome<FieldErrors> {
        Ok(self.dashboard.check_location(&location))
    }

    async fn statement_descriptor(&self, merchant_name: String, city: String) -> Outcome<StatementDescriptor> {
        Ok(self.dashboard.statement_descriptor(&merchant_name, &city))
    }

    async fn merchant_sales(&self, query: SalesQuery) -> Outcome<MerchantSales> {
        self.dashboard.merchant_sales(query).await
    }

    async fn add_location(&self, location: LocationInput) -> Outcome<CreateLocationResponse> {
        self.dashboard.add_location(location).await
    }

    async fn update_location(&self, location_id: LocationId, change: UpdateLocationRequest) -> Outcome<Location> {
        self.dashboard.update_location(location_id, change).await
    }

    async fn remove_location(&self, location_id: LocationId) -> Outcome<LocationRemoved> {
        self.dashboard.remove_location(location_id).await
    }

    async fn load_merchant_transactions(&self, on_batch: Channel<Batch<MerchantTransaction>>) -> Outcome<u32> {
        self.dashboard.load_merchant_transactions(|batch| on_batch.send(batch).is_ok()).await
    }

    async fn watch_merchant_transactions(&self, on_event: Channel<LiveEvent<MerchantTransaction>>) -> Outcome<u32> {
        let merchant_id = self.dashboard.merchant_stream_id().await?;
        let dashboard = Arc::clone(&self.dashboard);
        Ok(self.watches().spawn(async move {
            subscriber_dashboard::live::watch_merchant(&dashboard, merchant_id, |event| on_event.send(event).is_ok())
                .await;
        }))
    }

    async fn export_merchant_csv(&self, transaction_ids: Vec<TransactionId>) -> Outcome<Option<ExportResult>> {
        match save_path(&self.app, "merchant-transactions.csv").await? {
            Some(path) => self.dashboard.export_merchant_csv(&transaction_ids, &path).map(Some),
            None => Ok(None),
        }
    }

    async fn lookup(&self, query: LookupQuery) -> Outcome<Lookup> {
        self.dashboard.lookup(query).await
    }

    async fn recent_lookups(&self) -> Outcome<Vec<Lookup>> {
        Ok(self.dashboard.recent_lookups().await)
    }

    async fn banks(&self) -> Outcome<Vec<Bank>> {
        self.dashboard.banks().await
    }

    async fn accounts(&self) -> Outcome<Vec<Account>> {
        self.dashboard.accounts().await
    }

    async fn remove_account(&self, account_id: AccountId) -> Outcome<RemoveAccountResponse> {
        self.dashboard.remove_account(account_id).await
    }

    /// Starts linking an account at `bank` and opens the bank's sign-in page in the browser.
    async fn link_account(&self, bank: String) -> Outcome<SecurePage> {
        let page = self.dashboard.link_account(&bank).await?;
        Ok(open_page(&self.app, page))
    }

    /// Opens the bank's pages in update mode in the browser, for the person to renew a linked
    /// account's consent (the same account).
    async fn renew_account(&self, account_id: AccountId) -> Outcome<SecurePage> {
        let page = self.dashboard.renew_account(account_id).await?;
        Ok(open_page(&self.app, page))
    }

    /// Fetches what is new at the bank for a linked account.
    async fn refresh_account(&self, account_id: AccountId) -> Outcome<Account> {
        self.dashboard.refresh_account(account_id).await
    }

    /// Follows an account until it is no longer pending; stopped with `stop_watch`.
    async fn watch_account(
        &self,
        account_id: AccountId,
        on_update: Channel<Result<Account, CommandError>>,
    ) -> Outcome<u32> {
        let dashboard = Arc::clone(&self.dashboard);
        Ok(self.watches().spawn(async move {
            let outcome = dashboard.wait_for_account(account_id, |account| on_update.send(Ok(account.clone())).is_ok());
            if let Err(error) = outcome.await
                && !error.is(codes::CANCELLED)
            {
                let _ = on_update.send(Err(error));
            }
        }))
    }

    async fn account_transactions(&self, account_id: AccountId) -> Outcome<Vec<AccountTransaction>> {
        self.dashboard.account_transactions(account_id).await
    }

    /// Opens a page of the connected service again (the "Open again" of a waiting state).
    async fn open_secure_page(&self, url: String) -> Outcome<()> {
        self.dashboard.check_own_url(&url).await?;
        open_in_browser(&self.app, &url)
    }

    async fn persons(&self) -> Outcome<Vec<Person>> {
        self.dashboard.persons().await
    }

    async fn person(&self, person_id: PersonId) -> Outcome<Person> {
        self.dashboard.person(person_id).await
    }

    async fn remove_person(&self, person_id: PersonId) -> Outcome<RemovePersonResponse> {
        self.dashboard.remove_person(person_id).await
    }

    /// A one-time identity page for the person (not opened: the app offers to copy or open it).
    async fn person_page(&self, person_id: PersonId) -> Outcome<SecurePage> {
        self.dashboard.person_page(person_id).await
    }

    async fn update_metadata(&self, object: Labelled, metadata: Metadata) -> Outcome<Metadata> {
        self.dashboard.update_metadata(object, metadata).await
    }

    async fn user(&self, client_user_id: String) -> Outcome<EndUser> {
        self.dashboard.user(client_user_id).await
    }

    async fn remove_user(&self, client_user_id: String) -> Outcome<EndUserRemoved> {
        self.dashboard.remove_user(client_user_id).await
    }

    async fn onboard_person(&self, person: OnboardPersonRequest) -> Outcome<Person> {
        self.dashboard.onboard_person(person).await
    }

    async fn check_personal_info(&self, information: AuthenticatePersonRequest) -> Outcome<FieldErrors> {
        Ok(self.dashboard.check_personal_info(&information))
    }

    async fn authenticate_person(&self, information: AuthenticatePersonRequest) -> Outcome<AuthenticatePersonResponse> {
        self.dashboard.authenticate_person(information).await
    }

    async fn verify_person(&self, answers: VerifyPersonRequest) -> Outcome<VerifyPersonResponse> {
        self.dashboard.verify_person(answers).await
    }

    async fn webhooks(&self) -> Outcome<Vec<Webhook>> {
        self.dashboard.webhooks().await
    }

    async fn check_webhook(&self, request: CreateWebhookRequest) -> Outcome<FieldErrors> {
        Ok(self.dashboard.check_webhook(&request))
    }

    async fn create_webhook(&self, request: CreateWebhookRequest) -> Outcome<Webhook> {
        self.dashboard.create_webhook(request).await
    }

    async fn update_webhook(&self, webhook_id: WebhookId, change: UpdateWebhookRequest) -> Outcome<Webhook> {
        self.dashboard.update_webhook(webhook_id, change).await
    }

    async fn delete_webhook(&self, webhook_id: WebhookId) -> Outcome<WebhookDeleted> {
        self.dashboard.delete_webhook(webhook_id).await
    }

    async fn rotate_webhook_secret(&self, webhook_id: WebhookId) -> Outcome<Webhook> {
        self.dashboard.rotate_webhook_secret(webhook_id).await
    }

    async fn test_webhook(&self, webhook_id: WebhookId) -> Outcome<WebhookQueued> {
        self.dashboard.test_webhook(webhook_id).await
    }

    async fn webhook_deliveries(&self, webhook_id: WebhookId) -> Outcome<Vec<WebhookDelivery>> {
        self.dashboard.webhook_deliveries(webhook_id).await
    }

    async fn resend_webhook_delivery(&self, webhook_id: WebhookId, event_id: String) -> Outcome<WebhookQueued> {
        self.dashboard.resend_webhook_delivery(webhook_id, event_id).await
    }

    async fn webhook(&self, webhook_id: WebhookId) -> Outcome<Webhook> {
        self.dashboard.webhook(webhook_id).await
    }

    async fn recover_webhook_deliveries(&self, webhook_id: WebhookId, since: String) -> Outcome<WebhookRecovered> {
        self.dashboard.recover_webhook_deliveries(webhook_id, since).await
    }

    async fn events(&self, event_type: Option<String>) -> Outcome<Vec<Event>> {
        self.dashboard.events(event_type).await
    }

    async fn send_sandbox_event(&self, event_type: String) -> Outcome<Event> {
        self.dashboard.send_sandbox_event(event_type).await
    }

    /// The account's recent requests, each with its route, whether the app made it by itself,
    /// its headers and a cURL line.
    async fn request_log(&self, query: RequestQuery) -> Outcome<RequestLogView> {
        self.dashboard.request_log(query).await
    }

    async fn request_detail(&self, request_id: String) -> Outcome<RequestDetailView> {
        self.dashboard.request_detail(request_id).await
    }

    async fn export_request_log(&self, query: RequestQuery) -> Outcome<Option<ExportResult>> {
        match save_path(&self.app, "request-history.ndjson").await? {
            Some(path) => self.dashboard.export_request_log(query, &path).await.map(Some),
            None => Ok(None),
        }
    }

    async fn shell_operations(&self) -> Outcome<Vec<ShellOperation>> {
        self.dashboard.shell_operations().await
    }

    async fn send_shell_request(&self, request: ShellRequest) -> Outcome<ShellAnswer> {
        self.dashboard.send_shell_request(request).await
    }

    async fn inspect(&self, id: String) -> Outcome<Inspection> {
        self.dashboard.inspect(id).await
    }

    async fn api_versions(&self) -> Outcome<ApiVersions> {
        self.dashboard.api_versions().await
    }

    async fn set_api_version(&self, version: ApiVersion) -> Outcome<ApiVersions> {
        self.dashboard.set_api_version(version).await
    }

    /// The first screen is usable. With `SUBSCRIBER_DASHBOARD_TIMING=1` this prints a line the
    /// start-up benchmark waits for.
    async fn app_ready(&self) -> Outcome<()> {
        if std::env::var_os("SUBSCRIBER_DASHBOARD_TIMING").is_some() {
            println!("subscriber-dashboard: ready");
        }
        Ok(())
    }

    /// The screens asked for from outside the page (a `subscriber-data://` link, a
    /// notification's click) arrive on `on_route`, as route names (`card/12`).
    async fn watch_navigation(&self, on_route: Channel<String>) -> Outcome<()> {
        self.app.state::<crate::desktop::Navigation>().listen(on_route);
        Ok(())
    }

    async fn palette_index(&self) -> Outcome<PaletteIndex> {
        self.dashboard.palette_index().await
    }

    async fn event(&self, event_id: String) -> Outcome<Event> {
        self.dashboard.event(&event_id).await
    }

    async fn notification_settings(&self) -> Outcome<NotificationSettings> {
        Ok(self.dashboard.notification_settings().await)
    }

    async fn set_notification_settings(&self, settings: NotificationSettings) -> Outcome<()> {
        self.dashboard.set_notification_settings(settings).await
    }

    /// A notification now, so the person sees how they look (a click opens the settings).
    async fn show_test_notification(&self) -> Outcome<()> {
        crate::desktop::notify(
            &self.app,
            &Notice {
                kind: NoticeKind::Purchase,
                title: "Notifications are on".to_owned(),
                body: "Sales, purchases, webhook trouble and identity outcomes show like this.".to_owned(),
                route: "settings".to_owned(),
            },
        );
        Ok(())
    }
}

/// Opens a page the dashboard already checked is the service's; a browser that does not open
/// leaves the link to copy.
fn open_page<R: Runtime>(app: &AppHandle<R>, page: SecurePage) -> SecurePage {
    match open_in_browser(app, &page.url) {
        Ok(()) => SecurePage { opened: true, ..page },
        Err(error) => SecurePage { opened: false, open_problem: Some(error.message), ..page },
    }
}

/// The system browser, through the opener plugin; `SUBSCRIBER_DASHBOARD_BROWSER` names another
/// program to open links with (the end-to-end tests record them this way).
fn open_in_browser<R: Runtime>(app: &AppHandle<R>, url: &str) -> Outcome<()> {
    let with = std::env::var("SUBSCRIBER_DASHBOARD_BROWSER").ok().filter(|program| !program.is_empty());
    app.opener()
        .open_url(url, with)
        .map_err(|error| CommandError::new(codes::IO, format!("the browser did not open: {error}")))
}

/// Asks where to save (the system's save dialog, or `SUBSCRIBER_DASHBOARD_EXPORT_DIR` when set,
/// for unattended runs); `None` when the user cancels.
async fn save_path<R: Runtime>(app: &AppHandle<R>, file_name: &str) -> Outcome<Option<PathBuf>> {
    if let Some(dir) = std::env::var_os("SUBSCRIBER_DASHBOARD_EXPORT_DIR") {
        return Ok(Some(PathBuf::from(dir).join(file_name)));
    }
    let (chosen, answer) = tokio::sync::oneshot::channel();
    // The file's kind from its name: `CSV` for `….csv`, `NDJSON` for `….ndjson`.
    let extension =
        std::path::Path::new(file_name).extension().and_then(|extension| extension.to_str()).unwrap_or("csv");
    let kind = extension.to_ascii_uppercase();
    app.dialog().file().add_filter(kind, &[extension]).set_file_name(file_name).save_file(move |path| {
        let _ = chosen.send(path);
    });
    let picked = answer.await.map_err(|_| CommandError::new(codes::CANCELLED, "the save dialog closed"))?;
    picked
        .map(|path| {
            path.into_path()
                .map_err(|error| CommandError::new(codes::IO, format!("that location cannot be written: {error}")))
        })
        .transpose()
}
