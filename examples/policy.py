"""The scripted policy the examples play instead of a model: it reads the goal and the page text, as a model would.

It knows the two testbed tasks: `testbed.complete-note` (sign in, tick Done, save) and `testbed.rename-note`
(sign in, retype the title, save). Every fourth episode it is sloppy and stops without saving, so the
rewards printed show a failed episode beside the passed ones. It finds elements by role and name in the
observation and acts on their bids, giving tool calls (name, arguments); `None` when it is done.
"""

import re

from replicagym_client.actions import action_string

TASKS = ("testbed.complete-note", "testbed.rename-note")
EPISODES = 8

_ELEMENT = re.compile(r"\[(\w+)\] (\w+) '([^']*)'")
_SIGN_IN = re.compile(r"Sign in with (\S+) \(password (\S+)\)")
_NEW_TITLE = re.compile(r' to "(.*)"\. ')


def find(text: str, role: str, name: str) -> str:
    """The bid of the first element of `role` named `name` in an observation's text."""
    for bid, found_role, found_name in _ELEMENT.findall(text):
        if (found_role, found_name) == (role, name):
            return bid
    raise LookupError(f"no {role} {name!r} on the page")


def episode_plan(i: int) -> tuple[str, int, bool]:
    """(task, seed, sloppy) of example episode i."""
    return TASKS[i % len(TASKS)], i, i % 4 == 3


class NotePolicy:
    def __init__(self, goal: str, sloppy: bool = False):
        self.goal, self.sloppy = goal, sloppy
        self.taken: list[str] = []

    def next_call(self, text: str) -> tuple[str, tuple] | None:
        """The next tool call for the page `text`, or None when the work is done."""
        credentials = _SIGN_IN.search(self.goal)
        if credentials and "textbox 'Email'" in text:
            if "fill" not in self.taken:
                return self._take("fill", find(text, "textbox", "Email"), credentials.group(1))
            if self.taken.count("fill") == 1:
                return self._take("fill", find(text, "textbox", "Password"), credentials.group(2))
            return self._take("click", find(text, "button", "Sign in"))
        if "edit" not in self.taken:
            self.taken.append("edit")
            renamed = _NEW_TITLE.search(self.goal + " ")
            if renamed:
                return "fill", (find(text, "textbox", "Title"), renamed.group(1))
            return "check", (find(text, "checkbox", "Done"),)
        if "save" not in self.taken and not self.sloppy:
            self.taken.append("save")
            return "click", (find(text, "button", "Save"),)
        return None

    def reply(self, text: str) -> str:
        """The policy's turn as a model's text reply: a thought, then the action on the last line."""
        call = self.next_call(text)
        action = "finish()" if call is None else action_string(call[0], *call[1])
        return f"Next step towards the goal.\n{action}"

    def _take(self, name: str, *args) -> tuple[str, tuple]:
        self.taken.append(name)
        return name, args
