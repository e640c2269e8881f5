// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board's words in English, German, French and Dutch, and their
// loader. The words are in one JSON catalogue per language, i18n/<code>.json
// next to this module (i18n/en.json, i18n/de.json, ...): a flat object from a
// key to a text with named placeholders ("Join as {side}"), the form
// translators' tools read. Every language has the same keys and, per key,
// the same placeholders (tests/web/i18n.test.mjs). English is each text as
// the board shows it today, and what stands in for a language not offered,
// a catalogue that cannot be read and a key a catalogue lacks; the terms
// follow khetd's announcements (service/i18n/README.md). language.js loads
// the catalogue of the language it speaks and puts the words on the pages.
// Which of two texts a count takes ("1 turn", "2 turns") is the caller's
// choice of key (turnCountOne, turnCountOther).

export const LANGUAGES = ['en', 'de', 'fr', 'nl'];

// The catalogues loaded so far, by language (loadLanguage adds them).
export const MESSAGES = {};

const PLACEHOLDER = /\{([a-z][A-Za-z]*)\}/g;

// language -> the promise of its catalogue, read once (again after a failure).
const loading = new Map();

// The address of a language's catalogue.
export const catalogueUrl = (language) => new URL(`i18n/${language}.json`, import.meta.url);

// The browser's way to read a catalogue: over HTTP from khetd, next to the
// modules.
async function fetchCatalogue(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

// Reads the catalogue of `language` with `read` (a URL -> its parsed JSON)
// into MESSAGES, once; a catalogue must map keys to texts.
function loadCatalogue(language, read) {
  let promise = loading.get(language);
  if (!promise) {
    promise = (async () => {
      const table = await read(catalogueUrl(language));
      if (!table || typeof table !== 'object' || Array.isArray(table)
          || !Object.values(table).every((text) => typeof text === 'string')) {
        throw new Error(`${catalogueUrl(language)} is not a catalogue of texts`);
      }
      MESSAGES[language] = table;
    })();
    loading.set(language, promise);
    promise.catch(() => loading.delete(language));
  }
  return promise;
}

// Loads the words of `language` and English's, which stand in for what the
// language lacks, both at once; `read` reads a catalogue (fetch by default;
// node's tests read the files). Answers the language that
// translate(language, ...) then speaks: `language` itself, or 'en' for a
// language not offered or whose catalogue cannot be read (said on the
// console). Fails only when English cannot be read.
export async function loadLanguage(language, read = fetchCatalogue) {
  const english = loadCatalogue('en', read);
  const own = language === 'en' || !LANGUAGES.includes(language) ? 'en'
    : loadCatalogue(language, read).then(() => language, (error) => {
      console.warn(`The ${language} words could not be read; English instead. ${error.message}`);
      return 'en';
    });
  await english;
  return own;
}

// The names of a text's placeholders in order ("{a} of {b}": ['a', 'b']).
export function placeholders(text) {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

// `text` with its placeholders filled from `values`; a placeholder without
// a value stays as written.
export function format(text, values = {}) {
  return text.replace(PLACEHOLDER, (whole, name) => (name in values ? String(values[name]) : whole));
}

const textIn = (table, key) => (table && Object.hasOwn(table, key) ? table[key] : undefined);

// The text of `key` in `language` (English for a language not offered or
// not loaded, and for a key its catalogue lacks) with its placeholders
// filled from `values`. An unknown key throws, and so does any key before
// English is loaded (loadLanguage).
export function translate(language, key, values = {}) {
  if (!MESSAGES.en) throw new Error(`no words loaded for ${JSON.stringify(key)} (loadLanguage)`);
  const own = LANGUAGES.includes(language) ? MESSAGES[language] : undefined;
  const text = textIn(own, key) ?? textIn(MESSAGES.en, key);
  if (text === undefined) throw new Error(`no text for ${JSON.stringify(key)}`);
  return format(text, values);
}

// The first offered language of the browser's preferences
// (navigator.languages, e.g. ['de-CH', 'en']), else English.
export function languageFor(preferences = []) {
  for (const preference of preferences) {
    const code = String(preference).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(code)) return code;
  }
  return 'en';
}
