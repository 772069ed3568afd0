"""Run one GRPO group on the platform's workers and print each episode's reward and advantage.

    # workers first (embedded default: `manage.py worker`, twice; with a broker: `celery -A replicagym worker`)
    PYTHONPATH=platform:. .venv/bin/python docs/examples/group_rollout.py testbed.open-note --size 8 --agent
    noisy-oracle:0.3

A trainer would turn each episode's trajectory (its actions, and the observations it
logged) into token log-probabilities and weight them by the advantage printed here.
"""

import argparse
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
django.setup()

from episodes.rollouts import group_rollout  # noqa: E402 - Django must be set up first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--agent", default="noisy-oracle:0.3")
    args = parser.parse_args()
    group = group_rollout(task=args.task, agent=args.agent, size=args.size, timeout=900)
    print(f"group {group.run}: {len(group.episodes)} episodes of {group.task}")
    for episode, advantage in zip(group.episodes, group.advantages(), strict=True):
        print(
            f"  episode {episode.episode:>6}  {episode.status:<10} reward {episode.reward:.3f}  "
            f"advantage {advantage:+.3f}  steps {len(episode.actions)}"
        )


if __name__ == "__main__":
    main()
