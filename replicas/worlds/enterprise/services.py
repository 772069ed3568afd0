"""Writes of a compiled replica, with the world bound: sign-in, records created and edited, state transitions under
the anchor's policies, every write recorded in the audit log. Views and the REST API both call these."""

from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from replicas.worlds import clock
from replicas.worlds.registry import ReplicaUser
from replicas.worlds.scoping import bound_world
from replicas.worlds.signin import WorldSignIn

from .domain import Domain

CENT = Decimal("0.01")
DEFAULT_MAX_LENGTH = {"string": 200, "email": 254, "text": 5000}
COMMENT_MAX = 1000


class Services:
    """The writes of one replica (its Domain): sign-in, create, edit, transition, the policies."""

    def __init__(self, domain: Domain):
        self.domain = domain
        self.signin = WorldSignIn(replica=domain.label, who="person")
        self.policy_checks = {
            "budget_cap": self._budget_cap,
            "delegated_approver": self._delegated_approver,
            "segregation_of_duties": self._segregation_of_duties,
            "three_way_match": self._three_way_match,
        }

    def person_password(self, *, seed: int, number: int) -> str:
        """A person's password in worlds of `seed` on this installation (tasks quote it to the agent)."""
        return self.signin.password(seed=seed, user_id=number)

    def person_authenticate(self, *, email, password, seed: int):
        person = None
        if isinstance(email, str) and email.strip():
            person = self.domain.person_model().objects.filter(email__iexact=email.strip()).first()
        if person is None or not self.signin.password_matches(seed=seed, user_id=person.number, password=password):
            raise ValidationError("Wrong email or password.")
        return person

    def person_sign_in(self, *, world, role: str) -> ReplicaUser | None:
        """The first person of `role` who is not away, signed in on `world` without the form."""
        with bound_world(world):
            person = self.domain.person_model().objects.filter(role=role).order_by("out_of_office", "number").first()
        if person is None:
            return None
        return self.signin.replica_user(world, role=role, login=person.email, user_id=person.number)

    def to_home(self, amount: Decimal, currency: str) -> Decimal:
        """`amount` in the home currency at the anchor's rate, rounded half up to the cent (what a cap compares)."""
        rate = Decimal(str(self.domain.spec["currencies"].get(currency, 1)))
        return (amount * rate).quantize(CENT, rounding=ROUND_HALF_UP)

    # --- field values ------------------------------------------------------------------------------------

    def value_clean(self, field: dict, raw):
        """The value a form or a JSON body gave for `field`, checked and typed; ValidationError says what is wrong."""
        kind = field["type"]
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if field.get("required") and kind != "boolean":
                raise ValidationError("This field is required.")
            if kind == "boolean":
                return False
            return "" if kind in ("string", "text", "email", "choice") else None
        if kind == "boolean":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in ("on", "true", "1", "yes", "false", "0", "no", "off"):
                return raw.lower() in ("on", "true", "1", "yes")
            raise ValidationError("Enter true or false.")
        if kind in ("integer", "money", "ref") and isinstance(raw, bool):
            raise ValidationError("Enter a number.")
        if kind in ("string", "text", "email", "choice", "date") and not isinstance(raw, str):
            raise ValidationError("Enter text.")
        if kind in ("string", "text", "email"):
            value = raw.strip()
            limit = field.get("max_length", DEFAULT_MAX_LENGTH[kind])
            if len(value) > limit:
                raise ValidationError(f"At most {limit} characters.")
            if kind == "email":
                validate_email(value)
            return value
        if kind == "choice":
            if raw not in field["choices"]:
                raise ValidationError(f"Choose one of: {', '.join(field['choices'])}.")
            return raw
        if kind == "date":
            try:
                return date.fromisoformat(raw.strip())
            except ValueError:
                raise ValidationError("Enter a date as YYYY-MM-DD.") from None
        if kind == "ref":
            return self._ref_clean(field, raw)
        return self._number_clean(field, raw)

    def _number_clean(self, field: dict, raw):
        if not isinstance(raw, (int, float, str)):
            raise ValidationError("Enter a number.")
        try:
            number = Decimal(str(raw).strip().replace(",", ""))
        except InvalidOperation:
            raise ValidationError("Enter a number.") from None
        if not number.is_finite():
            raise ValidationError("Enter a number.")
        if field["type"] == "integer":
            if number != number.to_integral_value():
                raise ValidationError("Enter a whole number.")
            number = int(number)
        else:
            if number != number.quantize(CENT):
                raise ValidationError("At most two decimal places.")
            number = number.quantize(CENT)
        if "min" in field and number < Decimal(str(field["min"])):
            raise ValidationError(f"At least {field['min']}.")
        if "max" in field and number > Decimal(str(field["max"])):
            raise ValidationError(f"At most {field['max']}.")
        return number

    def _ref_clean(self, field: dict, raw):
        target = field["to"]
        if isinstance(raw, int):
            number = raw
        else:
            text = str(raw).strip()
            parsed = self.domain.code_parse(text)
            if parsed is not None and (target == "person" or parsed[0]["name"] == target):
                number = parsed[1]
            elif text.isdigit():
                number = int(text)
            else:
                raise ValidationError("Choose a record from the list.")
        model = self.domain.person_model() if target == "person" else self.domain.model(target)
        found = model.objects.filter(number=number).first()
        if found is None:
            raise ValidationError("Choose a record from the list.")
        return found

    def values_clean(self, entity: dict, data: dict, names: list[str]) -> dict:
        """The cleaned values of `names` from `data`; one ValidationError mapping each bad field to its message."""
        values, errors = {}, {}
        for name in names:
            field = self.domain.field(entity, name) if name != "currency" else self.currency_field()
            try:
                values[name] = self.value_clean(field, data.get(name))
            except ValidationError as exc:
                errors[name] = exc.messages
        unknown = sorted(set(data) - set(names))
        if unknown:
            errors["__all__"] = [f"Unknown field {name!r}." for name in unknown]
        if errors:
            raise ValidationError(errors)
        return values

    def currency_field(self) -> dict:
        return {
            "name": "currency",
            "type": "choice",
            "required": True,
            "choices": sorted(self.domain.spec["currencies"]),
        }

    def form_fields(self, entity: dict) -> list[str]:
        """What a person enters to create a record: every field but the derived ones (and its currency)."""
        names = [f["name"] for f in entity["fields"] if not f.get("derived")]
        return [*names, "currency"] if entity["has_currency"] else names

    def _derive(self, entity: dict, record) -> None:
        for field in entity["fields"]:
            if field.get("derived"):
                left, right = field["derived"]
                setattr(record, field["name"], (Decimal(getattr(record, left)) * getattr(record, right)).quantize(CENT))

    # --- writes ------------------------------------------------------------------------------------------

    def audit_write(self, *, actor, entity: dict, record, action: str, detail: str = "") -> None:
        audit = self.domain.audit_model()
        last = audit.objects.order_by("-number").values_list("number", flat=True).first()
        audit(
            number=(last or 0) + 1,
            at=clock.now(),
            actor=actor,
            entity=entity["name"],
            record=self.domain.code(entity, record.number),
            action=action,
            detail=detail,
        ).save()

    def may(self, actor, roles) -> bool:
        return actor.role in roles

    def record_create(self, *, entity: dict, actor, data: dict):
        if "create" not in entity or not self.may(actor, entity["create"]["roles"]):
            raise PermissionError(f"Your role may not create a {entity['label'].lower()}.")
        values = self.values_clean(entity, data, self.form_fields(entity))
        model = self.domain.model(entity["name"])
        last = model.objects.order_by("-number").values_list("number", flat=True).first()
        now = clock.now()
        record = model(number=(last or 1000) + 1, created_at=now, updated_at=now, **values)
        if entity.get("machine"):
            setattr(record, entity["machine"]["field"], entity["machine"]["initial"])
        self._derive(entity, record)
        record.save()
        self.audit_write(actor=actor, entity=entity, record=record, action="create")
        return record

    def edit_blocker(self, *, entity: dict, record, actor) -> str | None:
        edit = entity.get("edit")
        if edit is None or not self.may(actor, edit["roles"]):
            return f"Your role may not edit a {entity['label'].lower()}."
        states = edit.get("states")
        if states and getattr(record, entity["machine"]["field"]) not in states:
            return f"A {entity['label'].lower()} can be edited only while {' or '.join(states)}."
        return None

    def record_update(self, *, entity: dict, record, actor, data: dict):
        blocker = self.edit_blocker(entity=entity, record=record, actor=actor)
        if blocker:
            raise PermissionError(blocker)
        values = self.values_clean(entity, data, entity["edit"]["fields"])
        changed = sorted(name for name, value in values.items() if getattr(record, name) != value)
        if changed:
            for name in changed:
                setattr(record, name, values[name])
            self._derive(entity, record)
            record.updated_at = clock.now()
            record.save()
            self.audit_write(actor=actor, entity=entity, record=record, action="edit", detail=", ".join(changed))
        return record

    def transition_blockers(self, *, entity: dict, record, move: dict, actor) -> list[str]:
        """Why `actor` may not make `move` on `record` now (empty: they may)."""
        state = getattr(record, entity["machine"]["field"])
        if state not in move["from"]:
            return [f"Not possible while the {entity['label'].lower()} is {state}."]
        if not self.may(actor, move["roles"]):
            return [f"Your role may not {move['label'].lower()}."]
        blockers = []
        for name in move.get("guards", []):
            policy = self.domain.policies[name]
            if not self.policy_checks[policy["kind"]](policy, record, actor):
                blockers.append(policy["message"])
        return blockers

    def transition_apply(self, *, entity: dict, record, move_name: str, actor, comment=""):
        move = self.domain.move(entity, move_name)
        if move is None:
            raise ValidationError(f"A {entity['label'].lower()} has no action {move_name!r}.")
        blockers = self.transition_blockers(entity=entity, record=record, move=move, actor=actor)
        if blockers:
            raise PermissionError(" ".join(blockers))
        comment = comment.strip() if isinstance(comment, str) else ""
        if move["comment"] == "required" and not comment:
            raise ValidationError({"comment": ["A comment is required."]})
        if move["comment"] == "none" and comment:
            raise ValidationError({"comment": ["This action takes no comment."]})
        if len(comment) > COMMENT_MAX:
            raise ValidationError({"comment": [f"At most {COMMENT_MAX} characters."]})
        setattr(record, entity["machine"]["field"], move["to"])
        if move.get("stamp"):
            setattr(record, move["stamp"], actor)
        record.updated_at = clock.now()
        record.save()
        self.audit_write(actor=actor, entity=entity, record=record, action=move["name"], detail=comment)
        return record

    # --- policies ----------------------------------------------------------------------------------------

    def _follow(self, record, path: str):
        """record.ref.field for "ref.field", None when the ref is empty."""
        ref, _, name = path.partition(".")
        target = getattr(record, ref)
        return None if target is None else getattr(target, name)

    def _budget_cap(self, policy, record, actor) -> bool:
        amount = getattr(record, policy["amount"])
        currency = getattr(record, "currency", self.domain.spec["currency"])
        return self.to_home(amount, currency) <= actor.approval_limit

    def _delegated_approver(self, policy, record, actor) -> bool:
        """The assigned person, or the colleague they delegated to while they are away."""
        assignee = getattr(record, policy["field"])
        if assignee is None:
            return False
        return assignee.pk == actor.pk or (assignee.out_of_office and assignee.delegate_id == actor.pk)

    def _segregation_of_duties(self, policy, record, actor) -> bool:
        return getattr(record, f"{policy['field']}_id") != actor.pk

    def _three_way_match(self, policy, record, actor) -> bool:
        ordered, received = (
            self._follow(record, policy["order_amount"]),
            self._follow(record, policy["received_quantity"]),
        )
        if ordered is None or received is None:
            return False
        tolerance = Decimal(str(policy.get("tolerance", 0))) * ordered
        return (
            abs(getattr(record, policy["amount"]) - ordered) <= tolerance
            and getattr(record, policy["quantity"]) == received
        )
