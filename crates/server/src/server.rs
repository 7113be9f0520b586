//! Running the service: bind, serve, shut down cleanly.

use std::future::Future;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::state::AppState;

/// Serves `config` until `shutdown` resolves, finishing requests in flight.
pub async fn serve(config: Config, shutdown: impl Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
    let listener = TcpListener::bind(config.listen).await?;
    let config = config.with_bound_address(listener.local_addr()?);
    let state = AppState::new(config).await?;
    run(listener, state, shutdown).await
}

async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let address = listener.local_addr()?;
    let background = crate::background::spawn(&state);
    tracing::info!(
        environment = %state.environment(),
        database = %state.config.database.display(),
        "listening on http://{address}"
    );
    let app = crate::app(state.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let events = state.events.clone();
    let shutdown = async move {
        shutdown.await;
        // Open event streams would keep graceful shutdown waiting forever.
        events.close();
    };
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await?;
    background.abort();
    if let Err(error) = state.usage.flush(&state.db).await {
        tracing::warn!(error = %error, "usage counts not saved at shutdown");
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

/// Binds `config.listen` (port 0 picks a free port) and serves in the background.
pub async fn start(config: Config) -> anyhow::Result<RunningServer> {
    let listener = TcpListener::bind(config.listen).await?;
    let address = listener.local_addr()?;
    let config = config.with_bound_address(address);
    let state = AppState::new(config).await?;
    let (shutdown, signal) = oneshot::channel::<()>();
    let task = tokio::spawn(run(listener, state.clone(), async move {
        let _ = signal.await;
    }));
    Ok(RunningServer { address, state, shutdown: Some(shutdown), task })
}
