// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The language the pages speak, and their words in it (i18n.js): t() for
// texts made in code, localize() for index.html's elements marked with
// data-i18n="key" (their text) or data-i18n-attr="attribute:key,...".
// A language is spoken once its catalogue (i18n/<code>.json) is loaded:
// setLanguage waits for it, and app.js for the first before any page.
// Every page speaks the viewer's language: the one they chose on this
// browser (kept in localStorage, for this browser only), else the browser's
// first offered language (navigator.languages), else English. A board's own
// language (its announcements, for everyone) is the owner's setting and
// does not change the page's words.

import { LANGUAGES, languageFor, loadLanguage, translate } from './i18n.js';

const CHOICE_KEY = 'khet.language';

let current = 'en';
let switches = 0;  // setLanguage's calls: of those made while loading, the last wins
const listeners = [];

// The viewer's own choice on this browser, or '' for none.
export function chosenLanguage() {
  try {
    const stored = localStorage.getItem(CHOICE_KEY) ?? '';
    return LANGUAGES.includes(stored) ? stored : '';
  } catch {
    return '';
  }
}

// The language the pages should speak now.
export const viewerLanguage = () => chosenLanguage() || languageFor(navigator.languages);

// The language the pages speak ("en", "de", "fr" or "nl").
export const language = () => current;

// Keeps `code` as the viewer's choice ('' forgets it: the browser's
// language again) and speaks it (setLanguage's promise).
export function chooseLanguage(code) {
  try {
    if (LANGUAGES.includes(code)) localStorage.setItem(CHOICE_KEY, code);
    else localStorage.removeItem(CHOICE_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
    return setLanguage(LANGUAGES.includes(code) ? code : languageFor(navigator.languages));
  }
  return setLanguage(viewerLanguage());
}

// Switches to `code` ("" or an unknown code: English; one whose catalogue
// cannot be read: English too) once its words are loaded, relabels the page
// and tells the listeners (onLanguageChange); a promise of true when the
// language changed, false when it did not or a later call overtook this one.
export async function setLanguage(code) {
  const call = ++switches;
  const next = await loadLanguage(LANGUAGES.includes(code) ? code : 'en');
  if (call !== switches || next === current) return false;
  current = next;
  localize(document);
  for (const listener of listeners) listener(current);
  return true;
}

// Calls listener(code) after every change of language, so that words made
// in code are written again.
export function onLanguageChange(listener) {
  listeners.push(listener);
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
