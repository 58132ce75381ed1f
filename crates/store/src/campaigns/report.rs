//! The per-video figures a campaign report is made of.

use vidpulse_domain::OrgId;
use vidpulse_domain::analytics::{Baseline, DateRange};

use super::CampaignVideoFigures;
use crate::StoreError;
use crate::backend::Db;
use crate::sql::SqlStore;

pub(super) async fn video_figures<D: Db>(
    store: &SqlStore<D>,
    org: OrgId,
    name: &str,
    window: DateRange,
    baseline: Baseline,
) -> Result<Vec<CampaignVideoFigures>, StoreError> {
    let _ = (store, org, name, window, baseline);
    todo!("issue 37: campaign report")
}
