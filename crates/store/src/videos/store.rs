//! Tracked videos, stored: the one implementation of [`VideoStore`] for
//! both backends, and its statements.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use uuid::Uuid;
use vidpulse_domain::names::{TagName, handle_key};
use vidpulse_domain::patch::VideoPatch;
use vidpulse_domain::schedule::FAILING_AFTER_FAILURES;
use vidpulse_domain::{OrgId, VideoId};

use super::*;
use crate::StoreError;
use crate::rollup::{self, Scope};
use crate::sql::Builder;
use crate::sql::{Dialect, SqlStore, Tx, rollback_with};

/// The statements of [`VideoStore::video`].
static READ_VIDEO: StatementsByLookup = StatementsByLookup::new(
    |record, condition| {
        format!(
            "SELECT {columns}
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             {join}
             WHERE tv.organization_id = $1 AND {condition}",
            columns = record.columns,
            join = record.join,
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// The statements of [`VideoStore::record_stamp`].
static READ_STAMP: StatementsByLookup = StatementsByLookup::new(
    |_, condition| {
        format!(
            "SELECT tv.id, tv.revision, pv.revision
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND {condition}"
        )
    },
    BY_ID,
    BY_EXTERNAL_ID,
);

/// How a single read finds its video by id ...
const BY_ID: &str = "tv.id = $2";
/// ... and by external id (the most recently tracked, across platforms).
const BY_EXTERNAL_ID: &str = "pv.external_id = $2 ORDER BY tv.created_at DESC LIMIT 1";

#[async_trait]
impl<D: crate::backend::Db> VideoStore for SqlStore<D> {
    async fn track_videos(&self, batch: TrackBatch) -> Result<TrackOutcome, StoreError> {
        let mut tx = self.write_tx().await?;
        let outcome = track_in(&mut tx, &batch, "video_track", QuotaPolicy::AllOrNothing).await?;
        if matches!(outcome, TrackOutcome::Tracked(_)) {
            tx.commit().await?;
        }
        Ok(outcome)
    }

    async fn list_videos(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<VideoRecord>, StoreError> {
        // The page's ids first (an index walk for the default order; a
        // gained sort measures each matching video), then the wide columns
        // (tags, history) of those rows only; the count beside it.
        let mut page = page_ids::<D>(org, query, now);
        page.push(AssertSqlSafe(format!(
            " SELECT {columns}
                 FROM page JOIN tracked_videos tv ON tv.id = page.page_id
                 JOIN platform_videos pv ON pv.id = tv.platform_video_id
                 {join}
                 ORDER BY {order}",
            columns = D::RECORD_COLUMNS,
            join = D::RECORD_JOIN,
            order = list_order(query, "page.page_gain"),
        )));
        let items = async {
            let mut conn = self.read().await?;
            D::fetch_records(page.build(), &mut conn, now).await
        };
        let (items, total) = futures::try_join!(items, count_listing(self, org, query, now))?;
        Ok(Page { items, total })
    }

    async fn list_stamps(
        &self,
        org: OrgId,
        query: &ListQuery,
        now: DateTime<Utc>,
    ) -> Result<Page<RecordStamp>, StoreError> {
        let mut page = page_ids::<D>(org, query, now);
        page.push(" SELECT tv.id, tv.revision, pv.revision");
        let kept_count = counts_kept(query);
        if kept_count {
            // A kept count is a row or a few: it rides in the page's own
            // statement (an uncorrelated subquery, computed once).
            page.push(", (");
            push_count(&mut page, org, query, now);
            page.push(")");
        } else {
            page.push(", CAST(NULL AS BIGINT)");
        }
        page.push(AssertSqlSafe(format!(
            " FROM page JOIN tracked_videos tv ON tv.id = page.page_id
                 JOIN platform_videos pv ON pv.id = tv.platform_video_id
                 ORDER BY {order}",
            order = list_order(query, "page.page_gain"),
        )));
        let rows = async {
            let mut conn = self.read().await?;
            let rows: Vec<(Uuid, i64, i64, Option<i64>)> =
                page.build().fetch_all(&mut conn).await?;
            Ok(rows)
        };
        let (rows, total) = if kept_count {
            let rows = rows.await?;
            let total = match rows.first() {
                Some(&(_, _, _, Some(total))) => total,
                // An empty page (past the end) still answers the count.
                _ => count_listing(self, org, query, now).await?,
            };
            (rows, total)
        } else {
            futures::try_join!(rows, count_listing(self, org, query, now))?
        };
        let items = rows
            .into_iter()
            .map(|(id, revision, catalog_revision, _)| {
                RecordStamp::from((id, revision, catalog_revision))
            })
            .collect();
        Ok(Page { items, total })
    }

    async fn videos_by_id(
        &self,
        org: OrgId,
        ids: &[VideoId],
        now: DateTime<Utc>,
    ) -> Result<Vec<VideoRecord>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut read = Builder::<D>::new(AssertSqlSafe(format!(
            "SELECT {columns}
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             {join}
             WHERE tv.organization_id = ",
            columns = D::RECORD_COLUMNS,
            join = D::RECORD_JOIN,
        )));
        read.push_bind(org.0)
            .push(" AND tv.id IN (")
            .push_list(ids.iter().map(|id| id.0))
            .push(")");
        D::fetch_records(read.build(), &mut *self.read().await?, now).await
    }

    async fn top_video_gains(
        &self,
        org: OrgId,
        query: &TopVideosQuery,
    ) -> Result<Vec<(VideoId, Metrics)>, StoreError> {
        let filters = ListQuery {
            platform: query.platform,
            campaign: query.campaign.clone(),
            author: query.author.clone(),
            ..ListQuery::all(query.window.to)
        };
        // Every matching video's gain of the one metric, its id alone
        // carried through the sort; the places' five gains after. The gain
        // is computed once per video: videos without one (no reading in the
        // window) sort last and are dropped here, rather than by a `WHERE
        // gain IS NOT NULL` that the database would evaluate as a second
        // computation of every gain.
        let mut top = Builder::<D>::new("SELECT tv.id, ");
        gains::push_gain(&mut top, query.metric, query.window, query.baseline);
        top.push(" AS gain ");
        // The instant only serves the status filter, which a leaderboard lacks.
        push_listing(&mut top, org, &filters, DateTime::UNIX_EPOCH, true);
        top.push(" ORDER BY gain DESC NULLS LAST, tv.id LIMIT ")
            .push_bind(query.limit);
        let mut conn = self.read().await?;
        let ids: Vec<VideoId> = top
            .build()
            .fetch_all::<(Uuid, Option<i64>)>(&mut conn)
            .await?
            .into_iter()
            .filter_map(|(id, gain)| gain.map(|_| VideoId(id)))
            .collect();
        let mut gains: std::collections::HashMap<VideoId, Metrics> =
            gains::gains_of::<D>(&mut conn, org, &ids, query.window, query.baseline)
                .await?
                .into_iter()
                .collect();
        Ok(ids
            .into_iter()
            .filter_map(|id| Some((id, gains.remove(&id)?)))
            .collect())
    }

    async fn top_videos_of(
        &self,
        org: OrgId,
        ranked: &[(VideoId, Metrics)],
    ) -> Result<Vec<TopVideo>, StoreError> {
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let mut fields = Builder::<D>::new(
            "SELECT tv.id, pv.external_id, coalesce(pv.title, tv.own_title),
                    coalesce(tv.own_url, pv.url), pv.platform,
                    coalesce(pv.author_username, tv.own_author)
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = ",
        );
        fields
            .push_bind(org.0)
            .push(" AND tv.id IN (")
            .push_list(ranked.iter().map(|(id, _)| id.0))
            .push(")");
        type Row = (Uuid, String, Option<String>, String, String, Option<String>);
        let mut rows: std::collections::HashMap<VideoId, Row> = fields
            .build()
            .fetch_all::<Row>(&mut *self.read().await?)
            .await?
            .into_iter()
            .map(|r| (VideoId(r.0), r))
            .collect();
        ranked
            .iter()
            .filter_map(|&(id, gains)| {
                let (_, external_id, title, url, platform, author) = rows.remove(&id)?;
                Some(
                    crate::error::parse_platform(&platform).map(|platform| TopVideo {
                        video_id: id,
                        external_id,
                        title,
                        url,
                        platform,
                        author_username: author,
                        gains,
                    }),
                )
            })
            .collect()
    }

    async fn video_gains(
        &self,
        org: OrgId,
        ids: &[VideoId],
        window: DateRange,
        baseline: Baseline,
    ) -> Result<Vec<(VideoId, Metrics)>, StoreError> {
        gains::gains_of::<D>(&mut *self.read().await?, org, ids, window, baseline).await
    }

    async fn video(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
        now: DateTime<Utc>,
    ) -> Result<Option<VideoRecord>, StoreError> {
        let query = READ_VIDEO.query::<D>(org, lookup);
        let records = D::fetch_records(query, &mut *self.read().await?, now).await?;
        Ok(records.into_iter().next())
    }

    async fn record_stamp(
        &self,
        org: OrgId,
        lookup: &VideoLookup,
    ) -> Result<Option<RecordStamp>, StoreError> {
        let row: Option<(Uuid, i64, i64)> = READ_STAMP
            .query::<D>(org, lookup)
            .fetch_optional(&mut *self.read().await?)
            .await?;
        Ok(row.map(RecordStamp::from))
    }

    async fn patch_video(
        &self,
        org: OrgId,
        video: &VideoLookup,
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Option<PatchOutcome>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some(found) = find_video(&mut tx, org, video).await? else {
            return rollback_with(tx, Ok(None)).await;
        };
        let outcome = patch_in(&mut tx, org, found, patch, now).await?;
        tx.commit().await?;
        Ok(Some(outcome))
    }

    async fn patch_videos(
        &self,
        org: OrgId,
        videos: &[VideoLookup],
        patch: &VideoPatch,
        now: DateTime<Utc>,
    ) -> Result<Result<Vec<PatchOutcome>, Vec<VideoLookup>>, StoreError> {
        let mut tx = self.write_tx().await?;
        let mut found = Vec::with_capacity(videos.len());
        let mut missing = Vec::new();
        for lookup in videos {
            match find_video(&mut tx, org, lookup).await? {
                Some(video) => found.push(video),
                None => missing.push(lookup.clone()),
            }
        }
        if !missing.is_empty() {
            return rollback_with(tx, Ok(Err(missing))).await;
        }
        // Two lookups of one video (its id and its external id) edit it once.
        let mut seen = std::collections::HashSet::new();
        found.retain(|v| seen.insert(v.id));
        let mut outcomes = Vec::with_capacity(found.len());
        for video in found {
            outcomes.push(patch_in(&mut tx, org, video, patch, now).await?);
        }
        tx.commit().await?;
        Ok(Ok(outcomes))
    }

    async fn untrack_video(
        &self,
        org: OrgId,
        video: &VideoLookup,
    ) -> Result<Option<Untracked>, StoreError> {
        let mut tx = self.write_tx().await?;
        let Some(found) = find_video(&mut tx, org, video).await? else {
            return rollback_with(tx, Ok(None)).await;
        };
        // The video's statistics leave the organization's rollup.
        let scope = Scope::tracked_by(org.0, [found.catalog_id]);
        let before = rollup::shares(&mut tx, &scope).await?;
        for statement in UNTRACK_VIDEO {
            D::query(statement).bind(found.id).execute(&mut *tx).await?;
        }
        for statement in UNTRACK_READINGS {
            D::query(statement)
                .bind(org.0)
                .bind(found.catalog_id)
                .execute(&mut *tx)
                .await?;
        }
        D::query(RESCHEDULE_UNTRACKED)
            .bind(found.catalog_id)
            .execute(&mut *tx)
            .await?;
        rollup::settle(&mut tx, &scope, before).await?;
        tx.commit().await?;
        Ok(Some(Untracked {
            video_id: VideoId(found.id),
            external_id: found.external_id,
        }))
    }
}

/// Untracking, first: tracked video `$1` leaves with its tags.
const UNTRACK_VIDEO: [&str; 2] = [
    "DELETE FROM video_tags WHERE tracked_video_id = $1",
    "DELETE FROM tracked_videos WHERE id = $1",
];

/// Untracking, then: the readings organization `$1` imported of catalog
/// video `$2` and the daily closes it saw leave too (another organization's
/// are its own: closes are per organization).
const UNTRACK_READINGS: [&str; 2] = [
    "DELETE FROM imported_observations WHERE organization_id = $1 AND platform_video_id = $2",
    "DELETE FROM daily_closes WHERE organization_id = $1 AND platform_video_id = $2",
];

/// Untracking, last: catalog video `$1` is read until the latest tracking
/// end of those who still track it, and no more once nobody does.
const RESCHEDULE_UNTRACKED: &str = "UPDATE platform_videos SET
       refresh_until = coalesce(
         (SELECT max(tv.tracking_ends_at) FROM tracked_videos tv WHERE tv.platform_video_id = $1),
         refresh_until),
       next_refresh_at = CASE WHEN EXISTS (
         SELECT 1 FROM tracked_videos tv WHERE tv.platform_video_id = $1) THEN next_refresh_at END
     WHERE id = $1";

/// A tracked video found for a write, by a [`VideoLookup`].
#[derive(Debug)]
struct FoundVideo {
    /// The organization's id of it.
    id: Uuid,
    /// Its catalog id.
    catalog_id: i64,
    /// The platform's id.
    external_id: String,
}

/// The organization's video `video` names (by external id: the most
/// recently tracked one), read inside a write.
async fn find_video<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    video: &VideoLookup,
) -> Result<Option<FoundVideo>, StoreError> {
    let find = match video {
        VideoLookup::Id(id) => D::query(
            "SELECT tv.id, tv.platform_video_id, pv.external_id
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND tv.id = $2",
        )
        .bind(org.0)
        .bind(id.0),
        VideoLookup::ExternalId(external_id) => D::query(
            "SELECT tv.id, tv.platform_video_id, pv.external_id
             FROM tracked_videos tv JOIN platform_videos pv ON pv.id = tv.platform_video_id
             WHERE tv.organization_id = $1 AND pv.external_id = $2
             ORDER BY tv.created_at DESC LIMIT 1",
        )
        .bind(org.0)
        .bind(external_id.as_str()),
    };
    let row: Option<(Uuid, i64, String)> = find.fetch_optional(&mut **tx).await?;
    Ok(row.map(|(id, catalog_id, external_id)| FoundVideo {
        id,
        catalog_id,
        external_id,
    }))
}

/// Applies a validated PATCH to one found video, inside the caller's
/// transaction.
async fn patch_in<D: crate::backend::Db>(
    tx: &mut Tx<D>,
    org: OrgId,
    video: FoundVideo,
    patch: &VideoPatch,
    now: DateTime<Utc>,
) -> Result<PatchOutcome, StoreError> {
    // A new campaign moves the video's analytics to another cell.
    let scope = match patch.campaign {
        Some(_) => Scope::tracked_by(org.0, [video.catalog_id]),
        None => Scope::default(),
    };
    let before = rollup::shares(tx, &scope).await?;
    // A campaign named in any letter case is the organization's campaign of
    // that name, created when absent; the video carries its stored name.
    let campaign = match patch.campaign.clone().flatten() {
        Some(name) => Some(crate::campaigns::attach::<D>(&mut **tx, org, &name, now).await?),
        None => None,
    };
    D::query(AssertSqlSafe(format!(
        "UPDATE tracked_videos SET
           notes = CASE WHEN $2 THEN {notes} ELSE notes END,
           budget = CASE WHEN $4 THEN {budget} ELSE budget END,
           campaign = CASE WHEN $6 THEN {campaign} ELSE campaign END,
           video_status = coalesce({video_status}, video_status),
           workflow_status = coalesce({workflow_status}, workflow_status),
           ecpm = CASE WHEN $10 THEN {ecpm} ELSE ecpm END,
           updated_at = $12
         WHERE id = $1",
        notes = D::typed("$3", "text"),
        budget = D::typed("$5", "bigint"),
        campaign = D::typed("$7", "text"),
        video_status = D::typed("$8", "text"),
        workflow_status = D::typed("$9", "text"),
        ecpm = D::typed("$11", "float8"),
    )))
    .bind(video.id)
    .bind(patch.notes.is_some())
    .bind(patch.notes.clone().flatten())
    .bind(patch.budget.is_some())
    .bind(patch.budget.flatten())
    .bind(patch.campaign.is_some())
    .bind(campaign)
    .bind(patch.video_status.map(|s| s.as_str()))
    .bind(patch.status.map(|s| s.as_str()))
    .bind(patch.ecpm.is_some())
    .bind(patch.ecpm.flatten())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    rollup::settle(tx, &scope, before).await?;
    // Its campaign's dates may track it longer, or no longer (issue 37).
    if patch.campaign.is_some() {
        crate::campaigns::tracking::retime_videos::<D>(&mut **tx, org, &[video.id]).await?;
    }
    let tags = match &patch.tags {
        Some(names) => Some(attach_tags(tx, org, video.id, names, now).await?),
        None => None,
    };
    Ok(PatchOutcome {
        video_id: VideoId(video.id),
        external_id: video.external_id,
        updated_fields: patch.written_columns(),
        tags,
    })
}

/// Links tags (created when unknown, matched ignoring case) to a tracked video.
async fn attach_tags<D: Dialect>(
    tx: &mut Tx<D>,
    org: OrgId,
    video_id: Uuid,
    names: &[TagName],
    now: DateTime<Utc>,
) -> Result<TagsResult, StoreError> {
    let mut attached = Vec::with_capacity(names.len());
    let mut created = Vec::new();
    for name in names {
        let (tag_id, stored, is_new) =
            crate::bloggers::find_or_create_tag(tx, org, name, now).await?;
        if is_new {
            created.push(stored.clone());
        }
        D::query("INSERT INTO video_tags (tracked_video_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(video_id)
            .bind(tag_id)
            .execute(&mut **tx)
            .await?;
        attached.push(stored);
    }
    let total: i64 = D::query("SELECT count(*) FROM video_tags WHERE tracked_video_id = $1")
        .bind(video_id)
        .fetch_scalar(&mut **tx)
        .await?;
    Ok(TagsResult {
        attached,
        created,
        total,
    })
}

/// `WITH page AS (…)`: the ids (`page_id`) of the listing's page in its
/// order, with the gain a gained sort ranks by (`page_gain`); the caller
/// appends the statement that reads them.
fn page_ids<D: Dialect>(org: OrgId, query: &ListQuery, now: DateTime<Utc>) -> Builder<D> {
    let mut page = Builder::<D>::new("WITH page AS (SELECT tv.id AS page_id");
    if let SortKey::Gained(metric) = query.sort {
        page.push(", ");
        gains::push_gain(&mut page, metric, query.window, query.baseline);
        page.push(" AS page_gain");
    }
    page.push(" ");
    let gained = matches!(query.sort, SortKey::Gained(_));
    push_listing(&mut page, org, query, now, gained);
    // The page's bounds are written as numbers, not bound: PostgreSQL can
    // then plan a prepared listing once (a generic plan) where an unknown
    // LIMIT kept it planning every execution anew (0.25 ms of planning for
    // 0.1 ms of work on the unfiltered page).
    page.push(AssertSqlSafe(format!(
        " ORDER BY {order} LIMIT {limit} OFFSET {offset})",
        order = list_order(query, "page_gain"),
        limit = query.limit,
        offset = query.offset,
    )));
    page
}

/// How many of the organization's videos the listing's filters match, read
/// on a connection of its own: a listing runs it beside its page's
/// statement, so that a broad search waits for the longer of the two (its
/// count, which visits every match), not for their sum.
async fn count_listing<D: Dialect>(
    store: &SqlStore<D>,
    org: OrgId,
    query: &ListQuery,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let mut count = Builder::<D>::new("");
    push_count(&mut count, org, query, now);
    let mut conn = store.read().await?;
    count.build().fetch_scalar(&mut conn).await
}

/// Whether the listing's count is kept by triggers (a row or a few read,
/// not every match visited): the unfiltered listing's and a campaign's, the
/// first two cases of [`push_count`].
fn counts_kept(query: &ListQuery) -> bool {
    query.is_campaign_only()
}

/// Appends the `SELECT` counting the organization's videos the listing's
/// filters match.
fn push_count<D: Dialect>(b: &mut Builder<D>, org: OrgId, query: &ListQuery, now: DateTime<Utc>) {
    if query.is_unfiltered() {
        // The quota's day counts (migration 0009, kept by triggers) add up
        // to every tracked video of the organization: a few hundred rows
        // at most, instead of every video.
        b.push(
            "SELECT CAST(coalesce(sum(videos), 0) AS BIGINT) FROM tracked_video_ends
             WHERE organization_id = ",
        )
        .push_bind(org.0);
    } else if let Some(campaign) = query
        .campaign
        .as_deref()
        .filter(|_| query.is_campaign_only())
    {
        // A campaign's count (migration 0025, kept by triggers): one row.
        b.push(
            "SELECT CAST(coalesce(sum(videos), 0) AS BIGINT) FROM campaign_counts
             WHERE organization_id = ",
        )
        .push_bind(org.0)
        .push(" AND campaign = ")
        .push_bind(campaign);
    } else {
        b.push("SELECT count(*) ");
        push_listing(b, org, query, now, false);
    }
}

/// Whether the listing's filters or order read the catalog row `pv`.
fn reads_catalog<D: Dialect>(query: &ListQuery) -> bool {
    query.status.is_some()
        || query
            .title
            .as_deref()
            .is_some_and(|t| TitleSearch::of::<D>(t).reads_catalog::<D>())
        || query.author.is_some()
        || matches!(
            query.sort,
            SortKey::Views | SortKey::Likes | SortKey::Comments | SortKey::UpdatedAt
        )
}

/// The `FROM … WHERE …` of the listing: the organization's tracked videos
/// that pass every filter `query` sets (a filter not set adds nothing),
/// joined with their catalog rows `pv` only when a filter or the order
/// reads them, and with their latest closes `lc` when the statement
/// computes gains (`with_gains`: [`gains::push_gain`]).
fn push_listing<D: Dialect>(
    b: &mut Builder<D>,
    org: OrgId,
    query: &ListQuery,
    now: DateTime<Utc>,
    with_gains: bool,
) {
    b.push("FROM tracked_videos tv ");
    if with_gains {
        b.push(gains::LATEST_JOIN);
    }
    if reads_catalog::<D>(query) {
        b.push("JOIN platform_videos pv ON pv.id = tv.platform_video_id ");
    }
    b.push("WHERE tv.organization_id = ").push_bind(org.0);
    if let Some(platform) = query.platform {
        b.push(" AND tv.platform = ").push_bind(platform.id());
    }
    if let Some(state) = query.status {
        b.push(" AND CASE WHEN pv.gone_at IS NOT NULL OR pv.failures >= ")
            .push_bind(FAILING_AFTER_FAILURES)
            .push(" THEN 'failed' WHEN tv.tracking_ends_at <= ")
            .push_bind(now)
            .push(" THEN 'completed' ELSE 'active' END = ")
            .push_bind(state_name(state));
    }
    let instants = [
        ("tv.published_at >= ", query.published_from),
        ("tv.published_at < ", query.published_before),
        ("tv.tracking_started_at >= ", query.tracked_from),
        ("tv.tracking_started_at < ", query.tracked_before),
    ];
    for (predicate, instant) in instants {
        if let Some(instant) = instant {
            b.push(" AND ").push(predicate).push_bind(instant);
        }
    }
    if let Some(title) = &query.title {
        push_title_search(b, title);
    }
    if let Some(campaign) = &query.campaign {
        b.push(" AND tv.campaign = ").push_bind(campaign.as_str());
    }
    if let Some(author) = &query.author {
        // The platform's author, else the one the organization gave. From
        // the creator to their videos, one branch per index (the catalog's
        // authors, the organization's own), never a test per video: an `OR`
        // across the two tables would read every tracked video.
        let key = handle_key(author);
        b.push(
            " AND tv.id IN (SELECT a.id FROM platform_videos ap
               JOIN tracked_videos a ON a.platform_video_id = ap.id
               WHERE lower(ap.author_username) = ",
        )
        .push_bind(key.clone())
        .push(" AND a.organization_id = ")
        .push_bind(org.0)
        .push(
            " UNION ALL SELECT a.id FROM tracked_videos a
               JOIN platform_videos ap ON ap.id = a.platform_video_id
               WHERE a.organization_id = ",
        )
        .push_bind(org.0)
        .push(" AND a.own_author IS NOT NULL AND lower(a.own_author) = ")
        .push_bind(key)
        .push(" AND ap.author_username IS NULL)");
    }
    // From the tag to its videos (not a test per video): the database can
    // start at the rarest tag.
    for tag in &query.tags {
        b.push(
            " AND tv.id IN (SELECT vt.tracked_video_id FROM tags t
               JOIN video_tags vt ON vt.tag_id = t.id
               WHERE t.organization_id = ",
        )
        .push_bind(org.0)
        .push(" AND t.name_lower = ")
        .push_bind(tag.key())
        .push(")");
    }
}

/// How a title search for a text finds its videos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleSearch {
    /// Three characters or more: the titles' trigram index (migrations
    /// 0020, 0027): on SQLite its FTS5 table, on PostgreSQL the
    /// organization's titles' index.
    Trigrams,
    /// Two characters: the titles' bigram index (migrations 0026, 0027):
    /// on SQLite its table, on PostgreSQL the organization's titles' index.
    Bigram,
    /// One character, in most titles: every title compared.
    Scan,
}

impl TitleSearch {
    /// The search for `text` on backend `D`, by its length as the index
    /// holds it: on PostgreSQL lowercased (a few letters lowercase to two
    /// characters), on SQLite as given (its trigram table folds case
    /// character by character, its `lower()` only ASCII).
    fn of<D: Dialect>(text: &str) -> Self {
        let length = match D::BACKEND {
            crate::Backend::Postgres => text.to_lowercase().chars().count(),
            crate::Backend::Sqlite => text.chars().count(),
        };
        match length {
            0 | 1 => Self::Scan,
            2 => Self::Bigram,
            _ => Self::Trigrams,
        }
    }

    /// Whether the search reads the catalog row `pv` on backend `D`:
    /// only SQLite's scan (PostgreSQL tests the title each tracked video
    /// carries, migration 0027; SQLite's indexes are tables of their own).
    fn reads_catalog<D: Dialect>(self) -> bool {
        D::BACKEND == crate::Backend::Sqlite && self == Self::Scan
    }
}

/// Appends the test that the tracked video `tv`'s title holds `text`, in
/// any case (ASCII case on SQLite for fewer than three characters: its
/// `lower()` folds no other). A text of three characters or more is looked
/// up in the titles' trigram index, two characters in their bigram index:
/// on PostgreSQL GIN indexes over the organization and the title each
/// tracked video carries (migration 0027), which answer `LIKE` and the
/// bigram array test; on SQLite the catalog titles' FTS5 table (Unicode
/// case folding), whose matches are exactly the titles holding the text,
/// and their table of bigrams. A single character is compared title by
/// title.
///
/// The statement is planned for its text ([`Builder::plan_each_run`]): how
/// many titles hold it decides the plan.
fn push_title_search<D: Dialect>(b: &mut Builder<D>, text: &str) {
    b.plan_each_run();
    let search = TitleSearch::of::<D>(text);
    match D::BACKEND {
        crate::Backend::Sqlite => match search {
            TitleSearch::Trigrams => {
                b.push(
                    " AND tv.platform_video_id IN (SELECT rowid FROM platform_video_titles
                       WHERE platform_video_titles MATCH ",
                )
                .push_bind(format!("\"{}\"", text.replace('"', "\"\"")))
                .push(")");
            }
            TitleSearch::Bigram => {
                b.push(
                    " AND tv.platform_video_id IN (SELECT platform_video_id FROM title_bigrams
                       WHERE bigram = ",
                )
                .push_bind(text.to_ascii_lowercase())
                .push(")");
            }
            TitleSearch::Scan => {
                b.push(" AND lower(pv.title) LIKE ")
                    .push_bind(title_pattern(text))
                    .push(" ESCAPE '\\'");
            }
        },
        crate::Backend::Postgres => match search {
            TitleSearch::Bigram => {
                // The index finds the titles by the array test. `strpos`
                // gives the same answer far cheaper than building a title's
                // bigrams: it is what a plan walking the listing's order
                // tests on each row. (A `LIKE` there would be estimated as a
                // second, independent filter: a tenth of the matches, and a
                // parallel plan for them.)
                let bigram = text.to_lowercase();
                b.push(" AND title_bigrams(tv.title) @> ARRAY[")
                    .push_bind(bigram.clone())
                    .push("]::text[] AND strpos(lower(tv.title), ")
                    .push_bind(bigram)
                    .push(") > 0");
            }
            TitleSearch::Trigrams | TitleSearch::Scan => {
                b.push(" AND lower(tv.title) LIKE ")
                    .push_bind(title_pattern(text))
                    .push(" ESCAPE '\\'");
            }
        },
    }
}

/// The `LIKE` pattern of titles holding `text` (lowercased, its `%`, `_`
/// and `\` escaped).
fn title_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// The spelling of a listing state filter in SQL.
fn state_name(state: VideoState) -> &'static str {
    match state {
        VideoState::Active => "active",
        VideoState::Completed => "completed",
        VideoState::Failed => "failed",
    }
}

/// The listing's ORDER BY: the sort key with nulls last, then the id as
/// tiebreaker; `gain` names the column a gained sort orders by.
fn list_order(query: &ListQuery, gain: &'static str) -> String {
    let column = match query.sort {
        SortKey::CreatedAt => "tv.created_at",
        SortKey::Views => "pv.views",
        SortKey::Likes => "pv.likes",
        SortKey::Comments => "pv.comments",
        SortKey::UpdatedAt => "pv.stats_updated_at",
        SortKey::PublishedAt => "tv.published_at",
        SortKey::Gained(_) => gain,
    };
    let dir = match query.order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    // `created_at` is never null: without `NULLS LAST` the order is the
    // index's (organization_id, created_at, id), read without a sort.
    if query.sort == SortKey::CreatedAt {
        format!("{column} {dir}, tv.id {dir}")
    } else {
        format!("{column} {dir} NULLS LAST, tv.id {dir}")
    }
}
