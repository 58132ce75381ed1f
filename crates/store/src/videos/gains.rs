//! What one video gained over a window, in SQL: the totals rules
//! (docs/api.md, "Analytics") applied to a single tracked video, read from
//! its daily closes within the organization's tracking window. The listing
//! sorts by it and the leaderboard of videos ranks by it.

use sqlx::AssertSqlSafe;
use vidpulse_domain::analytics::{Baseline, DateRange, Metric, Metrics};
use vidpulse_domain::{OrgId, VideoId};

use crate::StoreError;
use crate::sql::{Builder, Conn, Dialect};

/// The join that gives [`push_gain`] the tracked video `tv`'s latest
/// visible close `lc` (migration 0024); a statement that computes gains
/// appends it after `FROM tracked_videos tv`.
pub(crate) const LATEST_JOIN: &str = " LEFT JOIN latest_closes lc
     ON lc.organization_id = tv.organization_id AND lc.platform_video_id = tv.platform_video_id ";

/// Appends the gain of `metric` over `window` of the tracked video `tv`
/// (a scalar expression; the statement joins [`LATEST_JOIN`]): the close
/// of its last visible day in `window` minus the baseline (the close of its
/// last visible day before `from`, else its first reading on `from`, else
/// 0); NULL when it has no visible close within `window`.
///
/// The end is the latest visible close `lc` when `window` holds its day (a
/// window ending today, as most do), else one seek in `daily_closes`' key;
/// a video whose latest close is before `from` (or that has none) has no
/// gain, with no seek. The baseline is 0 for a video whose tracking started
/// after `from`, else one or two seeks.
///
/// With [`Baseline::Tracking`] a video without a close before `from`
/// counts from the first reading of its first visible day on or after
/// `from` instead (one seek; for a video whose tracking started after
/// `from`, its first visible day), so views from before its tracking never
/// count.
pub(crate) fn push_gain<D: Dialect>(
    b: &mut Builder<D>,
    metric: Metric,
    window: DateRange,
    baseline: Baseline,
) {
    let m = metric.as_str();
    let start = D::day_of("tv.tracking_started_at");
    let visible = format!(
        "c.platform_video_id = tv.platform_video_id AND c.organization_id = tv.organization_id
         AND c.day >= {start}"
    );
    b.push("(CASE WHEN lc.day IS NULL OR lc.day < ")
        .push_bind(window.from)
        .push(" THEN NULL ELSE (CASE WHEN lc.day <= ")
        .push_bind(window.to)
        .push(AssertSqlSafe(format!(
            " THEN coalesce(lc.last_{m}, 0) ELSE (SELECT coalesce(c.last_{m}, 0) FROM daily_closes c
               WHERE {visible} AND c.day <= {end} AND c.day >= ",
            end = D::day_of("tv.tracking_ends_at"),
        )))
        .push_bind(window.from)
        .push(" AND c.day <= ")
        .push_bind(window.to)
        .push(AssertSqlSafe(format!(
            " ORDER BY c.day DESC LIMIT 1) END) - (CASE WHEN {start} > "
        )))
        .push_bind(window.from);
    if baseline == Baseline::Tracking {
        // Tracked after `from`: no close before it; the first visible day
        // is the first on or after `from`.
        b.push(AssertSqlSafe(format!(
            " THEN coalesce((SELECT coalesce(c.first_{m}, 0) FROM daily_closes c
                             WHERE {visible} ORDER BY c.day LIMIT 1), 0)
              ELSE coalesce((SELECT coalesce(c.last_{m}, 0) FROM daily_closes c
                             WHERE {visible} AND c.day < "
        )))
        .push_bind(window.from)
        .push(AssertSqlSafe(format!(
            " ORDER BY c.day DESC LIMIT 1),
                      (SELECT coalesce(c.first_{m}, 0) FROM daily_closes c
                       WHERE {visible} AND c.day >= "
        )))
        .push_bind(window.from)
        .push(" ORDER BY c.day LIMIT 1), 0) END) END)");
        return;
    }
    b.push(AssertSqlSafe(format!(
        " THEN 0 ELSE coalesce((SELECT coalesce(c.last_{m}, 0) FROM daily_closes c
                       WHERE {visible} AND c.day < "
    )))
    .push_bind(window.from)
    .push(AssertSqlSafe(format!(
        " ORDER BY c.day DESC LIMIT 1),
                      (SELECT coalesce(c.first_{m}, 0) FROM daily_closes c
                       WHERE {visible} AND c.day = "
    )))
    .push_bind(window.from)
    .push("), 0) END) END)");
}

/// The five gains over `window` of the organization's videos `ids`; a video
/// without a visible close in the window is left out.
pub(crate) async fn gains_of<D: Dialect>(
    conn: &mut Conn<D>,
    org: OrgId,
    ids: &[VideoId],
    window: DateRange,
    baseline: Baseline,
) -> Result<Vec<(VideoId, Metrics)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut b = Builder::<D>::new("SELECT tv.id");
    for metric in Metric::ALL {
        b.push(", ");
        push_gain(&mut b, metric, window, baseline);
    }
    b.push(" FROM tracked_videos tv")
        .push(LATEST_JOIN)
        .push("WHERE tv.organization_id = ")
        .push_bind(org.0)
        .push(" AND tv.id IN (")
        .push_list(ids.iter().map(|id| id.0))
        .push(")");
    type Row = (
        uuid::Uuid,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    );
    let rows: Vec<Row> = b.build().fetch_all(conn).await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, views, likes, comments, reposts, saves)| {
            Some((
                VideoId(id),
                Metrics {
                    views: views?,
                    likes: likes.unwrap_or(0),
                    comments: comments.unwrap_or(0),
                    reposts: reposts.unwrap_or(0),
                    saves: saves.unwrap_or(0),
                },
            ))
        })
        .collect())
}
