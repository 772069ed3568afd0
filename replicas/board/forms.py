"""Forms of the issue board: every value a person sends is checked here before a service sees it."""
import re

from django import forms

from . import workflow as W
from .models import Issue, Person, Sprint

LABEL = re.compile(r"[^\s,]{1,50}")


def parse_labels(text: str) -> list[str]:
    labels = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    bad = [lbl for lbl in labels if not LABEL.fullmatch(lbl)]
    if bad:
        raise forms.ValidationError(f"{bad[0]!r} is not a valid label (no spaces or commas, at most 50 characters).")
    return sorted(dict.fromkeys(labels))


def _styled(form) -> None:
    for field in form.fields.values():
        if not isinstance(field.widget, (forms.CheckboxSelectMultiple, forms.MultipleHiddenInput)):
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
    epic = forms.CharField(required=False, max_length=20, label="Epic link")

    def __init__(self, *, issue: Issue, data=None):
        self.issue = issue
        initial = {
            "summary": issue.summary, "description": issue.description, "steps_to_reproduce": issue.steps_to_reproduce,
            "assignee": issue.assignee.username if issue.assignee else "", "priority": issue.priority,
            "labels": " ".join(issue.labels), "components": issue.components, "fix_versions": issue.fix_versions,
            "story_points": issue.story_points, "sprint": str(issue.sprint.public_id) if issue.sprint else "",
            "due_date": issue.due_date, "resolution": issue.resolution, "epic": issue.epic.key if issue.epic else "",
        }
        super().__init__(data=data, initial=initial)
        people = list(Person.objects.filter(active=True).order_by("name"))
        if issue.assignee and not issue.assignee.active:
            people.append(issue.assignee)
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "Unassigned")] + [
            (p.username, p.name if p.active else f"{p.name} (deactivated)") for p in people]
        self.fields["components"].choices = [(c, c) for c in issue.project.components.order_by("name").values_list("name", flat=True)]
        self.fields["fix_versions"].choices = [(v, v) for v in issue.project.versions.order_by("name").values_list("name", flat=True)]
        sprints = list(issue.project.sprints.exclude(state=Sprint.State.CLOSED).order_by("number"))
        if issue.sprint and issue.sprint not in sprints:
            sprints.insert(0, issue.sprint)
        self.sprints = {str(s.public_id): s for s in sprints}
        self.fields["sprint"].choices = [("", "Backlog")] + [(k, s.name) for k, s in self.sprints.items()]
        _styled(self)

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
        data["assignee"] = self.people.get(data["assignee"]) if data["assignee"] else None
        data["sprint"] = self.sprints.get(data["sprint"]) if data["sprint"] else None
        if self.issue.status != W.DONE and not data["resolution"]:
            data.pop("resolution")  # resolving happens on the transition to Done
        if self.issue.parent_id:
            data.pop("sprint")
        return data


class CreateForm(forms.Form):
    issue_type = forms.ChoiceField(choices=[(t, W.TYPE_NAMES[t]) for t in ("story", "task", "bug", "epic")], label="Issue type")
    summary = forms.CharField(max_length=255)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}))
    priority = forms.ChoiceField(choices=[(p, p) for p in W.PRIORITIES], initial="Medium")
    labels = forms.CharField(required=False, max_length=500)

    def __init__(self, *, project, data=None):
        self.project = project
        super().__init__(data=data)
        _styled(self)

    def clean_labels(self):
        return parse_labels(self.cleaned_data["labels"])

    def values(self) -> dict:
        return dict(self.cleaned_data)


class BulkForm(forms.Form):
    keys = forms.CharField(widget=forms.HiddenInput)  # the checked boxes, joined by the constructor
    assignee = forms.ChoiceField(required=False)
    priority = forms.ChoiceField(required=False, choices=[("", "No change")] + [(p, p) for p in W.PRIORITIES])
    labels_add = forms.CharField(required=False, max_length=500, label="Add labels")
    labels_remove = forms.CharField(required=False, max_length=500, label="Remove labels")

    def __init__(self, *, people, data=None):
        if data is not None:
            data = data.copy()
            data.setlist("keys", [",".join(data.getlist("keys"))])
        super().__init__(data=data)
        self.people = {p.username: p for p in people}
        self.fields["assignee"].choices = [("", "No change"), ("-", "Unassigned")] + [(p.username, p.name) for p in people]
        _styled(self)

    def clean_keys(self):
        keys = [k.strip().upper() for k in self.cleaned_data["keys"].split(",") if k.strip()]
        if not keys:
            raise forms.ValidationError("Select at least one issue.")
        if len(keys) > 500:
            raise forms.ValidationError("At most 500 issues can be changed at once.")
        return keys

    def clean_labels_add(self):
        return parse_labels(self.cleaned_data["labels_add"])

    def clean_labels_remove(self):
        return parse_labels(self.cleaned_data["labels_remove"])

    def clean(self):
        data = super().clean()
        if not self.errors and not (data.get("assignee") or data.get("priority") or data.get("labels_add") or data.get("labels_remove")):
            raise forms.ValidationError("Choose at least one change to make.")
        return data

    def changes(self) -> dict:
        data = self.cleaned_data
        values = {"priority": data["priority"], "labels_add": data["labels_add"], "labels_remove": data["labels_remove"]}
        if data["assignee"]:
            values["assignee"] = None if data["assignee"] == "-" else self.people[data["assignee"]]
        return values
