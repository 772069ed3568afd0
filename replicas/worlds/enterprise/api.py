"""A compiled replica's REST endpoints: one per operation (list, read, create, edit, each transition), signed in with
HTTP Basic (a person's email and password), honouring the same roles and policies as the pages (services)."""

import base64
import binascii
from decimal import Decimal
from functools import wraps

from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from replicagym.jsonintake import JsonIntakeError, json_intake

from .domain import Domain
from .services import Services

MAX_BODY = 20_000


def _error(status: int, message: str, fields: dict | None = None) -> JsonResponse:
    return JsonResponse({"error": message, **({"fields": fields} if fields else {})}, status=status)


def api_person_required(view):
    # Basic credentials are sent with each call, never kept by a browser's page: no CSRF to guard against
    @csrf_exempt
    @wraps(view)
    def wrapped(self, request, *args, **kwargs):
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "basic" or not token:
            return _error(401, "Sign in with HTTP Basic: your email and password.")
        try:
            email, _, password = base64.b64decode(token, validate=True).decode().partition(":")
            person = self.services.person_authenticate(email=email, password=password, seed=request.world.seed)
        except (binascii.Error, UnicodeDecodeError, ValidationError):
            return _error(401, "Wrong email or password.")
        request.person = person
        return view(self, request, *args, **kwargs)

    return wrapped


def _body(request) -> dict:
    document = json_intake(request.body or b"{}", max_bytes=MAX_BODY)
    if not isinstance(document, dict):
        raise JsonIntakeError("$", "the body must be a JSON object")
    return document


def _json_value(value):
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "number"):
        return value.number
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


class Api:
    """The REST endpoints of one replica: bound methods, which its urls wire (urls.urlpatterns)."""

    def __init__(self, domain: Domain, services: Services):
        self.domain = domain
        self.services = services

    def record_json(self, entity: dict, record) -> dict:
        doc = {"code": self.domain.code(entity, record.number), "number": record.number}
        doc.update({f["name"]: _json_value(getattr(record, f["name"])) for f in entity["fields"]})
        if entity["has_currency"]:
            doc["currency"] = record.currency
        if entity.get("machine"):
            doc[entity["machine"]["field"]] = getattr(record, entity["machine"]["field"])
            for move in entity["machine"]["transitions"]:
                if move.get("stamp"):
                    doc[move["stamp"]] = _json_value(getattr(record, move["stamp"]))
        return doc

    def _entity(self, slug: str):
        return self.domain.by_slug.get(slug)

    def _write(self, call, entity: dict, status: int = 200):
        try:
            record = call()
        except PermissionError as exc:
            return _error(403, str(exc))
        except ValidationError as exc:
            fields = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
            return _error(400, "The record is not valid.", fields)
        return JsonResponse(self.record_json(entity, record), status=status)

    @api_person_required
    def collection(self, request, slug: str):
        """GET: the records (filters as the list page: ?status=, ?q=, ?page=); POST: create one."""
        entity = self._entity(slug)
        if entity is None:
            return _error(404, f"No such collection {slug!r}.")
        if request.method == "POST":
            try:
                data = _body(request)
            except JsonIntakeError as exc:
                return _error(400, str(exc))
            return self._write(
                lambda: self.services.record_create(entity=entity, actor=request.person, data=data), entity, 201
            )
        if request.method != "GET":
            return _error(405, "Use GET or POST.")
        rows = self.domain.model(entity["name"]).objects.order_by("number")
        machine = entity.get("machine")
        state = request.GET.get(machine["field"], "") if machine else ""
        if state:
            if state not in machine["states"]:
                return _error(400, f"{machine['field']}: no such state {state!r}.")
            rows = rows.filter(**{machine["field"]: state})
        text = request.GET.get("q", "").strip()
        if text:
            rows = rows.filter(self.domain.search_query(entity, text))
        page = request.GET.get("page", "1")
        if not page.isdigit() or int(page) < 1:
            return _error(400, "page: a positive integer.")
        start = (int(page) - 1) * 50
        chunk = list(rows[start : start + 51])
        return JsonResponse({"results": [self.record_json(entity, r) for r in chunk[:50]], "more": len(chunk) > 50})

    def _one(self, slug: str, number: int):
        entity = self._entity(slug)
        record = None if entity is None else self.domain.model(entity["name"]).objects.filter(number=number).first()
        return entity, record

    @api_person_required
    def item(self, request, slug: str, number: int):
        """GET: one record; POST: edit it (the anchor's editable fields)."""
        entity, record = self._one(slug, number)
        if record is None:
            return _error(404, "No such record.")
        if request.method == "GET":
            return JsonResponse(self.record_json(entity, record))
        if request.method != "POST":
            return _error(405, "Use GET or POST.")
        try:
            data = _body(request)
        except JsonIntakeError as exc:
            return _error(400, str(exc))
        return self._write(
            lambda: self.services.record_update(entity=entity, record=record, actor=request.person, data=data), entity
        )

    @api_person_required
    def transition(self, request, slug: str, number: int, move: str):
        """POST {"comment": "..."}: make the transition."""
        entity, record = self._one(slug, number)
        if record is None:
            return _error(404, "No such record.")
        if request.method != "POST":
            return _error(405, "Use POST.")
        try:
            data = _body(request)
        except JsonIntakeError as exc:
            return _error(400, str(exc))
        unknown = sorted(set(data) - {"comment"})
        if unknown:
            return _error(400, f"Unknown field {unknown[0]!r}: a transition takes only a comment.")
        comment = data.get("comment", "")
        if not isinstance(comment, str):
            return _error(400, "comment: must be text.")
        return self._write(
            lambda: self.services.transition_apply(
                entity=entity, record=record, move_name=move.replace("-", "_"), actor=request.person, comment=comment
            ),
            entity,
        )
