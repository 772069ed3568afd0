"""A small process manager for bin/start: runs named programs and starts again any that dies, until told to stop.

    python -m replicagym.supervisor [--grace SECONDS] NAME=COMMAND [NAME=COMMAND ...]

Each COMMAND (split like a shell line, without a shell) runs in a session of its own, so
a signal reaches everything it started (a worker's replica server and Chromium). A
program that exits, whatever the reason, is started again after a pause that doubles
while it keeps dying young (1 s up to 30 s) and is back to 1 s once it has run a minute.
SIGTERM or SIGINT stops the programs (SIGTERM to each group, SIGKILL to what is left
after --grace seconds) and then the supervisor. It uses the standard library only: it
must keep running when what it runs cannot start (a broken database, a bad setting).
"""

import argparse
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

FIRST_PAUSE_S = 1.0
MAX_PAUSE_S = 30.0
HEALTHY_AFTER_S = 60.0  # a program that ran this long died of something else than its start: pause from scratch
PR_SET_PDEATHSIG = 1  # prctl option, from <linux/prctl.h>
POLL_S = 0.2  # how often the children are looked at; waitpid on five processes costs nothing


@dataclass
class Program:
    name: str
    argv: list[str]
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    pause: float = FIRST_PAUSE_S
    restart_at: float | None = 0.0  # when to start it (None: running)


def _die_with_parent() -> None:
    """In the child before it runs its program: SIGTERM it when the supervisor dies, even of SIGKILL (Linux).

    Programs run in sessions of their own, so nothing else would take them down with a killed supervisor.
    """
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def say(line: str) -> None:
    sys.stderr.write(f"supervisor: {line}\n")
    sys.stderr.flush()


def program_arg(text: str) -> Program:
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not name.replace("-", "").replace("_", "").isalnum():
        raise argparse.ArgumentTypeError(f"expected NAME=COMMAND with a name of letters, digits, - and _, not {text!r}")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{name}: {exc}") from None
    if not argv:
        raise argparse.ArgumentTypeError(f"{name}: empty command")
    return Program(name=name.strip(), argv=argv)


def how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


class Supervisor:
    def __init__(self, programs: list[Program], *, grace: float):
        self.programs, self.grace = programs, grace
        self.stopping = False

    def request_stop(self, signum, _frame) -> None:
        if not self.stopping:
            say(f"{signal.Signals(signum).name}: stopping {', '.join(p.name for p in self.programs)}")
        self.stopping = True

    def start(self, program: Program) -> None:
        try:
            program.proc = subprocess.Popen(program.argv, start_new_session=True, preexec_fn=_die_with_parent)
        except OSError as exc:  # a missing executable: try again later, like a program that died at once
            self.ended(program, f"could not start: {exc}", now=time.monotonic())
            return
        program.started_at, program.restart_at = time.monotonic(), None
        say(f"{program.name} started (pid {program.proc.pid})")

    def ended(self, program: Program, why: str, *, now: float) -> None:
        if now - program.started_at >= HEALTHY_AFTER_S:
            program.pause = FIRST_PAUSE_S
        program.proc, program.restart_at = None, now + program.pause
        say(f"{program.name} {why}; starting it again in {program.pause:.0f} s")
        program.pause = min(program.pause * 2, MAX_PAUSE_S)

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.request_stop)
        try:
            while not self.stopping:
                now = time.monotonic()
                for program in self.programs:
                    if program.proc is not None and (code := program.proc.poll()) is not None:
                        self.ended(program, f"(pid {program.proc.pid}) {how_it_ended(code)}", now=now)
                    if program.proc is None and program.restart_at is not None and now >= program.restart_at:
                        self.start(program)
                time.sleep(POLL_S)
        finally:
            self.stop_all()
        return 0

    def stop_all(self) -> None:
        # the programs' own signal handlers stop them cleanly (a worker after its episode at hand)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        running = [p for p in self.programs if p.proc is not None and p.proc.poll() is None]
        for program in running:
            self._signal(program, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for program in running:
            try:
                program.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{program.name} still running after {self.grace:.0f} s: killing it")
                self._signal(program, signal.SIGKILL)
                program.proc.wait()
            # what it started in its session and left behind (a server, a browser) goes with it
            self._signal(program, signal.SIGKILL)
        say("stopped")

    @staticmethod
    def _signal(program: Program, sig: int) -> None:
        try:
            os.killpg(program.proc.pid, sig)
        except ProcessLookupError:  # the group is empty already
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m replicagym.supervisor", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--grace",
        type=float,
        default=30.0,
        help="seconds the programs get to stop on SIGTERM before they are killed (default 30)",
    )
    parser.add_argument("programs", nargs="+", type=program_arg, metavar="NAME=COMMAND")
    args = parser.parse_args(argv)
    names = [p.name for p in args.programs]
    if len(set(names)) != len(names):
        parser.error(f"program names must differ: {', '.join(names)}")
    if not 0 <= args.grace <= 3600:
        parser.error(f"--grace must be between 0 and 3600 seconds, not {args.grace}")
    return Supervisor(args.programs, grace=args.grace).run()


if __name__ == "__main__":
    sys.exit(main())
