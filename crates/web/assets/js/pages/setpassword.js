// Set password from an e-mailed or printed link: /set-password?token=…
import { post } from '../api.js';
import { h, errorText } from '../dom.js';
import { t } from '../i18n.js';
import { afterSignIn } from '../app.js';
import { authFrame } from './auth-common.js';
import { passwordForm } from './password-form.js';

export default async function setPassword(main, params, query) {
  const token = query.get('token');
  if (!token) {
    authFrame(
      main,
      t('setpw.title'),
      h('div', { class: 'alert alert-error', role: 'alert' }, t('setpw.no_token')),
      h('p', { class: 'auth-links' }, h('a', { href: '/forgot-password' }, t('setpw.new_link'))),
    );
    return;
  }
  const { form, focus } = passwordForm(t('setpw.submit'), async (password, status) => {
    try {
      const data = await post('/auth/set-password', { token, password }, { org: false, redirect401: false });
      await afterSignIn(data, '/videos');
    } catch (e) {
      const text = e.field === 'token' ? t('setpw.bad_token') : errorText(e);
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, text));
      if (e.field === 'token') {
        status.append(h('p', null, h('a', { href: '/forgot-password' }, t('setpw.new_link'))));
      }
    }
  });
  authFrame(main, t('setpw.title'), h('p', null, t('setpw.intro')), form);
  focus();
}
