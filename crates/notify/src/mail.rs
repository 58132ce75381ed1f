//! Outgoing e-mail: SMTP when `VIDPULSE_SMTP_URL` is set (lettre; `smtp://`
//! plain or STARTTLS-capable, `smtps://` TLS), otherwise `.eml` files in an
//! outbox folder (`data/outbox/` by default) for a self-hosted start.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use lettre::message::{Mailbox, header::ContentType};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// Mail settings.
#[derive(Debug, Clone)]
pub struct MailConfig {
    /// `smtp://user:pass@host:port` or `smtps://…`; `None`: write to `outbox`.
    pub smtp_url: Option<String>,
    /// The sender.
    pub from: String,
    /// Where messages go without SMTP.
    pub outbox: PathBuf,
    /// The dashboard's address, for links in messages.
    pub dashboard_url: String,
}

impl Default for MailConfig {
    fn default() -> Self {
        Self {
            smtp_url: None,
            from: "vidpulse <no-reply@vidpulse.localhost>".into(),
            outbox: PathBuf::from("data/outbox"),
            dashboard_url: "http://127.0.0.1:8080".into(),
        }
    }
}

enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(AsyncFileTransport<Tokio1Executor>),
}

/// Sends the service's e-mails.
pub struct Mailer {
    transport: Result<Transport, String>,
    from: Result<Mailbox, String>,
    outbox: PathBuf,
    dashboard_url: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &matches!(self.transport, Ok(Transport::Smtp(_))))
            .field("outbox", &self.outbox)
            .finish()
    }
}

/// One invitation e-mail.
#[derive(Debug, Clone)]
pub struct InvitationMail<'a> {
    /// The invited address.
    pub to: &'a str,
    /// The organization's name.
    pub organization: &'a str,
    /// The role offered.
    pub role: &'a str,
    /// The invitation's id (the dashboard accepts it by id).
    pub invite_id: uuid::Uuid,
    /// The link's token: it proves the mailbox (the id does not).
    pub token: &'a str,
    /// When it lapses.
    pub expires_at: DateTime<Utc>,
}

impl Mailer {
    /// A mailer for `config`. A bad SMTP URL or sender is kept as an error
    /// that every send reports (`serve` checks [`Mailer::check`] at start).
    pub fn new(config: &MailConfig) -> Self {
        let transport = match &config.smtp_url {
            Some(url) => AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                .map(|b| {
                    Transport::Smtp(b.timeout(Some(std::time::Duration::from_secs(10))).build())
                })
                .map_err(|e| format!("VIDPULSE_SMTP_URL is not a valid SMTP URL: {e}")),
            None => Ok(Transport::Outbox(AsyncFileTransport::new(&config.outbox))),
        };
        Self {
            transport,
            from: config
                .from
                .parse()
                .map_err(|e| format!("VIDPULSE_MAIL_FROM is not an address: {e}")),
            outbox: config.outbox.clone(),
            dashboard_url: config.dashboard_url.trim_end_matches('/').to_owned(),
        }
    }

    /// The configuration error, if any.
    pub fn check(&self) -> Result<(), String> {
        self.transport.as_ref().map(|_| ())?;
        self.from.as_ref().map(|_| ())?;
        Ok(())
    }

    /// Sends an invitation; the error says why it could not be sent.
    pub async fn send_invitation(&self, mail: &InvitationMail<'_>) -> Result<(), String> {
        let body = format!(
            "You are invited to join {org} on vidpulse as {role}.\n\n\
             Open {link} to accept or decline: sign in with this address, or, \
             new to vidpulse, create your password there. The invitation \
             expires on {expires}. Keep this link to yourself: it lets whoever \
             holds it create the password of a new account for this address.\n",
            org = mail.organization,
            role = mail.role,
            link = self.invitation_link(mail.invite_id, mail.token),
            expires = mail.expires_at.format("%Y-%m-%d %H:%M UTC"),
        );
        self.send(
            mail.to,
            format!("Join {} on vidpulse", mail.organization),
            body,
        )
        .await
    }

    /// The address of invitation `id`'s page, with its token.
    pub fn invitation_link(&self, id: uuid::Uuid, token: &str) -> String {
        format!("{}/invitations/{id}?token={token}", self.dashboard_url)
    }

    /// The address of the page where the holder of `token` sets a password.
    pub fn password_link(&self, token: &str) -> String {
        format!("{}/set-password?token={token}", self.dashboard_url)
    }

    /// Sends `to` a link that sets their password (a forgotten one).
    pub async fn send_password_link(
        &self,
        to: &str,
        token: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<(), String> {
        let body = format!(
            "Someone asked to set a new password for this address on vidpulse.\n\n\
             Open {link} to choose one; the link works once, until {expires}.\n\
             If it was not you, ignore this message: your password stays as it is.\n",
            link = self.password_link(token),
            expires = expires_at.format("%Y-%m-%d %H:%M UTC"),
        );
        self.send(to, "Set your vidpulse password".to_owned(), body)
            .await
    }

    /// Sends a plain-text message; the error says why it could not be sent.
    pub async fn send(&self, to: &str, subject: String, body: String) -> Result<(), String> {
        let from = self.from.clone()?;
        let to: Mailbox = to
            .parse()
            .map_err(|e| format!("not a deliverable address: {e}"))?;
        let message = Message::builder()
            .from(from)
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .map_err(|e| format!("cannot build the message: {e}"))?;
        match self.transport.as_ref().map_err(Clone::clone)? {
            Transport::Smtp(smtp) => smtp
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| format!("SMTP: {e}")),
            Transport::Outbox(files) => {
                tokio::fs::create_dir_all(&self.outbox)
                    .await
                    .map_err(|e| format!("outbox {}: {e}", self.outbox.display()))?;
                files
                    .send(message)
                    .await
                    .map(|_| ())
                    .map_err(|e| format!("outbox: {e}"))
            }
        }
    }
}
