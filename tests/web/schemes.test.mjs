// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The colour schemes on the web board: the gold marks of Pharaohs and
// Anubises stand out from every scheme's pieces (pieces.js), and the sides
// are named as each scheme paints them (sides.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { accentFor } from '../../clients/web/pieces.js';
import { sideName } from '../../clients/web/sides.js';
import './catalogues.mjs';  // the words sideName speaks

// khetd's schemes (service/sessions/color_schemes.cc): Silver's pieces, then Red's.
const SCHEMES = {
  classic: ['#c0c0c0', '#9b111e'],
  deflexion: ['#c0c0c0', '#d4af37'],
  nile: ['#ff8c00', '#1e5aa8'],
  royal: ['#2e8b57', '#6a0dad'],
};

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const distance = (a, b) => Math.hypot(...rgb(a).map((c, i) => c - rgb(b)[i]));

test('the gold marks stand out on every scheme\'s pieces', () => {
  for (const [scheme, fills] of Object.entries(SCHEMES)) {
    for (const fill of fills) {
      const mark = accentFor(fill);
      assert.ok(distance(mark, fill) >= 110, `${scheme} ${fill}: mark ${mark} too close`);
    }
  }
  assert.equal(accentFor('#c0c0c0'), '#d9b44a', 'gold stays gold where it shows');
});

test('the sides are named by their scheme\'s colours', () => {
  assert.deepEqual([sideName('classic', 'SILVER'), sideName('classic', 'RED')], ['Silver', 'Red']);
  assert.deepEqual([sideName('deflexion', 'SILVER'), sideName('deflexion', 'RED')],
                   ['Silver', 'Gold']);
  assert.deepEqual([sideName('nile', 'SILVER'), sideName('nile', 'RED')], ['Orange', 'Blue']);
  assert.deepEqual([sideName('royal', 'SILVER'), sideName('royal', 'RED')], ['Green', 'Purple']);
  assert.equal(sideName('', 'RED'), 'Red', 'no scheme: the classic names');
});
