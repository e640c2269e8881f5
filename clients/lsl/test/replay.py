#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Replays the in-world board's HTTP exchanges against a real khetd.

The board script (clients/lsl/khet_board.lsl) cannot run outside a virtual
world, so scenario.txt writes down, request by request, what it sends and
which fields of each answer it reads. This runner starts khetd with its HTTP
gateway on free loopback ports, sends every request as LSL's llHTTPRequest
would, and checks the status, the fields, the content type and that each
answer the script receives fits in LSL's default 2048-byte body, every one
without exception (the script never raises HTTP_BODY_MAXLENGTH, which this
checks too). It also checks that the script and the transcript use the same
routes, so the two cannot drift apart, and that the board's other scripts
(--quiet_script khet_render.lsl ...) send no request at all.

Pushed updates go the other way: khetd POSTs deliveries to a URL the board
registered. The runner plays the region's part with listeners of its own
on loopback (an OpenSimulator region's http URL, "/lslhttp/<uuid>"), and
checks each delivery as the board's khet_keep.lsl would: its signature
(sig= in the query: the lowercase hex SHA-256 of secret + body + secret),
its size (at most 2048 bytes, LSL's limit for a request's body), and the
fields the script reads.

Transcript format (one directive a line, '#' starts a comment):
  ## title                  a new step
  by other                  the request comes from another client (a web
                            page, the owner's khetctl): not the script's
  set NAME VALUE            a variable; VALUE "@uuid" makes a fresh one
  METHOD TEMPLATE           the request; "{name}" is filled from variables
  token NAME                sends X-Khet-Token: <value of NAME>
  body JSON                 the body; "$name" is filled from variables
  status CODE               the expected HTTP status
  expect PATH = JSON        a field the script reads equals a JSON value
                            ("$name" allowed)
  expect PATH ~ REGEX       ... matches (as text)
  expect PATH present       ... is there
  check PATH ...            as expect, for a field the script does not read
                            (the server's side of the scenario)
  expect PATH absent        ... is not there
  save NAME PATH            keeps a field's value for later steps
  repeat N                  send again (after 0.2 s) until the status and
                            the expects hold, at most N times
  background                the request stays open (a long poll) while
                            the next step runs; checked after that step
  set NAME @listener        a new listener on loopback: NAME holds its URL
  listener NAME CODE        from this step on, the listener answers CODE
                            (200 "ok" until then; 500: it no longer does)
  RECEIVE NAME              in place of a request: the step takes the
                            deliveries that came to listener NAME, in turn,
                            until one meets the expects (waiting up to 30 s
                            for more); each must be signed with the secret
  secret NAME               ... held in variable NAME, and fit in 2048 bytes
The variable board_scripts holds the script's BOARD_SCRIPTS (khetd's build
reads it from that line, and names it in GET /v1/version).
PATH is dotted (events.0.kind); "events[kind=move]" picks the first element
whose field has that value.
"""

import argparse
import gzip
import hashlib
import http.server
import json
import queue
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zlib

LSL_BODY_LIMIT = 2048
# What llHTTPRequest adds to every request (besides HTTP_CUSTOM_HEADER).
LSL_HEADERS = {
    "User-Agent": "Second Life LSL/2024.01.01.000000 (http://secondlife.com)",
    "Accept": "text/*, application/xhtml+xml, application/atom+xml, "
              "application/json, application/xml, application/llsd+xml, "
              "application/x-javascript, application/javascript, "
              "application/x-www-form-urlencoded, application/rss+xml",
    "Accept-Charset": "utf-8;q=1.0, *;q=0.5",
    "Accept-Encoding": "deflate, gzip",
    "Cache-Control": "max-age=259200",
    "Pragma": "no-cache",
    "X-SecondLife-Shard": "Production",
    "X-SecondLife-Object-Name": "Khet board",
    "X-SecondLife-Object-Key": "2b0d3f5e-3c5c-4d8e-9f39-7c5a2a1e0b11",
    "X-SecondLife-Region": "Giza (256000, 256000)",
    "X-SecondLife-Local-Position": "(128.0, 128.0, 22.5)",
    "X-SecondLife-Owner-Name": "Owner Resident",
    "X-SecondLife-Owner-Key": "7d1c2c5a-0f0e-4f7b-8a38-0b8f1d7f6a21",
}
LSL_CONTENT_TYPES = ("application/json", "text/")


class Failure(Exception):
    pass


class Listener:
    """A URL khetd may push deliveries to, as a region's HTTP-in gives a
    script one: each POST is kept (its query and body) and answered with
    `status` (200 "ok", as khet_keep.lsl answers a good delivery)."""

    def __init__(self):
        self.status = 200
        self.deliveries = queue.Queue()
        self.path = f"/lslhttp/{uuid.uuid4()}"
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                path, _, query = self.path.partition("?")
                if path == listener.path:
                    listener.deliveries.put((query, body))
                    code = listener.status
                else:
                    code = 404
                text = b"ok" if code == 200 else b"no"
                self.send_response(code)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}{self.path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def parse_transcript(text):
    steps = []
    step = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or (line.startswith("#") and not line.startswith("##")):
            continue
        if line.startswith("## "):
            step = {"title": line[3:], "line": number, "by": "script",
                    "sets": [], "token": None, "body": "", "status": 200,
                    "expects": [], "saves": [], "repeat": 1,
                    "background": False, "listeners": [], "secret": None}
            steps.append(step)
            continue
        if step is None:
            raise Failure(f"line {number}: directive before the first step")
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word in ("GET", "POST", "DELETE", "PUT"):
            step["method"], step["template"] = word, rest
        elif word == "RECEIVE":
            step["method"], step["template"], step["by"] = word, rest, "khetd"
        elif word == "listener":
            name, _, code = rest.partition(" ")
            step["listeners"].append((name, int(code)))
        elif word == "secret":
            step["secret"] = rest
        elif word == "by":
            step["by"] = rest
        elif word == "set":
            name, _, value = rest.partition(" ")
            step["sets"].append((name, value))
        elif word == "token":
            step["token"] = rest
        elif word == "body":
            step["body"] = rest
        elif word == "status":
            step["status"] = int(rest)
        elif word in ("expect", "check"):
            match = re.fullmatch(r"(\S+)\s+(=|~)\s+(.*)", rest) or \
                re.fullmatch(r"(\S+)\s+(present|absent)()", rest)
            if not match:
                raise Failure(f"line {number}: bad {word}: {rest}")
            step["expects"].append(match.groups() + (word == "expect",))
        elif word == "save":
            name, _, path = rest.partition(" ")
            step["saves"].append((name, path.strip()))
        elif word == "repeat":
            step["repeat"] = int(rest)
        elif word == "background":
            step["background"] = True
        else:
            raise Failure(f"line {number}: unknown directive {word!r}")
    for step in steps:
        if "method" not in step:
            raise Failure(f"line {step['line']}: step has no request")
        if step["method"] == "RECEIVE" and not step["secret"]:
            raise Failure(f"line {step['line']}: a delivery with no secret")
    return steps


def lookup(doc, path):
    """The value at a dotted path, or KeyError."""
    value = doc
    for part in path.split("."):
        select = re.fullmatch(r"(\w+)\[(\w+)=([^\]]*)\]", part)
        if select:
            name, field, want = select.groups()
            items = value[name]
            found = [item for item in items
                     if isinstance(item, dict) and str(item.get(field)) == want]
            if not found:
                raise KeyError(part)
            value = found[0]
        elif isinstance(value, list):
            value = value[int(part)]
        else:
            value = value[part]
    return value


def fill(text, variables, pattern):
    def one(match):
        name = match.group(1)
        if name not in variables:
            raise Failure(f"unknown variable {name!r}")
        return str(variables[name])
    return re.sub(pattern, one, text)


def script_routes(script_text):
    """(method, template) of every request the script can send."""
    routes = set(re.findall(
        r'"(GET|POST|DELETE|PUT)",\s*route\(\s*"(/v1/[^"]*)"', script_text))
    stray = set(re.findall(r'"(/v1/[^"]*)"', script_text)) - \
        {template for _, template in routes}
    if stray:
        raise Failure(f"paths outside a route(...) request: {sorted(stray)}")
    if script_text.count("llHTTPRequest(") != 1:
        raise Failure("the script must send every request through send()")
    return routes


def names_in(step):
    """The JSON names a script step writes in its body and reads back."""
    names = set()

    def walk(value):
        if isinstance(value, dict):
            for name, inner in value.items():
                names.add(name)
                walk(inner)
    if step["body"]:
        walk(json.loads(re.sub(r"\$\w+", "0", step["body"])))
    for path, _, _, read in step["expects"]:
        if read:
            for part in path.split("."):
                select = re.fullmatch(r"(\w+)\[(\w+)=[^\]]*\]", part)
                if select:
                    names.update(select.groups())
                elif not part.isdigit():
                    names.add(part)
    return names


def check_agreement(steps, script_text):
    """The script and the transcript use the same routes and JSON names."""
    used = {(s["method"], s["template"]) for s in steps if s["by"] == "script"}
    declared = script_routes(script_text)
    if used - declared:
        raise Failure(f"transcript routes missing from the script: "
                      f"{sorted(used - declared)}")
    if declared - used:
        raise Failure(f"script routes the transcript does not replay: "
                      f"{sorted(declared - used)}")
    # The game's actions share one template ("{id}:{action}"); each action
    # the transcript names must be one the script sends.
    for step in steps:
        for name, value in step["sets"]:
            if step["by"] == "script" and name == "action" and \
                    f'"{value}"' not in script_text:
                raise Failure(f"step {step['title']!r}: the script has no "
                              f"action {value!r}")
    code = re.sub(r"//[^\n]*", "", script_text)
    if "HTTP_BODY_MAXLENGTH" in code:
        raise Failure("the script raises HTTP_BODY_MAXLENGTH; every answer "
                      f"it reads must fit in LSL's default {LSL_BODY_LIMIT}")
    for step in steps:
        if step["by"] not in ("script", "khetd"):  # the script reads both
            continue
        for name in names_in(step):
            if f'"{name}"' not in script_text and \
                    f'\\"{name}\\"' not in script_text:
                raise Failure(f"step {step['title']!r}: the script never "
                              f"writes or reads the JSON name {name!r}")
    return declared


def start_khetd(binary, workdir):
    """khetd on free loopback ports, its per-caller budgets off: the tests
    send faster than one board would (a board's own budget, 20 requests in
    20 s, stays within khetd's 20 at once and 5 a second per object)."""
    log = open(os.path.join(workdir, "khetd.log"), "w")
    proc = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--http_listen", "127.0.0.1:0",
         "--store", "memory", "--calls_per_second=0",
         "--inworld_object_calls_per_second=0"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    deadline = time.time() + 20
    http = None
    lines = []
    while time.time() < deadline and http is None:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        match = re.search(r"khetd http listening on (\S+)", line)
        if match:
            http = match.group(1)
    if http is None:
        proc.kill()
        raise Failure(f"khetd printed no HTTP address: {lines}")
    return proc, "http://" + http


def exchange(base, method, path, body, token, from_script):
    headers = {"Content-Type": "application/json"}  # HTTP_MIMETYPE
    if from_script:
        headers.update(LSL_HEADERS)
    if token is not None:
        headers["X-Khet-Token"] = token
    data = body.encode() if method != "GET" else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=40) as answer:
            status, got, raw = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        status, got, raw = error.code, error.headers, error.read()
    # The region unpacks a compressed answer; the limit is on what it hands on.
    if got.get("Content-Encoding", "") == "gzip":
        raw = gzip.decompress(raw)
    elif got.get("Content-Encoding", "") == "deflate":
        raw = zlib.decompress(raw)
    return status, got.get("Content-Type", ""), raw


def check_expects(step, doc, variables):
    """The first unmet expectation, or None."""
    for path, op, want, _ in step["expects"]:
        try:
            got = lookup(doc, path)
        except (KeyError, IndexError, ValueError, TypeError):
            if op == "absent":
                continue
            return f"{path} is missing"
        if op == "absent":
            return f"{path} is {json.dumps(got)}, expected none"
        if op == "=":
            expected = json.loads(fill(want, variables, r"\$(\w+)"))
            if got != expected:
                return f"{path} is {json.dumps(got)}, expected {want}"
        elif op == "~":
            if not re.search(want, got if isinstance(got, str) else
                             json.dumps(got)):
                return f"{path} is {json.dumps(got)}, does not match /{want}/"
    return None


def receive(step, variables, listeners, stats):
    """A RECEIVE step: the deliveries to its listener, in turn, until one is
    signed right, fits LSL's limit and meets the expects."""
    listener = listeners[step["template"]]
    secret = variables[step["secret"]].encode()
    where = f"step {step['title']!r} (a delivery to {step['template']})"
    deadline = time.time() + 30
    problem = "nothing came"
    while time.time() < deadline:
        try:
            query, raw = listener.deliveries.get(
                timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        sig = hashlib.sha256(secret + raw + secret).hexdigest()
        if f"sig={sig}" not in query.split("&"):
            raise Failure(f"{where}: signed {query!r}, not sig={sig}")
        stats.append((len(raw), "delivery: " + step["title"]))
        if len(raw) > LSL_BODY_LIMIT:
            raise Failure(f"{where}: {len(raw)} bytes; LSL hands a script "
                          f"at most {LSL_BODY_LIMIT}")
        try:
            doc = json.loads(raw)
        except ValueError:
            raise Failure(f"{where}: not JSON: {raw[:200]!r}")
        problem = check_expects(step, doc, variables)
        if problem is None:
            for name, field in step["saves"]:
                variables[name] = lookup(doc, field)
            return 200
        problem += f"\n  delivery: {raw.decode(errors='replace')}"
    raise Failure(f"{where}: {problem}")


def run_step(step, base, variables, stats, listeners):
    for name, value in step["sets"]:
        if value == "@listener":
            listeners[name] = Listener()
            variables[name] = listeners[name].url
            continue
        variables[name] = str(uuid.uuid4()) if value == "@uuid" else \
            fill(value, variables, r"\$(\w+)")
    for name, code in step["listeners"]:
        listeners[name].status = code
    if step["method"] == "RECEIVE":
        return receive(step, variables, listeners, stats)
    path = fill(step["template"], variables, r"\{(\w+)\}")
    body = fill(step["body"], variables, r"\$(\w+)")
    if step["body"]:
        json.loads(body)  # the transcript's own bodies must be JSON
    token = variables[step["token"]] if step["token"] else None
    from_script = step["by"] == "script"
    for attempt in range(step["repeat"]):
        status, content_type, raw = exchange(base, step["method"], path, body,
                                             token, from_script)
        where = f"step {step['title']!r} ({step['method']} {path})"
        if status != step["status"]:
            if attempt + 1 < step["repeat"]:
                time.sleep(0.2)
                continue
            raise Failure(f"{where}: status {status}, expected "
                          f"{step['status']}: {raw[:300]!r}")
        if from_script:
            stats.append((len(raw), step["title"]))
            if len(raw) > LSL_BODY_LIMIT:
                raise Failure(f"{where}: the answer has {len(raw)} bytes; LSL "
                              f"hands the script at most {LSL_BODY_LIMIT}")
            if not content_type.startswith(LSL_CONTENT_TYPES):
                raise Failure(f"{where}: content type {content_type!r} is not "
                              "one LSL hands to scripts")
        try:
            doc = json.loads(raw) if raw else {}
        except ValueError:
            raise Failure(f"{where}: the answer is not JSON: {raw[:200]!r}")
        problem = check_expects(step, doc, variables)
        if problem is None:
            break
        if attempt + 1 == step["repeat"]:
            raise Failure(f"{where}: {problem}\n  answer: "
                          f"{raw.decode(errors='replace')}")
        time.sleep(0.2)
    for name, field in step["saves"]:
        try:
            variables[name] = lookup(doc, field)
        except (KeyError, IndexError, ValueError, TypeError):
            raise Failure(f"{where}: no {field} to save as {name}")
    return status


def run_guarded(step, base, variables, stats, listeners):
    """run_step for a thread: the Failure, or None."""
    try:
        run_step(step, base, variables, stats, listeners)
        return None
    except Failure as failure:
        return failure


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--transcript", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--quiet_script", action="append", default=[],
                        help="another script of the board, which must "
                             "send no HTTP request (khet_render.lsl)")
    args = parser.parse_args()

    steps = parse_transcript(open(args.transcript).read())
    script = open(args.script).read()
    declared = check_agreement(steps, script)
    version = re.search(r'^string BOARD_SCRIPTS = "([^"\n]+)";$', script, re.M)
    if not version:
        raise Failure(f"{args.script} has no line string BOARD_SCRIPTS = "
                      f"\"...\"; (khetd's build reads it)")
    for path in args.quiet_script:
        code = re.sub(r"//[^\n]*", "", open(path).read())
        if "llHTTPRequest" in code or "/v1/" in code:
            raise Failure(f"{path} sends HTTP requests or names a route; only "
                          f"{args.script} may")

    with tempfile.TemporaryDirectory() as workdir:
        listeners = {}
        proc, base = start_khetd(args.khetd, workdir)
        try:
            variables = {"board_scripts": version.group(1)}
            stats = []
            started = time.time()
            waiting = None  # a background step's thread and its outcome
            for step in steps:
                if step["background"]:
                    outcome = []
                    thread = threading.Thread(
                        target=lambda s=step: outcome.append(
                            run_guarded(s, base, variables, stats, listeners)),
                        daemon=True)
                    thread.start()
                    time.sleep(1.0)  # let it reach the server and wait there
                    waiting = (thread, outcome)
                    continue
                run_step(step, base, variables, stats, listeners)
                if waiting:
                    waiting[0].join(timeout=40)
                    if waiting[1] and waiting[1][0] is not None:
                        raise waiting[1][0]
                    if not waiting[1]:
                        raise Failure("a background request never finished")
                    waiting = None
            if proc.poll() is not None:
                raise Failure(f"khetd exited with {proc.returncode}")
            pushed = [s for s in stats if s[1].startswith("delivery: ")]
            print(f"{len(steps)} exchanges ({len(stats) - len(pushed)} by the "
                  f"script, {len(pushed)} deliveries to it checked) in "
                  f"{time.time() - started:.1f} s; {len(declared)} routes")
            size, title = max(stats)
            print(f"  every answer the script received, and every delivery, "
                  f"fits in {LSL_BODY_LIMIT} bytes; largest {size} ({title})")
        except Failure:
            sys.stderr.write(open(os.path.join(workdir, "khetd.log")).read()[-3000:])
            raise
        finally:
            for listener in listeners.values():
                listener.close()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        sys.exit(1)
