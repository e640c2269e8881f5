// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board speaks the viewer's language, in a real browser against a
// real khetd (in-memory store, free ports; one each, so that neither lists
// the other's boards). A German and a Dutch browser context (Chromium's
// locale, so navigator.languages) each: see the lobby
// with the new-board form's clock choices open, play the computer in one
// click (the board is made in their language), see a move's hit note and a
// resignation's result, the past games, the review of the game, the rules
// and the players page; on every page the visible text (and the options of
// its lists) holds none of the English catalogue's texts that their own
// language words otherwise. Then the German viewer goes on from the game's
// record, chosen as a file (a file that is not text is refused in German),
// watches an English board in German with no failed request (no
// /sessions/null/games/null), and chooses French for their page alone: the
// board keeps its language, and the choice outlasts a reload.
//
// usage: node languages_test.mjs --khetd PATH [--chromium PATH]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startKhetd } from './khetd.mjs';

const { values: flags } = parseArgs({
  options: {
    khetd: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
  },
});
const { chromium } = await import('playwright-core').catch((error) => {
  console.error(`playwright-core is missing (scripts/setup.sh installs it): ${error.message}`);
  process.exit(1);
});
if (!flags.khetd) {
  console.error('usage: node languages_test.mjs --khetd PATH [--chromium PATH]');
  process.exit(2);
}

// The web board's catalogues (clients/web/i18n/<code>.json, which the
// browser fetches), by language.
const CATALOGUES = new URL('../../clients/web/i18n/', import.meta.url);
const MESSAGES = Object.fromEntries(fs.readdirSync(CATALOGUES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [path.basename(name, '.json'),
                  JSON.parse(fs.readFileSync(new URL(name, CATALOGUES), 'utf8'))]));

const WAIT_MS = 10000;
const OVERALL_MS = 90000;

const servers = [];  // each khetd started
let browser = null;
let profiles = null;
let khetdLog = '';
const started = Date.now();
const step = (text) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
}

async function cleanUp() {
  await browser?.close().catch(() => {});
  browser = null;
  if (profiles) fs.rmSync(profiles, { recursive: true, force: true });
  profiles = null;
  for (const khetd of servers.splice(0)) {
    if (khetd.exitCode === null) {
      const exited = new Promise((resolve) => khetd.once('exit', resolve));
      khetd.kill('SIGTERM');
      const late = setTimeout(() => khetd.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(late);
    }
    khetd.stdout.destroy();
    khetd.stderr.destroy();
  }
}

// Starts a khetd (stopped with the others at the end); its HTTP base URL.
async function startServer() {
  const { khetd, base } = await startKhetd(flags.khetd, {
    onLog: (chunk) => { khetdLog += chunk; },
  });
  servers.push(khetd);
  return base;
}

// A call to the khetd at `base`; a record route answers text, others JSON.
async function api(base, method, route, body, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${base}${route}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: HTTP ${response.status}: ${text}`);
  return route.endsWith('/record') ? text : JSON.parse(text);
}

async function until(page, what, fn, arg, timeout = WAIT_MS) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  } catch {
    const shown = await page.evaluate(() => document.body.innerText).catch(() => '');
    throw new Error(`${page.label}: timed out waiting for ${what}; the page shows:\n${shown}`);
  }
}

// The English texts a page in `language` must not show: each English text
// that the language words otherwise, cut at its placeholders into the
// pieces that are words (a name such as "Anubis", the same in both, is not
// among them).
function englishOnly(language) {
  const pieces = new Set();
  for (const [key, english] of Object.entries(MESSAGES.en)) {
    const own = MESSAGES[language][key];
    if (own === english) continue;
    const ownWords = new Set(own.split(/[^\p{L}']+/u));
    for (const piece of english.split(/\{[a-z][A-Za-z]*\}/)) {
      const text = piece.replace(/^[\s:;,.()·]+|[\s:;,.()·]+$/g, '');
      // One short word alone ("of", "v") may be any language's.
      if (text.length < 4 || (!text.includes(' ') && ownWords.has(text))) continue;
      pieces.add(text);
    }
  }
  return [...pieces];
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Fails if the page's visible text, its lists' options and its visible
// fields' placeholders and labels hold any of `english`.
async function noEnglish(page, english, where) {
  const shown = await page.evaluate(() => {
    const visible = (e) => e.getClientRects().length > 0;
    const parts = [document.body.innerText, document.title];
    for (const select of document.querySelectorAll('select')) {
      if (visible(select)) parts.push(...[...select.options].map((o) => o.textContent));
    }
    for (const e of document.querySelectorAll('[placeholder], [aria-label]')) {
      if (visible(e)) parts.push(e.getAttribute('placeholder') ?? '', e.getAttribute('aria-label') ?? '');
    }
    return parts.join('\n');
  });
  const found = english.filter((text) =>
    new RegExp(`(^|[^\\p{L}])${escape(text)}($|[^\\p{L}])`, 'u').test(shown));
  check(found.length === 0, `${page.label}, ${where}: English left: ${JSON.stringify(found)}\n` +
        `--- the page shows ---\n${shown}`);
  step(`${page.label}: ${where}: no English among ${english.length} texts`);
}

const enc = encodeURIComponent;
const sessionOf = (page) => page.evaluate(() => decodeURIComponent(
  window.location.hash.match(/^#\/s\/([^/]+)/)?.[1] ?? ''));
const stored = (page, id) => page.evaluate((key) => JSON.parse(localStorage.getItem(key)),
                                           `khet.session.${id}`);

// One browser in `language` on the khetd at `base`: every page, with a
// game played and resigned. Answers the page and the game's session id.
async function tour(base, context, language, label) {
  const page = await context.newPage();
  page.label = label;
  const english = englishOnly(language);
  const words = MESSAGES[language];
  await page.goto(`${base}/`);
  await until(page, 'the lobby in its language', (lang) => document.documentElement.lang === lang
    && document.querySelector('#create-scheme option')
    && document.querySelector('#create-setup-description').textContent !== '', language);
  await page.locator('#create-clock').selectOption('FISCHER');
  await page.locator('#create-form details').evaluate((details) => { details.open = true; });
  await noEnglish(page, english, 'the lobby, the clock form open');
  await page.locator('#create-clock').selectOption('PER_MOVE');
  await noEnglish(page, english, 'the lobby, a time for each move');

  // Against the computer in one click: the board is made in the language.
  await page.locator('#quick-name').fill('Ada');
  await page.locator('#quick-play').click();
  await until(page, 'the board', () => /^#\/s\//.test(window.location.hash)
    && document.querySelector('.seat-red')?.textContent.includes('(')
    && !document.querySelector('#game-layout').hidden);
  const id = await sessionOf(page);
  const session = await api(base, 'GET', `/v1/sessions/${enc(id)}`);
  check(session.settings.language === language,
        `quick play made the board in ${language}: "${session.settings.language}"`);
  // j5L: Silver's laser takes its own Pyramid on j4 (a hit note); the
  // computer answers; then Silver resigns.
  const { player } = await stored(page, id);
  await api(base, 'POST', `/v1/sessions/${enc(id)}:move`, { move: { notation: 'j5L' } }, player.token);
  await until(page, 'the hit note and the computer\'s answer', () =>
    document.querySelector('#moves-panel .move-hit')
    && document.querySelectorAll('#moves-panel button.move').length >= 3, undefined, 15000);
  await api(base, 'POST', `/v1/sessions/${enc(id)}:resign`, {}, player.token);
  await until(page, 'the result', () => !document.querySelector('#result').hidden);
  const hit = await page.locator('#moves-panel .move-hit').first().textContent();
  const result = await page.locator('#result').textContent();
  await noEnglish(page, english, 'the board after a hit and a resignation');
  step(`${label}: hit note "${hit.trim()}", result "${result}"`);

  await page.goto(`${base}/#/`);
  const entry = page.locator(`#game-list .game-entry`).first();
  await entry.waitFor({ timeout: WAIT_MS });
  await noEnglish(page, english, 'the lobby with the past game');
  await entry.getByRole('link').click();
  await until(page, 'the review', () => !document.querySelector('#review').hidden
    && document.querySelectorAll('#review-moves button.move').length >= 3
    && !document.querySelector('#review-result').hidden);
  await noEnglish(page, english, 'the review');
  await page.goto(`${base}/#/rules`);
  await until(page, 'the rules', () => document.querySelector('#tutorial-play'));
  await noEnglish(page, english, 'the rules');
  await page.goto(`${base}/#/players`);
  await until(page, 'the players page', () => !document.querySelector('#players').hidden
    && !document.querySelector('#players-empty').hidden);
  await noEnglish(page, english, 'the players page');
  check(await page.locator('#page-language').inputValue() === language,
        `${label}: the header offers ${language} as the page's language`);
  step(`${label}: "${words.playComputer}", "${words.resign}"`);
  return { page, id };
}

// The German viewer goes on from the game's record, chosen as a file.
async function importRecord(base, page, id, dir) {
  const record = await api(base, 'GET', `/v1/sessions/${enc(id)}/games/current/record`);
  const file = path.join(dir, 'partie.khet');
  fs.writeFileSync(file, record);
  const binary = path.join(dir, 'bild.khet');
  fs.writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0xc3]));
  await page.goto(`${base}/#/`);
  await until(page, 'the import form', () => document.querySelector('#import-file'));
  await page.locator('#import-panel summary').click();
  await page.locator('#import-file').setInputFiles(binary);
  await until(page, 'the file refused', (text) =>
    document.querySelector('#import-message:not([hidden])')?.textContent === text,
  MESSAGES.de.recordNotText.replace('{name}', 'bild.khet'));
  await page.locator('#import-file').setInputFiles(file);
  await until(page, 'the record read', () =>
    document.querySelector('#import-text').value.includes('j5L')
    && document.querySelector('#import-name').value === 'partie');
  await page.locator('#import-form button[type=submit]').click();
  await until(page, 'the imported board', (old) => /^#\/s\//.test(window.location.hash)
    && !window.location.hash.includes(old)
    && document.querySelectorAll('#moves-panel button.move').length >= 3, enc(id));
  const imported = await api(base, 'GET', `/v1/sessions/${enc(await sessionOf(page))}`);
  const original = await api(base, 'GET', `/v1/sessions/${enc(id)}`);
  check(imported.name === 'partie' && imported.settings.language === 'de'
        && JSON.stringify(imported.moves) === JSON.stringify(original.moves)
        && imported.result?.reason === 'RESIGNATION',
        `the imported board holds the record's game: ${JSON.stringify(imported.moves)} ` +
        `${imported.result?.reason} "${imported.name}" ${imported.settings.language}`);
  step(`imported from a file: "${imported.name}", moves ${imported.moves.join(' ')}`);
}

// A German viewer on an English board: German words, no failed request; the
// viewer's own choice of French leaves the board English and outlasts a reload.
async function ownLanguage(base, page) {
  const failed = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failed.push(message.text());
  });
  const created = await api(base, 'POST', '/v1/sessions', { name: 'english board',
                                                      settings: { language: 'en' } });
  const id = created.session.id;
  await page.goto(`${base}/#/s/${enc(id)}`);
  await until(page, 'the English board in German', (join) =>
    document.querySelector('#seats button')?.textContent.startsWith(join)
    && document.documentElement.lang === 'de', MESSAGES.de.joinAs.split(' {')[0]);
  await page.waitForTimeout(500);  // the moves' record is read
  check(failed.length === 0, `no failed request or console error: ${failed.join('; ')}`);
  await page.locator('#page-language').selectOption('fr');
  await until(page, 'the page in French', (join) =>
    document.querySelector('#seats button')?.textContent.startsWith(join)
    && document.documentElement.lang === 'fr', MESSAGES.fr.joinAs.split(' {')[0]);
  const board = await api(base, 'GET', `/v1/sessions/${enc(id)}`);
  check(board.settings.language === 'en', `the board stays English: ${board.settings.language}`);
  await page.reload();
  await until(page, 'French after a reload', () => document.documentElement.lang === 'fr'
    && document.querySelector('#page-language').value === 'fr');
  check(failed.length === 0, `no failed request or console error: ${failed.join('; ')}`);
  step('an English board in German, then French for this viewer only; the board stays English');
}

async function main() {
  const [germanBase, dutchBase] = await Promise.all([startServer(), startServer()]);
  step(`khetd serves ${germanBase} and ${dutchBase}`);
  profiles = fs.mkdtempSync(path.join(os.tmpdir(), 'khet-languages-'));
  browser = await chromium.launch({
    executablePath: flags.chromium,
    env: { ...process.env, TMPDIR: profiles },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const viewport = { width: 1280, height: 800 };
  const german = await browser.newContext({ viewport, locale: 'de-DE' });
  const dutch = await browser.newContext({ viewport, locale: 'nl-NL' });
  const [de, nl] = await Promise.all([tour(germanBase, german, 'de', 'German browser'),
                                      tour(dutchBase, dutch, 'nl', 'Dutch browser')]);
  await nl.page.close();
  await importRecord(germanBase, de.page, de.id, profiles);
  await ownLanguage(germanBase, de.page);
}

const deadline = setTimeout(async () => {
  console.error(`languages test: FAILED: took longer than ${OVERALL_MS / 1000} s`);
  await cleanUp();
  process.exit(1);
}, OVERALL_MS);

try {
  await main();
  step('languages test: PASSED');
  process.exitCode = 0;
} catch (error) {
  console.error(`languages test: FAILED: ${error.stack ?? error}`);
  console.error(`khetd's log, last lines:\n${khetdLog.split('\n').slice(-20).join('\n')}`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await cleanUp();
}
