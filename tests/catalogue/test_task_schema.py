"""The published task-file schema (docs/schemas/task.schema.json) is the one packs validate with."""

import json

import jsonschema

from catalogue.models import Task
from catalogue.packs import TASK_SCHEMA_FILE, task_files
from replicas.worlds.registry import replicas
from replicas.worlds.schema_errors import schema_errors, schema_validator

TASK_SCHEMA = schema_validator(TASK_SCHEMA_FILE)


def test_the_schema_is_valid_and_names_the_catalogue_difficulties():
    jsonschema.Draft202012Validator.check_schema(TASK_SCHEMA.schema)
    assert set(TASK_SCHEMA.schema["properties"]["difficulty"]["enum"]) == set(Task.Difficulty.values)


def test_every_task_file_of_every_installed_pack_matches_the_schema():
    files = [path for name in sorted(replicas()) for path in task_files(name)]
    assert files
    for path in files:
        errors = schema_errors(TASK_SCHEMA, json.loads(path.read_text()))
        assert not errors, f"{path}: {errors}"
