//! One command per operation of [`Dashboard`]; each returns `Result<T, CommandError>`, which
//! the UI receives as `{code, message, requestId, status, details}`. Besides calling the
//! dashboard, commands only do what needs the window: channels, the save dialog, the browser.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use subscriber_dashboard::error::codes;
use subscriber_dashboard::notices::{Notice, NoticeKind, NotificationSettings};
use subscriber_dashboard::palette::PaletteIndex;
use subscriber_dashboard::performance::{MerchantSales, SalesQuery};
use subscriber_dashboard::versions::ApiVersions;
use subscriber_dashboard::views::{
    AppStatus, Batch, ConnectionInfo, ConnectionTarget, Country, EnrichedFile, ExportResult, FieldErrors, LiveEvent,
    LoggedCall, LoginInput, Lookup, LookupQuery, Overview, RotateResult, SecurePage, SessionInfo, SignupResult,
    StatementDescriptor,
};
use subscriber_dashboard::{CommandError, Dashboard};
use subscriber_protocol::versions::ApiVersion;
use subscriber_protocol::{
    Account, AccountTransaction, AuthenticatePersonRequest, AuthenticatePersonResponse, Bank, CardRecord, CardSession,
    CardTransaction, CreateLocationResponse, EnrollCardRequest, EnrollCardResponse, EnrollMerchantRequest,
    LocationInput, Merchant, MerchantCategory, MerchantTransaction, OnboardPersonRequest, Person, RecurringStream,
    SandboxCard, SandboxTransactionRequest, SandboxTransactionResponse, VerifyPersonRequest, VerifyPersonResponse,
};
use subscriber_protocol::{
    CreateWebhookRequest, Event, UpdateWebhookRequest, Webhook, WebhookDeleted, WebhookDelivery, WebhookQueued,
    WebhookRecovered,
};
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

type Shared<'a> = State<'a, Arc<Dashboard>>;
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

#[tauri::command]
pub async fn status(dashboard: Shared<'_>) -> Outcome<AppStatus> {
    Ok(dashboard.status().await)
}

#[tauri::command]
pub async fn connect(dashboard: Shared<'_>, target: ConnectionTarget) -> Outcome<ConnectionInfo> {
    dashboard.connect(target).await
}

#[tauri::command]
pub async fn sign_up(dashboard: Shared<'_>, email: String) -> Outcome<SignupResult> {
    dashboard.sign_up(&email).await
}

#[tauri::command]
pub async fn log_in(dashboard: Shared<'_>, input: LoginInput) -> Outcome<SessionInfo> {
    dashboard.log_in(input).await
}

#[tauri::command]
pub async fn sign_out(dashboard: Shared<'_>, watches: State<'_, Watches>) -> Outcome<()> {
    watches.stop_all();
    dashboard.sign_out().await;
    Ok(())
}

#[tauri::command]
pub async fn forget_remembered(dashboard: Shared<'_>) -> Outcome<()> {
    dashboard.forget_remembered().await
}

#[tauri::command]
pub async fn reveal_secret(dashboard: Shared<'_>) -> Outcome<String> {
    dashboard.reveal_secret().await
}

#[tauri::command]
pub async fn rotate_secret(dashboard: Shared<'_>) -> Outcome<RotateResult> {
    dashboard.rotate_secret().await
}

#[tauri::command]
pub async fn remember_screen(dashboard: Shared<'_>, screen: String) -> Outcome<()> {
    dashboard.remember_screen(&screen).await
}

#[tauri::command]
pub async fn overview(dashboard: Shared<'_>) -> Outcome<Overview> {
    dashboard.overview().await
}

#[tauri::command]
pub async fn list_cards(dashboard: Shared<'_>) -> Outcome<Vec<CardRecord>> {
    dashboard.cards().await
}

#[tauri::command]
pub async fn card_recurring(dashboard: Shared<'_>, card_id: i64) -> Outcome<Vec<RecurringStream>> {
    dashboard.card_recurring(card_id).await
}

#[tauri::command]
pub async fn test_cards(dashboard: Shared<'_>) -> Outcome<Vec<SandboxCard>> {
    dashboard.test_cards().await
}

#[tauri::command]
pub async fn enroll_card(dashboard: Shared<'_>, card: EnrollCardRequest) -> Outcome<EnrollCardResponse> {
    dashboard.enroll_card(card).await
}

/// Starts a secure card-entry page and opens it in the system browser.
#[tauri::command]
pub async fn start_card_session<R: Runtime>(app: AppHandle<R>, dashboard: Shared<'_>) -> Outcome<SecurePage> {
    let page = dashboard.start_card_session().await?;
    Ok(open_page(&app, page))
}

/// Follows a card-entry page until it completes or expires; stopped with `stop_watch`.
#[tauri::command]
pub async fn watch_card_session(
    dashboard: Shared<'_>,
    watches: State<'_, Watches>,
    session_id: i64,
    on_update: Channel<Result<CardSession, CommandError>>,
) -> Outcome<u32> {
    let dashboard = Arc::clone(&dashboard);
    Ok(watches.spawn(async move {
        let outcome =
            dashboard.wait_for_card_session(session_id, |session| on_update.send(Ok(session.clone())).is_ok());
        if let Err(error) = outcome.await
            && !error.is(codes::CANCELLED)
        {
            let _ = on_update.send(Err(error));
        }
    }))
}

#[tauri::command]
pub async fn simulate_transaction(dashboard: Shared<'_>, card_id: i64) -> Outcome<CardTransaction> {
    dashboard.simulate_transaction(card_id).await
}

#[tauri::command]
pub async fn simulate_purchase(
    dashboard: Shared<'_>,
    request: SandboxTransactionRequest,
) -> Outcome<SandboxTransactionResponse> {
    dashboard.simulate_purchase(request).await
}

#[tauri::command]
pub async fn load_transactions(
    dashboard: Shared<'_>,
    card_id: i64,
    on_batch: Channel<Batch<CardTransaction>>,
) -> Outcome<u32> {
    dashboard.load_transactions(card_id, |batch| on_batch.send(batch).is_ok()).await
}

#[tauri::command]
pub async fn watch_transactions(
    dashboard: Shared<'_>,
    watches: State<'_, Watches>,
    card_id: i64,
    on_event: Channel<LiveEvent<CardTransaction>>,
) -> Outcome<u32> {
    let dashboard = Arc::clone(&dashboard);
    Ok(watches.spawn(async move {
        subscriber_dashboard::live::watch(&dashboard, card_id, |event| on_event.send(event).is_ok()).await;
    }))
}

#[tauri::command]
pub async fn stop_watch(watches: State<'_, Watches>, watch_id: u32) -> Outcome<()> {
    if let Some(task) = watches.running.lock().remove(&watch_id) {
        task.abort();
    }
    Ok(())
}

#[tauri::command]
pub async fn export_transactions_csv<R: Runtime>(
    app: AppHandle<R>,
    dashboard: Shared<'_>,
    card_id: i64,
    transaction_ids: Vec<i64>,
) -> Outcome<Option<ExportResult>> {
    match save_path(&app, &format!("card-{card_id}-transactions.csv")).await? {
        Some(path) => dashboard.export_csv(card_id, &transaction_ids, &path).map(Some),
        None => Ok(None),
    }
}

#[tauri::command]
pub async fn merchant(dashboard: Shared<'_>) -> Outcome<Option<Merchant>> {
    dashboard.merchant().await
}

#[tauri::command]
pub fn countries(dashboard: Shared<'_>) -> Outcome<Vec<Country>> {
    Ok(dashboard.countries())
}

#[tauri::command]
pub async fn search_categories(dashboard: Shared<'_>, query: String) -> Outcome<Vec<MerchantCategory>> {
    dashboard.search_categories(&query).await
}

#[tauri::command]
pub fn check_merchant(dashboard: Shared<'_>, merchant: EnrollMerchantRequest) -> Outcome<FieldErrors> {
    Ok(dashboard.check_merchant(&merchant))
}

#[tauri::command]
pub async fn enroll_merchant(dashboard: Shared<'_>, merchant: EnrollMerchantRequest) -> Outcome<Merchant> {
    dashboard.enroll_merchant(merchant).await
}

#[tauri::command]
pub fn check_location(dashboard: Shared<'_>, location: LocationInput) -> Outcome<FieldErrors> {
    Ok(dashboard.check_location(&location))
}

#[tauri::command]
pub async fn add_location(dashboard: Shared<'_>, location: LocationInput) -> Outcome<CreateLocationResponse> {
    dashboard.add_location(location).await
}

#[tauri::command]
pub fn statement_descriptor(
    dashboard: Shared<'_>,
    merchant_name: String,
    city: String,
) -> Outcome<StatementDescriptor> {
    Ok(dashboard.statement_descriptor(&merchant_name, &city))
}

#[tauri::command]
pub async fn merchant_sales(dashboard: Shared<'_>, query: SalesQuery) -> Outcome<MerchantSales> {
    dashboard.merchant_sales(query).await
}

#[tauri::command]
pub async fn load_merchant_transactions(
    dashboard: Shared<'_>,
    on_batch: Channel<Batch<MerchantTransaction>>,
) -> Outcome<u32> {
    dashboard.load_merchant_transactions(|batch| on_batch.send(batch).is_ok()).await
}

#[tauri::command]
pub async fn watch_merchant_transactions(
    dashboard: Shared<'_>,
    watches: State<'_, Watches>,
    on_event: Channel<LiveEvent<MerchantTransaction>>,
) -> Outcome<u32> {
    let merchant_id = dashboard.merchant_stream_id().await?;
    let dashboard = Arc::clone(&dashboard);
    Ok(watches.spawn(async move {
        subscriber_dashboard::live::watch_merchant(&dashboard, merchant_id, |event| on_event.send(event).is_ok()).await;
    }))
}

#[tauri::command]
pub async fn export_merchant_csv<R: Runtime>(
    app: AppHandle<R>,
    dashboard: Shared<'_>,
    transaction_ids: Vec<i64>,
) -> Outcome<Option<ExportResult>> {
    match save_path(&app, "merchant-transactions.csv").await? {
        Some(path) => dashboard.export_merchant_csv(&transaction_ids, &path).map(Some),
        None => Ok(None),
    }
}

#[tauri::command]
pub async fn lookup(dashboard: Shared<'_>, query: LookupQuery) -> Outcome<Lookup> {
    dashboard.lookup(query).await
}

/// Enriches a CSV of descriptors (read by the page from a file the user chose) and saves it.
#[tauri::command]
pub async fn enrich_csv<R: Runtime>(
    app: AppHandle<R>,
    dashboard: Shared<'_>,
    csv_text: String,
    file_name: String,
) -> Outcome<Option<EnrichedFile>> {
    let stem = file_name.trim_end_matches(".csv").trim_end_matches(".CSV");
    let stem: String = stem.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')).take(60).collect();
    let name = if stem.is_empty() { "transactions-enriched.csv".to_owned() } else { format!("{stem}-enriched.csv") };
    match save_path(&app, &name).await? {
        Some(path) => dashboard.enrich_csv(&csv_text, &path).await.map(Some),
        None => Ok(None),
    }
}

#[tauri::command]
pub async fn recent_lookups(dashboard: Shared<'_>) -> Outcome<Vec<Lookup>> {
    Ok(dashboard.recent_lookups().await)
}

#[tauri::command]
pub async fn banks(dashboard: Shared<'_>) -> Outcome<Vec<Bank>> {
    dashboard.banks().await
}

#[tauri::command]
pub async fn accounts(dashboard: Shared<'_>) -> Outcome<Vec<Account>> {
    dashboard.accounts().await
}

/// Starts linking an account at `bank` and opens the bank's sign-in page in the browser.
#[tauri::command]
pub async fn link_account<R: Runtime>(app: AppHandle<R>, dashboard: Shared<'_>, bank: String) -> Outcome<SecurePage> {
    let page = dashboard.link_account(&bank).await?;
    Ok(open_page(&app, page))
}

/// Follows an account until it is no longer pending; stopped with `stop_watch`.
#[tauri::command]
pub async fn watch_account(
    dashboard: Shared<'_>,
    watches: State<'_, Watches>,
    account_id: i64,
    on_update: Channel<Result<Account, CommandError>>,
) -> Outcome<u32> {
    let dashboard = Arc::clone(&dashboard);
    Ok(watches.spawn(async move {
        let outcome = dashboard.wait_for_account(account_id, |account| on_update.send(Ok(account.clone())).is_ok());
        if let Err(error) = outcome.await
            && !error.is(codes::CANCELLED)
        {
            let _ = on_update.send(Err(error));
        }
    }))
}

#[tauri::command]
pub async fn account_transactions(dashboard: Shared<'_>, account_id: i64) -> Outcome<Vec<AccountTransaction>> {
    dashboard.account_transactions(account_id).await
}

/// Opens a page of the connected service again (the "Open again" of a waiting state).
#[tauri::command]
pub async fn open_secure_page<R: Runtime>(app: AppHandle<R>, dashboard: Shared<'_>, url: String) -> Outcome<()> {
    dashboard.check_own_url(&url).await?;
    open_in_browser(&app, &url)
}

#[tauri::command]
pub async fn webhooks(dashboard: Shared<'_>) -> Outcome<Vec<Webhook>> {
    dashboard.webhooks().await
}

#[tauri::command]
pub fn check_webhook(dashboard: Shared<'_>, request: CreateWebhookRequest) -> Outcome<FieldErrors> {
    Ok(dashboard.check_webhook(&request))
}

#[tauri::command]
pub async fn create_webhook(dashboard: Shared<'_>, request: CreateWebhookRequest) -> Outcome<Webhook> {
    dashboard.create_webhook(request).await
}

#[tauri::command]
pub async fn update_webhook(dashboard: Shared<'_>, webhook_id: i64, change: UpdateWebhookRequest) -> Outcome<Webhook> {
    dashboard.update_webhook(webhook_id, change).await
}

#[tauri::command]
pub async fn delete_webhook(dashboard: Shared<'_>, webhook_id: i64) -> Outcome<WebhookDeleted> {
    dashboard.delete_webhook(webhook_id).await
}

#[tauri::command]
pub async fn rotate_webhook_secret(dashboard: Shared<'_>, webhook_id: i64) -> Outcome<Webhook> {
    dashboard.rotate_webhook_secret(webhook_id).await
}

#[tauri::command]
pub async fn test_webhook(dashboard: Shared<'_>, webhook_id: i64) -> Outcome<WebhookQueued> {
    dashboard.test_webhook(webhook_id).await
}

#[tauri::command]
pub async fn webhook_deliveries(dashboard: Shared<'_>, webhook_id: i64) -> Outcome<Vec<WebhookDelivery>> {
    dashboard.webhook_deliveries(webhook_id).await
}

#[tauri::command]
pub async fn resend_webhook_delivery(
    dashboard: Shared<'_>,
    webhook_id: i64,
    event_id: String,
) -> Outcome<WebhookQueued> {
    dashboard.resend_webhook_delivery(webhook_id, event_id).await
}

#[tauri::command]
pub async fn webhook(dashboard: Shared<'_>, webhook_id: i64) -> Outcome<Webhook> {
    dashboard.webhook(webhook_id).await
}

#[tauri::command]
pub async fn recover_webhook_deliveries(
    dashboard: Shared<'_>,
    webhook_id: i64,
    since: String,
) -> Outcome<WebhookRecovered> {
    dashboard.recover_webhook_deliveries(webhook_id, since).await
}

#[tauri::command]
pub async fn events(dashboard: Shared<'_>, event_type: Option<String>) -> Outcome<Vec<Event>> {
    dashboard.events(event_type).await
}

/// The account's recent requests, each with its route, whether the app made it by itself, its
/// headers and a cURL line.
#[tauri::command]
pub async fn request_log(dashboard: Shared<'_>) -> Outcome<Vec<LoggedCall>> {
    dashboard.request_log().await
}

#[tauri::command]
pub async fn api_versions(dashboard: Shared<'_>) -> Outcome<ApiVersions> {
    dashboard.api_versions().await
}

#[tauri::command]
pub async fn set_api_version(dashboard: Shared<'_>, version: ApiVersion) -> Outcome<ApiVersions> {
    dashboard.set_api_version(version).await
}

#[tauri::command]
pub async fn persons(dashboard: Shared<'_>) -> Outcome<Vec<Person>> {
    dashboard.persons().await
}

#[tauri::command]
pub async fn person(dashboard: Shared<'_>, person_id: i64) -> Outcome<Person> {
    dashboard.person(person_id).await
}

#[tauri::command]
pub async fn onboard_person(dashboard: Shared<'_>, person: OnboardPersonRequest) -> Outcome<Person> {
    dashboard.onboard_person(person).await
}

#[tauri::command]
pub fn check_personal_info(dashboard: Shared<'_>, information: AuthenticatePersonRequest) -> Outcome<FieldErrors> {
    Ok(dashboard.check_personal_info(&information))
}

#[tauri::command]
pub async fn authenticate_person(
    dashboard: Shared<'_>,
    information: AuthenticatePersonRequest,
) -> Outcome<AuthenticatePersonResponse> {
    dashboard.authenticate_person(information).await
}

#[tauri::command]
pub async fn verify_person(dashboard: Shared<'_>, answers: VerifyPersonRequest) -> Outcome<VerifyPersonResponse> {
    dashboard.verify_person(answers).await
}

/// The first screen is usable. With `SUBSCRIBER_DASHBOARD_TIMING=1` this prints a line the
/// start-up benchmark waits for.
#[tauri::command]
pub fn app_ready() -> Outcome<()> {
    if std::env::var_os("SUBSCRIBER_DASHBOARD_TIMING").is_some() {
        println!("subscriber-dashboard: ready");
    }
    Ok(())
}

/// The screens asked for from outside the page (a `subscriber-data://` link, a notification's
/// click) arrive on `on_route`, as route names (`card/12`).
#[tauri::command]
pub fn watch_navigation(navigation: State<'_, crate::desktop::Navigation>, on_route: Channel<String>) -> Outcome<()> {
    navigation.listen(on_route);
    Ok(())
}

#[tauri::command]
pub async fn palette_index(dashboard: Shared<'_>) -> Outcome<PaletteIndex> {
    dashboard.palette_index().await
}

#[tauri::command]
pub async fn event(dashboard: Shared<'_>, event_id: String) -> Outcome<Event> {
    dashboard.event(&event_id).await
}

#[tauri::command]
pub async fn notification_settings(dashboard: Shared<'_>) -> Outcome<NotificationSettings> {
    Ok(dashboard.notification_settings().await)
}

#[tauri::command]
pub async fn set_notification_settings(dashboard: Shared<'_>, settings: NotificationSettings) -> Outcome<()> {
    dashboard.set_notification_settings(settings).await
}

/// A notification now, so the person sees how they look (a click opens the settings).
#[tauri::command]
pub fn show_test_notification<R: Runtime>(app: AppHandle<R>) -> Outcome<()> {
    crate::desktop::notify(
        &app,
        &Notice {
            kind: NoticeKind::Purchase,
            title: "Notifications are on".to_owned(),
            body: "Sales, purchases, webhook trouble and identity outcomes show like this.".to_owned(),
            route: "settings".to_owned(),
        },
    );
    Ok(())
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
    app.dialog().file().add_filter("CSV", &["csv"]).set_file_name(file_name).save_file(move |path| {
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
