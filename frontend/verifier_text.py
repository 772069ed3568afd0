"""A verifier spec in words, for the task page: what each assertion checks, in the author's terms."""

import json


def _cond(name, raw) -> str:
    if (
        isinstance(raw, dict)
        and raw
        and all(
            k
            in (
                "eq",
                "ne",
                "in",
                "not_in",
                "lt",
                "lte",
                "gt",
                "gte",
                "contains",
                "matches",
                "is_null",
                "case_insensitive",
                "normalize_whitespace",
                "tolerance",
            )
            for k in raw
        )
    ):
        words = {
            "eq": "is",
            "ne": "is not",
            "in": "is one of",
            "not_in": "is none of",
            "lt": "<",
            "lte": "≤",
            "gt": ">",
            "gte": "≥",
            "contains": "contains",
            "matches": "matches",
            "is_null": "is empty",
        }
        parts = []
        for op, value in raw.items():
            if op in words:
                parts.append(
                    f"{name} {words[op]}"
                    + ("" if op == "is_null" and value is True else f" {json.dumps(value, ensure_ascii=False)}")
                )
        return " and ".join(parts)
    return f"{name} = {json.dumps(raw, ensure_ascii=False)}"


def _where(where) -> str:
    return ", ".join(_cond(k, v) for k, v in (where or {}).items()) or "any row"


def _count(count) -> str:
    if count is None:
        return "at least one row"
    if isinstance(count, int):
        return f"exactly {count} row{'s' if count != 1 else ''}"
    return f"between {count.get('min', 0)} and {count.get('max', '∞')} rows"


def describe(assertion: dict) -> str:
    kind = assertion.get("kind")
    if kind == "state":
        expect = assertion.get("expect", {})
        moment = "At the start" if assertion.get("at") == "initial" else "In the final state"
        text = (
            f"{moment}, {assertion.get('table')} where {_where(assertion.get('where'))} has "
            f"{_count(expect.get('count'))}"
        )
        if expect.get("fields"):
            text += f", each with {_where(expect['fields'])}"
        return text + "."
    if kind == "diff":
        if assertion.get("only_allowed"):
            return "Nothing changed outside the allowed changes."
        text = (
            f"Rows {assertion.get('op')} in {assertion.get('table')} where "
            f"{_where(assertion.get('where'))}: {_count(assertion.get('count'))}"
        )
        for field, fromto in (assertion.get("changes") or {}).items():
            text += (
                f"; {field} changed"
                + (f" from {json.dumps(fromto['from'])}" if "from" in fromto else "")
                + (f" to {json.dumps(fromto['to'])}" if "to" in fromto else "")
            )
        return text + "."
    if kind == "page":
        parts = [
            f"{k} {json.dumps(assertion[k], ensure_ascii=False)}"
            for k in ("url", "title", "element", "state", "value", "checked")
            if k in assertion
        ]
        return "The final page has " + ", ".join(parts) + "."
    if kind == "answer":
        expected = assertion.get("expected", assertion.get("values", assertion.get("pattern")))
        return (
            f"The agent's answer is a {assertion.get('type')} matching {json.dumps(expected, ensure_ascii=False)}"
            + (f" ({assertion['match']})" if "match" in assertion else "")
            + "."
        )
    if kind == "trajectory":
        parts = [
            f"{k} {json.dumps(assertion[k], ensure_ascii=False)}"
            for k in ("max_steps", "forbidden_actions", "forbidden_pages", "order")
            if k in assertion
        ]
        parts += [
            ", ".join(f"{w['table']} {w['id']}" for w in r["writes"])
            + f" written by {r['action']} only"
            + (f", the fault {r['fault']} having fired by then" if r.get("fault") else "")
            for r in assertion.get("written_by", [])
        ]
        return "The trajectory: " + ", ".join(parts) + "."
    if kind == "conditional":
        parts = " ".join(describe(a) for a in assertion.get("then", []))
        other = " ".join(describe(a) for a in assertion.get("else", []))
        return f"When {describe(assertion.get('when', {})).rstrip('.')}: {parts}" + (
            f" Otherwise: {other}" if other else ""
        )
    if kind == "for_each":
        items = assertion.get("in")
        shown = ", ".join(map(str, items)) if isinstance(items, list) else str(items)
        parts = " ".join(describe(a) for a in assertion.get("assert", []))
        return f"For each {{{assertion.get('as')}}} of {shown}: {parts}"
    if kind == "python":
        return (
            f"The registered check {assertion.get('check')!r} holds with "
            f"{json.dumps(assertion.get('args', {}), ensure_ascii=False)}."
        )
    return json.dumps(assertion, ensure_ascii=False)
