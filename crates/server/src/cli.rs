//! `subscriber-server`: parse the flags, log, serve until SIGINT or SIGTERM.

use clap::Parser;

use crate::Config;

/// The command line's entry point (also used by the black-box tests' copy of the binary).
pub fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    crate::logging::init(config.log_format, &config.log);
    // Before anything is opened: every stream is a file.
    crate::open_files::raise_and_check(&config)?;
    let signal = tracing::Instrument::instrument(shutdown_signal(), crate::logging::task_span("shutdown"));
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(crate::serve(config, signal))
}

/// SIGINT or SIGTERM (its lines are the shutdown task's).
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
