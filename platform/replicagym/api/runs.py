"""REST API for runs: launch, list, follow, cancel, report (one view per operation, as in views.py).

Staff (authors, admins) may launch any suite and see every run. An agent token launches
runs of its own suites only, with agents that do not play the task's reference solution
(an agent's run must not be scored by the answer key), at no more than the default
priority, and every episode counts against the token's hourly quota; it sees its own runs
only (others are 404). Reports carry pass rates and reward signals, never assertion details.
"""

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.models import Suite
from episodes.models import Run
from episodes.runs import (
    AGENT_SETTINGS,
    MAX_ATTEMPTS,
    PRIORITIES,
    RunError,
    agent_kind,
    agent_refused_from_outside,
    run_cancel,
    run_launch,
    run_progress,
    run_tasks,
)
from episodes.variation import VARIATION_MAX
from replicagym.accounts.models import AgentToken, TokenEpisode
from replicagym.accounts.roles import Role
from replicagym.accounts.tokens import (
    QuotaExceeded,
    TokenScopeError,
    token_episodes,
    token_model_agent_check,
    token_quota_check,
)
from replicagym.reports.report import run_report

API_ROLES = frozenset({Role.AGENT, Role.AUTHOR})
# Agents that play the task's own reference solution: staff baselines, never an agent token's run.
ANSWER_KEY_AGENTS = ("oracle", "noisy-oracle")


def _token(request) -> AgentToken | None:
    return request.auth if isinstance(request.auth, AgentToken) else None


def _visible_runs(request):
    runs = Run.objects.select_related("suite", "owner")
    token = _token(request)
    if token is None:
        return runs
    # the token's own runs, not every run of its user: those whose episodes it started
    return runs.filter(owner=request.user, pk__in=token_episodes(token).values("run_id"))


class ProgressSerializer(serializers.Serializer):
    status = serializers.CharField()
    total = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    succeeded = serializers.IntegerField()
    failed = serializers.IntegerField()
    cancelled = serializers.IntegerField()
    ended = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField()
    eta_seconds = serializers.FloatField(allow_null=True)


class RunOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    suite = serializers.CharField(source="suite.name", allow_null=True, default=None)
    task_filter = serializers.CharField()
    agent = serializers.CharField()
    agent_settings = serializers.DictField()
    attempts = serializers.IntegerField()
    faults = serializers.BooleanField()
    priority = serializers.IntegerField()
    seed = serializers.IntegerField(
        allow_null=True, help_text="Each episode's variation follows from it, its task and its attempt."
    )
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    progress = serializers.SerializerMethodField()

    def get_progress(self, run) -> ProgressSerializer:
        return ProgressSerializer(run_progress(run)).data


class RunListCreateApi(APIView):
    allowed_roles = API_ROLES

    class RunCreateInputSerializer(serializers.Serializer):
        suite = serializers.CharField(max_length=96, required=False, allow_blank=True, default="")
        task_filter = serializers.CharField(
            max_length=200,
            required=False,
            allow_blank=True,
            default="",
            help_text="Only task ids matching this pattern (wildcards * ? [ ]).",
        )
        agent = serializers.CharField(
            max_length=300, help_text="random[:SEED], http:URL, openai:MODEL; staff also oracle, noisy-oracle."
        )
        agent_settings = serializers.DictField(
            required=False, default=dict, help_text=f"Of {', '.join(AGENT_SETTINGS)}."
        )
        attempts = serializers.IntegerField(min_value=1, max_value=MAX_ATTEMPTS, default=1)
        faults = serializers.BooleanField(default=True)
        priority = serializers.IntegerField(min_value=PRIORITIES.start, max_value=PRIORITIES.stop - 1, default=0)
        seed = serializers.IntegerField(
            min_value=0,
            max_value=VARIATION_MAX,
            required=False,
            help_text="Fixes every episode's variation (world seed and answer key) by task and attempt; "
            "default: drawn.",
        )

        def validate_agent(self, value):
            if agent_refused_from_outside(value):
                raise ValidationError(f"{agent_kind(value)} agents read files on the server: use manage.py run_suite")
            return value.strip()

    @extend_schema(responses=RunOutputSerializer(many=True), summary="Your runs, newest first (staff: every run)")
    def get(self, request):
        return Response(RunOutputSerializer(_visible_runs(request).order_by("-pk")[:100], many=True).data)

    @extend_schema(
        request=RunCreateInputSerializer,
        responses={201: RunOutputSerializer},
        summary="Launch a run: a suite (or a task filter) x agent x attempts, queued for the workers",
    )
    def post(self, request):
        data = self.RunCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        token = _token(request)
        try:
            if token is None:
                run = run_launch(**fields, owner=request.user)
            else:
                run = _token_run_launch(token, fields)
        except RunError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response(RunOutputSerializer(run).data, status=status.HTTP_201_CREATED)


def _token_run_launch(token: AgentToken, fields: dict) -> Run:
    if agent_kind(fields["agent"]) in ANSWER_KEY_AGENTS:
        raise PermissionDenied(
            f"{agent_kind(fields['agent'])} plays the reference solution: an agent token runs its own agent"
        )
    if agent_kind(fields["agent"]) == "openai":
        try:
            token_model_agent_check(token=token, agent=fields["agent"])
        except TokenScopeError as exc:
            raise PermissionDenied(str(exc)) from None
    if fields["priority"] > 0:
        raise PermissionDenied("an agent token's runs take the default priority (0) or lower")
    if fields["suite"] and fields["suite"] not in token.suites:
        raise PermissionDenied(f"this token may run the suites {', '.join(token.suites)} only")
    in_scope = Suite.objects.filter(is_current=True, name__in=token.suites)
    suite = in_scope.filter(name=fields["suite"]).first() if fields["suite"] else None
    tasks = run_tasks(suite=suite, task_filter=fields["task_filter"]) if (suite or fields["task_filter"]) else []
    allowed = set(in_scope.values_list("tasks__task_id", flat=True))
    if outside := sorted({t.task_id for t in tasks} - allowed):
        raise PermissionDenied(f"tasks outside this token's suites: {', '.join(outside[:5])}")
    with transaction.atomic():
        # one launch at a time per token, so two requests cannot both take its last slots
        locked = AgentToken.objects.select_for_update().get(pk=token.pk)
        now = timezone.now()
        try:  # a run's episodes are queued at once: every one counts against both of the token's limits
            token_quota_check(locked, now, wanted=len(tasks) * fields["attempts"])
        except QuotaExceeded as exc:
            raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
        run = run_launch(**fields, owner=locked.user)
        TokenEpisode.objects.bulk_create(
            TokenEpisode(token=locked, episode=e, created_at=now) for e in run.episodes.all()
        )
    return run


class RunDetailApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(responses=RunOutputSerializer, summary="A run and its progress: episodes by state, ETA")
    def get(self, request, run_id):
        return Response(RunOutputSerializer(get_object_or_404(_visible_runs(request), pk=run_id)).data)


class RunCancelApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(
        request=None,
        responses=RunOutputSerializer,
        summary="Cancel a run: queued episodes never start, running ones stop at their next step",
    )
    def post(self, request, run_id):
        run = get_object_or_404(_visible_runs(request), pk=run_id)
        try:
            run = run_cancel(run_id=run.pk)
        except RunError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(RunOutputSerializer(run).data)


class RunReportApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="The run's report: per task pass@1, pass^k, reward signal means and values, steps, seconds",
    )
    def get(self, request, run_id):
        return Response(run_report(run=get_object_or_404(_visible_runs(request), pk=run_id)))
