"""Action strings in the server's grammar (BrowserGym's: `click("a51")`), built from a tool call or found in a reply.

A tool call's arguments are written as Python literals, which is how the server parses them, so a value
holding quotes, backslashes or newlines reaches the page as it was given.
"""

import re

# The actions an agent is offered as tools or in a prompt: the server's grammar has more (mouse
# coordinates, keyboard events, tabs), which a text-only policy has no use for.
PROMPT_ACTIONS = (
    'click("a51")',
    'fill("a12", "text")',
    'select_option("a7", "Option")',
    'check("a9")',
    'uncheck("a9")',
    'press("a12", "Enter")',
    'hover("a51")',
    "scroll(0, 400)",
    'goto("http://world.test/path")',
    "go_back()",
    'send_msg_to_user("the answer")',
    'report_infeasible("why")',
    "noop()",
    "finish()",
)

_CALL = re.compile(r"^\s*`*\s*([a-z_]+\(.*\))\s*`*\s*$", re.DOTALL)
_FENCE = re.compile(r"```(?:[a-zA-Z]*)\n?(.*?)```", re.DOTALL)


def action_string(name: str, *args) -> str:
    """`name(args...)` with each argument as a Python literal: action_string("fill", "a12", 'say "hi"')."""
    if not re.fullmatch(r"[a-z_]+", name):
        raise ValueError(f"an action name is lower-case letters and underscores, not {name!r}")
    for arg in args:
        if isinstance(arg, bool) or not isinstance(arg, str | int | float | list | tuple):
            raise ValueError(f"an action argument is text, a number or a list of text, not {arg!r}")
    return f"{name}({', '.join(repr(list(a) if isinstance(a, tuple) else a) for a in args)})"


def action_in_reply(reply: str) -> str | None:
    """The action a model's reply ends with: the last fenced block's, else its last line's, when that is a call.

    None when the reply holds no action call (the episode then takes `noop()`, and the model is told why).
    """
    blocks = _FENCE.findall(reply or "")
    candidates = [blocks[-1].strip()] if blocks else []
    lines = [line for line in (reply or "").splitlines() if line.strip()]
    if lines:
        candidates.append(lines[-1])
    for text in candidates:
        found = _CALL.match(text)
        if found:
            return found.group(1).strip()
    return None


def instructions() -> str:
    """What a text-only policy is told about acting: one action per reply, the last line, in the server's grammar."""
    examples = "\n".join(f"  {example}" for example in PROMPT_ACTIONS)
    return (
        "You operate a web browser. Each turn you see the page as an accessibility tree whose elements carry ids "
        "in brackets, e.g. [a51]. End every reply with exactly one action on its own last line, one of:\n"
        f"{examples}\n"
        "Answer the user with send_msg_to_user(...) when the task asks a question; finish() ends the episode when "
        "the work is done and there is nothing to say."
    )


def reply_action(reply: str) -> tuple[str, str]:
    """(the action to take for a model's reply, a note to show the model): its action, or noop() and why."""
    found = action_in_reply(reply)
    if found is not None:
        return found, ""
    return "noop()", "Your reply ended with no action, so nothing was done. End it with one action call.\n\n"
