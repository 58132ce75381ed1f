//! The account use cases: the usage report, credits and quotas of the caller's organization.
