"""Seed generator of the testbed: three members and their notes, some with reminders due soon, each with an estimate."""

from datetime import timedelta
from decimal import Decimal

from .models import Member, Note

TOPICS = ("Invoice", "Onboarding", "Release", "Budget", "Hiring", "Offsite", "Audit", "Roadmap")


def generate(gen):
    members = [
        gen.add(
            Member(
                public_id=100 + i,
                name=gen.faker.name(),
                email=f"member{i + 1}@testbed.example",
                role=Member.Role.OWNER if i == 0 else Member.Role.MEMBER,
            )
        )
        for i in range(3)
    ]
    notes = []
    for i in range(gen.knobs["notes"]):
        updated = gen.now - timedelta(minutes=gen.random.randint(5, 5000))
        # a third of the notes carry a reminder, every other one already past (flagged when the world starts)
        remind = None
        if i % 3 == 0:
            remind = gen.now + timedelta(minutes=gen.random.randint(5, 600) * (-1 if i % 2 == 0 else 1))
        notes.append(
            gen.add(
                Note(
                    public_id=1 + i,
                    title=f"{gen.random.choice(TOPICS)} {gen.faker.word()}",
                    body=gen.faker.sentence(),
                    owner=gen.random.choice(members),
                    done=gen.random.random() < 0.3,
                    remind_at=remind,
                    updated_at=updated,
                )
            )
        )
    # estimates are drawn after everything else, so the rest of a seed's world stays as it was before they existed
    for note in notes:
        note.estimate_hours = Decimal(gen.random.randint(1, 48)) / 4
