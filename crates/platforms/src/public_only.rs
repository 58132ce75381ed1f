//! The outbound resolver that keeps non-global addresses out: the webhook
//! deliveries' and the thumbnail proxy's clients resolve through it, so the
//! address checked is the address connected to.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use vidpulse_domain::ip_scope::is_global;

/// A resolver that answers only global addresses ([`is_global`]), unless
/// private ones are allowed: the webhook client's, and the thumbnail proxy's.
#[derive(Debug)]
pub struct PublicOnly {
    /// Answer loopback, private and link-local addresses too.
    pub allow_private: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| allow_private || is_global(a.ip()))
                .collect();
            if kept.is_empty() {
                let refused: Box<dyn std::error::Error + Send + Sync> = if found.is_empty() {
                    format!("{host} does not resolve").into()
                } else {
                    format!(
                        "{host} resolves only to non-global (loopback, private, link-local…) addresses; refused"
                    )
                    .into()
                };
                return Err(refused);
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_resolving_to_private_addresses_are_refused_after_resolution() {
        // The check the delivery client makes on every connection, whatever
        // the URL said: `localhost` stands for any name that resolves to a
        // private address (a DNS record changed after the endpoint was made).
        let name = || "localhost".parse::<Name>().unwrap();
        let refused = PublicOnly {
            allow_private: false,
        }
        .resolve(name())
        .await
        .err()
        .expect("a loopback-only name is refused");
        assert!(refused.to_string().contains("refused"), "{refused}");
        let allowed = PublicOnly {
            allow_private: true,
        }
        .resolve(name())
        .await
        .expect("allowed by the operator");
        assert!(allowed.into_iter().all(|a| a.ip().is_loopback()));
    }
}
