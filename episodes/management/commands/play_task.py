"""`manage.py play_task TASK (--oracle | --actions JSON | --replay FILE) [--seed N] [--trajectory OUT]`.

Plays a fixed action list in this process and prints one JSON object: status, final
state hash and the sha256 of every step's screenshot, so two runs (or two database
backends) can be compared byte for byte.
"""

import json

from django.core.management.base import CommandError

from catalogue.packs import PackError, TaskNotFound, task_current
from episodes.creation import EpisodeError
from episodes.driver import episode_play
from episodes.trajectory import TrajectoryError, trajectory_export, trajectory_read
from replicas.worlds.cli import ReplicaGymCommand, seed_arg


class Command(ReplicaGymCommand):
    help = "Play a task with fixed actions and print the final state hash and per-step screenshot hashes."

    user_errors = (TaskNotFound, PackError, TrajectoryError, EpisodeError)

    def add_arguments(self, parser):
        parser.add_argument("task", help="task id, <replica>.<slug>")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--oracle", action="store_true", help="play the task's reference solution")
        source.add_argument("--actions", help="a JSON list of action strings, e.g. '[\"noop()\"]'")
        source.add_argument("--replay", help="the actions of a trajectory file (JSON lines)")
        parser.add_argument("--seed", type=seed_arg, default=None, help="world seed (default: the task's)")
        parser.add_argument("--trajectory", help="also write the episode's trajectory (JSON lines) here")

    def handle(self, *args, task, oracle, actions, replay, seed, trajectory, **options):
        task_obj = task_current(task)
        if oracle:
            plan = task_obj.reference_solution
        elif replay:
            plan = trajectory_read(replay).actions
        else:
            try:
                plan = json.loads(actions)
            except json.JSONDecodeError as exc:
                raise CommandError(f"--actions is not JSON: {exc.msg}") from None
            if not isinstance(plan, list) or not all(isinstance(a, str) for a in plan):
                raise CommandError("--actions must be a JSON list of action strings")
        episode = episode_play(task_id=task_obj, actions=plan, seed=seed)
        if trajectory:
            trajectory_export(episode=episode, path=trajectory)
        steps = list(episode.steps.order_by("index").values_list("action", "error", "screenshot__sha256"))
        self.stdout.write(
            json.dumps(
                {
                    "episode": episode.pk,
                    "task": task_obj.task_id,
                    "status": episode.status,
                    "rewards": episode.rewards,
                    "final_state_hash": episode.final_state.state_hash if episode.final_state else None,
                    "steps": [{"action": a, "error": e, "screenshot": s} for a, e, s in steps],
                },
                sort_keys=True,
            )
        )
