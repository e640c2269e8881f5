// clients/web/i18n.js: every key in every language with the same
// placeholders, every key used by the board, and translate.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';

import { LANGUAGES, MESSAGES, languageFor, placeholders, translate }
  from '../../clients/web/i18n.js';

const WEB = new URL('../../clients/web/', import.meta.url);

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
