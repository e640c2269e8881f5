#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Checks the deployment files in deploy/ as far as this machine allows.

Docker and Kubernetes do not run here, so this checks what can be checked:
every YAML file parses; the Kubernetes objects have the kinds and fields
they need and refer to each other consistently; the compose file has its
replicas, PostgreSQL and nginx; the Dockerfile has its stages, a non-root
user and a health check; every khetd flag used anywhere is one khetd
knows; `systemd-analyze verify` passes on the unit (when systemd-analyze
is installed); `nginx -t` passes on deploy/nginx/khet-grpc.conf (when the
file and nginx are there). Each check first proves itself on broken
copies of the files (it must find the fault), then runs on the real ones.

Usage: check_deploy.py --khetd PATH --khetctl PATH
Exit 0 when every check passes; 1 with the problems listed otherwise.
"""

import argparse
import copy
import ipaddress
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

DEPLOY = os.path.dirname(os.path.abspath(__file__))
GRPC_PORT = 50051

# Flags of features that live in other parts of the project: a khetd built
# without the feature lacks the flag; the flag is then reported as not
# checked rather than as unknown.
FEATURE_FLAGS = {
    "postgres_url": "the PostgreSQL store",
    "http_listen": "the HTTP gateway",
}


def load_yaml_documents(path):
    with open(path, encoding="utf-8") as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


# ---- Kubernetes -------------------------------------------------------------


def check_k8s(objects, files, kustomization):
    """Problems in the Kubernetes objects (dicts), as strings."""
    problems = []
    by_kind = {}
    for obj in objects:
        for field in ("apiVersion", "kind", "metadata"):
            if field not in obj:
                problems.append(f"a Kubernetes object has no {field}: {obj}")
        by_kind.setdefault(obj.get("kind"), []).append(obj)
    for kind in ("Deployment", "Service", "PodDisruptionBudget",
                 "HorizontalPodAutoscaler", "ConfigMap", "Secret"):
        if len(by_kind.get(kind, [])) != 1:
            problems.append(f"k8s: expected one {kind}, found "
                            f"{len(by_kind.get(kind, []))}")
    if problems:
        return problems

    deployment = by_kind["Deployment"][0]
    name = deployment["metadata"].get("name")
    spec = deployment.get("spec", {})
    pod_labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
    selector = spec.get("selector", {}).get("matchLabels", {})

    def matches(labels):
        return bool(labels) and all(pod_labels.get(k) == v
                                    for k, v in labels.items())

    if not matches(selector):
        problems.append("Deployment: selector does not match the pod labels")
    if spec.get("replicas", 1) < 2:
        problems.append("Deployment: fewer than 2 replicas")
    pod = spec.get("template", {}).get("spec", {})
    if not pod.get("securityContext", {}).get("runAsNonRoot"):
        problems.append("Deployment: pod securityContext lacks runAsNonRoot")
    containers = pod.get("containers", [])
    if not containers:
        return problems + ["Deployment: no containers"]
    container = containers[0]
    ports = {p.get("name"): p.get("containerPort")
             for p in container.get("ports", [])}
    if GRPC_PORT not in ports.values():
        problems.append(f"Deployment: no containerPort {GRPC_PORT}")
    for probe in ("livenessProbe", "readinessProbe"):
        grpc = container.get(probe, {}).get("grpc")
        if not grpc or grpc.get("port") != GRPC_PORT:
            problems.append(
                f"Deployment: {probe} is not a gRPC health probe on port "
                f"{GRPC_PORT}")
    if container.get("securityContext", {}).get(
            "allowPrivilegeEscalation") is not False:
        problems.append("Deployment: container allows privilege escalation")

    config_map = by_kind["ConfigMap"][0]
    secret = by_kind["Secret"][0]
    secret_keys = set(secret.get("stringData", {})) | set(
        secret.get("data", {}))
    defined = set()
    for env in container.get("env", []):
        defined.add(env.get("name"))
        ref = env.get("valueFrom", {}).get("secretKeyRef")
        if ref and (ref.get("name") != secret["metadata"]["name"] or
                    ref.get("key") not in secret_keys):
            problems.append(f"Deployment: env {env.get('name')} refers to a "
                            f"missing Secret key {ref}")
    for source in container.get("envFrom", []):
        ref = source.get("configMapRef")
        if ref:
            if ref.get("name") != config_map["metadata"]["name"]:
                problems.append(f"Deployment: envFrom names a missing "
                                f"ConfigMap {ref.get('name')}")
            else:
                defined |= set(config_map.get("data", {}))
    args = container.get("args", [])
    if "--store=postgres" not in args:
        problems.append("Deployment: replicas need --store=postgres")
    for arg in args:
        for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", arg):
            if var not in defined:
                problems.append(f"Deployment: {arg} uses $({var}), which no "
                                f"env or ConfigMap defines")

    service = by_kind["Service"][0]
    if not matches(service.get("spec", {}).get("selector", {})):
        problems.append("Service: selector does not match the pod labels")
    for port in service.get("spec", {}).get("ports", []):
        target = port.get("targetPort")
        if target not in ports and target not in ports.values():
            problems.append(f"Service: targetPort {target} is no container "
                            f"port")
    pdb = by_kind["PodDisruptionBudget"][0]
    if not matches(pdb.get("spec", {}).get("selector", {}).get(
            "matchLabels", {})):
        problems.append("PodDisruptionBudget: selector does not match the "
                        "pod labels")
    pdb_spec = pdb.get("spec", {})
    if "minAvailable" not in pdb_spec and "maxUnavailable" not in pdb_spec:
        problems.append("PodDisruptionBudget: no minAvailable/maxUnavailable")
    hpa = by_kind["HorizontalPodAutoscaler"][0]
    target = hpa.get("spec", {}).get("scaleTargetRef", {})
    if target.get("kind") != "Deployment" or target.get("name") != name:
        problems.append("HorizontalPodAutoscaler: does not scale the "
                        "Deployment")
    hpa_spec = hpa.get("spec", {})
    if hpa_spec.get("minReplicas", 1) < 2 or hpa_spec.get(
            "maxReplicas", 0) < hpa_spec.get("minReplicas", 1):
        problems.append("HorizontalPodAutoscaler: needs 2 <= minReplicas <= "
                        "maxReplicas")

    if kustomization is not None:
        listed = set(kustomization.get("resources", []))
        if listed != set(files):
            problems.append(f"kustomization.yaml lists {sorted(listed)}, the "
                            f"folder has {sorted(files)}")
    return problems


# ---- Compose ----------------------------------------------------------------


def check_compose(compose, base_dir):
    problems = []
    services = compose.get("services", {})
    postgres = services.get("postgres", {})
    if not str(postgres.get("image", "")).startswith("postgres:15"):
        problems.append("compose: no postgres:15 service")
    khetd = services.get("khetd", {})
    if khetd.get("deploy", {}).get("replicas", 1) < 2:
        problems.append("compose: khetd has fewer than 2 replicas")
    command = khetd.get("command", [])
    if "--store=postgres" not in command or not any(
            str(c).startswith("--postgres_url=") for c in command):
        problems.append("compose: khetd is not on the PostgreSQL store")
    build = khetd.get("build", {})
    dockerfile = os.path.normpath(
        os.path.join(base_dir, build.get("context", "."),
                     build.get("dockerfile", "Dockerfile")))
    if not os.path.isfile(dockerfile):
        problems.append(f"compose: khetd's Dockerfile {dockerfile} is "
                        f"missing")
    nginx = services.get("nginx", {})
    if not any("nginx/khet-grpc.conf" in str(v)
               for v in nginx.get("volumes", [])):
        problems.append("compose: nginx does not use nginx/khet-grpc.conf")
    if "khetd" not in str(nginx.get("depends_on", "")):
        problems.append("compose: nginx does not wait for khetd")
    # nginx's fixed address (the one khetd trusts) must lie outside the
    # range the other containers' addresses come from, which start first.
    fixed = ((nginx.get("networks") or {}).get("default") or {}).get(
        "ipv4_address")
    pools = (((compose.get("networks") or {}).get("default") or {})
             .get("ipam", {}).get("config", []))
    if fixed:
        trusted = [c.split("=", 1)[1] for c in command
                   if str(c).startswith("--trusted_proxies=")]
        if trusted != [f"{fixed}/32"]:
            problems.append(f"compose: khetd trusts {trusted}, nginx is at "
                            f"{fixed}")
        address = ipaddress.ip_address(fixed)
        if not any(address in ipaddress.ip_network(p["subnet"]) and
                   "ip_range" in p and
                   address not in ipaddress.ip_network(p["ip_range"])
                   for p in pools):
            problems.append(f"compose: nginx's address {fixed} is not kept "
                            f"out of the network's ip_range (a container "
                            f"started before nginx may take it)")
    return problems


# ---- Dockerfile -------------------------------------------------------------


def dockerfile_instructions(text):
    """(INSTRUCTION, arguments) pairs, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def check_dockerfile(text):
    problems = []
    instructions = dockerfile_instructions(text)
    stages = [args for word, args in instructions if word == "FROM"]
    if len(stages) < 2:
        problems.append("Dockerfile: not multi-stage")
    # The ARGs before the first FROM, which FROM lines may name (the base
    # images are build arguments); each stage's base with their defaults.
    first = next((i for i, (w, _) in enumerate(instructions) if w == "FROM"),
                 len(instructions))
    defaults = dict(re.fullmatch(r"(\w+)(?:=(\S*))?", args).groups("")
                    for word, args in instructions[:first] if word == "ARG")

    def base(match):
        if match.group(1) not in defaults:
            problems.append(f"Dockerfile: FROM names ${{{match.group(1)}}}, "
                            f"no ARG before the first FROM")
        return defaults.get(match.group(1), "")

    for stage in stages:
        image = re.sub(r"\$\{?(\w+)\}?", base, stage.split()[0])
        if "bookworm" not in image:
            problems.append(f"Dockerfile: stage {stage!r} is not bookworm "
                            f"({image!r})")
    names = {s.split()[-1] for s in stages if " AS " in s.upper()}
    last = max(i for i, (w, _) in enumerate(instructions) if w == "FROM")
    final = instructions[last:]
    for word, args in final:
        match = re.match(r"--from=(\S+)", args)
        if word == "COPY" and match and match.group(1) not in names:
            problems.append(f"Dockerfile: COPY --from={match.group(1)} names "
                            f"no stage")
    users = [args for word, args in final if word == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        problems.append("Dockerfile: the final stage does not run as a "
                        "non-root USER")
    health = [args for word, args in final if word == "HEALTHCHECK"]
    if not health or "khetctl" not in health[-1] or "health" not in \
            health[-1].replace("HEALTHCHECK", ""):
        problems.append("Dockerfile: no HEALTHCHECK with khetctl health")
    exposed = " ".join(args for word, args in final if word == "EXPOSE")
    for port in ("50051", "8080"):
        if port not in exposed.split():
            problems.append(f"Dockerfile: port {port} is not exposed")
    return problems


# ---- Flags ------------------------------------------------------------------


def khetd_flags(khetd):
    result = subprocess.run([khetd, "--helpfull"], capture_output=True,
                            text=True, timeout=60)
    return set(re.findall(r"^\s+--([a-z_0-9]+)", result.stdout + result.stderr,
                          re.MULTILINE))


def used_flags(texts):
    flags = set()
    for text in texts:
        flags |= set(re.findall(r"--([a-z][a-z_0-9]*)=", text))
    return flags


def check_flags(used, known, notes):
    problems = []
    for flag in sorted(used - known):
        if flag in FEATURE_FLAGS:
            notes.append(f"not checked: --{flag} ({FEATURE_FLAGS[flag]}); "
                         f"this khetd was built without it")
        else:
            problems.append(f"flags: khetd has no --{flag}")
    return problems


# ---- Tools that may be missing -----------------------------------------------


def check_systemd(unit_path, khetd, notes):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        notes.append("not checked: systemd unit (no systemd-analyze here)")
        return []
    with tempfile.TemporaryDirectory() as tmp:
        with open(unit_path, encoding="utf-8") as f:
            unit = f.read().replace("/usr/bin/khetd", khetd)
        copy_path = os.path.join(tmp, os.path.basename(unit_path))
        with open(copy_path, "w", encoding="utf-8") as f:
            f.write(unit)
        result = subprocess.run([analyze, "verify", copy_path],
                                capture_output=True, text=True, timeout=60)
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0 or output:
        return [f"systemd-analyze verify: {output or result.returncode}"]
    notes.append("checked: systemd-analyze verify khetd.service")
    return []


def check_nginx(conf_path, notes):
    if not os.path.isfile(conf_path):
        notes.append(f"not checked: {conf_path} is not there yet")
        return []
    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if nginx is None:
        notes.append("not checked: nginx config (no nginx here)")
        return []
    with open(conf_path, encoding="utf-8") as f:
        conf = f.read()
    # The file is a whole nginx configuration with ${KHET_NGINX_*}
    # placeholders, filled in here with the values compose gives them.
    replaced = []
    for _ in range(10):
        with tempfile.TemporaryDirectory() as tmp:
            filled = fill_nginx_template(conf, tmp)
            for name in replaced:
                filled = re.sub(r"\b" + re.escape(name) + r"(?=:\d)",
                                "127.0.0.1", filled)
            main_path = os.path.join(tmp, "nginx.conf")
            with open(main_path, "w", encoding="utf-8") as f:
                f.write(filled)
            result = subprocess.run(
                [nginx, "-t", "-p", tmp, "-c", main_path],
                capture_output=True, text=True, timeout=60)
        output = result.stdout + result.stderr
        if result.returncode == 0:
            note = "checked: nginx -t on khet-grpc.conf"
            if replaced:
                note += (" (with " + ", ".join(replaced) + " read as "
                         "127.0.0.1: names that exist only inside compose or "
                         "Kubernetes)")
            notes.append(note)
            return []
        # Service names resolve only inside compose or Kubernetes: test the
        # rest of the file with the name read as the loopback address.
        host = re.search(r'host not found in upstream "([^":]+)', output)
        if host is None or host.group(1) in replaced:
            break
        replaced.append(host.group(1))
    return [f"nginx -t: {output.strip()}"]


def fill_nginx_template(conf, prefix):
    """The template with compose's values (and `prefix` for its files)."""
    values = {
        "KHET_NGINX_PREFIX": prefix,
        "KHET_NGINX_LISTEN": "127.0.0.1:50051",
        "KHET_NGINX_UPSTREAMS": "server khetd:50051;",
    }
    for name, value in values.items():
        conf = conf.replace("${" + name + "}", value)
    return conf


def check_nginx_mount(compose, conf_path):
    """Compose fills in every placeholder of the nginx template."""
    if not os.path.isfile(conf_path):
        return []
    with open(conf_path, encoding="utf-8") as f:
        names = set(re.findall(r"\$\{(KHET_NGINX_[A-Z_]+)\}", f.read()))
    nginx = compose.get("services", {}).get("nginx", {})
    given = set(nginx.get("environment", {}) or {})
    command = " ".join(str(c) for c in nginx.get("command", []) or [])
    problems = []
    for name in sorted(names):
        if name not in given:
            problems.append(f"compose: nginx does not set {name}")
        if "$$" + name not in command:
            problems.append(f"compose: nginx's envsubst does not fill {name}")
    if names and "envsubst" not in command:
        problems.append("compose: nginx does not fill in khet-grpc.conf")
    return problems


# ---- The run ----------------------------------------------------------------


def self_test(k8s_objects, k8s_files, kustomization, compose, dockerfile):
    """Each check must find a planted fault; returns the ones that did not."""
    missed = []

    def expect_fault(name, problems):
        if not problems:
            missed.append(f"self-test: the check missed: {name}")

    def deployment(objects):
        return next(o for o in objects if o["kind"] == "Deployment")

    broken = copy.deepcopy(k8s_objects)
    del deployment(broken)["spec"]["template"]["spec"]["containers"][0][
        "readinessProbe"]
    expect_fault("no readiness probe",
                 check_k8s(broken, k8s_files, kustomization))
    broken = copy.deepcopy(k8s_objects)
    deployment(broken)["spec"]["template"]["spec"]["containers"][0][
        "args"].append("--x=$(UNDEFINED)")
    expect_fault("undefined $(VAR)",
                 check_k8s(broken, k8s_files, kustomization))
    broken = [o for o in copy.deepcopy(k8s_objects)
              if o["kind"] != "PodDisruptionBudget"]
    expect_fault("no PodDisruptionBudget",
                 check_k8s(broken, k8s_files, kustomization))
    broken = copy.deepcopy(compose)
    broken["services"]["khetd"]["deploy"]["replicas"] = 1
    expect_fault("one replica", check_compose(broken, DEPLOY))
    broken = copy.deepcopy(compose)
    del broken["networks"]["default"]["ipam"]["config"][0]["ip_range"]
    expect_fault("nginx's address in the dynamic range",
                 check_compose(broken, DEPLOY))
    expect_fault("USER root", check_dockerfile(
        dockerfile + "\nUSER root\n"))
    expect_fault("single stage", check_dockerfile(
        "\n".join(l for l in dockerfile.splitlines()
                  if not (l.startswith("FROM ") and l.endswith(" AS build")))))
    expect_fault("a base that is not bookworm", check_dockerfile(
        dockerfile.replace("ARG RUNTIME_BASE=debian:bookworm-slim",
                           "ARG RUNTIME_BASE=debian:trixie-slim")))
    expect_fault("misspelt flag", check_flags({"listne"}, {"listen"}, []))
    broken = copy.deepcopy(compose)
    del broken["services"]["nginx"]["environment"]["KHET_NGINX_UPSTREAMS"]
    expect_fault("an nginx placeholder left empty", check_nginx_mount(
        broken, os.path.join(DEPLOY, "nginx", "khet-grpc.conf")))
    return missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--khetctl", required=True)
    args = parser.parse_args()
    args.khetd = os.path.abspath(args.khetd)
    args.khetctl = os.path.abspath(args.khetctl)

    problems, notes = [], []
    yaml_files = []
    for root, _, files in os.walk(DEPLOY):
        yaml_files += [os.path.join(root, f) for f in files
                       if f.endswith((".yaml", ".yml"))]
    documents = {}
    for path in sorted(yaml_files):
        try:
            documents[path] = load_yaml_documents(path)
        except yaml.YAMLError as e:
            problems.append(f"{os.path.relpath(path, DEPLOY)}: does not "
                            f"parse: {e}")
    notes.append(f"parsed {len(documents)} YAML files")
    if problems:
        print("\n".join(problems))
        return 1

    k8s_dir = os.path.join(DEPLOY, "k8s")
    kustomization_path = os.path.join(k8s_dir, "kustomization.yaml")
    k8s_files = sorted(os.path.basename(p) for p in documents
                       if os.path.dirname(p) == k8s_dir and
                       p != kustomization_path)
    k8s_objects = [doc for p in documents if os.path.dirname(p) == k8s_dir
                   and p != kustomization_path for doc in documents[p]]
    kustomization = (documents[kustomization_path][0]
                     if kustomization_path in documents else None)
    compose = documents[os.path.join(DEPLOY, "compose.yaml")][0]
    with open(os.path.join(DEPLOY, "Dockerfile"), encoding="utf-8") as f:
        dockerfile = f.read()
    unit_path = os.path.join(DEPLOY, "systemd", "khetd.service")
    with open(unit_path, encoding="utf-8") as f:
        unit = f.read()

    problems += self_test(k8s_objects, k8s_files, kustomization, compose,
                          dockerfile)
    problems += check_k8s(k8s_objects, k8s_files, kustomization)
    problems += check_compose(compose, DEPLOY)
    problems += check_dockerfile(dockerfile)

    deployment = next(o for o in k8s_objects if o["kind"] == "Deployment")
    # khetd's command lines: the image's CMD, the unit's ExecStart, the
    # Deployment's args and the compose command.
    texts = [a for w, a in dockerfile_instructions(dockerfile) if w == "CMD"]
    texts += re.findall(r"^ExecStart=(.*)$", unit, re.MULTILINE)
    texts += deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    texts += [str(c) for c in compose["services"]["khetd"]["command"]]
    problems += check_flags(used_flags(texts), khetd_flags(args.khetd), notes)
    help_text = subprocess.run([args.khetctl, "help"], capture_output=True,
                               text=True, timeout=60).stdout
    if not re.search(r"^\s+health\b", help_text, re.MULTILINE):
        problems.append("khetctl has no `health` command (the HEALTHCHECK)")

    problems += check_systemd(unit_path, args.khetd, notes)
    nginx_conf = os.path.join(DEPLOY, "nginx", "khet-grpc.conf")
    problems += check_nginx(nginx_conf, notes)
    problems += check_nginx_mount(compose, nginx_conf)
    for note in notes:
        print(note)
    if problems:
        print("PROBLEMS:\n  " + "\n  ".join(problems))
        return 1
    print("deploy: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
