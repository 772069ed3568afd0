"""The system check that every world model declares its public key unique in each world, by world_unique."""

import pytest
from django.core import checks
from django.db import models
from django.test.utils import isolate_apps

from replicas.worlds.models import WorldModel, world_unique
from replicas.worlds.system_checks import check_public_keys, public_key_errors, world_models


def _error_ids(public_key: tuple, **meta) -> list[str]:
    """The check's error ids for a world model with a public id, a nullable label and the given Meta."""
    with isolate_apps("replicas.testbed"):
        model = type(
            "Pin",
            (WorldModel,),
            {
                "__module__": __name__,
                "public_id": models.IntegerField(),
                "label": models.CharField(max_length=10, null=True),
                "public_key": public_key,
                "Meta": type("Meta", (), {"app_label": "testbed", **meta}),
            },
        )
        return [error.id for error in public_key_errors(model)]


def test_every_installed_replica_passes_and_the_check_runs_with_manage_py_check():
    labels = {model._meta.label for model in world_models()}
    # every replica's models are seen, so an empty result is no vacuous pass
    assert {"board.Issue", "shop.Order", "supportdesk.Ticket", "testbed.Note"} <= labels
    assert check_public_keys() == []
    assert check_public_keys in checks.registry.registry.get_checks()


def test_a_model_that_declares_its_public_key_by_world_unique_passes():
    assert _error_ids(("public_id",), constraints=[world_unique("t_pin_key", "public_id")]) == []


def test_a_model_without_the_constraint_fails_and_is_told_the_key():
    with isolate_apps("replicas.testbed"):

        class Pin(WorldModel):
            public_id = models.IntegerField()
            public_key = ("public_id",)

            class Meta:
                app_label = "testbed"

        errors = public_key_errors(Pin)
    assert [e.id for e in errors] == ["worlds.E004"]
    assert "('world', 'public_id')" in errors[0].msg and "world_unique" in errors[0].hint


@pytest.mark.parametrize(
    "meta",
    [
        # other ways of saying it, or constraints that are not quite it
        {"unique_together": [("world", "public_id")]},
        {"indexes": [models.Index(fields=["world", "public_id"], name="t_pin_index")]},
        {"constraints": [models.UniqueConstraint(fields=["public_id"], name="t_pin_no_world")]},
        {"constraints": [world_unique("t_pin_other", "label")]},
        {"constraints": [world_unique("t_pin_more", "public_id", "label")]},
        {
            "constraints": [
                models.UniqueConstraint(
                    fields=["world", "public_id"], name="t_pin_partial", condition=models.Q(label="x")
                )
            ]
        },
    ],
)
def test_a_model_that_declares_it_any_other_way_fails(meta):
    assert _error_ids(("public_id",), **meta) == ["worlds.E004"]


def test_a_model_without_a_public_key_fails():
    assert _error_ids(()) == ["worlds.E001"]


def test_a_public_key_naming_no_field_or_a_nullable_one_fails():
    constraints = [world_unique("t_pin_key", "label", "nombre")]
    assert _error_ids(("label", "nombre"), constraints=constraints) == ["worlds.E003", "worlds.E002"]
