//! A TCP forwarder that delays every byte both ways: a database "on another host" for tests
//! and benchmarks that must see what round trips cost (`DelayProxy::start(upstream, 1 ms)`
//! makes a 2 ms round trip). Order is kept in each direction; nothing is dropped.
//!
//! Threads, not an async runtime: an async timer rounds a 1 ms wait up to its next tick, which
//! made the "2 ms" round trip 4.4 ms; a thread's sleep holds to about a tenth of a millisecond.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A running forwarder; it forwards for the life of the process.
pub struct DelayProxy {
    pub address: SocketAddr,
}

impl DelayProxy {
    /// Listens on a free port of 127.0.0.1 and forwards each connection to `upstream`,
    /// holding every chunk `delay` in each direction.
    pub fn start(upstream: SocketAddr, delay: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        std::thread::Builder::new().name("delay-accept".into()).spawn(move || {
            for inbound in listener.incoming().map_while(Result::ok) {
                if let Ok(outbound) = TcpStream::connect(upstream) {
                    let _ = forward(inbound, outbound, delay);
                }
            }
        })?;
        Ok(Self { address })
    }
}

fn forward(inbound: TcpStream, outbound: TcpStream, delay: Duration) -> std::io::Result<()> {
    inbound.set_nodelay(true)?;
    outbound.set_nodelay(true)?;
    pipe(inbound.try_clone()?, outbound.try_clone()?, delay)?;
    pipe(outbound, inbound, delay)
}

/// Copies `from` to `to` on two threads, each chunk written `delay` after it was read.
fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) -> std::io::Result<()> {
    let (chunks, due) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::Builder::new().name("delay-read".into()).spawn(move || {
        let mut buffer = vec![0u8; 64 * 1024];
        while let Ok(read) = from.read(&mut buffer) {
            if read == 0 || chunks.send((Instant::now() + delay, buffer[..read].to_vec())).is_err() {
                break;
            }
        }
    })?;
    std::thread::Builder::new().name("delay-write".into()).spawn(move || {
        for (at, chunk) in due {
            let now = Instant::now();
            if at > now {
                std::thread::sleep(at - now);
            }
            if to.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    })?;
    Ok(())
}
