//! The log: text for a person or one JSON object per line for a collector, and the spans that
//! give every line its context.
//!
//! - A request is served inside the span `http::context` opens (`request_id`, `method`,
//!   `route`); background work runs inside [`task_span`] (`task`). In JSON the fields of the
//!   spans a line is logged in are at its top level beside the event's own, so every line of a
//!   request carries its `request_id` and every line of a task its `task`.
//! - Every value is written with its control characters escaped ([`crate::redact`]), in both
//!   formats: nothing a client sent can start a line of its own or colour a terminal.

use std::fmt;
use std::io::IsTerminal;

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

use crate::config::LogFormat;
use crate::redact::escape_controls;

/// The span background work runs in: every line it logs names the task.
///
/// ```ignore
/// tasks.spawn(work.instrument(task_span("webhook delivery")));
/// ```
pub fn task_span(task: &'static str) -> tracing::Span {
    tracing::info_span!("task", task)
}

/// Installs the process's logger (once, at start-up): `filter` in `EnvFilter` syntax (`info`
/// when it cannot be read), lines in `format` on standard output.
pub fn init(format: LogFormat, filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let logger = tracing_subscriber::fmt().with_env_filter(filter).with_target(false);
    match format {
        LogFormat::Text => logger
            .with_ansi(std::io::stdout().is_terminal())
            .fmt_fields(tracing_subscriber::fmt::format::debug_fn(write_text_field).delimited(" "))
            .init(),
        LogFormat::Json => logger.fmt_fields(JsonFields::new()).event_format(FlatJson).init(),
    }
}

/// One field of a text line: `name=value`, the message bare, control characters escaped.
fn write_text_field(writer: &mut Writer<'_>, field: &Field, value: &dyn fmt::Debug) -> fmt::Result {
    let text = escape_controls(&format!("{value:?}"));
    if field.name() == "message" { write!(writer, "{text}") } else { write!(writer, "{}={text}", field.name()) }
}

/// A JSON line: `timestamp`, `level`, the fields of the spans the event is in (outermost
/// first), then the event's own fields (`message` among them); a field named twice keeps the
/// innermost value.
struct FlatJson;

impl<S, N> FormatEvent<S, N> for FlatJson
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, context: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let mut line = Map::new();
        line.insert("timestamp".to_owned(), Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true).into());
        line.insert("level".to_owned(), event.metadata().level().as_str().into());
        if let Some(scope) = context.event_scope() {
            for span in scope.from_root() {
                let extensions = span.extensions();
                // The spans' fields, as `JsonFields` wrote them: a JSON object.
                if let Some(fields) = extensions.get::<FormattedFields<N>>()
                    && let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(fields)
                {
                    line.extend(fields);
                }
            }
        }
        event.record(&mut JsonVisitor(&mut line));
        for value in line.values_mut() {
            if let Value::String(text) = value {
                *text = escape_controls(text);
            }
        }
        writeln!(writer, "{}", Value::Object(line))
    }
}

/// An event's fields as JSON values: numbers and booleans as such, the rest as text.
struct JsonVisitor<'a>(&'a mut Map<String, Value>);

impl Visit for JsonVisitor<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.into());
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.insert(field.name().to_owned(), value.to_string().into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}").into());
    }
}
