//! Credit charges of reads, written together: each request waits until its
//! charge is in the ledger (so an answer is never sent uncharged), but the
//! charges of requests that arrive while a write is under way go into the
//! next write, one transaction for all of them.
//!
//! A write per charge made every analytics read wait its turn for SQLite's
//! one writer (and a commit each): under 32 concurrent reads the creators'
//! leaderboard answered 6,600 requests a second with its charge and 25,000
//! without (BENCHMARKS.md). A write that fails is retried charge by charge,
//! so one request's failure (its organization deleted meanwhile) is never
//! another's.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;
use vidpulse_store::{Charge, Store, StoreError};

/// A charge waiting for its write, and where its outcome goes.
type Waiting = (Charge, oneshot::Sender<Result<(), StoreError>>);

/// The charges not yet written, and whether a writer is running.
#[derive(Debug, Default)]
struct Queue {
    waiting: Vec<Waiting>,
    writing: bool,
}

/// The queue of charges and its writer (at most one at a time).
#[derive(Debug, Clone)]
pub struct ChargeQueue {
    queue: Arc<Mutex<Queue>>,
    store: Arc<dyn Store>,
}

impl ChargeQueue {
    /// A queue writing into `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            queue: Arc::default(),
            store,
        }
    }

    /// Writes `charge` with whichever others are waiting; returns once it
    /// is in the ledger, or with the error that kept it out.
    pub async fn charge(&self, charge: Charge) -> Result<(), StoreError> {
        let (sender, outcome) = oneshot::channel();
        let start_writer = {
            let mut queue = self.lock();
            queue.waiting.push((charge, sender));
            !std::mem::replace(&mut queue.writing, true)
        };
        if start_writer {
            // Its own task: a request that goes away mid-write (its client
            // hung up) does not cut the write the others wait on.
            tokio::spawn(self.clone().write_until_empty());
        }
        outcome.await.unwrap_or_else(|_| {
            Err(StoreError::Unavailable(
                "the credit charge was not written".to_owned(),
            ))
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes what waits, batch after batch, until nothing does.
    async fn write_until_empty(self) {
        let mut writing = Writing {
            queue: &self,
            armed: true,
        };
        loop {
            let batch = {
                let mut queue = self.lock();
                if queue.waiting.is_empty() {
                    queue.writing = false;
                    writing.armed = false;
                    return;
                }
                std::mem::take(&mut queue.waiting)
            };
            self.write(batch).await;
        }
    }

    /// Writes `batch` in one transaction; if that fails, each charge alone.
    async fn write(&self, batch: Vec<Waiting>) {
        let (charges, senders): (Vec<Charge>, Vec<_>) = batch.into_iter().unzip();
        match self.store.charge_all(&charges).await {
            Ok(()) => {
                for sender in senders {
                    let _ = sender.send(Ok(()));
                }
            }
            Err(e) if charges.len() == 1 => {
                if let Some(sender) = senders.into_iter().next() {
                    let _ = sender.send(Err(e));
                }
            }
            Err(_) => {
                for (charge, sender) in charges.into_iter().zip(senders) {
                    let outcome = self.store.charge_all(std::slice::from_ref(&charge)).await;
                    let _ = sender.send(outcome);
                }
            }
        }
    }
}

/// Marks the writer stopped if it stops other than by emptying the queue (a
/// panic): the charges still waiting fail at once (their senders dropped)
/// instead of waiting for a writer that will not come. Disarmed when the
/// writer empties the queue, under the same lock, so it never touches the
/// charges of a writer started after it.
struct Writing<'a> {
    queue: &'a ChargeQueue,
    armed: bool,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if self.armed {
            let mut queue = self.queue.lock();
            queue.writing = false;
            queue.waiting.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use vidpulse_domain::{OrgId, Plan};
    use vidpulse_store::StoreConfig;
    use vidpulse_store::orgs::NewOrganization;

    fn charge(org: OrgId, n: usize) -> Charge {
        Charge {
            organization_id: org,
            api_key_id: None,
            request_id: format!("req-{n}"),
            amount: 1,
            reason: "analytics",
            subject: None,
            at: Utc::now(),
        }
    }

    /// Many concurrent charges are each written once, and a charge that
    /// cannot be written (an organization that does not exist) fails alone.
    #[tokio::test]
    async fn concurrent_charges_are_written_once_and_fail_alone() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("charges.db").display());
        let store: Arc<dyn Store> = vidpulse_store::open(&StoreConfig::new(url)).await.unwrap();
        let now = Utc::now();
        let org = store
            .create_organization(NewOrganization {
                name: "Acme".into(),
                plan: Plan::Pro,
                owner_email: None,
                owner_subject: None,
                now,
            })
            .await
            .unwrap()
            .id;
        let queue = ChargeQueue::new(store.clone());
        let ghost = OrgId(uuid::Uuid::new_v4());
        let mut tasks = Vec::new();
        for n in 0..200 {
            let queue = queue.clone();
            let org = if n == 77 { ghost } else { org };
            tasks.push(tokio::spawn(
                async move { queue.charge(charge(org, n)).await },
            ));
        }
        let mut failed = Vec::new();
        for (n, task) in tasks.into_iter().enumerate() {
            if task.await.unwrap().is_err() {
                failed.push(n);
            }
        }
        assert_eq!(failed, vec![77]);
        let days = store
            .usage_history(org, now.date_naive() - chrono::Duration::days(1))
            .await
            .unwrap();
        assert_eq!(days.iter().map(|d| d.credits_used).sum::<i64>(), 199);
        assert!(!queue.lock().writing, "the writer stopped");
    }
}
