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
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

use crate::redact::escape_controls;

/// How log lines are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

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
        LogFormat::Text => logger.with_ansi(std::io::stdout().is_terminal()).fmt_fields(EscapedFields).init(),
        LogFormat::Json => logger.fmt_fields(JsonFields::new()).event_format(FlatJson).init(),
    }
}

/// Where a line from the `log` crate came from (`log.target`, `log.file`, …): noise in a line.
fn is_log_origin(field: &Field) -> bool {
    field.name().starts_with("log.")
}

/// The fields of a text line: `name=value` separated by spaces, the message bare, control
/// characters escaped.
struct EscapedFields;

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, mut writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = TextVisitor(String::new());
        fields.record(&mut visitor);
        writer.write_str(&visitor.0)
    }
}

struct TextVisitor(String);

impl Visit for TextVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if is_log_origin(field) {
            return;
        }
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        let text = escape_controls(&format!("{value:?}"));
        if field.name() == "message" {
            self.0.push_str(&text);
        } else {
            self.0.push_str(&format!("{}={text}", field.name()));
        }
    }
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
        line.retain(|name, _| !name.starts_with("log."));
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

    fn record_i128(&mut self, field: &Field, value: i128) {
        let value = i64::try_from(value).map_or_else(|_| value.to_string().into(), Value::from);
        self.0.insert(field.name().to_owned(), value);
    }

    fn record_u128(&mut self, field: &Field, value: u128) {
        let value = u64::try_from(value).map_or_else(|_| value.to_string().into(), Value::from);
        self.0.insert(field.name().to_owned(), value);
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
