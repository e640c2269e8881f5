// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The create form's clock choice: none, minutes each plus seconds added per
// move (Fischer, with one-click presets), or a fixed time for each move; read
// as RuleOptions.timeControl (int64 fields as JSON strings).

import { $, show } from './dom.js';

export class TimeControlChoice {
  constructor(form) {
    this.fields = form.elements;
    this.fields.clock.addEventListener('change', () => this.showKind());
    for (const preset of $('clock-presets').querySelectorAll('button')) {
      preset.addEventListener('click', () => {
        this.fields.clock.value = 'FISCHER';
        this.fields.baseMinutes.value = preset.dataset.minutes;
        this.fields.incrementSeconds.value = preset.dataset.seconds;
        this.showKind();
      });
    }
    this.showKind();
  }

  showKind() {
    show($('clock-fischer'), this.fields.clock.value === 'FISCHER');
    show($('clock-per-move'), this.fields.clock.value === 'PER_MOVE');
  }

  // RuleOptions.timeControl, or undefined for no clock.
  value() {
    const kind = this.fields.clock.value;
    const ms = (value, unit) => String(Math.round(Number(value || 0) * unit));
    if (kind === 'FISCHER') {
      return { kind, baseMs: ms(this.fields.baseMinutes.value, 60000),
               incrementMs: ms(this.fields.incrementSeconds.value, 1000) };
    }
    if (kind === 'PER_MOVE') return { kind, perMoveMs: this.fields.perMoveMs.value };
    return undefined;
  }
}
