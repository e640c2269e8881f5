// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The board's optional sounds, made by WebAudio on the spot (no file is
// fetched): a soft knock for a move, a falling whine for the laser and a
// burst of noise for a hit. Off until the reader turns them on; the choice
// is kept in localStorage.

const KEY = 'khet.sounds';

let audio = null;

function context() {
  audio ??= new AudioContext();
  if (audio.state === 'suspended') audio.resume();
  return audio;
}

// A tone gliding from `from` to `to` Hz over `seconds`, starting at `at`.
function tone(ctx, at, seconds, from, to, type, volume) {
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.setValueAtTime(from, at);
  oscillator.frequency.exponentialRampToValueAtTime(to, at + seconds);
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + seconds);
}

function noise(ctx, at, seconds, volume) {
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * seconds), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; ++i) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const source = ctx.createBufferSource();
  const gain = ctx.createGain();
  source.buffer = buffer;
  gain.gain.value = volume;
  source.connect(gain).connect(ctx.destination);
  source.start(at);
}

export const sounds = {
  get on() {
    return localStorage.getItem(KEY) === 'on';
  },
  set on(value) {
    if (value) localStorage.setItem(KEY, 'on');
    else localStorage.removeItem(KEY);
  },
  // Plays `kind` ('move', 'laser' or 'hit') `delay` seconds from now, if on.
  play(kind, delay = 0) {
    if (!this.on || typeof AudioContext !== 'function') return;
    const ctx = context();
    const at = ctx.currentTime + delay;
    if (kind === 'move') tone(ctx, at, 0.08, 220, 110, 'triangle', 0.25);
    else if (kind === 'laser') tone(ctx, at, 0.35, 1800, 400, 'sawtooth', 0.06);
    else if (kind === 'hit') noise(ctx, at, 0.3, 0.3);
  },
};
