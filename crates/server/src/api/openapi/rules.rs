//! The validation rules of the request bodies and parameters, stated in the document.
//!
//! The wire types give the shapes; the rules live in `subscriber_protocol::rules` (its
//! limits and reference tables) and in the service (the sandbox's test cards, the banks, the sandbox's test cards, today's date), so they are written into
//! the document here. A schema states exactly what the service accepts: a request the
//! schema allows is not rejected for its form, and one it forbids is (the fuzzer checks
//! both ways). Patterns use the JSON Schema (ECMA-262) syntax, anchored.

use chrono::{Datelike, NaiveDate, Utc};
use serde_json::{Map, Value, json};
use subscriber_protocol::{Environment, MAX_PAGE_LIMIT};

use crate::accounts::banks::BANKS;
use crate::cards::test_cards::TEST_CARDS;
use crate::config::Config;
use subscriber_protocol::rules::merchants::{CITY_MAX, NAME_MAX, STREET_MAX, STREET_NO_MAX, WEBSITE_MAX, ZIP_MAX};
use subscriber_protocol::rules::{cards, countries, hosted, labels, mcc, persons, webhooks};

/// What Rust's `str::trim` removes: Unicode White_Space.
const SPACE: &str = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
/// What `char::is_control` finds.
const CONTROL: &str = r"\x00-\x1f\x7f-\x9f";

/// Text the service trims, then requires non-empty and free of control characters.
fn text_core() -> String {
    format!("[^{SPACE}{CONTROL}](?:[^{CONTROL}]*[^{SPACE}{CONTROL}])?")
}

fn text(max: usize) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max,
        "pattern": format!("^[{SPACE}]*{}[{SPACE}]*$", text_core())})
}

/// Optional text where a blank value counts as not sent.
fn optional_text(max: usize) -> Value {
    json!({"type": ["string", "null"], "maxLength": max,
        "pattern": format!("^[{SPACE}]*(?:{})?[{SPACE}]*$", text_core())})
}

/// Address fields that take a number too (`"12b"` or `12`), read as its digits.
fn text_or_integer(max: usize, extra_pattern: Option<&str>, integers: (i64, u64)) -> Value {
    let pattern = match extra_pattern {
        Some(allowed) => format!("^[{SPACE}]*{allowed}[{SPACE}]*$"),
        None => format!("^[{SPACE}]*{}[{SPACE}]*$", text_core()),
    };
    json!({"oneOf": [
        {"type": "string", "minLength": 1, "maxLength": max, "pattern": pattern},
        {"type": "integer", "minimum": integers.0, "maximum": integers.1},
    ]})
}

fn email() -> Value {
    let local = format!("[^@{SPACE}{CONTROL}]+");
    let label = format!("[^@.{SPACE}{CONTROL}]+");
    json!({"type": "string", "maxLength": subscriber_protocol::rules::MAX_EMAIL_LENGTH,
        "pattern": format!("^[{SPACE}]*{local}@{label}(?:\\.{label})+[{SPACE}]*$"),
        "examples": ["dev@example.com"]})
}

/// The countries, once in `components.schemas.CountryCode`.
fn country_code() -> Value {
    let codes: Vec<&str> = countries::all().into_iter().map(|(code, _)| code).collect();
    json!({"type": "string", "enum": codes, "description": "A country, ISO 3166-1 alpha-3 (any case is accepted).",
        "examples": ["USA"]})
}

fn countries() -> Value {
    json!({"$ref": "#/components/schemas/CountryCode"})
}

/// The event types, once in `components.schemas.EventType`.
fn event_type() -> Value {
    json!({"type": "string", "enum": subscriber_protocol::EVENT_TYPES,
        "description": "What happened: the type of an event."})
}

/// What an endpoint subscribes to, once in `components.schemas.EventSubscription`: an event
/// type, or `*` for every type.
fn event_subscription() -> Value {
    json!({"anyOf": [
        {"$ref": "#/components/schemas/EventType"},
        {"type": "string", "const": subscriber_protocol::ALL_EVENTS, "description": "Every event type."},
    ], "description": "An event type, or `*` for every type."})
}

/// The years of the next 20 an expiry may name, in two and four digits.
fn expiry_years(this_year: u32) -> Value {
    let ahead = cards::MAX_YEARS_AHEAD;
    json!({"oneOf": [
        {"type": "integer", "minimum": this_year % 100, "maximum": this_year % 100 + ahead},
        {"type": "integer", "minimum": this_year, "maximum": this_year + ahead},
    ], "description": format!("Two digits (30) or four (2030); not past, at most {ahead} years ahead.")})
}

/// `YYYY-MM-DD` of a real day (29 February left out) of one of `years` (a pattern).
fn date_pattern(years: &str) -> String {
    let day = "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))";
    format!("{years}-{day}")
}

/// A regular expression for the four-digit years `first..=last`.
fn year_range(first: i32, last: i32) -> String {
    let years: Vec<String> = (first..=last).map(|year| format!("{year:04}")).collect();
    format!("(?:{})", years.join("|"))
}

/// Any `YYYY-MM-DD` the service reads as a day, or an RFC 3339 time.
fn time_bound() -> Value {
    let date = date_pattern("[0-9]{4}");
    let time =
        "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
    json!({"type": "string",
        "pattern": format!("^[{SPACE}]*{date}(?:[Tt]{time})?[{SPACE}]*$"),
        "description": "A day (2026-01-31: the whole day, UTC) or an RFC 3339 time (2026-01-31T12:00:00Z).",
        "examples": ["2026-01-31"]})
}

fn cursor() -> Value {
    json!({"type": "string", "pattern": "^(?:[0-9]{1,18}\\.[0-9]{1,18})?$",
        "description": "The `nextCursor` of the previous page; empty is the first page."})
}

pub fn refine(document: &mut Value, config: &Config) {
    let today = Utc::now().date_naive();
    let schemas = &mut document["components"]["schemas"];
    schemas["CountryCode"] = country_code();
    schemas["EventType"] = event_type();
    schemas["EventSubscription"] = event_subscription();
    subscriber_schemas(schemas, config);
    card_schemas(schemas, config, today);
    webhook_schemas(schemas, config);
    merchant_schemas(schemas);
    bank_account_schemas(schemas);
    person_schemas(schemas, today);
    label_schemas(schemas);
    sandbox_schemas(schemas);
    stream_bodies(document);
    parameter_schemas(document);
}

/// `clientUserId` as the service takes it: 1 to 128 characters, no control character, no
/// space at either end (it is matched exactly).
fn client_user_id() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": labels::CLIENT_USER_ID_CHARS_AT_MOST,
        "pattern": format!("^{}$", text_core()), "examples": ["user_42"]})
}

/// `metadata`: at most 20 pairs, each key 1 to 40 characters without control characters,
/// each value a string of at most 500 ("" removes the key in a `PATCH`, and is left out at
/// creation).
fn metadata(nullable: bool) -> Value {
    json!({"type": if nullable { json!(["object", "null"]) } else { json!("object") },
        "maxProperties": labels::METADATA_PAIRS_AT_MOST,
        "propertyNames": {"minLength": 1, "maxLength": labels::METADATA_KEY_CHARS_AT_MOST,
            "pattern": format!("^[^{CONTROL}]*$")},
        "additionalProperties": {"type": "string", "maxLength": labels::METADATA_VALUE_CHARS_AT_MOST},
        "examples": [{"plan": "gold"}],
        "description": "The subscriber's own notes: up to 20 string pairs (key 1 to 40 characters, value at most 500), returned on reads and in events, used for nothing else. In a PATCH, keys merge and a key sent with \"\" is removed."})
}

fn label_schemas(schemas: &mut Value) {
    for schema in ["EnrollCardRequest", "CreateCardSessionRequest", "EnrollAccountRequest", "OnboardPersonRequest"] {
        let mut user = client_user_id();
        user["type"] = json!(["string", "null"]);
        set(schemas, schema, "clientUserId", user);
        set(schemas, schema, "metadata", metadata(true));
    }
    set(schemas, "CreateLocationRequest", "metadata", metadata(true));
    set(schemas, "UpdateLocationRequest", "metadata", metadata(true));
    set(schemas, "UpdateMetadataRequest", "metadata", metadata(false));
}

fn subscriber_schemas(schemas: &mut Value, config: &Config) {
    set(schemas, "SignupRequest", "email", email());
    // PATCH /subscriber: any of its fields, one at least given (not null).
    let mut display_name = text(hosted::DISPLAY_NAME_MAX);
    display_name["type"] = json!(["string", "null"]);
    set(schemas, "UpdateSubscriberRequest", "displayName", display_name);
    set(
        schemas,
        "UpdateSubscriberRequest",
        "brandColor",
        json!({"type": ["string", "null"], "pattern": "^#[0-9A-Fa-f]{6}$", "examples": ["#1f5fbf"]}),
    );
    // The form `return_url::registered` takes for sure: https, a DNS name (its last label not
    // a number, which would be read as an IPv4 address), a port, a path and query, no user
    // info, no fragment, no spaces.
    let https = format!("^[{SPACE}]*[Hh][Tt][Tt][Pp][Ss]://{HOST}{PORT}{PATH}[{SPACE}]*$");
    set(
        schemas,
        "UpdateSubscriberRequest",
        "returnUrls",
        json!({"type": ["array", "null"], "maxItems": hosted::RETURN_URLS_MAX,
            "items": {"type": "string", "maxLength": RETURN_URL_MAX, "pattern": https,
                "examples": ["https://app.example.com/return"]}}),
    );
    let given = ["apiVersion", "displayName", "brandColor", "returnUrls"]
        .map(|field| json!({"required": [field], "properties": {field: {"not": {"type": "null"}}}}));
    schema(schemas, "UpdateSubscriberRequest")["anyOf"] = json!(given);
    // A hosted page's `returnUrl`: whether it is taken depends on the subscriber's registered
    // return URLs, which no pattern states; the schema gives the form a sandbox always takes
    // (http or https to this machine), the description the rule.
    let return_url = match config.environment {
        Environment::Sandbox => json!({"type": ["string", "null"], "maxLength": RETURN_URL_MAX,
            "pattern": format!("^[{SPACE}]*[Hh][Tt][Tt][Pp][Ss]?://(?:[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127\\.0\\.0\\.1){PORT}{PATH}[{SPACE}]*$"),
            "description": "Where the browser goes when the person is done: a URL beginning with one of the \
                registered return URLs (PATCH /subscriber), or (this sandbox) http or https to localhost or \
                127.0.0.1.", "examples": ["http://localhost:3000/done"]}),
        _ => json!({"type": ["string", "null"], "maxLength": RETURN_URL_MAX, "pattern": https,
            "description": "Where the browser goes when the person is done: a URL beginning with one of the \
                registered return URLs (PATCH /subscriber), else 400.",
            "examples": ["https://app.example.com/return"]}),
    };
    set(schemas, "CreateCardSessionRequest", "returnUrl", return_url.clone());
    set(schemas, "EnrollAccountRequest", "returnUrl", return_url.clone());
    set(schemas, "ReauthAccountRequest", "returnUrl", return_url.clone());
    set(schemas, "CreatePersonSessionRequest", "returnUrl", return_url);
}

/// The longest return URL (`return_url::URL_MAX`).
const RETURN_URL_MAX: usize = crate::return_url::URL_MAX;
/// A DNS name whose last label begins with a letter.
const HOST: &str = "(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
/// A port number, 0 to 65535.
const PORT: &str = "(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?";
/// A path and query: no space, control character or fragment.
const PATH: &str =
    "(?:[/?][^#\\s\\x00-\\x1f\\x7f-\\x9f\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?";

fn card_schemas(schemas: &mut Value, config: &Config, today: NaiveDate) {
    let this_year = u32::try_from(today.year()).unwrap_or(2026);
    let pan = match config.environment {
        Environment::Sandbox => {
            let pans: Vec<&str> = TEST_CARDS.iter().map(|card| card.pan).collect();
            let numbers: Vec<u64> = pans.iter().filter_map(|pan| pan.parse().ok()).collect();
            json!({"oneOf": [{"type": "string", "enum": pans}, {"type": "integer", "enum": numbers}],
                "description": "The sandbox takes only its test cards (GET /sandbox/cards), as a string or a number."})
        }
        _ => json!({"oneOf": [{"type": "string", "pattern": "^[0-9]{16}$"}, {"type": "integer"}],
            "description": "Refused through the API in this environment (403 pan_not_accepted): use POST /card/session."}),
    };
    schemas["Pan"] = pan;
    set(schemas, "EnrollCardRequest", "firstName", text(cards::MAX_NAME_LENGTH));
    set(schemas, "EnrollCardRequest", "lastName", text(cards::MAX_NAME_LENGTH));
    set(schemas, "EnrollCardRequest", "expMonth", json!({"type": "integer", "minimum": 1, "maximum": 12}));
    set(schemas, "EnrollCardRequest", "expYear", expiry_years(this_year));
    set(schemas, "EnrollCardRequest", "countryCode", countries());
    // An expiry this year must not be a month already past.
    schema(schemas, "EnrollCardRequest")["allOf"] = json!([{
        "if": {"properties": {"expYear": {"enum": [this_year % 100, this_year]}}, "required": ["expYear"]},
        "then": {"properties": {"expMonth": {"minimum": today.month()}}},
    }]);
    set(
        schemas,
        "SpendingDelta",
        "direction",
        json!({"type": "string", "enum": ["increasing", "decreasing", "stable"]}),
    );
}

fn webhook_schemas(schemas: &mut Value, config: &Config) {
    // Webhooks. Where a URL may point depends on what its name resolves to, which no pattern
    // states: the schema gives the form a sandbox allowed to reach this machine always takes
    // (`--webhooks-allow-private`: http to loopback), the description the rule.
    // The form the service checks (`rules::webhooks::url`): http(s), a host, no user or
    // password, no fragment, no spaces; then where the name resolves, which no pattern states.
    let path = "(?::[0-9]{1,5})?(?:[/?][^#\\s\\x00-\\x1f\\x7f]*)?";
    let url = match config.environment {
        Environment::Sandbox if config.webhooks_allow_private => {
            json!({"type": "string", "maxLength": webhooks::URL_MAX,
            "pattern": format!("^(?:[Hh][Tt][Tt][Pp][Ss]://[^/?#@\\s\\[\\]]+|[Hh][Tt][Tt][Pp][Ss]?://(?:127\\.0\\.0\\.1|localhost|\\[::1\\])){path}$"),
            "description": "Where events are sent: https to a public address, or (this sandbox) http or https to \
                loopback or a private network (127.0.0.1, [::1], localhost, a private address).",
            "examples": ["http://127.0.0.1:4000/webhooks"]})
        }
        _ => json!({"type": "string", "maxLength": webhooks::URL_MAX,
            "pattern": format!("^[Hh][Tt][Tt][Pp][Ss]://[^/?#@\\s\\[\\]]+{path}$"),
            "description": "Where events are sent: https, to a name or address that is not loopback, private, \
                link-local or reserved (else 400).", "examples": ["https://example.com/webhooks"]}),
    };
    let events = json!({"type": "array", "minItems": 1,
        "items": {"$ref": "#/components/schemas/EventSubscription"},
        "description": "Event types, or [\"*\"] for all."});
    // `Event` is the catalogue's discriminated union: each variant states its own `type`.
    set(schemas, "WebhookDelivery", "eventType", json!({"$ref": "#/components/schemas/EventType"}));
    set(schemas, "Webhook", "events", json!({"type": "array", "items": events["items"].clone()}));
    set(schemas, "CreateWebhookRequest", "url", url.clone());
    set(schemas, "CreateWebhookRequest", "events", events.clone());
    set(schemas, "CreateWebhookRequest", "description", optional_text(webhooks::DESCRIPTION_MAX));
    let mut optional_url = url;
    optional_url["type"] = json!(["string", "null"]);
    set(schemas, "UpdateWebhookRequest", "url", optional_url);
    let mut optional_events = events;
    optional_events["type"] = json!(["array", "null"]);
    set(schemas, "UpdateWebhookRequest", "events", optional_events);
    set(schemas, "UpdateWebhookRequest", "description", optional_text(webhooks::DESCRIPTION_MAX));
}

fn merchant_schemas(schemas: &mut Value) {
    let codes: Vec<&str> = mcc::all().map(|(code, _)| code).collect();
    let numbers: Vec<u32> = codes.iter().filter_map(|code| code.parse().ok()).collect();
    schemas["CategoryCode"] = json!({"oneOf": [{"type": "string", "enum": codes}, {"type": "integer", "enum": numbers}],
        "description": "A merchant category code of GET /merchant/categories (ISO 18245), as \"5812\" or 5812."});
    set(schemas, "EnrollMerchantRequest", "name", text(NAME_MAX));
    set(schemas, "EnrollMerchantRequest", "countryCode", countries());
    let phone = format!("^[{SPACE}]*(?:\\+?[ .()-]*(?:[0-9][ .()-]*){{5,15}})?[{SPACE}]*$");
    set(
        schemas,
        "EnrollMerchantRequest",
        "phoneNumber",
        json!({"oneOf": [
        {"type": "string", "pattern": phone},
        {"type": "integer", "minimum": 10_000, "maximum": 999_999_999_999_999_i64},
        {"type": "integer", "minimum": -999_999_999_999_999_i64, "maximum": -10_000},
        {"type": "null"},
    ], "description": "5 to 15 digits with the usual separators; blank is none."}),
    );
    let label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
    let website = format!(
        "^[{SPACE}]*(?:(?:[Hh][Tt][Tt][Pp][Ss]?://)?(?:{label}\\.)+[A-Za-z]{{2,63}}(?::[0-9]+)?(?:[/?#][^{SPACE}{CONTROL}]*)?)?[{SPACE}]*$"
    );
    set(
        schemas,
        "EnrollMerchantRequest",
        "website",
        json!({"type": ["string", "null"], "maxLength": WEBSITE_MAX,
        "pattern": website, "description": "An http(s) address or a bare domain; blank is none."}),
    );

    set(schemas, "EnrichInput", "countryCode", json!({"anyOf": [countries(), {"type": "null"}]}));
    set(schemas, "EnrichInput", "id", text(64));
    set(schemas, "EnrichInput", "city", optional_text(100));
    set(schemas, "EnrichInput", "zip", optional_text(20));
    set(schemas, "EnrichInput", "amount", json!({"type": ["number", "null"], "minimum": -1e12, "maximum": 1e12}));
    location_schemas(schemas, "LocationInput", false);
    // A change takes the same rules field by field (the service checks it as a new location);
    // a field left out or null stays as it is.
    location_schemas(schemas, "LocationChanges", true);
}

/// The rules of a location's fields in `name`; `changes`: each may be null (not changed).
fn location_schemas(schemas: &mut Value, name: &str, changes: bool) {
    let field = |rule: Value| if changes { json!({"anyOf": [rule, {"type": "null"}]}) } else { rule };
    set(schemas, name, "countryCode", field(countries()));
    set(schemas, name, "street", field(text(STREET_MAX)));
    set(schemas, name, "streetNo", field(text_or_integer(STREET_NO_MAX, None, (i64::MIN, u64::MAX))));
    set(schemas, name, "city", field(text(CITY_MAX)));
    let zip = "[A-Za-z0-9-](?:[A-Za-z0-9 -]*[A-Za-z0-9-])?";
    set(schemas, name, "zip", field(text_or_integer(ZIP_MAX, Some(zip), (-99_999_999_999, 999_999_999_999))));
    set(schemas, name, "latitude", json!({"type": ["number", "null"], "minimum": -90, "maximum": 90}));
    set(schemas, name, "longitude", json!({"type": ["number", "null"], "minimum": -180, "maximum": 180}));
    // Coordinates come in pairs.
    schema(schemas, name)["allOf"] = json!([
        {"if": {"properties": {"latitude": {"type": "number"}}, "required": ["latitude"]},
         "then": {"properties": {"longitude": {"type": "number"}}, "required": ["longitude"]}},
        {"if": {"properties": {"longitude": {"type": "number"}}, "required": ["longitude"]},
         "then": {"properties": {"latitude": {"type": "number"}}, "required": ["latitude"]}},
    ]);
    if changes {
        // At least one field.
        schema(schemas, name)["minProperties"] = json!(1);
    }
}

fn bank_account_schemas(schemas: &mut Value) {
    let banks: Vec<&str> = BANKS.iter().flat_map(|bank| [bank.id, bank.name]).collect();
    set(
        schemas,
        "EnrollAccountRequest",
        "bank",
        json!({"type": "string", "enum": banks,
        "description": "A bank of GET /banks, by id or name (any case is accepted)."}),
    );
}

fn person_schemas(schemas: &mut Value, today: NaiveDate) {
    set(schemas, "OnboardPersonRequest", "firstName", text(persons::MAX_NAME_LENGTH));
    set(schemas, "OnboardPersonRequest", "lastName", text(persons::MAX_NAME_LENGTH));
    set(schemas, "OnboardPersonRequest", "email", email());
    // Adults up to 120: the years every birthday of which is in range today.
    let (youngest, oldest) = (today.year() - persons::ADULT_AGE - 1, today.year() - persons::OLDEST_AGE);
    set(
        schemas,
        "AuthenticatePersonRequest",
        "dateOfBirth",
        json!({"type": "string",
        "pattern": format!("^[{SPACE}]*{}[{SPACE}]*$", date_pattern(&year_range(oldest, youngest))),
        "description": "YYYY-MM-DD; the person is 18 to 120 years old.", "examples": ["1987-04-23"]}),
    );
    set(
        schemas,
        "AuthenticatePersonRequest",
        "phoneNumber",
        json!({"type": ["string", "null"],
        "pattern": format!("^[ +().-]*(?:[0-9][ +().-]*){{{},{}}}$",
            persons::PHONE_DIGITS.start(), persons::PHONE_DIGITS.end())}),
    );
    set(schemas, "AuthenticatePersonRequest", "ssnLast4", json!({"type": ["string", "null"], "pattern": "^[0-9]{4}$"}));
    let address_max = persons::MAX_ADDRESS_FIELD_LENGTH;
    set(schemas, "PersonAddress", "street", text(address_max));
    set(schemas, "PersonAddress", "streetNo", text(persons::MAX_STREET_NO_LENGTH));
    set(schemas, "PersonAddress", "city", text(address_max));
    set(
        schemas,
        "PersonAddress",
        "zip",
        json!({"type": "string", "minLength": 1, "maxLength": persons::MAX_ZIP_LENGTH,
        "pattern": format!("^[{SPACE}]*[A-Za-z0-9-](?:[A-Za-z0-9 -]*[A-Za-z0-9-])?[{SPACE}]*$")}),
    );
    set(schemas, "PersonAddress", "countryCode", countries());
}

fn sandbox_schemas(schemas: &mut Value) {
    set(
        schemas,
        "SandboxTransactionRequest",
        "amount",
        json!({"type": ["number", "null"],
        "minimum": -crate::sandbox::MAX_AMOUNT, "maximum": crate::sandbox::MAX_AMOUNT, "multipleOf": 0.01,
        "not": {"const": 0}, "description": "Major units, 2 decimals; negative for a refund."}),
    );
    set(schemas, "SandboxTransactionRequest", "merchantName", optional_text(NAME_MAX));
    set(
        schemas,
        "SandboxTransactionRequest",
        "createdAt",
        json!({"type": ["string", "null"], "format": "date-time",
        "description": "RFC 3339, from 36 months ago to now; now when absent."}),
    );
    set(schemas, "SandboxSnapshotRequest", "name", text(subscriber_protocol::SNAPSHOT_NAME_MAX));
    set(schemas, "SandboxEventRequest", "type", json!({"$ref": "#/components/schemas/EventType"}));
    set(schemas, "SandboxEventRequest", "objectId", json!({"type": ["integer", "null"], "minimum": 1}));
    set(
        schemas,
        "SandboxSettleRequest",
        "amount",
        json!({"type": ["number", "null"],
        "minimum": -crate::sandbox::MAX_AMOUNT, "maximum": crate::sandbox::MAX_AMOUNT, "multipleOf": 0.01,
        "not": {"const": 0}, "description": "Major units, 2 decimals, of the purchase's sign."}),
    );
    set(
        schemas,
        "SandboxRefundRequest",
        "amount",
        json!({"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": crate::sandbox::MAX_AMOUNT,
        "multipleOf": 0.01, "description": "Major units, 2 decimals; all that is left when absent."}),
    );
    set(
        schemas,
        "ClockAdvanceRequest",
        "seconds",
        json!({"type": "integer", "minimum": 1,
        "maximum": subscriber_protocol::MAX_CLOCK_ADVANCE_SECONDS}),
    );
}

fn stream_bodies(document: &mut Value) {
    // The two streams: the body is Server-Sent Events text, as generators should take it (a
    // string, read as it comes); each event's fields are described beside it, its `data` the
    // list item as JSON (`x-event`: OpenAPI 3.1 has no word for the items of a stream).
    for (path, item) in [
        ("/card/{card_id}/transactions/stream", "CardTransaction"),
        ("/merchant/{merchant_id}/transactions/stream", "MerchantTransaction"),
    ] {
        let content = document.get_mut("paths").and_then(|paths| {
            paths.get_mut(path)?.get_mut("get")?.get_mut("responses")?.get_mut("200")?.get_mut("content")
        });
        if let Some(content) = content {
            content["text/event-stream"] = json!({
                "schema": {"type": "string", "description": format!("Server-Sent Events without end: `event: \
                    transaction`, `id: evt_…`, and `data:` one {item} as JSON, per event.")},
                "x-event": {
                    "type": "object", "required": ["data"],
                    "properties": {
                        "event": {"const": "transaction"},
                        "id": {"type": "string", "pattern": "^evt_[0-9]+$"},
                        "data": {"type": "string", "contentMediaType": "application/json",
                            "contentSchema": {"$ref": format!("#/components/schemas/{item}")}},
                    },
                },
            });
        }
    }
}

fn parameter_schemas(document: &mut Value) {
    let items = document.get_mut("paths").and_then(Value::as_object_mut).into_iter().flat_map(|paths| paths.iter_mut());
    for (path, item) in items {
        for operation in item.as_object_mut().into_iter().flat_map(Map::values_mut) {
            let parameters = operation.get_mut("parameters").and_then(Value::as_array_mut);
            for parameter in parameters.into_iter().flatten() {
                refine_parameter(path, parameter);
            }
        }
    }
}

fn refine_parameter(path: &str, parameter: &mut Value) {
    // A parameter is text on the wire: absent is its only "null".
    if let Some(types) = parameter["schema"]["type"].as_array()
        && let [single] = types.iter().filter(|kind| *kind != "null").collect::<Vec<_>>()[..]
    {
        parameter["schema"]["type"] = single.clone();
    }
    let name = parameter["name"].as_str().unwrap_or_default().to_owned();
    let discovery = path == "/merchant/discover";
    let rule = match (parameter["in"].as_str(), name.as_str()) {
        (Some("query"), "limit") if discovery => Some(json!({"type": "integer", "minimum": 1,
            "maximum": crate::discovery::MAX_LIMIT, "default": crate::discovery::DEFAULT_LIMIT})),
        (Some("query"), "merchid" | "street" | "streetNo" | "city" | "zip") if discovery => {
            Some(json!({"type": "string", "minLength": 1, "maxLength": 200, "pattern": format!("[^{SPACE}]")}))
        }
        (Some("query"), "countryCode") if discovery => Some(countries()),
        (Some("query"), "latitude") if discovery => Some(json!({"type": "number", "minimum": -90, "maximum": 90})),
        (Some("query"), "longitude") if discovery => Some(json!({"type": "number", "minimum": -180, "maximum": 180})),
        (Some("query"), "radius") if discovery => Some(json!({"type": "number", "exclusiveMinimum": 0,
            "maximum": crate::discovery::MAX_RADIUS, "description": "Metres around latitude/longitude (default 1000)."})),
        (Some("query"), "limit") => Some(
            json!({"type": "integer", "minimum": 1, "maximum": MAX_PAGE_LIMIT, "default": subscriber_protocol::DEFAULT_PAGE_LIMIT}),
        ),
        (Some("query"), "cursor") if path == "/events" => Some(json!({"type": "string",
            "pattern": "^(?:evt_[0-9]{1,18})?$", "description": "The `nextCursor` of the previous page; empty is the first page."})),
        (Some("query"), "cursor") if path.ends_with("/deliveries") => Some(json!({"type": "string",
            "pattern": "^[0-9]{0,18}$", "description": "The `nextCursor` of the previous page; empty is the first page."})),
        (Some("query"), "cursor") => Some(cursor()),
        (Some("query"), "since") => Some(time_bound()),
        (Some("query"), "type") if path == "/events" => Some(json!({"$ref": "#/components/schemas/EventType"})),
        (Some("query"), "from" | "to") => Some(time_bound()),
        (Some("path"), "client_user_id") => Some(client_user_id()),
        _ => None,
    };
    if let Some(rule) = rule {
        parameter["schema"] = rule;
    }
}

/// The schema `name` the document has, to change in place.
fn schema<'a>(schemas: &'a mut Value, name: &str) -> &'a mut Value {
    if schemas.get(name).is_none() {
        // As in `set`: a rule naming a schema the document lacks stops every debug build.
        #[cfg(debug_assertions)]
        panic!("the OpenAPI rules name the schema {name}, which the document does not have");
        #[cfg(not(debug_assertions))]
        tracing::error!(schema = name, "the OpenAPI rules name a schema the document does not have");
    }
    &mut schemas[name]
}

/// Replaces the schema of `property`, keeping its description when the rule has none.
fn set(schemas: &mut Value, schema: &str, property: &str, mut rule: Value) {
    let Some(existing) = schemas.get_mut(schema).and_then(|schema| schema.get_mut("properties")?.get_mut(property))
    else {
        // A rule that names nothing is a rule not applied: every debug build (each test server)
        // refuses to start with it, so a renamed field or a misspelling cannot pass unseen.
        #[cfg(debug_assertions)]
        panic!("the OpenAPI rules name {schema}.{property}, which the schema does not have");
        #[cfg(not(debug_assertions))]
        {
            tracing::error!(schema, property, "the OpenAPI rules name a property the schema does not have");
            return;
        }
    };
    if rule.get("description").is_none()
        && let Some(description) = existing.get("description").cloned()
    {
        rule["description"] = description;
    }
    *existing = rule;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "which the schema does not have")]
    fn a_rule_naming_a_property_the_schema_lacks_fails() {
        let mut schemas = json!({"EnrollCardRequest": {"properties": {"firstName": {}}}});
        set(&mut schemas, "EnrollCardRequest", "firstname", text(10));
    }

    #[test]
    #[should_panic(expected = "which the document does not have")]
    fn a_rule_naming_a_schema_the_document_lacks_fails() {
        let mut schemas = json!({"LocationInput": {"properties": {}}});
        schema(&mut schemas, "LocationInputs")["allOf"] = json!([]);
    }

    #[test]
    fn a_rule_keeps_the_property_description() {
        let mut schemas = json!({"SignupRequest": {"properties": {"email": {"description": "Where we write."}}}});
        set(&mut schemas, "SignupRequest", "email", email());
        assert_eq!(schemas["SignupRequest"]["properties"]["email"]["description"], "Where we write.");
        assert!(schemas["SignupRequest"]["properties"]["email"]["pattern"].is_string());
    }
}
