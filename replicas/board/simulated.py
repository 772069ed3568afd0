"""Simulated colleagues: a teammate @mentioned in a work item's comment answers it there.

As the support desk's simulated customers do (replicas.worlds.simulated holds what they share),
the answer is not there when the comment is saved: it arrives as the colleague's comment at the
world clock's next move (each episode step), as a teammate reads the notification a while later.
What they say follows a deterministic script keyed on what was asked: the assignee of the work
item knows when its fix ships (its fix version, else the release it is planned for) and how to
work around the bug until then; anyone else says who does. A question the script does not know
gets a plausible "not sure what you mean". Same world and same comments give the same answers,
byte for byte, so state hashes stay reproducible.

Only worlds whose variant sets the knob `simulated_colleagues` have such colleagues, so the tasks
of other variants see exactly the board they always saw. An OpenAI-compatible model may word the
answers (BOARD_COLLEAGUE_MODEL_URL and _MODEL; off by default), on the same terms as the desk's.
The answer names the asker by first name, not by a mention: a mention would be a question to them.
"""

import hashlib
import re
from collections import defaultdict
from datetime import timedelta

from django.db.models import Max

from replicas.worlds import clock
from replicas.worlds import simulated as people
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import current_world
from replicas.worlds.simulated import UNKNOWN, Fact

from .models import Comment, Issue, Mention, Person, Version
from .services import MENTION, comment_add

KNOB = "simulated_colleagues"
ASKS = [
    (
        "release",
        re.compile(
            r"\b(?:which|what) (?:release|version)\b|\bfix versions?\b|\bwhen\b[^.?!]{0,60}\b(?:ship|release|fix)",
            re.I,
        ),
    ),
    ("workaround", re.compile(r"\bwork[- ]?arounds?\b", re.I)),
]
UNSURE = "Sorry, I'm not sure what you're asking. What do you need from me on this one?"
# What an assignee tells a customer to do until the fix ships, one per work item (drawn by its key).
WORKAROUNDS = (
    "Sign out, clear the browser's cache for the site and sign in again.",
    "Use the mobile app for this until the fix ships; it takes a different path.",
    "Switch the account's language to English (US) in Settings, then retry.",
    "Retry with the browser's private window; a stale session cookie triggers it.",
    "Export the data as CSV from the Reports page instead; that path is not affected.",
    "Turn off the 'compact view' option in Settings > Display, then reload.",
)
# A notification older than this is history, not a question waiting: comments the seed wrote
# long before the world's now are never answered, a question asked since the last move always is.
FRESH = timedelta(hours=4)


def enabled(world) -> bool:
    return bool(get_replica(world.replica).knobs(world.variant).get(KNOB))


def _draw(issue: Issue, what: str, n: int) -> int:
    """A choice among `n` that is the same every time for this work item of this world (its key and
    creation instant, which the seed draws)."""
    digest = hashlib.sha256(f"{issue.key}:{issue.created_at.isoformat()}:{what}".encode()).hexdigest()
    return int(digest[:8], 16) % n


def planned_release(issue: Issue) -> str | None:
    """The release the fix ships in: the work item's fix version, else one of its project's unreleased ones."""
    if issue.fix_versions:
        return issue.fix_versions[0]
    upcoming = list(
        Version.objects.filter(project_id=issue.project_id, released=False)
        .order_by("release_date", "name")
        .values_list("name", flat=True)
    )
    return upcoming[_draw(issue, "release", len(upcoming))] if upcoming else None


def workaround(issue: Issue) -> str:
    return WORKAROUNDS[_draw(issue, "workaround", len(WORKAROUNDS))]


def facts(issue: Issue, colleague: Person, asks: list[str]) -> list[Fact]:
    """What `colleague` says to each ask about `issue`: the world's true value when they work on it."""
    if set(asks) - {UNKNOWN} and issue.assignee_id != colleague.pk:
        owner = issue.assignee
        who = f"{owner.name} is working on it, ask them." if owner else "Nobody has picked it up yet."
        return [Fact("not_mine", f"I'm not on {issue.key}: {who}", "")]
    out = []
    for name in asks:
        if name == "release":
            release = planned_release(issue)
            out.append(
                Fact(name, f"The fix is planned for release {release}.", release)
                if release
                else Fact(name, "No release is planned yet.", "")
            )
        elif name == "workaround":
            text = workaround(issue)
            out.append(Fact(name, f"Workaround until then: {text}", text))
        else:
            out.append(Fact(name, UNSURE, ""))
    return out


def awaiting() -> list[tuple[Issue, Person, list[Comment]]]:
    """(work item, colleague, the comments asking them) for every mention its colleague has not answered.

    A mention is answered once the colleague comments on the work item after it; what they were asked
    before their last comment there is not asked again. Only mentions of
    active teammates by someone else, made within FRESH of now and before it (at an earlier move), wait.
    """
    now = clock.now()
    asking = defaultdict(list)
    for mention in (
        Mention.objects.filter(comment__created_at__gte=now - FRESH, comment__created_at__lt=now, person__active=True)
        .select_related("comment", "person", "comment__issue__assignee")
        .order_by("comment__created_at", "comment__public_id")
    ):
        if mention.person_id != mention.comment.author_id:
            asking[(mention.comment.issue, mention.person)].append(mention.comment)
    out = []
    for (issue, colleague), comments in sorted(asking.items(), key=lambda kv: (kv[0][0].key, kv[0][1].username)):
        last_word = Comment.objects.filter(issue=issue, author=colleague).aggregate(n=Max("public_id"))["n"] or 0
        waiting = [c for c in comments if c.public_id > last_word]
        if waiting:
            out.append((issue, colleague, waiting))
    return out


def colleague_replies_run() -> int:
    """Let every mentioned colleague answer what they were asked; returns how many answered."""
    if not enabled(current_world()):
        return 0
    answered = 0
    for issue, colleague, comments in awaiting():
        text = "\n\n".join(MENTION.sub("", c.body).strip() for c in comments)  # the question, not who it pings
        asks = people.asked(text, ASKS)
        if not asks:
            continue
        asker = Person.objects.get(pk=comments[-1].author_id)
        told = facts(issue, colleague, asks)
        wording = people.model_wording(
            env_prefix="BOARD_COLLEAGUE",
            persona=f"You are {colleague.name}, a software engineer, answering a teammate's comment on work item "
            f"{issue.key} ({issue.summary}).",
            told=told,
            asked_text=text,
            seed=comments[-1].public_id,
        )
        body = wording or " ".join(f.sentence for f in told)
        comment_add(issue=issue, actor=colleague, body=f"Hi {asker.name.split()[0]},\n\n{body}")
        answered += 1
    return answered
