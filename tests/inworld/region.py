# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""An OpenSimulator standalone region in a scratch folder, driven through
its console (`mono OpenSim.exe -console=basic` reads commands on stdin).

Region(tarball, folder, script_ports=[8080]) unpacks the server into
`folder`, writes its configuration on free loopback ports and lets scripts
reach 127.0.0.1 on `script_ports` (nothing else private); start() waits for
LOGINS ENABLED, stop() quits it (killing it on timeout) and start() again
restarts the same region from the same folder. Everything the server prints
goes to `folder`/region.log. RegionError carries the reason and the log's
tail.
"""

import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

REGION_NAME = "Khet"
REGION_ID = "6b686574-0000-4000-8000-000000000001"
OWNER = ("Khet", "Owner")
OWNER_ID = "6b686574-0000-4000-8000-00000000000a"
PASSWORD = "khet-secret"
# How YEngine reports a script that does not compile: a line "compile error
# on ...", then lines "- <pos> Object:script" and "- (299,4) Error: ...".
COMPILE_ERROR = re.compile(r"\[YEngine\]: (compile error|- )")
# A row of `yeng ls`: item id, CPU ms, events, status, <x, y, z>, part:item.
SCRIPT_ROW = re.compile(r"\[YEngine\]: ([0-9a-f-]{36}) +\S+ +\d+ +(\S+) +"
                        r"(<[^>]*>) +(.*):(.*)$")


class RegionError(Exception):
    pass


def free_port():
    """A port free on 127.0.0.1 for both TCP and UDP (OpenSim's region
    listens on UDP, its HTTP server on TCP)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                    udp.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


class Region:
    def __init__(self, tarball, folder, script_ports=()):
        self.tarball = Path(tarball)
        self.folder = Path(folder)
        self.script_ports = list(script_ports)
        self.bin = None
        self.http_port = None
        self.udp_port = None
        self.process = None
        self.lines = []
        self.changed = threading.Condition()
        self.log = None

    @property
    def login_uri(self):
        return f"http://127.0.0.1:{self.http_port}/"

    def unpack(self):
        """Unpacks the server's tree (bin/ is the whole server) into the
        folder; returns the seconds it took."""
        started = time.monotonic()
        self.folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "xJf", str(self.tarball), "-C", str(self.folder)],
                       check=True)
        found = sorted(self.folder.glob("*/bin/OpenSim.exe"))
        if not found:
            raise RegionError(f"{self.tarball} holds no */bin/OpenSim.exe")
        self.bin = found[0].parent
        return time.monotonic() - started

    def configure(self):
        """Writes OpenSim.ini, the standalone services' settings and one
        region, on fresh free ports."""
        self.http_port = free_port()
        self.udp_port = free_port()
        while self.udp_port == self.http_port:
            self.udp_port = free_port()
        allowed = "|".join(f"127.0.0.1:{port}" for port in self.script_ports)
        (self.bin / "OpenSim.ini").write_text(f"""\
[Const]
    BaseHostname = "127.0.0.1"
    BaseURL = http://${{Const|BaseHostname}}
    PublicPort = "{self.http_port}"
    PrivURL = ${{Const|BaseURL}}
    PrivatePort = "{self.http_port}"
[Startup]
    physics = ubODE
    meshing = ubODEMeshmerizer
[Map]
    GenerateMaptiles = false
[Estates]
    DefaultEstateName = Khet Estate
    DefaultEstateOwnerName = {OWNER[0]} {OWNER[1]}
    DefaultEstateOwnerUUID = {OWNER_ID}
    DefaultEstateOwnerEMail = owner@khet.invalid
    DefaultEstateOwnerPassword = {PASSWORD}
[Network]
    http_listener_port = {self.http_port}
    ExternalHostNameForLSL = 127.0.0.1
    OutboundDisallowForUserScriptsExcept = {allowed}
[Permissions]
    allow_grid_gods = true
[OSSL]
    Include-osslDefaultEnable = "config-include/osslDefaultEnable.ini"
[Architecture]
    Include-Architecture = "config-include/Standalone.ini"
""")
        common = self.bin / "config-include" / "StandaloneCommon.ini"
        common.write_text((common.parent / "StandaloneCommon.ini.example").read_text())
        regions = self.bin / "Regions"
        regions.mkdir(exist_ok=True)
        (regions / "Regions.ini").write_text(f"""\
[{REGION_NAME}]
    RegionUUID = {REGION_ID}
    Location = 1000,1000
    InternalAddress = 127.0.0.1
    InternalPort = {self.udp_port}
    AllowAlternatePorts = False
    ExternalHostName = 127.0.0.1
""")

    def start(self, timeout=180):
        """Starts the server and waits for LOGINS ENABLED; returns the
        seconds that took."""
        started = time.monotonic()
        self.log = open(self.folder / "region.log", "a")
        self.process = subprocess.Popen(
            ["mono", "OpenSim.exe", "-console=basic"], cwd=self.bin,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, errors="replace",
            start_new_session=True)
        threading.Thread(target=self._read, args=(self.process,),
                         daemon=True).start()
        self.wait_for(r"LOGINS ENABLED", timeout, since=len(self.lines))
        return time.monotonic() - started

    def _read(self, process):
        for line in process.stdout:
            self.log.write(line)
            self.log.flush()
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def running(self):
        return self.process is not None and self.process.poll() is None

    def cursor(self):
        """Where the log stands now: wait_for(..., since=cursor()) sees
        only what comes after."""
        with self.changed:
            return len(self.lines)

    def wait_for(self, pattern, timeout, since=0):
        """The first log line at or after `since` matching `pattern` (a
        regex), as a match; RegionError on timeout or if the server exits."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        at = since
        with self.changed:
            while True:
                for line in self.lines[at:]:
                    match = regex.search(line)
                    if match:
                        return match
                at = len(self.lines)
                if not self.running():
                    raise RegionError(f"the region exited while waiting for "
                                      f"{pattern!r}\n{self.tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RegionError(f"no {pattern!r} in the region's log "
                                      f"after {timeout} s\n{self.tail()}")
                self.changed.wait(min(left, 1.0))

    def tail(self, count=40):
        with self.changed:
            return "\n".join(self.lines[-count:])

    def command(self, line):
        """Types one line on the region's console."""
        if not self.running():
            raise RegionError(f"the region is not running for {line!r}")
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def create_user(self, first, last, password, timeout=60):
        """`create user`, answering its prompts (first, last, password,
        e-mail, UUID, model) on stdin."""
        since = self.cursor()
        self.command("create user")
        for answer in (first, last, password, f"{first}.{last}@khet.invalid",
                       "", ""):
            self.command(answer)
        self.wait_for(rf"Account {first} {last} \S+ created successfully",
                      timeout, since)

    def load_oar(self, path, merge=True, timeout=120):
        """`load oar [--merge] PATH`; waits until the region has started
        the archive's scripts (compiling them). Returns the seconds that
        took; RegionError when the load fails or a script does not compile,
        with YEngine's messages."""
        started = time.monotonic()
        since = self.cursor()
        self.command(f"load oar {'--merge ' if merge else ''}{path}")
        ended = self.wait_for(r"\[ARCHIVER\]: (Start scripts done|Aborting.*|"
                              r"Failed.*|.*[Ee]rror.*)", timeout, since)
        errors = self.compile_errors(since)
        if ended.group(1) != "Start scripts done" or errors:
            raise RegionError(f"loading {path}: {ended.group(0)}\n" +
                              "\n".join(errors))
        return time.monotonic() - started

    def scripts(self, timeout=30):
        """The scripts YEngine runs, as `yeng ls` lists them: dicts of
        item (id), status, at (region position), part and name."""
        since = self.cursor()
        self.command("yeng ls")
        self.wait_for(r"\[YEngine\]: total of \d+ script", timeout, since)
        with self.changed:
            rows = [SCRIPT_ROW.search(line) for line in self.lines[since:]]
        return [dict(zip(("item", "status", "at", "part", "name"), row.groups()))
                for row in rows if row]

    def compile_errors(self, since=0):
        """The log lines since `since` that report a script not compiling."""
        with self.changed:
            return [line for line in self.lines[since:]
                    if COMPILE_ERROR.search(line)]

    def stop(self, timeout=60, grace=5):
        """`quit`; waits until the server says it has shut down (its state
        saved) and exits. A server still running `grace` s after saying so
        (Mono may wait on a thread of a request in flight), or silent for
        `timeout` s, is killed with its process group."""
        if self.process is None:
            return
        try:
            if self.running():
                since = self.cursor()
                self.command("quit")
                self.wait_for(r"Shutdown processing on main thread complete",
                              timeout, since)
            self.process.wait(timeout=grace)
        except (subprocess.TimeoutExpired, BrokenPipeError, RegionError):
            self.kill()
        finally:
            self.process.wait()
            self.process = None
            self.log.close()

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
