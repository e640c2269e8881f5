// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A session's events as they happen: server-sent events through EventSource
// (which resumes by itself after a drop), or long polling when the stream
// cannot be opened. Each event is delivered once, in version order.

import { t } from './language.js';
import { api } from './api.js';

// The `event:` names the gateway gives each kind (Event's oneof, camelCase).
const KINDS = ['seatChanged', 'setupChosen', 'gameStarted', 'moveMade', 'gameOver', 'gameReset',
               'drawOffered', 'settingsChanged', 'sessionDeleted'];

const POLL_SECONDS = 20;
const RETRY_MS = 2000;

export class EventFeed {
  // onEvent(event) gets each Event (JSON) after version `afterVersion`;
  // onTrouble(error or null) hears of the connection failing and recovering.
  constructor(sessionId, afterVersion, onEvent, onTrouble = () => {}) {
    this.sessionId = sessionId;
    this.version = afterVersion;
    this.onEvent = onEvent;
    this.onTrouble = onTrouble;
    this.closed = false;
    this.source = null;
    this.abort = null;
    if (typeof EventSource === 'function') this.stream();
    else this.poll();
  }

  close() {
    this.closed = true;
    this.source?.close();
    this.abort?.abort();
  }

  deliver(event) {
    const version = Number(event.version ?? 0);
    if (this.closed || version <= this.version) return;
    this.version = version;
    this.onEvent(event);
  }

  stream() {
    const source = new EventSource(api.streamUrl(this.sessionId, this.version));
    this.source = source;
    const handle = (message) => {
      try {
        this.deliver(JSON.parse(message.data));
      } catch (error) {
        console.warn('khet: unreadable event', message.data, error);
      }
    };
    for (const kind of KINDS) source.addEventListener(kind, handle);
    source.addEventListener('message', handle);
    source.addEventListener('open', () => this.onTrouble(null));
    source.addEventListener('error', (event) => {
      if (this.closed) return;
      if (event.data) {
        // The server's `event: error` (this watcher fell behind); the browser
        // reconnects and resumes after the last event it got.
        let message = t('updatesBehind');
        try {
          message = JSON.parse(event.data).error?.message ?? message;
        } catch {
          // keep the general message
        }
        this.onTrouble(new Error(message));
      } else if (source.readyState === EventSource.CLOSED) {
        // Refused outright (not a dropped connection): poll instead.
        this.source = null;
        this.poll();
      } else {
        this.onTrouble(new Error(t('updatesInterrupted')));
      }
    });
  }

  async poll() {
    while (!this.closed) {
      this.abort = new AbortController();
      try {
        const reply = await api.events(this.sessionId, this.version, POLL_SECONDS,
                                       this.abort.signal);
        this.onTrouble(null);
        for (const event of reply.events ?? []) this.deliver(event);
      } catch (error) {
        if (this.closed || error.name === 'AbortError') return;
        this.onTrouble(error);
        if (error.code === 'NOT_FOUND') return;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}
