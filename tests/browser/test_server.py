"""The engine's replica server (gunicorn in child processes) and the external-server setting."""

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

import psutil
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from episodes.engine import server as server_module
from episodes.engine.server import external_server, replica_server, replica_server_stop


def test_replica_server_starts_once_and_serves_the_platform():
    first = replica_server()
    assert first == replica_server()
    host, port = first
    assert host == "127.0.0.1" and port > 0
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
        assert response.status == 200 and b'"ok": true' in response.read()


def test_serve_url_setting_points_the_engine_at_an_external_server(settings):
    settings.SERVE_URL = "http://127.0.0.1:8123"
    assert replica_server() == ("127.0.0.1", 8123)


@pytest.mark.parametrize("url", ["127.0.0.1:8000", "ftp://host:21", "http://host:notaport", "http://"])
def test_bad_serve_url_is_refused_with_the_variable_named(url):
    with pytest.raises(ImproperlyConfigured, match="REPLICAGYM_SERVE_URL"):
        external_server(url)


# --- the server episodes are served by: gunicorn in child processes of the engine's process ---


def _server_processes() -> list[psutil.Process]:
    master = psutil.Process(server_module._server.proc.pid)
    return [master, *master.children(recursive=True)]


def test_the_replica_server_is_gunicorn_in_child_processes_on_this_database():
    replica_server()
    master, *workers = _server_processes()
    assert master.ppid() == os.getpid()
    config = json.loads(master.cmdline()[-1])
    assert master.cmdline()[1:3] == ["-m", "episodes.engine.server"]
    # the database this process is connected to now: the test database here
    assert config["db_name"] == str(connection.settings_dict["NAME"])
    assert len(workers) == config["workers"] == server_module.server_size()[0] >= 1


def test_the_server_sizes_itself_for_the_machine():
    assert server_module.server_size(1) == (1, 4)
    assert server_module.server_size(2) == server_module.server_size(8) == (2, 4)


def test_stopping_the_server_leaves_no_process_and_the_next_call_starts_another():
    first = replica_server()
    processes = _server_processes()
    replica_server_stop()
    assert not [p for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert replica_server() != first or server_module._server.proc.pid != processes[0].pid


def test_a_server_outlives_no_parent_that_was_killed(tmp_path):
    # a process that starts the server and is then killed outright (no atexit, no cleanup)
    script = (
        "import django, os, sys; django.setup()\n"
        "from episodes.engine import server\n"
        "server.replica_server()\n"
        "print(server._server.proc.pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings.SETTINGS_MODULE,
        "PYTHONPATH": os.pathsep.join([str(settings.BASE_DIR), str(settings.BASE_DIR / "platform")]),
    }
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        master = psutil.Process(int(parent.stdout.readline()))
        tree = [master, *master.children(recursive=True)]
        assert master.ppid() == parent.pid
    finally:
        parent.kill()
        parent.wait()
    gone, alive = psutil.wait_procs(tree, timeout=60)
    assert not alive, f"left behind: {[p.pid for p in alive]}"


def test_a_forked_child_starts_its_own_server_and_the_parents_keeps_serving():
    # as a Celery prefork worker: the child inherits the parent's server object, not its use
    parent_address = replica_server()
    parent_master = server_module._server.proc.pid
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its server, then leave through its exit hooks (which stop it)
        code = 1
        try:
            os.close(read_end)
            address = replica_server()
            os.write(write_end, json.dumps([address[1], server_module._server.proc.pid]).encode())
            server_module.replica_server_stop()
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as answer:
        child_port, child_master = json.loads(answer.read() or "[0, 0]")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert child_master and child_master != parent_master and child_port != parent_address[1]
    assert not psutil.pid_exists(child_master) or psutil.Process(child_master).status() == psutil.STATUS_ZOMBIE
    assert replica_server() == parent_address and server_module._server.proc.pid == parent_master
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{parent_address[1]}/healthz", timeout=30) as response:
        assert response.status == 200


def test_the_replica_server_never_runs_with_debug_on_even_from_a_process_that_has_it(settings):
    """Agents' server serves as production does: Django's debug 404 (it lists the URL patterns) is never drawn."""
    replica_server_stop()  # the next replica_server() starts from this process's settings
    settings.DEBUG = True
    try:
        _, port = replica_server()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with pytest.raises(urllib.error.HTTPError) as missing:
            opener.open(f"http://127.0.0.1:{port}/no-such-page", timeout=10)
        body = missing.value.read()
        assert missing.value.code == 404 and b"URLconf" not in body and b"URL patterns" not in body
    finally:
        replica_server_stop()
