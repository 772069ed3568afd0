"""`manage.py group_rollout TASK --size G [--agent SPEC] [--queue NAME] [--timeout S] [--trajectories DIR] [--trace]`.

Queues a GRPO group (G episodes of one task and world seed) for the running workers,
waits for it and prints one JSON object: each episode's reward, status and actions, and
the group-relative advantages. `--trajectories DIR` also writes each episode's JSON lines.
"""

import json
from pathlib import Path

from django.core.management.base import CommandError

from episodes.models import Episode
from episodes.rollouts import MAX_GROUP, RolloutError, group_rollout
from episodes.trajectory import trajectory_export
from replicas.worlds.cli import ReplicaGymCommand


class Command(ReplicaGymCommand):
    help = "Run G episodes of one task in parallel on the workers and print rewards and GRPO advantages."

    user_errors = (RolloutError,)

    def add_arguments(self, parser):
        parser.add_argument("task", help="task id, <replica>.<slug>")
        parser.add_argument("--size", type=int, default=8, help=f"episodes in the group, 1 to {MAX_GROUP} (default 8)")
        parser.add_argument(
            "--agent", default="oracle", help="agent spec (default oracle); each attempt seeds it differently"
        )
        parser.add_argument("--queue", default=None, help="the workers' queue (default: celery's default queue)")
        parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the group (default 600)")
        parser.add_argument("--trajectories", default=None, help="a folder to write each episode's trajectory to")
        parser.add_argument(
            "--trace", action="store_true", help="record each episode's Playwright trace (DATA_DIR/traces/)"
        )

    def handle(self, *args, task, size, agent, queue, timeout, trajectories, trace, **options):
        if not 0 < timeout <= 24 * 3600:
            raise CommandError(f"--timeout must be from 0 to 86400 seconds, not {timeout:g}")
        folder = Path(trajectories) if trajectories else None
        if folder is not None and not folder.is_dir():
            raise CommandError(f"--trajectories: no folder {folder}")
        group = group_rollout(task=task, agent=agent, size=size, queue=queue, timeout=timeout, trace=trace)
        if folder is not None:
            for ep in Episode.objects.filter(run_id=group.run).select_related("task"):
                trajectory_export(episode=ep, path=folder / f"episode-{ep.pk}.jsonl")
        self.stdout.write(
            json.dumps(
                {
                    "run": group.run,
                    "task": group.task,
                    "episodes": [
                        {
                            "episode": e.episode,
                            "attempt": e.attempt,
                            "status": e.status,
                            "reward": e.reward,
                            "actions": e.actions,
                        }
                        for e in group.episodes
                    ],
                    "advantages": [round(a, 6) for a in group.advantages()],
                },
                sort_keys=True,
            )
        )
