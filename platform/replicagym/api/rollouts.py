"""REST API for trainer-owned group rollouts and for the observations an episode's steps were given.

A trainer that generates the actions itself (GRPO) opens a group: G episodes of one task on one
start state (world seed and variation), each played from outside as any API episode is, counted
against the token's limits like that many episodes. Finishing the group finishes the members still
running and answers each member's rewards with the group-relative advantages. An episode's steps
carry the observation text the agent was given before each action, so a trainer can rebuild its
prompts. Other tokens' groups and episodes are 404, as everywhere in the API.
"""

import re

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from episodes.creation import API_CLAIM, EpisodeError
from episodes.models import Run
from episodes.rollouts import MAX_GROUP, RolloutError, group_finish, group_open
from episodes.variation import VARIATION_MAX
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import (
    QuotaExceeded,
    TokenScopeError,
    token_agent,
    token_episodes,
    token_quota_check,
    token_scope_check,
)

from .views import (
    API_ROLES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
    EpisodeOutputSerializer,
    _agent_token,
    _owned_episode,
    own_browser_episode_start,
    own_browser_task,
)


def _visible_groups(request):
    """Trainer-owned groups (runs whose episodes are in the agent's own browser) of the caller."""
    groups = Run.objects.filter(shared_variation=True, episodes__claimed_by__startswith=API_CLAIM).distinct()
    token = _agent_token(request)
    if token is None:
        return groups.filter(owner=request.user)
    # a token's own groups, not its user's other tokens': those whose episodes it started
    return groups.filter(owner=request.user, pk__in=token_episodes(token).values("run_id"))


class GroupOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk", help_text="The group's id (it is also a run: GET /api/runs/<id>).")
    task = serializers.CharField(source="task_filter")
    size = serializers.IntegerField(source="attempts")
    status = serializers.CharField()
    members = serializers.SerializerMethodField()

    @extend_schema_field(EpisodeOutputSerializer(many=True))
    def get_members(self, run):
        episodes = run.episodes.select_related("task", "world").order_by("attempt")
        return EpisodeOutputSerializer(episodes, many=True).data


class MemberResultSerializer(serializers.Serializer):
    episode = serializers.IntegerField()
    attempt = serializers.IntegerField()
    status = serializers.CharField()
    passed = serializers.BooleanField(allow_null=True)
    reward = serializers.FloatField(help_text="episode_reward; 0 for a member that ended without rewards.")
    rewards = serializers.DictField(child=serializers.FloatField())


class GroupResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="run")
    task = serializers.CharField()
    members = MemberResultSerializer(many=True, source="episodes")
    rewards = serializers.ListField(child=serializers.FloatField())
    advantages = serializers.ListField(
        child=serializers.FloatField(), help_text="(reward - group mean) / (group std + 1e-6), in member order."
    )


class GroupCreateApi(APIView):
    allowed_roles = API_ROLES

    class GroupCreateInputSerializer(serializers.Serializer):
        task = serializers.CharField(max_length=160, help_text="Task id, <replica>.<slug>.")
        size = serializers.IntegerField(min_value=1, max_value=MAX_GROUP, help_text="G: how many members.")
        seed = serializers.IntegerField(
            required=False, min_value=0, max_value=VARIATION_MAX, help_text="World seed of every member."
        )
        variation = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=VARIATION_MAX,
            help_text="Variation of every member (default: one drawn for the whole group).",
        )

        def validate_task(self, value):
            return own_browser_task(value)

    @extend_schema(
        request=GroupCreateInputSerializer,
        responses={201: GroupOutputSerializer},
        summary="Open a group: G running episodes of one task on one start state, each for you to play",
    )
    def post(self, request):
        data = self.GroupCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        token = _agent_token(request)
        try:
            with transaction.atomic():
                if token is not None:
                    token_scope_check(token=token, task=fields["task"])
                    # the group's members all count at once, under the lock each member's start takes again
                    locked = AgentToken.objects.select_for_update().get(pk=token.pk)
                    token_quota_check(locked, timezone.now(), wanted=fields["size"])
                run = group_open(
                    task=fields["task"].task_id,
                    size=fields["size"],
                    agent=token_agent(token) if token is not None else f"external:{request.user.get_username()}",
                    start=lambda task, seed, variation: own_browser_episode_start(
                        request, task, seed=seed, variation=variation
                    ),
                    owner=request.user,
                    seed=fields.get("seed"),
                    variation=fields.get("variation"),
                )
        except TokenScopeError as exc:
            raise PermissionDenied(str(exc)) from None
        except QuotaExceeded as exc:
            raise Throttled(wait=exc.retry_after, detail=str(exc)) from None
        except EpisodeError as exc:  # a seed whose world holds nothing the task can be about
            raise ValidationError({"seed": [str(exc)]}) from None
        except RolloutError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response(GroupOutputSerializer(run).data, status=status.HTTP_201_CREATED)


class GroupDetailApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(responses=GroupOutputSerializer, summary="A group of yours and its members")
    def get(self, request, group_id):
        return Response(GroupOutputSerializer(get_object_or_404(_visible_groups(request), pk=group_id)).data)


class GroupFinishApi(APIView):
    allowed_roles = API_ROLES

    class GroupFinishInputSerializer(serializers.Serializer):
        messages = serializers.DictField(
            child=serializers.ListField(
                child=serializers.CharField(max_length=MAX_MESSAGE_CHARS, allow_blank=True, trim_whitespace=False),
                max_length=MAX_MESSAGES,
            ),
            required=False,
            default=dict,
            help_text="Per member episode id, what its agent told the user (send_msg_to_user texts), in order.",
        )

        def validate_messages(self, value):
            out = {}
            for key, texts in value.items():
                if not re.fullmatch(r"[0-9]{1,18}", str(key)):
                    raise ValidationError(f"keys are member episode ids, not {key!r}")
                out[int(key)] = texts
            return out

    @extend_schema(
        request=GroupFinishInputSerializer,
        responses=GroupResultSerializer,
        summary="Finish a group: verify the members still running, return each member's rewards and the "
        "group advantages",
    )
    def post(self, request, group_id):
        run = get_object_or_404(_visible_groups(request), pk=group_id)
        data = self.GroupFinishInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            result = group_finish(run_id=run.pk, messages=data.validated_data["messages"])
        except RolloutError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response(GroupResultSerializer(result).data)


class StepObservationSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    observation = serializers.CharField(
        help_text="The observation text the agent was given before this action, in the episode's mode; "
        "blank for an episode in your own browser."
    )
    action = serializers.CharField()
    error = serializers.CharField(help_text="The error the action met, if any.")
    url = serializers.CharField(help_text="The page after the action.")
    title = serializers.CharField()


class EpisodeStepsApi(APIView):
    allowed_roles = API_ROLES

    @extend_schema(
        responses=StepObservationSerializer(many=True),
        summary="An episode's steps so far, each with the observation its action was chosen on",
    )
    def get(self, request, episode_id):
        episode = _owned_episode(request, episode_id)
        return Response(StepObservationSerializer(episode.steps.order_by("index"), many=True).data)
