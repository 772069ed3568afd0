"""The screenshot tour of a compiled replica (`manage.py screenshots <domain>`): the approvals inbox, the list and a
record of the entity whose transitions the policies guard most, as its deciding role, and its new-record form as the
role that creates it; files named factory-<domain>-*.png."""

from replicas.worlds.registry import get_replica

from . import domain


def tour(world):
    config = get_replica(domain.LABEL)
    machines = [e for e in domain.SPEC["entities"] if e["machine"]]
    main = max(machines, key=lambda e: sum(len(m["guards"]) for m in e["machine"]["transitions"]))
    guarded = max(main["machine"]["transitions"], key=lambda m: len(m["guards"]))
    record = (
        domain.model(main["name"])
        .objects.filter(**{f"{main['machine']['field']}__in": guarded["from"]})
        .order_by("number")
        .first()
    )
    decider = config.sign_in(world, guarded["roles"][0]).session_key
    creator = config.sign_in(world, main["create"]["roles"][0]).session_key if "create" in main else None
    name = f"factory-{domain.LABEL}"

    def shoot(camera):
        page = camera.page(decider, width=1440, height=900)
        camera.shot(page, f"{name}-approvals.png", "/approvals")
        camera.shot(page, f"{name}-list.png", f"/{main['slug']}")
        if record is not None:
            camera.shot(page, f"{name}-record.png", f"/{main['slug']}/{record.number}")
        if creator is not None:
            camera.shot(camera.page(creator, width=1440, height=900), f"{name}-form.png", f"/{main['slug']}/new")

    return shoot
