"""Forms of the agent workspace: every post is validated here before a service is called."""

from django import forms


class LoginForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(max_length=200, strip=False, widget=forms.PasswordInput)


def _tag_list(value: str) -> list[str]:
    """Tags as the product takes them: space- or comma-separated, lower-cased, no duplicates."""
    tags = []
    for raw in value.replace(",", " ").split():
        tag = raw.strip().lower()
        if not all(ch.isalnum() or ch in "_-/:" for ch in tag):
            raise forms.ValidationError(f"Tags can only contain letters, numbers, _, -, / and : ({raw!r}).")
        if len(tag) > 80:
            raise forms.ValidationError(f"Tag {raw!r} is longer than 80 characters.")
        if tag not in tags:
            tags.append(tag)
    return tags


class TicketNumbersField(forms.Field):
    """The selected tickets' numbers (#8001…), from repeated `tickets` inputs."""

    widget = forms.MultipleHiddenInput
    max_tickets = 100

    def to_python(self, value):
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        numbers = []
        for item in value:
            if not str(item).isdigit():
                raise forms.ValidationError(f"{item!r} is not a ticket number.")
            numbers.append(int(item))
        return sorted(set(numbers))

    def validate(self, value):
        super().validate(value)
        if len(value) > self.max_tickets:
            raise forms.ValidationError(f"Select at most {self.max_tickets} tickets at a time.")


NO_CHANGE = ""
NOBODY = "-"


class BulkUpdateForm(forms.Form):
    tickets = TicketNumbersField(error_messages={"required": "Select at least one ticket."})
    status = forms.ChoiceField(required=False)
    assignee = forms.ChoiceField(required=False)
    group = forms.ChoiceField(required=False)
    add_tags = forms.CharField(required=False, max_length=500, label="Add tags")
    remove_tags = forms.CharField(required=False, max_length=500, label="Remove tags")

    def __init__(self, *args, agents, groups, **kwargs):
        super().__init__(*args, **kwargs)
        from .models import Ticket

        self.agents = {str(a.public_id): a for a in agents}
        self.groups = {str(g.public_id): g for g in groups}
        self.fields["status"].choices = [(NO_CHANGE, "- No change -")] + [
            (v, label) for v, label in Ticket.Status.choices if v not in ("new", "closed")
        ]
        self.fields["assignee"].choices = [(NO_CHANGE, "- No change -"), (NOBODY, "Unassigned")] + [
            (k, a.name) for k, a in self.agents.items()
        ]
        self.fields["group"].choices = [(NO_CHANGE, "- No change -"), (NOBODY, "No group")] + [
            (k, g.name) for k, g in self.groups.items()
        ]

    def clean_tickets(self):
        from .models import Ticket

        numbers = self.cleaned_data["tickets"]
        found = set(Ticket.objects.filter(public_id__in=numbers).values_list("public_id", flat=True))
        missing = [n for n in numbers if n not in found]
        if missing:
            raise forms.ValidationError("No such ticket: " + ", ".join(f"#{n}" for n in missing))
        return numbers

    def clean_add_tags(self):
        return _tag_list(self.cleaned_data["add_tags"])

    def clean_remove_tags(self):
        return _tag_list(self.cleaned_data["remove_tags"])

    def clean(self):
        data = super().clean()
        if not self.errors and not self.changes():
            raise forms.ValidationError("Choose at least one change to make.")
        return data

    def changes(self) -> dict:
        """The requested changes, in the shape tickets_bulk_update takes; unchanged fields are left out."""
        data, changes = self.cleaned_data, {}
        if data.get("status"):
            changes["status"] = data["status"]
        if data.get("assignee"):
            changes["assignee"] = None if data["assignee"] == NOBODY else self.agents[data["assignee"]]
        if data.get("group"):
            changes["group"] = None if data["group"] == NOBODY else self.groups[data["group"]]
        if data.get("add_tags"):
            changes["add_tags"] = data["add_tags"]
        if data.get("remove_tags"):
            changes["remove_tags"] = data["remove_tags"]
        return changes

    def summary(self) -> list[tuple[str, str]]:
        """Human-readable list of the changes, for the confirmation step."""
        labels = {
            "status": "Status",
            "assignee": "Assignee",
            "group": "Group",
            "add_tags": "Add tags",
            "remove_tags": "Remove tags",
        }
        rows = []
        for key, value in self.changes().items():
            if key == "status":
                shown = dict(self.fields["status"].choices)[value]
            elif key in ("assignee", "group"):
                shown = value.name if value is not None else ("Unassigned" if key == "assignee" else "No group")
            else:
                shown = " ".join(value)
            rows.append((labels[key], shown))
        return rows


ORDER_NUMBER_FORMAT = "ORD-12345"


class TicketForm(forms.Form):
    """The ticket page: properties, the new comment, and the status to submit as."""

    requester = forms.EmailField(max_length=254)
    assignee = forms.ChoiceField(required=False)
    group = forms.ChoiceField(required=False)
    followers = forms.MultipleChoiceField(required=False)
    tags = forms.CharField(required=False, max_length=1000)
    type = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(required=False)
    order_number = forms.CharField(required=False, max_length=20, label="Order number")
    refund_type = forms.ChoiceField(required=False, label="Refund type")
    comment = forms.CharField(required=False, max_length=65536, widget=forms.Textarea, strip=True)
    comment_mode = forms.ChoiceField(
        choices=[("public", "Public reply"), ("internal", "Internal note")], initial="public"
    )
    status = forms.ChoiceField()

    def __init__(self, *args, agents, groups, **kwargs):
        super().__init__(*args, **kwargs)
        from .models import Ticket

        self.agents = {str(a.public_id): a for a in agents}
        self.groups = {str(g.public_id): g for g in groups}
        self.fields["assignee"].choices = [("", "-")] + [(k, a.name) for k, a in self.agents.items()]
        self.fields["group"].choices = [("", "-")] + [(k, g.name) for k, g in self.groups.items()]
        self.fields["followers"].choices = [(k, a.name) for k, a in self.agents.items()]
        self.fields["type"].choices = [("", "-")] + list(Ticket.Type.choices)
        self.fields["priority"].choices = [("", "-")] + list(Ticket.Priority.choices)
        self.fields["refund_type"].choices = [("", "-")] + [c for c in Ticket.RefundType.choices if c[0]]
        self.fields["status"].choices = [(v, label) for v, label in Ticket.Status.choices if v != "closed"]

    def clean_requester(self):
        from .models import User

        email = self.cleaned_data["requester"]
        user = User.objects.filter(email__iexact=email).order_by("public_id").first()
        if user is None:
            raise forms.ValidationError(f"No user has the email address {email}.")
        return user

    def clean_tags(self):
        return _tag_list(self.cleaned_data["tags"])

    def clean_order_number(self):
        value = self.cleaned_data["order_number"].strip().upper()
        if value and not (value.startswith("ORD-") and value[4:].isdigit()):
            raise forms.ValidationError(f"Order numbers look like {ORDER_NUMBER_FORMAT}.")
        return value

    def changes(self, ticket) -> dict:
        """Only the properties that differ from the ticket's, in the shape ticket_update takes."""
        data = self.cleaned_data
        wanted = {
            "requester": data["requester"],
            "assignee": self.agents.get(data["assignee"]),
            "group": self.groups.get(data["group"]),
            "tags": data["tags"],
            "type": data["type"],
            "priority": data["priority"],
            "status": data["status"],
            "order_number": data["order_number"],
            "refund_type": data["refund_type"],
        }
        changes = {}
        for field, value in wanted.items():
            current = getattr(ticket, field)
            if current != value:
                changes[field] = value
        followers = [self.agents[k] for k in data["followers"]]
        if {f.public_id for f in followers} != {f.public_id for f in ticket.followers.all()}:
            changes["followers"] = followers
        return changes


def ticket_initial(ticket) -> dict:
    """The ticket form's values for a ticket as it is."""
    initial = {
        "requester": ticket.requester.email,
        "assignee": str(ticket.assignee.public_id) if ticket.assignee else "",
        "group": str(ticket.group.public_id) if ticket.group else "",
        "tags": " ".join(ticket.tags),
        "type": ticket.type,
        "priority": ticket.priority,
        "status": ticket.status if ticket.status != "closed" else "solved",
        "comment_mode": "public",
        "order_number": ticket.order_number,
        "refund_type": ticket.refund_type,
        "followers": [str(f.public_id) for f in ticket.followers.all()],
    }
    return initial


class MergeForm(forms.Form):
    target = forms.IntegerField(min_value=1, label="Ticket number to merge into")
    comment = forms.CharField(
        required=False, max_length=5000, widget=forms.Textarea, label="Comment added to the target ticket"
    )

    def __init__(self, *args, source, **kwargs):
        super().__init__(*args, **kwargs)
        self.source = source

    def clean_target(self):
        from .models import Ticket

        number = self.cleaned_data["target"]
        if number == self.source.public_id:
            raise forms.ValidationError("A ticket cannot be merged into itself.")
        target = Ticket.objects.filter(public_id=number).first()
        if target is None:
            raise forms.ValidationError(f"Ticket #{number} does not exist.")
        if target.status == "closed":
            raise forms.ValidationError(f"Ticket #{number} is closed and cannot take merges.")
        return target


class NewTicketForm(forms.Form):
    """A ticket an agent opens on a customer's behalf (the product's + Add → Ticket)."""

    requester = forms.EmailField(max_length=254)
    subject = forms.CharField(max_length=250)
    comment = forms.CharField(max_length=65536, widget=forms.Textarea, label="Description")
    type = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from .models import Ticket

        self.fields["type"].choices = [("", "-")] + list(Ticket.Type.choices)
        self.fields["priority"].choices = [("", "-")] + list(Ticket.Priority.choices)

    def clean_requester(self):
        from .models import User

        email = self.cleaned_data["requester"]
        user = User.objects.filter(email__iexact=email, role=User.Role.END_USER).order_by("public_id").first()
        if user is None:
            raise forms.ValidationError(f"No customer has the email address {email}.")
        return user

    def fields_to_set(self) -> dict:
        return {k: self.cleaned_data[k] for k in ("type", "priority") if self.cleaned_data[k]}
