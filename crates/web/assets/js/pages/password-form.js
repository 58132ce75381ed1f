// A new password, twice, with the server's rule (10 to 1024 characters).
import { h, field, clear } from '../dom.js';
import { t } from '../i18n.js';

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 1024;

/**
 * Builds the form; `submit(password, status)` is called with a valid password.
 * `username`: the account's address when known, in a hidden field that
 * password managers (and browsers' form checks) look for beside a new password.
 */
export function passwordForm(submitLabel, submit, username = '') {
  const pw = h('input', { type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_PASSWORD, maxlength: MAX_PASSWORD, id: 'new-password' });
  const again = h('input', { type: 'password', autocomplete: 'new-password', required: true, id: 'new-password-again' });
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, submitLabel);
  const account = h('input', { type: 'text', name: 'username', autocomplete: 'username', value: username, hidden: true, tabindex: '-1', 'aria-hidden': 'true' });
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    account,
    status,
    field(t('password.new'), pw, t('password.rule', { min: MIN_PASSWORD })),
    field(t('password.again'), again),
    button,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear(status);
    let problem = null;
    if (pw.value.length < MIN_PASSWORD) problem = t('password.too_short', { min: MIN_PASSWORD });
    else if (pw.value.length > MAX_PASSWORD) problem = t('password.too_long', { max: MAX_PASSWORD });
    else if (pw.value !== again.value) problem = t('password.mismatch');
    if (problem) {
      status.append(h('div', { class: 'alert alert-error', role: 'alert' }, problem));
      pw.focus();
      return;
    }
    button.disabled = true;
    try {
      await submit(pw.value, status);
    } finally {
      button.disabled = false;
    }
  });
  return { form, focus: () => pw.focus() };
}
