// Sign-in: e-mail and password; `next` honoured.
import { post, session } from '../api.js';
import { h, field, errorText, busy, clear } from '../dom.js';
import { t } from '../i18n.js';
import { afterSignIn, navigate } from '../app.js';
import { authFrame, nextPath } from './auth-common.js';

export default async function signIn(main, params, query) {
  const next = nextPath(query);
  if (session.user) {
    navigate(next, { replace: true });
    return;
  }
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, id: 'signin-email' });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true, id: 'signin-password' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, t('signin.submit'));
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    status,
    field(t('signin.email'), email),
    field(t('signin.password'), password),
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    if (!email.value.trim() || !password.value) {
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('signin.missing')));
      return;
    }
    await busy(submit, async () => {
      try {
        const data = await post(
          '/auth/sign-in',
          { email: email.value.trim(), password: password.value },
          { org: false, redirect401: false },
        );
        await afterSignIn(data, next);
      } catch (e) {
        const text = e.code === 'INVALID_CREDENTIALS' || e.status === 401 ? t('signin.invalid') : errorText(e);
        status.append(h('div', { class: 'alert alert-error', role: 'alert' }, text));
        password.value = '';
        password.focus();
      }
    });
  });
  authFrame(
    main,
    t('signin.title'),
    form,
    h('p', { class: 'auth-links' }, h('a', { href: '/forgot-password' }, t('signin.forgot'))),
  );
  email.focus();
}
