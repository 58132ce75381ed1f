// Team: members and roles, invitations (up to 3 at once), pending ones
// (admins cancel or re-send each), removing a member.
import { get, post, del, can, session } from '../api.js';
import { h, clear, fill, field, select, errorBox, busy, pageHeader, section, toast } from '../dom.js';
import { t, num, dateTime } from '../i18n.js';
import { dataTable } from '../table.js';
import { roleLabel, INVITABLE_ROLES, inviteFailureLabel } from '../labels.js';

export const MAX_INVITES = 3;

function inviteForm(onSent) {
  const rows = Array.from({ length: MAX_INVITES }, (_, i) => {
    const email = h('input', { type: 'email', id: `invite-email-${i + 1}`, autocomplete: 'off' });
    const role = select(INVITABLE_ROLES.map((r) => [r, roleLabel(r)]), 'viewer', { id: `invite-role-${i + 1}` });
    return {
      email,
      role,
      el: h('div', { class: 'inline-form' }, field(t('team.invite_email', { n: i + 1 }), email), field(t('team.invite_role', { n: i + 1 }), role)),
    };
  });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, t('team.invite_submit'));
  const form = h('form', { class: 'form', novalidate: true }, status, rows.map((r) => r.el), h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    const invites = rows.filter((r) => r.email.value.trim()).map((r) => ({ email: r.email.value.trim(), role: r.role.value }));
    if (!invites.length) {
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('team.invite_empty')));
      rows[0].email.focus();
      return;
    }
    await busy(submit, async () => {
      try {
        const data = await post('/organizations/team/invite', { invites });
        const lines = [
          ...data.sent.map((s) => h('li', { class: 'ok' }, t('team.invite_sent', { email: s.email, role: roleLabel(s.role) }))),
          ...data.failed.map((f) => h('li', { class: 'error' }, `${f.email}: ${inviteFailureLabel(f.reason)}`)),
        ];
        status.append(h('div', { class: data.failed.length ? 'alert alert-warn' : 'alert alert-ok', role: 'status' }, h('ul', { class: 'plain' }, lines)));
        for (const r of rows) r.email.value = '';
        onSent();
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  return form;
}

export default async function team(main, params, query, ctx) {
  const admin = can('admin');
  main.append(pageHeader(t('team.title')));
  const membersSlot = h('div');
  const pendingSlot = h('div');
  main.append(section(t('team.members'), membersSlot));
  if (admin) main.append(section(t('team.invite_title'), h('p', { class: 'hint' }, t('team.invite_hint', { max: MAX_INVITES })), inviteForm(() => loadPending())));
  main.append(section(t('team.pending'), pendingSlot));

  const isMe = (m) => m.id === session.user?.id || m.email === session.user?.email;
  // Admins change a member's role in place.
  function roleSelect(m) {
    const roles = can('owner') ? [...INVITABLE_ROLES, 'owner'] : INVITABLE_ROLES.includes(m.role) ? INVITABLE_ROLES : [m.role];
    const sel = select(roles.map((r) => [r, roleLabel(r)]), m.role, { 'aria-label': t('team.role_of', { email: m.email }), disabled: !roles.includes(m.role) || roles.length === 1 });
    sel.addEventListener('change', async () => {
      sel.disabled = true;
      try {
        await post('/organizations/team/members/role', { user_id: m.id, role: sel.value });
        toast(t('team.role_saved', { email: m.email, role: roleLabel(sel.value) }));
        loadMembers();
      } catch (e) {
        toast(errorBox(e).textContent, 'error');
        sel.value = m.role;
        sel.disabled = false;
      }
    });
    return sel;
  }

  async function loadMembers() {
    let members;
    try {
      members = await get('/organizations/team/members');
    } catch (e) {
      if (ctx.isCurrent()) fill(membersSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    const columns = [
      { key: 'id', label: 'id', hidden: true },
      { key: 'email', label: t('team.col_email'), header: true, cell: (m) => m.email },
      { key: 'role', label: t('team.col_role'), cell: (m) => (admin && !isMe(m) ? roleSelect(m) : roleLabel(m.role)) },
    ];
    if (admin) {
      columns.push({
        key: 'actions',
        label: h('span', { class: 'visually-hidden' }, t('team.col_actions')),
        csv: false,
        cell: (m) => {
          if (isMe(m)) return h('span', { class: 'hint' }, t('team.you'));
          const b = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('team.remove_one', { email: m.email }) }, t('team.remove'));
          b.addEventListener('click', () => {
            if (!window.confirm(t('team.remove_confirm', { email: m.email }))) return;
            busy(b, async () => {
              try {
                await post('/organizations/team/members/remove', { user_id: m.id });
                toast(t('team.removed', { email: m.email }));
                loadMembers();
              } catch (e) {
                toast(errorBox(e).textContent, 'error');
              }
            });
          });
          return b;
        },
      });
    }
    fill(membersSlot, dataTable({ caption: t('team.members'), hideCaption: true, csvName: 'team', columns, rows: members || [] }));
  }

  async function loadPending() {
    let count;
    let invites;
    try {
      [count, invites] = await Promise.all([
        get('/organizations/team/pending-invites/count'),
        get('/organizations/team/invites').catch((e) => (e.status === 404 || e.status === 405 ? null : Promise.reject(e))),
      ]);
    } catch (e) {
      if (ctx.isCurrent()) fill(pendingSlot, errorBox(e));
      return;
    }
    if (!ctx.isCurrent()) return;
    fill(pendingSlot, h('p', { id: 'pending-count' }, t('team.pending_count', { count: num(count.count) })));
    if (invites) {
      const columns = [
        { key: 'email', label: t('team.col_email'), header: true, cell: (i) => i.email },
        { key: 'role', label: t('team.col_role'), cell: (i) => roleLabel(i.role) },
        { key: 'expires', label: t('team.col_expires'), csv: 'expires_at', cell: (i) => dateTime(i.expires_at) },
      ];
      if (admin) {
        columns.push({
          key: 'actions',
          label: h('span', { class: 'visually-hidden' }, t('team.col_actions')),
          csv: false,
          cell: invitationActions,
        });
      }
      pendingSlot.append(
        dataTable({
          caption: t('team.pending'),
          hideCaption: true,
          csvName: 'invitations',
          columns,
          rows: invites.filter((i) => !i.status || i.status === 'pending'),
          empty: t('team.no_pending'),
        }),
      );
    }
  }

  // Re-send (a new link and a fresh expiry) and cancel, per pending invitation.
  function invitationActions(i) {
    const path = `/organizations/team/invites/${encodeURIComponent(i.invite_id)}`;
    const resend = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': t('team.resend_one', { email: i.email }) }, t('team.resend'));
    const cancel = h('button', { type: 'button', class: 'btn btn-small btn-danger', 'aria-label': t('team.cancel_one', { email: i.email }) }, t('team.cancel'));
    resend.addEventListener('click', () =>
      busy(resend, async () => {
        try {
          await post(`${path}/resend`);
          toast(t('team.resent', { email: i.email }));
          loadPending();
        } catch (e) {
          toast(e.code === 'EMAIL_FAILED' ? t('team.resend_failed') : errorBox(e).textContent, 'error');
        }
      }),
    );
    cancel.addEventListener('click', () => {
      if (!window.confirm(t('team.cancel_confirm', { email: i.email }))) return;
      busy(cancel, async () => {
        try {
          await del(path);
          toast(t('team.cancelled', { email: i.email }));
          loadPending();
        } catch (e) {
          toast(errorBox(e).textContent, 'error');
        }
      });
    });
    return h('div', { class: 'actions' }, resend, cancel);
  }
  await Promise.all([loadMembers(), loadPending()]);
}
