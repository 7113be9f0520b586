//! Running the service: bind, serve, shut down cleanly.
//!
//! The listener opens first and answers the health probes while the service loads (see
//! [`crate::operations`]); "listening on http://…" is logged once it is ready.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::config::Config;
use crate::operations::Gate;
use crate::state::AppState;

/// Serves `config` until `shutdown` resolves, finishing requests in flight.
pub async fn serve(config: Config, shutdown: impl Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
    let listener = TcpListener::bind(config.listen).await?;
    let config = config.with_bound_address(listener.local_addr()?);
    run(listener, config, shutdown, None, Directory::Preload).await
}

/// When the merchant directory loads (see [`crate::directory::LazyDirectory`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Directory {
    /// Before the service is ready (`/readyz` waits for it): a standalone service's first
    /// discovery or enrollment does not wait.
    Preload,
    /// On first use: an embedded service starts and settles without it.
    OnFirstUse,
}

async fn load(config: Config, directory: Directory) -> anyhow::Result<AppState> {
    config.check()?;
    let state = AppState::new(config).await?;
    if directory == Directory::Preload {
        state.directory.get().await?;
    }
    Ok(state)
}

/// Serves on `listener` at once, loads the service, then serves it until `shutdown`.
/// `ready` gets the state once the service is loaded.
async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
    ready: Option<oneshot::Sender<AppState>>,
    directory: Directory,
) -> anyhow::Result<()> {
    let address = listener.local_addr()?;
    let gate = Gate::new(config.database.clone());
    let metrics: Option<tokio::task::JoinHandle<()>> = match config.metrics_listen {
        #[cfg(feature = "metrics")]
        Some(metrics_address) => Some(crate::operations::exporter::serve(metrics_address, Arc::clone(&gate)).await?),
        // The desktop app's embedded sandbox is built without the exporter.
        #[cfg(not(feature = "metrics"))]
        Some(_) => anyhow::bail!("--metrics-listen: this build has no metrics exporter (the `metrics` feature is off)"),
        None => None,
    };
    let (stop, stopping) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        stop.send_replace(true);
    });
    let app = crate::operations::router(Arc::clone(&gate), config.local_guard.as_ref(), address)
        .into_make_service_with_connect_info::<SocketAddr>();
    let mut graceful = stopping.clone();
    let serving = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = graceful.wait_for(|stop| *stop).await;
            })
            .await
    });
    tracing::info!("accepting connections on http://{address} while starting: /readyz answers 503 until loaded");

    let mut interrupted = stopping.clone();
    let loaded = tokio::select! {
        state = load(config, directory) => Some(state),
        _ = interrupted.wait_for(|stop| *stop) => None,
    };
    let state = match loaded {
        Some(Ok(state)) => state,
        Some(Err(error)) => {
            serving.abort();
            metrics.inspect(JoinHandle::abort);
            return Err(error);
        }
        None => {
            return async move {
                serving.await??;
                metrics.inspect(JoinHandle::abort);
                tracing::info!("stopped while starting");
                Ok(())
            }
            .instrument(crate::logging::task_span("shutdown"))
            .await;
        }
    };

    let background = crate::background::spawn(&state);
    gate.open(state.clone(), crate::app(state.clone()));
    tracing::info!(
        environment = %state.environment(),
        database = %state.config.database,
        "listening on http://{address}"
    );
    if let Some(ready) = ready {
        let _ = ready.send(state.clone());
    }
    let mut interrupted = stopping;
    let _ = interrupted.wait_for(|stop| *stop).await;
    shut_down(state, serving, background, metrics).instrument(crate::logging::task_span("shutdown")).await
}

/// Finishes the requests in flight, stops the background work, saves what is kept in memory:
/// every line it logs says `task=shutdown`.
async fn shut_down(
    state: AppState,
    serving: JoinHandle<std::io::Result<()>>,
    background: crate::background::Background,
    metrics: Option<JoinHandle<()>>,
) -> anyhow::Result<()> {
    // Open event streams would keep graceful shutdown waiting forever.
    state.events.close();
    serving.await??;
    background.abort();
    metrics.inspect(JoinHandle::abort);
    if let Err(error) = state.usage.flush(&state.db).await {
        tracing::warn!(error = %error, "usage counts not saved at shutdown");
    }
    if let Err(error) = state.request_history.flush(&state.db).await {
        tracing::warn!(error = %error, "the last requests not written to the history at shutdown");
    }
    tracing::info!("stopped");
    Ok(())
}

/// A service running in the background on its own task.
pub struct RunningServer {
    pub address: SocketAddr,
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl RunningServer {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Stops accepting, finishes requests in flight, and waits for the end.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        self.task.await?
    }
}

/// Binds `config.listen` (port 0 picks a free port) and serves in the background; returns
/// once the service is loaded. The merchant directory loads on first use.
pub async fn start(config: Config) -> anyhow::Result<RunningServer> {
    let listener = TcpListener::bind(config.listen).await?;
    let address = listener.local_addr()?;
    let config = config.with_bound_address(address);
    let (shutdown, signal) = oneshot::channel::<()>();
    let (ready, loaded) = oneshot::channel();
    let task = tokio::spawn(run(
        listener,
        config,
        async move {
            let _ = signal.await;
        },
        Some(ready),
        Directory::OnFirstUse,
    ));
    match loaded.await {
        Ok(state) => Ok(RunningServer { address, state, shutdown: Some(shutdown), task }),
        // The service stopped before it was loaded: its error says why.
        Err(_) => Err(match task.await {
            Ok(Err(error)) => error,
            Ok(Ok(())) => anyhow::anyhow!("the service stopped while starting"),
            Err(error) => error.into(),
        }),
    }
}
