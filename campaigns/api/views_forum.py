"""API of the campaign forum: threads, their posts, posting, editing and read markers.

A thread or post the user may not read is "not found" (404), like any other hidden object.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.api import lookups
from campaigns.api.views import READ_ERRORS, WRITE_ERRORS, answer_example, request_example
from campaigns.errors import WrongStateError
from campaigns.models import Campaign, Post, Thread, ThreadAudience
from campaigns.selectors.after_action import after_action
from campaigns.selectors.forum import (
    muted_members,
    post_for,
    post_view,
    thread_for,
    thread_posts_page,
    threads_for,
)
from campaigns.services.forum import (
    mute,
    post_create,
    post_edit,
    post_hide,
    post_unhide,
    side_threads_open,
    thread_create,
    thread_mark_read,
    thread_update,
    threads_ensure,
    unmute,
)


def _user(request: Request) -> Any:
    return request.user


def _thread(request: Request, campaign: Campaign, thread_id: int) -> Thread:
    try:
        return thread_for(user=_user(request), campaign=campaign, thread_id=thread_id)
    except Thread.DoesNotExist as exc:
        raise Http404 from exc


class PostSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    thread = serializers.IntegerField()
    author = serializers.CharField(allow_null=True, help_text="Null for the engine's posts.")
    system = serializers.BooleanField(help_text="Written by the engine about an event.")
    event = serializers.IntegerField(allow_null=True, help_text="The event a system post reports.")
    body = serializers.CharField(help_text="The source, in `markup`.")
    markup = serializers.ChoiceField(choices=["markdown", "bbcode"],
                                     help_text="What the source is written in.")
    html = serializers.CharField(help_text="The source rendered and sanitized.")
    created_at = serializers.DateTimeField()
    edited_at = serializers.DateTimeField(allow_null=True, help_text="Set once edited.")
    is_new = serializers.BooleanField(help_text="After your read marker.")
    can_edit = serializers.BooleanField(help_text="Yours and still within the edit window.")
    hidden = serializers.BooleanField(help_text="Hidden by the GM: `body` and `html` are empty "
                                      "(except for the GM), `hidden_reason` says why.")
    hidden_reason = serializers.CharField(allow_blank=True)
    muted = serializers.BooleanField(help_text="Its author is one you muted.")


POST_EXAMPLE = {
    "id": 9, "thread": 2, "author": "ann", "system": False, "event": None,
    "body": "Moving on **J10** next turn, @bob?", "markup": "markdown",
    "html": "<p>Moving on <strong>J10</strong> next turn, @bob?</p>",
    "created_at": "2026-03-02T19:00:00Z", "edited_at": None, "is_new": False, "can_edit": True,
    "hidden": False, "hidden_reason": "", "muted": False,
}


class BodySerializer(serializers.Serializer):
    body = serializers.CharField(max_length=20_000, trim_whitespace=False,
                                 help_text="Markdown or BBCode (see `markup`); @username "
                                 "mentions notify that reader.")
    markup = serializers.CharField(
        required=False, max_length=16,
        help_text="`markdown` (the default for a new post) or `bbcode`; left out of an edit, "
        "the post keeps its markup.")


class ThreadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    audience = serializers.ChoiceField(choices=ThreadAudience.choices)
    side = serializers.CharField(allow_null=True)
    default = serializers.BooleanField(help_text="One of the campaign's default threads, where "
                                       "the engine reports.")
    pinned = serializers.BooleanField()
    locked = serializers.BooleanField(help_text="Only the GM posts in a locked thread.")
    participants = serializers.ListField(child=serializers.CharField(),
                                         help_text="A private conversation's members.")
    gm_reads = serializers.BooleanField(help_text="A private conversation the GM may read "
                                        "(the campaign's setting when it was opened).")
    posts = serializers.IntegerField()
    unread = serializers.IntegerField()
    first_unread = serializers.IntegerField(allow_null=True,
                                            help_text="The id of your first unread post.")
    last_post_at = serializers.DateTimeField(allow_null=True)


THREAD_EXAMPLE = {
    "id": 4821937461, "title": "The Alliance (side thread)", "audience": "side",
    "side": "alliance", "default": True, "pinned": False, "locked": False, "participants": [],
    "gm_reads": False, "posts": 3, "unread": 1, "first_unread": 12,
    "last_post_at": "2026-03-02T19:00:00Z"}


class ThreadCreateSerializer(BodySerializer):
    title = serializers.CharField(max_length=200, help_text="At most 120 characters.")
    audience = serializers.CharField(
        max_length=16, help_text="`public`, `side` (your side; the GM names `side`), `gm` (GM "
        "notes, the GM only) or `private` (a conversation with `participants`).")
    side = serializers.CharField(required=False, allow_blank=True, max_length=16,
                                 help_text="`alliance` or `opposition`, for a side thread.")
    participants = serializers.ListField(
        child=serializers.CharField(max_length=150), required=False, max_length=20,
        help_text="Usernames: a player talks privately with the GM and their own side's "
        "players; across sides only while the GM allows diplomacy.")


def _thread_row(request: Request, campaign: Campaign, thread_id: int) -> dict[str, Any]:
    return threads_for(user=_user(request), campaign=campaign, thread_id=thread_id)[0]


class ThreadListApi(APIView):
    @extend_schema(operation_id="campaigns_threads_list", summary="The threads you may read",
                   description="Pinned threads first, then the most recently active.",
                   responses={200: ThreadSerializer(many=True), **READ_ERRORS},
                   examples=[answer_example("the alliance's thread", THREAD_EXAMPLE)])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        threads_ensure(campaign=campaign)
        rows = threads_for(user=_user(request), campaign=campaign)
        return Response(ThreadSerializer(rows, many=True).data)

    @extend_schema(
        operation_id="campaigns_threads_create", summary="Open a thread with its first post",
        request=ThreadCreateSerializer, responses={201: ThreadSerializer, **WRITE_ERRORS},
        examples=[
            request_example("a topic for the side", {
                "title": "Who takes the ford?", "audience": "side",
                "body": "I can be at **F7** next turn."}),
            request_example("a private conversation", {
                "title": "Terms", "audience": "private", "participants": ["gm"],
                "body": "[b]May I parley?[/b]", "markup": "bbcode"}),
            answer_example("opened", {**THREAD_EXAMPLE, "title": "Who takes the ford?",
                                      "default": False, "posts": 1, "unread": 0,
                                      "first_unread": None}, status_code=201),
        ])
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        data = ThreadCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        thread = thread_create(user=_user(request), campaign=campaign, **values)
        return Response(ThreadSerializer(_thread_row(request, campaign, thread.pk)).data,
                        status=status.HTTP_201_CREATED)


class ThreadDetailApi(APIView):
    class InputSerializer(serializers.Serializer):
        title = serializers.CharField(required=False, max_length=200)
        pinned = serializers.BooleanField(required=False)
        locked = serializers.BooleanField(required=False)
        audience = serializers.CharField(required=False, max_length=16,
                                         help_text="Move to `public`, `side` or `gm`.")
        side = serializers.CharField(required=False, max_length=16,
                                     help_text="The side, when moving to `side`.")

    @extend_schema(operation_id="campaigns_threads_update",
                   summary="Rename, pin, lock or move a thread (GM)",
                   request=InputSerializer, responses={200: ThreadSerializer, **WRITE_ERRORS},
                   examples=[request_example("pin and lock", {"pinned": True, "locked": True}),
                             answer_example("pinned", {**THREAD_EXAMPLE, "pinned": True,
                                                       "locked": True})])
    def patch(self, request: Request, campaign_id: int, thread_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        thread = _thread(request, campaign, thread_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread_update(user=_user(request), thread=thread, **data.validated_data)
        return Response(ThreadSerializer(_thread_row(request, campaign, thread.pk)).data)


class ThreadPostsApi(APIView):
    class PageSerializer(serializers.Serializer):
        page = serializers.IntegerField()
        pages = serializers.IntegerField()
        count = serializers.IntegerField()
        last_read = serializers.IntegerField(help_text="The id of the last post you have read.")
        posts = PostSerializer(many=True)

    @extend_schema(
        operation_id="campaigns_threads_posts_list", summary="A page of a thread's posts",
        parameters=[OpenApiParameter("page", int, required=False,
                                     description="Page number; default: your first unread.")],
        responses={200: PageSerializer, **READ_ERRORS},
        examples=[answer_example("one page", {"page": 1, "pages": 1, "count": 1,
                                              "last_read": 9, "posts": [POST_EXAMPLE]})],
    )
    def get(self, request: Request, campaign_id: int, thread_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        thread = _thread(request, campaign, thread_id)
        raw = request.query_params.get("page", "")
        data = thread_posts_page(user=_user(request), thread=thread,
                                 page=int(raw) if raw.isdigit() else None)
        data["posts"] = [p.as_dict() for p in data["posts"]]
        return Response(self.PageSerializer(data).data)

    @extend_schema(
        operation_id="campaigns_threads_posts_create", summary="Post in a thread",
        request=BodySerializer, responses={201: PostSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("post", request_only=True,
                                 value={"body": "Moving on **J10** next turn, @player2?"})],
    )
    def post(self, request: Request, campaign_id: int, thread_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        thread = _thread(request, campaign, thread_id)
        data = BodySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        post = post_create(user=_user(request), thread=thread, **data.validated_data)
        return Response(PostSerializer(post_view(post, user=_user(request)).as_dict()).data,
                        status=status.HTTP_201_CREATED)


class PostEditApi(APIView):
    @extend_schema(operation_id="campaigns_posts_edit", summary="Edit your post (edit window)",
                   request=BodySerializer, responses={200: PostSerializer, **WRITE_ERRORS},
                   examples=[request_example("edited", {"body": "Moving on **J10**, @bob?"})])
    def patch(self, request: Request, campaign_id: int, post_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        try:
            post = post_for(user=_user(request), campaign=campaign, post_id=post_id)
        except Post.DoesNotExist as exc:
            raise Http404 from exc
        data = BodySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        post = post_edit(user=_user(request), post=post, **data.validated_data)
        return Response(PostSerializer(post_view(post, user=_user(request)).as_dict()).data)


class PostHideApi(APIView):
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=1000, help_text="Shown in the post's place "
                                       "and kept in the GM ledger (at most 300 characters).")

    def _post(self, request: Request, campaign_id: int, post_id: int) -> Post:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        try:
            return post_for(user=_user(request), campaign=campaign, post_id=post_id)
        except Post.DoesNotExist as exc:
            raise Http404 from exc

    def _answer(self, request: Request, post: Post) -> Response:
        return Response(PostSerializer(post_view(post, user=_user(request),
                                                 is_gm=True).as_dict()).data)

    @extend_schema(operation_id="campaigns_posts_hide", summary="Hide a post, saying why (GM)",
                   request=InputSerializer, responses={200: PostSerializer, **WRITE_ERRORS},
                   examples=[request_example("off topic", {"reason": "Table talk: keep it "
                                                           "in the public thread."})])
    def post(self, request: Request, campaign_id: int, post_id: int) -> Response:
        post = self._post(request, campaign_id, post_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._answer(request, post_hide(user=_user(request), post=post,
                                               reason=data.validated_data["reason"]))

    @extend_schema(operation_id="campaigns_posts_unhide", summary="Show a hidden post (GM)",
                   request=None, responses={200: PostSerializer, **WRITE_ERRORS},
                   examples=[answer_example("shown again", POST_EXAMPLE)])
    def delete(self, request: Request, campaign_id: int, post_id: int) -> Response:
        post = self._post(request, campaign_id, post_id)
        return self._answer(request, post_unhide(user=_user(request), post=post))


class MutesApi(APIView):
    class MuteSerializer(serializers.Serializer):
        user = serializers.CharField(max_length=150, help_text="A member's username.")

    @extend_schema(operation_id="campaigns_mutes_list", summary="The members you muted",
                   responses={200: MuteSerializer(many=True), **READ_ERRORS},
                   examples=[answer_example("one", {"user": "bob"})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        return Response(self.MuteSerializer(muted_members(user=_user(request),
                                                          campaign=campaign), many=True).data)

    @extend_schema(operation_id="campaigns_mutes_create",
                   summary="Mute a member: their posts fold, their mentions stop",
                   request=MuteSerializer, responses={201: MuteSerializer, **WRITE_ERRORS},
                   examples=[request_example("mute bob", {"user": "bob"})])
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        data = self.MuteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = mute(user=_user(request), campaign=campaign, username=data.validated_data["user"])
        return Response({"user": row.muted.username}, status=status.HTTP_201_CREATED)


class MuteDetailApi(APIView):
    @extend_schema(operation_id="campaigns_mutes_delete", summary="Unmute a member",
                   request=None, responses={204: None, **WRITE_ERRORS})
    def delete(self, request: Request, campaign_id: int, username: str) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        unmute(user=_user(request), campaign=campaign, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AfterActionApi(APIView):
    class SideSerializer(serializers.Serializer):
        kind = serializers.CharField()
        name = serializers.CharField()
        units = serializers.IntegerField()
        left = serializers.IntegerField()
        croaked = serializers.IntegerField()
        lost = serializers.ListField(child=serializers.CharField())
        counts = serializers.ListField(child=serializers.ListField(),
                                       help_text="[label, number] pairs.")
        threads_open = serializers.BooleanField()

    class OutputSerializer(serializers.Serializer):
        winner = serializers.CharField()
        summary = serializers.CharField()
        turns = serializers.IntegerField()
        sides = serializers.ListField(child=serializers.DictField())
        hidden = serializers.ListField(child=serializers.DictField(),
                                       help_text="Per turn and side: what the other side "
                                       "never saw as it happened.")
        viewer_side = serializers.CharField(allow_null=True)

    @extend_schema(operation_id="campaigns_after_action", summary="The after-action report "
                   "(after the end)", responses={200: OutputSerializer, **READ_ERRORS},
                   examples=[answer_example("the alliance won", {
                       "winner": "alliance", "summary": "The Alliance wins.", "turns": 4,
                       "sides": [{"kind": "alliance", "name": "The Alliance", "units": 12,
                                  "left": 9, "croaked": 3, "lost": ["Spearman 2"],
                                  "counts": [["moves", 14]], "threads_open": False}],
                       "hidden": [{"turn": 1, "side": "The Broad Way Garrison",
                                   "what": "2 × stack moved"}],
                       "viewer_side": "alliance"})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        try:
            report = after_action(user=_user(request), campaign=campaign)
        except WrongStateError as exc:
            raise Http404 from exc  # written when the campaign ends
        return Response(self.OutputSerializer(report).data)


class SideThreadsOpenApi(APIView):
    @extend_schema(operation_id="campaigns_side_threads_open",
                   summary="After the end, open your side's threads to every member",
                   description="The alliance's Chief Warlord (any of its players without "
                   "one), or the GM for the opposition.",
                   request=None, responses={200: AfterActionApi.OutputSerializer,
                                            **WRITE_ERRORS},
                   examples=[answer_example("opened", {
                       "winner": "alliance", "summary": "The Alliance wins.", "turns": 4,
                       "sides": [], "hidden": [], "viewer_side": "alliance"})])
    def post(self, request: Request, campaign_id: int, side: str) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        side_threads_open(user=_user(request), campaign=campaign, side=side)
        return Response(AfterActionApi.OutputSerializer(
            after_action(user=_user(request), campaign=campaign)).data)


class ThreadReadApi(APIView):
    class InputSerializer(serializers.Serializer):
        post = serializers.IntegerField(min_value=0, help_text="The last post you have read.")

    class OutputSerializer(serializers.Serializer):
        last_read = serializers.IntegerField()

    @extend_schema(operation_id="campaigns_threads_read", summary="Move your read marker",
                   request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
                   examples=[request_example("read up to post 9", {"post": 9})])
    def post(self, request: Request, campaign_id: int, thread_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        thread = _thread(request, campaign, thread_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        thread_mark_read(user=_user(request), thread=thread, post_id=data.validated_data["post"])
        page = thread_posts_page(user=_user(request), thread=thread, page=1)
        return Response(self.OutputSerializer({"last_read": page["last_read"]}).data)


C = "campaigns/<int:campaign_id>/"

urlpatterns: list[URLPattern] = [
    path(C + "threads/", ThreadListApi.as_view(), name="threads"),
    path(C + "threads/<int:thread_id>/", ThreadDetailApi.as_view(), name="thread"),
    path(C + "posts/<int:post_id>/hide/", PostHideApi.as_view(), name="post-hide"),
    path(C + "mutes/", MutesApi.as_view(), name="mutes"),
    path(C + "after-action/", AfterActionApi.as_view(), name="after-action"),
    path(C + "sides/<str:side>/open-threads/", SideThreadsOpenApi.as_view(),
         name="side-threads-open"),
    path(C + "mutes/<str:username>/", MuteDetailApi.as_view(), name="mute"),
    path(C + "threads/<int:thread_id>/posts/", ThreadPostsApi.as_view(), name="thread-posts"),
    path(C + "threads/<int:thread_id>/read/", ThreadReadApi.as_view(), name="thread-read"),
    path(C + "posts/<int:post_id>/", PostEditApi.as_view(), name="post"),
]
