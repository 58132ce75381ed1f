//! The video record on SQLite: its tags and history as JSON built in the
//! database (one value per record instead of one row per reading).

use chrono::{DateTime, Utc};
use sqlx::Sqlite;
use vidpulse_domain::{Counters, Observation};

use crate::StoreError;
use crate::error::corrupt;

use crate::videos::{
    IntoRecord, RecordDialect, VideoRecord, VideoRow, record_head, visible_readings,
};

/// The columns of a [`VideoJsonRow`]: a tracked video `tv`
/// joined with its catalog row `pv`, its tags as JSON, and the in-window
/// history `tv`'s organization sees (the platform's readings, and its own
/// imports at instants the platform has none) as JSON (`[at, views, likes,
/// comments, reposts, saves]` tuples).
const RECORD_COLUMNS: &str = concat!(
    record_head!(),
    "
    (SELECT json_group_array(t.name) FROM video_tags vt JOIN tags t ON t.id = vt.tag_id
      WHERE vt.tracked_video_id = tv.id) AS tags_json,
    (SELECT json_group_array(json_array(o.captured_at, o.views, o.likes, o.comments, o.reposts, o.saves))
       FROM ",
    visible_readings!(),
    " o) AS history_json"
);

/// A whole record on SQLite: tags and history as JSON arrays (`tags_json`:
/// names; `history_json`: `[at, views, likes, comments, reposts, saves]`
/// tuples), so one query reads it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct VideoJsonRow {
    #[sqlx(flatten)]
    pub video: VideoRow,
    pub tags_json: Option<String>,
    pub history_json: Option<String>,
}

impl RecordDialect for Sqlite {
    type RecordRow = VideoJsonRow;
}

/// One reading as the history's JSON array carries it (the time borrowed
/// from the text: it never holds an escape).
type HistoryTuple<'a> = (
    &'a str,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

impl IntoRecord for VideoJsonRow {
    const COLUMNS: &'static str = RECORD_COLUMNS;

    fn into_record(self, now: DateTime<Utc>) -> Result<VideoRecord, StoreError> {
        let tags: Vec<String> = match self.tags_json.as_deref() {
            Some(json) => serde_json::from_str(json).map_err(corrupt)?,
            None => Vec::new(),
        };
        let tuples: Vec<HistoryTuple> = match self.history_json.as_deref() {
            Some(json) => serde_json::from_str(json).map_err(corrupt)?,
            None => Vec::new(),
        };
        let history = tuples
            .into_iter()
            .map(|(at, views, likes, comments, reposts, saves)| {
                let captured_at = DateTime::parse_from_rfc3339(at)
                    .map_err(|e| corrupt(format!("observation time `{at}`: {e}")))?
                    .with_timezone(&Utc);
                Ok(Observation {
                    captured_at,
                    counters: Counters {
                        views,
                        likes,
                        comments,
                        reposts,
                        saves,
                    },
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.video.into_record(tags, history, now)
    }
}
