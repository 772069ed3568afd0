"""`manage.py annotate assign|list|collect|stats`: the annotation queue from the command line."""

import json

from django.contrib.auth import get_user_model

from replicagym.accounts.roles import Role, user_roles
from replicagym.annotation.models import Item
from replicagym.annotation.selectors import annotator_stats
from replicagym.annotation.services import AnnotationError, item_assign, items_create, recordings_collect
from replicas.worlds.cli import ReplicaGymCommand, seed_arg


class Command(ReplicaGymCommand):
    help = "Queue items for annotators (assign), list them, collect finished replays, or print per-annotator figures."
    user_errors = (AnnotationError,)

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        assign = sub.add_parser("assign", help="queue a task's items, one per seed, for an annotator or everyone")
        assign.add_argument("task", help="a task id, as testbed.complete-note")
        assign.add_argument("--seeds", type=seed_arg, nargs="+", help="world seeds (default: the task's own)")
        assign.add_argument("--annotator", help="a user with the annotator role (default: open to all)")
        reassign = sub.add_parser("reassign", help="give an open item to another annotator (or to everyone)")
        reassign.add_argument("item", type=int)
        reassign.add_argument("--annotator", help="a user with the annotator role (default: open to all)")
        listing = sub.add_parser("list", help="the items, as JSON lines")
        listing.add_argument("--status", choices=[s.value for s in Item.Status])
        sub.add_parser("collect", help="take in the verdicts of finished replays")
        sub.add_parser("stats", help="per annotator: done, acceptance rate, median seconds (JSON)")

    def _annotator(self, name):
        if not name:
            return None
        user = get_user_model().objects.filter(username=name).first()
        if user is None or Role.ANNOTATOR not in user_roles(user):
            raise AnnotationError(f"{name} is not a user with the annotator role")
        return user

    def handle(self, *args, action, **options):
        if action == "assign":
            items = items_create(
                task=options["task"], seeds=options["seeds"], assignee=self._annotator(options["annotator"])
            )
            for item in items:
                self.stdout.write(
                    f"item {item.pk}: {item.task.task_id} seed {item.world_seed} for "
                    f"{options['annotator'] or 'everyone'}"
                )
            for seed, why in items.skipped.items():
                self.stderr.write(f"seed {seed} skipped: its world has nothing the task can be about ({why})")
        elif action == "reassign":
            item = item_assign(item_id=options["item"], assignee=self._annotator(options["annotator"]))
            self.stdout.write(f"item {item.pk} is for {options['annotator'] or 'everyone'}")
        elif action == "list":
            items = Item.objects.select_related("task", "assignee", "claimed_by").order_by("pk")
            if options["status"]:
                items = items.filter(status=options["status"])
            for item in items:
                self.stdout.write(
                    json.dumps(
                        {
                            "item": item.pk,
                            "task": item.task.task_id,
                            "seed": item.world_seed,
                            "status": item.status,
                            "assignee": item.assignee.username if item.assignee else None,
                            "claimed_by": item.claimed_by.username if item.claimed_by else None,
                        }
                    )
                )
        elif action == "collect":
            self.stdout.write(f"{recordings_collect()} recording(s) took their replay's verdict")
        else:
            self.stdout.write(json.dumps(annotator_stats(), indent=2))
