"""Atom feeds of the campaign threads (Django's syndication framework).

The public thread's feed is open to anyone; a side's thread or the GM notes only to a reader
of that thread, by their login or a share token (`?token=`) for feed readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from campaigns.exports.text import absolutize
from campaigns.markup import render_markdown, render_post
from campaigns.models import Campaign, Membership, Post, Thread, ThreadAudience
from campaigns.selectors.forum import can_read, latest_posts, token_user
from campaigns.services.forum import threads_ensure


@dataclass(frozen=True)
class FeedSource:
    thread: Thread
    base_url: str


def _reader_may_see(request: HttpRequest, thread: Thread) -> bool:
    if thread.audience == ThreadAudience.PUBLIC:
        return True
    user = token_user(campaign=thread.campaign, token=request.GET.get("token", ""))
    if user is None and request.user.is_authenticated:
        user = request.user
    if user is None:
        return False
    membership = Membership.objects.filter(campaign=thread.campaign, user=user).first()
    return can_read(membership, thread)


def _first_line(text: str, limit: int = 80) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


class ThreadFeed(Feed):
    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, campaign_id: int,
                   thread_id: int | None = None) -> FeedSource:
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            raise Http404("No such campaign.")
        if thread_id is None:
            thread = next(t for t in threads_ensure(campaign=campaign)
                          if t.audience == ThreadAudience.PUBLIC)
        else:
            found = Thread.objects.select_related("campaign").filter(
                pk=thread_id, campaign=campaign).first()
            if found is None or not _reader_may_see(request, found):
                raise Http404("No such thread.")
            thread = found
        return FeedSource(thread=thread, base_url=request.build_absolute_uri("/").rstrip("/"))

    def title(self, obj: FeedSource) -> str:
        return f"{obj.thread.campaign.name}: {obj.thread.title}"

    def subtitle(self, obj: FeedSource) -> str:
        return f"The posts of “{obj.thread.title}”, newest first."

    def link(self, obj: FeedSource) -> str:
        return reverse("campaigns:forum-thread", args=[obj.thread.campaign_id, obj.thread.pk])

    def items(self, obj: FeedSource) -> list[Any]:
        return [(p, obj.base_url) for p in latest_posts(thread=obj.thread)]

    def item_title(self, item: tuple[Post, str]) -> str:
        post = item[0]
        who = post.author.public_name if post.author is not None else "Warcamp"
        return f"{who}: {_first_line(post.body)}"

    def item_description(self, item: tuple[Post, str]) -> str:
        post, base = item
        if post.markup == "bbcode":
            return render_post(post.body, post.markup)
        return render_markdown(absolutize(post.body, base))

    def item_link(self, item: tuple[Post, str]) -> str:
        post = item[0]
        url = reverse("campaigns:forum-thread", args=[post.thread.campaign_id, post.thread_id])
        return f"{url}?post={post.pk}#post-{post.pk}"

    def item_author_name(self, item: tuple[Post, str]) -> str:
        post = item[0]
        return post.author.public_name if post.author is not None else "Warcamp"

    def item_pubdate(self, item: tuple[Post, str]) -> datetime:
        return item[0].created_at

    def item_updateddate(self, item: tuple[Post, str]) -> datetime:
        post = item[0]
        return post.edited_at or post.created_at
