// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// clients/web/i18n.js and its catalogues (clients/web/i18n/<code>.json):
// every key in every language with the same placeholders, every key used by
// the board, translate, and English in place of what cannot be read.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';

import { LANGUAGES, MESSAGES, catalogueUrl, languageFor, loadLanguage, placeholders, translate }
  from '../../clients/web/i18n.js';
import { readCatalogue } from './catalogues.mjs';

const WEB = new URL('../../clients/web/', import.meta.url);

test('the catalogues are the files of clients/web/i18n/, one per language', async () => {
  for (const language of LANGUAGES) {
    assert.equal(await loadLanguage(language, readCatalogue), language, `${language} loads`);
  }
  const files = readdirSync(new URL('i18n/', WEB)).sort();
  assert.deepEqual(files, LANGUAGES.map((language) => `${language}.json`).sort());
  for (const language of LANGUAGES) {
    assert.equal(catalogueUrl(language).href, new URL(`i18n/${language}.json`, WEB).href);
  }
});

test('the tables are the languages offered', () => {
  assert.deepEqual(Object.keys(MESSAGES).sort(), [...LANGUAGES].sort());
  assert.deepEqual(LANGUAGES, ['en', 'de', 'fr', 'nl']);
});

test('every key exists in every language, with the same placeholders', () => {
  const english = MESSAGES.en;
  for (const language of LANGUAGES) {
    const table = MESSAGES[language];
    assert.deepEqual(Object.keys(table).sort(), Object.keys(english).sort(),
                     `${language} has other keys than en`);
    for (const [key, text] of Object.entries(table)) {
      assert.equal(typeof text, 'string', `${language}.${key}`);
      assert.ok(text.trim().length > 0, `${language}.${key} is empty`);
      assert.deepEqual(placeholders(text).sort(), placeholders(english[key]).sort(),
                       `${language}.${key}: "${text}" against "${english[key]}"`);
      // No brace outside a placeholder.
      assert.doesNotMatch(text.replace(/\{[a-z][A-Za-z]*\}/g, ''), /[{}]/,
                          `${language}.${key} has a stray brace`);
    }
  }
});

test('the translations are not English copies', () => {
  for (const language of LANGUAGES.filter((l) => l !== 'en')) {
    const same = Object.keys(MESSAGES.en)
      .filter((key) => MESSAGES[language][key] === MESSAGES.en[key]);
    // Placeholder-only texts and the names and words the languages share
    // (Anubis, Sphinx, "{count} s").
    assert.ok(same.length <= 12, `${language} repeats English: ${same.join(', ')}`);
  }
});

// Every text is on the board: its key is named in a page or module (in
// code as 'key', in index.html as data-i18n="key" or "attribute:key").
test('every text is used by the board', () => {
  const source = readdirSync(WEB)
    .filter((name) => /\.(js|html)$/.test(name) && name !== 'i18n.js')
    .map((name) => readFileSync(new URL(name, WEB), 'utf8'))
    .join('\n');
  const unused = Object.keys(MESSAGES.en).filter((key) => !new RegExp(
    `['"]${key}['"]|:${key}\\b`).test(source));
  assert.deepEqual(unused, [], `texts no page uses: ${unused.join(', ')}`);
});

test('translate fills placeholders', () => {
  assert.equal(translate('en', 'joinAs', { side: 'Silver' }), 'Join as Silver');
  assert.equal(translate('de', 'replayMove', { ply: 3, plies: 9, side: 'Rot', move: 'a8L' }),
               'Wiedergabe: Zug 3 von 9, Rot a8L.');
  assert.equal(translate('fr', 'noLegalMove', {}), '{piece} n\'a aucun coup permis.');
  assert.equal(translate('xx', 'resign'), 'Resign');
  assert.equal(translate('nl', 'gameTitle', { silver: '{red}', red: 'Bo' }),
               '{red} (Zilver) tegen Bo (Rood)');
  assert.throws(() => translate('en', 'noSuchKey'), /noSuchKey/);
});

test('languageFor picks the first language offered', () => {
  assert.equal(languageFor(['de-CH', 'en']), 'de');
  assert.equal(languageFor(['es', 'NL-be']), 'nl');
  assert.equal(languageFor(['es']), 'en');
  assert.equal(languageFor(), 'en');
});

// A fresh copy of the module, with nothing loaded yet.
const freshI18n = (() => {
  let copies = 0;
  return () => import(`../../clients/web/i18n.js?copy=${++copies}`);
})();

test('English stands in for a language not offered or not readable', async () => {
  const i18n = await freshI18n();
  assert.throws(() => i18n.translate('en', 'resign'), /no words loaded/);
  const read = [];
  const readSome = async (url) => {
    read.push(url.pathname.split('/').pop());
    if (url.pathname.endsWith('/fr.json')) throw new Error('no such file');
    if (url.pathname.endsWith('/nl.json')) return ['not', 'a', 'catalogue'];
    return readCatalogue(url);
  };
  const warn = console.warn;
  const warnings = [];
  console.warn = (text) => warnings.push(text);
  try {
    assert.equal(await i18n.loadLanguage('xx', readSome), 'en');
    assert.equal(await i18n.loadLanguage('fr', readSome), 'en');
    assert.equal(await i18n.loadLanguage('nl', readSome), 'en');
    assert.equal(await i18n.loadLanguage('de', readSome), 'de');
    assert.equal(await i18n.loadLanguage('de', readSome), 'de');
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(read, ['en.json', 'fr.json', 'nl.json', 'de.json'], 'each read once');
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /fr words could not be read/);
  assert.deepEqual(Object.keys(i18n.MESSAGES).sort(), ['de', 'en']);
  assert.equal(i18n.translate('fr', 'resign'), 'Resign');
  assert.equal(i18n.translate('xx', 'joinAs', { side: 'Red' }), 'Join as Red');
  assert.equal(i18n.translate('de', 'resign'), MESSAGES.de.resign);
  // A key a catalogue lacks: English's text.
  delete i18n.MESSAGES.de.resign;
  assert.equal(i18n.translate('de', 'resign'), 'Resign');
  assert.throws(() => i18n.translate('de', 'noSuchKey'), /noSuchKey/);
});

test('English that cannot be read fails the load', async () => {
  const i18n = await freshI18n();
  const nothing = async () => { throw new Error('offline'); };
  const warn = console.warn;
  console.warn = () => {};
  try {
    await assert.rejects(i18n.loadLanguage('de', nothing), /offline/);
  } finally {
    console.warn = warn;
  }
  // Tried again on the next load.
  assert.equal(await i18n.loadLanguage('de', readCatalogue), 'de');
  assert.equal(i18n.translate('de', 'gameTitle', { silver: 'Ada', red: 'Bo' }),
               MESSAGES.de.gameTitle.replace('{silver}', 'Ada').replace('{red}', 'Bo'));
});
