//! The video record on PostgreSQL: its tags and history as arrays, one per
//! column of the readings, from one lateral pass.

use chrono::{DateTime, Utc};
use sqlx::Postgres;
use vidpulse_domain::{Counters, Observation};

use crate::StoreError;
use crate::error::corrupt;

use crate::videos::{
    IntoRecord, RecordDialect, VideoRecord, VideoRow, record_head, visible_readings,
};

/// The columns of a [`VideoArrayRow`]: a tracked video `tv` joined with its
/// catalog row `pv`, its tags, and its in-window history `h` (joined by
/// [`HISTORY_JOIN`]) as one array per column of the readings.
const RECORD_COLUMNS: &str = concat!(
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
const HISTORY_JOIN: &str = concat!(
    "LEFT JOIN LATERAL (
      SELECT array_agg(o.captured_at) AS history_at, array_agg(o.views) AS history_views,
             array_agg(o.likes) AS history_likes, array_agg(o.comments) AS history_comments,
             array_agg(o.reposts) AS history_reposts, array_agg(o.saves) AS history_saves
        FROM ",
    visible_readings!(),
    " o
    ) h ON true"
);

/// A whole record on PostgreSQL: tags and history as arrays, one per
/// column of the readings, decoded from the binary protocol (no text to
/// build or parse). Each is `NULL` when there is nothing.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct VideoArrayRow {
    #[sqlx(flatten)]
    pub video: VideoRow,
    pub tags: Option<Vec<String>>,
    pub history_at: Option<Vec<DateTime<Utc>>>,
    pub history_views: Option<Vec<Option<i64>>>,
    pub history_likes: Option<Vec<Option<i64>>>,
    pub history_comments: Option<Vec<Option<i64>>>,
    pub history_reposts: Option<Vec<Option<i64>>>,
    pub history_saves: Option<Vec<Option<i64>>>,
}

impl RecordDialect for Postgres {
    type RecordRow = VideoArrayRow;
}

impl IntoRecord for VideoArrayRow {
    const COLUMNS: &'static str = RECORD_COLUMNS;
    const JOIN: &'static str = HISTORY_JOIN;

    fn into_record(self, now: DateTime<Utc>) -> Result<VideoRecord, StoreError> {
        let times = self.history_at.unwrap_or_default();
        let column = |values: Option<Vec<Option<i64>>>| -> Result<Vec<Option<i64>>, StoreError> {
            let values = values.unwrap_or_default();
            if values.len() == times.len() {
                Ok(values)
            } else {
                Err(corrupt("history columns of different lengths"))
            }
        };
        let counters = column(self.history_views)?
            .into_iter()
            .zip(column(self.history_likes)?)
            .zip(column(self.history_comments)?)
            .zip(column(self.history_reposts)?)
            .zip(column(self.history_saves)?)
            .map(|((((views, likes), comments), reposts), saves)| Counters {
                views,
                likes,
                comments,
                reposts,
                saves,
            });
        let history = times
            .iter()
            .zip(counters)
            .map(|(&captured_at, counters)| Observation {
                captured_at,
                counters,
            })
            .collect();
        self.video
            .into_record(self.tags.unwrap_or_default(), history, now)
    }
}
