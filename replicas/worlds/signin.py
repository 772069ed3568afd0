"""The sign-in kit every replica uses: users' passwords derived from the world secret, sessions
bound to one world, and a `next` redirect that never leaves the world's origin."""

import hashlib
import hmac
from dataclasses import dataclass
from urllib.parse import quote

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.utils.http import url_has_allowed_host_and_scheme

from .models import Workspace
from .registry import ReplicaUser
from .scoping import current_world_or_none

# Passwords are not stored: they follow from the world's seed, the user's id and the
# installation's secret (settings.WORLD_SECRET). Every world of one seed on one installation
# has the same ones, so a task may state them; the seed alone, public in task files, does not
# give them, so an agent cannot sign in as a colleague it was not told about. Being derived,
# they are in no snapshot and leave the state hash alone.
_WORDS = [
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lagoon",
    "maple",
    "nectar",
    "orchid",
    "pebble",
    "quartz",
    "raven",
    "sierra",
    "tundra",
]


def _password(message: str) -> str:
    digest = hmac.new(settings.WORLD_SECRET.encode(), message.encode(), hashlib.sha256).digest()
    return f"{_WORDS[digest[0] % 20]}-{_WORDS[digest[1] % 20]}-{int.from_bytes(digest[2:4], 'big') % 10000:04d}"


def workspace_password(*, seed: int, person: str) -> str:
    """The password of a workspace's shared person (`employee-1`) in workspaces of `seed` on this installation."""
    return _password(f"workspace\x00{seed}\x00{person}")


def shared_password(world, user_id: int | str) -> str | None:
    """The workspace password of `user_id` in `world`, if its workspace shares that person; None otherwise."""
    row = Workspace.objects.filter(pk=world.workspace_id).values_list("seed", "sign_ins").first()
    if row is None:
        return None
    seed, sign_ins = row
    person = sign_ins.get(world.replica, {}).get(str(user_id))
    return workspace_password(seed=seed, person=person) if person is not None else None


@dataclass(frozen=True)
class WorldSignIn:
    """One replica's sign-in: `replica` and `who` (agent, account, ...) name its session keys
    (`<replica>_world`, `<replica>_<who>`) and its passwords' purpose; `id_type` is the type of
    the id a session holds (a public id, or a username)."""

    replica: str
    who: str
    id_type: type = int

    @property
    def world_key(self) -> str:
        return f"{self.replica}_world"

    @property
    def user_key(self) -> str:
        return f"{self.replica}_{self.who}"

    def password(self, *, seed: int, user_id: int | str, world=None) -> str:
        """The password of user `user_id` in worlds of `seed` on this installation.

        In a workspace's world (`world`, default: the bound one) a person the workspace shares
        has the workspace's password instead, the same in every app of the group: one sign-in.
        """
        world = world if world is not None else current_world_or_none()
        if world is not None and world.workspace_id is not None:
            shared = shared_password(world, user_id)
            if shared is not None:
                return shared
        return _password(f"{self.replica}-{self.who}\x00{seed}\x00{user_id}")

    def password_matches(self, *, seed: int, user_id: int | str, password) -> bool:
        """Whether `password` (anything a form sent) is the user's; compared in constant time."""
        if not isinstance(password, str) or not password:
            return False
        return hmac.compare_digest(self.password(seed=seed, user_id=user_id).encode(), password.encode())

    def sign_in(self, session, world, user_id: int | str, **extra) -> None:
        """Sign `user_id` in on `world` in `session`, under a new session id (no fixation); the
        session's other data stays (a draft kept across an expired session). `extra`: more keys."""
        session.cycle_key()
        session[self.world_key] = world.token
        session[self.user_key] = user_id
        session.update(extra)

    def new_session(self, world, user_id: int | str, **extra) -> str:
        """The key of a new session signed in as `user_id` on `world`, without the form."""
        store = SessionStore()
        self.sign_in(store, world, user_id, **extra)
        store.save()
        return store.session_key

    def signed_in_id(self, request) -> int | str | None:
        """The id of the session's user, if it was signed in on this very world; None otherwise."""
        if request.session.get(self.world_key) != request.world.token:
            return None
        user_id = request.session.get(self.user_key)
        # bool is an int: a session holding True names nobody
        return user_id if type(user_id) is self.id_type else None

    def session_is_signed_in(self, session) -> bool:
        """Whether the session holds a user (the expired-session fault ends only such sessions)."""
        return session.get(self.user_key) is not None

    def replica_user(self, world, *, role: str, login: str, user_id: int | str, **extra) -> ReplicaUser:
        """The `sign_in` contract's answer: `user_id`'s credentials and a new session on `world`."""
        return ReplicaUser(
            role=role,
            login=login,
            password=self.password(seed=world.seed, user_id=user_id, world=world),
            session_key=self.new_session(world, user_id, **extra),
        )


def safe_next(request, default: str) -> str:
    """The request's `next` (form field or query) when it is a path on this origin, else `default`.

    Only a path that starts with one slash is followed: `//evil`, `/\\evil`, another origin and
    schemes such as `javascript:` fall back to `default`.
    """
    value = request.POST.get("next") or request.GET.get("next")
    if (
        isinstance(value, str)
        and value.startswith("/")
        and url_has_allowed_host_and_scheme(value, allowed_hosts={request.get_host()}, require_https=False)
        and not value.replace("\\", "/").startswith("//")
    ):
        return value
    return default


def login_url(login_path: str, back: str) -> str:
    """The sign-in page, coming back to `back` (a path on this origin) once signed in."""
    return f"{login_path}?next={quote(back)}"
