//! "Forgot password" off the request path: the handler hands the address to
//! a bounded queue and answers; one task per API node (started with the
//! server) looks the address up, makes the link and mails it. An answer then
//! does the same work whether or not the address has an account, and never
//! waits for the mail server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use vidpulse_domain::names::EmailAddress;

use super::RESET_LINK_TTL;
use super::session::{new_token, token_hash};
use crate::state::AppState;

/// Addresses waiting for their link, at most; a request beyond is refused.
pub const QUEUE_LEN: usize = 256;

/// Longest a shutdown waits for the links already asked for.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// The queue of addresses asking for a password link.
#[derive(Debug, Clone)]
pub struct ResetQueue {
    sender: mpsc::Sender<EmailAddress>,
    /// Taken by the one task that works the queue ([`run`]).
    receiver: Arc<Mutex<Option<mpsc::Receiver<EmailAddress>>>>,
}

impl Default for ResetQueue {
    fn default() -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE_LEN);
        Self {
            sender,
            receiver: Arc::new(Mutex::new(Some(receiver))),
        }
    }
}

impl ResetQueue {
    /// Queues a link for `email`; `false` when the queue is full (or no
    /// longer worked, during a shutdown).
    pub fn push(&self, email: EmailAddress) -> bool {
        self.sender.try_send(email).is_ok()
    }

    /// The receiving end, the first time it is asked for.
    fn take(&self) -> Option<mpsc::Receiver<EmailAddress>> {
        self.receiver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// Works `app`'s queue until `shutdown`, one address at a time, then sends
/// what was asked before the shutdown (for at most `DRAIN_LIMIT`).
pub async fn run(app: AppState, shutdown: CancellationToken) {
    let Some(mut queue) = app.resets.take() else {
        tracing::error!("the password-link queue is worked already");
        return;
    };
    loop {
        let email = tokio::select! {
            biased;
            email = queue.recv() => email,
            () = shutdown.cancelled() => break,
        };
        match email {
            Some(email) => send_link(&app, &email).await,
            None => return,
        }
    }
    queue.close();
    let drain = async {
        while let Some(email) = queue.recv().await {
            send_link(&app, &email).await;
        }
    };
    if tokio::time::timeout(DRAIN_LIMIT, drain).await.is_err() {
        tracing::warn!("shutting down: password links still queued were not sent");
    }
}

/// Makes and mails a link for `email` when it has an account; logs a
/// failure (nobody waits for it).
async fn send_link(app: &AppState, email: &EmailAddress) {
    if let Err(why) = try_send_link(app, email).await {
        tracing::warn!(error = %why, "password link not sent");
    }
}

/// Makes and mails a link for `email` when it has an account.
async fn try_send_link(app: &AppState, email: &EmailAddress) -> Result<(), String> {
    let found = app
        .store
        .password_of(email.as_str())
        .await
        .map_err(|e| e.to_string())?;
    let Some((user, _)) = found else {
        return Ok(());
    };
    let token = new_token();
    let now = app.clock.now();
    let expires_at = now + RESET_LINK_TTL;
    app.store
        .create_password_link(user.id, &token_hash(&token), now, expires_at)
        .await
        .map_err(|e| e.to_string())?;
    app.mailer
        .send_password_link(&user.email, &token, expires_at)
        .await
}
