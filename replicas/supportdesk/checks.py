"""Python checks of the support desk's task verifiers (registered when a desk spec is checked): the
order of a conversation and the work done on it, which the JSON kinds cannot relate row to row."""

from verifiers.checks import register_check

_ID = {"type": ["integer", "string"], "minLength": 1}
_ANSWER_ARGS = {
    "type": "object",
    "properties": {
        "ticket": _ID,
        "customer": _ID,
        "says": {"type": "string", "minLength": 1},
        "payment": {"type": "string", "minLength": 1},
    },
    "required": ["ticket", "customer", "says", "payment"],
    "additionalProperties": False,
}


@register_check("desk_refund_after_answer", args_schema=_ANSWER_ARGS)
def refund_after_answer(inputs, *, ticket, customer, says, payment):
    """Every refund added on `payment` came after `customer` wrote `says` (the order number they were
    asked for) on `ticket` in this episode: acting first and asking afterwards fails, even on the
    right order. Times are the world clock's, in the snapshot's one UTC format, so they compare as text."""
    tables = inputs.diff.get("tables", {})
    answers = sorted(
        row["created_at"]
        for row in tables.get("supportdesk.comment", {}).get("added", {}).values()
        if str(row.get("ticket")) == str(ticket)
        and str(row.get("author")) == str(customer)
        and says.lower() in (row.get("body") or "").lower()
    )
    refunds = [
        row["created_at"]
        for row in tables.get("supportdesk.refund", {}).get("added", {}).values()
        if str(row.get("payment")) == str(payment)
    ]
    if not refunds:
        return False, f"no refund was added on {payment}"
    if not answers:
        return False, f"customer {customer} gave no {says} on ticket {ticket} in this episode"
    early = [at for at in refunds if at < answers[0]]
    if early:
        return False, f"{len(early)} refund(s) on {payment} came before the customer's answer"
    return True, f"the customer's answer ({answers[0]}) came before the refund(s)"
