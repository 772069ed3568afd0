"""The seed generator of a compiled replica: the people of each role and every entity's records, drawn from the
anchor's seed rules in a fixed order, then the anchor's complexity layers (duplicates, stale records, foreign
currencies) and the history the records' states imply, as audit entries."""

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from .domain import Domain

CENT = Decimal("0.01")
MISMATCH_FACTORS = (Decimal("1.05"), Decimal("1.10"), Decimal("0.92"))
SATURDAY = 5  # date.weekday(): Monday is 0


def business_days(first: date, last: date) -> int:
    """The weekdays (Monday to Friday) from `first` to `last`, both counted; 0 when `last` is before `first`."""
    days = (last - first).days + 1
    if days <= 0:
        return 0
    weeks, rest = divmod(days, 7)
    return 5 * weeks + sum((first.weekday() + i) % 7 < SATURDAY for i in range(rest))


class People(list):
    """A world's people in creation order, with those of some roles kept once asked for: every record draws an
    approver or an owner among some roles, and filtering every person for each of 100k records is quadratic."""

    def __init__(self):
        super().__init__()
        self._of: dict[tuple, list] = {}

    def of(self, roles) -> list:
        key = tuple(roles)
        if key not in self._of:
            self._of[key] = [p for p in self if p.role in key]
        return self._of[key]


class Seeder:
    """The generator of one replica's worlds, from its spec's seed rules: `generate(gen)` as a seed module has it."""

    def __init__(self, domain: Domain):
        self.domain = domain

    def generate(self, gen):
        size = gen.knobs["size"]
        if gen.knobs.get("salt"):
            # a variant family's own seed: the stream moves with it (the sizes and family 0 draw as they always did)
            gen.random.seed(gen.random.getrandbits(64) ^ gen.knobs["salt"])
            gen.faker.seed_instance(gen.random.getrandbits(64))
        people = self._people(gen, size)
        rows: dict[str, list] = {}
        history = []
        for entity in self.domain.spec["entities"]:
            rows[entity["name"]] = self._records(gen, entity, size, people, rows)
            if "duplicate_records" in self.domain.spec["layers"] and entity is self.domain.spec["entities"][0]:
                rows[entity["name"]] += self._duplicates(gen, entity, rows[entity["name"]])
            history += self._history(gen, entity, rows[entity["name"]], people)
        audit = self.domain.audit_model()
        for number, (at, actor, entity, record, action) in enumerate(sorted(history, key=lambda h: h[:1] + h[3:]), 1):
            gen.add(audit(number=number, at=at, actor=actor, entity=entity, record=record, action=action, detail=""))

    def _people(self, gen, size: int) -> People:
        person = self.domain.person_model()
        people, emails = People(), set()
        # a variant family's persona (people per role moved) and policy (approval limits scaled, people away with a
        # delegate moved, for the roles that delegate at all); the sizes have none of these knobs
        knobs = gen.knobs
        factor = Decimal(str(knobs["limit_factor"])) if "limit_factor" in knobs else None
        for role in self.domain.spec["roles"]:
            members = []
            away = role.get("out_of_office", 0)
            if away:
                away = max(0, away + knobs.get("away_shift", 0))
            for _ in range(max(1, role["people"] + knobs.get("people_shift", 0)) * size):
                name = gen.faker.name()
                local = ".".join(part.lower() for part in name.replace(".", "").split()[-2:])
                email = f"{local}@{self.domain.spec['brand']['email_domain']}"
                if email in emails:
                    email = f"{local}{len(people) + 1}@{self.domain.spec['brand']['email_domain']}"
                emails.add(email)
                limit = Decimal(0)
                if role.get("approval_limit"):
                    low, high = (int(v) // 1000 for v in role["approval_limit"])
                    limit = Decimal(gen.random.randint(low, high) * 1000)
                    if factor is not None:
                        limit = (limit * factor).quantize(CENT)
                members.append(
                    gen.add(
                        person(
                            number=len(people) + len(members) + 1,
                            name=name,
                            email=email,
                            role=role["name"],
                            approval_limit=limit,
                        )
                    )
                )
            # the first ones are away, each having delegated their approvals to the next colleague of the role
            for i in range(min(away, len(members) - 1)):
                members[i].out_of_office = True
                members[i].delegate = members[i + 1]
            people += members
        return people

    def _records(self, gen, entity: dict, size: int, people: list, rows: dict) -> list:
        model = self.domain.model(entity["name"])
        machine = entity.get("machine")
        out = []
        for i in range(entity["count"] * size):
            record = model(number=1001 + i)
            for field in entity["fields"]:
                if not field.get("derived"):
                    setattr(record, field["name"], self._value(gen, field, record, people, rows))
            for field in entity["fields"]:
                if field.get("derived"):
                    left, right = field["derived"]
                    setattr(
                        record, field["name"], (Decimal(getattr(record, left)) * getattr(record, right)).quantize(CENT)
                    )
            if entity["has_currency"]:
                record.currency = self._currency(gen, entity, record)
            if machine:
                states = machine["seed"]
                setattr(record, machine["field"], gen.random.choices(list(states), weights=list(states.values()))[0])
                for move in machine["transitions"]:
                    if move.get("stamp") and move["to"] == getattr(record, machine["field"]):
                        setattr(record, move["stamp"], gen.random.choice(people.of(move["roles"])))
            age = gen.random.randint(60, 60 * 24 * 90)
            if "stale_records" in self.domain.spec["layers"] and i % 7 == 3:
                age = gen.random.randint(60 * 24 * 400, 60 * 24 * 900)  # untouched for over a year
            record.created_at = gen.now - timedelta(minutes=age)
            record.updated_at = record.created_at + timedelta(minutes=gen.random.randint(0, age // 2))
            out.append(gen.add(record))
        return out

    def _value(self, gen, field: dict, record, people: list, rows: dict):
        seed, kind = field.get("seed", {}), field["type"]
        if gen.random.random() < seed.get("null", 0):
            return None
        if "copy" in seed or "same" in seed:
            ref, _, name = (seed.get("copy") or seed["same"]).partition(".")
            source = getattr(record, ref)
            value = None if source is None else getattr(source, name)
            if value is not None and gen.random.random() < seed.get("mismatch", 0):
                if kind == "integer":
                    value = value - 1 if value > 1 else value + 1
                else:
                    value = (value * gen.random.choice(MISMATCH_FACTORS)).quantize(CENT, rounding=ROUND_HALF_UP)
            return value
        if "business_days" in seed:
            first, last = (getattr(record, name) for name in seed["business_days"])
            return None if first is None or last is None else business_days(first, last)
        if kind == "ref":
            if field["to"] == "person":
                roles = seed.get("values") or [r["name"] for r in self.domain.spec["roles"]]
                return gen.random.choice(people.of(roles))
            return gen.random.choice(rows[field["to"]]) if rows[field["to"]] else None
        if "values" in seed:
            return gen.random.choice(seed["values"])
        if "faker" in seed:
            return str(getattr(gen.faker, seed["faker"])())[: field.get("max_length", 200)]
        low, high = seed.get("range") or (field.get("min", 1), field.get("max", 100))
        if kind == "integer":
            return gen.random.randint(int(low), int(high))
        if kind == "money":
            return Decimal(gen.random.randint(int(low * 100), int(high * 100))) / 100
        if kind == "date":
            low, high = seed.get("days", (-30, 30))
            start = getattr(record, seed["after"]) if "after" in seed else gen.now.date()
            if start is None:
                return None
            day = start + timedelta(days=gen.random.randint(low, high))
            if seed.get("business") and day.weekday() >= SATURDAY:
                day += timedelta(days=7 - day.weekday())  # the Monday after
            return day
        if kind == "choice":
            return gen.random.choice(field["choices"])
        if kind == "boolean":
            return gen.random.random() < 0.5
        if kind == "email":
            return f"{gen.faker.user_name()}@{gen.faker.domain_name()}"
        if kind == "text":
            return gen.faker.sentence()
        return gen.faker.catch_phrase()[: field.get("max_length", 200)]

    def _currency(self, gen, entity: dict, record) -> str:
        home = self.domain.spec["currency"]
        for field in entity["fields"]:
            copied = field.get("seed", {}).get("copy", "")
            if field["type"] == "money" and copied:
                source = getattr(record, copied.split(".")[0])
                return getattr(source, "currency", home) if source is not None else home
        if "multi_currency" not in self.domain.spec["layers"]:
            return home
        others = sorted(c for c in self.domain.spec["currencies"] if c != home)
        return home if gen.random.random() < 0.7 or not others else gen.random.choice(others)

    def _duplicates(self, gen, entity: dict, records: list) -> list:
        """Records entered twice under another number (a vendor onboarded again), a few of them."""
        model = self.domain.model(entity["name"])
        copies = []
        for original in records[3::8] or records[:1]:
            copy = model(number=1001 + len(records) + len(copies))
            for field in model._meta.concrete_fields:
                if field.name not in ("id", "world", "number"):
                    setattr(copy, field.attname, getattr(original, field.attname))
            copies.append(gen.add(copy))
        return copies

    def _history(self, gen, entity: dict, records: list, people: list) -> list:
        """For each record past its initial state, the transition that brought it there, as the audit log shows it."""
        machine = entity.get("machine")
        if not machine:
            return []
        out = []
        for record in records:
            state = getattr(record, machine["field"])
            move = next((m for m in machine["transitions"] if m["to"] == state), None)
            if state == machine["initial"] or move is None:
                continue
            actor = getattr(record, move["stamp"]) if move.get("stamp") else None
            actor = actor or gen.random.choice(people.of(move["roles"]))
            out.append(
                (record.updated_at, actor, entity["name"], self.domain.code(entity, record.number), move["name"])
            )
        return out
