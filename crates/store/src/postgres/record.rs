//! The video record on PostgreSQL: its tags and history as arrays, one per
//! column of the readings, from one lateral pass.

use crate::rows::{record_head, visible_readings};

/// The columns of a [`crate::rows::VideoArrayRow`]: a tracked video `tv` joined with its
/// catalog row `pv`, its tags, and its in-window history `h` (joined by
/// [`HISTORY_JOIN`]) as one array per column of the readings.
pub(super) const RECORD_COLUMNS: &str = concat!(
    record_head!(),
    "
    (SELECT array_agg(t.name) FROM video_tags vt JOIN tags t ON t.id = vt.tag_id
      WHERE vt.tracked_video_id = tv.id) AS tags,
    h.history_at, h.history_views, h.history_likes, h.history_comments, h.history_reposts,
    h.history_saves"
);

/// The in-window readings of `pv` that `tv`'s organization sees (the
/// platform's, and its own imports at instants the platform has none),
/// aggregated in one pass (so the arrays are in one order, whichever it is:
/// the record sorts by time).
pub(super) const HISTORY_JOIN: &str = concat!(
    "LEFT JOIN LATERAL (
      SELECT array_agg(o.captured_at) AS history_at, array_agg(o.views) AS history_views,
             array_agg(o.likes) AS history_likes, array_agg(o.comments) AS history_comments,
             array_agg(o.reposts) AS history_reposts, array_agg(o.saves) AS history_saves
        FROM ",
    visible_readings!(),
    " o
    ) h ON true"
);
