// The frame of the pages shown before sign-in.
import { h } from '../dom.js';
import { safeNext } from '../app.js';

export function authFrame(main, title, ...children) {
  main.append(
    h(
      'div',
      { class: 'auth' },
      h(
        'div',
        { class: 'auth-card card' },
        h('p', { class: 'auth-brand' }, h('img', { src: '/assets/favicon.svg', alt: '', width: 32, height: 32 }), 'vidpulse'),
        h('h1', null, title),
        children,
      ),
    ),
  );
}

/** The `next` query parameter when it is a page of this app, else the videos. */
export function nextPath(query) {
  return safeNext(query.get('next'));
}
