"""The compiled anchor this replica runs on (spec.json, written by the environment factory) and its models by entity."""

import json
import re
from pathlib import Path

from django.apps import apps
from django.db.models import Q

SPEC = json.loads((Path(__file__).parent / "spec.json").read_text())
LABEL = SPEC["domain"]
ENTITIES = {entity["name"]: entity for entity in SPEC["entities"]}
BY_SLUG = {entity["slug"]: entity for entity in SPEC["entities"]}
BY_PREFIX = {entity["prefix"]: entity for entity in SPEC["entities"]}
POLICIES = {policy["name"]: policy for policy in SPEC["policies"]}
ROLES = {role["name"]: role for role in SPEC["roles"]}
CODE = re.compile(r"^\s*([A-Za-z]{1,4}-)(\d{1,9})\s*$")


def model(entity_name: str):
    return apps.get_model(LABEL, ENTITIES[entity_name]["model"])


def person_model():
    return apps.get_model(LABEL, "Person")


def audit_model():
    return apps.get_model(LABEL, "AuditEntry")


def code(entity: dict, number: int) -> str:
    """What a person reads and types for a record: its prefix and number (PR-1003)."""
    return f"{entity['prefix']}{number}"


def code_parse(text: str) -> tuple[dict, int] | None:
    """(entity, number) for a code such as PR-1003 (any case), or None."""
    match = CODE.match(text or "")
    if not match:
        return None
    entity = BY_PREFIX.get(match.group(1).upper())
    return None if entity is None else (entity, int(match.group(2)))


def field(entity: dict, name: str) -> dict:
    return next(f for f in entity["fields"] if f["name"] == name)


def move(entity: dict, name: str) -> dict | None:
    machine = entity.get("machine")
    return next((m for m in machine["transitions"] if m["name"] == name), None) if machine else None


def search_query(entity: dict, text: str) -> Q:
    """Rows whose searchable fields hold `text`, or whose code or number it is."""
    query = Q()
    for field in entity["fields"]:
        if field.get("search"):
            query |= Q(**{f"{field['name']}__icontains": text})
    parsed = code_parse(text)
    if parsed is not None and parsed[0]["name"] == entity["name"]:
        query |= Q(number=parsed[1])
    elif text.isdigit():
        query |= Q(number=int(text))
    return query
