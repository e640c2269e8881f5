// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The server's time as this browser can best tell it (khetd sends no Date
// header). An event's `time` is never later than the server's clock when the
// event reaches the page, and an event delivered live arrives within the
// network's delay of it: each such event bounds (server time - local time)
// from below, and the estimate is the highest of the recent bounds; before
// any, the local clock is trusted (0).

const SAMPLES = 8;  // recent bounds kept, so that a local clock change is outlived

const bounds = [];

// The time (RFC 3339) of an event that was delivered live, just now.
export function observeServerTime(text) {
  const server = Date.parse(text ?? '');
  if (Number.isNaN(server)) return;
  bounds.push(server - Date.now());
  if (bounds.length > SAMPLES) bounds.shift();
}

// The server's time now, in milliseconds since the epoch.
export function serverNow() {
  return Date.now() + (bounds.length ? Math.max(...bounds) : 0);
}
