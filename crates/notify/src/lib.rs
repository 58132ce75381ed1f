//! Messages vidpulse sends to people: e-mail ([`mail`]: SMTP, or `.eml`
//! files in an outbox folder) and posts to a team chat ([`chat`]: Slack and
//! Discord incoming webhooks). Both the HTTP side (invitations, password
//! links) and the background loops (alerts, recaps) send through here.
#![warn(missing_docs)]

pub mod chat;
pub mod mail;

pub use chat::{ChatClient, ChatKind};
pub use mail::{MailConfig, Mailer};
