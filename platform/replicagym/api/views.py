"""REST API views, one per operation, each with its own input and output serializers.

Views stay thin: they validate, call a service, and shape the answer. Other
users' episodes are 404 (never 403), so ids reveal nothing. Each view names the roles it
admits (`allowed_roles`, see replicagym.accounts.roles); an agent token reaches only the
tasks of its suites and starts episodes within its quotas (429 with Retry-After past them).
"""

import re

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.models import Task
from catalogue.packs import TaskNotFound, task_current
from episodes.creation import API_CLAIM, EpisodeError, episode_create, own_browser_refusal
from episodes.engine.observation import OBSERVATION_MODES, OBSERVATION_SETTING, observation_settings
from episodes.external import episode_finish_external
from episodes.models import Episode
from episodes.variation import VARIATION_MAX
from replicagym.accounts.models import AgentToken
from replicagym.accounts.roles import Role
from replicagym.accounts.tokens import QuotaExceeded, TokenScopeError, token_episode_start, token_episodes, token_tasks
from replicas.worlds.routing import world_origin
from verifiers.agent_view import agent_view
from verifiers.interaction import interaction_actions

AGENT_NAME = re.compile(r"^[\w.:@/+-]{1,100}$")
MAX_MESSAGES = 50
MAX_MESSAGE_CHARS = 10_000


class LimitsSerializer(serializers.Serializer):
    max_steps = serializers.IntegerField()
    max_seconds = serializers.FloatField()


API_ROLES = frozenset({Role.AGENT, Role.AUTHOR})


def _agent_token(request) -> AgentToken | None:
    return request.auth if isinstance(request.auth, AgentToken) else None


class TaskListApi(APIView):
    allowed_roles = API_ROLES

    class TaskOutputSerializer(serializers.Serializer):
        id = serializers.CharField(source="task_id")
        version = serializers.CharField()
        replica = serializers.CharField()
        title = serializers.CharField()
        difficulty = serializers.CharField()
        instruction = serializers.CharField()
        start_page = serializers.CharField()
        limits = LimitsSerializer()
        interaction = serializers.SerializerMethodField(
            help_text="The UI interactions the task requires (drag_and_drop); such a task cannot be an episode "
            "in your own browser."
        )

        def get_interaction(self, task) -> list[str]:
            return interaction_actions(task.spec.get("interaction"))

    @extend_schema(
        responses=TaskOutputSerializer(many=True),
        summary="List the current tasks you may start (never their verifier or answer key)",
    )
    def get(self, request):
        token = _agent_token(request)
        tasks = (token_tasks(token) if token else Task.objects.filter(is_current=True)).order_by("task_id")
        return Response(self.TaskOutputSerializer(tasks, many=True).data)


class AgentVerdictSerializer(serializers.Serializer):
    """What an agent learns of its verdict (verifiers.agent_view): whether it passed, never which assertions held."""

    passed = serializers.BooleanField()


class EpisodeOutputSerializer(serializers.Serializer):
    """An episode as its owner sees it; verdict and rewards appear only once it has finished."""

    id = serializers.IntegerField(source="pk")
    task = serializers.CharField(source="task.task_id")
    task_version = serializers.CharField(source="task.version")
    agent = serializers.CharField()
    status = serializers.CharField()
    world = serializers.SerializerMethodField()
    origin = serializers.SerializerMethodField()
    start_url = serializers.SerializerMethodField()
    instruction = serializers.SerializerMethodField()
    limits = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    passed = serializers.SerializerMethodField()
    verdict = serializers.SerializerMethodField()
    rewards = serializers.SerializerMethodField()
    error = serializers.CharField()

    def _origin(self, ep) -> str:
        return world_origin(ep.world) if ep.world_id else ""

    def get_world(self, ep) -> str:
        return ep.world.token if ep.world_id else ""

    def get_origin(self, ep) -> str:
        return self._origin(ep)

    def get_start_url(self, ep) -> str:
        origin = self._origin(ep)
        return origin + ep.instance.start_page if origin else ""

    def get_instruction(self, ep) -> str:
        return ep.instance.instruction

    @extend_schema_field(LimitsSerializer)
    def get_limits(self, ep):
        limits = ep.instance.limits
        return {"max_steps": limits["max_steps"], "max_seconds": limits["max_seconds"]}

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_passed(self, ep):
        return ep.passed if ep.is_final else None

    # The agent-facing view (verifiers.agent_view): passed and the signals, never assertions or expected values.
    @extend_schema_field(AgentVerdictSerializer(allow_null=True))
    def get_verdict(self, ep):
        return agent_view(ep.verdict, ep.rewards)["verdict"] if ep.is_final else None

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(), allow_null=True))
    def get_rewards(self, ep):
        return agent_view(ep.verdict, ep.rewards)["rewards"] if ep.is_final else None


def own_browser_task(task_id: str) -> Task:
    """The current task `task_id` if it can be an episode in the agent's own browser, else ValidationError."""
    try:
        task = task_current(task_id)
    except TaskNotFound:
        raise ValidationError(f"unknown task {task_id!r}") from None
    if why := own_browser_refusal(task):
        raise ValidationError(why)
    return task


def own_browser_episode_start(request, task: Task, **fixed) -> Episode:
    """A running episode of `task` in the caller's own browser: a token's within its scope and quotas
    (TokenScopeError, QuotaExceeded), staff's with neither; `fixed`: seed, variation, agent_settings."""
    token = _agent_token(request)
    if token is not None:
        return token_episode_start(token=token, task=task, **fixed)
    return episode_create(
        task=task,
        agent=f"external:{request.user.get_username()}",
        owner=request.user,
        status=Episode.Status.RUNNING,
        claimed_by=f"{API_CLAIM}{request.user.pk}",
        vary=True,
        **fixed,
    )


def _own_episodes(request):
    token = _agent_token(request)
    # a token's own episodes, never the rest of its user's (another token's, a run launched from the UI)
    return token_episodes(token) if token else Episode.objects.filter(owner=request.user)


def _owned_episode(request, episode_id) -> Episode:
    return get_object_or_404(_own_episodes(request).select_related("task", "world"), pk=episode_id)


class EpisodePage(PageNumberPagination):
    page_size = 50


class EpisodeListCreateApi(GenericAPIView):
    allowed_roles = API_ROLES
    pagination_class = EpisodePage

    class EpisodeListQuerySerializer(serializers.Serializer):
        status = serializers.ChoiceField(
            choices=Episode.Status.values, required=False, help_text="Only the episodes in this state."
        )

    @extend_schema(
        parameters=[EpisodeListQuerySerializer],
        responses=EpisodeOutputSerializer(many=True),
        summary="Your episodes (a token's: those it started), newest first, 50 a page",
    )
    def get(self, request):
        query = self.EpisodeListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        episodes = _own_episodes(request).select_related("task", "world").order_by("-pk")
        if "status" in query.validated_data:
            episodes = episodes.filter(status=query.validated_data["status"])
        page = self.paginate_queryset(episodes)
        return self.get_paginated_response(EpisodeOutputSerializer(page, many=True).data)

    class EpisodeCreateInputSerializer(serializers.Serializer):
        task = serializers.CharField(max_length=160, help_text="Task id, <replica>.<slug>.")
        # Still accepted (and checked) so that clients which send it keep working, but it decides nothing:
        # the server records who runs the episode, since exports pick their sources by that record.
        agent = serializers.CharField(
            max_length=100,
            required=False,
            default="external",
            help_text="Ignored (letters, digits, . : @ / + -): the episode's agent is recorded by "
            "the server as external:<token name>, or external:<username> for staff.",
        )

        # Unless fixed here, each episode plays its own variation (episodes.variation): world seed and picks.
        seed = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=VARIATION_MAX,
            help_text="World seed (default: drawn per episode); without a variation, the task's fixed picks on it.",
        )
        variation = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=VARIATION_MAX,
            help_text="The episode's variation (default: drawn): the same one gives the same world and answer key.",
        )
        observation = serializers.JSONField(
            required=False,
            help_text='What the engine observes for the agent, as in {"mode": "text", "screenshots": false, '
            f'"full_every": 5}}: mode one of {", ".join(OBSERVATION_MODES)} (default full, with screenshots). '
            "Kept in the episode's agent settings.",
        )

        def validate_observation(self, value):
            try:
                observation_settings({OBSERVATION_SETTING: value})
            except ValueError as exc:
                raise ValidationError(str(exc)) from None
            return value

        def validate_agent(self, value):
            if not AGENT_NAME.match(value):
                raise ValidationError("use letters, digits and . : @ / + - only (at most 100 characters)")
            return value

        def validate_task(self, value):
            return own_browser_task(value)

    @extend_schema(
        request=EpisodeCreateInputSerializer,
        responses={201: EpisodeOutputSerializer},
        summary="Start an episode in a fresh world for an agent with its own browser",
    )
    def post(self, request):
        data = self.EpisodeCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = data.validated_data["task"]
        fixed = {k: data.validated_data.get(k) for k in ("seed", "variation")}
        if "observation" in data.validated_data:
            fixed["agent_settings"] = {OBSERVATION_SETTING: data.validated_data["observation"]}
        try:
            episode = own_browser_episode_start(request, task, **fixed)
        except TokenScopeError as exc:
            raise PermissionDenied(str(exc)) from None
        except QuotaExceeded as exc:
            raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
        except EpisodeError as exc:  # a seed whose world holds nothing the task can be about
            raise ValidationError({"seed": [str(exc)]}) from None
        return Response(EpisodeOutputSerializer(episode).data, status=status.HTTP_201_CREATED)


class EpisodeDetailApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(responses=EpisodeOutputSerializer, summary="An episode of yours; verdict and rewards once finished")
    def get(self, request, episode_id):
        return Response(EpisodeOutputSerializer(_owned_episode(request, episode_id)).data)


class EpisodeFinishApi(APIView):
    allowed_roles = API_ROLES

    class EpisodeFinishInputSerializer(serializers.Serializer):
        messages = serializers.ListField(
            child=serializers.CharField(max_length=MAX_MESSAGE_CHARS, allow_blank=True, trim_whitespace=False),
            max_length=MAX_MESSAGES,
            help_text="What the agent told the user (send_msg_to_user texts), in order.",
        )

    @extend_schema(
        request=EpisodeFinishInputSerializer,
        responses=EpisodeOutputSerializer,
        summary="Finish an episode: verify what its world recorded (steps, last page served, state), return "
        "the rewards",
    )
    def post(self, request, episode_id):
        episode = _owned_episode(request, episode_id)
        data = self.EpisodeFinishInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            episode = episode_finish_external(episode=episode, messages=data.validated_data["messages"])
        except EpisodeError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response(EpisodeOutputSerializer(episode).data)
