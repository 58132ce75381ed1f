// Forgot password: asks for a link by e-mail (always 202).
import { post } from '../api.js';
import { h, field, errorBox, busy, clear, notice } from '../dom.js';
import { t } from '../i18n.js';
import { authFrame } from './auth-common.js';

export default async function forgot(main) {
  const email = h('input', { type: 'email', autocomplete: 'email', required: true, id: 'forgot-email' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, t('forgot.submit'));
  const form = h('form', { class: 'form', novalidate: true }, h('p', null, t('forgot.intro')), status, field(t('signin.email'), email), submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    if (!email.value.trim()) {
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, t('forgot.missing')));
      return;
    }
    await busy(submit, async () => {
      try {
        await post('/auth/forgot-password', { email: email.value.trim() }, { org: false, redirect401: false });
        status.append(notice(t('forgot.sent'), 'ok'));
      } catch (e) {
        status.append(errorBox(e));
      }
    });
  });
  authFrame(main, t('forgot.title'), form, h('p', { class: 'auth-links' }, h('a', { href: '/sign-in' }, t('forgot.back'))));
  email.focus();
}
