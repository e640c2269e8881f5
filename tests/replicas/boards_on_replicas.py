#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""In-world boards on khetd replicas: khet-load's boards mode against N khetd
on one PostgreSQL database, through nginx (deploy/nginx/khet-http.conf) or
spread over the replicas' own ports, optionally with a fault while the boards
play: one replica SIGKILLed, or PostgreSQL stopped and started again.

Starts everything itself on 127.0.0.1 (a throwaway PostgreSQL cluster of its
own, so that stopping it touches no other test), prints khet-load's figures
and PostgreSQL's (transactions, connections), and exits with khet-load's
status: 1 when a move was refused or lost, an event skipped or delivered out
of order, or a board not answered again within the limit after the fault.

As tests (label replicas, faults): a few hundred boards. As a measurement
(docs/PERFORMANCE.md, "Boards on replicas"): ten thousand, e.g.
  boards_on_replicas.py --build build/release --boards 10000 --replicas 2
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NGINX = "/usr/sbin/nginx"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                   help="the build directory holding khetd and khet-load")
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--boards", type=int, default=300)
    p.add_argument("--through", choices=["nginx", "spread"], default="nginx",
                   help="boards reach the replicas through nginx, or each "
                   "waits on one replica's own port (board i on replica i %% N)")
    p.add_argument("--calls_elsewhere", action="store_true",
                   help="spread: each board's moves go to the next replica")
    p.add_argument("--wait", choices=["poll", "stream"], default="poll")
    p.add_argument("--fault", choices=["none", "kill", "postgres"],
                   default="none",
                   help="kill: SIGKILL the first replica; postgres: stop "
                   "the database and start it again after --fault_seconds")
    p.add_argument("--fault_at", type=float, default=5)
    p.add_argument("--fault_seconds", type=float, default=20)
    p.add_argument("--recovery_limit_seconds", type=float, default=5)
    p.add_argument("--boards_seconds", type=float, default=20)
    p.add_argument("--warmup_seconds", type=float, default=2)
    p.add_argument("--move_period_seconds", type=float, default=2)
    p.add_argument("--threads", type=int, default=1,
                   help="khet-load's client threads per server")
    p.add_argument("--khetd_flag", action="append", default=[],
                   help="a further flag of every khetd, e.g. "
                   "--khetd_flag=--postgres_connections=8")
    p.add_argument("--khet_load_flag", action="append", default=[],
                   help="a further khet-load flag, e.g. --khet_load_flag=--push")
    return p.parse_args()


def tree_cpu_seconds(parent):
    """CPU time so far of process `parent` and its children."""
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ..., utime (12th), stime (13th).
        if int(entry) == parent or int(fields[1]) == parent:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class Cluster:
    """The throwaway PostgreSQL cluster of tests/pg/pg_cluster.sh."""

    def __init__(self, state_dir):
        self.script = os.path.join(ROOT, "tests", "pg", "pg_cluster.sh")
        self.state_dir = state_dir
        self.run("start")
        with open(os.path.join(state_dir, "conninfo")) as f:
            self.conninfo = f.read().strip()

    def run(self, command):
        subprocess.run([self.script, command, self.state_dir], check=True,
                       stdout=subprocess.DEVNULL)

    def shell(self, command):
        return f"{self.script} {command} {self.state_dir}"

    def cpu_seconds(self):
        """CPU time of the server and its backends so far (those that
        exited are not counted; khetd's pooled connections stay)."""
        with open(os.path.join(self.state_dir, "data_dir")) as f:
            root = f.read().strip()
        try:
            with open(os.path.join(root, "data", "postmaster.pid")) as f:
                return tree_cpu_seconds(int(f.readline()))
        except (OSError, ValueError):
            return 0.0

    def sql(self, database, query):
        out = subprocess.run(
            ["psql", f"{self.conninfo} dbname={database}", "-Atc", query],
            check=True, capture_output=True, text=True)
        return out.stdout.strip()


def start_khetd(khetd, conninfo, database, log_path, through_nginx, flags):
    args = [khetd, "--store=postgres",
            f"--postgres_url={conninfo} dbname={database}",
            "--listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
            "--shutdown_grace_seconds=1"]
    if through_nginx:
        # nginx's X-Forwarded-For names the board's own address.
        args.append("--trusted_proxies=127.0.0.1/32")
    args += flags
    log = open(log_path, "w")
    process = subprocess.Popen(args, stderr=log, stdout=log)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log_path) as f:
            m = re.search(r"khetd http listening on 127\.0\.0\.1:(\d+)",
                          f.read())
        if m:
            return process, int(m.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    with open(log_path) as f:
        sys.exit(f"khetd did not start:\n{f.read()[-2000:]}")


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(work, ports):
    with open(os.path.join(ROOT, "deploy", "nginx", "khet-http.conf")) as f:
        template = f.read()
    port = free_port()
    upstreams = " ".join(f"server 127.0.0.1:{p};" for p in ports)
    conf = (template.replace("${KHET_NGINX_PREFIX}", work)
            .replace("${KHET_NGINX_HTTP_LISTEN}", f"127.0.0.1:{port}")
            .replace("${KHET_NGINX_HTTP_UPSTREAMS}", upstreams))
    path = os.path.join(work, "nginx-http.conf")
    with open(path, "w") as f:
        f.write(conf)
    test = subprocess.run([NGINX, "-t", "-p", work, "-c", path],
                          capture_output=True, text=True)
    if test.returncode != 0:
        sys.exit(f"nginx -t refused the configuration:\n{test.stderr}")
    process = subprocess.Popen(
        [NGINX, "-p", work, "-c", path, "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "nginx.out"), "w"))
    deadline = time.time() + 10
    import socket
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, port
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("nginx did not listen")


def main():
    a = parse_args()
    khetd = os.path.join(a.build, "service", "khetd", "khetd")
    khet_load = os.path.join(a.build, "tools", "load", "khet-load")
    if a.through == "nginx" and not os.access(NGINX, os.X_OK):
        print(f"SKIP: no {NGINX} (scripts/setup.sh --tests installs it)")
        return 77
    work = tempfile.mkdtemp(prefix="khet-replicas-")
    os.chmod(work, 0o755)  # nginx's workers may run as another user
    cluster = Cluster(os.path.join(work, "pg"))
    processes = []
    status = 1
    try:
        database = "boards"
        cluster.sql("postgres", f"CREATE DATABASE {database}")
        replicas = []
        for r in range(a.replicas):
            process, port = start_khetd(
                khetd, cluster.conninfo, database,
                os.path.join(work, f"replica-{r}.log"), a.through == "nginx",
                a.khetd_flag)
            processes.append(process)
            replicas.append((process.pid, port))
        if a.through == "nginx":
            nginx, nginx_port = start_nginx(work, [p for _, p in replicas])
            processes.append(nginx)
            servers = [nginx_port]
        else:
            servers = [p for _, p in replicas]
        args = [khet_load, f"--boards={a.boards}",
                "--http_server=" + ",".join(f"127.0.0.1:{p}" for p in servers),
                "--khetds=" + ",".join(f"127.0.0.1:{port}/{pid}"
                                       for pid, port in replicas),
                f"--wait={a.wait}", f"--threads={a.threads}",
                f"--boards_seconds={a.boards_seconds}",
                f"--warmup_seconds={a.warmup_seconds}",
                f"--move_period_seconds={a.move_period_seconds}",
                f"--recovery_limit_seconds={a.recovery_limit_seconds}"]
        if a.calls_elsewhere:
            args.append("--calls_elsewhere")
        if a.fault == "kill":
            args += [f"--fault_at_seconds={a.fault_at}",
                     f"--fault_kill_pid={replicas[0][0]}"]
        elif a.fault == "postgres":
            args += [f"--fault_at_seconds={a.fault_at}",
                     f"--fault_command={cluster.shell('stop-server')}",
                     f"--fault_seconds={a.fault_seconds}",
                     f"--fault_end_command={cluster.shell('start-server')}"]
        args += a.khet_load_flag
        print(f"{a.replicas} khetd on one PostgreSQL database, boards "
              f"{'through nginx' if a.through == 'nginx' else 'spread over their ports'}"
              f", fault: {a.fault}", flush=True)
        before = cluster.sql("postgres", "SELECT xact_commit FROM "
                             f"pg_stat_database WHERE datname = '{database}'")
        started = time.time()
        nginx_pid = processes[-1].pid if a.through == "nginx" else 0
        cpu_before = cluster.cpu_seconds()
        nginx_before = tree_cpu_seconds(nginx_pid) if nginx_pid else 0
        status = subprocess.run(args).returncode
        took = time.time() - started
        cpu = cluster.cpu_seconds() - cpu_before
        if nginx_pid:
            print(f"nginx: CPU {100 * (tree_cpu_seconds(nginx_pid) - nginx_before) / took:.0f}% "
                  "of a core over the run", flush=True)
        try:
            after = cluster.sql("postgres", "SELECT xact_commit, numbackends "
                                f"FROM pg_stat_database WHERE datname = '{database}'")
        except subprocess.CalledProcessError as e:
            print(f"PostgreSQL's figures could not be read: {e.stderr.strip()}")
            return status or 1
        commits, backends = after.split("|")
        # After a restart the statistics start again from zero.
        restarted = a.fault == "postgres"
        print(f"PostgreSQL: {int(commits) - (0 if restarted else int(before))} "
              f"transactions committed in khet-load's {took:.0f} s"
              f"{' (since the restart)' if restarted else ''}, "
              f"{backends} connections at the end, CPU "
              f"{100 * cpu / took:.0f}% of a core over the run"
              f"{' (since the restart)' if restarted else ''}", flush=True)
        for r, (process, _) in enumerate(zip(processes, replicas)):
            code = process.poll()
            killed = a.fault == "kill" and r == 0
            if code is not None and not killed:
                print(f"replica {r} exited with {code}; its log's end:")
                with open(os.path.join(work, f"replica-{r}.log")) as f:
                    print(f.read()[-2000:])
                status = status or 1
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        cluster.run("stop")
        if status == 0:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept for a look: {work}")
    return status


if __name__ == "__main__":
    sys.exit(main())
