// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The players' two clocks beside the board, from a Session's or an Event's
// `clocks` (silverMs and redMs left at asOf; the running side's flag falls at
// flagAt). The running clock counts down locally against the server's time
// (server_clock.js); the others stand still. The clocks are role="timer", so
// screen readers read them when asked, not every tick.

import { show } from './dom.js';
import { t } from './language.js';
import { serverNow } from './server_clock.js';

const TICK_MS = 100;
const LOW_MS = 20000;       // a clock under this is marked low
const CRITICAL_MS = 10000;  // ... and under this urgent, with tenths shown
const SIDES = { SILVER: 'silver', RED: 'red' };

// "1:02:03", "4:47", "0:09.4" (tenths under 10 s); never below zero.
export function clockText(ms) {
  const left = Math.max(0, ms);
  if (left < CRITICAL_MS) return `0:0${Math.floor(left / 1000)}.${Math.floor(left / 100) % 10}`;
  const seconds = Math.floor(left / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds / 60) % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (hours) return `${hours}:${two(minutes)}:${two(seconds % 60)}`;
  return `${minutes}:${two(seconds % 60)}`;
}

export class ClockView {
  // `element` holds one .clock per side (data-color SILVER and RED), each with
  // a .clock-time and a .clock-state.
  constructor(element) {
    this.element = element;
    this.clocks = null;
    this.flagged = null;
    this.timer = null;
  }

  // Shows `clocks` (null: the game has none); `flagged` is the side whose
  // time ran out, once the server says so.
  set(clocks, flagged = null) {
    this.clocks = clocks ?? null;
    this.flagged = flagged;
    show(this.element, Boolean(this.clocks));
    const running = this.running();
    if (running && !this.timer) this.timer = setInterval(() => this.draw(), TICK_MS);
    if (!running) this.stop();
    this.draw();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  running() {
    const side = this.clocks?.running;
    return SIDES[side] && this.clocks.flagAt ? side : null;
  }

  left(side) {
    if (side === this.running()) return Date.parse(this.clocks.flagAt) - serverNow();
    return Number(this.clocks[`${SIDES[side]}Ms`] ?? 0);
  }

  draw() {
    if (!this.clocks) return;
    const running = this.running();
    for (const clock of this.element.querySelectorAll('.clock')) {
      const side = clock.dataset.color;
      const left = this.left(side);
      const state = side === this.flagged ? t('clockFlagged')
        : side === running ? t('clockRunning') : '';
      const time = clockText(left);
      const timeElement = clock.querySelector('.clock-time');
      if (timeElement.textContent !== time) timeElement.textContent = time;
      const stateElement = clock.querySelector('.clock-state');
      if (stateElement.textContent !== state) stateElement.textContent = state;
      clock.classList.toggle('running', side === running);
      clock.classList.toggle('flagged', side === this.flagged);
      clock.classList.toggle('low', left < LOW_MS);
      clock.classList.toggle('critical', left < CRITICAL_MS);
    }
  }
}
