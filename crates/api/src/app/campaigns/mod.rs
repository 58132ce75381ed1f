//! Campaigns: an organization's named groups of videos with their client,
//! dates, budget, currency and target, and what they cost ([`report`]).

pub(crate) mod report;
