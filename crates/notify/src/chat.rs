//! Posting a message to a team chat through an incoming-webhook URL:
//! Slack's shape (`{"text": …}`, also taken by Mattermost and Rocket.Chat)
//! or Discord's (`{"content": …}`). The URL is the user's, so it gets the
//! webhooks' rules: http(s) only, an address written in it must be global,
//! and the client's resolver drops addresses that are not (unless the
//! operator allows private receivers); no redirect is followed.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use vidpulse_domain::webhooks::refused_url;
use vidpulse_platforms::PublicOnly;

/// Which chat an incoming-webhook URL belongs to: it decides the body's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChatKind {
    /// Slack (and chats taking Slack's shape).
    Slack,
    /// Discord.
    Discord,
}

impl ChatKind {
    /// The name in the API: `slack` or `discord`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChatKind::Slack => "slack",
            ChatKind::Discord => "discord",
        }
    }

    /// The longest message the chat takes (Discord: 2,000 characters;
    /// Slack truncates past 40,000): longer texts are cut with an ellipsis.
    pub fn max_chars(self) -> usize {
        match self {
            ChatKind::Slack => 40_000,
            ChatKind::Discord => 2_000,
        }
    }
}

impl fmt::Display for ChatKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ChatKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "slack" => Ok(ChatKind::Slack),
            "discord" => Ok(ChatKind::Discord),
            other => Err(format!("unknown chat `{other}` (slack or discord)")),
        }
    }
}

/// Why `url` cannot be a chat's incoming webhook (checked when a user
/// saves it, and again before each post): the webhooks' URL rule.
pub fn refused_chat_url(url: &str, allow_private: bool) -> Option<String> {
    if url.len() > 2048 {
        return Some("the URL is longer than 2048 characters".into());
    }
    refused_url(url, allow_private)
}

/// Posts to chats' incoming webhooks.
#[derive(Debug, Clone)]
pub struct ChatClient {
    client: reqwest::Client,
    allow_private: bool,
}

impl ChatClient {
    /// A client that reaches only global addresses unless `allow_private`;
    /// each post takes at most `timeout`. Fails only when TLS cannot be set up.
    pub fn new(allow_private: bool, timeout: Duration) -> Result<Self, reqwest::Error> {
        vidpulse_platforms::http::install_crypto_provider();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("vidpulse-notify/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(PublicOnly { allow_private }))
            .build()?;
        Ok(Self {
            client,
            allow_private,
        })
    }

    /// Posts `text` to the chat `kind` at `url`; the error says why it was
    /// not taken (a refused URL, no connection, or the chat's status).
    pub async fn post(&self, kind: ChatKind, url: &str, text: &str) -> Result<(), String> {
        if let Some(why) = refused_chat_url(url, self.allow_private) {
            return Err(why);
        }
        let text = cut(text, kind.max_chars());
        let body = match kind {
            ChatKind::Slack => json!({ "text": text }),
            ChatKind::Discord => json!({ "content": text, "allowed_mentions": { "parse": [] } }),
        };
        let answer = self
            .client
            .post(url)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("no answer: {}", describe(&e)))?;
        let status = answer.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("the chat answered {}", status.as_u16()))
        }
    }
}

/// `text`, at most `max` characters, the last one an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// What went wrong, never the URL (an incoming-webhook URL is a secret).
fn describe(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn kinds_round_trip() {
        for k in [ChatKind::Slack, ChatKind::Discord] {
            assert_eq!(k.as_str().parse::<ChatKind>(), Ok(k));
        }
        assert!("teams".parse::<ChatKind>().is_err());
    }

    #[test]
    fn long_texts_are_cut() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("ééé", 2).chars().count(), 2);
    }

    #[test]
    fn private_urls_are_refused_unless_allowed() {
        assert!(refused_chat_url("http://127.0.0.1:9/hook", false).is_some());
        assert!(refused_chat_url("http://127.0.0.1:9/hook", true).is_none());
        assert!(refused_chat_url("https://hooks.slack.com/services/T/B/x", false).is_none());
        assert!(
            refused_chat_url(&format!("https://a.example/{}", "x".repeat(2100)), false).is_some()
        );
    }

    #[tokio::test]
    async fn posts_each_chats_shape() {
        use axum::{Json, Router, routing::post};
        let seen: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
        let s = seen.clone();
        let app = Router::new().route(
            "/hook",
            post(move |Json(v): Json<serde_json::Value>| {
                let s = s.clone();
                async move {
                    s.lock().unwrap().push(v);
                    "ok"
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        let refusing = ChatClient::new(false, Duration::from_secs(5)).unwrap();
        assert!(refusing.post(ChatKind::Slack, &url, "hi").await.is_err());
        assert!(seen.lock().unwrap().is_empty());

        let chat = ChatClient::new(true, Duration::from_secs(5)).unwrap();
        chat.post(ChatKind::Slack, &url, "hello").await.unwrap();
        chat.post(ChatKind::Discord, &url, &"x".repeat(3000))
            .await
            .unwrap();
        let bodies = seen.lock().unwrap().clone();
        assert_eq!(bodies[0]["text"], "hello");
        assert_eq!(bodies[1]["content"].as_str().unwrap().chars().count(), 2000);
        assert!(
            bodies[1]["allowed_mentions"]["parse"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        let missing = format!("{url}/missing");
        assert_eq!(
            chat.post(ChatKind::Slack, &missing, "x").await,
            Err("the chat answered 404".into())
        );
    }
}
