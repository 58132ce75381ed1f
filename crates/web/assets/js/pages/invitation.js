// An invitation link: /invitations/{id}. Signed in: accept or decline.
// Not signed in: sign in, or create a password for the invited address.
import { post, session, loadOrganizations, setOrg } from '../api.js';
import { h, errorBox, errorText, busy, clear, notice } from '../dom.js';
import { t } from '../i18n.js';
import { afterSignIn } from '../app.js';
import { authFrame } from './auth-common.js';
import { passwordForm } from './password-form.js';

export default async function invitation(main, params) {
  const id = params.id;
  const here = `/invitations/${encodeURIComponent(id)}`;
  if (!session.user) {
    const { form } = passwordForm(t('invite.create_submit'), async (password, status) => {
      try {
        const data = await post('/auth/invitation-password', { invite_id: id, password }, { org: false, redirect401: false });
        await afterSignIn(data, here);
      } catch (e) {
        const text = e.status === 409 ? t('invite.sign_in_instead') : errorText(e);
        status.append(h('div', { class: 'alert alert-error', role: 'alert' }, text));
      }
    });
    authFrame(
      main,
      t('invite.title'),
      h('p', null, t('invite.intro_signed_out')),
      h('p', null, h('a', { class: 'btn btn-primary btn-block', href: `/sign-in?next=${encodeURIComponent(here)}` }, t('invite.sign_in'))),
      h('h2', null, t('invite.create_title')),
      h('p', { class: 'hint' }, t('invite.create_intro')),
      form,
    );
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
        status.append(
          notice(t('invite.accepted', { name: data.organization_name }), 'ok'),
          h('p', null, h('a', { href: '/videos' }, t('invite.go_to_app'))),
        );
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
        status.append(notice(t('invite.declined'), 'ok'), h('p', null, h('a', { href: '/videos' }, t('invite.go_to_app'))));
      } catch (e) {
        status.append(errorBox(e));
      }
    }),
  );
  authFrame(main, t('invite.title'), h('p', null, t('invite.intro_signed_in', { email: session.user.email })), status, actions);
}
