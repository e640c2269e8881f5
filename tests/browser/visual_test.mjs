// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board's looks against checked-in pictures: fixed positions set
// up through khetd's HTTP API (each edition's start, an Eye of Horus split,
// Obelisk stacks, a finished game, every colour scheme), each board drawn
// in Chromium with animations off, at 1280 px (desktop) and 375 px (phone)
// wide, and compared pixel by pixel with references/<name>.png. A pixel
// differs when a channel is more than CHANNEL_TOLERANCE off; a picture fails
// when more than DIFFERING_SHARE of its pixels differ, and then
// <out>/<name>.actual.png and <out>/<name>.diff.png (the differing pixels in
// magenta over a faded copy) are kept. With --bless the pictures taken
// become the references (bless.sh).
//
// usage: node visual_test.mjs --khetd PATH --out DIR [--chromium PATH] [--bless]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startKhetd } from './khetd.mjs';

const { values: flags } = parseArgs({
  options: {
    khetd: { type: 'string' },
    out: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    bless: { type: 'boolean', default: false },
  },
});
if (!flags.khetd || !flags.out) {
  console.error('usage: node visual_test.mjs --khetd PATH --out DIR [--chromium PATH] [--bless]');
  process.exit(2);
}
const { chromium } = await import('playwright-core');
const { PNG } = await import('pngjs');

const REFERENCES = new URL('./references/', import.meta.url);
const CHANNEL_TOLERANCE = 40;    // of 255, per channel: anti-aliasing noise
const DIFFERING_SHARE = 0.002;   // of a picture's pixels
const WAIT_MS = 10000;

// Classic 2: Silver's third move sends its beam into Red's Pharaoh on f8.
const PHARAOH_HIT = ['j5L', 'e5-f6', 'j5-j6'];

// Each picture: the session it shows (a setup, a scheme, moves played) and
// the screen it is taken on.
const CASES = [
  { name: 'desktop-classic-2-start', setup: 'classic-2', screen: 'desktop' },
  { name: 'desktop-classic-1-stacks', setup: 'classic-1', screen: 'desktop' },
  { name: 'desktop-osiris-split', setup: 'osiris', moves: ['b1-c1'], screen: 'desktop' },
  { name: 'desktop-finished', setup: 'classic-2', moves: PHARAOH_HIT, screen: 'desktop' },
  { name: 'desktop-deflexion', setup: 'classic-2', scheme: 'deflexion', screen: 'desktop' },
  { name: 'desktop-nile', setup: 'classic-1', scheme: 'nile', screen: 'desktop' },
  { name: 'desktop-royal', setup: 'osiris', scheme: 'royal', moves: ['b1-c1'], screen: 'desktop' },
  { name: 'phone-classic-2-start', setup: 'classic-2', screen: 'phone' },
  { name: 'phone-finished', setup: 'classic-2', moves: PHARAOH_HIT, screen: 'phone' },
];

const SCREENS = {
  desktop: { viewport: { width: 1280, height: 600 } },
  phone: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true },
};

let khetd = null;
let base = null;

// Starts khetd (tests/browser/khetd.mjs); its HTTP base URL.
async function startServer() {
  const started = await startKhetd(flags.khetd);
  khetd = started.khetd;
  return started.base;
}

async function post(route, body, token) {
  const response = await fetch(`${base}${route}`, {
    method: 'POST', body: JSON.stringify(body),
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`POST ${route}: ${JSON.stringify(json)}`);
  return json;
}

// A session showing the case: its setup and scheme, and its moves played by
// two seated players. Answers the session's id and its last state.
async function session({ setup, scheme = 'classic', moves = [] }) {
  const created = await post('/v1/sessions', { name: 'picture', setupId: setup,
                                               settings: { colorScheme: scheme } });
  const id = created.session.id;
  let last = created.session;
  if (moves.length) {
    const route = `/v1/sessions/${encodeURIComponent(id)}`;
    const seats = {};
    for (const name of ['Ada', 'Bo']) {
      const joined = await post(`${route}:join`, { playerName: name });
      seats[joined.color] = joined.playerToken;
    }
    for (const notation of moves) {
      const side = (await (await fetch(`${base}${route}`)).json()).board.sideToMove;
      await post(`${route}:move`, { move: { notation } }, seats[side]);
    }
    last = await (await fetch(`${base}${route}`)).json();
  }
  return { id, last };
}

// Pixels whose channels differ by more than the tolerance, and a picture of
// them.
function compare(actual, expected) {
  const diff = new PNG({ width: actual.width, height: actual.height });
  let differing = 0;
  for (let i = 0; i < actual.data.length; i += 4) {
    const off = [0, 1, 2, 3].some((c) => Math.abs(actual.data[i + c] - expected.data[i + c])
                                         > CHANNEL_TOLERANCE);
    if (off) ++differing;
    const grey = (actual.data[i] + actual.data[i + 1] + actual.data[i + 2]) / 3;
    const faded = 255 - (255 - grey) / 4;
    diff.data.set(off ? [255, 0, 255, 255] : [faded, faded, faded, 255], i);
  }
  return { differing, share: differing / (actual.width * actual.height), diff };
}

async function picture(browser, test) {
  const context = await browser.newContext({ ...SCREENS[test.screen], deviceScaleFactor: 1,
                                             reducedMotion: 'reduce', locale: 'en-US' });
  try {
    const { id, last } = await session(test);
    const page = await context.newPage();
    await page.goto(`${base}/#/s/${encodeURIComponent(id)}`);
    const pieces = (last.board?.pieces ?? []).length;
    const shot = (last.lastShot?.segments ?? []).length > 0;
    await page.waitForFunction(([n, laser]) => {
      const board = document.querySelector('#board svg.board');
      return board && board.querySelectorAll('.layer-pieces .piece').length === n
        && (!laser || board.querySelector('.laser'));
    }, [pieces, shot], { timeout: WAIT_MS });
    await page.mouse.move(0, 0);
    return PNG.sync.read(await page.locator('#board').screenshot({ animations: 'disabled' }));
  } finally {
    await context.close();
  }
}

async function main() {
  base = await startServer();
  const browser = await chromium.launch({
    executablePath: flags.chromium,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--font-render-hinting=none',
           '--disable-lcd-text', '--force-color-profile=srgb'],
  });
  fs.mkdirSync(flags.out, { recursive: true });
  const failures = [];
  try {
    for (const test of CASES) {
      const taken = await picture(browser, test);
      const reference = new URL(`${test.name}.png`, REFERENCES);
      if (flags.bless) {
        fs.writeFileSync(reference, PNG.sync.write(taken));
        console.log(`blessed ${test.name} (${taken.width}x${taken.height})`);
        continue;
      }
      const actualFile = path.join(flags.out, `${test.name}.actual.png`);
      const diffFile = path.join(flags.out, `${test.name}.diff.png`);
      if (!fs.existsSync(reference)) {
        fs.writeFileSync(actualFile, PNG.sync.write(taken));
        failures.push(`${test.name}: no reference picture (taken: ${actualFile})`);
        continue;
      }
      const expected = PNG.sync.read(fs.readFileSync(reference));
      if (expected.width !== taken.width || expected.height !== taken.height) {
        fs.writeFileSync(actualFile, PNG.sync.write(taken));
        failures.push(`${test.name}: ${taken.width}x${taken.height}, the reference is ` +
                      `${expected.width}x${expected.height} (taken: ${actualFile})`);
        continue;
      }
      const { differing, share, diff } = compare(taken, expected);
      const verdict = share > DIFFERING_SHARE ? 'DIFFERS' : 'same';
      console.log(`${test.name}: ${differing} pixels differ (${(share * 100).toFixed(3)}%): ` +
                  verdict);
      if (share > DIFFERING_SHARE) {
        fs.writeFileSync(actualFile, PNG.sync.write(taken));
        fs.writeFileSync(diffFile, PNG.sync.write(diff));
        failures.push(`${test.name}: ${differing} pixels differ; see ${diffFile}`);
      }
    }
  } finally {
    await browser.close();
  }
  if (failures.length) {
    throw new Error(`pictures differ from the references (bless.sh takes new ones if meant):` +
                    `\n${failures.join('\n')}`);
  }
}

try {
  await main();
  console.log(flags.bless ? 'visual test: references written' : 'visual test: PASSED');
} catch (error) {
  console.error(`visual test: FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  khetd?.kill('SIGTERM');
}
