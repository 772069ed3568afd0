"""Seed generator of the support desk: a company's help desk in the middle of a busy week.

Everything is drawn from gen.random / gen.faker in a fixed order; timestamps are
offsets back from the world clock.
"""
from datetime import timedelta

from .models import Comment, Group, Membership, Organization, Ticket, User

GROUPS = [
    ("Support", "Front line: every new ticket lands here"),
    ("Tier 2 Billing", "Refunds above policy, chargebacks, invoices"),
    ("Tier 2 Technical", "Bugs, outages and integrations"),
    ("Accounts & Security", "Password resets, 2FA, account unlocks"),
]

# (subject, opening message, type, tags): the kinds of requests a retail SaaS desk gets
TOPICS = [
    ("Charged twice for order {order}", "Hi, I was charged twice for my order {order}. My bank shows two payments of {amount}. Can you refund the duplicate?", "incident", ["billing", "duplicate_charge"]),
    ("Refund request for {order}", "Hello, I would like a refund for order {order}. The item arrived damaged.", "question", ["billing", "refund"]),
    ("Can't log in to my account", "I keep getting 'invalid password' and the reset email never arrives. Please help.", "incident", ["account", "login"]),
    ("Please reset my two-factor authentication", "I lost my phone and can't get the 2FA codes anymore. How do I get back in?", "task", ["account", "2fa"]),
    ("Where is my order {order}?", "My order {order} was supposed to arrive three days ago. Tracking hasn't updated since Monday.", "question", ["shipping", "wismo"]),
    ("Cancel my subscription", "Please cancel my subscription at the end of this billing period. I don't want to be charged again.", "task", ["billing", "cancellation"]),
    ("Invoice needs our VAT number", "Our finance team needs the VAT number on invoice for {order}. Can you reissue it?", "task", ["billing", "invoice"]),
    ("App crashes when exporting reports", "Every time I export a report to CSV the page goes blank. This started after the last update.", "problem", ["bug", "export"]),
    ("Question about the Pro plan", "What is the difference between the Pro and the Business plan? Do both include SSO?", "question", ["sales", "plans"]),
    ("Wrong item received", "I ordered the blue model but received the black one (order {order}). How do I exchange it?", "incident", ["shipping", "exchange"]),
    ("Partial refund for missing item", "One of the three items in order {order} was missing from the box. I'd like a refund for that item only.", "incident", ["billing", "refund", "missing_item"]),
    ("Account locked after too many attempts", "My account says it's locked. I need access today for a client demo.", "incident", ["account", "locked"]),
]

REPLIES = [
    "Thanks for reaching out! I'm looking into this now and will get back to you shortly.",
    "I'm sorry for the trouble. Could you confirm the email address on the account?",
    "I've checked with our billing team and can see the payment on our side.",
    "Thanks for your patience. This has been escalated to the right team.",
    "Could you send a screenshot of the error you see?",
]
FOLLOW_UPS = [
    "Any update on this? It's been a few days.",
    "Yes, that's the email on my account.",
    "Attached is the screenshot. Thanks for looking into it.",
    "Thanks, that worked!",
    "I still haven't heard back. This is getting frustrating.",
]
NOTES = [
    "Checked Stripe: two captures on the same day. Looks like a genuine duplicate.",
    "Customer verified via last four digits of card on file.",
    "Known issue, linked to the export bug tracked by Tier 2 Technical.",
    "Policy allows refunds up to 30 days after delivery; this one is day 12.",
]

STATUS_WEIGHTS = [("new", 12), ("open", 30), ("pending", 15), ("hold", 5), ("solved", 25), ("closed", 13)]
PRIORITY_WEIGHTS = [("", 20), ("low", 15), ("normal", 45), ("high", 15), ("urgent", 5)]
CHANNEL_WEIGHTS = [("email", 50), ("web", 20), ("chat", 15), ("phone", 10), ("social", 5)]


def _pick(rng, weighted):
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights=weights)[0]


def generate(gen):
    rng, fake, now = gen.random, gen.faker, gen.now
    n_tickets = gen.knobs["tickets"]

    groups = [gen.add(Group(public_id=360000100 + i, name=n, description=d)) for i, (n, d) in enumerate(GROUPS)]

    orgs = []
    for i in range(max(4, n_tickets // 25)):
        company = fake.unique.company()
        orgs.append(
            gen.add(
                Organization(
                    public_id=360001000 + i,
                    name=company,
                    domain=fake.unique.domain_name(),
                    tags=rng.sample(["enterprise", "smb", "vip", "trial", "partner"], k=rng.randint(0, 2)),
                    created_at=now - timedelta(days=rng.randint(60, 1500)),
                )
            )
        )

    next_user = iter(range(361000000, 10**12))
    agents = []
    agent_names = [fake.unique.name() for _ in range(max(6, n_tickets // 40))]
    for i, name in enumerate(agent_names):
        first, last = name.split(" ", 1)[0].lower(), name.split(" ")[-1].lower()
        agent = gen.add(
            User(
                public_id=next(next_user),
                name=name,
                email=f"{first}.{last}@helpdesk.example",
                role=User.Role.ADMIN if i == 0 else User.Role.AGENT,
                default_group=groups[i % len(groups)],
                created_at=now - timedelta(days=rng.randint(100, 900)),
            )
        )
        agents.append(agent)
        gen.add(Membership(user=agent, group=groups[i % len(groups)]))
        if i % 3 == 0 and i:
            gen.add(Membership(user=agent, group=groups[(i + 1) % len(groups)]))

    customers = []
    for _ in range(max(20, n_tickets // 2)):
        name = fake.name()
        org = rng.choice(orgs) if rng.random() < 0.6 else None
        domain = org.domain if org else rng.choice(["gmail.com", "outlook.com", "yahoo.com", "icloud.com"])
        handle = name.lower().replace(" ", ".").replace("'", "")
        customers.append(
            gen.add(
                User(
                    public_id=next(next_user),
                    name=name,
                    email=f"{handle}{rng.randint(1, 99) if rng.random() < 0.3 else ''}@{domain}",
                    phone=fake.numerify("+1 (###) ###-####") if rng.random() < 0.5 else "",
                    organization=org,
                    tags=["vip"] if rng.random() < 0.05 else [],
                    created_at=now - timedelta(days=rng.randint(5, 1200)),
                )
            )
        )

    next_comment = iter(range(900000001, 10**12))
    for i in range(n_tickets):
        subject, opening, ttype, tags = rng.choice(TOPICS)
        order = f"ORD-{rng.randint(1000, 99999)}"
        amount = f"${rng.randint(9, 499)}.{rng.choice(['00', '49', '99'])}"
        requester = rng.choice(customers)
        status = _pick(rng, STATUS_WEIGHTS)
        channel = _pick(rng, CHANNEL_WEIGHTS)
        group = rng.choice(groups) if status != "new" or rng.random() < 0.3 else None
        assignee = rng.choice(agents) if status not in ("new",) and rng.random() < 0.85 else None
        created = now - timedelta(minutes=rng.randint(10, 60 * 24 * 45))
        ticket = gen.add(
            Ticket(
                public_id=8000 + i + 1,
                subject=subject.format(order=order),
                status=status,
                priority=_pick(rng, PRIORITY_WEIGHTS),
                type=ttype if rng.random() < 0.8 else "",
                channel=channel,
                requester=requester,
                submitter=requester,
                assignee=assignee,
                group=group,
                organization=requester.organization,
                tags=list(tags),
                created_at=created,
                updated_at=created,
            )
        )
        at = created
        gen.add(Comment(public_id=next(next_comment), ticket=ticket, author=requester, body=opening.format(order=order, amount=amount), channel=channel, created_at=at))
        turns = 0 if status == "new" else rng.randint(1, 4)
        for t in range(turns):
            at = at + timedelta(minutes=rng.randint(5, 60 * 20))
            if at >= now:
                break
            by_agent = t % 2 == 0
            if by_agent and rng.random() < 0.3:
                gen.add(Comment(public_id=next(next_comment), ticket=ticket, author=assignee or rng.choice(agents), body=rng.choice(NOTES), public=False, channel="web", created_at=at))
            gen.add(
                Comment(
                    public_id=next(next_comment),
                    ticket=ticket,
                    author=(assignee or rng.choice(agents)) if by_agent else requester,
                    body=rng.choice(REPLIES if by_agent else FOLLOW_UPS),
                    channel=channel,
                    created_at=at,
                )
            )
        ticket.updated_at = at
        if status in ("solved", "closed"):
            ticket.solved_at = at
