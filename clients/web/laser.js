// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The laser: a LaserShot's beam segments drawn as lines that grow from the
// laser at a steady speed. A beam split by an Eye of Horus starts its two
// children where and when it ends. Hit squares get a burst once the beam
// reaches them. drawShot tells when the shot ends and when each hit lands,
// for the board to take the hit pieces off then.

import { svg } from './pieces.js';
import { squareAt } from './squares.js';

const SQUARES_PER_SECOND = 28;

const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

// A BeamPoint with its fields filled in.
const point = (p) => ({ file: p?.file ?? 0, rank: p?.rank ?? 0 });

// A segment's length in squares.
function length(segment) {
  const from = point(segment.from);
  const to = point(segment.to);
  return Math.abs(to.file - from.file) + Math.abs(to.rank - from.rank);
}

// When each beam starts and ends, in seconds after the shot: a child starts
// when its parent's last segment ends.
function beamTimes(shot) {
  const segments = shot.segments ?? [];
  const duration = new Map();
  for (const s of segments) {
    const id = s.beamId ?? 0;
    duration.set(id, (duration.get(id) ?? 0) + length(s) / SQUARES_PER_SECOND);
  }
  const parent = new Map((shot.beams ?? []).map((b) => [b.id ?? 0, b.parentId ?? -1]));
  const start = new Map();
  const startOf = (id, depth = 0) => {
    if (start.has(id)) return start.get(id);
    const p = parent.get(id) ?? -1;
    const t = p < 0 || depth > 64 ? 0 : startOf(p, depth + 1) + (duration.get(p) ?? 0);
    start.set(id, t);
    return t;
  };
  const endOf = (id) => startOf(id) + (duration.get(id) ?? 0);
  return { startOf, endOf };
}

export const motionWanted = () => !reducedMotion();

// Draws `shot` into `layer` (emptied first) using view.centre(file, rank) for
// coordinates, growing from the laser `delay` seconds from now if `animate`
// (and the reader has not asked for reduced motion). Answers { end, hitAt }:
// the seconds from now until the whole shot is drawn, and until each hit
// square (a Map) is reached; all 0 when nothing moves.
export function drawShot(layer, shot, view, { animate, delay: wait = 0 }) {
  layer.replaceChildren();
  const none = { end: 0, hitAt: new Map() };
  if (!shot?.segments?.length) return none;
  const moving = animate && motionWanted();
  const { startOf, endOf } = beamTimes(shot);
  const group = svg('g', { class: 'laser', 'data-shooter': shot.shooter ?? '' });
  layer.append(group);

  const beamClock = new Map();  // seconds into each beam drawn so far
  let end = 0;
  for (const segment of shot.segments) {
    const id = segment.beamId ?? 0;
    const start = point(segment.from);
    const stop = point(segment.to);
    const from = view.centre(start.file, start.rank);
    const to = view.centre(stop.file, stop.rank);
    const drawnLength = Math.hypot(to.x - from.x, to.y - from.y);
    const seconds = length(segment) / SQUARES_PER_SECOND;
    const delay = wait + startOf(id) + (beamClock.get(id) ?? 0);
    beamClock.set(id, (beamClock.get(id) ?? 0) + seconds);
    end = Math.max(end, delay + seconds);
    for (const part of ['laser-glow', 'laser-beam']) {
      const line = svg('line', {
        x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: part, 'data-beam': id,
      });
      group.append(line);
      if (moving && drawnLength > 0) {
        line.style.strokeDasharray = `${drawnLength} ${drawnLength}`;
        line.animate([{ strokeDashoffset: drawnLength }, { strokeDashoffset: 0 }], {
          duration: seconds * 1000, delay: delay * 1000, fill: 'both', easing: 'linear',
        });
      }
    }
  }

  // A hit shows when the beam that made it arrives.
  const hitAt = new Map((shot.beams ?? []).filter((b) => b.end === 'HIT')
    .map((b) => [b.endSquare, wait + endOf(b.id ?? 0)]));
  for (const name of shot.hitSquares ?? []) if (!hitAt.has(name)) hitAt.set(name, end);
  for (const name of shot.hitSquares ?? []) {
    const { file, rank } = squareAt(name);
    const { x, y } = view.centre(file, rank);
    const burst = svg('path', {
      d: burstPath(x, y), class: 'hit-mark', 'data-square': name,
    });
    group.append(burst);
    if (moving) {
      const grow = [{ opacity: 0, transform: 'scale(0.3)' }, { opacity: 1, transform: 'scale(1)' }];
      burst.animate(grow, {
        duration: 250, delay: hitAt.get(name) * 1000, fill: 'both', easing: 'ease-out',
      });
    }
  }
  return moving ? { end, hitAt } : none;
}

// An eight-pointed star centred on (x, y).
function burstPath(x, y) {
  const points = [];
  for (let i = 0; i < 16; ++i) {
    const r = i % 2 ? 0.16 : 0.42;
    const a = (Math.PI * i) / 8;
    points.push(`${(x + r * Math.sin(a)).toFixed(3)} ${(y - r * Math.cos(a)).toFixed(3)}`);
  }
  return `M${points.join(' L')} Z`;
}
