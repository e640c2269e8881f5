# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""LocalKhetd: a khetd process of one's own on a free loopback port.

For tests and examples: it starts `khetd --listen 127.0.0.1:0
--http_listen= --store memory` (HTTP off unless asked for) with its
per-caller budgets of calls and of unclaimed sessions off (one's own
server, whose one client plays for many), reads the port from its "khetd
listening on HOST:PORT" line, and kills the process on stop() or at the end
of a `with` block.
"""

import os
import re
import subprocess
import threading

_LISTENING = re.compile(r"khetd listening on (\S+)")
_HTTP_LISTENING = re.compile(r"khetd http listening on (\S+)")


class LocalKhetd:
    """`binary` defaults to the KHETD environment variable; `args` are
    extra khetd flags (after the ones above, so they may turn budgets on); `http` turns the HTTP gateway on, on a free loopback
    port too. After start(), `target` is "127.0.0.1:PORT", `http_target`
    the gateway's "127.0.0.1:PORT" (None without `http`), and `log` the
    lines khetd wrote to stderr so far."""

    def __init__(self, binary=None, args=(), start_timeout=20.0, http=False):
        self.binary = binary or os.environ.get("KHETD")
        if not self.binary:
            raise RuntimeError("no khetd binary: pass one or set KHETD")
        self.args = list(args)
        self.start_timeout = start_timeout
        self.http = http
        self.process = None
        self.target = None
        self.http_target = None
        self.log = []

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--listen", "127.0.0.1:0",
             "--http_listen=" + ("127.0.0.1:0" if self.http else ""),
             "--store", "memory",
             "--calls_per_second=0",
             "--max_unclaimed_sessions_per_address=0",
             *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._collect_log, daemon=True).start()
        found = {}
        listening = threading.Event()
        threading.Thread(target=self._find_target, args=(found, listening),
                         daemon=True).start()
        if not listening.wait(self.start_timeout):
            self.stop()
            raise RuntimeError(
                f"khetd did not say where it listens within "
                f"{self.start_timeout} s; its log: {' | '.join(self.log)}")
        self.target = found["target"]
        self.http_target = found.get("http_target")
        return self

    def _find_target(self, found, listening):
        """Sets `listening` once khetd has said where it listens (and where
        its gateway does, with `http`), then keeps the pipe drained."""
        for line in self.process.stdout:
            match = _LISTENING.search(line)
            if match:
                found["target"] = match.group(1)
            match = _HTTP_LISTENING.search(line)
            if match:
                found["http_target"] = match.group(1)
            if "target" in found and (not self.http or "http_target" in found):
                listening.set()
                break
        for _ in self.process.stdout:
            pass

    def _collect_log(self):
        for line in self.process.stderr:
            self.log.append(line.rstrip("\n"))

    def stop(self):
        """Kills khetd (SIGTERM, then SIGKILL after 5 s). Safe to call twice."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
