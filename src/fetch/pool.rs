//! Idle keep-alive connections, kept per origin for the next exchange with the same server.
//!
//! Opening a connection costs both ends more than a small page does (a TCP handshake, a
//! socket on each side, and for `https` a TLS handshake), so a connection whose exchange ended
//! cleanly on a declared length, with the server agreeing to keep it open, waits here for a
//! while. Every idle connection is bounded in time (`idle_for`) and in number (per origin and in
//! all), so a crawl of many hosts never holds more than [`MAX_IDLE`] sockets it is not using,
//! none for long past `idle_for`.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// Most idle connections kept in all.
pub(crate) const MAX_IDLE: usize = 256;
/// Most idle connections kept for one origin (the politeness rules seldom allow more in flight).
const MAX_IDLE_PER_ORIGIN: usize = 4;

/// An open connection, plain or TLS.
pub(crate) enum Conn {
    /// `http`.
    Plain(TcpStream),
    /// `https`.
    Tls(Box<TlsStream<TcpStream>>),
}

impl Conn {
    fn tcp(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => s.get_ref().0,
        }
    }

    /// Whether nothing is left over on the connection now that its exchange has ended: no
    /// bytes waiting in the socket, and for TLS, no record rustls has already taken in and not
    /// handed out (the socket probe cannot see those). A server that sends more than it
    /// declared is thus caught when the surplus has arrived by then, and again when the
    /// connection is taken ([`Conn::still_open`]).
    fn drained(&mut self) -> bool {
        if let Conn::Tls(s) = self {
            let tls = s.get_mut().1;
            match tls.process_new_packets() {
                Ok(state) if state.plaintext_bytes_to_read() == 0 && !state.peer_has_closed() => {}
                _ => return false,
            }
        }
        self.still_open()
    }

    /// Whether an idle connection can still carry a request: the server has neither closed it
    /// nor sent anything unasked (an idle connection that became readable is unusable either
    /// way). Nothing is waited for.
    fn still_open(&self) -> bool {
        let mut probe = [0u8; 1];
        matches!(self.tcp().try_read(&mut probe), Err(e) if e.kind() == io::ErrorKind::WouldBlock)
    }
}

/// Where a connection leads: a connection is reused only for the same scheme, host name (the
/// TLS name and the `Host` header), address and port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Origin {
    pub tls: bool,
    pub host: String,
    pub ip: IpAddr,
    pub port: u16,
}

/// The idle connections.
pub(crate) struct Pool {
    idle_for: Duration,
    inner: Mutex<Idle>,
}

struct Idle {
    by_origin: HashMap<Origin, Vec<(Conn, Instant)>>,
    count: usize,
    /// When expired connections were last dropped.
    swept: Instant,
}

impl Idle {
    /// Drops every connection idle longer than `idle_for`.
    fn expire(&mut self, now: Instant, idle_for: Duration) {
        self.swept = now;
        let mut count = 0;
        self.by_origin.retain(|_, conns| {
            conns.retain(|(_, since)| now.duration_since(*since) < idle_for);
            count += conns.len();
            !conns.is_empty()
        });
        self.count = count;
    }
}

impl Pool {
    /// A pool keeping connections idle for at most `idle_for` (zero: keep none).
    pub(crate) fn new(idle_for: Duration) -> Pool {
        Pool {
            idle_for,
            inner: Mutex::new(Idle {
                by_origin: HashMap::new(),
                count: 0,
                swept: Instant::now(),
            }),
        }
    }

    /// Whether connections are kept at all.
    pub(crate) fn enabled(&self) -> bool {
        !self.idle_for.is_zero()
    }

    /// The most recently parked connection to `origin` that is still open, if any.
    pub(crate) fn take(&self, origin: &Origin) -> Option<Conn> {
        let now = Instant::now();
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let idle = &mut *guard;
        let conns = idle.by_origin.get_mut(origin)?;
        let mut found = None;
        while let Some((conn, since)) = conns.pop() {
            idle.count -= 1;
            if now.duration_since(since) < self.idle_for && conn.still_open() {
                found = Some(conn);
                break;
            }
        }
        if conns.is_empty() {
            idle.by_origin.remove(origin);
        }
        found
    }

    /// Closes every idle connection (their descriptors are wanted elsewhere).
    pub(crate) fn clear(&self) {
        let mut idle = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        idle.by_origin.clear();
        idle.count = 0;
    }

    /// Parks a connection whose exchange ended cleanly, unless something is left over on it
    /// or the pool is full (it is closed then). Connections idle past their time are closed
    /// here too, at most once per `idle_for`, so none outlives it by more than that.
    pub(crate) fn put(&self, origin: Origin, mut conn: Conn) {
        if !self.enabled() || !conn.drained() {
            return;
        }
        let now = Instant::now();
        let mut idle = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if idle.count >= MAX_IDLE || now.duration_since(idle.swept) >= self.idle_for {
            idle.expire(now, self.idle_for);
            if idle.count >= MAX_IDLE {
                return;
            }
        }
        let conns = idle.by_origin.entry(origin).or_default();
        if conns.len() >= MAX_IDLE_PER_ORIGIN {
            return;
        }
        conns.push((conn, now));
        idle.count += 1;
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
