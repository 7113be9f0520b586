//! `subscriber-server`: parse the flags, log, serve until SIGINT or SIGTERM.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::Config;
use crate::config::LogFormat;

/// The command line's entry point (also used by the black-box tests' copy of the binary).
pub fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    let logger = tracing_subscriber::fmt().with_env_filter(filter).with_target(false);
    match config.log_format {
        LogFormat::Text => logger.with_ansi(std::io::stdout().is_terminal()).init(),
        // One object per line, the event's fields at the top level beside timestamp and level.
        LogFormat::Json => logger.json().flatten_event(true).with_current_span(false).with_span_list(false).init(),
    }
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(crate::serve(config, shutdown_signal()))
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %error, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(error = %error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down: finishing requests in flight");
}
