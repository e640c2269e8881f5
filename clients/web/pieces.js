// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Piece shapes as SVG, drawn in a unit square centred on (0, 0) with north
// up (-y). Each shape is drawn facing north (a Pyramid's mirror facing NE, a
// Scarab's or Eye's mirror as "/") and turned to the piece's orientation.
// The gold marks (a Pharaoh's ring, an Anubis's front) turn dark on pieces
// whose own colour is close to gold, so that they show in every scheme.
// Every piece has a dark edge and every mirror face dark borders, wide
// enough to tell a light piece (silver, orange, gold) or a mirror from the
// light squares it stands on at 3:1 or more (tests/browser measures it).

export const SVG_NS = 'http://www.w3.org/2000/svg';

const MIRROR = '#dff3ff';  // mirror faces, whatever the colour scheme
const OUTLINE = '#1d1d1f';
const EDGE = 0.06;         // a piece's edge, in squares
const BORDER = 0.04;       // a mirror face's border on each side

// A mirror face from (x1, y1) to (x2, y2), `width` wide, on a dark line
// that borders it.
const mirror = (x1, y1, x2, y2, width) => [
  svg('line', { x1, y1, x2, y2, stroke: OUTLINE, 'stroke-width': width + 2 * BORDER,
                'stroke-linecap': 'round', class: 'mirror-edge' }),
  svg('line', { x1, y1, x2, y2, stroke: MIRROR, 'stroke-width': width,
                'stroke-linecap': 'round', class: 'mirror' }),
];
const GOLD = '#d9b44a';
const DARK_GOLD = '#4d3800';

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// The mark colour that shows on a piece filled with `fill` (a #rrggbb).
export function accentFor(fill) {
  const [r, g, b] = rgb(/^#[0-9a-f]{6}$/i.test(fill ?? '') ? fill : '#c0c0c0');
  const [gr, gg, gb] = rgb(GOLD);
  return Math.hypot(r - gr, g - gg, b - gb) < 110 ? DARK_GOLD : GOLD;
}

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) element.append(child);
  return element;
}

const TURN = { N: 0, E: 90, S: 180, W: 270, NE: 0, SE: 90, SW: 180, NW: 270, '/': 0, '\\': 90 };

function pharaoh(fill) {
  const mark = accentFor(fill);
  return [
    svg('circle', { r: 0.36, fill, stroke: OUTLINE, 'stroke-width': EDGE, class: 'body' }),
    svg('circle', { r: 0.22, fill: 'none', stroke: mark, 'stroke-width': 0.07 }),
    svg('path', { d: 'M-0.12 -0.05 L0 -0.2 L0.12 -0.05 Z', fill: mark }),
  ];
}

function pyramid(fill) {
  return [
    svg('path', { d: 'M-0.4 -0.4 L0.4 0.4 L-0.4 0.4 Z', fill, stroke: OUTLINE,
                  'stroke-width': EDGE, 'stroke-linejoin': 'round', class: 'body' }),
    ...mirror(-0.4, -0.4, 0.4, 0.4, 0.09),
  ];
}

function scarab(fill) {
  return [
    svg('rect', { x: -0.34, y: -0.34, width: 0.68, height: 0.68, rx: 0.14, fill,
                  stroke: OUTLINE, 'stroke-width': EDGE, class: 'body' }),
    ...mirror(-0.4, 0.4, 0.4, -0.4, 0.12),
    svg('line', { x1: -0.4, y1: 0.4, x2: 0.4, y2: -0.4, stroke: OUTLINE, 'stroke-width': 0.02 }),
  ];
}

function eye(fill) {
  return [
    svg('circle', { r: 0.36, fill, stroke: OUTLINE, 'stroke-width': EDGE, class: 'body' }),
    ...mirror(-0.4, 0.4, 0.4, -0.4, 0.1),
    svg('ellipse', { rx: 0.17, ry: 0.09, fill: '#fff', stroke: OUTLINE, 'stroke-width': 0.03 }),
    svg('circle', { r: 0.05, fill: OUTLINE }),
  ];
}

function anubis(fill) {
  return [
    svg('rect', { x: -0.3, y: -0.22, width: 0.6, height: 0.56, rx: 0.08, fill,
                  stroke: OUTLINE, 'stroke-width': EDGE, class: 'body' }),
    // The front: a beam striking it is blocked.
    svg('rect', { x: -0.38, y: -0.4, width: 0.76, height: 0.14, rx: 0.04, fill: accentFor(fill),
                  stroke: OUTLINE, 'stroke-width': 0.03 }),
  ];
}

function sphinx(fill) {
  return [
    svg('rect', { x: -0.34, y: -0.2, width: 0.68, height: 0.54, rx: 0.08, fill,
                  stroke: OUTLINE, 'stroke-width': EDGE, class: 'body' }),
    // The lens the laser leaves from.
    svg('path', { d: 'M-0.16 -0.2 L0 -0.42 L0.16 -0.2 Z', fill: '#ff5a4f', stroke: OUTLINE,
                  'stroke-width': 0.03 }),
  ];
}

function obelisk(fill, height) {
  const block = (dx, dy) => svg('path', {
    d: `M${-0.2 + dx} ${-0.34 + dy} L${0.2 + dx} ${-0.34 + dy} L${0.3 + dx} ${0.34 + dy}
        L${-0.3 + dx} ${0.34 + dy} Z`,
    fill, stroke: OUTLINE, 'stroke-width': EDGE, 'stroke-linejoin': 'round', class: 'body',
  });
  if (height < 2) return [block(0, 0)];
  return [block(0.07, -0.05), block(-0.05, 0.04),
          svg('text', { x: 0, y: 0.14, 'text-anchor': 'middle', 'font-size': 0.3,
                        'font-weight': 'bold', fill: OUTLINE }, '2')];
}

const SHAPES = {
  PHARAOH: pharaoh, PYRAMID: pyramid, SCARAB: scarab, EYE_OF_HORUS: eye,
  ANUBIS: anubis, SPHINX: sphinx, OBELISK: obelisk,
};

// A <g> drawing `piece` (a khet.v1.Piece as JSON) in the unit square, filled
// with `fill`; `flipped` turns it half round for a board seen from Red's side.
export function drawPiece(piece, fill, flipped) {
  const shape = SHAPES[piece.type];
  const group = svg('g', { class: `piece piece-${(piece.type ?? '').toLowerCase()}` });
  if (!shape) return group;
  const turn = piece.orientation ? TURN[piece.orientation] + (flipped ? 180 : 0) : 0;
  const body = svg('g', { transform: `rotate(${turn})`, class: 'piece-body' },
                   ...shape(fill, piece.height ?? 1));
  body.dataset.turn = turn;
  group.append(body);
  return group;
}

// A Khet 1.0 laser emitter: a housing with its lens pointing north (-y),
// centred on (0, 0), in the colour of its side.
export function drawEmitter(fill) {
  return svg('g', { class: 'emitter' },
    svg('rect', { x: -0.24, y: 0, width: 0.48, height: 0.2, rx: 0.04, fill, stroke: OUTLINE,
                  'stroke-width': 0.03 }),
    svg('path', { d: 'M-0.1 0 L0 -0.1 L0.1 0 Z', fill: '#ff5a4f', stroke: OUTLINE,
                  'stroke-width': 0.02 }));
}
