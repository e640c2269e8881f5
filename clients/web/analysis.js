// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer's analysis of a finished game: an "Analyse" button with the
// thinking time per move, the progress while the server analyses (asked
// again every second), and a summary once done. A game analysed before
// shows its analysis at once.

import { t } from './language.js';
import { api } from './api.js';
import { h, show } from './dom.js';
import { JUDGEMENT } from './move_list.js';

const POLL_MS = 1000;
const TIMES = [  // thinking time per move offered, in ms
  { ms: 100, label: 'timeQuick' },
  { ms: 500, label: 'timePlain' },
  { ms: 2000, label: 'timeThorough' },
];
const DEFAULT_MS = 500;

export class Analysis {
  // onResult(plies) gets the analysed plies (PlyAnalysis JSON) once done,
  // and [] when another game is shown.
  constructor(container, { onResult }) {
    this.onResult = onResult;
    this.sessionId = null;
    this.gameId = null;
    this.run = 0;  // counts games and starts; a poll of an older one stops
    this.state = 'idle';  // or 'running', 'done'
    this.time = h('select', { 'aria-label': t('thinkingTime'),
                              'data-i18n-attr': 'aria-label:thinkingTime' },
      ...TIMES.map((time) => h('option', { value: time.ms, selected: time.ms === DEFAULT_MS })));
    this.button = h('button', { type: 'button', class: 'secondary', 'data-i18n': 'analyse',
                                onclick: () => this.start() }, t('analyse'));
    this.before = h('span', { 'data-i18n': 'thinkingBefore' });
    this.after = h('span', { 'data-i18n': 'thinkingAfter' });
    this.form = h('div', { class: 'controls' }, this.button,
      h('label', { class: 'analysis-time' }, this.before, ' ', this.time, ' ', this.after));
    this.summary = null;  // the analysis shown (done), for relabel()
    this.progress = h('progress', { max: 1, value: 0 });
    this.status = h('p', { class: 'analysis-status small', role: 'status', 'aria-live': 'polite' });
    container.classList.add('analysis');
    container.replaceChildren(this.form, this.progress, this.status);
    this.relabel();
    this.setGame(null, null, {});
  }

  // Writes the words made in code again, in the page's language (a running
  // analysis says its progress anew at its next poll).
  relabel() {
    this.before.textContent = t('thinkingBefore');
    this.after.textContent = t('thinkingAfter');
    for (const [i, option] of [...this.time.options].entries()) {
      option.textContent = t(TIMES[i].label, { seconds: TIMES[i].ms / 1000 });
    }
    if (this.state === 'done' && this.summary) this.done(this.summary);
  }

  // The game shown. `finished`: it may be analysed; `analysis`: the record's
  // analysis, if one is done.
  setGame(sessionId, gameId, { finished, analysis }) {
    const same = sessionId === this.sessionId && gameId === this.gameId;
    if (same && this.state !== 'idle') return;  // running or shown already
    if (!same) {
      this.run += 1;
      this.onResult([]);
    }
    this.sessionId = sessionId;
    this.gameId = gameId;
    if (analysis?.state === 'DONE') {
      this.done(analysis);
      return;
    }
    this.state = 'idle';
    show(this.form, Boolean(finished));
    show(this.progress, false);
    this.status.textContent = '';
    this.button.disabled = false;
  }

  async start() {
    const run = ++this.run;
    const { sessionId, gameId } = this;
    const msPerPly = Number(this.time.value);
    this.state = 'running';
    this.button.disabled = true;
    this.status.textContent = t('askingComputer');
    for (;;) {
      let analysis;
      try {
        analysis = await api.analyzeGame(sessionId, gameId, msPerPly);
      } catch (error) {
        if (run !== this.run) return;
        this.state = 'idle';
        this.button.disabled = false;
        show(this.progress, false);
        this.status.textContent = error.code === 'RESOURCE_EXHAUSTED'
          ? t('computerBusy') : t('analysisFailed', { error: error.message });
        return;
      }
      if (run !== this.run) return;
      if (analysis.state === 'DONE') {
        this.done(analysis);
        return;
      }
      const total = analysis.plies ?? 0;
      const analysed = analysis.pliesAnalyzed ?? 0;
      show(this.progress, true);
      this.progress.max = Math.max(1, total);
      this.progress.value = analysed;
      this.status.textContent = t('analysing', { done: analysed, total });
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (run !== this.run) return;
    }
  }

  done(analysis) {
    this.state = 'done';
    this.summary = analysis;
    show(this.form, false);
    show(this.progress, false);
    const plies = analysis.moves ?? [];
    const counts = Object.keys(JUDGEMENT).map((key) => {
      const n = plies.filter((p) => p.judgement === key).length;
      return n ? t(n === 1 ? JUDGEMENT[key].one : JUDGEMENT[key].other, { count: n }) : null;
    }).filter(Boolean);
    const seconds = (analysis.msPerPly ?? 0) / 1000;
    this.status.textContent = t('analysisDone', {
      seconds, counts: counts.length ? counts.join(', ') : t('noJudgements') });
    this.onResult(plies);
  }
}
