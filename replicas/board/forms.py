"""Forms of the issue board: every value a person sends is checked here before a service sees it."""

import re

from django import forms
from django.http import QueryDict

from . import workflow as W
from .models import CustomField, Issue, Person, Sprint
from .services import custom_field_value

LABEL = re.compile(r"[^\s,]{1,50}")


def parse_labels(text: str) -> list[str]:
    labels = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    bad = [lbl for lbl in labels if not LABEL.fullmatch(lbl)]
    if bad:
        raise forms.ValidationError(f"{bad[0]!r} is not a valid label (no spaces or commas, at most 50 characters).")
    return sorted(dict.fromkeys(labels))


def _styled(form) -> None:
    for field in form.fields.values():
        if not isinstance(field.widget, (forms.CheckboxSelectMultiple, forms.MultipleHiddenInput, forms.CheckboxInput)):
            field.widget.attrs.setdefault("class", "input")


class LoginForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(max_length=128, strip=False)


class IssueForm(forms.Form):
    """The issue view's fields. Choices come from the issue's project and the world's people."""

    summary = forms.CharField(max_length=255)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}))
    steps_to_reproduce = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    assignee = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(choices=[(p, p) for p in W.PRIORITIES])
    labels = forms.CharField(required=False, max_length=500)
    components = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    fix_versions = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    story_points = forms.IntegerField(required=False, min_value=0, max_value=100)
    sprint = forms.ChoiceField(required=False)
    due_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    resolution = forms.ChoiceField(required=False, choices=[("", "Unresolved")] + [(r, r) for r in W.RESOLUTIONS])
    epic = forms.CharField(required=False, max_length=20, label="Parent")

    def __init__(self, *, issue: Issue, data=None):
        self.issue = issue
        initial = {
            "summary": issue.summary,
            "description": issue.description,
            "steps_to_reproduce": issue.steps_to_reproduce,
            "assignee": issue.assignee.username if issue.assignee else "",
            "priority": issue.priority,
            "labels": " ".join(issue.labels),
            "components": issue.components,
            "fix_versions": issue.fix_versions,
            "story_points": issue.story_points,
            "sprint": str(issue.sprint.public_id) if issue.sprint else "",
            "due_date": issue.due_date,
            "resolution": issue.resolution,
            "epic": issue.epic.key if issue.epic else "",
        }
        super().__init__(data=data, initial=initial)
        people = list(Person.objects.filter(active=True).order_by("name"))
        if issue.assignee and not issue.assignee.active:
            people.append(issue.assignee)
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "Unassigned")] + [
            (p.username, p.name if p.active else f"{p.name} (deactivated)") for p in people
        ]
        self.fields["components"].choices = [
            (c, c) for c in issue.project.components.order_by("name").values_list("name", flat=True)
        ]
        self.fields["fix_versions"].choices = [
            (v, v) for v in issue.project.versions.order_by("name").values_list("name", flat=True)
        ]
        sprints = list(issue.project.sprints.exclude(state=Sprint.State.CLOSED).order_by("number"))
        if issue.sprint and issue.sprint not in sprints:
            sprints.insert(0, issue.sprint)
        self.sprints = {str(s.public_id): s for s in sprints}
        self.fields["sprint"].choices = [("", "Backlog")] + [(k, s.name) for k, s in self.sprints.items()]
        self.custom = {}
        values = {v.field_id: v.value for v in issue.field_values.all()}
        for field in issue.project.custom_fields.order_by("public_id"):
            name = f"cf_{field.public_id}"
            self.custom[name] = field
            self.fields[name] = custom_form_field(field, values.get(field.id, ""))
            self.initial[name] = values.get(field.id, "")
        _styled(self)
        for name, field in self.fields.items():  # each field is saved on its own (inline editing)
            field.widget.attrs["form"] = f"inline-{name}"

    def one_field(self, name: str, posted) -> "IssueForm":
        """A bound form of the issue as it is, but for field `name` as `posted` (a QueryDict) has it:
        what inline editing validates, so an error reads on that field alone."""
        data = QueryDict(mutable=True)
        for key, value in self.initial.items():
            if isinstance(value, list):
                data.setlist(key, value)
            else:
                data[key] = "" if value is None else (value.isoformat() if hasattr(value, "isoformat") else str(value))
        data.setlist(name, posted.getlist(name))
        return IssueForm(issue=self.issue, data=data)

    def field_changes(self, name: str) -> dict:
        """The change of field `name` alone, as services.issue_update takes it."""
        changes = self.changes()
        if name in self.custom:
            return {"custom": {self.custom[name]: changes["custom"][self.custom[name]]}}
        return {name: changes[name]} if name in changes else {}

    def custom_rows(self):
        """(bound field, CustomField, legacy value or "") for the issue view's Details."""
        for name, field in self.custom.items():
            current = self.initial.get(name, "")
            legacy = (
                current if field.kind == CustomField.Kind.SELECT and current and current not in field.options else ""
            )
            yield self[name], field, legacy

    def clean_labels(self):
        return parse_labels(self.cleaned_data["labels"])

    # browsers send textarea line breaks as CRLF: saving a form unchanged must not change the text
    def clean_description(self):
        return self.cleaned_data["description"].replace("\r\n", "\n")

    def clean_steps_to_reproduce(self):
        return self.cleaned_data["steps_to_reproduce"].replace("\r\n", "\n")

    def clean_epic(self):
        key = self.cleaned_data["epic"].strip().upper()
        if not key:
            return None
        epic = Issue.objects.filter(key=key, issue_type="epic", project=self.issue.project).first()
        if epic is None:
            raise forms.ValidationError(f"{key} is not an epic of {self.issue.project.key}.")
        return epic

    def changes(self) -> dict:
        data = dict(self.cleaned_data)
        # a post that leaves a custom field out (a client that predates it) leaves its value alone
        values = {name: data.pop(name) for name in self.custom}
        data["custom"] = {
            field: custom_field_value(field, values[name]) for name, field in self.custom.items() if name in self.data
        }
        data["assignee"] = self.people.get(data["assignee"]) if data["assignee"] else None
        data["sprint"] = self.sprints.get(data["sprint"]) if data["sprint"] else None
        if self.issue.status != W.DONE and not data["resolution"]:
            data.pop("resolution")  # resolving happens on the transition to Done
        if self.issue.parent_id:
            data.pop("sprint")
        return data


def custom_form_field(field: CustomField, current: str) -> forms.Field:
    """The form field of a custom field. A select keeps a legacy value (an option renamed since) as
    a choice of its own, so saving the issue unchanged does not change it."""
    common = {"required": False, "label": field.name, "help_text": field.description}
    if field.kind == CustomField.Kind.NUMBER:
        return forms.DecimalField(max_digits=14, decimal_places=2, **common)
    if field.kind == CustomField.Kind.DATE:
        return forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), **common)
    if field.kind == CustomField.Kind.SELECT:
        choices = [("", "None")] + [(o, o) for o in field.options]
        if current and current not in field.options:
            choices.append((current, f"{current} (legacy value)"))
        return forms.ChoiceField(choices=choices, **common)
    return forms.CharField(max_length=255, **common)


CREATE_TYPES = ("story", "task", "bug", "epic")
# the create dialog shows these fields only for these work types, as the product's create screens do
FIELD_TYPES = {
    "steps_to_reproduce": ("bug",),
    "sprint": ("story", "task", "bug"),
    "epic": ("story", "task", "bug"),
}


class CreateForm(forms.Form):
    """The create dialog. Sub-tasks are created from their parent's issue view, as in the product."""

    issue_type = forms.ChoiceField(choices=[(t, W.TYPE_NAMES[t]) for t in CREATE_TYPES], label="Work type")
    summary = forms.CharField(max_length=255)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}))
    steps_to_reproduce = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Steps to reproduce"
    )
    assignee = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(choices=[(p, p) for p in W.PRIORITIES], initial="Medium")
    labels = forms.CharField(required=False, max_length=500)
    components = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    fix_versions = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple, label="Fix versions")
    story_points = forms.IntegerField(required=False, min_value=0, max_value=100, label="Story points")
    sprint = forms.ChoiceField(required=False)
    due_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="Due date")
    epic = forms.CharField(required=False, max_length=20, label="Parent")
    create_another = forms.BooleanField(required=False, label="Create another")

    def __init__(self, *, project, data=None, issue_type: str = "story"):
        self.project = project
        super().__init__(data=data, initial={"issue_type": issue_type if issue_type in CREATE_TYPES else "story"})
        people = list(Person.objects.filter(active=True).order_by("name"))
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "Unassigned")] + [(p.username, p.name) for p in people]
        self.fields["assignee"].error_messages["invalid_choice"] = (
            "Choose someone on the team, or leave the work item unassigned."
        )
        self.fields["components"].choices = [
            (c, c) for c in project.components.order_by("name").values_list("name", flat=True)
        ]
        self.fields["fix_versions"].choices = [
            (v, v) for v in project.versions.order_by("name").values_list("name", flat=True)
        ]
        self.sprints = {
            str(s.public_id): s for s in project.sprints.exclude(state=Sprint.State.CLOSED).order_by("number")
        }
        if self.sprints:
            self.fields["sprint"].choices = [("", "Backlog")] + [(k, s.name) for k, s in self.sprints.items()]
            self.fields["sprint"].error_messages["invalid_choice"] = (
                "Choose an open sprint of this project, or the backlog."
            )
        else:  # a kanban project plans no sprints
            del self.fields["sprint"]
        _styled(self)

    def clean_labels(self):
        return parse_labels(self.cleaned_data["labels"])

    def clean_description(self):
        return self.cleaned_data["description"].replace("\r\n", "\n")

    def clean_steps_to_reproduce(self):
        return self.cleaned_data["steps_to_reproduce"].replace("\r\n", "\n")

    def clean_epic(self):
        key = self.cleaned_data["epic"].strip().upper()
        if not key:
            return None
        epic = Issue.objects.filter(key=key, issue_type="epic", project=self.project).first()
        if epic is None:
            raise forms.ValidationError(f"{key} is not an epic of {self.project.key}.")
        return epic

    def clean(self):
        data = super().clean()
        if data.get("issue_type") == "epic" and data.get("epic"):
            self.add_error("epic", "An epic can't belong to another epic.")
        if data.get("issue_type") == "epic" and data.get("sprint"):
            self.add_error("sprint", "Epics are not planned into sprints: plan their stories and tasks instead.")
        if data.get("issue_type") not in (None, "bug") and data.get("steps_to_reproduce"):
            self.add_error("steps_to_reproduce", "Only a bug has steps to reproduce.")
        return data

    def chosen_type(self) -> str:
        """The work type the dialog shows its fields for: the posted one when valid, else the initial."""
        posted = self.data.get("issue_type") if self.is_bound else None
        return posted if posted in CREATE_TYPES else self.initial["issue_type"]

    def rows(self) -> list[dict]:
        """The dialog's fields, each with the work types it is shown for (None: every type)."""
        chosen = self.chosen_type()
        return [
            {
                "field": self[name],
                "types": FIELD_TYPES.get(name),
                "shown": chosen in FIELD_TYPES.get(name, CREATE_TYPES),
            }
            for name in self.fields
            if name != "create_another"
        ]

    def values(self) -> dict:
        data = dict(self.cleaned_data)
        data.pop("create_another")
        data["assignee"] = self.people[data["assignee"]] if data["assignee"] else None
        data["sprint"] = self.sprints[data["sprint"]] if data.get("sprint") else None
        data["components"] = sorted(data["components"])
        data["fix_versions"] = sorted(data["fix_versions"])
        return data


class SubtaskForm(forms.Form):
    """ "Create subtask" in the issue view: a summary and, optionally, who does it."""

    summary = forms.CharField(
        max_length=255,
        error_messages={
            "required": "A sub-task needs a summary.",
            "max_length": "A summary can be at most 255 characters long.",
        },
    )
    assignee = forms.ChoiceField(required=False)

    def __init__(self, *, people, data=None):
        super().__init__(data=data)
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "Unassigned")] + [(p.username, p.name) for p in people]
        self.fields["assignee"].error_messages["invalid_choice"] = (
            "Choose someone on the team, or leave the sub-task unassigned."
        )

    def values(self) -> dict:
        username = self.cleaned_data["assignee"]
        return {"summary": self.cleaned_data["summary"], "assignee": self.people[username] if username else None}


CUSTOM = "custom"


class SprintStartForm(forms.Form):
    """The "Start sprint" dialog: the sprint's name, how long it runs (weeks, or custom dates ending on
    `end_date`) and what it is for. A post without `name` or `goal` leaves the planned one alone."""

    name = forms.CharField(
        required=False,
        max_length=60,
        label="Sprint name",
        error_messages={"max_length": "A sprint name can be at most 60 characters long."},
    )
    weeks = forms.TypedChoiceField(
        coerce=lambda v: None if v == CUSTOM else int(v),
        initial=2,
        label="Duration",
        choices=[(n, f"{n} week{'s' if n > 1 else ''}") for n in (1, 2, 3, 4)] + [(CUSTOM, "Custom")],
        error_messages={
            "invalid_choice": "Duration must be 1, 2, 3 or 4 weeks.",
            "required": "Choose how long the sprint runs.",
        },
    )
    end_date = forms.DateField(required=False, label="End date", widget=forms.DateInput(attrs={"type": "date"}))
    goal = forms.CharField(
        required=False,
        max_length=200,
        label="Sprint goal",
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"max_length": "A sprint goal can be at most 200 characters long."},
    )

    def __init__(self, data=None, *, sprint: Sprint):
        super().__init__(data, initial={"goal": sprint.goal, "name": sprint.name})
        self.sent = set(data or ())
        _styled(self)

    def clean_goal(self):
        return " ".join(self.cleaned_data["goal"].split())

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if "name" in self.sent and not name:
            raise forms.ValidationError("Give the sprint a name.")
        return name

    def clean(self):
        data = super().clean()
        if "weeks" in data and data["weeks"] is None and data.get("end_date") is None:
            self.add_error("end_date", "Custom dates need an end date.")
        return data

    def values(self) -> dict:
        """The service's arguments: only the fields that were sent, and the end date only for custom dates."""
        data = self.cleaned_data
        values = {"weeks": data["weeks"], "end": data["end_date"] if data["weeks"] is None else None}
        values.update({k: data[k] for k in ("name", "goal") if k in self.sent})
        return values


class BulkForm(forms.Form):
    keys = forms.CharField(widget=forms.HiddenInput)  # the checked boxes, joined by the constructor
    assignee = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(required=False, choices=[("", "No change")] + [(p, p) for p in W.PRIORITIES])
    labels_add = forms.CharField(required=False, max_length=500, label="Add labels")
    labels_remove = forms.CharField(required=False, max_length=500, label="Remove labels")
    # a transition for every selected issue, each through its own project's workflow
    status = forms.ChoiceField(required=False, label="Transition to")
    resolution = forms.ChoiceField(required=False, choices=[("", "No resolution")] + [(r, r) for r in W.RESOLUTIONS])

    def __init__(self, *, people, statuses=W.ALL_STATUSES, data=None):
        if data is not None:
            data = data.copy()
            data.setlist("keys", [",".join(data.getlist("keys"))])
        super().__init__(data=data)
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "No change"), ("-", "Unassigned")] + [
            (p.username, p.name) for p in people
        ]
        self.fields["status"].choices = [("", "No change")] + [(s, s) for s in statuses]
        _styled(self)

    def clean_keys(self):
        keys = [k.strip().upper() for k in self.cleaned_data["keys"].split(",") if k.strip()]
        if not keys:
            raise forms.ValidationError("Select at least one issue.")
        if len(keys) > 500:
            raise forms.ValidationError("At most 500 work items can be changed at once.")
        return keys

    def clean_labels_add(self):
        return parse_labels(self.cleaned_data["labels_add"])

    def clean_labels_remove(self):
        return parse_labels(self.cleaned_data["labels_remove"])

    def clean(self):
        data = super().clean()
        if not self.errors and not (
            data.get("assignee")
            or data.get("priority")
            or data.get("labels_add")
            or data.get("labels_remove")
            or data.get("status")
        ):
            raise forms.ValidationError("Choose at least one change to make.")
        return data

    def changes(self) -> dict:
        data = self.cleaned_data
        values = {
            "priority": data["priority"],
            "labels_add": data["labels_add"],
            "labels_remove": data["labels_remove"],
            "status": data["status"],
            "resolution": data["resolution"],
        }
        if data["assignee"]:
            values["assignee"] = None if data["assignee"] == "-" else self.people[data["assignee"]]
        return values


class FilterForm(forms.Form):
    name = forms.CharField(max_length=80, label="Name")
    jql = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}), label="JQL")
    description = forms.CharField(max_length=200, required=False, label="Description")
    starred = forms.BooleanField(required=False, label="Starred")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _styled(self)

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("A filter needs a name.")
        return name

    def clean_jql(self):
        query = " ".join(self.cleaned_data["jql"].split())
        if not query:
            raise forms.ValidationError("A filter needs a JQL query.")
        return query


MAX_ATTACHMENT = 10 * 1024 * 1024
ATTACHMENT_NAME = re.compile(r"[^/\\\x00-\x1f]{1,255}")


class AttachmentForm(forms.Form):
    file = forms.FileField(allow_empty_file=True, label="Attach a file")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        name = upload.name.strip()
        if not ATTACHMENT_NAME.fullmatch(name) or name in (".", ".."):
            raise forms.ValidationError(
                "That file name can't be used: no slashes or control characters, at most 255 characters."
            )
        if upload.size > MAX_ATTACHMENT:
            raise forms.ValidationError("Files can be at most 10 MB.")
        return upload
