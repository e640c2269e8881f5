#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The Debian package, built and installed the way a server owner would,
into a scratch root rather than this machine.

1. `cpack -G DEB` in the build folder, first without and then with
   KHET_PACKAGE_UNRELEASED=1: the placeholder Maintainer refused (with how
   to name one), then the package's fields (name, the
   CMake version, architecture), its Depends naming the Debian package of
   every shared library the three programs load (found here with ldd and
   dpkg -S, apart from CPack's dpkg-shlibdeps), the exact file list, the
   conffile and the maintainer scripts.
2. `dpkg --root=ROOT --force-script-chrootless -i` under fakeroot: dpkg
   unpacks into ROOT and runs the maintainer scripts with DPKG_ROOT=ROOT
   (no chroot, no privilege). ROOT's dpkg database lists the packages of
   Depends as this machine has them, so dpkg checks Depends for real. Then:
   the system user khet in ROOT's /etc/passwd and /etc/group, ROOT's
   /var/lib/khet owned by it with mode 0750, khetd.service enabled (the
   wants link), the conffile registered; this machine's user database
   untouched. Installed again (an upgrade's path) with the conffile edited:
   one user still, the same ids, the edit kept.
3. The installed khetd started with the installed unit's command line
   (ExecStart, $KHETD_OPTS from the installed /etc/default/khetd,
   ${STATE_DIRECTORY} as ROOT's /var/lib/khet) plus free loopback ports; the
   installed khetctl plays a whole game the installed khet-engine played
   (a demonstration game ending in a Pharaoh hit) and khetd's result must
   be the engine's; SIGTERM ends khetd with status 0; started again, it
   still has the game archived in ROOT's /var/lib/khet.
4. `dpkg -r`: the programs go, /var/lib/khet and the conffile stay, the
   unit is masked; `dpkg --purge`: /var/lib/khet, the conffile and the
   unit's state go, the user stays.

Exit 0 when every check passes; the first failure is printed, exit 1.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from local_khetd import LocalKhetd

PROGRAMS = ("khetd", "khetctl", "khet-engine")
# Every file the package holds (directories aside).
FILES = {
    "/usr/bin/khetd", "/usr/bin/khetctl", "/usr/bin/khet-engine",
    "/lib/systemd/system/khetd.service", "/etc/default/khetd",
    "/usr/share/doc/khet/README.md", "/usr/share/doc/khet/CHANGELOG.md",
    "/usr/share/doc/khet/README.deploy.md", "/usr/share/doc/khet/copyright",
}
SCRIPTS = ("postinst", "prerm", "postrm")
WANTS = "etc/systemd/system/multi-user.target.wants/khetd.service"
# dpkg and the maintainer scripts' tools live in the sbin folders, which a
# user's PATH may lack.
SBIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, timeout=120, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=timeout, **kwargs)
    if result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited {result.returncode}:\n"
                      f"{result.stdout}{result.stderr}")
    return result.stdout


class Steps:
    """Prints each step with the seconds it took."""

    def __init__(self):
        self.start = time.monotonic()

    def done(self, what):
        now = time.monotonic()
        print(f"{now - self.start:6.2f} s  {what}", flush=True)
        self.start = now


# ---- 1. The package --------------------------------------------------------


PLACEHOLDER_MAINTAINER = "<maintainers@khet.invalid>"


def cpack(build, out, unreleased):
    """cpack -G DEB; `unreleased` lets a placeholder Maintainer through."""
    env = dict(os.environ)
    env.pop("KHET_PACKAGE_UNRELEASED", None)
    if unreleased:
        env["KHET_PACKAGE_UNRELEASED"] = "1"
    return subprocess.run(["cpack", "-G", "DEB", "--config",
                           os.path.join(build, "CPackConfig.cmake"), "-B", out],
                          capture_output=True, text=True, timeout=170, env=env)


def placeholder_refused(build, out):
    """A build configured with the placeholder Maintainer makes no package
    unless it is marked as a test build. Returns what was checked."""
    with open(os.path.join(build, "CPackConfig.cmake"), encoding="utf-8") as f:
        if PLACEHOLDER_MAINTAINER not in f.read():
            return "Maintainer set by the build (not the placeholder)"
    refused = cpack(build, out, unreleased=False)
    output = refused.stdout + refused.stderr
    check(refused.returncode != 0,
          "cpack made a package whose Maintainer is the placeholder")
    check("-DKHET_PACKAGE_MAINTAINER" in output,
          f"cpack's refusal does not say how to name the maintainer:\n{output}")
    check(not glob.glob(os.path.join(out, "*.deb")),
          "cpack refused the placeholder Maintainer but left a .deb")
    return "placeholder Maintainer refused without KHET_PACKAGE_UNRELEASED"


def build_package(build, out):
    made = cpack(build, out, unreleased=True)
    check(made.returncode == 0,
          f"cpack exited {made.returncode}:\n{made.stdout}{made.stderr}")
    debs = glob.glob(os.path.join(out, "*.deb"))
    check(len(debs) == 1, f"cpack made {debs}, not one .deb")
    return debs[0]


def field(deb, name):
    return run(["dpkg-deb", "--field", deb, name]).strip()


def depends_names(depends):
    """Package names in a Depends field, alternatives included."""
    return {re.split(r"[\s(:]", alt.strip())[0]
            for part in depends.split(",") for alt in part.split("|")
            if alt.strip()}


def needed_libraries(binary):
    """The shared libraries `binary` names itself (DT_NEEDED, what
    dpkg-shlibdeps reads), as paths this machine resolves them to."""
    dynamic = run(["readelf", "--dynamic", binary])
    needed = set(re.findall(r"\(NEEDED\).*\[(\S+)\]", dynamic))
    paths = dict(re.findall(r"^\s*(\S+) => (/\S+)", run(["ldd", binary]),
                            re.MULTILINE))
    missing = needed - set(paths)
    check(not missing, f"{binary} needs {sorted(missing)}, not found")
    return {os.path.realpath(paths[soname]) for soname in needed}


def owning_packages(paths):
    """path -> the installed package holding it (one dpkg -S for all; a
    path under /usr may be listed without it, merged /usr)."""
    asked = set(paths) | {re.sub(r"^/usr", "", p) for p in paths}
    answer = subprocess.run(["dpkg", "-S", *sorted(asked)],
                            capture_output=True, text=True).stdout
    owner = {}
    for line in answer.splitlines():
        package, _, path = line.partition(": ")
        owner[path] = package.split(":")[0].split(",")[0].strip()
    found = {}
    for path in paths:
        package = owner.get(path) or owner.get(re.sub(r"^/usr", "", path))
        check(package is not None, f"{path}: no installed package holds it")
        found[path] = package
    return found


def check_package(deb, version, build):
    check(field(deb, "Package") == "khet", "Package is not khet")
    check(field(deb, "Version") == version,
          f"Version {field(deb, 'Version')}, CMake {version}")
    arch = run(["dpkg", "--print-architecture"]).strip()
    check(field(deb, "Architecture") == arch, f"Architecture is not {arch}")
    depends = field(deb, "Depends")
    named = depends_names(depends)
    for program, target in (("khetd", "service/khetd/khetd"),
                            ("khetctl", "clients/khetctl/khetctl"),
                            ("khet-engine", "tools/khet-engine")):
        owners = owning_packages(needed_libraries(os.path.join(build,
                                                               target)))
        missing = set(owners.values()) - named
        check(not missing, f"Depends lacks {sorted(missing)}, whose "
              f"libraries {program} loads (Depends: {depends})")

    listed = set()
    for line in run(["dpkg-deb", "--contents", deb]).splitlines():
        if not line.startswith("d"):
            listed.add(line.split()[-1].lstrip("."))
    check(listed == FILES, f"files: {sorted(listed ^ FILES)} differ")

    with tempfile.TemporaryDirectory() as control:
        run(["dpkg-deb", "--control", deb, control])
        with open(os.path.join(control, "conffiles"), encoding="utf-8") as f:
            conffiles = f.read().split()
        check(conffiles == ["/etc/default/khetd"],
              f"conffiles {conffiles}")
        for script in SCRIPTS:
            path = os.path.join(control, script)
            check(os.access(path, os.X_OK), f"{script} is not executable")
            run(["sh", "-n", path])
    return named


# ---- 2. A scratch root -----------------------------------------------------


class Root:
    """A scratch root that dpkg installs into, under fakeroot (its state
    kept in a file, so owners set by one command are seen by the next)."""

    def __init__(self, path, state):
        self.path = path
        self.state = state
        for folder in ("etc", "var/lib/dpkg/info", "var/lib/dpkg/updates",
                       "var/log"):
            os.makedirs(os.path.join(path, folder), exist_ok=True)
        # Traversable by anyone, as / is: khetd need not run as root.
        os.chmod(path, 0o755)
        self.write("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
        self.write("etc/group", "root:x:0:\n")
        self.write("etc/shadow", "root:*:20000:0:99999:7:::\n")
        self.write("etc/gshadow", "root:*::\n")
        self.write("var/lib/dpkg/available", "")
        open(state, "w").close()

    def file(self, relative):
        return os.path.join(self.path, relative)

    def write(self, relative, text):
        with open(self.file(relative), "w", encoding="utf-8") as f:
            f.write(text)

    def read(self, relative):
        with open(self.file(relative), encoding="utf-8") as f:
            return f.read()

    def add_installed(self, packages):
        """Lists `packages` in the root's dpkg database as this machine has
        them installed (status stanzas, empty file lists)."""
        status = []
        for package in sorted(packages):
            stanza = subprocess.run(["dpkg-query", "--status", package],
                                    capture_output=True, text=True)
            if stanza.returncode != 0:
                continue  # an alternative not installed here
            status.append(stanza.stdout.rstrip("\n") + "\n")
            name = run(["dpkg-query", "--show", "--showformat",
                        "${binary:Package}", package]).strip()
            open(self.file(f"var/lib/dpkg/info/{name}.list"), "w").close()
        self.write("var/lib/dpkg/status", "\n".join(status))

    def fakeroot(self, command, timeout=120):
        return run(["fakeroot", "-i", self.state, "-s", self.state, "--",
                    *command], timeout=timeout,
                   env=dict(os.environ, PATH=SBIN_PATH))

    def dpkg(self, *arguments):
        return self.fakeroot(["dpkg", f"--root={self.path}",
                              "--force-script-chrootless", *arguments])

    def owner_and_mode(self, relative):
        """uid:gid and octal mode, as the fakeroot state has them."""
        return self.fakeroot(["stat", "--format", "%u:%g %a",
                              self.file(relative)]).strip()

    def entries(self, database, name):
        return [line.split(":") for line in self.read(database).splitlines()
                if line.split(":")[0] == name]


def host_user():
    result = subprocess.run(["getent", "passwd", "khet"],
                            capture_output=True, text=True)
    return result.stdout


def check_installed(root, version):
    status = root.fakeroot(["dpkg-query", f"--admindir={root.file('var/lib/dpkg')}",
                            "--show", "--showformat",
                            "${Status} ${Version}\n${Conffiles}", "khet"])
    check(status.startswith(f"install ok installed {version}\n"),
          f"dpkg's status of khet: {status!r}")
    check("/etc/default/khetd" in status, "the conffile is not registered")
    for program in PROGRAMS:
        check(os.access(root.file(f"usr/bin/{program}"), os.X_OK),
              f"/usr/bin/{program} is not installed")
    # Debian's machine-readable copyright format, every file Apache-2.0.
    copyright = root.read("usr/share/doc/khet/copyright")
    check(copyright.startswith("Format: https://www.debian.org/doc/"
                               "packaging-manuals/copyright-format/1.0/\n")
          and "Files: *\nCopyright: 2026 The khet Authors\n"
              "License: Apache-2.0\n" in copyright,
          "/usr/share/doc/khet/copyright is not the project's DEP-5 file")
    # Its contact is whoever the package names as its Maintainer.
    maintainer = root.fakeroot(["dpkg-query",
                                f"--admindir={root.file('var/lib/dpkg')}",
                                "--show", "--showformat", "${Maintainer}",
                                "khet"]).strip()
    check(f"\nUpstream-Contact: {maintainer}\n" in copyright,
          f"the copyright file's Upstream-Contact is not the Maintainer "
          f"{maintainer!r}")

    users = root.entries("etc/passwd", "khet")
    groups = root.entries("etc/group", "khet")
    check(len(users) == 1 and len(groups) == 1,
          f"{len(users)} khet users and {len(groups)} groups in the root")
    _, _, uid, gid, _, home, shell = users[0]
    check(100 <= int(uid) < 1000, f"khet's uid {uid} is not a system uid")
    check(gid == groups[0][2], "khet's group is not the group khet")
    check(home == "/var/lib/khet" and shell == "/usr/sbin/nologin",
          f"khet's home {home}, shell {shell}")
    data = root.owner_and_mode("var/lib/khet")
    check(data == f"{uid}:{gid} 750", f"/var/lib/khet is {data}, not "
          f"{uid}:{gid} 750")
    check(os.readlink(root.file(WANTS)) == "/lib/systemd/system/"
          "khetd.service", "khetd.service is not enabled")
    return uid, gid


# ---- 3. The installed programs ----------------------------------------------


def unit_command(root):
    """khetd's command line from the installed unit and defaults file."""
    unit = root.read("lib/systemd/system/khetd.service")
    lines = re.findall(r"^ExecStart=(.*)$", unit, re.MULTILINE)
    check(len(lines) == 1, f"the unit has {len(lines)} ExecStart lines")
    check(re.search(r"^User=khet$", unit, re.MULTILINE) is not None and
          re.search(r"^StateDirectory=khet$", unit, re.MULTILINE) is not None,
          "the unit does not run as khet with the state in /var/lib/khet")
    options = run(["sh", "-c", '. "$1" && printf %s "$KHETD_OPTS"', "sh",
                   root.file("etc/default/khetd")])
    words = lines[0].split()
    check(words[0] == "/usr/bin/khetd", f"ExecStart runs {words[0]}")
    command = []
    for word in words[1:]:
        if word == "$KHETD_OPTS":
            command += options.split()
        else:
            command.append(word.replace("${STATE_DIRECTORY}",
                                        root.file("var/lib/khet")))
    check("$KHETD_OPTS" in words, "ExecStart does not take $KHETD_OPTS")
    return command


def decisive_game(engine):
    """A demonstration game of the installed khet-engine that ends in a
    Pharaoh hit within 60 plies: its setup, moves and result token."""
    for seed in range(1, 40):
        for setup in ("classic-2", "imhotep-2", "dynasty-2"):
            text = run([engine, "play", "--setup", setup, "--seed",
                        str(seed), "--delay-ms", "0"])
            moves = re.findall(r"^ply \d+: (Silver|Red) plays (\S+)$", text,
                               re.MULTILINE)
            result = text.split()[-1]
            if result in ("1-0", "0-1") and len(moves) <= 60:
                return setup, seed, moves, result
    raise Failure("khet-engine played no decisive game of 60 plies or less")


def play_game(root, target):
    """The installed khetctl plays the installed engine's game on khetd."""
    ctl = [root.file("usr/bin/khetctl"), "--server", target, "--json"]
    setup, seed, moves, result = decisive_game(root.file("usr/bin/khet-engine"))
    created = json.loads(run(ctl + ["create", "--name", "package test",
                                    "--setup", setup]))
    session = created["session"]["id"]
    tokens = {}
    for name in ("silver", "red"):
        joined = json.loads(run(ctl + ["join", session, "--name", name,
                                       "--color", name]))
        tokens[joined["color"]] = joined["playerToken"]
    for color, move in moves:
        run(ctl + ["move", session, move, "--token", tokens[color.upper()]])
    played = json.loads(run(ctl + ["get", session]))
    expected = "SILVER_WINS" if result == "1-0" else "RED_WINS"
    check(played["status"] == "FINISHED" and
          played["result"]["outcome"] == expected and
          played["result"]["reason"] == "PHARAOH_HIT",
          f"khetd's result {played.get('result')} after {setup} seed {seed}, "
          f"the engine's {result} by a Pharaoh hit")
    print(f"          {setup} seed {seed}: {len(moves)} plies, {result}")
    return session


def archived_games(root, target, session):
    ctl = [root.file("usr/bin/khetctl"), "--server", target, "--json"]
    return json.loads(run(ctl + ["games", session])).get("games", [])


def run_installed(root, source):
    command = unit_command(root)
    local_khetd = LocalKhetd(source)
    free_ports = ["--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0"]
    khetd = local_khetd(root.file("usr/bin/khetd"),
                        args=command + free_ports, http=True)
    with khetd:
        version = run([root.file("usr/bin/khetctl"), "--server",
                       khetd.target, "version"])
        print(f"          installed khetd says: {version.strip()}")
        session = play_game(root, khetd.target)
        check(len(archived_games(root, khetd.target, session)) == 1,
              "the finished game is not archived")
    check(khetd.process.returncode == 0,
          f"khetd exited {khetd.process.returncode} on SIGTERM; its log:\n"
          + "\n".join(khetd.log))
    check(os.path.isfile(root.file("var/lib/khet/khet.db")),
          "khetd kept no khet.db in /var/lib/khet")
    with local_khetd(root.file("usr/bin/khetd"),
                     args=command + free_ports, http=True) as again:
        check(len(archived_games(root, again.target, session)) == 1,
              "after a restart the archived game is gone")


# ---- The whole ---------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, help="the build folder")
    parser.add_argument("--version", required=True,
                        help="the version CMake was configured with")
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps", "fakeroot"):
        if shutil.which(tool, path=SBIN_PATH) is None:
            print(f"package: {tool} is missing (scripts/setup.sh --tests)")
            return 1

    steps = Steps()
    host_before = host_user()
    with tempfile.TemporaryDirectory(prefix="khet-package-") as scratch:
        try:
            steps.done(placeholder_refused(
                args.build, os.path.join(scratch, "refused")))
            deb = build_package(args.build, os.path.join(scratch, "cpack"))
            steps.done(f"cpack -G DEB: {os.path.basename(deb)}, "
                       f"{os.path.getsize(deb) // 1024} KiB")
            depends = check_package(deb, args.version, args.build)
            steps.done(f"fields, Depends ({len(depends)} packages), "
                       f"{len(FILES)} files, conffile, scripts")

            root = Root(os.path.join(scratch, "root"),
                        os.path.join(scratch, "fakeroot.state"))
            root.add_installed(depends)
            root.dpkg("--install", deb)
            uid, gid = check_installed(root, args.version)
            steps.done(f"dpkg --install into the scratch root: user khet "
                       f"{uid}:{gid}, /var/lib/khet, unit enabled")

            with open(root.file("etc/default/khetd"), "a",
                      encoding="utf-8") as f:
                f.write("# an administrator's line\n")
            root.dpkg("--install", deb)
            check((uid, gid) == check_installed(root, args.version),
                  "a reinstall changed khet's ids")
            check("# an administrator's line" in
                  root.read("etc/default/khetd"),
                  "a reinstall dropped the edit of /etc/default/khetd")
            steps.done("installed again: one user, same ids, conffile kept")

            run_installed(root, args.source)
            steps.done("installed khetd ran the unit's command line; a game "
                       "played to its end, archived, kept across a restart")

            root.dpkg("--remove", "khet")
            check(not os.path.exists(root.file("usr/bin/khetd")),
                  "dpkg --remove left /usr/bin/khetd")
            check(os.path.isfile(root.file("var/lib/khet/khet.db")) and
                  os.path.isfile(root.file("etc/default/khetd")),
                  "dpkg --remove took the data or the conffile")
            check(os.readlink(root.file("etc/systemd/system/khetd.service"))
                  == "/dev/null", "dpkg --remove did not mask the unit")
            root.dpkg("--purge", "khet")
            for gone in ("var/lib/khet", "etc/default/khetd", WANTS,
                         "etc/systemd/system/khetd.service"):
                check(not os.path.lexists(root.file(gone)),
                      f"dpkg --purge left /{gone}")
            check(len(root.entries("etc/passwd", "khet")) == 1,
                  "dpkg --purge removed the user khet")
            steps.done("dpkg --remove kept the data and conffile; --purge "
                       "removed them and kept the user")
            check(host_user() == host_before,
                  "this machine's user database changed")
        except Failure as failure:
            print(f"FAILED: {failure}")
            return 1
    print("package: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
