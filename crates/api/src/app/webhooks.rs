//! The webhook use cases: endpoints (create, read, update, rotate, test, delete), the delivery log and replays.
