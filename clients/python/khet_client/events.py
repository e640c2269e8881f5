# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""EventStream: one session's events from Watch, as an iterator.

A reader thread pulls the stream into a queue, so a caller can wait for the
next event with a timeout, and cancel() ends the stream from any thread.
"""

import queue
import threading
import time

import grpc

from .errors import KhetError

_END = object()


class EventStream:
    """Events (khet.v1.Event) oldest first, then live ones as they happen.

    Iterating blocks until the next event and stops after cancel() or
    after the SessionDeleted event. A stream the server broke off raises
    KhetError, e.g. UNAVAILABLE at shutdown or RESOURCE_EXHAUSTED for a
    watcher too far behind; its message names the version to resume after.
    """

    def __init__(self, call):
        self._call = call
        self._items = queue.Queue()
        self._cancelled = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name="khet-watch")
        self._reader.start()

    def _read(self):
        try:
            for event in self._call:
                self._items.put(event)
                if event.HasField("session_deleted"):
                    self._cancelled.set()  # nothing can follow
                    self._call.cancel()
                    break
            self._items.put(_END)
        except grpc.RpcError as error:
            if self._cancelled.is_set():
                self._items.put(_END)
            else:
                self._items.put(KhetError.from_rpc_error(error))

    def next_event(self, timeout=None):
        """The next event, or None once the stream has ended.

        Raises TimeoutError if none comes within `timeout` seconds (None:
        wait for ever) and KhetError if the server broke the stream off.
        """
        try:
            item = self._items.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no event within {timeout} s") from None
        if item is _END or isinstance(item, KhetError):
            self._items.put(item)  # every later call sees the same end
            if item is _END:
                return None
            raise item
        return item

    def wait_for(self, predicate, timeout):
        """The first coming event for which predicate(event) is true.

        Events before it are consumed. Raises TimeoutError if none comes
        within `timeout` seconds in all, LookupError if the stream ends first.
        """
        end = time.monotonic() + timeout
        while True:
            event = self.next_event(max(0.0, end - time.monotonic()))
            if event is None:
                raise LookupError("the event stream ended first")
            if predicate(event):
                return event

    def __iter__(self):
        return self

    def __next__(self):
        event = self.next_event()
        if event is None:
            raise StopIteration
        return event

    def cancel(self):
        """Ends the stream; iteration then stops. Safe to call twice."""
        self._cancelled.set()
        self._call.cancel()
        self._reader.join(timeout=5)

    close = cancel

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.cancel()

