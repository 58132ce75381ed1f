//! The analytics use cases: totals, per-day increments and their grouping, with comparison to a previous period.
