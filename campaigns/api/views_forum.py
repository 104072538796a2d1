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
from campaigns.models import Campaign, Post, Thread, ThreadAudience
from campaigns.selectors.forum import (
    post_for,
    post_view,
    thread_for,
    thread_posts_page,
    threads_for,
)
from campaigns.services.forum import post_create, post_edit, thread_mark_read, threads_ensure


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


POST_EXAMPLE = {
    "id": 9, "thread": 2, "author": "ann", "system": False, "event": None,
    "body": "Moving on **J10** next turn, @bob?", "markup": "markdown",
    "html": "<p>Moving on <strong>J10</strong> next turn, @bob?</p>",
    "created_at": "2026-03-02T19:00:00Z", "edited_at": None, "is_new": False, "can_edit": True,
}


class BodySerializer(serializers.Serializer):
    body = serializers.CharField(max_length=20_000, trim_whitespace=False,
                                 help_text="Markdown or BBCode (see `markup`); @username "
                                 "mentions notify that reader.")
    markup = serializers.CharField(
        required=False, max_length=16,
        help_text="`markdown` (the default for a new post) or `bbcode`; left out of an edit, "
        "the post keeps its markup.")


class ThreadListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        title = serializers.CharField()
        audience = serializers.ChoiceField(choices=ThreadAudience.choices)
        side = serializers.CharField(allow_null=True)
        posts = serializers.IntegerField()
        unread = serializers.IntegerField()
        last_post_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(operation_id="campaigns_threads_list", summary="The threads you may read",
                   responses={200: OutputSerializer(many=True), **READ_ERRORS},
                   examples=[answer_example("the alliance's thread", {
                       "id": 2, "title": "The Alliance (side thread)", "audience": "side",
                       "side": "alliance", "posts": 3, "unread": 1,
                       "last_post_at": "2026-03-02T19:00:00Z"})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        threads_ensure(campaign=campaign)
        rows = threads_for(user=_user(request), campaign=campaign)
        return Response(self.OutputSerializer(rows, many=True).data)


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
    path(C + "threads/<int:thread_id>/posts/", ThreadPostsApi.as_view(), name="thread-posts"),
    path(C + "threads/<int:thread_id>/read/", ThreadReadApi.as_view(), name="thread-read"),
    path(C + "posts/<int:post_id>/", PostEditApi.as_view(), name="post"),
]
