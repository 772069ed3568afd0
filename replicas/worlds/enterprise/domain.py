"""A compiled replica's domain: its spec (spec.json, written by the environment factory from the anchor) and its
models by entity, looked up in the replica's app."""

import json
import re
from pathlib import Path

from django.apps import apps
from django.db.models import Q

CODE = re.compile(r"^\s*([A-Za-z]{1,4}-)(\d{1,9})\s*$")


class Domain:
    """What the shared runtime knows of one replica: the spec and the tables built from it."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.label = spec["domain"]
        self.entities = {entity["name"]: entity for entity in spec["entities"]}
        self.by_slug = {entity["slug"]: entity for entity in spec["entities"]}
        self.by_prefix = {entity["prefix"]: entity for entity in spec["entities"]}
        self.policies = {policy["name"]: policy for policy in spec["policies"]}
        self.roles = {role["name"]: role for role in spec["roles"]}

    @classmethod
    def load(cls, path: Path) -> "Domain":
        return cls(json.loads(Path(path).read_text()))

    def model(self, entity_name: str):
        return apps.get_model(self.label, self.entities[entity_name]["model"])

    def person_model(self):
        return apps.get_model(self.label, "Person")

    def audit_model(self):
        return apps.get_model(self.label, "AuditEntry")

    @staticmethod
    def code(entity: dict, number: int) -> str:
        """What a person reads and types for a record: its prefix and number (PR-1003)."""
        return f"{entity['prefix']}{number}"

    def code_parse(self, text: str) -> tuple[dict, int] | None:
        """(entity, number) for a code such as PR-1003 (any case), or None."""
        match = CODE.match(text or "")
        if not match:
            return None
        entity = self.by_prefix.get(match.group(1).upper())
        return None if entity is None else (entity, int(match.group(2)))

    @staticmethod
    def field(entity: dict, name: str) -> dict:
        return next(f for f in entity["fields"] if f["name"] == name)

    @staticmethod
    def move(entity: dict, name: str) -> dict | None:
        machine = entity.get("machine")
        return next((m for m in machine["transitions"] if m["name"] == name), None) if machine else None

    def search_query(self, entity: dict, text: str) -> Q:
        """Rows whose searchable fields hold `text`, or whose code or number it is."""
        query = Q()
        for field in entity["fields"]:
            if field.get("search"):
                query |= Q(**{f"{field['name']}__icontains": text})
        parsed = self.code_parse(text)
        if parsed is not None and parsed[0]["name"] == entity["name"]:
            query |= Q(number=parsed[1])
        elif text.isdigit():
            query |= Q(number=int(text))
        return query
