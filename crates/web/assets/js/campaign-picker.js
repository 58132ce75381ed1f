// The organization's campaigns (GET /dashboard/campaigns), and the text
// field every campaign input uses: a list to pick from, so nobody has to
// spell a name exactly (the server attaches a name in any letter case to
// its campaign, and creates one for a name it does not know).
import { api, currentOrg } from './api.js';
import { h, nextId } from './dom.js';

const PAGE = 100;
let cached = null;

/** The list of an answer, in either shape (`data` the array, or `{data|items, pagination}`). */
export function listOf(answer) {
  const data = answer && 'data' in answer && answer.success !== undefined ? answer.data : answer;
  if (Array.isArray(data)) return { items: data, pagination: answer?.meta?.pagination || null };
  return { items: data?.data || data?.items || [], pagination: data?.pagination || answer?.meta?.pagination || null };
}

/** Every campaign of the current organization, archived ones too, name order. */
export async function loadCampaigns({ fresh = false } = {}) {
  const org = currentOrg();
  if (!fresh && cached && cached.org === org) return cached.list;
  const all = [];
  for (let offset = 0; offset < 10000; offset += PAGE) {
    const answer = await api('GET', '/dashboard/campaigns', { query: { limit: PAGE, offset }, raw: true });
    const { items, pagination } = listOf(answer);
    all.push(...items);
    const more = pagination ? (pagination.has_more ?? offset + items.length < pagination.total) : false;
    if (!more || !items.length) break;
  }
  all.sort((a, b) => a.name.localeCompare(b.name));
  cached = { org, list: all };
  return all;
}

/** Forgets the list (after a campaign was created, renamed or deleted). */
export function forgetCampaigns() {
  cached = null;
}

/**
 * A text input with the organization's campaigns to pick from (not the
 * archived ones), `value` in it. Returns [input, datalist]: put both in the form.
 */
export function campaignInput(attrs) {
  const listId = nextId('campaign-list');
  const input = h('input', { type: 'text', maxlength: 200, autocomplete: 'off', list: listId, ...attrs });
  const datalist = h('datalist', { id: listId });
  loadCampaigns()
    .then((list) => {
      for (const c of list) if (!c.archived) datalist.append(h('option', { value: c.name }));
    })
    .catch(() => {
      /* no list (a plan without campaigns, say): the field still takes a name */
    });
  return [input, datalist];
}
