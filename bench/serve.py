"""Replica servers for the benchmark, each in its own process so the load client never
shares a GIL with the server it measures.

`python -m bench.serve` runs the engine's in-process replica server (a threaded WSGI
server) in a child process: it prints `{"port": N}` once listening and exits when its
standard input closes. `ServerProcess` starts that or gunicorn and stops it again.
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

READY_TIMEOUT_S = 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gunicorn_path() -> str | None:
    here = Path(sys.executable).parent / "gunicorn"
    return str(here) if here.exists() else shutil.which("gunicorn")


class ServerProcess:
    """A replica server in a child process on 127.0.0.1; a context manager."""

    def __init__(self, kind: str = "inprocess", *, workers: int = 2, threads: int = 4):
        if kind not in ("inprocess", "gunicorn"):
            raise ValueError(f"unknown server kind {kind!r} (inprocess, gunicorn)")
        self.kind, self.workers, self.threads = kind, workers, threads
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    def describe(self) -> str:
        if self.kind == "gunicorn":
            return f"gunicorn, {self.workers} processes x {self.threads} threads"
        return "in-process replica server (threaded WSGI, one process)"

    def __enter__(self):
        env = child_env(REPLICAGYM_SERVE_URL="")
        if self.kind == "inprocess":
            self.proc = subprocess.Popen(
                [python(), "-m", "bench.serve"], cwd=ROOT, env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )
            line = self.proc.stdout.readline()
            if not line:
                self.__exit__(None, None, None)
                raise RuntimeError("the replica server process exited before listening")
            self.port = json.loads(line)["port"]
        else:
            exe = gunicorn_path()
            if exe is None:
                raise RuntimeError("gunicorn is not installed in this environment")
            self.port = _free_port()
            self.proc = subprocess.Popen(
                [exe, "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
                 "--threads", str(self.threads), "--log-level", "warning", "replicagym.wsgi"],
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
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
        if self.kind == "inprocess" and self.proc.stdin:
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
    from episodes.server import replica_server

    _host, port = replica_server()
    print(json.dumps({"port": port}), flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin (or dies)


if __name__ == "__main__":
    main()
