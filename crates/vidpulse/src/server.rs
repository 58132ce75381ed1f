//! The HTTP server's accept loop, and the watchdog that keeps clients from
//! holding connections they do not use.
//!
//! Each connection speaks HTTP/1 or HTTP/2, whichever its first bytes say.
//! hyper closes an HTTP/1 connection whose request header does not arrive
//! within the header timeout once it has started reading one, but nothing in
//! hyper bounds the wait for those first bytes (a client that sends nothing),
//! an HTTP/2 connection that never completes a request (the preface alone, or
//! a header block whose end never comes) or one that stays open between
//! requests. So every connection has a watchdog (`Activity`): it closes a
//! connection that has not started a request within the header timeout of
//! being accepted, or that has had no request in flight for the idle
//! timeout. A request counts as in flight from its complete header until its
//! response has been sent whole.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use vidpulse_api::ConnectionLimits;

/// How long a connection being closed (idle, or the server stopping) may
/// take to say goodbye (HTTP/2 `GOAWAY`) once no request is in flight on it;
/// then it is dropped, whether the client answered or not.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// Most requests one HTTP/2 connection may have in flight at once.
const H2_MAX_STREAMS: u32 = 100;

/// Most streams an HTTP/2 client may open and reset before the server has
/// accepted them, before it is sent `GOAWAY` (the "rapid reset" attack).
const H2_MAX_PENDING_RESETS: usize = 20;

/// Serves `router` on `listener` until `shutdown`, then lets the requests in
/// flight finish. Slow or idle clients cannot hold it: a connection must
/// complete a request's header within `limits.header_timeout` of being
/// accepted (HTTP/1 also between requests) and is closed once it has had no
/// request in flight for `limits.idle_timeout`; at most
/// `limits.max_connections` are served at once (further ones wait in the
/// listen queue); an accept error (out of file descriptors, say) is logged
/// and retried after a pause instead of stopping the server.
pub async fn serve_http(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let builder = Arc::new(protocols(&limits));
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let connections = TaskTracker::new();
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot?,
            () = shutdown.cancelled() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::error!(error = %e, "could not accept a connection; retrying");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = serve_connection(
            builder.clone(),
            stream,
            router.clone(),
            limits,
            shutdown.clone(),
        );
        connections.spawn(async move {
            connection.await;
            drop(slot);
        });
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    Ok(())
}

/// The HTTP/1 and HTTP/2 settings of every connection.
fn protocols(limits: &ConnectionLimits) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        // A peer silent for the idle time is pinged, and closed when it does
        // not answer within the header timeout: a dead client cannot keep a
        // response it will never read in flight.
        .keep_alive_interval(limits.idle_timeout)
        .keep_alive_timeout(limits.header_timeout)
        .max_concurrent_streams(H2_MAX_STREAMS)
        .max_pending_accept_reset_streams(H2_MAX_PENDING_RESETS);
    builder
}

/// Serves one connection until the client closes it, its watchdog expires
/// or the server stops; in the last two cases it is closed gracefully
/// (requests in flight finish), then dropped once nothing is in flight for
/// [`CLOSE_GRACE`].
async fn serve_connection(
    builder: Arc<Builder<TokioExecutor>>,
    stream: TcpStream,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let activity = Activity::new(&limits);
    let service = Tracked {
        router,
        activity: activity.clone(),
    };
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let why = tokio::select! {
        served = connection.as_mut() => return report(served),
        () = activity.expired() => "no request in time",
        () = shutdown.cancelled() => "the server is stopping",
    };
    tracing::debug!(why, "closing a connection");
    connection.as_mut().graceful_shutdown();
    let from = Instant::now();
    tokio::select! {
        served = connection => report(served),
        () = activity.settled(from) => {}
    }
}

/// Logs how a connection ended, when with an error.
fn report(served: Result<(), Box<dyn std::error::Error + Send + Sync>>) {
    if let Err(e) = served {
        tracing::debug!(error = %e, "connection closed with an error");
    }
}

/// What a connection is doing, as its watchdog sees it.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// This many requests are in flight.
    Busy(usize),
    /// None is: since `since`, and the connection is closed at `deadline`
    /// unless a request starts before.
    Waiting {
        /// When the last request ended (or the connection was accepted).
        since: Instant,
        /// When the watchdog closes the connection.
        deadline: Instant,
    },
}

/// One connection's requests in flight, watched for idleness.
#[derive(Debug, Clone)]
struct Activity {
    phase: Arc<watch::Sender<Phase>>,
    idle_timeout: Duration,
}

impl Activity {
    /// A connection just accepted: it has the header timeout to complete a
    /// request's header.
    fn new(limits: &ConnectionLimits) -> Self {
        let now = Instant::now();
        let phase = Phase::Waiting {
            since: now,
            deadline: now + limits.header_timeout,
        };
        Self {
            phase: Arc::new(watch::Sender::new(phase)),
            idle_timeout: limits.idle_timeout,
        }
    }

    /// Counts a request in flight until the returned guard is dropped.
    fn start(&self) -> InFlight {
        self.phase.send_modify(|phase| {
            *phase = match *phase {
                Phase::Busy(n) => Phase::Busy(n + 1),
                Phase::Waiting { .. } => Phase::Busy(1),
            }
        });
        InFlight(self.clone())
    }

    /// Counts a request as finished.
    fn finish(&self) {
        let idle_timeout = self.idle_timeout;
        self.phase.send_modify(|phase| {
            *phase = match *phase {
                Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
                _ => {
                    let now = Instant::now();
                    Phase::Waiting {
                        since: now,
                        deadline: now + idle_timeout,
                    }
                }
            }
        });
    }

    /// Resolves when the connection's deadline passes with no request in flight.
    async fn expired(&self) {
        self.waiting_until(|_, deadline| deadline).await;
    }

    /// Resolves once no request has been in flight for [`CLOSE_GRACE`],
    /// counted from `from` at the earliest.
    async fn settled(&self, from: Instant) {
        self.waiting_until(|since, _| since.max(from) + CLOSE_GRACE)
            .await;
    }

    /// Resolves when no request is in flight at the instant `at(since,
    /// deadline)` of the current wait.
    #[expect(
        clippy::disallowed_methods,
        reason = "a connection's deadlines are socket time, not the service's (injected, steppable) clock"
    )]
    async fn waiting_until(&self, at: impl Fn(Instant, Instant) -> Instant) {
        let mut phase = self.phase.subscribe();
        loop {
            let current = *phase.borrow_and_update();
            let Phase::Waiting { since, deadline } = current else {
                // `self` holds the sender, so this only ends with a change.
                let _ = phase.changed().await;
                continue;
            };
            tokio::select! {
                () = tokio::time::sleep_until(at(since, deadline)) => return,
                _ = phase.changed() => {}
            }
        }
    }
}

/// A request in flight; dropping it (once its response is sent whole, or
/// abandoned) counts the request as finished.
#[derive(Debug)]
struct InFlight(Activity);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// The router as hyper calls it on one connection, each request counted in
/// flight until its response body is sent.
#[derive(Debug, Clone)]
struct Tracked {
    router: axum::Router,
    activity: Activity,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response<TrackedBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let in_flight = self.activity.start();
        let answer = self.router.clone().oneshot(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| TrackedBody {
                body,
                _in_flight: in_flight,
            }))
        })
    }
}

/// A response body that keeps its request in flight while it is sent.
#[derive(Debug)]
struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl HttpBody for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
