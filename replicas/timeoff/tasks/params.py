"""Pickers of the synthesised tasks: called with the (template) world bound."""

from ..models import Person
from ..services import person_password


def person(world, seed, number: int) -> dict:
    """Person `number`'s email and password in worlds of `seed`: a task's `user_email` and `user_password`."""
    found = Person.objects.filter(number=number).first()
    if found is None:
        raise LookupError(f"no person {number}")
    return {"email": found.email, "password": person_password(seed=seed, number=number)}
