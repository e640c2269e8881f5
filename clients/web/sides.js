// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The two sides' names as a colour scheme paints them: the first player's
// pieces are silver in Classic but orange in Nile, so the page says
// "Orange" there. The server's ids stay SILVER and RED.

import { t } from './language.js';

// Per scheme id, the colour words (i18n keys) of Silver's and Red's pieces.
const COLOURS = {
  classic: ['silver', 'red'],
  deflexion: ['silver', 'colourGold'],
  nile: ['colourOrange', 'colourBlue'],
  royal: ['colourGreen', 'colourPurple'],
};

// The name of `color` (SILVER or RED) under the scheme id `scheme`.
export function sideName(scheme, color) {
  const [silver, red] = COLOURS[scheme] ?? COLOURS.classic;
  return t(color === 'RED' ? red : silver);
}
