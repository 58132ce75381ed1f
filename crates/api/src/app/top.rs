//! The leaderboard use case: the videos or creators ranked by a metric gained over a window.
