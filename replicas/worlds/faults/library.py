"""The fault library: every fault's parameters (with ranges), default trigger and recovery.

A fault definition is data: the spec validator, the middleware, the arming code
and the error_recovery reward all read it from here.
"""

from dataclasses import dataclass, field

MAX_DELAY_MS = 5000  # one fault never holds a request longer than this
MAX_TOTAL_DELAY_MS = 6000  # nor do several combined (the support desk's billing app gives up at 8 s)
RESERVED_PREFIX = "/__replicagym/faults/"
DISMISS_PATH = RESERVED_PREFIX + "dismiss"
BANNER_PATH = RESERVED_PREFIX + "banner"

# kinds: how the runtime treats the fault
REQUEST = "request"  # changes the answer to matching requests (delay, error)
SESSION = "session"  # ends the replica session
PAGE = "page"  # injects markup into HTML pages
DATA = "data"  # changes the world's data (at creation, or once when triggered)


RECORD_ID = r"[A-Za-z0-9][A-Za-z0-9_\-]{0,63}"
SELECTOR = r"[A-Za-z][A-Za-z0-9_#.\-\[\]=\"' >:]{0,99}|[#.][A-Za-z0-9_#.\-\[\]=\"' >:]{1,99}"


@dataclass(frozen=True)
class Param:
    """One parameter of a fault: its JSON Schema (docs/schemas/fault.schema.json) is built from this."""

    kind: str  # int, bool, choice, regex, selector, record
    default: object = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple = ()
    doc: str = ""

    def schema(self, name: str) -> dict:
        """The JSON Schema of this parameter, titled for the authoring UI's fault builder."""
        title = name.replace("_ms", " (ms)").replace("_px", " (px)").replace("_", " ").capitalize()
        out = {"title": title, "description": self.doc}
        if self.kind == "int":
            out.update(type="integer", minimum=self.minimum, maximum=self.maximum)
        elif self.kind == "bool":
            out["type"] = "boolean"
        elif self.kind == "choice":
            out["enum"] = list(self.choices)
        elif self.kind == "regex":
            out.update(type="string", minLength=1, maxLength=200, format="regex")
        elif self.kind == "selector":
            out.update(
                type="string",
                pattern=f"^(?:{SELECTOR})$",
                **{"x-message": "{value} is not a simple CSS selector (letters, digits, # . - _ [ ] = space >)"},
            )
        elif self.kind == "record":
            # a record's public id: a number (ticket 8001) or a code (ORD-48213)
            out.update(
                type=["integer", "string", "null"],
                minimum=0,
                pattern=f"^{RECORD_ID}$",
                **{"x-message": "must be a record's public id (a number or a code like ORD-48213), not {value}"},
            )
        else:
            raise ValueError(f"unknown parameter kind {self.kind!r}")
        out["default"] = self.default
        return out


@dataclass(frozen=True)
class FaultDef:
    name: str
    kind: str
    doc: str
    params: dict[str, Param] = field(default_factory=dict)
    # the trigger used when a spec gives none; None: applied at world creation
    default_trigger: dict | None = None
    triggerable: bool = True
    recovery_kind: str = ""

    def recovery(self, params: dict, *, login_path: str) -> dict:
        """What counts as recovering from this fault: data, read by the error_recovery reward."""
        kind = self.recovery_kind
        if kind in ("retry_succeeds", "request_completes"):
            what = (
                "a later request on the route answers without an error"
                if kind == "retry_succeeds"
                else "the slow request completes"
            )
            return {"kind": kind, "route": params["route"], "description": what}
        if kind == "sign_in_again":
            return {"kind": kind, "path": login_path, "description": "the agent signs in again and carries on"}
        if kind == "dismiss":
            return {"kind": kind, "endpoint": DISMISS_PATH, "description": "the agent dismisses the modal"}
        if kind == "avoid_misclick":
            return {
                "kind": kind,
                "endpoint": BANNER_PATH,
                "description": "the agent does not click the banner that moved in",
            }
        return {
            "kind": "verifier",
            "description": "judged by the task's verifier: the agent must act right despite the data",
        }


ROUTE = Param("regex", "^/", doc="regular expression searched in the request path (no query string)")
TIMES = Param("int", 1, 1, 20, doc="how many matching requests the fault acts on")
RECORD = Param("record", None, doc="public id of the record to use; default: one picked from the seed")

LIBRARY: dict[str, FaultDef] = {
    f.name: f
    for f in [
        FaultDef(
            "api_timeout",
            REQUEST,
            "An internal API answers slowly and then times out (408 or 504), for the first `times` calls.",
            {
                "route": Param("regex", "^/api/", doc=ROUTE.doc),
                "delay_ms": Param("int", 1000, 0, MAX_DELAY_MS, doc="how long the call hangs before failing"),
                "status": Param("choice", 504, choices=(408, 504), doc="the HTTP status of the timeout"),
                "times": TIMES,
                "processed": Param(
                    "bool",
                    False,
                    doc="the backend did the work and only the answer timed out (a retry may then repeat it)",
                ),
            },
            default_trigger={"requests": 1},
            recovery_kind="retry_succeeds",
        ),
        FaultDef(
            "server_error",
            REQUEST,
            "A route answers 500 or 503 for the first `times` requests: an error page for pages, JSON for APIs.",
            {
                "route": ROUTE,
                "status": Param("choice", 500, choices=(500, 503), doc="the HTTP status answered"),
                "times": TIMES,
            },
            default_trigger={"requests": 1},
            recovery_kind="retry_succeeds",
        ),
        FaultDef(
            "slow_response",
            REQUEST,
            "Matching requests take `delay_ms` longer, for `times` requests.",
            {
                "route": ROUTE,
                "delay_ms": Param("int", 1500, 0, MAX_DELAY_MS, doc="how much longer each matching request takes"),
                "times": Param("int", 50, 1, 1000, doc=TIMES.doc),
            },
            default_trigger={"requests": 1},
            recovery_kind="request_completes",
        ),
        FaultDef(
            "session_expiry",
            SESSION,
            "The replica session ends: the next request after the trigger is signed out.",
            {},
            default_trigger={"step": 3},
            recovery_kind="sign_in_again",
        ),
        FaultDef(
            "interstitial",
            PAGE,
            "A blocking modal (survey, cookie banner, product tour, new version) on every page until dismissed.",
            {
                "kind": Param(
                    "choice",
                    "survey",
                    choices=("survey", "cookie_banner", "product_tour", "new_version"),
                    doc="which modal appears",
                )
            },
            default_trigger={"requests": 1},
            recovery_kind="dismiss",
        ),
        FaultDef(
            "layout_shift",
            PAGE,
            "Shortly after load (or at the first mouse move) a banner pushes the main content down.",
            {
                "selector": Param("selector", "main", doc="the element the banner is inserted at the top of"),
                "shift_px": Param("int", 96, 20, 400, doc="how far the banner pushes the content down"),
                "delay_ms": Param(
                    "int", 0, 0, 3000, doc="also insert after this delay; 0: only at the first mouse move"
                ),
                "times": TIMES,
            },
            default_trigger={"requests": 1},
            recovery_kind="avoid_misclick",
        ),
        FaultDef(
            "data_conflict",
            DATA,
            "Two records disagree (an order both cancelled and fulfilled; notes that contradict each other).",
            {"record": RECORD},
            triggerable=False,
        ),
        FaultDef(
            "stale_record",
            DATA,
            "A record changes under the agent's feet: someone else edits it once the trigger fires (e.g. on a "
            "refresh).",
            {"record": RECORD},
            default_trigger=None,  # the replica's applier names the record's page; see arm.py
        ),
        FaultDef(
            "ambiguous_field",
            DATA,
            'Two options that read alike ("Partial" and "Prorated") side by side, with no tooltip.',
            {"record": RECORD},
            triggerable=False,
        ),
        FaultDef(
            "legacy_format",
            DATA,
            "Some records carry dates in an old format from a legacy import.",
            {
                "format": Param(
                    "choice",
                    "us_short",
                    choices=("us_short", "dmy_dots", "oracle"),
                    doc="the legacy date format (see LEGACY_DATE_FORMATS)",
                ),
                "count": Param("int", 5, 1, 50, doc="how many records"),
            },
            triggerable=False,
        ),
    ]
}

LEGACY_DATE_FORMATS = {"us_short": "%m/%d/%y %I:%M %p", "dmy_dots": "%d.%m.%Y %H:%M", "oracle": "%d-%b-%Y %H.%M"}
