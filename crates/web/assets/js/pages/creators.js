// Creators: the list (followers and their 7/30-day gain), a creator's
// follower history (line chart and table), add by handle (and watch the
// job), pause/resume, campaign, budget, tags, creator profiles (merge), delete.
import { get, post, can } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, notice, toast, nextId } from '../dom.js';
import { t, num, gain, date, dateTime } from '../i18n.js';
import { lineChart } from '../charts.js';
import { campaignInput, forgetCampaigns } from '../campaign-picker.js';
import { dataTable } from '../table.js';
import { platformLabel, PLATFORMS, jobStatusLabel } from '../labels.js';

const FINISHED = new Set(['succeeded', 'error']);

/** Waits 1, 2, 4, 8 … (at most 30) seconds between reads of the job (docs/api.md). */
export async function pollJob(jobId, onUpdate, { isCurrent = () => true, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
  let wait = 1000;
  for (;;) {
    let job;
    try {
      job = await get(`/blogger/jobs/${encodeURIComponent(jobId)}`);
    } catch (e) {
      if (e.status === 410) return { status: 'error', error: { code: e.code, message: e.message } };
      throw e;
    }
    onUpdate(job);
    if (FINISHED.has(job.status) || !isCurrent()) return job;
    await sleep(wait);
    wait = Math.min(wait * 2, 30000);
  }
}

function jobView(job, username) {
  const done = FINISHED.has(job.status);
  const steps = { queued: 1, processing: 2, succeeded: 3, error: 3 };
  const parts = [
    h('p', null, h('strong', null, `@${username}: `), h('span', { class: `badge badge-${job.status}` }, jobStatusLabel(job.status))),
    h('progress', { max: 3, value: steps[job.status] || 0, 'aria-label': t('creators.job_progress', { username }) }),
  ];
  if (job.status === 'succeeded') {
    parts.push(h('p', { class: 'alert alert-ok' }, t('creators.job_finished', { count: job.result?.initial_videos_count ?? 0 })));
  } else if (job.status === 'error') {
    parts.push(h('p', { class: 'alert alert-error', role: 'alert' }, job.error?.message || t('creators.job_failed')));
  } else if (!done) {
    parts.push(h('p', { class: 'hint' }, t('creators.job_wait')));
  }
  return h('div', { class: 'job', 'aria-live': 'polite' }, parts);
}

function addForm(onAdded, ctx) {
  const username = h('input', { type: 'text', id: 'creator-username', autocomplete: 'off', required: true, maxlength: 101, placeholder: '@handle' });
  const platform = select(PLATFORMS.map((p) => [p, platformLabel(p)]), 'tiktok', { id: 'creator-platform' });
  const count = h('input', { type: 'number', id: 'creator-count', min: 0, max: 50, value: 10, inputmode: 'numeric' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const jobSlot = h('div');
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, t('creators.add_submit'));
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    status,
    h('div', { class: 'inline-form' }, field(t('creators.handle'), username), field(t('filter.platform'), platform), field(t('creators.initial_count'), count), submit),
    jobSlot,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    const handle = username.value.trim();
    if (!handle) {
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('creators.handle_missing')));
      username.focus();
      return;
    }
    await busy(submit, async () => {
      try {
        const added = await post('/blogger/add', {
          username: handle,
          platform: platform.value,
          initial_videos_count: count.value === '' ? undefined : Number(count.value),
        });
        username.value = '';
        onAdded();
        const shown = added.blogger?.username || handle.replace(/^@/, '');
        fill(jobSlot, jobView({ status: 'queued' }, shown));
        const job = await pollJob(added.job_id, (j) => fill(jobSlot, jobView(j, shown)), { isCurrent: ctx.isCurrent });
        if (ctx.isCurrent() && FINISHED.has(job.status)) onAdded();
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  return form;
}

function editor(creator, all, tags, onChange) {
  const editorOk = can('editor');
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const run = (button, work, done) =>
    busy(button, async () => {
      clear(status);
      try {
        await work();
        toast(done);
        onChange(creator.tracking_id);
      } catch (e) {
        status.append(errorBox(e));
      }
    });

  const toggle = h('button', { type: 'button', class: 'btn' }, creator.is_active ? t('creators.pause') : t('creators.resume'));
  toggle.addEventListener('click', () =>
    run(toggle, () => post('/blogger/toggle', { tracking_id: creator.tracking_id, is_active: !creator.is_active }), creator.is_active ? t('creators.paused') : t('creators.resumed')),
  );

  const [campaign, campaignList] = campaignInput({ id: 'edit-creator-campaign', value: creator.campaign || '' });
  const saveCampaign = h('button', { type: 'button', class: 'btn' }, t('creators.save_campaign'));
  saveCampaign.addEventListener('click', () =>
    run(saveCampaign, () => post('/blogger/set-campaign', { tracking_id: creator.tracking_id, campaign: campaign.value.trim() || null }).then((r) => (forgetCampaigns(), r)), t('creators.campaign_saved')),
  );

  const budget = h('input', { type: 'number', id: 'edit-creator-budget', min: 1, step: 1, value: creator.budget_per_video ?? '' });
  const saveBudget = h('button', { type: 'button', class: 'btn' }, t('creators.save_budget'));
  saveBudget.addEventListener('click', () =>
    run(
      saveBudget,
      () => post('/blogger/set-budget-per-video', { tracking_id: creator.tracking_id, budget_per_video: budget.value === '' ? null : Number(budget.value) }),
      t('creators.budget_saved'),
    ),
  );

  const current = new Set((creator.tags || []).map((x) => x.id));
  const tagBoxes = tags.map((tag) => {
    const box = h('input', { type: 'checkbox', id: nextId('tag'), value: tag.id, checked: current.has(tag.id) });
    return { box, el: h('div', { class: 'checkbox' }, box, h('label', { for: box.id }, tag.name)) };
  });
  const newTag = h('input', { type: 'text', id: 'edit-creator-new-tag', maxlength: 80 });
  const saveTags = h('button', { type: 'button', class: 'btn' }, t('creators.save_tags'));
  saveTags.addEventListener('click', () =>
    run(
      saveTags,
      async () => {
        const ids = tagBoxes.filter((x) => x.box.checked).map((x) => x.box.value);
        const name = newTag.value.trim();
        if (name) {
          const created = await post('/tags', { name });
          ids.push(created.id);
        }
        await post('/blogger/set-tags', { tracking_id: creator.tracking_id, tag_ids: [...new Set(ids)] });
      },
      t('creators.tags_saved'),
    ),
  );

  // Profiles: add to an existing one, or start one with the selected creators.
  const profiles = new Map();
  for (const c of all) if (c.creator_id) profiles.set(c.creator_id, c.creator_name || c.creator_id);
  const profileSel = select(
    [['', t('creators.profile_choose')], ...[...profiles].filter(([id]) => id !== creator.creator_id).map(([id, name]) => [id, name])],
    '',
    { id: 'edit-creator-profile' },
  );
  const addToProfile = h('button', { type: 'button', class: 'btn' }, t('creators.add_to_profile'));
  addToProfile.addEventListener('click', () => {
    if (!profileSel.value) {
      fill(status, h('div', { class: 'alert alert-error', role: 'alert' }, t('creators.profile_none')));
      return;
    }
    run(addToProfile, () => post('/blogger/add-to-creator', { creator_id: profileSel.value, blogger_id: creator.blogger_id }), t('creators.profile_saved'));
  });

  const refetch = h('button', { type: 'button', class: 'btn' }, t('creators.refetch'));
  refetch.addEventListener('click', () => run(refetch, () => post('/blogger/fetch-initial-videos', { tracking_id: creator.tracking_id }), t('creators.refetch_started')));

  const del = h('button', { type: 'button', class: 'btn btn-danger' }, t('creators.delete'));
  del.addEventListener('click', () => {
    if (!window.confirm(t('creators.delete_confirm', { username: creator.username }))) return;
    run(del, () => post('/blogger/delete', { tracking_id: creator.tracking_id }), t('creators.deleted'));
  });
  const delAll = h('button', { type: 'button', class: 'btn btn-danger' }, t('creators.delete_with_videos'));
  delAll.addEventListener('click', () => {
    if (!window.confirm(t('creators.delete_videos_confirm', { username: creator.username }))) return;
    run(delAll, () => post('/blogger/delete-with-videos', { tracking_id: creator.tracking_id }), t('creators.deleted'));
  });

  const title = t('creators.edit_title', { username: creator.username, platform: platformLabel(creator.platform) });
  if (!editorOk) return section(title, notice(t('creators.viewer_only'), 'info'));
  return section(
    title,
    status,
    h('div', { class: 'actions' }, toggle, refetch),
    h('div', { class: 'grid-2' },
      h('div', null, h('div', { class: 'inline-form' }, field(t('creators.campaign'), campaign, t('campaigns.pick_hint')), campaignList, saveCampaign), h('div', { class: 'inline-form' }, field(t('creators.budget'), budget, t('creators.budget_hint')), saveBudget)),
      h(
        'fieldset',
        { class: 'form' },
        h('legend', { class: 'label' }, t('creators.tags')),
        tagBoxes.length ? tagBoxes.map((x) => x.el) : h('p', { class: 'hint' }, t('creators.no_tags')),
        h('div', { class: 'inline-form' }, field(t('creators.new_tag'), newTag), saveTags),
      ),
    ),
    h('h3', null, t('creators.profile')),
    h('p', { class: 'hint' }, creator.creator_name ? t('creators.in_profile', { name: creator.creator_name }) : t('creators.no_profile')),
    h('div', { class: 'inline-form' }, field(t('creators.profile_existing'), profileSel), addToProfile),
    h('h3', null, t('creators.danger')),
    h('div', { class: 'actions' }, del, delAll),
  );
}

/** The follower history of `creator` over the last 30 days (the server's default window). */
async function followersPanel(creator, ctx) {
  const title = t('creators.followers_title', { username: creator.username, platform: platformLabel(creator.platform) });
  let history;
  try {
    history = await get(`/blogger/${encodeURIComponent(creator.tracking_id)}/followers`);
  } catch (e) {
    return section(title, errorBox(e));
  }
  if (!ctx.isCurrent()) return null;
  const days = history?.days || [];
  const points = days.map((d) => ({ at: new Date(`${d.date}T00:00:00Z`), value: d.follower_count }));
  const last = days[days.length - 1];
  return section(
    title,
    h('p', { class: 'hint' }, t('creators.followers_hint', { from: date(history.from), to: date(history.to) })),
    h(
      'div',
      { class: 'chart-block' },
      lineChart({
        title: t('creators.followers_chart', { username: creator.username }),
        description: days.length
          ? t('creators.followers_summary', { count: days.length, value: num(last.follower_count) })
          : t('chart.no_data'),
        points,
      }),
      h(
        'details',
        null,
        h('summary', null, t('chart.show_table')),
        dataTable({
          caption: t('creators.followers_chart', { username: creator.username }),
          csvName: `followers-${creator.username}`,
          columns: [
            { key: 'date', label: t('creators.col_day'), cell: (d) => date(d.date) },
            { key: 'followers', label: t('creators.col_followers'), numeric: true, csv: 'follower_count', cell: (d) => num(d.follower_count) },
          ],
          rows: [...days].reverse(),
          empty: t('chart.no_data'),
        }),
      ),
    ),
  );
}

export default async function creators(main, params, query, ctx) {
  const editorRole = can('editor');
  main.append(pageHeader(t('creators.title')));
  if (editorRole) main.append(section(t('creators.add_title'), h('p', { class: 'hint' }, t('creators.add_hint')), addForm(() => load(), ctx)));
  const listSlot = h('div');
  const editSlot = h('div', { id: 'creator-editor' });
  const followersSlot = h('div', { id: 'creator-followers' });
  main.append(section(t('creators.list_title'), listSlot), followersSlot, editSlot);
  let openId = null;
  const selected = new Set();

  async function load(keepOpen = openId) {
    let list;
    let tags;
    try {
      [list, tags] = await Promise.all([get('/blogger/list'), get('/tags').catch(() => [])]);
    } catch (e) {
      if (ctx.isCurrent()) fill(listSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    list = list || [];
    const openEditor = (c) => {
      openId = c.tracking_id;
      fill(editSlot, editor(c, list, tags || [], (id) => load(id)));
      editSlot.querySelector('h2')?.setAttribute('tabindex', '-1');
      editSlot.querySelector('h2')?.focus();
    };
    const openFollowers = async (c, button) => {
      const panel = await busy(button, () => followersPanel(c, ctx));
      if (!panel || !ctx.isCurrent()) return;
      fill(followersSlot, panel);
      const heading = followersSlot.querySelector('h2');
      heading?.setAttribute('tabindex', '-1');
      heading?.focus();
    };
    const mergeName = h('input', { type: 'text', id: 'merge-name', maxlength: 100 });
    const mergeBtn = h('button', { type: 'button', class: 'btn' }, t('creators.merge'));
    const mergeStatus = h('div', { class: 'form-status', 'aria-live': 'polite' });
    const selCount = h('p', { class: 'bulk-count' });
    const refresh = () => {
      selCount.textContent = t('creators.selected', { count: selected.size });
      mergeBtn.disabled = selected.size < 2;
    };
    mergeBtn.addEventListener('click', () =>
      busy(mergeBtn, async () => {
        clear(mergeStatus);
        const ids = list.filter((c) => selected.has(c.tracking_id)).map((c) => c.blogger_id);
        try {
          const profile = await post('/blogger/merge', { blogger_ids: ids, name: mergeName.value.trim() || null });
          selected.clear();
          toast(t('creators.merged', { name: profile.name }));
          load();
        } catch (e) {
          mergeStatus.append(errorBox(e));
        }
      }),
    );
    const columns = [];
    if (editorRole) {
      columns.push({
        key: 'select',
        label: h('span', { class: 'visually-hidden' }, t('creators.select')),
        csv: false,
        cell: (c) => {
          const box = h('input', { type: 'checkbox', checked: selected.has(c.tracking_id), 'aria-label': t('creators.select_one', { username: c.username }) });
          box.addEventListener('change', () => {
            if (box.checked) selected.add(c.tracking_id);
            else selected.delete(c.tracking_id);
            refresh();
          });
          return box;
        },
      });
    }
    columns.push(
      { key: 'tracking_id', label: 'id', csv: 'tracking_id', hidden: true },
      { key: 'username', label: t('creators.col_handle'), header: true, cell: (c) => `@${c.username}` },
      { key: 'platform', label: t('filter.platform'), cell: (c) => platformLabel(c.platform) },
      { key: 'name', label: t('creators.col_name'), csv: 'channel_name', cell: (c) => c.channel_name || '–' },
      { key: 'followers', label: t('creators.col_followers'), numeric: true, csv: 'number_of_subscribers', cell: (c) => num(c.number_of_subscribers) },
      { key: 'gain7', label: t('creators.col_gain_7d'), numeric: true, csv: 'follower_gain_7d', cell: (c) => gain(c.follower_gain_7d) },
      { key: 'gain30', label: t('creators.col_gain_30d'), numeric: true, csv: 'follower_gain_30d', cell: (c) => gain(c.follower_gain_30d) },
      { key: 'videos', label: t('creators.col_videos'), numeric: true, csv: 'videos_tracked', cell: (c) => num(c.videos_tracked) },
      { key: 'views', label: t('creators.col_views'), numeric: true, csv: 'total_views', cell: (c) => num(c.total_views) },
      {
        key: 'active',
        label: t('creators.col_state'),
        csv: 'is_active',
        cell: (c) => h('span', { class: `badge ${c.is_active ? 'badge-active' : ''}` }, c.is_active ? t('creators.active') : t('creators.paused_state')),
      },
      { key: 'campaign', label: t('creators.campaign'), cell: (c) => c.campaign || '–' },
      { key: 'budget', label: t('creators.col_budget'), numeric: true, csv: 'budget_per_video', cell: (c) => num(c.budget_per_video) },
      { key: 'tags', label: t('creators.tags'), csv: ['tags', (c) => c.tags.map((x) => x.name).join('; ')], cell: (c) => (c.tags.length ? h('span', { class: 'tags' }, c.tags.map((x) => h('span', { class: 'tag' }, x.name))) : '–') },
      { key: 'profile', label: t('creators.profile'), csv: 'creator_name', cell: (c) => c.creator_name || '–' },
      { key: 'last', label: t('creators.col_last'), csv: 'last_scraped_at', cell: (c) => dateTime(c.last_scraped_at) },
      {
        key: 'actions',
        label: h('span', { class: 'visually-hidden' }, t('creators.col_actions')),
        csv: false,
        cell: (c) => {
          const history = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('creators.followers_one', { username: c.username }) }, t('creators.followers'));
          history.addEventListener('click', () => openFollowers(c, history));
          const b = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('creators.manage_one', { username: c.username }) }, t('creators.manage'));
          b.addEventListener('click', () => openEditor(c));
          return h('span', { class: 'actions' }, history, b);
        },
      },
    );
    fill(listSlot, 
      editorRole
        ? h(
            'div',
            { class: 'bulk' },
            selCount,
            h('div', { class: 'bulk-controls' }, field(t('creators.merge_name'), mergeName, t('creators.merge_hint')), mergeBtn),
            mergeStatus,
          )
        : null,
      dataTable({ caption: t('creators.list_title'), hideCaption: true, csvName: 'creators', columns, rows: list, empty: t('creators.none') }),
    );
    refresh();
    const again = keepOpen && list.find((c) => c.tracking_id === keepOpen);
    if (again) openEditor(again);
    else {
      openId = null;
      clear(editSlot);
    }
  }
  await load();
}
