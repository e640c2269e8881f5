// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// How the web board plays, in a real browser against a real khetd (in-memory
// store, free ports):
// - fast play: two players move 20 times, 300 ms apart (far faster than a
//   move plays out); on an animated and a reduced-motion watcher the drawn
//   position, laser and all, must be the server's within 2.5 s of the last
//   move, and a click on the player's page while its board is behind acts
//   on the position drawn, brought in sync first;
// - own shot: against the computer, the player's shot stays on screen at
//   least 2.5 s and its hit marker 1.5 s before the computer's shot
//   replaces it, animated and with reduced motion (drawn still);
// - rotation: at 1280x800 and 1366x768 the board and a selected piece's
//   turn buttons are in view without scrolling; turns by r, Shift+Left and
//   both on-board buttons, Escape lets go; on a 375x812 phone the board
//   stands upright, every square at least 44 px, a move made by taps;
// - contrast: in every colour scheme every piece and every mirror stands
//   out from the square under it by 3:1 at least, computed from the colours
//   and widths the page draws (a piece by its fill, or by its dark edge of
//   2 px or more; a mirror face by its colour, or by its dark borders of
//   1.5 px or more, the face 3:1 against them).
//
// usage: node web_board_play_test.mjs --khetd PATH [--chromium PATH]

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
if (!flags.khetd) {
  console.error('usage: node web_board_play_test.mjs --khetd PATH [--chromium PATH]');
  process.exit(2);
}
const { chromium } = await import('playwright-core');

const WAIT_MS = 10000;
const OVERALL_MS = 150000;
const SYNC_MS = 2500;        // the board is the server's this soon after the last move
const OWN_SHOT_MS = 2500;    // the player's own shot stays at least this long
const HITS_SEEN_MS = 1500;   // and its hit marker this long
const MIN_TOUCH_PX = 44;

// Classic 2, checked with khetd: Silver's Anubises and Pharaoh walk, Red's
// Anubis steps back and forth; no laser hits anything and no position
// repeats.
const FAST_GAME = ['d1-d2', 'e8-e7', 'f1-f2', 'e7-e8', 'd2-d3', 'e8-e7', 'f2-f3', 'e7-e8',
                   'e1-e2', 'e8-e7', 'd3-c3', 'e7-e8', 'c3-b3', 'e8-e7', 'b3-b2', 'e7-e8',
                   'f3-g2', 'e8-e7', 'e2-e1', 'e7-e8'];
const FAST_INTERVAL_MS = 300;

let khetd = null;
let browser = null;
let profiles = null;
let base = null;
const started = Date.now();
const step = (text) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
}

// Starts khetd (tests/browser/khetd.mjs); its HTTP base URL.
async function startServer() {
  const started = await startKhetd(flags.khetd, { extraArgs: ['--calls_per_second', '0'] });
  khetd = started.khetd;
  return started.base;
}

async function call(method, route, body, token) {
  const response = await fetch(`${base}${route}`, {
    method, body: body ? JSON.stringify(body) : undefined,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: ${JSON.stringify(json)}`);
  return json;
}
const post = (route, body, token) => call('POST', route, body, token);
const get = (route) => call('GET', route);
const route = (id) => `/v1/sessions/${encodeURIComponent(id)}`;

// A board of `setup` with both seats taken: its id and the seats' tokens.
async function seatedBoard(setup, settings = {}) {
  const { session } = await post('/v1/sessions', { name: 'play test', setupId: setup, settings });
  const tokens = {};
  for (const name of ['Ada', 'Bo']) {
    const joined = await post(`${route(session.id)}:join`, { playerName: name });
    tokens[joined.color] = { token: joined.playerToken, color: joined.color, name };
  }
  return { id: session.id, owner: session.ownerToken ?? null, tokens };
}

// Opens board `id` in `context` holding `seat` (as the page keeps it).
async function openBoard(context, id, seat, label) {
  const page = await context.newPage();
  page.label = label;
  page.on('pageerror', (error) => { page.scriptError = error.message; });
  await page.goto(`${base}/`);
  if (seat) {
    await page.evaluate(([key, value]) => localStorage.setItem(key, value),
                        [`khet.session.${id}`, JSON.stringify({ player: seat })]);
  }
  await page.goto(`${base}/#/s/${encodeURIComponent(id)}`);
  await page.waitForFunction(() => document.querySelectorAll('#board .layer-pieces .piece')
    .length > 0, undefined, { timeout: WAIT_MS });
  return page;
}

async function until(page, what, fn, arg, timeout = WAIT_MS) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 25 });
  } catch {
    const message = await page.locator('#message').textContent().catch(() => '');
    throw new Error(`${page.label}: timed out waiting for ${what}` +
                    `${message ? ` (page message: ${message})` : ''}`);
  }
}

const yourMove = (page) => until(page, 'its move', () =>
  document.querySelector('#turn').textContent.startsWith('Your move'));

// The drawn board in short: its pieces by square, the laser's shooter and
// hits. Runs in the page too (as a string), so it names nothing outside.
function drawnSignature() {
  const board = document.querySelector('#board svg.board');
  const pieces = [...board.querySelectorAll('.square[data-piece]')]
    .map((s) => `${s.dataset.square}:${s.dataset.piece}`).sort().join(' ');
  const laser = board.querySelector('.laser');
  const hits = [...board.querySelectorAll('.hit-mark')].map((h) => h.dataset.square).join(',');
  return `${pieces}|${laser?.dataset.shooter ?? '-'}|${hits}`;
}

// The same for a Board and LaserShot as khetd answers them.
function serverSignature(board, shot) {
  const pieces = (board.pieces ?? []).map((p) => `${p.square}:${p.token ?? p.type}`)
    .sort().join(' ');
  const shooter = shot?.segments?.length ? shot.shooter : '-';
  return `${pieces}|${shooter}|${(shot?.hitSquares ?? []).join(',')}`;
}

// Starts sampling the drawn board every 50 ms in the page: when it showed
// what, and whether a piece was still moving.
function startSampling(page) {
  return page.evaluate((signature) => {
    const drawn = new Function(`return (${signature})();`);
    window.samples = [];
    window.sampler = setInterval(() => {
      const board = document.querySelector('#board svg.board');
      const moving = [...board.querySelectorAll('.layer-pieces *')]
        .some((e) => e.getAnimations().some((a) => a.playState === 'running'));
      window.samples.push({ at: Date.now(), drawn: drawn(), moving });
    }, 50);
  }, drawnSignature.toString());
}

function stopSampling(page) {
  return page.evaluate(() => {
    clearInterval(window.sampler);
    return window.samples;
  });
}

// When the samples first show `want`, still, for good (null: never).
function settledAt(samples, want) {
  let since = null;
  for (const s of samples) {
    if (s.drawn === want && !s.moving) since ??= s.at;
    else since = null;
  }
  return since;
}

// Twenty moves 300 ms apart; two watchers (animated, reduced motion) must
// draw the last within 2.5 s; a click on the mover's page while it is
// behind brings it in sync and acts on it.
async function fastGame(contexts) {
  const { id, tokens } = await seatedBoard('classic-2');
  const silver = await openBoard(contexts.laptop, id, tokens.SILVER, 'Silver (animated)');
  const animated = await openBoard(contexts.watch, id, null, 'watcher (animated)');
  const still = await openBoard(contexts.still, id, null, 'watcher (reduced motion)');
  await Promise.all([animated, still].map(startSampling));
  let last = null;
  let lastAt = 0;
  const sent = Date.now();
  for (const notation of FAST_GAME) {
    const side = last ? (last.board.sideToMove) : 'SILVER';
    const next = Date.now() + FAST_INTERVAL_MS;
    last = await post(`${route(id)}:move`, { move: { notation } }, tokens[side].token);
    lastAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  step(`${FAST_GAME.length} moves made in ${((lastAt - sent) / 1000).toFixed(1)} s`);
  const want = serverSignature(last.board, last.shot);

  await new Promise((resolve) => setTimeout(resolve, SYNC_MS + 300));
  for (const page of [animated, still]) {
    const samples = await stopSampling(page);
    const at = settledAt(samples, want);
    check(at !== null, `${page.label}: never drew the last position:\n` +
          `${samples[samples.length - 1]?.drawn}\nwanted\n${want}`);
    const lag = at - lastAt;
    const shown = new Set(samples.map((s) => s.drawn)).size;
    check(lag <= SYNC_MS, `${page.label}: drew the last move ${lag} ms after it was made`);
    step(`${page.label}: the last move drawn, still, ${Math.max(0, lag)} ms after it was ` +
         `made (${shown} positions drawn on the way)`);
    await page.close();
  }

  // Silver moves and Red answers at once: Silver's page shows Silver's shot
  // for 2.5 s, Red's move waiting. A click on j5 (a Pyramid neither move
  // touched) meanwhile first draws the game, then selects j5 on it.
  await post(`${route(id)}:move`, { move: { notation: 'g2-g1' } }, tokens.SILVER.token);
  last = await post(`${route(id)}:move`, { move: { notation: 'e8-e7' } }, tokens.RED.token);
  lastAt = Date.now();
  const answered = serverSignature(last.board, last.shot);
  await until(silver, 'Red\'s answer known', (n) =>
    document.querySelector('#game-meta').textContent.includes(`${n} `)
    && document.querySelector('#turn').textContent.startsWith('Your move'),
  FAST_GAME.length + 2);
  const click = await silver.evaluate((signature) => {
    const drawn = new Function(`return (${signature})();`);
    const before = drawn();
    document.querySelector('#board .square[data-square="j5"]')
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    return { before, after: drawn() };
  }, drawnSignature.toString());
  const after = Date.now() - lastAt;
  check(click.before !== answered, `${silver.label}: behind the game when clicked ${after} ms ` +
        'after Red\'s answer (it was not)');
  check(click.after === answered, `${silver.label}: the click drew the game first:\n` +
        `${click.after}\nwanted\n${answered}`);
  await until(silver, 'j5 selected on the position drawn', () =>
    document.querySelector('#board .square[data-square="j5"].selected')
    && document.querySelectorAll('#board .square.target').length > 0);
  step(`${silver.label}: a click ${after} ms after Red's answer, its own shot still shown, ` +
       'drew the game at once and selected j5 on it');
  await silver.close();
}

// Quick play against the computer; Silver turns j5 anticlockwise (its beam
// takes its own Pyramid on j4) and the computer answers at once: the shot
// and its hit marker must stay their times before the computer's is drawn.
async function ownShot(context, label) {
  const page = await context.newPage();
  page.label = label;
  await page.goto(`${base}/`);
  await until(page, 'the levels', () => document.querySelector('#quick-level option[value="1"]'));
  await page.locator('#quick-name').fill('Ada');
  await page.locator('#quick-level').selectOption('1');
  await page.locator('#quick-play').click();
  await yourMove(page);
  // Each shot drawn: when, and when its beam and its first hit marker show
  // (their animations' delays from then; none when drawn still).
  await page.evaluate(() => {
    window.shots = [];
    const delayOf = (element) => Number(element?.getAnimations()[0]?.effect.getTiming().delay ?? 0);
    new MutationObserver((changes) => {
      const now = performance.now();
      for (const node of changes.flatMap((c) => [...c.addedNodes])) {
        if (!node.classList?.contains('laser')) continue;
        const hit = node.querySelector('.hit-mark');
        window.shots.push({ shooter: node.dataset.shooter, drawnAt: now,
                            beamAt: now + delayOf(node.querySelector('.laser-beam')),
                            hitAt: hit ? now + delayOf(hit) : null });
      }
    }).observe(document.querySelector('#board .layer-laser'), { childList: true });
  });
  await page.locator('#board .square[data-square="j5"]').click();
  await until(page, 'the turn buttons', () => document.querySelector('#board .turn-button'));
  await page.keyboard.press('l');
  await until(page, 'the computer\'s shot', () => window.shots.some((s) => s.shooter === 'RED'),
              undefined, 15000);
  const shots = await page.evaluate(() => window.shots);
  const mine = shots.find((s) => s.shooter === 'SILVER');
  // The computer's shot takes Silver's off as it is drawn.
  const replyAt = shots.find((s) => s.shooter === 'RED').drawnAt;
  check(mine && mine.hitAt !== null, `${label}: Silver's shot and its hit drawn: ` +
        JSON.stringify(shots));
  const held = replyAt - mine.beamAt;
  const hitHeld = replyAt - mine.hitAt;
  check(held >= OWN_SHOT_MS, `${label}: Silver's beam stayed ${held.toFixed(0)} ms before ` +
        'the computer\'s');
  check(hitHeld >= HITS_SEEN_MS, `${label}: the hit marker on j4 stayed ${hitHeld.toFixed(0)} ms`);
  const session = await get(route(decodeURIComponent(
    await page.evaluate(() => window.location.hash.slice(4)))));
  check(session.moves.length === 2 && session.moves[0] === 'j5L',
        `${label}: j5L and the computer's answer played: ${session.moves}`);
  step(`${label}: own shot on screen ${held.toFixed(0)} ms, its hit marker ` +
       `${hitHeld.toFixed(0)} ms, before the computer's shot`);
  await page.close();
}

// The board, and the turn buttons when a piece is selected, inside the
// window with the page not scrolled.
function inView(page) {
  return page.evaluate(() => {
    const boxes = [document.querySelector('#board svg.board'),
                   ...document.querySelectorAll('#board .turn-button')]
      .map((e) => e.getBoundingClientRect());
    return {
      scrolled: window.scrollY,
      inside: boxes.every((b) => b.top >= 0 && b.left >= 0 && b.bottom <= window.innerHeight
                               && b.right <= window.innerWidth),
      buttons: boxes.length - 1,
      board: `${Math.round(boxes[0].width)}x${Math.round(boxes[0].height)}`,
      bottom: Math.round(boxes[0].bottom),
      height: window.innerHeight,
    };
  });
}

// Selects h2 on the laptop page and checks what is in view.
async function selectInView(page, size) {
  await yourMove(page);
  await page.locator('#board .square[data-square="h2"]').click();
  await until(page, 'h2\'s turn buttons', () =>
    document.querySelectorAll('#board .turn-button').length === 2);
  const view = await inView(page);
  check(view.scrolled === 0 && view.inside && view.buttons === 2,
        `${page.label} at ${size}: board and turn buttons in view: ${JSON.stringify(view)}`);
  return view;
}

// Waits for khetd to have `plies` moves, the last `notation`.
async function played(id, plies, notation) {
  for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
    const { moves = [] } = await get(route(id));
    if (moves.length === plies) {
      check(moves[plies - 1] === notation, `move ${plies} is ${moves[plies - 1]}, not ${notation}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`khetd never had move ${plies} (${notation})`);
}

// Turns at both laptop sizes, by keys and by the buttons on the board; a
// move by taps on the phone, whose squares are 44 px at least.
async function rotation(contexts) {
  const { id, tokens } = await seatedBoard('classic-2');
  const laptop = await openBoard(contexts.laptop, id, tokens.SILVER, 'Silver (laptop)');
  const phone = await openBoard(contexts.phone, id, tokens.RED, 'Red (phone)');
  const redMove = (notation) => post(`${route(id)}:move`, { move: { notation } },
                                     tokens.RED.token);

  let view = await selectInView(laptop, '1280x800');
  await laptop.keyboard.press('r');
  await played(id, 1, 'h2R');
  step(`1280x800: board ${view.board} px, bottom at ${view.bottom} of ${view.height}; ` +
       'h2 turned by r');

  await yourMove(phone);
  const squares = await phone.evaluate(() => {
    const sizes = [...document.querySelectorAll('#board .square rect.light, #board .square rect.dark')]
      .map((r) => r.getBoundingClientRect()).map((b) => Math.min(b.width, b.height));
    return { count: sizes.length, smallest: Math.min(...sizes),
             page: document.documentElement.scrollWidth, screen: window.innerWidth,
             portrait: document.querySelector('#board svg.board').classList.contains('portrait') };
  });
  check(squares.count === 80 && squares.smallest >= MIN_TOUCH_PX - 0.5 && squares.portrait
        && squares.page <= squares.screen,
        `phone: upright board, squares of ${MIN_TOUCH_PX} px at least, page no wider than ` +
        `the screen: ${JSON.stringify(squares)}`);
  await phone.locator('#board .square[data-square="e8"]').tap();
  await until(phone, 'e7 marked', () =>
    document.querySelector('#board .square[data-square="e7"].target'));
  await phone.locator('#board .square[data-square="e7"]').tap();
  await played(id, 2, 'e8-e7');
  step(`375x812 phone: squares ${squares.smallest.toFixed(1)} px, page ${squares.page} px ` +
       'wide; e8-e7 by taps');

  await selectInView(laptop, '1280x800');
  await laptop.locator('#board .turn-button[data-kind="ROTATE_ANTICLOCKWISE"]').click();
  await played(id, 3, 'h2L');
  await redMove('e7-e8');
  step('1280x800: h2 turned by its on-board button');

  await laptop.setViewportSize({ width: 1366, height: 768 });
  view = await selectInView(laptop, '1366x768');
  await laptop.keyboard.press('Shift+ArrowLeft');
  await played(id, 5, 'h2L');
  await redMove('e8-e7');
  await selectInView(laptop, '1366x768');
  await laptop.locator('#board .turn-button[data-kind="ROTATE_CLOCKWISE"]').click();
  await played(id, 7, 'h2R');
  await redMove('e7-e8');
  await selectInView(laptop, '1366x768');
  await laptop.keyboard.press('Escape');
  await until(laptop, 'h2 let go', () => !document.querySelector('#board .turn-button')
    && !document.querySelector('#board .square.selected'));
  step(`1366x768: board ${view.board} px, bottom at ${view.bottom} of ${view.height}; ` +
       'h2 turned by Shift+Left and its on-board button; Escape let go');
  for (const page of [laptop, phone]) {
    check(!page.scriptError, `${page.label}: script error ${page.scriptError}`);
    await page.close();
  }
}

// The page's contrasts: every piece and mirror against the square it
// stands on (its tint included), in the colours and widths drawn.
function measureContrast() {
  const channels = (css) => {
    const m = css.match(/[\d.]+/g).map(Number);
    return { rgb: m.slice(0, 3), alpha: m[3] ?? 1 };
  };
  const over = (top, alpha, under) => top.map((c, i) => c * alpha + under[i] * (1 - alpha));
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const paint = (element, property) => channels(getComputedStyle(element)[property]).rgb;
  const board = document.querySelector('#board svg.board');
  const ground = (name) => {
    const square = board.querySelector(`.square[data-square="${name}"]`);
    let rgb = paint(square.querySelector('rect.light, rect.dark'), 'fill');
    const tint = square.querySelector('rect.tint');
    if (tint) {
      rgb = over(paint(tint, 'fill'), Number(getComputedStyle(tint).fillOpacity), rgb);
    }
    return rgb;
  };
  const pixels = (element, width) => {
    const m = element.getScreenCTM();
    return width * Math.hypot(m.a, m.b);
  };
  const found = { pieces: [], mirrors: [] };
  for (const piece of board.querySelectorAll('.layer-pieces .piece')) {
    const square = piece.dataset.square;
    const bg = ground(square);
    const body = piece.querySelector('.body');
    const fill = paint(body, 'fill');
    const edge = paint(body, 'stroke');
    found.pieces.push({
      square, fill: contrast(fill, bg), edge: contrast(edge, bg),
      edgePx: pixels(body, Number(getComputedStyle(body).strokeWidth.replace('px', ''))),
    });
    const face = piece.querySelector('.mirror');
    if (!face) continue;
    const rim = piece.querySelector('.mirror-edge');
    const faceWidth = Number(getComputedStyle(face).strokeWidth.replace('px', ''));
    const rimWidth = Number(getComputedStyle(rim).strokeWidth.replace('px', ''));
    found.mirrors.push({
      square, face: contrast(paint(face, 'stroke'), bg), edge: contrast(paint(rim, 'stroke'), bg),
      within: contrast(paint(face, 'stroke'), paint(rim, 'stroke')),
      edgePx: pixels(face, (rimWidth - faceWidth) / 2),
    });
  }
  return found;
}

// Every scheme on the three setups that hold every kind of piece, on the
// phone (where edges are thinnest).
async function contrast(context) {
  const schemes = (await get('/v1/colorSchemes')).schemes.map((s) => s.id);
  check(schemes.length >= 4, `khetd's colour schemes: ${schemes}`);
  const low = { fill: Infinity, edge: Infinity, edgePx: Infinity, face: Infinity,
                mirrorEdge: Infinity, within: Infinity, mirrorPx: Infinity };
  let pieces = 0;
  let mirrors = 0;
  for (const setup of ['classic-2', 'osiris', 'classic-1']) {
    const { session, ownerToken } = await post('/v1/sessions', { name: 'contrast',
                                                                 setupId: setup });
    const page = await openBoard(context, session.id, null, setup);
    for (const scheme of schemes) {
      // The owner changes the colours; the page follows live.
      const changed = await post(`${route(session.id)}:updateSettings`,
                                 { settings: { colorScheme: scheme } }, ownerToken);
      await until(page, `the ${scheme} colours`, (hex) => document
        .querySelector('#board svg.board').style.getPropertyValue('--silver') === hex,
      changed.colorScheme.silver.hex);
      const found = await page.evaluate(measureContrast);
      for (const p of found.pieces) {
        const seen = p.fill >= 3 || (p.edge >= 3 && p.edgePx >= 2);
        check(seen, `${setup} in ${scheme}: the piece on ${p.square} against its square: ` +
              JSON.stringify(p));
        low.fill = Math.min(low.fill, p.fill);
        low.edge = Math.min(low.edge, p.edge);
        low.edgePx = Math.min(low.edgePx, p.edgePx);
      }
      for (const m of found.mirrors) {
        const seen = m.face >= 3 || (m.edge >= 3 && m.within >= 3 && m.edgePx >= 1.5);
        check(seen, `${setup} in ${scheme}: the mirror on ${m.square} against its square: ` +
              JSON.stringify(m));
        low.face = Math.min(low.face, m.face);
        low.mirrorEdge = Math.min(low.mirrorEdge, m.edge);
        low.within = Math.min(low.within, m.within);
        low.mirrorPx = Math.min(low.mirrorPx, m.edgePx);
      }
      pieces += found.pieces.length;
      mirrors += found.mirrors.length;
    }
    await page.close();
  }
  const f = (x) => x.toFixed(2);
  step(`contrast over ${schemes.length} schemes: ${pieces} pieces (fill ${f(low.fill)}:1 at ` +
       `least, their edges ${f(low.edge)}:1 and ${f(low.edgePx)} px), ${mirrors} mirrors ` +
       `(face ${f(low.face)}:1, borders ${f(low.mirrorEdge)}:1 and ${f(low.mirrorPx)} px, ` +
       `face to border ${f(low.within)}:1)`);
}

async function main() {
  base = await startServer();
  profiles = fs.mkdtempSync(path.join(os.tmpdir(), 'khet-play-'));
  browser = await chromium.launch({
    executablePath: flags.chromium,
    env: { ...process.env, TMPDIR: profiles },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  step(`khetd serves ${base}; Chromium ${browser.version()} started`);
  const contexts = {
    laptop: await browser.newContext({ viewport: { width: 1280, height: 800 } }),
    // Watchers hold no seat: a browser of their own, apart from the players'.
    watch: await browser.newContext({ viewport: { width: 1280, height: 800 } }),
    still: await browser.newContext({ viewport: { width: 1280, height: 800 },
                                      reducedMotion: 'reduce' }),
    phone: await browser.newContext({ viewport: { width: 375, height: 812 },
                                      deviceScaleFactor: 2, isMobile: true, hasTouch: true }),
  };
  await fastGame(contexts);
  await ownShot(contexts.laptop, 'animated');
  await ownShot(contexts.still, 'reduced motion');
  await rotation(contexts);
  await contrast(contexts.phone);
}

const deadline = setTimeout(async () => {
  console.error(`web board play test: FAILED: took longer than ${OVERALL_MS / 1000} s`);
  await browser?.close().catch(() => {});
  khetd?.kill('SIGKILL');
  process.exit(1);
}, OVERALL_MS);

try {
  await main();
  step('web board play test: PASSED');
} catch (error) {
  console.error(`web board play test: FAILED: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await browser?.close().catch(() => {});
  if (profiles) fs.rmSync(profiles, { recursive: true, force: true });
  khetd?.kill('SIGTERM');
}
