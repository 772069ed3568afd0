"""A compiled replica's pages, rendered with the enterprise UI kit (templates factory_kit/, shipped with the
environment factory's app): record lists with filters, sort and paging, record pages with their actions, forms, the
approvals inbox, the audit log and the global search. They work without JavaScript; every write goes through the
replica's Services."""

from functools import wraps

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST

from replicas.worlds.signin import login_url, safe_next

from .domain import Domain
from .markdown import markdown_html
from .services import Services

LOGIN = "/login"
PAGE_SIZE = 25
LIST_COLUMNS = 6


def person_required(view):
    """A page for people signed in: the others go to the sign-in page and come back."""

    @wraps(view)
    def wrapped(self, request, *args, **kwargs):
        person = self.signed_in_person(request)
        if person is None:
            return redirect(login_url(LOGIN, request.get_full_path()))
        request.person = person
        return view(self, request, *args, **kwargs)

    return wrapped


post_only = method_decorator(require_POST)


class Views:
    """The pages of one replica: bound methods, which its urls wire (urls.urlpatterns)."""

    def __init__(self, domain: Domain, services: Services):
        self.domain = domain
        self.services = services

    def signed_in_person(self, request):
        number = self.services.signin.signed_in_id(request)
        return None if number is None else self.domain.person_model().objects.filter(number=number).first()

    def _page(self, request, template: str, context: dict, status: int = 200):
        nav = [{"slug": e["slug"], "label": e["plural"]} for e in self.domain.spec["entities"]]
        return render(
            request,
            f"factory_kit/{template}",
            {
                "base_template": "factory_kit/base.html",
                "brand_css": f"{self.domain.label}/brand.css",
                "brand": self.domain.spec["brand"],
                "nav": nav,
                "docs": self.domain.spec.get("docs", []),
                "person": getattr(request, "person", None),
                "role_label": self.domain.roles[request.person.role]["label"]
                if getattr(request, "person", None)
                else "",
                **context,
            },
            status=status,
        )

    def _entity(self, slug: str) -> dict:
        entity = self.domain.by_slug.get(slug)
        if entity is None:
            raise Http404("no such list")
        return entity

    def _record(self, entity: dict, number: int):
        record = self.domain.model(entity["name"]).objects.filter(number=number).first()
        if record is None:
            raise Http404("no such record")
        return record

    def display(self, entity: dict, record, field: dict) -> dict:
        """A field's value as the kit shows it: text, and a link for a reference."""
        value = getattr(record, field["name"])
        if value is None or value == "":
            return {"text": "—"}
        kind = field["type"]
        if kind == "ref":
            if field["to"] == "person":
                return {"text": value.name}
            target = self.domain.entities[field["to"]]
            return {
                "text": f"{self.domain.code(target, value.number)} · {getattr(value, target['title'])}",
                "href": f"/{target['slug']}/{value.number}",
            }
        if kind == "money":
            currency = getattr(record, "currency", None) or self.domain.spec["currency"]
            return {"text": f"{currency} {value:,.2f}", "numeric": True}
        if kind == "integer":
            return {"text": f"{value:,}", "numeric": True}
        if kind == "boolean":
            return {"text": "Yes" if value else "No"}
        return {"text": str(value)}

    def _state(self, entity: dict, record) -> str | None:
        return getattr(record, entity["machine"]["field"]) if entity.get("machine") else None

    def _row_link(self, entity: dict, row) -> dict:
        """A record as a line that links to it: its code, title and state (related records, search results)."""
        return {
            "code": self.domain.code(entity, row.number),
            "href": f"/{entity['slug']}/{row.number}",
            "title": getattr(row, entity["title"]),
            "state": self._state(entity, row),
        }

    def _columns(self, entity: dict) -> list[dict]:
        title = self.domain.field(entity, entity["title"])
        others = [f for f in entity["fields"] if f["name"] != entity["title"] and f["type"] != "text"]
        return [title, *others][:LIST_COLUMNS]

    def _filters(self, request, entity: dict):
        """The list's filters from the query, applied; (descriptors for the kit, Q, errors)."""
        query, descriptors, errors = Q(), [], []
        machine = entity.get("machine")
        if machine:
            options = [(state, state.replace("_", " ").capitalize()) for state in machine["states"]]
            descriptors.append({"name": machine["field"], "label": "Status", "options": options})
        for field in entity["fields"]:
            if not field.get("filter"):
                continue
            if field["type"] == "choice":
                options = [(choice, choice) for choice in field["choices"]]
            elif field["type"] == "ref":
                model = self.domain.person_model() if field["to"] == "person" else self.domain.model(field["to"])
                target = None if field["to"] == "person" else self.domain.entities[field["to"]]
                options = [
                    (str(row.number), row.name if target is None else self.domain.code(target, row.number))
                    for row in model.objects.order_by("number")
                ]
            else:
                continue
            descriptors.append({"name": field["name"], "label": field["label"], "options": options})
        for descriptor in descriptors:
            chosen = request.GET.get(descriptor["name"], "")
            descriptor["selected"] = chosen
            if not chosen:
                continue
            if chosen not in {value for value, _ in descriptor["options"]}:
                errors.append(f"{descriptor['label']}: no such value {chosen!r}.")
                continue
            field = next((f for f in entity["fields"] if f["name"] == descriptor["name"]), None)
            key = f"{descriptor['name']}__number" if field and field["type"] == "ref" else descriptor["name"]
            query &= Q(**{key: int(chosen) if field and field["type"] == "ref" else chosen})
        return descriptors, query, errors

    @person_required
    def entity_list(self, request, slug: str):
        entity = self._entity(slug)
        columns = self._columns(entity)
        descriptors, query, errors = self._filters(request, entity)
        rows = self.domain.model(entity["name"]).objects.filter(query)
        text = request.GET.get("q", "").strip()
        if len(text) > 100:
            errors.append("Search: at most 100 characters.")
        elif text:
            rows = rows.filter(self.domain.search_query(entity, text))
        sortable = ["number", *[c["name"] for c in columns]]
        if entity.get("machine"):
            sortable.append(entity["machine"]["field"])
        sort = request.GET.get("sort", "number")
        if sort.lstrip("-") not in sortable:
            errors.append(f"Sort: no column {sort!r}.")
            sort = "number"
        page = Paginator(rows.order_by(sort, "number"), PAGE_SIZE).get_page(request.GET.get("page"))
        body = [
            {
                "code": self.domain.code(entity, row.number),
                "href": f"/{slug}/{row.number}",
                "cells": [self.display(entity, row, column) for column in columns],
                "state": self._state(entity, row),
            }
            for row in page.object_list
        ]
        keep = {k: v for k, v in request.GET.items() if k != "page" and v}
        return self._page(
            request,
            "list.html",
            {
                "entity": entity,
                "columns": columns,
                "rows": body,
                "page": page,
                "filters": descriptors,
                "q": text,
                "sort": sort,
                "query": "&".join(f"{k}={v}" for k, v in sorted(keep.items())),
                "sort_query": "&".join(f"{k}={v}" for k, v in sorted(keep.items()) if k != "sort"),
                "can_create": "create" in entity and self.services.may(request.person, entity["create"]["roles"]),
                "errors": errors,
            },
            status=400 if errors else 200,
        )

    def _actions(self, entity: dict, record, person) -> list[dict]:
        """The transitions of the record's state that the person's role may make, each with what blocks it."""
        machine = entity.get("machine")
        if not machine:
            return []
        state = getattr(record, machine["field"])
        return [
            {
                **move,
                "blockers": self.services.transition_blockers(entity=entity, record=record, move=move, actor=person),
            }
            for move in machine["transitions"]
            if state in move["from"] and self.services.may(person, move["roles"])
        ]

    def _related(self, entity: dict, record) -> list[dict]:
        """Records of other entities that refer to this one (a request's orders, an order's receipts and invoices)."""
        related = []
        for other in self.domain.spec["entities"]:
            for field in other["fields"]:
                if field["type"] == "ref" and field["to"] == entity["name"]:
                    rows = self.domain.model(other["name"]).objects.filter(**{field["name"]: record}).order_by("number")
                    if rows:
                        related.append(
                            {
                                "label": f"{other['plural']} ({field['label'].lower()})",
                                "rows": [self._row_link(other, row) for row in rows],
                            }
                        )
        return related

    def _record_page(self, request, entity: dict, record, *, error="", status=200, comment_errors=None):
        fields = [{"label": f["label"], **self.display(entity, record, f)} for f in entity["fields"]]
        machine = entity.get("machine")
        # who decided: one field however many transitions stamp it (approve and reject both set decided_by)
        stamps = sorted({m["stamp"] for m in machine["transitions"] if m.get("stamp")}) if machine else []
        for name in stamps:
            stamp = {"name": name, "label": name.replace("_", " ").capitalize(), "type": "ref", "to": "person"}
            fields.append({"label": stamp["label"], **self.display(entity, record, stamp)})
        history = (
            self.domain.audit_model().objects.filter(record=self.domain.code(entity, record.number)).order_by("-number")
        )
        return self._page(
            request,
            "record.html",
            {
                "entity": entity,
                "record": record,
                "code": self.domain.code(entity, record.number),
                "title": getattr(record, entity["title"]),
                "state": self._state(entity, record),
                "fields": fields,
                "actions": self._actions(entity, record, request.person),
                "can_edit": self.services.edit_blocker(entity=entity, record=record, actor=request.person) is None,
                "related": self._related(entity, record),
                "history": history.select_related("actor")[:20],
                "error": error,
                "comment_errors": comment_errors or {},
            },
            status=status,
        )

    @person_required
    def record_detail(self, request, slug: str, number: int):
        entity = self._entity(slug)
        return self._record_page(request, entity, self._record(entity, number))

    @person_required
    @post_only
    def record_transition(self, request, slug: str, number: int, move: str):
        entity = self._entity(slug)
        record = self._record(entity, number)
        name = move.replace("-", "_")
        try:
            self.services.transition_apply(
                entity=entity,
                record=record,
                move_name=name,
                actor=request.person,
                comment=request.POST.get("comment", ""),
            )
        except PermissionError as exc:
            return self._record_page(request, entity, record, error=str(exc), status=403)
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
            message = " ".join(m for messages in errors.values() for m in messages)
            return self._record_page(request, entity, record, error=message, status=400, comment_errors={name: message})
        return redirect(f"/{slug}/{number}")

    def _form_fields(self, entity: dict, names: list[str], values: dict, errors: dict) -> list[dict]:
        out = []
        for name in names:
            field = self.services.currency_field() if name == "currency" else self.domain.field(entity, name)
            item = {
                **field,
                "label": field.get("label", "Currency"),
                "value": values.get(name, ""),
                "errors": errors.get(name, []),
            }
            if field["type"] == "ref":
                model = self.domain.person_model() if field["to"] == "person" else self.domain.model(field["to"])
                target = None if field["to"] == "person" else self.domain.entities[field["to"]]
                item["options"] = [
                    (
                        str(row.number),
                        f"{row.name} ({self.domain.roles[row.role]['label']})"
                        if target is None
                        else f"{self.domain.code(target, row.number)} · {getattr(row, target['title'])}",
                    )
                    for row in model.objects.order_by("number")
                ]
            elif field["type"] == "choice":
                item["options"] = [(choice, choice) for choice in field["choices"]]
            out.append(item)
        return out

    def _initial(self, entity: dict, record, names: list[str]) -> dict:
        values = {}
        for name in names:
            value = getattr(record, name)
            values[name] = str(value.number) if hasattr(value, "number") else ("" if value is None else str(value))
        return values

    def _form_errors(self, exc: ValidationError) -> dict:
        return exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}

    @person_required
    def record_new(self, request, slug: str):
        entity = self._entity(slug)
        if "create" not in entity or not self.services.may(request.person, entity["create"]["roles"]):
            return self._page(
                request, "denied.html", {"message": f"Your role may not create a {entity['label'].lower()}."}, 403
            )
        names = self.services.form_fields(entity)
        values, errors, status = {}, {}, 200
        if request.method == "POST":
            values = {name: request.POST.get(name, "") for name in names}
            try:
                record = self.services.record_create(entity=entity, actor=request.person, data=values)
            except ValidationError as exc:
                errors, status = self._form_errors(exc), 400
            else:
                return redirect(f"/{slug}/{record.number}")
        elif entity["has_currency"]:
            values["currency"] = self.domain.spec["currency"]
        fields = self._form_fields(entity, names, values, errors)
        return self._page(
            request,
            "form.html",
            {
                "entity": entity,
                "fields": fields,
                "errors": errors.get("__all__", []),
                "action": f"/{slug}/new",
                "heading": f"New {entity['label'].lower()}",
                "submit": "Create",
                "cancel": f"/{slug}",
            },
            status,
        )

    @person_required
    def record_edit(self, request, slug: str, number: int):
        entity = self._entity(slug)
        record = self._record(entity, number)
        blocker = self.services.edit_blocker(entity=entity, record=record, actor=request.person)
        if blocker:
            return self._page(request, "denied.html", {"message": blocker}, 403)
        names = entity["edit"]["fields"]
        values, errors, status = self._initial(entity, record, names), {}, 200
        if request.method == "POST":
            values = {name: request.POST.get(name, "") for name in names}
            try:
                self.services.record_update(entity=entity, record=record, actor=request.person, data=values)
            except ValidationError as exc:
                errors, status = self._form_errors(exc), 400
            else:
                return redirect(f"/{slug}/{number}")
        code = self.domain.code(entity, number)
        return self._page(
            request,
            "form.html",
            {
                "entity": entity,
                "fields": self._form_fields(entity, names, values, errors),
                "errors": errors.get("__all__", []),
                "action": f"/{slug}/{number}/edit",
                "heading": f"Edit {code}",
                "submit": "Save",
                "cancel": f"/{slug}/{number}",
            },
            status,
        )

    def approvals_for(self, person) -> list[dict]:
        """Every decision waiting for `person`: a guarded transition their role may make and no policy blocks."""
        waiting = []
        for entity in self.domain.spec["entities"]:
            machine = entity.get("machine")
            if not machine:
                continue
            for move in machine["transitions"]:
                if not move.get("guards") or not self.services.may(person, move["roles"]):
                    continue
                rows = self.domain.model(entity["name"]).objects.filter(**{f"{machine['field']}__in": move["from"]})
                for row in rows.order_by("number"):
                    if self.services.transition_blockers(entity=entity, record=row, move=move, actor=person):
                        continue
                    if any(w["code"] == self.domain.code(entity, row.number) for w in waiting):
                        continue
                    delegated = [p for p in move["guards"] if self.domain.policies[p]["kind"] == "delegated_approver"]
                    assignee = getattr(row, self.domain.policies[delegated[0]]["field"]) if delegated else None
                    waiting.append(
                        {
                            "entity": entity["label"],
                            "code": self.domain.code(entity, row.number),
                            "href": f"/{entity['slug']}/{row.number}",
                            "title": getattr(row, entity["title"]),
                            "action": move["label"],
                            "state": getattr(row, machine["field"]),
                            "on_behalf_of": assignee.name if assignee is not None and assignee.pk != person.pk else "",
                            "amount": next(
                                (
                                    self.display(entity, row, f)["text"]
                                    for f in entity["fields"]
                                    if f["type"] == "money"
                                ),
                                "",
                            ),
                        }
                    )
        return waiting

    @person_required
    def approvals(self, request):
        return self._page(request, "approvals.html", {"items": self.approvals_for(request.person)})

    @person_required
    def audit_log(self, request):
        entries = self.domain.audit_model().objects.select_related("actor").order_by("-number")
        errors = []
        chosen = request.GET.get("entity", "")
        if chosen and chosen not in self.domain.entities:
            errors.append(f"Entity: no such value {chosen!r}.")
        elif chosen:
            entries = entries.filter(entity=chosen)
        page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
        links = {e["name"]: e["slug"] for e in self.domain.spec["entities"]}
        rows = [
            {"entry": entry, "href": f"/{links[entry.entity]}/{entry.record.split('-', 1)[1]}"}
            for entry in page.object_list
        ]
        return self._page(
            request,
            "audit.html",
            {
                "rows": rows,
                "page": page,
                "entities": self.domain.spec["entities"],
                "chosen": chosen,
                "errors": errors,
                "query": f"entity={chosen}" if chosen else "",
            },
            400 if errors else 200,
        )

    @person_required
    def doc_index(self, request):
        """The context pages: the anchor's PRD and policy documents, which tasks may cite ("per policy")."""
        return self._page(request, "docs.html", {"page": None})

    @person_required
    def doc_page(self, request, page: str):
        found = next((d for d in self.domain.spec.get("docs", []) if d["slug"] == page), None)
        if found is None:
            raise Http404(f"No page {page!r}.")
        return self._page(request, "docs.html", {"page": found, "body": markdown_html(found["markdown"])})

    @person_required
    def search(self, request):
        text = request.GET.get("q", "").strip()
        groups, error = [], ""
        if len(text) > 100:
            error = "Search: at most 100 characters."
        elif text:
            for entity in self.domain.spec["entities"]:
                rows = (
                    self.domain.model(entity["name"])
                    .objects.filter(self.domain.search_query(entity, text))
                    .order_by("number")[:20]
                )
                if rows:
                    groups.append(
                        {
                            "label": entity["plural"],
                            "rows": [self._row_link(entity, row) for row in rows],
                        }
                    )
        return self._page(request, "search.html", {"q": text, "groups": groups, "error": error}, 400 if error else 200)

    def login(self, request):
        next_url = safe_next(request, "/approvals")
        error = ""
        if request.method == "POST":
            try:
                person = self.services.person_authenticate(
                    email=request.POST.get("email", ""),
                    password=request.POST.get("password", ""),
                    seed=request.world.seed,
                )
            except ValidationError as exc:
                error = " ".join(exc.messages)
            else:
                self.services.signin.sign_in(request.session, request.world, person.number)
                return redirect(next_url)
        return self._page(
            request,
            "login.html",
            {"next": next_url, "error": error, "email": request.POST.get("email", "")},
            400 if error else 200,
        )

    @post_only
    def logout(self, request):
        request.session.flush()
        return redirect(LOGIN)
