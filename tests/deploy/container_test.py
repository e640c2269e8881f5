#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""deploy/Dockerfile and deploy/compose.yaml built and run for real, with
Debian's podman as root (no daemon, no Docker Hub):

1. base: a bookworm image made with debootstrap (minbase) from the Debian
   mirror this machine's apt uses, its apt sources this machine's bookworm
   suites; imported once as localhost/khet-test-debian:bookworm and kept.
2. images: deploy/Dockerfile built unchanged from the repository root with
   that image as BUILD_BASE and RUNTIME_BASE; the test-only stand-ins for
   Docker Hub's postgres and nginx (tests/deploy/postgres, tests/deploy/nginx)
   built on it too. Images are kept, so an unchanged tree rebuilds from
   podman's layer cache.
3. container: the image run with its ports published on 127.0.0.1 (free
   ports) and a named volume on /var/lib/khet; healthy by its own
   HEALTHCHECK (khetctl health: SERVING); the host's khetctl plays a whole
   game khet-engine played (a Pharaoh hit); stopped and started again on the
   same volume, the session is still there, finished, at the same version.
4. compose: the services of deploy/compose.yaml started the way compose
   would (its network and subnet, nginx's fixed address, the replicas,
   volumes, healthchecks awaited for depends_on, commands, limits), the
   stand-ins in place of the two Docker Hub images and every published port
   on 127.0.0.1; a game through nginx, one replica stopped half-way, the game
   played on and read through nginx.

Every container, network and volume made is removed at the end, also on a
failure. Prints how long each phase took. Exit 0 when all passes, 1 on the
first failure, 77 when podman cannot run here (not installed, not root, the
mirror unreachable for debootstrap).
"""

import argparse
import contextlib
import glob
import ipaddress
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import yaml

SKIP = 77
BASE_IMAGE = "localhost/khet-test-debian:bookworm"
KHETD_IMAGE = "localhost/khetd:khet-test"
# compose.yaml's Docker Hub images and the stand-ins that take their place.
STAND_INS = {
    "postgres:15-bookworm": ("localhost/khet-test-postgres:15", "postgres"),
    "nginx:stable-bookworm": ("localhost/khet-test-nginx:bookworm", "nginx"),
}
HERE = os.path.dirname(os.path.abspath(__file__))
# Every object the test makes carries this label (and a name of its run).
LABEL = "io.khet.test=container_test"
# The longest a container may take to become healthy.
HEALTHY_WITHIN = 120


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, timeout=300, check_status=True, **kwargs):
    """Runs `command`; its stdout, or Failure naming its output."""
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise Failure(f"{shlex.join(command)} took over {timeout} s")
    if check_status and result.returncode != 0:
        raise Failure(f"{shlex.join(command)} exited {result.returncode}:\n"
                      f"{result.stdout}{result.stderr}")
    return result.stdout


def podman(*args, timeout=300, check_status=True):
    return run(["podman", *args], timeout=timeout, check_status=check_status)


def podman_ok(*args, timeout=60):
    return subprocess.run(["podman", *args], capture_output=True,
                          timeout=timeout).returncode == 0


class Phases:
    """Prints each phase's name as it starts and its time when it ends."""

    def __init__(self):
        self.times = []

    @contextlib.contextmanager
    def __call__(self, name):
        print(f"--- {name}", flush=True)
        start = time.monotonic()
        try:
            yield
        finally:
            seconds = time.monotonic() - start
            self.times.append((name, seconds))
            print(f"--- {name}: {seconds:.0f} s", flush=True)

    def summary(self):
        print("phase times:")
        for name, seconds in self.times:
            print(f"  {name:<44} {seconds:6.0f} s")


# ---- 1. The base image -----------------------------------------------------


def debian_sources():
    """This machine's apt entries whose suites are all bookworm's, as
    (uri, suites, components): deb822 .sources and one-line .list files."""
    entries = []
    files = ["/etc/apt/sources.list"] + sorted(
        glob.glob("/etc/apt/sources.list.d/*.list") +
        glob.glob("/etc/apt/sources.list.d/*.sources"))
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if path.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                fields = {}
                for line in stanza.splitlines():
                    match = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
                    if match:
                        fields[match.group(1).lower()] = match.group(2).split()
                if "deb" in fields.get("types", []) and \
                        fields.get("enabled", ["yes"]) != ["no"]:
                    for uri in fields.get("uris", []):
                        entries.append((uri, fields.get("suites", []),
                                        fields.get("components", [])))
        else:
            for line in text.splitlines():
                words = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
                if len(words) >= 3 and words[0] == "deb":
                    entries.append((words[1], [words[2]], words[3:]))
    return [(uri, suites, components) for uri, suites, components in entries
            if suites and all(s.startswith("bookworm") for s in suites)]


def reachable(uri):
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/dists/bookworm/Release",
                                    timeout=15) as answer:
            return answer.status == 200
    except OSError:
        return False


def base_image(build):
    """The debootstrap image, made unless it exists."""
    if podman_ok("image", "exists", BASE_IMAGE):
        print(f"    {BASE_IMAGE} exists (cached)")
        return
    if shutil.which("debootstrap", path="/usr/sbin:/usr/bin:/sbin:/bin") is None:
        raise Skip("debootstrap is not installed (scripts/setup.sh --deploy)")
    sources = debian_sources()
    mirrors = [uri for uri, suites, _ in sources if "bookworm" in suites]
    if not mirrors:
        raise Skip("this machine's apt sources name no bookworm mirror")
    if not reachable(mirrors[0]):
        raise Skip(f"the Debian mirror {mirrors[0]} cannot be reached")
    folder = os.path.join(build, "deploy", "container-test")
    rootfs = os.path.join(folder, "rootfs")
    # A folder left by an interrupted run is made again.
    shutil.rmtree(rootfs, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    print(f"    debootstrap --variant=minbase bookworm from {mirrors[0]}")
    run(["nice", "-n", "10", "debootstrap", "--variant=minbase", "bookworm",
         rootfs, mirrors[0]], timeout=1800)
    with open(os.path.join(rootfs, "etc/apt/sources.list"), "w",
              encoding="utf-8") as f:
        for uri, suites, components in sources:
            for suite in suites:
                f.write(f"deb {uri} {suite} {' '.join(components)}\n")
    tar = subprocess.Popen(["tar", "-C", rootfs, "-c", "."],
                           stdout=subprocess.PIPE)
    imported = subprocess.run(["podman", "import", "-", BASE_IMAGE],
                              stdin=tar.stdout, capture_output=True, text=True)
    tar.stdout.close()
    check(tar.wait() == 0 and imported.returncode == 0,
          f"podman import failed: {imported.stderr}")
    shutil.rmtree(rootfs)


# ---- 2. The images ---------------------------------------------------------


def build_image(tag, dockerfile, context, build_args):
    """podman build (docker format, which keeps HEALTHCHECK); an earlier
    image of the tag that the build replaced is removed."""
    before = podman("image", "inspect", "--format", "{{.Id}}", tag,
                    check_status=False).strip()
    command = ["nice", "-n", "10", "podman", "build", "--format", "docker",
               "-f", dockerfile, "-t", tag]
    for name, value in build_args.items():
        command += ["--build-arg", f"{name}={value}"]
    started = time.monotonic()
    # Its output goes straight through: the khetd build takes many minutes.
    try:
        status = subprocess.run(command + [context], timeout=5400).returncode
    except subprocess.TimeoutExpired:
        raise Failure(f"podman build of {tag} took over 5400 s")
    check(status == 0, f"podman build of {tag} exited {status}")
    after = podman("image", "inspect", "--format", "{{.Id}}", tag).strip()
    state = "cached" if after == before else "built"
    print(f"    {tag}: {state} in {time.monotonic() - started:.0f} s")
    if before and after != before:
        podman("rmi", before, check_status=False)


def images(source):
    base = {"BUILD_BASE": BASE_IMAGE, "RUNTIME_BASE": BASE_IMAGE}
    build_image(KHETD_IMAGE, os.path.join(source, "deploy/Dockerfile"), source,
                base)
    for image, folder in STAND_INS.values():
        build_image(image, os.path.join(HERE, folder, "Dockerfile"),
                    os.path.join(HERE, folder), {"BASE": BASE_IMAGE})
    image = json.loads(podman("image", "inspect", KHETD_IMAGE))[0]
    check((image.get("Healthcheck") or {}).get("Test"),
          "the khetd image has no HEALTHCHECK")
    check(image["Config"].get("User") == "10001:10001",
          f"the khetd image runs as {image['Config'].get('User')!r}")


# ---- Objects the test makes --------------------------------------------------


class Objects:
    """The containers, networks and volumes of this run, removed at the end
    (containers first, with their anonymous volumes)."""

    def __init__(self):
        self.run = f"khet-test-{os.getpid()}"
        self.containers = []
        self.networks = []
        self.volumes = []

    def name(self, suffix):
        return f"{self.run}-{suffix}"

    def volume(self, suffix):
        name = self.name(suffix)
        podman("volume", "create", "--label", LABEL, name)
        self.volumes.append(name)
        return name

    def network(self, suffix, options):
        name = self.name(suffix)
        podman("network", "create", "--label", LABEL, *options, name)
        self.networks.append(name)
        return name

    def container(self, suffix, options, image, command=()):
        name = self.name(suffix)
        self.containers.append(name)
        podman("run", "-d", "--name", name, "--label", LABEL, *options, image,
               *command)
        return name

    def remove(self):
        problems = []
        for args in ([["rm", "-f", "-v", "-t", "10", c] for c in self.containers]
                     + [["network", "rm", "-f", n] for n in self.networks]
                     + [["volume", "rm", "-f", v] for v in self.volumes]):
            result = subprocess.run(["podman", *args], capture_output=True,
                                    text=True, timeout=120)
            if result.returncode != 0 and "no such" not in result.stderr.lower():
                problems.append(f"podman {' '.join(args)}: {result.stderr}")
        left = podman("ps", "-a", "--filter", f"label={LABEL}",
                      "--format", "{{.Names}}", check_status=False).split()
        left += podman("volume", "ls", "--filter", f"label={LABEL}", "--format",
                       "{{.Name}}", check_status=False).split()
        left += [n for n in podman("network", "ls", "--format", "{{.Name}}",
                                   check_status=False).split()
                 if n.startswith(self.run)]
        mine = [n for n in left if n.startswith(self.run)]
        if mine:
            problems.append(f"left behind: {' '.join(mine)}")
        return problems


def published(container, port):
    """The 127.0.0.1 address of a container port published on the host."""
    text = podman("port", container, f"{port}/tcp").strip().splitlines()
    check(text and text[0].startswith("127.0.0.1:"),
          f"{container}'s port {port} is published on {text}, not 127.0.0.1")
    return text[0]


def wait_healthy(container):
    """Runs the container's healthcheck until it passes (podman has no
    systemd here to run it on its interval), then reads the state podman
    keeps: healthy."""
    deadline = time.monotonic() + HEALTHY_WITHIN
    while True:
        if podman_ok("healthcheck", "run", container):
            break
        state = json.loads(podman("inspect", container))[0]["State"]
        if not state.get("Running"):
            raise Failure(f"{container} stopped ({state.get('Status')}, exit "
                          f"{state.get('ExitCode')}):\n"
                          + podman("logs", "--tail", "30", container,
                                   check_status=False))
        if time.monotonic() > deadline:
            raise Failure(f"{container} not healthy within {HEALTHY_WITHIN} s:"
                          f" {state.get('Health')}\n"
                          + podman("logs", "--tail", "30", container,
                                   check_status=False))
        time.sleep(1)
    state = json.loads(podman("inspect", container))[0]["State"]
    health = state.get("Health") or state.get("Healthcheck") or {}
    check(health.get("Status") == "healthy",
          f"{container}'s health is {health.get('Status')!r} after a passing "
          "check")


# ---- Games -----------------------------------------------------------------


def decisive_game(engine):
    """A demonstration game of khet-engine ending in a Pharaoh hit within 60
    plies: its setup, moves ((colour, move) pairs) and result."""
    for seed in range(1, 40):
        for setup in ("classic-2", "imhotep-2", "dynasty-2"):
            text = run([engine, "play", "--setup", setup, "--seed", str(seed),
                        "--delay-ms", "0"])
            moves = re.findall(r"^ply \d+: (Silver|Red) plays (\S+)$", text,
                               re.MULTILINE)
            result = text.split()[-1]
            if result in ("1-0", "0-1") and len(moves) <= 60:
                return setup, moves, result
    raise Failure("khet-engine played no decisive game of 60 plies or less")


class Game:
    """A game khetctl plays on a khetd at `target`."""

    def __init__(self, khetctl, engine, target, name):
        self.khetctl = khetctl
        self.target = target
        self.setup, self.moves, self.result = decisive_game(engine)
        self.played = 0
        created = self.ctl("create", "--name", name, "--setup", self.setup)
        self.session = created["session"]["id"]
        self.tokens = {}
        for color in ("silver", "red"):
            joined = self.ctl("join", self.session, "--name", color,
                              "--color", color)
            self.tokens[joined["color"]] = joined["playerToken"]

    def ctl(self, *args):
        return json.loads(run([self.khetctl, "--server", self.target, "--json",
                               *args], timeout=60) or "{}")

    def play(self, plies):
        """Plays the next `plies` moves (all that are left at most)."""
        for color, move in self.moves[self.played:self.played + plies]:
            self.ctl("move", self.session, move, "--token",
                     self.tokens[color.upper()])
            self.played += 1

    def get(self):
        return self.ctl("get", self.session)

    def check_finished(self):
        session = self.get()
        expected = "SILVER_WINS" if self.result == "1-0" else "RED_WINS"
        check(session.get("status") == "FINISHED" and
              session.get("result", {}).get("outcome") == expected and
              session.get("result", {}).get("reason") == "PHARAOH_HIT",
              f"after {self.setup}'s {len(self.moves)} plies khetd says "
              f"{session.get('status')} {session.get('result')}, the engine "
              f"{self.result} by a Pharaoh hit")
        return session


# ---- 3. One container ------------------------------------------------------


def one_container(objects, khetctl, engine):
    volume = objects.volume("data")
    options = ["-p", "127.0.0.1::50051", "-p", "127.0.0.1::8080",
               "-v", f"{volume}:/var/lib/khet"]
    container = objects.container("khetd", options, KHETD_IMAGE)
    wait_healthy(container)
    target = published(container, 50051)
    http = published(container, 8080)
    with urllib.request.urlopen(f"http://{http}/v1/setups", timeout=10) as r:
        check(r.status == 200, f"GET /v1/setups answered {r.status}")
    game = Game(khetctl, engine, target, "container test")
    game.play(len(game.moves))
    before = game.check_finished()
    print(f"    {game.setup}: {len(game.moves)} plies, {game.result}, on "
          f"{target}; session {game.session} version {before.get('version')}")

    podman("stop", "-t", "20", container)
    state = json.loads(podman("inspect", container))[0]["State"]
    check(state.get("ExitCode") == 0,
          f"khetd exited {state.get('ExitCode')} on SIGTERM")
    podman("start", container)
    wait_healthy(container)
    game.target = published(container, 50051)
    after = game.check_finished()
    check(after.get("version") == before.get("version"),
          f"after the restart the session is at version {after.get('version')}"
          f", before it at {before.get('version')}")
    print(f"    restarted on the same volume: session {game.session} finished, "
          f"version {after.get('version')}")


# ---- 4. compose.yaml -------------------------------------------------------


def interpolate(value, environment):
    """Compose's variables: $$, ${NAME}, ${NAME:?message}, ${NAME:-default}."""
    def replace(match):
        if match.group(0) == "$$":
            return "$"
        name, operator, argument = match.group(1), match.group(2), match.group(3)
        present = environment.get(name, "")
        if operator == ":?" and not present:
            raise Failure(f"compose: {name} is unset: {argument}")
        if operator == ":-" and not present:
            return argument
        return present
    if isinstance(value, str):
        return re.sub(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:\?|:-)([^}]*))?\}",
                      replace, value)
    if isinstance(value, list):
        return [interpolate(v, environment) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, environment) for k, v in value.items()}
    return value


def seconds(duration):
    """A compose duration ("5s", "1m30s", 10) in whole seconds."""
    if isinstance(duration, (int, float)):
        return int(duration)
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", str(duration))
    check(parts and duration, f"compose: a duration podman is not given: "
          f"{duration!r}")
    return int(parts.group(1) or 0) * 60 + int(parts.group(2) or 0)


# The service keys the test turns into podman options; any other stops it,
# so that compose.yaml cannot gain a setting the test silently drops.
KNOWN_KEYS = {"image", "build", "environment", "volumes", "healthcheck",
              "restart", "deploy", "command", "depends_on", "stop_grace_period",
              "ports", "read_only", "tmpfs", "cap_drop", "security_opt",
              "networks"}


class Compose:
    """deploy/compose.yaml's services as podman containers."""

    def __init__(self, objects, source, environment):
        path = os.path.join(source, "deploy/compose.yaml")
        self.folder = os.path.dirname(path)
        with open(path, encoding="utf-8") as f:
            self.spec = interpolate(yaml.safe_load(f), environment)
        self.objects = objects
        self.source = source
        self.containers = {}
        self.volumes = {}
        self.network = None
        # Addresses for the containers compose gives none.
        self.dynamic = iter(())

    def make_network(self):
        networks = self.spec.get("networks", {})
        check(set(networks) <= {"default"},
              f"compose: networks the test does not make: {sorted(networks)}")
        options = []
        for pool in (networks.get("default") or {}).get("ipam", {}).get(
                "config", []):
            options += ["--subnet", pool["subnet"]]
            # podman 4.3 records the range but allocates from the whole
            # subnet, so the test hands out the range's addresses itself,
            # as Docker's allocator would.
            if "ip_range" in pool:
                options += ["--ip-range", pool["ip_range"]]
                self.dynamic = ipaddress.ip_network(pool["ip_range"]).hosts()
        self.network = self.objects.network("default", options)
        for name in self.spec.get("volumes", {}):
            self.volumes[name] = self.objects.volume(name)

    def options(self, service, spec):
        unknown = set(spec) - KNOWN_KEYS
        check(not unknown, f"compose: {service} has keys the test does not "
              f"turn into podman options: {sorted(unknown)}")
        options = ["--network", self.network, "--network-alias", service]
        address = (((spec.get("networks") or {}).get("default") or {})
                   .get("ipv4_address"))
        address = address or next(self.dynamic, None)
        if address:
            options += ["--ip", str(address)]
        environment = spec.get("environment") or {}
        if isinstance(environment, list):
            environment = dict(e.split("=", 1) for e in environment)
        for name, value in environment.items():
            options += ["-e", f"{name}={value}"]
        for volume in spec.get("volumes", []):
            origin, rest = volume.split(":", 1)
            if origin.startswith("."):
                origin = os.path.normpath(os.path.join(self.folder, origin))
                check(os.path.exists(origin), f"compose: {origin} is missing")
            else:
                origin = self.volumes[origin]
            options += ["-v", f"{origin}:{rest}"]
        # Every published port on 127.0.0.1, on a free port of the host's.
        for port in spec.get("ports", []):
            options += ["-p", f"127.0.0.1::{str(port).rsplit(':', 1)[-1]}"]
        health = spec.get("healthcheck")
        if health:
            test = health["test"]
            check(test[0] in ("CMD", "CMD-SHELL"),
                  f"compose: {service}'s healthcheck test {test}")
            # podman 4.3 takes an exec form as one string run by sh -c.
            options += ["--health-cmd", shlex.join(test[1:])
                        if test[0] == "CMD" else test[1]]
            for key in ("interval", "timeout"):
                if key in health:
                    options += [f"--health-{key}", f"{seconds(health[key])}s"]
            if "retries" in health:
                options += ["--health-retries", str(health["retries"])]
        if "restart" in spec:
            options += ["--restart", spec["restart"]]
        if "stop_grace_period" in spec:
            options += ["--stop-timeout",
                        str(seconds(spec["stop_grace_period"]))]
        if spec.get("read_only"):
            options.append("--read-only")
        for path in spec.get("tmpfs", []):
            options += ["--tmpfs", path]
        for capability in spec.get("cap_drop", []):
            options += ["--cap-drop", capability]
        for option in spec.get("security_opt", []):
            options += ["--security-opt", option]
        return options

    def image(self, service, spec):
        if "build" in spec:
            build = spec["build"]
            context = os.path.normpath(os.path.join(self.folder,
                                                    build["context"]))
            check(context == os.path.normpath(self.source) and
                  build["dockerfile"] == "deploy/Dockerfile",
                  f"compose: {service} is built otherwise than the test's "
                  f"image: {build}")
            return KHETD_IMAGE
        check(spec["image"] in STAND_INS,
              f"compose: {service}'s image {spec['image']} has no stand-in")
        return STAND_INS[spec["image"]][0]

    def order(self):
        services = self.spec["services"]
        done, order = set(), []
        while len(order) < len(services):
            ready = [s for s in services if s not in done and
                     set(services[s].get("depends_on") or []) <= done]
            check(ready, "compose: depends_on has a cycle")
            order.append(ready[0])
            done.add(ready[0])
        return order

    def up(self):
        self.make_network()
        for service in self.order():
            spec = self.spec["services"][service]
            for dependency, condition in (spec.get("depends_on") or {}).items():
                if condition.get("condition") == "service_healthy":
                    for container in self.containers[dependency]:
                        wait_healthy(container)
            command = spec.get("command", [])
            if isinstance(command, str):
                command = shlex.split(command)
            replicas = (spec.get("deploy") or {}).get("replicas", 1)
            self.containers[service] = [
                self.objects.container(f"{service}-{n}",
                                       self.options(service, spec),
                                       self.image(service, spec), command)
                for n in range(1, replicas + 1)]
            print(f"    {service}: {', '.join(self.containers[service])}")


def compose(objects, source, khetctl, engine):
    environment = dict(os.environ, KHET_DB_PASSWORD=secrets.token_hex(12))
    deployment = Compose(objects, source, environment)
    deployment.up()
    for container in deployment.containers["nginx"]:
        wait_healthy_or_running(container)
    nginx = deployment.containers["nginx"][0]
    target = published(nginx, 50051)
    replicas = deployment.containers["khetd"]
    check(len(replicas) == 2, f"compose starts {len(replicas)} replicas")
    for replica in replicas:
        http = published(replica, 8080)
        with urllib.request.urlopen(f"http://{http}/v1/setups",
                                    timeout=10) as r:
            check(r.status == 200, f"{replica}: GET /v1/setups {r.status}")

    game = Game(khetctl, engine, target, "compose test")
    half = len(game.moves) // 2
    game.play(half)
    print(f"    {game.setup}: {half} of {len(game.moves)} plies through nginx "
          f"on {target}")
    podman("stop", "-t", "20", replicas[0])
    state = json.loads(podman("inspect", replicas[0]))[0]["State"]
    check(not state.get("Running"), f"{replicas[0]} still runs")
    started = time.monotonic()
    game.play(len(game.moves) - half)
    session = game.check_finished()
    print(f"    {replicas[0]} stopped; the other {len(game.moves) - half} plies "
          f"through nginx in {time.monotonic() - started:.1f} s: "
          f"{session['result']['outcome']}, version {session.get('version')}")
    http = published(replicas[1], 8080)
    with urllib.request.urlopen(f"http://{http}/v1/sessions/{game.session}",
                                timeout=10) as r:
        check(r.status == 200, f"{replicas[1]}: the session over HTTP {r.status}")
    print(f"    {replicas[1]} serves the session over HTTP on {http}")


def wait_healthy_or_running(container):
    """nginx has no healthcheck: it must be running, its port answering."""
    deadline = time.monotonic() + HEALTHY_WITHIN
    host, port = published(container, 50051).split(":")
    while True:
        try:
            socket.create_connection((host, int(port)), timeout=2).close()
            return
        except OSError:
            state = json.loads(podman("inspect", container))[0]["State"]
            check(state.get("Running") and time.monotonic() < deadline,
                  f"{container} does not answer on {host}:{port}:\n"
                  + podman("logs", "--tail", "30", container,
                           check_status=False))
            time.sleep(1)


# ---- The whole -------------------------------------------------------------


def preflight():
    if os.geteuid() != 0:
        raise Skip("podman runs the containers as root here, and this is not "
                   "root")
    for tool in ("podman", "runc"):
        if shutil.which(tool) is None:
            raise Skip(f"{tool} is not installed (scripts/setup.sh --deploy)")
    if not podman_ok("info"):
        raise Skip("podman info fails: " + podman("info", check_status=False))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--khetctl", required=True)
    parser.add_argument("--khet-engine", required=True)
    args = parser.parse_args()
    os.environ["CONTAINERS_CONF"] = os.path.join(HERE, "containers.conf")
    # A SIGTERM still removes what was made.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    phases = Phases()
    objects = Objects()
    status = 0
    try:
        preflight()
        with phases("base image (debootstrap, podman import)"):
            base_image(args.build)
        with phases("images (khetd, postgres, nginx)"):
            images(args.source)
        with phases("one container: game, restart"):
            one_container(objects, args.khetctl, args.khet_engine)
        with phases("compose: replicas, PostgreSQL, nginx"):
            compose(objects, args.source, args.khetctl, args.khet_engine)
    except Skip as skip:
        print(f"container test skipped: {skip}")
        status = SKIP
    except Failure as failure:
        print(f"FAILED: {failure}")
        status = 1
    finally:
        with phases("clean up"):
            problems = objects.remove()
        for problem in problems:
            print(f"FAILED to clean up: {problem}")
            status = status if status else 1
    phases.summary()
    if status == 0:
        print("container test: passed")
    return status


if __name__ == "__main__":
    sys.exit(main())
