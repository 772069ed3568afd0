"""Pickers of the synthesised tasks: called with the (template) world bound."""

from ..runtime import RUNTIME

# person `number`'s email and password in worlds of `seed`: a task's `user_email` and `user_password`
person = RUNTIME.person_picker
