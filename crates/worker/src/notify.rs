//! What the loops that tell people something (alerts, recaps) send
//! through: the mailer (SMTP or the outbox folder), the chat client (Slack
//! and Discord incoming webhooks, under the webhooks' address rules) and the
//! dashboard's address for links in messages.

use std::sync::Arc;

use vidpulse_domain::Clock;
use vidpulse_notify::{ChatClient, Mailer};
use vidpulse_store::Store;

/// The context of the alert and recap loops.
#[derive(Debug, Clone)]
pub struct NotifyContext {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Sends e-mail.
    pub mailer: Arc<Mailer>,
    /// Posts to team chats.
    pub chat: ChatClient,
    /// The dashboard's address, without a trailing slash (links in messages).
    pub dashboard_url: String,
}
