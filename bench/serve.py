"""Replica servers for the benchmark, each in its own process so the load client never
shares a GIL with the server it measures.

`engine` is the server episodes are served by (episodes.engine.server: gunicorn in a child
process, sized for the machine): `python -m bench.serve` starts it as the engine does,
prints `{"port": N}` once it answers and exits (stopping it) when its standard input
closes. `gunicorn` is production's web command (docker/compose.yaml) on this machine.
`ServerProcess` starts either and stops it again.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from .children import ROOT, child_env, python

READY_TIMEOUT_S = 120  # Django and every replica load first; seconds on a loaded machine
KINDS = ("engine", "gunicorn")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gunicorn_path() -> str | None:
    here = Path(sys.executable).parent / "gunicorn"
    return str(here) if here.exists() else shutil.which("gunicorn")


class ServerProcess:
    """A replica server in a child process on 127.0.0.1; a context manager."""

    def __init__(self, kind: str = "engine", *, workers: int = 3, threads: int = 4):
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r} ({', '.join(KINDS)})")
        self.kind, self.workers, self.threads = kind, workers, threads
        if kind == "engine":
            from episodes.engine.server import server_size

            self.workers, self.threads = server_size()
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    def describe(self) -> str:
        if self.kind == "gunicorn":
            return f"gunicorn as in production, {self.workers} processes x {self.threads} threads"
        return f"the engine's replica server: gunicorn, {self.workers} processes x {self.threads} threads"

    def __enter__(self):
        env = child_env(REPLICAGYM_SERVE_URL="")
        if self.kind == "engine":
            self.proc = subprocess.Popen(
                [python(), "-m", "bench.serve"],
                cwd=ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            line = self.proc.stdout.readline()
            if not line:
                self.__exit__(None, None, None)
                raise RuntimeError("the engine's replica server exited before serving")
            self.port = json.loads(line)["port"]
        else:
            exe = gunicorn_path()
            if exe is None:
                raise RuntimeError("gunicorn is not installed in this environment")
            self.port = _free_port()
            self.proc = subprocess.Popen(
                [
                    exe,
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--workers",
                    str(self.workers),
                    "--threads",
                    str(self.threads),
                    "--log-level",
                    "warning",
                    "replicagym.wsgi",
                ],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
            )
            self._wait_listening()
        return self

    def _wait_listening(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode} before listening")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=2).close()
                return
            except urllib.error.HTTPError:
                return  # it answered: listening
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.kind} did not listen within {READY_TIMEOUT_S} s")

    def __exit__(self, *exc):
        if self.proc is None:
            return False
        if self.kind == "engine" and self.proc.stdin:
            self.proc.stdin.close()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        return False


def main():
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
    django.setup()
    from episodes.engine.server import replica_server

    _host, port = replica_server()
    print(json.dumps({"port": port}), flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin (or dies); the server stops at exit


if __name__ == "__main__":
    main()
