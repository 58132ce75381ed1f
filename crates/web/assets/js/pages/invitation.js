// An invitation link: /invitations/{id}?token=…. The page names the
// organization and who invited. Signed in: accept or decline (the
// invitation is read by id, for the invited address only). Signed out with
// the link's token: sign in, or create a password for the invited address
// (the token proves the mailbox; the id alone proves nothing). Signed out
// without a token: sign in only.
import { get, post, session, loadOrganizations, setOrg } from '../api.js';
import { h, errorBox, errorText, busy, clear, notice } from '../dom.js';
import { t, dateTime } from '../i18n.js';
import { roleLabel } from '../labels.js';
import { afterSignIn } from '../app.js';
import { authFrame } from './auth-common.js';
import { passwordForm } from './password-form.js';

/** What the invitation offers: who invited, to which organization, as what, until when. */
function summary(inv) {
  const vars = { name: inv.organization_name, role: roleLabel(inv.role), inviter: inv.invited_by };
  return [
    h('p', { id: 'invitation-summary' }, inv.invited_by ? t('invite.summary', vars) : t('invite.summary_unknown', vars)),
    h('p', { class: 'hint' }, t('invite.expires', { date: dateTime(inv.expires_at) })),
  ];
}

/** What became of an invitation no longer pending. */
function statusText(status) {
  switch (status) {
    case 'accepted':
      return t('invite.status_accepted');
    case 'declined':
      return t('invite.status_declined');
    case 'expired':
      return t('invite.status_expired');
    default:
      return t('invite.status_cancelled');
  }
}

function signInButton(here) {
  return h('p', null, h('a', { class: 'btn btn-primary btn-block', href: `/sign-in?next=${encodeURIComponent(here)}` }, t('invite.sign_in')));
}

async function signedOut(main, id, token, here) {
  if (!token) {
    authFrame(main, t('invite.title'), h('p', null, t('invite.intro_no_token')), signInButton(here));
    return;
  }
  let inv;
  try {
    inv = await post('/organizations/team/invite/lookup', { token }, { org: false, redirect401: false });
  } catch (e) {
    const text = e.field === 'token' ? t('invite.bad_token') : errorText(e);
    authFrame(main, t('invite.title'), h('div', { class: 'alert alert-error', role: 'alert' }, text), signInButton(here));
    return;
  }
  const { form } = passwordForm(t('invite.create_submit'), async (password, status) => {
    try {
      const data = await post('/auth/invitation-password', { token, invite_id: id, password }, { org: false, redirect401: false });
      await afterSignIn(data, here);
    } catch (e) {
      let text = errorText(e);
      if (e.status === 409) text = t('invite.sign_in_instead');
      else if (e.field === 'token') text = t('invite.bad_token');
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, text));
    }
  });
  authFrame(
    main,
    t('invite.title'),
    summary(inv),
    h('p', null, t('invite.intro_signed_out', { email: inv.email })),
    signInButton(here),
    h('h2', null, t('invite.create_title')),
    h('p', { class: 'hint' }, t('invite.create_intro')),
    form,
  );
}

async function signedIn(main, id) {
  let inv = null;
  try {
    inv = await get(`/organizations/team/invites/${encodeURIComponent(id)}`, { org: false });
  } catch (e) {
    if (e.status !== 404) {
      authFrame(main, t('invite.title'), errorBox(e));
      return;
    }
  }
  const toApp = () => h('p', null, h('a', { href: '/videos' }, t('invite.go_to_app')));
  if (!inv) {
    authFrame(main, t('invite.title'), notice(t('invite.not_yours', { email: session.user.email }), 'warn'), toApp());
    return;
  }
  if (inv.status !== 'pending') {
    authFrame(main, t('invite.title'), summary(inv), notice(statusText(inv.status), 'warn'), toApp());
    return;
  }
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const accept = h('button', { type: 'button', class: 'btn btn-primary' }, t('invite.accept'));
  const decline = h('button', { type: 'button', class: 'btn' }, t('invite.decline'));
  const actions = h('div', { class: 'actions' }, accept, decline);
  accept.addEventListener('click', () =>
    busy(accept, async () => {
      clear(status);
      try {
        const data = await post('/organizations/team/invite/accept', { invite_id: id }, { org: false });
        await loadOrganizations();
        setOrg(data.organization_id);
        actions.remove();
        status.append(notice(t('invite.accepted', { name: data.organization_name }), 'ok'), toApp());
      } catch (e) {
        status.append(errorBox(e));
      }
    }),
  );
  decline.addEventListener('click', () =>
    busy(decline, async () => {
      clear(status);
      try {
        await post('/organizations/team/invite/decline', { invite_id: id }, { org: false });
        actions.remove();
        status.append(notice(t('invite.declined'), 'ok'), toApp());
      } catch (e) {
        status.append(errorBox(e));
      }
    }),
  );
  authFrame(
    main,
    t('invite.title'),
    summary(inv),
    h('p', null, t('invite.intro_signed_in', { email: session.user.email })),
    status,
    actions,
  );
}

export default async function invitation(main, params, query) {
  const id = params.id;
  const here = `/invitations/${encodeURIComponent(id)}`;
  if (session.user) await signedIn(main, id);
  else await signedOut(main, id, query.get('token'), here);
}
