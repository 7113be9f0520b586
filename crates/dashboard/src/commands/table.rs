// The dashboard's commands, each declared once: its name, what the window sends (named as the
// window names them, in camelCase), what it gets back. `for_each_command!(then)` hands the whole
// table to the macro `then`, which makes of it:
// - the Tauri commands and their handler (`src-tauri/src/commands.rs`);
// - the permissions of the window's capability (`src-tauri/build.rs`, which includes this file);
// - the UI's typed functions, `ui/src/lib/bindings/commands.ts` (`super::typescript`, written
//   by `make bindings`, checked by `make bindings-check`).
// A `Channel<T>` argument is a stream of `T` from the app to the window. This file holds the
// table alone: the build script reads it without the crate.

/// Hands the command table to the macro `$then`, as entries
/// `/// docs` `name(argument: Type, ...) -> Returned;`.
#[macro_export]
macro_rules! for_each_command {
    ($then:ident) => {
        $then! {
            // ---- The connection, the session, the credentials ----
            /// The connection, the session, the OS keyring and the screen shown last.
            status() -> AppStatus;
            /// Chooses the environment: starts the embedded sandbox, or checks a remote service.
            connect(target: ConnectionTarget) -> ConnectionInfo;
            sign_up(email: String) -> SignupResult;
            log_in(input: LoginInput) -> SessionInfo;
            sign_out() -> ();
            forget_remembered() -> ();
            reveal_secret() -> String;
            rotate_secret() -> RotateResult;
            /// Keeps the screen shown (`cards`, `card/12`, `accounts`...) to open it after the
            /// next sign-in.
            remember_screen(screen: String) -> ();
            overview() -> Overview;

            // ---- Cards and their transactions ----
            list_cards() -> Vec<CardRecord>;
            test_cards() -> Vec<SandboxCard>;
            /// A card's subscriptions and bills, the latest paid first.
            card_recurring(card_id: CardId) -> Vec<RecurringStream>;
            /// A CSV's rows enriched and saved where the person chooses; `null` when the save
            /// was cancelled.
            enrich_csv(csv_text: String, file_name: String) -> Option<EnrichedFile>;
            enroll_card(card: EnrollCardRequest) -> EnrollCardResponse;
            /// Removes a card: the service erases it with its transactions.
            remove_card(card_id: CardId) -> RemoveCardResponse;
            /// Starts a secure card-entry page and opens it in the browser.
            start_card_session() -> SecurePage;
            /// Follows a card-entry page until it completes or expires; answers the watch's id
            /// (`stop_watch`).
            watch_card_session(session_id: CardSessionId, on_update: Channel<Result<CardSession, CommandError>>) -> u32;
            simulate_transaction(card_id: CardId) -> CardTransaction;
            /// A sandbox purchase now, e.g. at one of the merchant's locations by one of the cards.
            simulate_purchase(request: SandboxTransactionRequest) -> SandboxTransactionResponse;
            /// Settles a pending sandbox purchase now, at `amount` when given (a tip).
            settle_transaction(transaction_id: TransactionId, amount: Option<f64>) -> CardTransaction;
            /// Refunds `amount` of a settled sandbox purchase (all that is left when `null`);
            /// answers the refund.
            refund_transaction(transaction_id: TransactionId, amount: Option<f64>) -> CardTransaction;
            /// Reverses a pending sandbox purchase: it leaves the lists.
            reverse_transaction(transaction_id: TransactionId) -> SandboxReversal;
            /// Moves the account's sandbox clock ahead: pending purchases settle, pages and
            /// consents expire as if that time had passed.
            advance_sandbox_clock(seconds: i64) -> ClockAdvanced;
            /// Deletes everything of the account's sandbox but the account itself.
            reset_sandbox() -> SandboxReset;
            /// The account's sandbox snapshots, newest first.
            sandbox_snapshots() -> Vec<SandboxSnapshot>;
            /// A snapshot of the account's sandbox as it is now, named in the person's words.
            take_sandbox_snapshot(name: String) -> SandboxSnapshot;
            /// Puts the account's sandbox back as a snapshot held it: what was made since is gone.
            restore_sandbox_snapshot(snapshot_id: SnapshotId) -> SandboxRestored;
            /// Deletes a snapshot (the sandbox stays as it is).
            delete_sandbox_snapshot(snapshot_id: SnapshotId) -> SandboxSnapshotDeleted;
            /// Every transaction of a card, page by page on `on_batch`; answers the row count.
            load_transactions(card_id: CardId, on_batch: Channel<Batch<CardTransaction>>) -> u32;
            /// Live transactions of a card; answers the watch's id (`stop_watch`).
            watch_transactions(card_id: CardId, on_event: Channel<LiveEvent<CardTransaction>>) -> u32;
            /// Stops a watch (a live stream, a page followed).
            stop_watch(watch_id: u32) -> ();
            /// Asks where to save, then writes those rows; `null` when the person cancels.
            export_transactions_csv(card_id: CardId, transaction_ids: Vec<TransactionId>) -> Option<ExportResult>;

            // ---- The merchant, its locations and sales, lookup ----
            /// The subscriber's merchant, or `null` before enrolling.
            merchant() -> Option<Merchant>;
            /// Every country the service accepts (alpha-3 code and name), by name.
            countries() -> Vec<Country>;
            /// Categories matching a code (`58`, `5812`) or words of the description, best first.
            search_categories(query: String) -> Vec<MerchantCategory>;
            /// The form checked by the service's rules: every field error at once (empty when valid).
            check_merchant(merchant: EnrollMerchantRequest) -> FieldErrors;
            enroll_merchant(merchant: EnrollMerchantRequest) -> Merchant;
            /// Field errors named `location.street`, `location.latitude`...
            check_location(location: LocationInput) -> FieldErrors;
            /// What card statements print for a location of the merchant so named in that city
            /// (22 characters).
            statement_descriptor(merchant_name: String, city: String) -> StatementDescriptor;
            /// The merchant's sales over the days asked for against as many days before, in total
            /// and per location.
            merchant_sales(query: SalesQuery) -> MerchantSales;
            add_location(location: LocationInput) -> CreateLocationResponse;
            /// Corrects a location's address; without coordinates they are found again.
            update_location(location_id: LocationId, change: UpdateLocationRequest) -> Location;
            /// Removes a location: its past sales keep their address.
            remove_location(location_id: LocationId) -> LocationRemoved;
            /// Every transaction across the merchant's locations, page by page on `on_batch`.
            load_merchant_transactions(on_batch: Channel<Batch<MerchantTransaction>>) -> u32;
            /// Live transactions at the merchant's locations; answers the watch's id.
            watch_merchant_transactions(on_event: Channel<LiveEvent<MerchantTransaction>>) -> u32;
            /// Asks where to save, then writes those rows; `null` when the person cancels.
            export_merchant_csv(transaction_ids: Vec<TransactionId>) -> Option<ExportResult>;
            /// Merchants by statement descriptor, address or position; kept among the session's
            /// lookups.
            lookup(query: LookupQuery) -> Lookup;
            /// This session's lookups, newest first.
            recent_lookups() -> Vec<Lookup>;

            // ---- Bank accounts, pages in the browser ----
            banks() -> Vec<Bank>;
            accounts() -> Vec<Account>;
            /// Removes a bank account: its bank access is revoked and its data erased.
            remove_account(account_id: AccountId) -> RemoveAccountResponse;
            /// Starts linking an account at `bank` and opens the bank's sign-in page in the browser.
            link_account(bank: String) -> SecurePage;
            /// Opens the bank's pages in update mode in the browser, for the person to renew a
            /// linked account's consent (the same account).
            renew_account(account_id: AccountId) -> SecurePage;
            /// Fetches what is new at the bank for a linked account.
            refresh_account(account_id: AccountId) -> Account;
            /// Follows an account until it is no longer pending; answers the watch's id.
            watch_account(account_id: AccountId, on_update: Channel<Result<Account, CommandError>>) -> u32;
            account_transactions(account_id: AccountId) -> Vec<AccountTransaction>;
            /// Opens a page of the connected service in the system browser (other addresses are
            /// refused).
            open_secure_page(url: String) -> ();

            // ---- Identity ----
            persons() -> Vec<Person>;
            person(person_id: PersonId) -> Person;
            /// Removes a person: their answers and signals are erased.
            remove_person(person_id: PersonId) -> RemovePersonResponse;
            /// A one-time identity page for the person to verify themselves on their own
            /// device (shown, copied or opened by the person at the app).
            person_page(person_id: PersonId) -> SecurePage;

            // ---- Notes and users ----
            /// Sets notes on a card, account, person or location (keys merge; "" removes one).
            update_metadata(object: Labelled, metadata: Metadata) -> Metadata;
            /// The cards, bank accounts and persons created with a `clientUserId`.
            user(client_user_id: String) -> EndUser;
            /// Erases everything of a user at once.
            remove_user(client_user_id: String) -> EndUserRemoved;
            onboard_person(person: OnboardPersonRequest) -> Person;
            /// The personal information checked by the service's own rules: every field error at
            /// once.
            check_personal_info(information: AuthenticatePersonRequest) -> FieldErrors;
            authenticate_person(information: AuthenticatePersonRequest) -> AuthenticatePersonResponse;
            verify_person(answers: VerifyPersonRequest) -> VerifyPersonResponse;

            // ---- Developers: webhook endpoints, their deliveries, events, requests, versions ----
            webhooks() -> Vec<Webhook>;
            /// The endpoint form checked by the service's own rules: every field error at once.
            check_webhook(request: CreateWebhookRequest) -> FieldErrors;
            /// The answer holds the endpoint's secret, shown once.
            create_webhook(request: CreateWebhookRequest) -> Webhook;
            update_webhook(webhook_id: WebhookId, change: UpdateWebhookRequest) -> Webhook;
            delete_webhook(webhook_id: WebhookId) -> WebhookDeleted;
            /// A new secret, shown once; the previous one keeps signing for 24 hours.
            rotate_webhook_secret(webhook_id: WebhookId) -> Webhook;
            test_webhook(webhook_id: WebhookId) -> WebhookQueued;
            webhook_deliveries(webhook_id: WebhookId) -> Vec<WebhookDelivery>;
            resend_webhook_delivery(webhook_id: WebhookId, event_id: String) -> WebhookQueued;
            /// One endpoint with its delivery queue: length, next attempt, last error.
            webhook(webhook_id: WebhookId) -> Webhook;
            /// Queues again every delivery to the endpoint that failed for good since `since`
            /// (RFC 3339).
            recover_webhook_deliveries(webhook_id: WebhookId, since: String) -> WebhookRecovered;
            events(event_type: Option<String>) -> Vec<Event>;
            /// Sends an event of a catalogue type now (sandbox only), marked as the sandbox's.
            send_sandbox_event(event_type: String) -> Event;
            /// The subscriber's request history through `query` (100 a page, newest first; an id
            /// typed in `objectId`: a request's or an object's), each with its route, whether the
            /// app made it by itself, its headers and a cURL line.
            request_log(query: RequestQuery) -> RequestLogView;
            /// One request of the history with the bodies it sent and got back (masked).
            request_detail(request_id: String) -> RequestDetailView;
            /// Every request through `query` with its bodies, saved as NDJSON where the person
            /// chooses; `null` when the save was cancelled.
            export_request_log(query: RequestQuery) -> Option<ExportResult>;
            /// The operations of the connected service's OpenAPI document, for the API shell.
            shell_operations() -> Vec<ShellOperation>;
            /// Sends one request as the API shell composed it (the session's token, the chosen
            /// version); the answer whatever its status.
            send_shell_request(request: ShellRequest) -> ShellAnswer;
            /// What an id leads to (`12`, `cardId:12`, `evt_40`, `req_…`): the object, its events,
            /// the requests that named it and the deliveries of its events.
            inspect(id: String) -> Inspection;
            /// The account's pinned API version and every version with what it changed.
            api_versions() -> ApiVersions;
            /// Moves the account's pin (after the person confirmed it).
            set_api_version(version: ApiVersion) -> ApiVersions;

            // ---- The desktop: start-up, screens asked for from outside, palette, notifications ----
            /// The first screen is usable (start-up timing).
            app_ready() -> ();
            /// Screens asked for by a `subscriber-data://` link or a notification's click, as
            /// route names (`card/12`); one asked for before the page listened comes at once.
            watch_navigation(on_route: Channel<String>) -> ();
            /// What the command palette searches, read when it opens.
            palette_index() -> PaletteIndex;
            /// One event by id (`evt_41`).
            event(event_id: String) -> Event;
            notification_settings() -> NotificationSettings;
            set_notification_settings(settings: NotificationSettings) -> ();
            /// A notification now, so the person sees how they look (a click opens the settings).
            show_test_notification() -> ();
        }
    };
}
