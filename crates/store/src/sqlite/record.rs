//! The video record on SQLite: its tags and history as JSON built in the
//! database (one value per record instead of one row per reading).

use crate::rows::{record_head, visible_readings};

/// The columns of a [`crate::rows::VideoJsonRow`]: a tracked video `tv`
/// joined with its catalog row `pv`, its tags as JSON, and the in-window
/// history `tv`'s organization sees (the platform's readings, and its own
/// imports at instants the platform has none) as JSON (`[at, views, likes,
/// comments, reposts, saves]` tuples).
pub(super) const RECORD_COLUMNS: &str = concat!(
    record_head!(),
    "
    (SELECT json_group_array(t.name) FROM video_tags vt JOIN tags t ON t.id = vt.tag_id
      WHERE vt.tracked_video_id = tv.id) AS tags_json,
    (SELECT json_group_array(json_array(o.captured_at, o.views, o.likes, o.comments, o.reposts, o.saves))
       FROM ",
    visible_readings!(),
    " o) AS history_json"
);
