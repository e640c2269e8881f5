// The language the pages speak now, and their words in it (i18n.js): t()
// for texts made in code, localize() for index.html's elements marked with
// data-i18n="key" (their text) or data-i18n-attr="attribute:key,...".
// A board's page speaks its session's `language` setting, the other pages
// the browser's first offered language; English when neither says.

import { LANGUAGES, translate } from './i18n.js';

let current = 'en';

// Switches to `code` ("" or an unknown code: English) and relabels the page;
// true when the language changed.
export function setLanguage(code) {
  const next = LANGUAGES.includes(code) ? code : 'en';
  if (next === current) return false;
  current = next;
  localize(document);
  return true;
}

export const t = (key, values) => translate(current, key, values);

export function localize(root) {
  document.documentElement.lang = current;
  for (const element of root.querySelectorAll('[data-i18n]')) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of element.dataset.i18nAttr.split(',')) {
      const [attribute, key] = pair.split(':');
      element.setAttribute(attribute, t(key));
    }
  }
}
