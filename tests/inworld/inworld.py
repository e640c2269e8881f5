# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Building blocks of the in-world tests: a khetd and an OpenSimulator
region with the board loaded (World), avatars (Avatar, over avatar.cs),
and the board as its prims show it (Board).

A test makes a World in its scratch folder and uses it as a context
manager; on the way out every process it started is stopped, and on a
failure the logs' tails are printed (the logs, and the board pictures,
stay in the scratch folder). How fast the board answered (Latencies,
below) is printed by print_latencies and kept in latencies.json there. Where OpenSimulator or Mono is missing, the
test exits with SKIP (ctest's SKIP_RETURN_CODE) saying what to install.
"""

import calendar
import http.client
import io
import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median

from region import OWNER, PASSWORD, REGION_NAME, Region, RegionError

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
LSL = REPO / "clients" / "lsl"
sys.path.insert(0, str(LSL))
import make_oar  # noqa: E402  (clients/lsl/make_oar.py)

SKIP = 77
GROUND = 20.0   # the region's terrain is filled flat at this height
BOARD_AT = (128.0, 128.0, GROUND + 1.0)
# The render script's rotation of a piece, in quarter turns anticlockwise,
# from its attribute (khet_render.lsl, piece()).
TURNS = {"ne": 0, "nw": 1, "sw": 2, "se": 3, "n": 0, "w": 1, "s": 2, "e": 3,
         "/": 0, "\\": 1, "": 0, "1": 0, "2": 0}
# With physical facings (docs/notation.md, "Physical facings") a Pharaoh's
# attribute is the way it faces and a Scarab's or Eye's the way its front
# mirror faces; at rotation zero the textures face north and north-west
# (clients/lsl/README.md), so each quarter turn anticlockwise is the next
# facing anticlockwise.
FACING_TURNS = {"K": {"n": 0, "w": 1, "s": 2, "e": 3},
                "S": {"nw": 0, "sw": 1, "se": 2, "ne": 3},
                "E": {"nw": 0, "sw": 1, "se": 2, "ne": 3}}


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def opensim_tarball():
    """The OpenSimulator tarball: $KHET_OPENSIM_DIR or ../shared/opensim
    beside the checkout. Skip when it, mono or mcs is missing."""
    folder = Path(os.environ.get("KHET_OPENSIM_DIR", REPO.parent / "shared" / "opensim"))
    found = sorted(folder.glob("opensim-*-mono.tar.xz"))
    if not found:
        raise Skip(f"no opensim-*-mono.tar.xz in {folder}: the OpenSimulator "
                   f"tarball lives in shared/opensim beside the checkout "
                   f"(or set KHET_OPENSIM_DIR)")
    for tool in ("mono", "mcs"):
        if shutil.which(tool) is None:
            raise Skip(f"no {tool}: scripts/setup.sh --tests installs Mono "
                       f"(mono-complete)")
    return found[0]


def run_test(main):
    """Runs main() as a test program: exit 0, 1 with FAIL, or SKIP. A
    SIGTERM (ctest's timeout, say) unwinds it too, stopping what it
    started."""
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    try:
        main()
    except Skip as skip:
        print(f"SKIP: {skip}")
        sys.exit(SKIP)
    except (Failure, RegionError, AvatarError) as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        sys.exit(1)


def test_parser(doc):
    """The command line every in-world test takes (--khetd, --scratch,
    --scripts); a test may add its own options before parsing."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--scratch", required=True,
                        help="the test's folder: logs, the OARs, pictures")
    parser.add_argument("--scripts", default=str(LSL),
                        help="where the board's scripts are (default: clients/lsl)")
    return parser


def check_script_errors(*avatars):
    """Failure if a script told one of `avatars` of an error (the debug
    channel)."""
    errors = [line for avatar in avatars
              for line in avatar.call("chat")["lines"] if line["type"] == "debug"]
    if errors:
        raise Failure(f"the scripts reported errors: {errors}")


def print_timings(timings):
    """Prints how long each step took, as every in-world test reports it."""
    print("timings: " + ", ".join(f"{what} {seconds:.1f} s"
                                  for what, seconds in timings))


# ---- How fast a board answers, where it is felt ------------------------------
#
# Each step is timed by the clocks where its two ends happen, all of this
# machine (CLOCK_REALTIME, in Unix seconds): a touch or a dialog's answer
# by avatar.cs as it sends it ("sent"), khetd having a move by the move's
# event (its `time`, stamped as khetd commits it; read from the session's
# event stream, EventWatch), the prims showing something by avatar.cs as
# its copy of each prim changed ("changed", avatar.cs Changes). So the
# figures do not depend on how often the test reads the prims (it reads
# them again as soon as they change, Board.next_prims).

LIT = "piece touch -> its squares lit"
TAKEN = "target touch (or \"Which move?\" answer) -> khetd has the move"
SHOWN = {source: f"khetd has the move -> the pieces show it, moved {source}"
         for source in ("on the board", "from the web", "by the computer")}
WHOLE = ("khetd has the move -> the whole board shows it (pieces, laser, hits, "
         "hover text, edges)")
# Issue 33's targets in OpenSimulator 0.9.2.2 with default throttles:
# (median, max) in seconds; None: no target, printed for information.
TARGETS = {LIT: (0.3, 1.0), TAKEN: (0.5, 2.0),
           SHOWN["on the board"]: (0.5, 1.5), SHOWN["from the web"]: (0.5, 1.5),
           SHOWN["by the computer"]: (0.5, 1.5), WHOLE: None}
# How a move was given to the board: TAKEN's two beginnings.
TOUCHED = "by the target's touch"
ANSWERED = "by the \"Which move?\" answer"
RESOLUTION = ("about 0.01 s: one clock, stamped by avatar.cs as it queues a touch "
              "or an answer (sent within 10 ms) and as it applies each prim's "
              "update, and by khetd as it commits a move")


class Latencies:
    """The figures of the steps above, as a test measured them: add()
    one; print_latencies() sums them up. Threads may share one."""

    def __init__(self):
        self.lock = threading.Lock()
        self.figures = {step: [] for step in TARGETS}  # [(seconds, what, part)]
        self.lags = []      # how long after the avatar had a state the test read it
        self.skipped = []   # figures that could not be taken, and why

    def add(self, step, seconds, what="", part=None):
        """One figure of `step`; `part` (TOUCHED, ANSWERED) tells which
        way it began, where a step may begin two ways."""
        with self.lock:
            self.figures.setdefault(step, []).append((seconds, what, part))

    def lag(self, seconds):
        with self.lock:
            self.lags.append(seconds)

    def skip(self, why):
        with self.lock:
            self.skipped.append(why)

    def write(self, path):
        """The figures as JSON ({step: [[seconds, what, part]...]}), for
        sums over several tests."""
        with self.lock:
            Path(path).write_text(json.dumps(
                {step: figures for step, figures in self.figures.items() if figures},
                indent=1))


def unix_time(stamp):
    """Unix seconds of an RFC 3339 time in UTC ("2026-11-29T03:43:10.924189049Z")."""
    whole, _, fraction = stamp.rstrip("Z").partition(".")
    return (calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) +
            (float("0." + fraction) if fraction else 0.0))


def changed_at(prims, names=None, squares=None, board=None):
    """When the avatar's copy of `prims` last changed (avatar.cs's
    "changed", Unix seconds): of every prim, or of those named in `names`
    ("piece", "mark", ...), or of those standing on `squares` (with
    `board`, which places them)."""
    out = [prim["changed"] for prim in prims
           if (names is None or prim["name"] in names) and
           (squares is None or board.square_of(prims, prim) in squares)]
    return max(out) if out else None


def record_latency(latencies, step, start, end, what, prims=None, part=None):
    """end - start (Unix seconds) into `latencies` as `step` (`part`:
    Latencies.add), and, with `prims` (the read that found the end), how
    long after `end` the test read it; the seconds. None, noted as not
    counted, when either end is unknown or the end came first (the state
    was there already)."""
    if start is None or end is None or end < start:
        latencies.skip(f"{step}, {what}: from {start} to {end}")
        return None
    latencies.add(step, end - start, what, part)
    if prims is not None:
        latencies.lag(prims.now - end)
    return end - start


def print_latencies(latencies):
    """Prints one line per step with its count, median and maximum and
    the target beside them, met or NOT met; never fails the test (timed
    tests flake: the figures are for people to read)."""
    print(f"latencies (resolution: {RESOLUTION}):")
    for step, target in TARGETS.items():
        figures = latencies.figures.get(step, [])
        if not figures:
            print(f"  {step}: n 0 (not measured in this test)")
            continue
        values = [seconds for seconds, _, _ in figures]
        mid, worst = median(values), max(figures, key=lambda figure: figure[0])
        line = (f"  {step}: n {len(values)}, median {mid:.3f} s, max {worst[0]:.3f} s"
                f"{f' ({worst[1]})' if worst[1] else ''}")
        if target is None:
            line += "; no target"
        else:
            missed = [f"{what} above {limit:g} s" for what, value, limit in
                      (("median", mid, target[0]), ("max", worst[0], target[1]))
                      if value > limit]
            line += (f"; target median <= {target[0]:g} s, max <= {target[1]:g} s: " +
                     (f"NOT met ({', '.join(missed)})" if missed else "met"))
        print(line)
        parts = sorted({part for _, _, part in figures if part}, reverse=True)
        if len(parts) > 1:
            print("    " + "; ".join(
                f"{part}: n {len(these)}, median {median(these):.3f} s, max {max(these):.3f} s"
                for part in parts
                for these in [[seconds for seconds, _, p in figures if p == part]]))
    if latencies.lags:
        print(f"  (the test read each state a median {median(latencies.lags):.3f} s, at "
              f"most {max(latencies.lags):.2f} s, after the avatar had it: not part "
              f"of the figures)")
    for why in latencies.skipped:
        print(f"  not counted: {why}")


class EventWatch:
    """khetd's events of one session as they happen: a thread reads its
    event stream (GET /v1/sessions/{id}/events:stream, the full events,
    whose `time` is khetd's commit time) and keeps each event as a dict
    with version, kind (the Event's oneof name: moveMade, ...), time
    (Unix seconds), heard (when the stream brought it, Unix seconds) and
    event (the JSON). A stream that ends (khetd stopped) is opened again
    from the last version heard. wait() waits for an event."""

    KINDS = ("seatChanged", "setupChosen", "gameStarted", "moveMade", "gameOver",
             "gameReset", "drawOffered", "settingsChanged", "sessionDeleted",
             "takebackRequested", "takebackAnswered")

    def __init__(self, khetd, session_id, after=0):
        self.khetd = khetd
        self.session_id = session_id
        self.last = after
        self.events = []
        self.changed = threading.Condition()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopped:
            try:
                url = (f"{self.khetd.url}/v1/sessions/{self.session_id}/events:stream"
                       f"?afterVersion={self.last}")
                with urllib.request.urlopen(url, timeout=30) as stream:
                    data = []
                    for raw in stream:
                        if self.stopped:
                            return
                        line = raw.decode().rstrip("\r\n")
                        if line.startswith("data:"):
                            data.append(line[5:].lstrip())
                        elif not line and data:
                            self._add(json.loads("\n".join(data)))
                            data = []
            except (OSError, ValueError, http.client.HTTPException):
                pass
            time.sleep(0.2)

    def _add(self, event):
        heard = time.time()
        if "error" in event:
            return  # fell behind: the stream ends, and is opened again
        kind = next((k for k in self.KINDS if k in event), "?")
        with self.changed:
            version = int(event["version"])
            if version <= self.last:
                return
            self.events.append(dict(version=version, kind=kind,
                                    time=unix_time(event["time"]), heard=heard,
                                    event=event))
            self.last = version
            self.changed.notify_all()

    def wait(self, check, what, after=0, timeout=30):
        """The first event above version `after` for which check(event)
        holds, waiting for it; Failure after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for event in self.events:
                    if event["version"] > after and check(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    last = [(e["version"], e["kind"]) for e in self.events[-3:]]
                    raise Failure(f"khetd's events never showed {what} after {timeout} s "
                                  f"(the last: {last})")
                self.changed.wait(left)

    def move(self, after, what="a move", timeout=30):
        """The first move event above version `after`, its notation as
        `move`."""
        event = self.wait(lambda e: e["kind"] == "moveMade", what, after, timeout)
        event["move"] = event["event"]["moveMade"]["move"]["notation"]
        return event

    def stop(self):
        self.stopped = True


class Khetd:
    """khetd with its gateway on a free loopback port, an in-memory store.

    Optionally `store="sqlite"`, its database in `folder`/khetd-data, and
    `http_port`, a fixed gateway port (0: a free one). stop(), then
    start_again(): khetd again on the same gateway port and store (the
    log goes on), as a server's operator restarts it."""

    def __init__(self, binary, folder, store="memory", http_port=0):
        self.binary = binary
        self.folder = Path(folder)
        self.store = store
        self.log = open(self.folder / "khetd.log", "w")
        self.watches = []
        self._launch(http_port)

    def _launch(self, http_port):
        command = [self.binary, "--listen", "127.0.0.1:0",
                   "--http_listen", f"127.0.0.1:{http_port}", "--store", self.store]
        if self.store == "sqlite":
            command += ["--data_dir", str(self.folder / "khetd-data")]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=self.log, text=True)
        self.port = None
        deadline = time.monotonic() + 20
        while self.port is None and time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            match = re.search(r"khetd http listening on 127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
        if self.port is None:
            self.stop()
            raise Failure("khetd printed no HTTP address")
        self.url = f"http://127.0.0.1:{self.port}"
        # Whatever else it prints goes to the log, so its pipe never fills.
        self.drain = threading.Thread(target=self.log.writelines,
                                      args=(self.process.stdout,), daemon=True)
        self.drain.start()

    def start_again(self):
        """After stop(): khetd again on the same gateway port and store,
        its log going on; the seconds it took to listen."""
        started = time.monotonic()
        self.log = open(self.folder / "khetd.log", "a")
        self._launch(self.port)
        return time.monotonic() - started

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as answer:
            return json.load(answer)

    def request(self, method, path, body=None, token=None):
        """(HTTP status, answer as JSON) of one request to the gateway,
        errors included; `token` goes as X-Khet-Token."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Khet-Token"] = token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            text = error.read().decode(errors="replace")
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, {"error": {"message": text}}

    def watch(self, session_id, after=0):
        """An EventWatch of the session's events after version `after`,
        stopped with the World."""
        watch = EventWatch(self, session_id, after)
        self.watches.append(watch)
        return watch

    def wait_session(self, name, timeout=30):
        """The compact view of the session a board named `name` made,
        waiting for the board to make it."""
        deadline = time.monotonic() + timeout
        while True:
            ids = [s["id"] for s in self.get("/v1/sessions").get("sessions", [])
                   if s["name"] == name]
            if len(ids) == 1:
                return self.get(f"/v1/sessions/{ids[0]}?view=compact")
            if len(ids) > 1 or time.monotonic() > deadline:
                raise Failure(f"khetd has {len(ids)} sessions named {name!r}")
            time.sleep(0.5)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.port is not None:
            self.drain.join()
        if not self.log.closed:
            self.log.close()


class AvatarError(Exception):
    pass


def build_avatar(bin_dir, folder):
    """Compiles avatar.cs against the region's libOpenMetaverse; the path
    of the program."""
    exe = Path(folder) / "avatar.exe"
    result = subprocess.run(
        ["mcs", "-nologo", "-target:exe", f"-out:{exe}"] +
        [f"-r:{bin_dir / dll}" for dll in
         ("OpenMetaverse.dll", "OpenMetaverseTypes.dll",
          "OpenMetaverse.StructuredData.dll")] + [str(HERE / "avatar.cs")],
        capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"mcs failed on avatar.cs:\n{result.stdout}{result.stderr}")
    return exe


class Avatar:
    """One avatar.cs process; call(cmd, **args) sends a command and
    returns its answer, AvatarError if it failed or did not answer."""

    def __init__(self, exe, bin_dir, log_path):
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            ["mono", str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, text=True, env=dict(os.environ, MONO_PATH=str(bin_dir)))
        self.pending = {}  # id: the queue its answer goes to
        self.ended = False
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        self.chat_cursor = 0
        # Commands are written one at a time; their answers are matched by
        # id (avatar.cs answers `prims` from a thread of its own, so a read
        # waiting for the prims to change holds up no other command).
        self.turn = threading.Lock()

    def _read(self):
        for line in self.process.stdout:
            answer = json.loads(line)
            with self.turn:
                waiting = self.pending.pop(answer.get("id"), None)
            if waiting is not None:
                waiting.put(answer)
        with self.turn:
            self.ended = True
            for waiting in self.pending.values():
                waiting.put(None)
            self.pending.clear()

    def call(self, cmd, **args):
        """Waits for the answer 30 s beyond the command's own timeout.
        Threads may share an avatar."""
        waiting = queue.Queue(1)
        with self.turn:
            if self.ended:
                raise AvatarError(f"{cmd}: the avatar program exited")
            self.next_id += 1
            self.pending[self.next_id] = waiting
            self.process.stdin.write(json.dumps(dict(args, id=self.next_id, cmd=cmd)) + "\n")
            self.process.stdin.flush()
            sent = self.next_id
        limit = args.get("timeout", 0) + args.get("wait", 0) + 30
        try:
            answer = waiting.get(timeout=limit)
        except queue.Empty:
            with self.turn:
                self.pending.pop(sent, None)
            raise AvatarError(f"{cmd}: no answer after {limit} s") from None
        if answer is None:
            raise AvatarError(f"{cmd}: the avatar program exited")
        if not answer["ok"]:
            raise AvatarError(f"{cmd}: {answer['error']}")
        return answer

    def login(self, first, last, password, uri, at):
        return self.call("login", first=first, last=last, password=password,
                         uri=uri, start=f"uri:{REGION_NAME}&{at[0]:g}&{at[1]:g}&{at[2]:g}",
                         timeout=60)

    def dialog(self, message="", timeout=20):
        return self.call("dialog", message=message, timeout=timeout)["dialog"]

    def answer(self, dialog, button):
        """Presses `button` of `dialog` (or types it into an llTextBox);
        when the answer was sent (Unix seconds, avatar.cs's clock)."""
        if button not in dialog["buttons"] and dialog["buttons"] != ["!!llTextBox!!"]:
            raise AvatarError(f"no button {button!r} in {dialog['message']!r}: "
                              f"{dialog['buttons']}")
        return self.call("reply", channel=dialog["channel"], object_id=dialog["object_id"],
                         button=button)["sent"]

    def hear(self, pattern, timeout=30):
        """The next chat line matching `pattern` after the last one heard."""
        answer = self.call("wait_chat", pattern=pattern, after=self.chat_cursor,
                           timeout=timeout)
        self.chat_cursor = answer["cursor"]
        return answer["line"]

    def stop(self):
        if self.process.poll() is None:
            try:
                self.call("logout", timeout=10)
            except (AvatarError, BrokenPipeError):
                pass
            self.process.stdin.close()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class Prims(list):
    """A linkset's prims as avatar.cs answers them (a list, root first),
    with seq, the number of the latest change among them, and now, when
    they were read (Unix seconds, avatar.cs's clock)."""

    def __init__(self, prims, seq, now):
        super().__init__(prims)
        self.seq = seq
        self.now = now


class Board:
    """One board in the region: its linkset (linkset.json) and textures
    (make_oar.py), and what its prims show."""

    def __init__(self, world, name, at):
        self.world = world
        self.name = name
        self.at = at
        self.linkset = world.linkset
        self.grid = self.linkset["root"]["grid"]
        self.prim_count = 1 + sum(g["count"] for g in self.linkset["children"])
        self.letters = {uuid: name for name, (uuid, _) in world.textures.items()}
        self.root = None

    def find(self, avatar, timeout=30):
        roots = avatar.call("find", name=self.name, timeout=timeout)["roots"]
        if len(roots) != 1:
            raise Failure(f"{len(roots)} objects named {self.name!r} in the region")
        self.root = roots[0]

    def prims(self, avatar, timeout=30, after=None, wait=0.0):
        """The linkset's prims as `avatar` has them (avatar.cs `prims`),
        root first: a Prims list. With `after` (a Prims' seq), waits up
        to `wait` s for them to change first."""
        args = dict(root=self.root, expect=self.prim_count, timeout=timeout)
        if after is not None:
            args.update(after=after, wait=wait)
        answer = avatar.call("prims", **args)
        return Prims(answer["prims"], answer["seq"], answer["now"])

    def next_prims(self, avatar, prims, wait=1.0):
        """The prims once they have changed since `prims` were read, or
        after `wait` s: what a loop waiting for them to show something
        reads next, instead of sleeping."""
        return self.prims(avatar, after=prims.seq, wait=wait)

    def refresh(self, avatar):
        """Asks the region to send `avatar` the linkset's prims again in
        full (avatar.cs refresh): what the region holds, should an update
        have been lost on the way."""
        return avatar.call("refresh", root=self.root)["count"]

    def square_st(self, square):
        """The touch coordinates of a square's centre on the grid face."""
        files, ranks = self.grid["files"], self.grid["ranks"]
        return [(files.index(square[0]) + 0.5) / len(files),
                (ranks.index(square[1:]) + 0.5) / len(ranks)]

    def touch_square(self, avatar, square):
        """Touches the board's grid face over `square`, as a viewer does;
        when the touch was sent (Unix seconds, avatar.cs's clock)."""
        s, t = self.square_st(square)
        x, y, z = self.linkset["root"]["size"]
        point = [self.at[0] + (s - 0.5) * x, self.at[1] + (t - 0.5) * y,
                 self.at[2] + z / 2]
        return avatar.call("touch", local_id=self.root, face=self.grid["face"], st=[s, t],
                           pos=point)["sent"]

    def touch_edge(self, avatar):
        """Touches one of the board's sides (face 1), where no square is."""
        avatar.call("touch", local_id=self.root, face=1, st=[0.5, 0.5])

    def menu(self, avatar, *buttons, tries=3):
        """Touches the board's side for its menu and presses `buttons` in
        turn, each in the dialog the previous one opened. The touch is
        repeated while no menu comes (the scripts may still be starting)."""
        for attempt in range(tries):
            self.touch_edge(avatar)
            try:
                dialog = avatar.dialog(timeout=15)
                break
            except AvatarError:
                if attempt == tries - 1:
                    raise
        for button in buttons:
            avatar.answer(dialog, button)
            if button is not buttons[-1]:
                dialog = avatar.dialog()

    def read(self, prims):
        """What the prims show: pieces {square: (letter, side, quarter
        turns, tall)} with side "s"/"r" from the tint, beams [(from, to)]
        as points in the root's frame, marks {square: colour}."""
        root = prims[0]
        size = root["scale"]
        step = size[0] / len(self.grid["files"])
        schemes = self.world.schemes
        pieces, beams, marks = {}, [], {}
        for prim in prims[1:]:
            x, y, z = prim["pos"]
            if z <= 0:
                continue  # parked inside the board
            file = int((x + size[0] / 2) / step)
            rank = int((y + size[1] / 2) / step)
            square = self.grid["files"][file] + self.grid["ranks"][rank]
            face = prim["faces"][0]
            if prim["name"] == "piece":
                letter = self.letters.get(face["texture"], "?")
                side = side_of(face["color"], schemes)
                qz, qw = prim["rot"][2], prim["rot"][3]
                turns = round(2 * math.atan2(qz, qw) / (math.pi / 2)) % 4
                tall = prim["scale"][2] > step * 0.75
                pieces[square] = (letter, side, turns, tall)
            elif prim["name"] == "beam":
                half = [max(0.0, (prim["scale"][i] - prim["scale"][2]) / 2) for i in (0, 1)]
                beams.append(((x - half[0], y - half[1]), (x + half[0], y + half[1])))
            elif prim["name"] == "mark":
                marks[square] = face["color"]
        return pieces, beams, marks

    def wait_pieces(self, avatar, expected, timeout=60):
        """Waits until the piece prims show `expected` ({square: (letter,
        side, turns, tall)}); the last prims read. Failure with the
        difference (and a picture) if they do not."""
        deadline = time.monotonic() + timeout
        prims = self.prims(avatar)
        while True:
            pieces = self.read(prims)[0]
            if pieces == expected:
                return prims
            if time.monotonic() > deadline:
                picture = self.world.folder / f"{self.name.replace(' ', '_')}-mismatch.png"
                self.picture(prims, picture)
                wrong = sorted(set(pieces.items()) ^ set(expected.items()))
                raise Failure(f"{self.name}: the prims do not show the position "
                              f"after {timeout} s; differing (square, shown or "
                              f"expected): {wrong}; picture {picture}")
            prims = self.next_prims(avatar, prims)

    def square_of(self, prims, prim):
        """The square a child prim stands over, as read() finds it; None
        for a prim parked inside the board."""
        x, y, z = prim["pos"]
        if z <= 0:
            return None
        size = prims[0]["scale"]
        step = size[0] / len(self.grid["files"])
        return (self.grid["files"][int((x + size[0] / 2) / step)] +
                self.grid["ranks"][int((y + size[1] / 2) / step)])

    def top_prim(self, prims, square):
        """The prim a viewer's click on `square` from above hits: the
        piece standing there, else the marker lighting it; None when only
        the board's face is there."""
        for name in ("piece", "mark"):
            for prim in prims[1:]:
                if prim["name"] == name and self.square_of(prims, prim) == square:
                    return prim
        return None

    def touch_top(self, avatar, prims, square):
        """Touches `square` as a viewer's click from above does: the piece
        or marker prim on it (its top face, at its centre), or the board's
        grid face; the name of what was touched, and when the touch was
        sent (Unix seconds)."""
        prim = self.top_prim(prims, square)
        if prim is None:
            return "board", self.touch_square(avatar, square)
        x, y, z = prim["region_pos"]
        sent = avatar.call("touch", local_id=prim["local_id"], face=0, st=[0.5, 0.5],
                           pos=[x, y, z + prim["scale"][2] / 2])["sent"]
        return prim["name"], sent

    def laser_beams(self, prims, laser):
        """The beams the render script draws for a compact laser string,
        as read() gives them: one per straight run between two squares'
        centres, the last run of a beam that left the board (N, E, S, W)
        running on to the board's edge; at most as many as there are beam
        prims, in the string's order."""
        size = prims[0]["scale"]
        step = size[0] / len(self.grid["files"])
        count = next(g["count"] for g in self.linkset["children"] if g["name"] == "beam")

        def centre(square):
            return ((self.grid["files"].index(square[0]) + 0.5) * step - size[0] / 2,
                    (self.grid["ranks"].index(square[1]) + 0.5) * step - size[1] / 2)

        out = []
        for beam in laser.rstrip("+").split():
            squares = [beam[i:i + 2] for i in range(0, len(beam) - 1, 2)]
            end = beam[-1]
            if len(squares) == 1:
                squares *= 2  # it left the board from its first square
            for i in range(len(squares) - 1):
                a, z = centre(squares[i]), centre(squares[i + 1])
                if i == len(squares) - 2 and end in "NESW":
                    dx, dy = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}[end]
                    z = (z[0] + dx * step / 2, z[1] + dy * step / 2)
                if a != z:
                    out.append(((min(a[0], z[0]), min(a[1], z[1])),
                                (max(a[0], z[0]), max(a[1], z[1]))))
        return out[:count]

    def picture(self, prims, path, pixels_per_metre=200):
        """Writes a top-down PNG of the board as the region holds it: the
        grid face's texture in its tint, each standing piece's texture
        tinted, turned and scaled as its prim is, beams and markers in
        their colours, the hover text above; and the prims themselves
        beside it as JSON (the same name, .json)."""
        from PIL import Image, ImageDraw, ImageFont  # python3-pil
        root = prims[0]
        sx, sy = root["scale"][0], root["scale"][1]
        margin, header = 20, 30
        width = int(sx * pixels_per_metre) + 2 * margin
        height = int(sy * pixels_per_metre) + 2 * margin + header
        image = Image.new("RGBA", (width, height), (40, 40, 48, 255))
        draw = ImageDraw.Draw(image)

        def px(x, y):
            return (margin + (x + sx / 2) * pixels_per_metre,
                    header + margin + (sy / 2 - y) * pixels_per_metre)

        def rgba(colour):
            return tuple(round(c * 255) for c in colour)

        def textured(uuid, colour, w, h):
            png = self.world.texture_png(uuid)
            tile = (Image.open(io.BytesIO(png)).convert("RGBA") if png else
                    Image.new("RGBA", (64, 64), (255, 255, 255, 255)))
            tile = tile.resize((max(1, round(w)), max(1, round(h))))
            return multiply(tile, Image.new("RGBA", tile.size, rgba(colour)))

        edge = root["faces"][1]["color"]
        draw.rectangle([margin - 8, header + margin - 8, width - margin + 7,
                        height - margin + 7], fill=rgba(edge))
        top = root["faces"][self.grid["face"]]
        board = textured(top["texture"], top["color"], sx * pixels_per_metre,
                         sy * pixels_per_metre)
        image.alpha_composite(board, (margin, header + margin))
        for prim in prims[1:]:
            x, y, z = prim["pos"]
            face = prim["faces"][0]
            if z <= 0 or face["color"][3] == 0:
                continue
            w = prim["scale"][0] * pixels_per_metre
            h = prim["scale"][1] * pixels_per_metre
            angle = math.degrees(2 * math.atan2(prim["rot"][2], prim["rot"][3]))
            if prim["name"] == "piece":
                tile = textured(face["texture"], face["color"], w, h)
            else:
                tile = Image.new("RGBA", (max(1, round(w)), max(1, round(h))),
                                 rgba(face["color"]))
            tile = tile.rotate(angle, expand=True)
            cx, cy = px(x, y)
            image.alpha_composite(tile, (round(cx - tile.width / 2),
                                         round(cy - tile.height / 2)))
        text = root["text"].replace("\n", " | ")
        try:
            font = ImageFont.truetype("DejaVuSans.ttf", 11)
        except OSError:
            # Pillow's own bitmap font has Latin-1 only (no clocks' arrow).
            font = None
            text = text.encode("latin-1", "replace").decode("latin-1")
        draw.text((margin, 8), text, font=font,
                  fill=rgba(root["text_color"][:3] + [1.0]))
        image.convert("RGB").save(path)
        Path(path).with_suffix(".json").write_text(json.dumps(prims, indent=1))
        return path


def multiply(tile, tint):
    """`tile` multiplied by a flat colour, as a viewer tints a texture;
    the tint's alpha becomes the tile's."""
    from PIL import ImageChops
    out = ImageChops.multiply(tile.convert("RGB"), tint.convert("RGB")).convert("RGBA")
    out.putalpha(tint.getchannel("A"))
    return out


def side_of(colour, schemes):
    """"s" or "r": the side whose colour in some scheme the tint is."""
    best = min(((sum((a - b / 255) ** 2 for a, b in zip(colour[:3], rgb)), side)
                for scheme in schemes for side, rgb in scheme), default=(0, "?"))
    return best[1] if best[0] < 0.01 else "?"


# One token of a position's piece field (docs/notation.md), read left to
# right: empty squares, a piece with its attribute, or the end of a rank.
FIELD_TOKEN = re.compile(r"10|[1-9]|[Kk]|[Pp](?:ne|nw|se|sw)|[AaXx][nesw]|"
                         r"[SsEe][/\\]|[Oo][12]|/")
# The same with physical facings (a position ending in " f"): a Pharaoh
# faces n/e/s/w, a Scarab's or Eye's front mirror nw/ne/se/sw.
FACING_TOKEN = re.compile(r"10|[1-9]|[Kk][nesw]|[Pp](?:ne|nw|se|sw)|[AaXx][nesw]|"
                          r"[SsEe](?:ne|nw|se|sw)|[Oo][12]|/")


def expected_pieces(position):
    """{square: (letter, side, quarter turns, tall)} as the render script
    shows a position string (docs/notation.md), with physical facings
    when its fourth field is `f` (FACING_TURNS)."""
    fields = position.split(" ")
    field = fields[0]
    facings = fields[3:4] == ["f"]
    tokens = FACING_TOKEN if facings else FIELD_TOKEN
    out = {}
    rank, file, at = 0, 0, 0
    while at < len(field):
        token = tokens.match(field, at)
        if token is None:
            raise Failure(f"cannot read the position {position!r} at {at}")
        text = token.group(0)
        at = token.end()
        if text == "/":
            rank, file = rank + 1, 0
        elif text[0].isdigit():
            file += int(text)
        else:
            letter, attribute = text[0], text[1:]
            turns = (FACING_TURNS[letter.upper()][attribute]
                     if facings and letter.upper() in FACING_TURNS else TURNS[attribute])
            out["abcdefghij"[file] + "87654321"[rank]] = (
                letter.upper(), "s" if letter.isupper() else "r",
                turns, attribute == "2")
            file += 1
    return out


class World:
    """khetd, a region with a flat ground and boards loaded, and avatars,
    in `folder` (emptied first). timings holds what each step took.
    `khetd_store` is khetd's --store (Khetd: "sqlite" keeps the sessions
    across its restart)."""

    def __init__(self, folder, khetd_binary, scripts=LSL, khetd_store="memory"):
        self.folder = Path(folder)
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        self.khetd_binary = khetd_binary
        self.khetd_store = khetd_store
        self.scripts = Path(scripts)
        self.linkset = make_oar.read_linkset()
        self.textures = make_oar.textures(self.linkset)
        self.timings = {}
        self.latencies = Latencies()
        self.khetd = None
        self.region = None
        self.avatars = []
        self.avatar_exe = None
        self.schemes = []

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        if kind is not None and kind is not Skip:
            self.dump_logs()
            if any(self.latencies.figures.values()):
                print_latencies(self.latencies)  # what was measured before the failure
        # The avatars and khetd at once (which ends the scripts' requests in
        # flight), then the region.
        stops = [avatar.stop for avatar in self.avatars]
        if self.khetd is not None:
            for watch in self.khetd.watches:
                watch.stop()
            stops.append(self.khetd.stop)
        started = time.monotonic()
        with ThreadPoolExecutor(len(stops) or 1) as pool:
            for stopped in [pool.submit(stop) for stop in stops]:
                stopped.result()
        if self.region is not None:
            self.region.stop()
        self.timings["stopped"] = time.monotonic() - started
        if any(self.latencies.figures.values()):
            self.latencies.write(self.folder / "latencies.json")
        if kind is None and self.region is not None and self.region.bin is not None:
            shutil.rmtree(self.region.bin.parent)  # the unpacked server; logs stay
        return False

    def dump_logs(self):
        for name in ("region/region.log", "khetd.log") + tuple(
                f"avatar{i}.log" for i in range(len(self.avatars))):
            path = self.folder / name
            if path.exists():
                lines = path.read_text(errors="replace").splitlines()[-40:]
                print(f"---- {path} (last {len(lines)} lines)", file=sys.stderr)
                print("\n".join(lines), file=sys.stderr)

    def timed(self, what, step, *args):
        started = time.monotonic()
        result = step(*args)
        self.timings[what] = time.monotonic() - started
        return result

    def start(self):
        """khetd, then the region unpacked, configured to let scripts reach
        khetd and started, while the avatar program compiles; the ground
        filled flat."""
        tarball = opensim_tarball()
        self.khetd = self.timed("khetd", Khetd, self.khetd_binary, self.folder,
                                self.khetd_store)
        self.schemes = [[("s", (s["silver"]["r"], s["silver"]["g"], s["silver"]["b"])),
                         ("r", (s["red"]["r"], s["red"]["g"], s["red"]["b"]))]
                        for s in self.khetd.get("/v1/colorSchemes")["schemes"]]
        self.region = Region(tarball, self.folder / "region", [self.khetd.port])
        self.timings["unpack"] = self.region.unpack()
        self.region.configure()
        with ThreadPoolExecutor(1) as pool:
            compiled = pool.submit(build_avatar, self.region.bin, self.folder)
            self.timings["logins enabled"] = self.region.start()
            self.avatar_exe = compiled.result()
        self.region.command(f"terrain fill {GROUND}")

    def board_oar(self, name, at, debug=False):
        """Writes the OAR of a board named `name` at `at`; its path."""
        path = self.folder / f"{name.replace(' ', '_')}.oar"
        files = make_oar.board_files(self.linkset, self.khetd.url, debug, at, name,
                                     self.scripts, self.textures)
        make_oar.write_oar(files, path)
        return path

    def add_board(self, name=None, at=BOARD_AT, debug=False):
        """Loads a board into the region (merged with what is there); its
        Board. RegionError if a script does not compile."""
        name = name or self.linkset["root"]["name"]
        path = self.board_oar(name, at, debug)
        self.timings.setdefault("oar loaded", self.region.load_oar(path))
        return Board(self, name, at)

    def avatar(self, first=OWNER[0], last=OWNER[1], password=PASSWORD,
               at=(BOARD_AT[0], BOARD_AT[1] - 3, GROUND + 1)):
        """Logs an avatar in near the board (the estate owner, who owns
        the boards, by default); a user other than the owner is created
        first."""
        if (first, last) != OWNER:
            self.region.create_user(first, last, password)
        avatar = Avatar(self.avatar_exe, self.region.bin,
                        self.folder / f"avatar{len(self.avatars)}.log")
        self.avatars.append(avatar)
        avatar.credentials = (first, last, password, at)
        started = time.monotonic()
        avatar.login(first, last, password, self.region.login_uri, at)
        self.timings.setdefault("login", time.monotonic() - started)
        return avatar

    def log_in_again(self, avatar):
        """The same avatar (an Avatar this World logged in) logged in
        again with a fresh avatar.cs process, as after the region
        restarted: the old process is stopped, the new one logs in where
        the first did; its log is avatar<N>-<M>.log. What the old one heard
        is gone (chat cursor 0, no dialogs)."""
        avatar.stop()
        first, last, password, at = avatar.credentials
        index = self.avatars.index(avatar)
        again = 1 + sum(1 for _ in self.folder.glob(f"avatar{index}-*.log"))
        avatar.__init__(self.avatar_exe, self.region.bin,
                        self.folder / f"avatar{index}-{again}.log")
        avatar.credentials = (first, last, password, at)
        avatar.login(first, last, password, self.region.login_uri, at)
        return avatar

    def texture_png(self, uuid):
        """The PNG (bytes) of the texture `uuid` the OARs carry, or None."""
        for _, (asset, png) in self.textures.items():
            if asset == uuid:
                return png
        return None
