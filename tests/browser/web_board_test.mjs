// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board in a real browser: starts khetd (in-memory store, free
// ports), opens the board in Debian's Chromium as two players - Silver on a
// desktop window, Red on a phone-sized one - and a watcher whose browser
// lacks EventSource (so its page long-polls), and plays a short game to a
// Pharaoh hit by clicking squares. After each move every other page must
// have updated live and drawn the mover's laser with its hits; at the end
// all show the result. Then the finished game's moves are listed on every
// page and replayed ply by ply (clicks and keys, each ply's board checked
// against the positions route, a step forward fading the piece it hits), its record downloaded, the computer's
// analysis run and its marks shown, and the game reviewed from the lobby's
// past games. In a second game, replaying pages refuse moves and stay on
// their ply while a live move arrives. A third board is made with a clock of
// a few seconds through the form: both clocks show, the running one counts
// down and they switch with a move, and when Red's flag falls every page
// shows the time forfeit with the clocks stopped, without a click. Last,
// Silver starts a game against the computer in one click: a hint is shown,
// its move is played out (the piece turns, the hit piece stays until the
// beam reaches it, the shot stays at least a second though the computer
// answers at once), a rematch swaps the colours, and the owner's settings
// turn hints off, the board's announcements into German and its colours to
// Nile; the player then chooses German for their own page: its words and
// Nile's side names.
// Before resigning, Silver takes back its move and the computer's reply: the
// board is the start position again; the owner's settings then turn
// takebacks off too, and the button says why it is disabled. Then two
// people, each in their own browser, join a rated board with player ids:
// it is marked rated, takebacks are refused with the reason, and after a
// resignation each seat shows its new rating and the players page lists
// both, the winner first.
// A link to a board that does not exist says so, without seats.
// Screenshots of the pages go to --screenshots.
//
// usage: node web_board_test.mjs --khetd PATH --screenshots DIR [--chromium PATH]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startKhetd } from './khetd.mjs';

const { values: flags } = parseArgs({
  options: {
    khetd: { type: 'string' },
    screenshots: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
  },
});
const { chromium } = await import('playwright-core').catch((error) => {
  console.error(`playwright-core is missing (scripts/setup.sh installs it): ${error.message}`);
  process.exit(1);
});
if (!flags.khetd || !flags.screenshots) {
  console.error('usage: node web_board_test.mjs --khetd PATH --screenshots DIR [--chromium PATH]');
  process.exit(2);
}

const WAIT_MS = 10000;     // for any one thing to show up on a page
const OVERALL_MS = 140000;  // the whole test, cleanup included, stays under this
const HOLD_MS = 1000;       // the least time a shot stays drawn

// Classic 2, found with the engine: Silver turns its Pyramid on j5 (its
// laser then takes its own Pyramid on j4), Red steps its Scarab from e5 to
// f6, and Silver's Pyramid stepping to j6 sends the beam into Red's Pharaoh
// on f8.
const GAME = [
  { side: 'silver', from: 'j5', rotate: 'anticlockwise', hits: ['j4'] },
  { side: 'red', from: 'e5', to: 'f6', hits: [] },
  { side: 'silver', from: 'j5', to: 'j6', hits: ['f8'] },
];

let khetd = null;
let browser = null;
let profiles = null;  // TMPDIR of the browser: its profiles
let khetdLog = '';    // khetd's stderr, shown on failure
const openPages = [];
const started = Date.now();
const step = (text) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);

async function cleanUp() {
  await browser?.close().catch(() => {});
  browser = null;
  if (profiles) fs.rmSync(profiles, { recursive: true, force: true });
  profiles = null;
  if (khetd && khetd.exitCode === null) {
    khetd.kill('SIGTERM');
    const exited = new Promise((resolve) => khetd.once('exit', resolve));
    const late = setTimeout(() => khetd.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(late);
  }
  // Its output pipes must not keep this process alive.
  khetd?.stdout.destroy();
  khetd?.stderr.destroy();
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    console.error(`web board test: ${signal}, cleaning up`);
    await cleanUp();
    process.exit(1);
  });
}

// Starts khetd (tests/browser/khetd.mjs); its HTTP base URL. Its log is
// kept for a failure, and echoed with KHET_TEST_VERBOSE.
async function startServer() {
  const started = await startKhetd(flags.khetd, {
    onLog: (chunk) => {
      khetdLog += chunk;
      if (process.env.KHET_TEST_VERBOSE) process.stderr.write(chunk);
    },
  });
  khetd = started.khetd;
  return started.base;
}

// Waits until fn(arg) is true in the page; fails naming `what`.
async function until(page, what, fn, arg, timeout = WAIT_MS) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  } catch (error) {
    const message = await page.locator('#message').textContent().catch(() => '');
    throw new Error(`${page.label}: timed out waiting for ${what}` +
                    `${message ? ` (page message: ${message})` : ''}`);
  }
}

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
}

const square = (page, name) =>
  page.locator(`.page:not([hidden]) svg.board [aria-label="${name}"]`);

let base = null;  // khetd's HTTP base URL

// A JSON answer of khetd's HTTP gateway.
async function postJson(route, body = {}) {
  const response = await fetch(`${base}${route}`, { method: 'POST', body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) {
    throw new Error(`POST ${route}: HTTP ${response.status}: ${JSON.stringify(answer)}`);
  }
  return answer;
}

async function getJson(route) {
  const response = await fetch(`${base}${route}`);
  const body = await response.json();
  if (!response.ok) {
    throw new Error(`GET ${route}: HTTP ${response.status}: ${JSON.stringify(body)}`);
  }
  return body;
}

// The pieces of a Board (JSON) by square, as the page marks them.
const piecesOf = (board) => Object.fromEntries((board.pieces ?? []).map((p) => [p.square,
                                                                              p.token ?? p.type]));

// The record's label of a move: "1. j5L", "1... e5-f6" (Silver moves first).
const moveLabel = (move) => `${Math.ceil(move.ply / 2)}${move.ply % 2 ? '.' : '...'} ` +
  move.notation;

// The board's state as the page shows it (the board of the page shown).
function boardState(page) {
  return page.evaluate(() => {
    const board = document.querySelector('.page:not([hidden]) svg.board');
    return {
      moves: document.querySelector('#game-meta')?.textContent ?? '',
      pieces: Object.fromEntries([...board.querySelectorAll('.square')]
        .map((s) => [s.dataset.square, s.dataset.piece ?? null])),
      laserLines: board.querySelectorAll('.laser-beam').length,
      shooter: board.querySelector('.laser')?.dataset.shooter ?? null,
      hits: [...board.querySelectorAll('.hit-mark')].map((h) => h.dataset.square),
      ply: board.dataset.ply ?? null,  // the ply replayed; null: the live game
    };
  });
}

const enc = encodeURIComponent;
const sortedJson = (object) => JSON.stringify(Object.entries(object).sort());

// Waits for `page` to replay ply `ply` of a game and checks its board, laser
// and hits against the positions route.
async function checkReplayed(page, sessionId, gameId, ply) {
  await until(page, `ply ${ply} replayed`, (n) => document
    .querySelector('.page:not([hidden]) svg.board')?.dataset.ply === String(n), ply);
  const position = await getJson(`/v1/sessions/${enc(sessionId)}/games/${enc(gameId)}` +
                                 `/positions/${ply}`);
  const state = await boardState(page);
  const shown = Object.fromEntries(Object.entries(state.pieces).filter(([, p]) => p !== null));
  check(sortedJson(shown) === sortedJson(piecesOf(position.board)),
        `${page.label}: ply ${ply}'s pieces as the positions route has them`);
  const shot = position.shot?.segments?.length ? position.shot : null;
  check(state.shooter === (shot?.shooter ?? null),
        `${page.label}: ply ${ply}'s laser fired by ${shot?.shooter ?? 'nobody'}`);
  check(JSON.stringify(state.hits) === JSON.stringify(shot?.hitSquares ?? []),
        `${page.label}: ply ${ply}'s hits [${state.hits}]`);
  const status = await page.locator('.page:not([hidden]) .replay-status').textContent();
  const says = ply === 0 ? /start position/i : new RegExp(`turn ${ply} of ${position.plies}`, 'i');
  check(says.test(status), `${page.label}: the replay says which ply it shows ("${status}")`);
}

// Checks the move list in `panel` shows every move of `record` (the
// GetGameRecordResponse), numbered, with what its laser hit.
async function checkMoveList(page, panel, record) {
  const plies = record.moves.length;
  await until(page, `${plies} moves listed`, ([selector, n]) =>
    document.querySelectorAll(`${selector} button.move`).length === n + 1, [panel, plies]);
  const entries = await page.evaluate((selector) => [
    ...document.querySelectorAll(`${selector} button.move`)].map((b) => ({
    ply: Number(b.dataset.ply),
    label: b.querySelector('.move-label').textContent,
    hit: b.querySelector('.move-hit')?.textContent ?? '',
  })), panel);
  check(entries[0].ply === 0 && /start position/i.test(entries[0].label),
        `${page.label}: the list starts with the start position`);
  for (const move of record.moves) {
    const entry = entries[move.ply];
    check(entry.ply === move.ply && entry.label.includes(moveLabel(move)),
          `${page.label}: entry ${move.ply} reads "${entry.label}", expected "${moveLabel(move)}"`);
    check(entry.hit.includes(move.hit ?? '') && Boolean(entry.hit) === Boolean(move.hit),
          `${page.label}: entry ${move.ply} shows the hit "${move.hit ?? ''}" ("${entry.hit}")`);
  }
}

// The judgement marked on each ply of the list in `panel` (GOOD: none).
function marksShown(page, panel) {
  return page.evaluate((selector) => Object.fromEntries([
    ...document.querySelectorAll(`${selector} button.move`)].map((b) => [b.dataset.ply, {
    judgement: b.querySelector('.move-judgement')?.dataset.judgement ?? 'GOOD',
    better: b.querySelector('.move-better')?.textContent ?? '',
  }])), panel);
}

// Plays `move` on the mover's page and checks every page shows it.
async function play(pages, move, index) {
  const mover = pages[move.side];
  const others = Object.values(pages).filter((page) => page !== mover);
  const before = await boardState(mover);
  const moved = before.pieces[move.from];

  await square(mover, move.from).click();
  if (move.rotate) {
    await mover.locator(`#rotate-${move.rotate}`).click();
  } else {
    await until(mover, `${move.to} marked as a target`,
                (to) => document.querySelector(`svg.board [data-square="${to}"].target`), move.to);
    await square(mover, move.to).click();
  }

  const plies = index + 1;
  const text = `${plies} turn${plies === 1 ? '' : 's'}`;
  for (const page of [mover, ...others]) {
    await until(page, `"${text}" after ${move.from}`,
                (t) => document.querySelector('#game-meta')?.textContent.includes(t), text);
    // The laser shown is this move's (fired by the mover), and it was
    // animated, not just drawn.
    await until(page, `${move.side}'s laser drawn`,
                (side) => document.querySelector('svg.board .laser')?.dataset.shooter === side
                  && document.querySelectorAll('svg.board .laser-beam').length > 0,
                move.side.toUpperCase());
    check(await page.evaluate(() => document.querySelector('svg.board .laser-beam')
      .getAnimations().length > 0), `${page.label}: the laser was animated`);
    const after = await boardState(page);
    check(JSON.stringify(after.hits) === JSON.stringify(move.hits),
          `${page.label}: hits marked on [${after.hits}], expected [${move.hits}]`);
    if (move.to) {
      check(after.pieces[move.from] === null, `${page.label}: ${move.from} empty after the move`);
      check(after.pieces[move.to] === moved, `${page.label}: ${moved} on ${move.to}`);
    } else {
      check(after.pieces[move.from] && after.pieces[move.from] !== moved,
            `${page.label}: ${move.from} turned (was ${moved}, now ${after.pieces[move.from]})`);
    }
  }
  const lines = (await boardState(others[0])).laserLines;
  step(`${move.side} played ${move.from}${move.to ? `-${move.to}` : ` ${move.rotate}`}; ` +
       `${others.map((p) => p.label).join(' and ')} updated live (${lines} laser lines)`);
}

async function main() {
  base = await startServer();
  step(`khetd serves ${base}`);

  profiles = fs.mkdtempSync(path.join(os.tmpdir(), 'khet-browser-'));
  browser = await chromium.launch({
    executablePath: flags.chromium,
    // Playwright gives the browser its own new profile directory under TMPDIR.
    env: { ...process.env, TMPDIR: profiles },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  step(`Chromium ${browser.version()} started`);

  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const phone = await browser.newContext({
    viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
  });
  // A third person only watches, in a browser without EventSource: the page
  // falls back to long polling.
  const polling = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  await polling.addInitScript(() => { delete window.EventSource; });
  const silver = await desktop.newPage();
  const red = await phone.newPage();
  const watcher = await polling.newPage();
  silver.label = 'Silver (desktop)';
  red.label = 'Red (phone)';
  watcher.label = 'watcher (long polling)';
  const pages = { silver, red, watcher };
  openPages.push(silver, red, watcher);
  const errors = [];
  const listen = (page) => {
    page.on('pageerror', (error) => errors.push(`${page.label}: ${error.message}`));
    // Answers with an error status are logged by the browser too; the page
    // shows those itself, so only script errors count.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
        errors.push(`${page.label}: ${m.text()}`);
      }
    });
  };
  openPages.forEach(listen);

  // The watcher's lobby is open before the board exists.
  await watcher.goto(`${base}/`);
  await until(watcher, 'the empty lobby',
              () => !document.querySelector('#session-list-empty').hidden);

  // Silver creates a board and takes the Silver seat.
  await silver.goto(`${base}/`);
  await until(silver, 'the setups', () => document.querySelector('#create-setup option[value="classic-2"]'));
  await silver.locator('#create-name').fill('browser test');
  await silver.locator('#create-setup').selectOption('classic-2');
  await silver.locator('#create-scheme').selectOption('classic');
  await silver.getByRole('button', { name: 'Create board', exact: true }).click();
  await until(silver, 'the board page', () => /^#\/s\//.test(window.location.hash));
  const sessionId = decodeURIComponent(await silver.evaluate(() => window.location.hash.slice(4)));
  await until(silver, 'the owner panel', () => !document.querySelector('#owner-panel').hidden);
  await silver.locator('#player-name').fill('Ada');
  await silver.getByRole('button', { name: 'Join as Silver' }).click();
  await until(silver, 'Ada in the Silver seat',
              () => document.querySelector('.seat-silver')?.textContent.includes('Ada (you)'));
  step(`board ${sessionId} created, Ada sits as Silver`);

  // Red finds it in the lobby on a phone and takes the Red seat.
  await red.goto(`${base}/`);
  const entry = red.locator(`.session-entry[data-session="${sessionId}"]`);
  await entry.waitFor({ timeout: WAIT_MS });
  check((await entry.textContent()).includes('Ada'), 'the lobby lists Ada as a player');
  fs.mkdirSync(flags.screenshots, { recursive: true });
  const lobbyShot = path.resolve(flags.screenshots, 'phone-lobby.png');
  await red.screenshot({ path: lobbyShot, fullPage: true });
  console.log(`screenshot: ${lobbyShot}`);
  await entry.getByRole('link').click();
  await red.locator('#player-name').fill('Bo');
  await red.getByRole('button', { name: 'Join as Red' }).click();
  await until(red, 'Bo in the Red seat',
              () => document.querySelector('.seat-red')?.textContent.includes('Bo (you)'));
  await until(silver, 'Bo seen live on Silver\'s page',
              () => document.querySelector('.seat-red')?.textContent.includes('Bo'));
  await until(silver, 'Silver to move', () => document.querySelector('#turn').textContent
    .startsWith('Your move'));
  step('Bo sits as Red on the phone; the game started on both pages');

  // The watcher's lobby refreshed by itself; the watcher opens the board.
  const watched = watcher.locator(`.session-entry[data-session="${sessionId}"]`);
  await until(watcher, 'the board in progress in the lobby',
              (id) => /in progress/.test(document.querySelector(`[data-session="${id}"]`)
                ?.textContent ?? ''), sessionId);
  await watched.getByRole('link').click();
  await until(watcher, 'the board with both players', () => {
    const seats = document.querySelector('#seats')?.textContent ?? '';
    return seats.includes('Ada') && seats.includes('Bo');
  });
  check(await watcher.getByRole('button', { name: 'Join as Silver' }).count() === 0,
        'no free seat offered to the watcher');

  // A reload keeps the seat (the token is in localStorage).
  await red.reload();
  await until(red, 'Bo still seated after a reload',
              () => document.querySelector('.seat-red')?.textContent.includes('Bo (you)'));

  // The phone layout fits: nothing wider than the screen, the board scaled
  // (its frame as wide as the screen; web_board_play_test checks its squares).
  const layout = await red.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    board: document.querySelector('#board').getBoundingClientRect().width,
    screen: window.innerWidth,
  }));
  check(layout.page <= layout.screen, `phone page fits (${layout.page} px in ${layout.screen})`);
  check(layout.board > 300 && layout.board <= layout.screen,
        `phone board scales (${layout.board} px)`);

  // A repetition draw is offered only on a third repetition.
  check(await silver.locator('#claim-draw').isHidden(), 'no repetition claim at the start');
  // Out of turn, Red's click is explained rather than sent.
  await square(red, 'e5').click();
  await until(red, 'an out-of-turn note',
              () => document.querySelector('#message').textContent.includes('Silver\'s move'));

  for (const [index, move] of GAME.entries()) await play(pages, move, index);

  for (const page of openPages) {
    await until(page, 'the result', () => /Silver wins/i.test(
      document.querySelector('#result:not([hidden])')?.textContent ?? ''));
    const state = await boardState(page);
    check(state.pieces.f8 === null, `${page.label}: Red's Pharaoh removed from f8`);
  }
  step(`result on every page: ${await red.locator('#result').textContent()}`);

  // Let the last laser finish drawing before the pictures.
  await silver.waitForTimeout(800);
  for (const [name, page] of [['desktop-silver.png', silver], ['phone-red.png', red],
                              ['watcher.png', watcher]]) {
    const file = path.resolve(flags.screenshots, name);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`screenshot: ${file}`);
  }

  // Every page lists the finished game's moves; on the phone the list sits
  // below the board.
  const sessionRoute = `/v1/sessions/${enc(sessionId)}`;
  const gameId = (await getJson(sessionRoute)).gameId;
  const record = await getJson(`${sessionRoute}/games/current`);
  check(record.game?.id === gameId && record.moves?.length === GAME.length,
        `the record of ${gameId} has ${GAME.length} moves`);
  for (const move of record.moves) {
    for (const hit of GAME[move.ply - 1].hits) {
      check(move.hit?.includes(hit), `the record says ply ${move.ply} hit ${hit}: "${move.hit}"`);
    }
  }
  for (const page of openPages) await checkMoveList(page, '#moves-panel', record);
  const phoneList = await red.evaluate(() => ({
    board: document.querySelector('#board').getBoundingClientRect().bottom,
    list: document.querySelector('#moves-panel').getBoundingClientRect(),
    page: document.documentElement.scrollWidth,
    screen: window.innerWidth,
  }));
  check(phoneList.list.top >= phoneList.board && phoneList.list.right <= phoneList.screen
        && phoneList.page <= phoneList.screen, 'the phone shows the moves below the board');
  step(`every page lists the ${GAME.length} moves with their hits`);

  // The record downloads from the link beside the moves.
  const href = await silver.locator('#moves-panel .record-link').getAttribute('href');
  check(href === `${sessionRoute}/games/${enc(gameId)}/record`, `download link ${href}`);
  const download = await silver.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, text: await response.text(),
             disposition: response.headers.get('Content-Disposition') ?? '' };
  }, href);
  check(download.status === 200 && /^attachment/.test(download.disposition)
        && download.text === record.text && /\b1\. j5L\b/.test(download.text)
        && /1-0\s*$/.test(download.text), `the download is the record:\n${download.text}`);
  step(`the record downloads (${download.disposition})`);

  // Silver has the computer analyse the game; its judgements are marked.
  await silver.locator('#moves-panel select[aria-label="Thinking time per move"]')
    .selectOption('100');
  await silver.locator('#moves-panel').getByRole('button', { name: 'Analyse' }).click();
  await until(silver, 'the analysis', () => /Computer analysis/.test(
    document.querySelector('#moves-panel .analysis-status')?.textContent ?? ''));
  const analysis = (await getJson(`${sessionRoute}/games/${enc(gameId)}`)).analysis;
  check(analysis?.state === 'DONE' && analysis.moves?.length === GAME.length,
        `the record holds the done analysis: ${JSON.stringify(analysis)}`);
  const checkMarks = async (page, panel) => {
    const marks = await marksShown(page, panel);
    for (const ply of analysis.moves) {
      const marked = ['INACCURACY', 'MISTAKE', 'BLUNDER'].includes(ply.judgement);
      const shown = marks[ply.ply];
      check(shown.judgement === (marked ? ply.judgement : 'GOOD'),
            `${page.label}: ply ${ply.ply} marked ${shown.judgement}, judged ${ply.judgement}`);
      check(!marked || !ply.bestMove || shown.better.includes(ply.bestMove),
            `${page.label}: ply ${ply.ply} names ${ply.bestMove} ("${shown.better}")`);
    }
    // Red's e5-f6 let Silver hit its Pharaoh next move.
    check(marks[2].judgement === 'BLUNDER', `${page.label}: e5-f6 marked as a blunder`);
    return Object.values(marks).map((m) => m.judgement).join(' ');
  };
  step(`analysis done and marked: ${await checkMarks(silver, '#moves-panel')}`);

  // Silver replays the game by clicks and keys; the board refuses nothing
  // here (the game is over) but shows each ply as the positions route has it.
  await silver.locator('#moves-panel button.move[data-ply="1"]').click();
  await checkReplayed(silver, sessionId, gameId, 1);
  check(await silver.locator('#board.replaying').count() === 1, 'the board is marked as a replay');
  await silver.keyboard.press('ArrowRight');
  await checkReplayed(silver, sessionId, gameId, 2);
  await silver.keyboard.press('ArrowLeft');
  await checkReplayed(silver, sessionId, gameId, 1);
  await silver.waitForTimeout(400);  // the laser drawn in full
  const replayShot = path.resolve(flags.screenshots, 'desktop-replay.png');
  await silver.screenshot({ path: replayShot, fullPage: true });
  console.log(`screenshot: ${replayShot}`);
  await silver.keyboard.press('Home');
  await checkReplayed(silver, sessionId, gameId, 0);
  // One ply forward is played as it happened: the Pyramid that j5's laser
  // hits at ply 1 fades from j4 (a ghost of it is drawn over the board).
  await silver.evaluate(() => {
    window.hitGhosts = [];
    new MutationObserver((changes) => {
      for (const change of changes) {
        for (const node of change.addedNodes) {
          if (node.classList?.contains('hit-piece')) window.hitGhosts.push(node.dataset.square);
        }
      }
    }).observe(document.querySelector('#board svg'), { childList: true, subtree: true });
  });
  await silver.keyboard.press('ArrowRight');
  await checkReplayed(silver, sessionId, gameId, 1);
  await until(silver, 'the hit piece fading at j4', () => window.hitGhosts.includes('j4'));
  await silver.keyboard.press('End');
  await until(silver, 'the live game after End', () => !document.querySelector('#board svg')
    .dataset.ply && document.querySelector('#replay-bar').hidden);
  const live = await boardState(silver);
  check(live.pieces.f8 === null && JSON.stringify(live.hits) === '["f8"]',
        'End shows the live game again');
  step('Silver replayed plies 1, 2, 1, 0, 1 by clicks and keys (the hit piece faded), then went back to the live game');

  // Red replays on the phone by tapping a move.
  await red.locator('#moves-panel button.move[data-ply="2"]').tap();
  await checkReplayed(red, sessionId, gameId, 2);
  const phoneReplay = path.resolve(flags.screenshots, 'phone-replay.png');
  await red.screenshot({ path: phoneReplay, fullPage: true });
  console.log(`screenshot: ${phoneReplay}`);
  await red.getByRole('button', { name: 'Back to the live game' }).tap();
  await until(red, 'the live game again', () => !document.querySelector('#board svg').dataset.ply);

  // Someone else finds the game among the lobby's past games and reviews it:
  // its moves, its analysis (shown without asking) and its record.
  const reviewer = await desktop.newPage();
  reviewer.label = 'reviewer (desktop)';
  listen(reviewer);
  await reviewer.goto(`${base}/`);
  const pastGame = reviewer.locator(`#game-list .game-entry[data-game="${gameId}"]`);
  await pastGame.waitFor({ timeout: WAIT_MS });
  const pastText = await pastGame.textContent();
  for (const part of ['Ada (Silver)', 'Bo (Red)', 'Silver won', 'Pharaoh hit', '3 turns']) {
    check(pastText.includes(part), `the past game's entry says "${part}": ${pastText}`);
  }
  const gamesShot = path.resolve(flags.screenshots, 'desktop-lobby-games.png');
  await reviewer.screenshot({ path: gamesShot, fullPage: true });
  console.log(`screenshot: ${gamesShot}`);
  await pastGame.getByRole('link').click();
  await checkMoveList(reviewer, '#review-moves', record);
  await checkReplayed(reviewer, sessionId, gameId, GAME.length);
  await until(reviewer, 'the analysis shown',
              () => document.querySelector('#review-moves .move-judgement'));
  await checkMarks(reviewer, '#review-moves');
  check(await reviewer.getByRole('button', { name: 'Analyse' }).count() === 0,
        'a done analysis is not asked for again');
  check(await reviewer.locator('.page:not([hidden]) .seat').count() === 0
        && await reviewer.getByRole('button', { name: /^Join/ }).count() === 0,
        'no seats in a review');
  check(await reviewer.locator('#review-moves .record-link').getAttribute('href') === href,
        'the review offers the record');
  await reviewer.keyboard.press('Home');
  await checkReplayed(reviewer, sessionId, gameId, 0);
  await reviewer.keyboard.press('ArrowRight');
  await checkReplayed(reviewer, sessionId, gameId, 1);
  const reviewShot = path.resolve(flags.screenshots, 'desktop-review.png');
  await reviewer.screenshot({ path: reviewShot, fullPage: true });
  console.log(`screenshot: ${reviewShot}`);
  await reviewer.close();
  step('the lobby lists the game; its review shows the moves, marks and record');

  // The owner resets the board; both take their seats again (the old
  // tokens are gone with the game) and agree a draw.
  await silver.getByRole('button', { name: 'Reset game' }).click();
  await silver.getByRole('button', { name: 'Really reset?' }).click();
  for (const page of openPages) {
    await until(page, 'the empty board after the reset',
                () => document.querySelector('#turn').textContent.startsWith('Waiting'));
  }
  await silver.getByRole('button', { name: 'Join as Silver' }).click();
  await red.getByRole('button', { name: 'Join as Red' }).click();
  await until(silver, 'the second game', () => document.querySelector('#turn').textContent
    .startsWith('Your move'));

  // In the second game, a page replaying refuses moves, and a page replaying
  // stays on its ply while a move arrives, its list growing.
  const secondId = (await getJson(sessionRoute)).gameId;
  check(secondId !== gameId, `a new game after the reset (${secondId})`);
  await play(pages, GAME[0], 0);
  await red.locator('#moves-panel button.move[data-ply="0"]').tap();
  await checkReplayed(red, sessionId, secondId, 0);
  await square(red, 'e5').tap();
  await until(red, 'the move refused while replaying', () => /live game to play/.test(
    document.querySelector('#message').textContent));
  check(await red.locator('#board .target').count() === 0, 'no targets offered in a replay');
  // (The last move is the live game: the watcher replays the start.)
  await watcher.locator('#moves-panel button.move[data-ply="0"]').click();
  await checkReplayed(watcher, sessionId, secondId, 0);
  await red.getByRole('button', { name: 'Back to the live game' }).tap();
  await until(red, 'the live game again', () => !document.querySelector('#board svg').dataset.ply);
  await square(red, 'e5').tap();
  await until(red, 'f6 marked as a target',
              () => document.querySelector('#board [data-square="f6"].target'));
  await square(red, 'f6').tap();
  await until(watcher, 'the second move listed', () => document.querySelector(
    '#moves-panel button.move[data-ply="2"]'));
  await checkReplayed(watcher, sessionId, secondId, 0);
  const watcherStatus = await watcher.locator('#replay-bar .replay-status').textContent();
  check(/before turn 1 of 2/.test(watcherStatus),
        'the watcher\'s replay counts the new move');
  await watcher.getByRole('button', { name: 'Back to the live game' }).click();
  await until(watcher, 'the live board with Red\'s move', () =>
    document.querySelector('#board [data-square="f6"]').dataset.piece
    && !document.querySelector('#board [data-square="e5"]').dataset.piece);
  step('a replaying page refused a move; another stayed on its ply as a move arrived');
  await silver.getByRole('button', { name: 'Offer draw' }).click();
  await until(red, 'the offer seen live', () => !document.querySelector('#accept-draw').disabled
    && document.querySelector('#turn').textContent.includes('Silver offers a draw'));
  await red.getByRole('button', { name: 'Accept draw' }).click();
  for (const page of openPages) {
    await until(page, 'the agreed draw', () => /draw/i.test(
      document.querySelector('#result:not([hidden])')?.textContent ?? ''));
  }
  step(`after a reset, a second game: ${await watcher.locator('#result').textContent()}`);
  await clockedGame(pages);
  await computerGame(silver);
  await ratedGame(silver, red);
  await missingBoard(red);
  check(errors.length === 0, `no script errors on the pages:\n${errors.join('\n')}`);
}

// Each clock as the page shows it: its time, state text and classes.
function clocksShown(page) {
  return page.evaluate(() => {
    const box = document.querySelector('#clocks');
    const clock = (color) => {
      const c = box.querySelector(`.clock[data-color="${color}"]`);
      return { time: c.querySelector('.clock-time').textContent,
               state: c.querySelector('.clock-state').textContent,
               running: c.classList.contains('running'), role: c.getAttribute('role') };
    };
    return { shown: !box.hidden, silver: clock('SILVER'), red: clock('RED') };
  });
}

// "4:47" or "0:09.4" in seconds.
const clockSeconds = (text) => {
  const [minutes, seconds] = text.split(':');
  return Number(minutes) * 60 + Number(seconds);
};

// A board with a Fischer clock of 12 s + 1 s made through the form: the
// clocks count down and switch, and Red's flag falls by itself.
async function clockedGame({ silver, red, watcher }) {
  await silver.goto(`${base}/`);
  await until(silver, 'the setups', () => document.querySelector('#create-setup option[value="classic-2"]'));
  await silver.locator('#create-name').fill('clock test');
  await silver.locator('#create-setup').selectOption('classic-2');
  check(await silver.locator('#clock-fischer').isHidden(), 'no clock fields before a clock is chosen');
  await silver.getByRole('button', { name: '15+10' }).click();
  check(await silver.locator('#create-clock').inputValue() === 'FISCHER'
        && await silver.getByLabel('Minutes each', { exact: true }).inputValue() === '15'
        && await silver.getByLabel('Seconds added after each move', { exact: true }).inputValue() === '10',
        'the 15+10 preset fills the clock fields');
  await silver.getByLabel('Minutes each', { exact: true }).fill('0.2');
  await silver.getByLabel('Seconds added after each move', { exact: true }).fill('1');
  await silver.getByRole('button', { name: 'Create board', exact: true }).click();
  await until(silver, 'the clocked board', () => /^#\/s\//.test(window.location.hash)
    && document.querySelector('#game-title').textContent === 'clock test');
  const id = decodeURIComponent(await silver.evaluate(() => window.location.hash.slice(4)));
  const rules = (await getJson(`/v1/sessions/${enc(id)}`)).rules;
  check(rules.timeControl?.kind === 'FISCHER' && rules.timeControl.baseMs === '12000'
        && rules.timeControl.incrementMs === '1000',
        `the board has the clock chosen: ${JSON.stringify(rules.timeControl)}`);
  await until(silver, 'the clocks before the start', () => !document.querySelector('#clocks').hidden);
  await silver.getByRole('button', { name: 'Join as Silver' }).click();
  for (const page of [red, watcher]) await page.goto(`${base}/#/s/${enc(id)}`);
  await red.getByRole('button', { name: 'Join as Red' }).tap();

  // Silver's clock runs on every page and counts down; Red's stands at 12 s.
  for (const page of [silver, red, watcher]) {
    await until(page, 'Silver\'s clock running', () => document
      .querySelector('#clocks .clock[data-color="SILVER"]')?.classList.contains('running'));
  }
  const first = await clocksShown(watcher);
  await watcher.waitForTimeout(1200);  // whole seconds above 10 s
  const later = await clocksShown(watcher);
  check(first.shown && first.silver.role === 'timer' && first.silver.state === 'running'
        && first.red.state === '' && first.red.time === '0:12',
        `both clocks shown, Silver's running: ${JSON.stringify(first)}`);
  check(clockSeconds(later.silver.time) < clockSeconds(first.silver.time)
        && clockSeconds(later.silver.time) > 5 && later.red.time === '0:12',
        `Silver's clock counts down (${first.silver.time}, then ${later.silver.time})`);
  step(`clocks shown, Silver's counting down: ${first.silver.time}, ${later.silver.time}`);

  // Silver moves: Red's clock runs, Silver's stops with the second added.
  await play({ silver, red, watcher }, GAME[0], 0);
  for (const page of [silver, red, watcher]) {
    await until(page, 'Red\'s clock running', () => document
      .querySelector('#clocks .clock[data-color="RED"]')?.classList.contains('running'));
    const clocks = await clocksShown(page);
    check(!clocks.silver.running && clocks.silver.state === '' && clocks.red.state === 'running'
          && clockSeconds(clocks.silver.time) > 5,
          `${page.label}: the clocks switched: ${JSON.stringify(clocks)}`);
  }
  step(`after Silver's move Red's clock runs: ${JSON.stringify(await clocksShown(watcher))}`);

  // Nobody clicks: Red's flag falls and every page shows the forfeit.
  for (const page of [silver, red, watcher]) {
    await until(page, 'the time forfeit', () => /Silver wins/i.test(
      document.querySelector('#result:not([hidden])')?.textContent ?? ''), undefined, 20000);
    const result = await page.locator('#result').textContent();
    check(/time ran out/i.test(result), `${page.label}: the result says why: "${result}"`);
    const stopped = await clocksShown(page);
    await page.waitForTimeout(300);
    const still = await clocksShown(page);
    check(!stopped.silver.running && !stopped.red.running && stopped.red.time === '0:00.0'
          && stopped.red.state === 'ran out of time' && JSON.stringify(still) === JSON.stringify(stopped),
          `${page.label}: the clocks stopped, Red's out of time: ${JSON.stringify(stopped)}`);
  }
  const phone = await red.evaluate(() => ({
    page: document.documentElement.scrollWidth, screen: window.innerWidth,
    clocks: document.querySelector('#clocks').getBoundingClientRect().right,
  }));
  check(phone.page <= phone.screen && phone.clocks <= phone.screen,
        `the clocks fit the phone: ${JSON.stringify(phone)}`);
  const file = path.resolve(flags.screenshots, 'desktop-clocks.png');
  await silver.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  step(`Red's flag fell: ${await watcher.locator('#result').textContent()}`);
}

// Records in the page, every 20 ms, whose laser is drawn and whether the
// piece on `hit` is still shown, and whether the piece on `turned` turns.
function recordShots(page, hit, turned) {
  return page.evaluate(([square, turning]) => {
    window.shotLog = [];
    window.shotTimer = setInterval(() => {
      const board = document.querySelector('#board svg.board');
      const body = board.querySelector(`.layer-pieces [data-square="${turning}"] .piece-body`);
      window.shotLog.push({
        at: performance.now(),
        shooter: board.querySelector('.laser')?.dataset.shooter ?? null,
        hitShown: Boolean(board.querySelector(`.layer-pieces [data-square="${square}"]`)),
        turning: (body?.getAnimations().length ?? 0) > 0,
      });
    }, 20);
  }, [hit, turned]);
}

// One click starts a game against the computer; a hint, a held shot, a
// rematch, hints turned off, the board's announcements and the page's words
// in German.
async function computerGame(page) {
  await page.goto(`${base}/`);
  await until(page, 'the levels', () => document.querySelector('#quick-level option[value="1"]'));
  await page.locator('#quick-name').fill('Ada');
  await page.locator('#quick-level').selectOption('1');
  await page.getByRole('button', { name: 'Play the computer' }).click();
  await until(page, 'Ada against the computer', () => {
    const red = document.querySelector('.seat-red')?.textContent ?? '';
    return document.querySelector('.seat-silver')?.textContent.includes('Ada (you)')
      && /computer, level 1/.test(red)
      && document.querySelector('#turn').textContent.startsWith('Your move');
  });
  const id = decodeURIComponent(await page.evaluate(() => window.location.hash.slice(4)));
  step(`one click: board ${id} with Ada as Silver and the computer as Red`);

  await page.getByRole('button', { name: 'Hint' }).click();
  await until(page, 'the hint', () => /^Hint: \S+/.test(document.querySelector('#message')
    .textContent) && document.querySelectorAll('#board .hint-mark').length > 0);
  step(`hint shown: ${await page.locator('#message').textContent()}`);

  // j5L: Silver's beam takes its own Pyramid on j4; the computer answers.
  await recordShots(page, 'j4', 'j5');
  await square(page, 'j5').click();
  await page.locator('#rotate-anticlockwise').click();
  await until(page, 'the computer\'s shot', () => window.shotLog.some((s) => s.shooter === 'RED'),
              undefined, 15000);
  const log = await page.evaluate(() => {
    clearInterval(window.shotTimer);
    return window.shotLog;
  });
  const mine = log.filter((s) => s.shooter === 'SILVER');
  const replyAt = log.find((s) => s.shooter === 'RED').at;
  const held = replyAt - mine[0].at;
  check(mine.length > 0 && held >= HOLD_MS,
        `Silver's shot stayed ${held.toFixed(0)} ms before the computer's was drawn`);
  check(mine[0].hitShown && !mine[mine.length - 1].hitShown,
        'the hit Pyramid on j4 stays until the beam reaches it, then goes');
  check(log.some((s) => s.turning), 'the Pyramid on j5 turns rather than jumps');
  const moves = (await getJson(`/v1/sessions/${enc(id)}`)).moves.length;
  check(moves >= 2, `the computer answered (${moves} moves)`);
  step(`Silver's shot held ${held.toFixed(0)} ms; the hit piece went as the beam arrived`);

  // Silver takes its move back; the computer grants it at once, and the
  // board shows the start position again.
  const start = (await getJson(`/v1/sessions/${enc(id)}/games/current/positions/0`)).board;
  await page.getByRole('button', { name: 'Take back' }).click();
  await until(page, 'the start position after the takeback', (pieces) => {
    const shown = {};
    for (const piece of document.querySelectorAll('#board [data-square][data-piece]')) {
      shown[piece.dataset.square] = piece.dataset.piece;
    }
    return JSON.stringify(Object.keys(shown).sort().map((k) => [k, shown[k]]))
        === JSON.stringify(Object.keys(pieces).sort().map((k) => [k, pieces[k]]))
      && document.querySelector('#turn').textContent.startsWith('Your move');
  }, piecesOf(start));
  const taken = await getJson(`/v1/sessions/${enc(id)}`);
  check(taken.moves.length === 0, `both plies were taken back: ${taken.moves.join(' ')}`);
  step('Silver took back its move and the computer\'s reply: the start position again');
  await square(page, 'j5').click();
  await page.locator('#rotate-anticlockwise').click();
  await until(page, 'the computer\'s answer after the takeback', () =>
    document.querySelector('#turn').textContent.startsWith('Your move')
    && !document.querySelector('#takeback').disabled, undefined, 15000);

  // Ada resigns; a rematch swaps the colours and the computer opens.
  await page.getByRole('button', { name: 'Resign' }).click();
  await page.getByRole('button', { name: 'Really resign?' }).click();
  await until(page, 'the resignation', () => !document.querySelector('#result').hidden);
  await page.getByRole('button', { name: 'Rematch' }).click();
  await until(page, 'the rematch with Ada as Red', () =>
    document.querySelector('.seat-red')?.textContent.includes('Ada (you)')
    && /computer/.test(document.querySelector('.seat-silver')?.textContent ?? '')
    && document.querySelector('#result').hidden);
  const rematched = await getJson(`/v1/sessions/${enc(id)}`);
  check(rematched.status === 'IN_PROGRESS' && rematched.seats[1].playerName === 'Ada',
        `the rematch is a new game with Ada as Red: ${rematched.status}`);
  await until(page, 'Ada to move after the computer\'s opening', () =>
    document.querySelector('#turn').textContent.startsWith('Your move'), undefined, 15000);
  step('a rematch swapped the colours; the computer opened as Silver');
  // The inactivity timeout (an hour by default) is announced before it comes.
  const idle = await page.locator('#idle-warning').textContent();
  check(await page.locator('#idle-warning').isVisible() && /reset in (59|60) min/.test(idle),
        `the page says when the inactivity timeout resets the game: "${idle}"`);

  // The owner turns hints off, the board's language to German and the
  // colours to Nile: the announcements are German, the page's words stay
  // the viewer's until they choose German for it.
  const form = page.locator('#settings-form');
  await form.locator('[name="hints"]').uncheck();
  await form.locator('[name="takebacks"]').uncheck();
  await form.locator('[name="language"]').selectOption('de');
  await form.locator('[name="colorScheme"]').selectOption('nile');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await until(page, 'the settings saved', () =>
    document.querySelector('#hint').disabled && document.documentElement.lang === 'en');
  check((await getJson(`/v1/sessions/${enc(id)}`)).settings.language === 'de',
        'the board speaks German');
  await page.locator('#page-language').selectOption('de');
  await until(page, 'the board in German', () =>
    document.querySelector('#view-heading').textContent === 'Ansicht'
    && document.querySelector('#hint').textContent === 'Tipp'
    && document.documentElement.lang === 'de');
  await until(page, 'Nile\'s side names and hints off', () =>
    document.querySelector('.seat-red strong')?.textContent === 'Blau'
    && document.querySelector('.seat-silver strong')?.textContent === 'Orange'
    && document.querySelector('#turn').textContent.includes('Blau')
    && document.querySelector('#hint').disabled
    && !document.querySelector('#hint-note').hidden);
  await until(page, 'takebacks off, saying why', () =>
    document.querySelector('#takeback').disabled
    && /Rücknahmen/.test(document.querySelector('#takeback-note:not([hidden])')?.textContent
                         ?? ''));
  step(`German: "${await page.locator('#turn').textContent()}" ` +
       `"${await page.locator('#hint-note').textContent()}"`);
  const file = path.resolve(flags.screenshots, 'desktop-computer-german.png');
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  // The choice is kept in this browser: English again for what follows.
  await page.locator('#page-language').selectOption('en');
  await until(page, 'the page in English again', () => document.documentElement.lang === 'en');
}

// Two people in their own browsers join a rated board with player ids; the
// winner's and the loser's new ratings show by their seats and on the
// players page.
async function ratedGame(silver, red) {
  const created = await postJson('/v1/sessions', { name: 'rated', setupId: 'classic-2',
                                                   settings: { rated: true } });
  const id = created.session.id;
  for (const [page, name, side] of [[silver, 'Ines', 'Silver'], [red, 'Jo', 'Red']]) {
    await page.goto(`${base}/#/s/${enc(id)}`);
    await until(page, 'the rated board', () => document.querySelector('#player-id'));
    await page.locator('#player-name').fill(name);
    await page.locator('#player-id').fill(`web:${name.toLowerCase()}`);
    await page.getByRole('button', { name: `Join as ${side}` }).click();
    await until(page, `${name} seated`, (n) =>
      document.querySelector('#seats').textContent.includes(`${n} (you)`), name);
  }
  for (const page of [silver, red]) {
    await until(page, 'the rated mark and takebacks refused', () =>
      !document.querySelector('#rated-mark').hidden
      && document.querySelector('#takeback').disabled
      && /rated game/.test(document.querySelector('#takeback-note:not([hidden])')?.textContent
                           ?? ''));
  }
  const seats = (await getJson(`/v1/sessions/${enc(id)}`)).seats.map((s) => s.playerId);
  check(seats.join(' ') === 'web:ines web:jo', `the seats hold the player ids: ${seats}`);
  step('a rated game between two browsers: marked rated, no takebacks');
  await red.getByRole('button', { name: 'Resign' }).click();
  await red.getByRole('button', { name: 'Really resign?' }).click();
  const ratings = {};
  for (const page of [silver, red]) {
    await until(page, 'both ratings by the seats', () =>
      /rating 1[5-9]\d\d/.test(document.querySelector('.seat-silver .seat-rating')?.textContent)
      && /rating 1[0-4]\d\d/.test(document.querySelector('.seat-red .seat-rating')?.textContent));
    ratings[page.label] = await page.locator('.seat-silver .seat-rating').textContent();
  }
  const winner = await getJson('/v1/player?playerId=web%3Aines');
  check(winner.wins === 1 && ratings[silver.label] === `rating ${Math.round(winner.rating)}`,
        `the seat shows the server's rating: ${ratings[silver.label]} v ${winner.rating}`);
  await red.goto(`${base}/#/players`);
  await until(red, 'the players page', () => {
    const rows = [...document.querySelectorAll('#player-rows tr')];
    return rows.length === 2 && rows[0].dataset.playerId === 'web:ines'
      && rows[1].dataset.playerId === 'web:jo' && /Ines/.test(rows[0].textContent);
  });
  step(`after the resignation: Ines ${ratings[silver.label]}; the players page lists both`);
}

// A link to no board: said plainly, no board or seats, a way back.
async function missingBoard(page) {
  await page.goto(`${base}/#/s/no-such-board`);
  await until(page, 'the missing board', () => !document.querySelector('#game-missing').hidden);
  const shown = await page.evaluate(() => ({
    layout: document.querySelector('#game-layout').hidden,
    text: document.body.innerText,
  }));
  check(shown.layout && !/NOT_FOUND/.test(shown.text) && !/Join as/.test(shown.text),
        'a missing board shows no board, seats or error codes');
  step('a link to a missing board says so');
}

// On failure: pictures of the pages as they were.
async function failureScreenshots() {
  fs.mkdirSync(flags.screenshots, { recursive: true });
  for (const page of openPages) {
    const file = path.resolve(flags.screenshots, `failed-${page.label.split(' ')[0].toLowerCase()}.png`);
    if (await page.screenshot({ path: file, fullPage: true }).then(() => true, () => false)) {
      console.error(`screenshot: ${file}`);
    }
  }
}

const deadline = setTimeout(async () => {
  console.error(`web board test: FAILED: took longer than ${OVERALL_MS / 1000} s`);
  await cleanUp();
  process.exit(1);
}, OVERALL_MS);

try {
  await main();
  step('web board test: PASSED');
  process.exitCode = 0;
} catch (error) {
  console.error(`web board test: FAILED: ${error.stack ?? error}`);
  process.exitCode = 1;
  console.error(`khetd's log, last lines:\n${khetdLog.split('\n').slice(-30).join('\n')}`);
  await failureScreenshots();
} finally {
  clearTimeout(deadline);
  await cleanUp();
}
