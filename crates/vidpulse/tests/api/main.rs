//! Integration tests: the real server on a random port against a fresh
//! database, on SQLite and on PostgreSQL (every test takes both).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod analytics;
mod batch_and_untrack;
mod blogger_listing;
mod blogger_management;
mod bloggers;
mod cli;
mod dashboard;
mod errors;
mod exports;
mod faults;
mod fleet;
mod health;
mod helpers;
mod inputs;
mod invitations;
mod jwks;
mod leaderboard;
mod listing;
mod live;
mod manual_refresh;
mod patch;
mod processes;
mod reads;
mod receiver;
mod refresh;
mod requests;
mod sign_in;
mod simulated;
mod stats;
mod track;
mod trends;
mod usage;
mod webhooks;
mod workers;
