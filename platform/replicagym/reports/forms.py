"""The launch form: the same inputs as the API and run_suite; episodes.runs checks them again before writing."""

from django import forms

from catalogue.models import Suite
from episodes.runs import MAX_ATTEMPTS, PRIORITIES, agent_kind, agent_refused_from_outside
from replicagym.jsonintake import JsonIntakeError, json_intake

AGENT_SUGGESTIONS = ("oracle", "noisy-oracle", "random", "random:7", "http:http://127.0.0.1:9000/act", "openai:gpt-4o")


class RunForm(forms.Form):
    suite = forms.ChoiceField(
        required=False,
        help_text="A suite's current version; leave empty to run the task filter over every current task.",
    )
    task_filter = forms.CharField(
        required=False,
        max_length=200,
        label="Task filter",
        help_text="Only task ids matching this pattern, e.g. testbed.rename-* (wildcards * ? [ ]).",
    )
    agent = forms.CharField(
        max_length=300,
        initial="oracle",
        help_text="oracle, noisy-oracle[:RATE[:SEED]], random[:SEED], http:URL or openai:MODEL.",
    )
    agent_settings = forms.CharField(
        required=False,
        label="Agent settings (JSON)",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='e.g. {"timeout": 30, "temperature": 0.2} for remote agents.',
    )
    attempts = forms.IntegerField(min_value=1, max_value=MAX_ATTEMPTS, initial=1, help_text="Attempts per task (k).")
    faults = forms.BooleanField(required=False, initial=True, label="Arm the tasks' faults")
    priority = forms.IntegerField(
        min_value=PRIORITIES.start,
        max_value=PRIORITIES.stop - 1,
        initial=0,
        help_text="Workers take episodes of higher-priority runs first.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = Suite.objects.filter(is_current=True).order_by("name").values_list("name", flat=True)
        self.fields["suite"].choices = [("", "(no suite: filter every current task)"), *((n, n) for n in names)]

    def clean_agent(self):
        agent = self.cleaned_data["agent"].strip()
        if agent_refused_from_outside(agent):
            raise forms.ValidationError(
                f"{agent_kind(agent)} agents read files on the server: use manage.py run_suite for them"
            )
        return agent

    def clean_agent_settings(self):
        text = self.cleaned_data["agent_settings"].strip()
        if not text:
            return {}
        try:
            value = json_intake(text)
        except JsonIntakeError as exc:
            raise forms.ValidationError(str(exc)) from None
        if not isinstance(value, dict):
            raise forms.ValidationError('a JSON object, as in {"timeout": 30}')
        return value

    def clean(self):
        data = super().clean()
        if not data.get("suite") and not (data.get("task_filter") or "").strip() and not self.errors:
            raise forms.ValidationError("choose a suite, a task filter, or both")
        return data
