"""Several hosts on one machine: a web host and two worker hosts, each in a network namespace of its own.

`manage.py multihost` builds this layout, submits a run of oracle episodes to the web
host's REST API over the wire, waits for the two worker hosts to play it, checks that
each episode was recorded once and that both workers took some, and takes it all down:

    root namespace: bridge <id>, 10.77.<slot>.1, TCP forwarders to PostgreSQL and Redis
      +- veth -- <id>-web  10.77.<slot>.2   gunicorn :8000 (the API) and the scheduler
      +- veth -- <id>-wa   10.77.<slot>.3   Celery worker A, its own Chromium
      +- veth -- <id>-wb   10.77.<slot>.4   Celery worker B, its own Chromium

PostgreSQL and Redis listen on the root namespace's loopback only, which a namespace
cannot see (it has a loopback of its own): the hosts reach them through forwarders of
this process on the bridge address, so every byte of their database and broker
traffic crosses a veth, as it would cross the network between machines. Each host's
processes also get a UTS namespace whose hostname is the host's name, so worker names
(hostname:pid:instance, in heartbeats and in Episode.claimed_by) say which host ran what.

Everything is named after a per-run id under a "slot" (a lock file held for the whole
run): the slot fixes the subnet and the Redis database, so concurrent runs never share
either, and whatever a run killed outright (SIGKILL) left behind is removed by the next
run that takes its slot. Every host process dies with this one (parent-death signal),
and teardown runs in a finally: processes, namespaces, links and the Redis database.
"""

import asyncio
import fcntl
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import redis
from celery import Celery
from django.conf import settings
from django.db import connection
from replicagym.env import database_url

from episodes.models import Episode, Run
from episodes.queue.heartbeat import worker_identity
from episodes.runs import DEFAULT_QUEUE
from ops.fleet import ROOT, celery_worker_argv, run_recorded_once, venv_bin, worker_env
from replicas.worlds.cli import signals_held

# Concurrent runs on one machine: each holds one slot, with its own subnet and Redis database.
SLOTS = 4
SUBNET = "10.77.{slot}"
# Redis databases 8 to 11 belong to multihost runs (slot 0 to 3): flushed before and after each.
REDIS_FIRST_DB = 8
# Every name a run makes starts with this and its slot, so the next run of the slot finds leftovers.
PREFIX = "rgmh"
WEB_PORT = 8000
READY_SECONDS = 120  # a host's processes import Django and start Chromium on a loaded 2-core machine
STOP_SECONDS = 20


class MultihostError(RuntimeError):
    """The layout could not be built or the run did not go as it must; the message says what and where."""


@dataclass(frozen=True)
class Host:
    role: str  # "web", "worker_a", "worker_b"
    name: str  # its network namespace, its hostname and the root side of its veth
    address: str


@dataclass(frozen=True)
class Layout:
    slot: int
    run_id: str  # PREFIX + slot + 4 hex digits; the bridge's name
    gateway: str  # the bridge's address in the root namespace: where the forwarders listen
    hosts: tuple[Host, ...]

    @property
    def bridge(self) -> str:
        return self.run_id

    @property
    def redis_db(self) -> int:
        return REDIS_FIRST_DB + self.slot

    @property
    def web(self) -> Host:
        return self.hosts[0]

    @property
    def workers(self) -> tuple[Host, ...]:
        return self.hosts[1:]

    @property
    def web_url(self) -> str:
        return f"http://{self.web.address}:{WEB_PORT}"


def layout_for(slot: int) -> Layout:
    run_id = f"{PREFIX}{slot}{secrets.token_hex(2)}"  # interface names hold 15 characters: this is 9
    net = SUBNET.format(slot=slot)
    hosts = (
        Host("web", f"{run_id}-web", f"{net}.2"),
        Host("worker_a", f"{run_id}-wa", f"{net}.3"),
        Host("worker_b", f"{run_id}-wb", f"{net}.4"),
    )
    return Layout(slot=slot, run_id=run_id, gateway=f"{net}.1", hosts=hosts)


# --- what the machine must offer ---------------------------------------------------------------


def missing_requirements(*, redis_url: str) -> list[str]:
    """Why multihost cannot run here (empty: it can): root, iproute2, util-linux, PostgreSQL, Redis."""
    missing = []
    if os.geteuid() != 0:
        missing.append("not root: network namespaces and veth pairs need root")
    for tool, package in (
        ("ip", "iproute2"),
        ("unshare", "util-linux"),
        ("setpriv", "util-linux"),
        ("hostname", "hostname"),
    ):
        if shutil.which(tool) is None:
            missing.append(f"no `{tool}` on PATH (install {package})")
    if not missing and subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        missing.append("`ip netns` does not work here")
    conf = connection.settings_dict
    if conf["ENGINE"].endswith("sqlite3"):
        missing.append(
            "the database is SQLite: a SQLite file cannot be shared between hosts; set DATABASE_URL=postgres://..."
        )
    elif not reachable(conf["HOST"] or "127.0.0.1", int(conf["PORT"] or 5432)):
        missing.append(f"no PostgreSQL on {conf['HOST'] or '127.0.0.1'}:{conf['PORT'] or 5432}")
    redis_host, redis_port = redis_address(redis_url)
    if not reachable(redis_host, redis_port):
        missing.append(f"no Redis on {redis_host}:{redis_port}")
    return missing


def reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
        return True
    except OSError:
        return False


def redis_address(redis_url: str) -> tuple[str, int]:
    parts = urlsplit(redis_url)
    if parts.scheme not in ("redis", ""):
        raise MultihostError(f"--redis {redis_url!r}: give a redis://host:port URL")
    return parts.hostname or "127.0.0.1", parts.port or 6379


# --- slots ---------------------------------------------------------------------------------------


@contextmanager
def slot_held():
    """Hold the first free slot (an exclusive lock on its file) for the whole run; yields its number."""
    folder = Path("/run/lock") if Path("/run/lock").is_dir() else Path(tempfile.gettempdir())
    for slot in range(SLOTS):
        lock = open(folder / f"replicagym-multihost-{slot}.lock", "w")  # noqa: SIM115 - held until the run ends
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another run has it
            lock.close()
            continue
        try:
            yield slot
        finally:
            lock.close()  # releases the lock
        return
    raise MultihostError(f"all {SLOTS} multihost slots are taken by runs in progress: try again when one ends")


# --- the network ---------------------------------------------------------------------------------


def ip(*args: str, netns: str | None = None, check: bool = True) -> str:
    argv = ["ip", *(["-n", netns] if netns else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise MultihostError(f"`{' '.join(argv)}` failed: {done.stderr.strip()}")
    return done.stdout


def network_up(layout: Layout) -> None:
    """The bridge with the gateway address, and one namespace per host joined to it by a veth pair."""
    subnet = f"{layout.gateway.rpartition('.')[0]}.0/24"
    if taken := ip("-o", "addr", "show", "to", subnet).strip():  # a network of this machine's own: not ours to shadow
        raise MultihostError(f"{subnet} is in use on this machine already: {taken.splitlines()[0]}")
    ip("link", "add", layout.bridge, "type", "bridge")
    ip("addr", "add", f"{layout.gateway}/24", "dev", layout.bridge)
    ip("link", "set", layout.bridge, "up")
    for host in layout.hosts:
        ip("netns", "add", host.name)
        ip("link", "set", "lo", "up", netns=host.name)  # the worker's own replica server and Chromium talk over it
        # the host's end is its eth0, like a machine's; the root end joins the bridge
        ip("link", "add", host.name, "type", "veth", "peer", "name", "eth0", "netns", host.name)
        ip("link", "set", host.name, "master", layout.bridge, "up")
        ip("addr", "add", f"{host.address}/24", "dev", "eth0", netns=host.name)
        ip("link", "set", "eth0", "up", netns=host.name)


def namespaces_named(prefix: str) -> list[str]:
    return [line.split()[0] for line in ip("netns", "list", check=False).splitlines() if line.startswith(prefix)]


def links_named(prefix: str) -> list[str]:
    names = []
    for line in ip("-o", "link", "show", check=False).splitlines():
        name = line.split(":", 2)[1].strip().split("@")[0]  # "7: rgmh1ab12-wa@if2: <...>"
        if name.startswith(prefix):
            names.append(name)
    return names


def namespace_pids(name: str) -> list[int]:
    return [int(pid) for pid in ip("netns", "pids", name, check=False).split()]


def network_down(prefix: str) -> None:
    """Kill whatever still runs in the namespaces named `prefix`..., then delete them and the links."""
    for name in namespaces_named(prefix):
        for pid in namespace_pids(name):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        ip("netns", "delete", name, check=False)
    # deleting a veth's root end deletes its pair; the bridge goes last
    for name in sorted(links_named(prefix), key=lambda n: "-" not in n):
        ip("link", "delete", name, check=False)


def leftovers(prefix: str) -> list[str]:
    """What a run named `prefix` left on the machine: namespaces, links, processes in them (empty: nothing)."""
    found = [f"namespace {n} (pids {namespace_pids(n)})" for n in namespaces_named(prefix)]
    return found + [f"link {n}" for n in links_named(prefix)]


# --- the forwarders ------------------------------------------------------------------------------


class _Pipe(asyncio.Protocol):
    """One side of a forwarded connection: what it receives goes out on its peer, and its end ends the peer."""

    def __init__(self, stats: dict, open_transports: set, peer: asyncio.Transport | None = None):
        self.stats, self.open_transports, self.peer, self.transport = stats, open_transports, peer, None

    def connection_made(self, transport):
        self.transport = transport
        self.open_transports.add(transport)

    def data_received(self, data):
        self.stats["bytes"] += len(data)
        self.peer.write(data)

    def connection_lost(self, exc):
        self.open_transports.discard(self.transport)
        if self.peer is not None:
            self.peer.close()

    # a peer that cannot keep up stops this side's reading until it can (no unbounded buffering)
    def pause_writing(self):
        self.peer.pause_reading()

    def resume_writing(self):
        self.peer.resume_reading()


class Forwarder:
    """TCP forwarders run by an event loop in a thread of this process, so they end with it.

    Each listens on the bridge address and counts connections by the host they come
    from, and bytes both ways: the evidence that the hosts' traffic went over the veths.
    Protocols rather than streams: a query's round trip through it costs one callback each way.
    """

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="multihost-forwarder", daemon=True)
        self.thread.start()
        self.servers = []
        self.transports: set[asyncio.Transport] = set()
        self.traffic: dict[str, dict] = {}

    def forward(self, service: str, *, listen: str, target: tuple[str, int]) -> int:
        """Forward connections to `listen`:<a free port> to `target`; returns the port."""
        return asyncio.run_coroutine_threadsafe(self._serve(service, listen, target), self.loop).result(timeout=10)

    async def _serve(self, service: str, listen: str, target: tuple[str, int]) -> int:
        stats = self.traffic.setdefault(service, {"connections": Counter(), "bytes": 0})
        forwarder = self

        class Downstream(_Pipe):
            def connection_made(self, transport):
                super().connection_made(transport)
                stats["connections"][transport.get_extra_info("peername")[0]] += 1
                transport.pause_reading()  # until the upstream connection is there to take the bytes
                self.connecting = forwarder.loop.create_task(
                    self.connect_upstream()
                )  # held: a task is weakly referenced

            async def connect_upstream(self):
                try:
                    upstream, _ = await forwarder.loop.create_connection(
                        lambda: _Pipe(stats, forwarder.transports, peer=self.transport), *target
                    )
                except OSError:
                    self.transport.close()
                    return
                if self.transport.is_closing():  # the host gave up meanwhile
                    upstream.close()
                    return
                self.peer = upstream
                self.transport.resume_reading()

        server = await self.loop.create_server(lambda: Downstream(stats, self.transports), listen, 0)
        self.servers.append(server)
        return server.sockets[0].getsockname()[1]

    def close(self) -> None:
        def shutdown():
            for server in self.servers:
                server.close()
            for transport in list(self.transports):
                transport.abort()  # closes its socket in a callback of the next turn...
            self.loop.call_soon(self.loop.stop)  # ...which runs before this one

        self.loop.call_soon_threadsafe(shutdown)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()

    def summary(self) -> dict:
        return {
            service: {"connections": dict(s["connections"]), "bytes": s["bytes"]} for service, s in self.traffic.items()
        }


# --- the hosts' processes ------------------------------------------------------------------------


def host_argv(host: Host, argv: list[str]) -> list[str]:
    """`argv` on `host`: in its network namespace, with its name as hostname, killed (SIGTERM) when we die."""
    return [
        "setpriv",
        "--pdeathsig",
        "TERM",
        "--",
        "ip",
        "netns",
        "exec",
        host.name,
        "unshare",
        "--uts",
        "--",
        "sh",
        "-c",
        'hostname "$0" && exec "$@"',
        host.name,
        *argv,
    ]


class HostProcesses:
    """The processes started on the hosts, each in a session of its own so a signal reaches its children too."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, host: Host, what: str, argv: list[str], env: dict) -> subprocess.Popen:
        label = f"{host.role}-{what}"
        with open(self.logs / f"{label}.log", "ab") as log:
            proc = subprocess.Popen(
                host_argv(host, argv),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.procs.append((label, proc))
        return proc

    def check_alive(self) -> None:
        for label, proc in self.procs:
            if proc.poll() is not None:
                raise MultihostError(f"{label} exited with status {proc.returncode}: {self.log_tail(label)}")

    def log_tail(self, label: str, chars: int = 1500) -> str:
        path = self.logs / f"{label}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return f"...{text[-chars:]}" if len(text) > chars else text or "(no output)"

    def stop(self) -> None:
        """SIGTERM to every group (a Celery worker ends its episode, gunicorn its requests), SIGKILL after
        STOP_SECONDS.
        """
        for _, proc in self.procs:
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for _, proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def hosts_env(layout: Layout, *, database: str, broker: str) -> dict:
    """What every host's processes run with: the database and broker at the gateway, the web host's name allowed."""
    env = worker_env(
        DATABASE_URL=database,
        CELERY_BROKER_URL=broker,
        ALLOWED_HOSTS=",".join([*settings.ALLOWED_HOSTS, layout.web.address]),  # worlds' names stay allowed
    )
    env.pop("REPLICAGYM_SERVE_URL", None)  # each worker serves worlds to its Chromium itself, as on its own machine
    return env


def hosts_start(layout: Layout, procs: HostProcesses, env: dict, *, concurrency: int) -> None:
    """The web host's gunicorn and scheduler (as docker/compose.yaml runs them), and a Celery worker per worker host."""
    procs.start(
        layout.web,
        "gunicorn",
        [
            venv_bin("gunicorn"),
            "--bind",
            f"{layout.web.address}:{WEB_PORT}",
            "--workers",
            "2",
            "--threads",
            "4",
            "replicagym.wsgi",
        ],
        env,
    )
    procs.start(layout.web, "scheduler", [venv_bin("python"), str(ROOT / "manage.py"), "scheduler"], env)
    for host in layout.workers:
        procs.start(
            host,
            "celery",
            celery_worker_argv(node=f"worker@{host.name}", queue=DEFAULT_QUEUE, concurrency=concurrency),
            env,
        )


def hosts_wait_ready(layout: Layout, procs: HostProcesses, *, broker_url: str) -> None:
    """Until the API answers on the web host and each worker answers a ping over the broker."""
    deadline = time.monotonic() + READY_SECONDS
    waiting_for = {f"worker@{h.name}" for h in layout.workers}
    web_up = False
    app = Celery("multihost", set_as_current=False)
    # Celery prefers a CELERY_BROKER_URL of the environment to broker_url; the read and write URLs it does not
    app.conf.broker_read_url = app.conf.broker_write_url = broker_url
    try:
        while not web_up or waiting_for:
            procs.check_alive()
            if time.monotonic() > deadline:
                late = ([] if web_up else [f"the API on {layout.web_url}"]) + sorted(waiting_for)
                raise MultihostError(f"not ready after {READY_SECONDS} s: {', '.join(late)}")
            if not web_up:
                with suppress(httpx.HTTPError):
                    web_up = httpx.get(f"{layout.web_url}/healthz", timeout=2).status_code == 200
            if waiting_for:
                for answer in app.control.ping(destination=sorted(waiting_for), timeout=1.0):
                    waiting_for -= set(answer)
            if not web_up or waiting_for:
                time.sleep(0.5)
    finally:
        app.close()


# --- the run, through the API --------------------------------------------------------------------


def api_client(layout: Layout, *, username: str, password: str) -> httpx.Client:
    """A session on the web host's API, signed in through its login page as a person would (cookie and CSRF token)."""
    client = httpx.Client(base_url=layout.web_url, timeout=30)
    client.get("/accounts/login/").raise_for_status()
    signed_in = client.post(
        "/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": client.cookies["csrftoken"]},
    )
    if "sessionid" not in client.cookies:
        raise MultihostError(f"signing in as {username} on {layout.web_url} failed (HTTP {signed_in.status_code})")
    client.headers["X-CSRFToken"] = client.cookies["csrftoken"]  # rotated at sign-in
    return client


def run_submit(client: httpx.Client, *, task_id: str, episodes: int) -> int:
    response = client.post("/api/runs", json={"task_filter": task_id, "agent": "oracle", "attempts": episodes})
    if response.status_code != 201:
        raise MultihostError(f"POST /api/runs answered {response.status_code}: {response.text[:500]}")
    return response.json()["id"]


def run_follow(client: httpx.Client, run_id: int, procs: HostProcesses, *, timeout: float, say) -> dict:
    """Poll the run over the API until it has ended; says each change of progress. Returns its last progress."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        procs.check_alive()
        progress = client.get(f"/api/runs/{run_id}").raise_for_status().json()["progress"]
        line = (
            f"run {run_id}: {progress['status']}, {progress['ended']}/{progress['total']} ended "
            f"({progress['succeeded']} passed, {progress['running']} running)"
        )
        if line != last:
            say(line)
            last = line
        if progress["status"] in Run.ENDED:
            return progress
        if time.monotonic() > deadline:
            raise MultihostError(f"run {run_id} not done after {timeout:.0f} s: {line}")
        time.sleep(1)


def episodes_by_worker(run: Run) -> dict[str, int]:
    """Episodes of the run by the worker that claimed them (hostname:pid:instance), as recorded in the database."""
    return dict(Counter(Episode.objects.filter(run=run).values_list("claimed_by", flat=True)))


def hosts_problems(layout: Layout, by_worker: dict[str, int], traffic: dict) -> list[str]:
    """What says the layout was not used as it must: each worker host took episodes, nobody else did, over the veths."""
    by_host = Counter()
    for worker, count in by_worker.items():
        by_host[worker_identity(worker)[0]] += count
    problems = [
        f"{count} episode(s) claimed by {host or 'nobody'}, not a worker host"
        for host, count in by_host.items()
        if host not in {h.name for h in layout.workers}
    ]
    problems += [f"worker host {h.name} ran no episode" for h in layout.workers if not by_host[h.name]]
    for service in ("postgres", "redis"):
        seen = traffic.get(service, {}).get("connections", {})
        problems += [
            f"{h.name} never reached {service} through the forwarder" for h in layout.hosts if not seen.get(h.address)
        ]
    return problems


# --- the whole --------------------------------------------------------------------------------------


def redis_flush(url: str) -> None:
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        client.flushdb()


def services_forwarded(layout: Layout, forwarder: Forwarder, *, db: tuple[str, int], redis_at: tuple[str, int]) -> dict:
    """Forward PostgreSQL and Redis from the gateway; returns the URLs the hosts use and a line per service."""
    db_port = forwarder.forward("postgres", listen=layout.gateway, target=db)
    redis_port = forwarder.forward("redis", listen=layout.gateway, target=redis_at)
    return {
        "database_url": database_url(host=layout.gateway, port=db_port),
        "broker_url": f"redis://{layout.gateway}:{redis_port}/{layout.redis_db}",
        "lines": {
            "postgres": f"{layout.gateway}:{db_port} -> {db[0]}:{db[1]}",
            "redis": f"{layout.gateway}:{redis_port} -> {redis_at[0]}:{redis_at[1]} db {layout.redis_db}",
        },
    }


def run_played(
    layout: Layout, procs: HostProcesses, *, task, episodes: int, username: str, password: str, timeout: float, say
) -> int:
    """Sign in on the web host, launch the run there, follow it until it has ended; returns the run's id."""
    client = api_client(layout, username=username, password=password)
    try:
        run_id = run_submit(client, task_id=task.task_id, episodes=episodes)
        say(f"run {run_id}: {episodes} x {task.task_id} (oracle) submitted to POST {layout.web_url}/api/runs")
        run_follow(client, run_id, procs, timeout=timeout, say=say)
    finally:
        client.close()
    return run_id


def run_checked(layout: Layout, run_id: int, *, task, episodes: int, traffic: dict) -> dict:
    """What the database recorded of the run, and every check that failed (see fleet.run_recorded_once)."""
    run = Run.objects.get(pk=run_id)
    recorded = run_recorded_once(run, task)
    by_worker = episodes_by_worker(run)
    problems = recorded["problems"] + hosts_problems(layout, by_worker, traffic)
    if recorded["episodes"] != episodes:
        problems.insert(0, f"the run has {recorded['episodes']} episodes, not {episodes}")
    return {
        "run": run_id,
        "episodes": recorded["episodes"],
        "statuses": recorded["statuses"],
        "redeliveries": recorded["redeliveries"],
        "by_worker": by_worker,
        "problems": problems,
    }


def layout_teardown(layout: Layout, procs: HostProcesses, forwarder: Forwarder | None, *, broker_url: str) -> list[str]:
    """Stop the hosts' processes, the forwarders, the network and empty the Redis database; returns what is left."""
    with signals_held():
        procs.stop()
        if forwarder is not None:
            forwarder.close()
        network_down(layout.run_id)
        with suppress(Exception):  # Redis gone meanwhile: the next run of the slot flushes it first
            redis_flush(broker_url)
        return leftovers(layout.run_id)


def multihost_run(
    *,
    task,
    episodes: int,
    username: str,
    password: str,
    redis_url: str,
    concurrency: int = 1,
    timeout: float = 600,
    say=print,
) -> dict:
    """Build the layout, run `episodes` oracle episodes of `task` submitted through the web host's API, tear down.

    Returns the summary: episodes by worker, their states, the forwarders' traffic, wall
    times, leftovers and problems (empty: each episode was recorded once, by the worker hosts).
    Raises MultihostError when the layout cannot be built or the run does not finish.
    """
    started = time.monotonic()
    redis_at = redis_address(redis_url)
    conf = connection.settings_dict
    db = (conf["HOST"] or "127.0.0.1", int(conf["PORT"] or 5432))
    with slot_held() as slot:
        layout = layout_for(slot)
        broker_url = f"redis://{redis_at[0]}:{redis_at[1]}/{layout.redis_db}"  # the same database, from here
        logs = Path(settings.DATA_DIR) / "multihost" / layout.run_id
        logs.mkdir(parents=True, exist_ok=True)
        procs = HostProcesses(logs)
        forwarder = None
        summary = {
            "id": layout.run_id,
            "slot": slot,
            "logs": str(logs),
            "problems": [],
            "hosts": {h.role: f"{h.name} {h.address}" for h in layout.hosts},
        }
        try:
            if stale := leftovers(f"{PREFIX}{slot}"):  # what a run of this slot killed outright left behind
                say(f"multihost: removing what an earlier run of slot {slot} left: {', '.join(stale)}")
                network_down(f"{PREFIX}{slot}")
            redis_flush(broker_url)  # and its messages
            network_up(layout)
            forwarder = Forwarder()
            services = services_forwarded(layout, forwarder, db=db, redis_at=redis_at)
            summary["services"] = services["lines"]
            say(
                f"multihost {layout.run_id}: bridge {layout.bridge} {layout.gateway}/24; "
                + "; ".join(f"{h.role} {h.name} {h.address}" for h in layout.hosts)
            )
            say(
                f"multihost {layout.run_id}: postgres at {services['lines']['postgres']}, redis at "
                f"{services['lines']['redis']}; the hosts' logs in {logs}"
            )
            connection.close()  # the hosts open their own; ours reopens on demand
            hosts_start(
                layout,
                procs,
                hosts_env(layout, database=services["database_url"], broker=services["broker_url"]),
                concurrency=concurrency,
            )
            hosts_wait_ready(layout, procs, broker_url=broker_url)
            summary["setup_seconds"] = round(time.monotonic() - started, 1)
            say(
                f"hosts ready in {summary['setup_seconds']} s: API {layout.web_url}, "
                f"workers {', '.join(h.name for h in layout.workers)}"
            )
            run_id = run_played(
                layout,
                procs,
                task=task,
                episodes=episodes,
                username=username,
                password=password,
                timeout=timeout,
                say=say,
            )
            summary["run_seconds"] = round(time.monotonic() - started - summary["setup_seconds"], 1)
            summary.update(
                run_checked(layout, run_id, task=task, episodes=episodes, traffic=forwarder.traffic),
                traffic=forwarder.summary(),
            )
        finally:
            summary["leftovers"] = layout_teardown(layout, procs, forwarder, broker_url=broker_url)
            summary["wall_seconds"] = round(time.monotonic() - started, 1)
            say(
                f"multihost {layout.run_id}: torn down in {summary['wall_seconds']} s wall, "
                f"left over: {', '.join(summary['leftovers']) or 'nothing'}"
            )
    if summary["leftovers"]:
        summary["problems"].append(f"left over: {', '.join(summary['leftovers'])}")
    if not summary["problems"]:  # the logs are for finding out what went wrong; nothing did
        shutil.rmtree(logs, ignore_errors=True)
        summary["logs"] = None
    return summary
