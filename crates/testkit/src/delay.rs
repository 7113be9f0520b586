//! A TCP forwarder that delays every byte both ways: a database "on another host" for tests
//! and benchmarks that must see what round trips cost (`DelayProxy::start(upstream, 1 ms)`
//! makes a 2 ms round trip). Order is kept in each direction; nothing is dropped.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// A running forwarder; stops accepting when dropped (open connections end with their peers).
pub struct DelayProxy {
    pub address: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl DelayProxy {
    /// Listens on a free port of 127.0.0.1 and forwards each connection to `upstream`,
    /// holding every chunk `delay` in each direction.
    pub async fn start(upstream: SocketAddr, delay: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                tokio::spawn(async move {
                    if let Ok(outbound) = TcpStream::connect(upstream).await {
                        forward(inbound, outbound, delay).await;
                    }
                });
            }
        });
        Ok(Self { address, task })
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(inbound: TcpStream, outbound: TcpStream, delay: Duration) {
    let _ = inbound.set_nodelay(true);
    let _ = outbound.set_nodelay(true);
    let (inbound_read, inbound_write) = inbound.into_split();
    let (outbound_read, outbound_write) = outbound.into_split();
    tokio::join!(pipe(inbound_read, outbound_write, delay), pipe(outbound_read, inbound_write, delay));
}

/// Copies `from` to `to`, each chunk written `delay` after it was read.
async fn pipe(mut from: tokio::net::tcp::OwnedReadHalf, mut to: tokio::net::tcp::OwnedWriteHalf, delay: Duration) {
    let (chunks, mut due) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reader = async move {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => {
                    if chunks.send((Instant::now() + delay, buffer[..read].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    };
    let writer = async move {
        while let Some((at, chunk)) = due.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reader, writer);
}
