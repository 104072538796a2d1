"""Pages: the campaign forum (threads, posts, preview, edit), exports for external forums,
map pictures, Atom feeds, share tokens, the replay of a phase and its dice verification."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User
from accounts.timefmt import zoned_text
from campaigns.errors import CampaignError
from campaigns.exports.mapimage import (
    clamp_width,
    hex_labels,
    map_picture,
    render_png,
    render_svg,
)
from campaigns.exports.text import (
    Export,
    phase_post,
    phase_post_content,
    post_export,
    report_export,
    turn_export,
)
from campaigns.feeds import ThreadFeed
from campaigns.markup import MARKUPS, quote_bbcode, quote_markdown, render_post
from campaigns.models import (
    Campaign,
    Event,
    EventKind,
    Membership,
    Phase,
    Post,
    Role,
    ShareToken,
    Side,
    SideKind,
    Thread,
    ThreadAudience,
    Turn,
)
from campaigns.selectors.dice import phase_dice_verification, viewer_of
from campaigns.selectors.forum import (
    POSTS_PER_PAGE,
    can_read,
    conversation_allowed,
    muted_members,
    participant_names,
    phase_event_rows,
    post_for,
    post_view,
    readers_of,
    share_tokens_for,
    thread_for,
    thread_posts_page,
    threads_for,
    token_user,
    write_refusal,
)
from campaigns.selectors.reports import _for_viewer, _rows, _visible_events, reports_for
from campaigns.services.forum import (
    DEFAULT_SHARE_TOKEN_LIFETIME,
    REPORT_PAGE_KINDS,
    SHARE_TOKEN_LIFETIMES,
    mute,
    post_create,
    post_edit,
    post_hide,
    post_unhide,
    share_token_create,
    share_token_revoke,
    share_token_rotate,
    thread_create,
    thread_mark_read,
    thread_update,
    threads_ensure,
    unmute,
)
from campaigns.web import campaign_page_context, erfworld_only, local_time


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id)


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _base_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


# --- Forum -------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def forum(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The forum: the threads the member reads, opening a new one, their mutes, exports."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    threads_ensure(campaign=campaign)
    form: dict[str, Any] = {"title": "", "audience": "public", "body": "",
                            "markup": "markdown", "participants": []}
    error = None
    error_field = None
    if request.method == "POST":
        form = {"title": request.POST.get("title", ""),
                "audience": request.POST.get("audience", "public"),
                "body": request.POST.get("body", ""),
                "markup": request.POST.get("markup", "markdown"),
                "participants": request.POST.getlist("participants")}
        audience, _, side = form["audience"].partition(":")
        try:
            thread = thread_create(
                user=_user(request), campaign=campaign, title=form["title"], audience=audience,
                side=side or None, body=form["body"], markup=form["markup"],
                participants=form["participants"] if audience == ThreadAudience.PRIVATE
                else None)
        except CampaignError as exc:
            error, error_field = exc.message, exc.field or "body"
        else:
            return redirect("campaigns:forum-thread", campaign.pk, thread.pk)
    rows = threads_for(user=_user(request), campaign=campaign)
    for row in rows:
        row["last_post_local"] = (local_time(row["last_post_at"], request.user)
                                  if row["last_post_at"] else None)
    membership = context["membership"]
    context.update(
        threads=rows,
        turns=list(Turn.objects.filter(campaign=campaign).order_by("number")
                   .values_list("number", flat=True)),
        phases=list(Phase.objects.filter(campaign=campaign, snapshot__isnull=False)
                    .select_related("turn").order_by("opened_at", "id")),
        public_feed=reverse("campaigns:feed", args=[campaign.pk]),
        picture_widths=PICTURE_WIDTHS,
        audiences=_audience_choices(membership),
        partners=_partners(membership),
        form=form, error=error, error_field=error_field,
        markups=MARKUPS, markup=form["markup"] if form["markup"] in MARKUPS else "markdown",
        body=form["body"], muted=muted_members(user=_user(request), campaign=campaign),
    )
    return render(request, "campaigns/forum/index.html", context, status=400 if error else 200)


def _audience_choices(membership: Membership) -> list[tuple[str, str]]:
    """What a new thread may be for, as (value, label): the value "side:<kind>" names a side."""
    if membership.role == Role.FORMER:
        return []
    choices = [("public", "Public: everyone in the campaign")]
    if membership.role == Role.GM:
        choices += [(f"side:{s.kind}", f"{s.name}: its players and you")
                    for s in Side.objects.filter(campaign_id=membership.campaign_id)
                    .order_by("kind")]
        choices.append(("gm", "GM notes: you alone"))
    elif membership.role == Role.PLAYER and membership.side is not None:
        choices.append((f"side:{membership.side.kind}",
                        f"{membership.side.name}: your side's players and the GM"))
    choices.append(("private", "Private conversation with the members you tick"))
    return choices


def _partners(membership: Membership) -> list[dict[str, Any]]:
    """The members the user may open a private conversation with now (the rule: the GM with
    anyone, players of one side together, across sides only while the GM allows diplomacy)."""
    campaign = membership.campaign
    rows = []
    for m in (Membership.objects.filter(campaign=campaign).exclude(pk=membership.pk)
              .exclude(role=Role.FORMER).select_related("user", "side")
              .order_by("user__username")):
        if conversation_allowed([membership, m], diplomacy=campaign.diplomacy):
            rows.append({"username": m.user.username, "name": m.user.public_name,
                         "role": "GM" if m.role == Role.GM else
                         (m.side.name if m.side is not None else m.get_role_display())})
    return rows


def _thread_context(request: HttpRequest, campaign: Campaign, thread: Thread,
                    page: int | None) -> dict[str, Any]:
    context = campaign_page_context(request, campaign)
    data = thread_posts_page(user=_user(request), thread=thread, page=page)
    authors = {p.author_id for p in data["posts"] if p.author_id is not None}
    usernames = dict(User.objects.filter(pk__in=authors).values_list("pk", "username"))
    gms = set(Membership.objects.filter(campaign=campaign, role=Role.GM)
              .values_list("user_id", flat=True))
    reports = set(Event.objects.filter(pk__in={p.event for p in data["posts"] if p.event},
                                       kind__in=REPORT_PAGE_KINDS).values_list("pk", flat=True))
    posts = []
    for p in data["posts"]:
        row = p.as_dict()
        row["created_local"] = local_time(p.created_at, request.user)
        row["edited_local"] = local_time(p.edited_at, request.user) if p.edited_at else None
        row.update(author_id=p.author_id, author_username=usernames.get(p.author_id or 0, ""),
                   author_is_gm=p.author_id in gms, report_page=p.event in reports)
        posts.append(row)
    if data["posts"]:
        thread_mark_read(user=_user(request), thread=thread, post_id=data["posts"][-1].id)
    membership = context["membership"]
    refusal = write_refusal(membership, thread)
    context.update(data, posts=posts, audience_note=_audience_note(thread),
                   mention_names=_mention_names(request, thread),
                   write_refusal=refusal[1] if refusal else None,
                   participants=participant_names(thread),
                   audiences=[c for c in _audience_choices(membership)
                              if c[0] != "private"] if not thread.is_default
                   and thread.audience != ThreadAudience.PRIVATE else [],
                   current_audience=thread.audience + (f":{thread.side.kind}"
                                                       if thread.side else ""),
                   first_unread=Post.objects.filter(thread=thread, id__gt=data["last_read"])
                   .order_by("id").values_list("id", flat=True).first())
    return context


def _mention_names(request: HttpRequest, thread: Thread) -> list[str]:
    """The usernames the editor suggests after "@": the thread's other readers."""
    return sorted((u.username for u in readers_of(thread) if u.pk != request.user.pk),
                  key=str.lower)


def _audience_note(thread: Thread) -> str:
    if thread.audience == ThreadAudience.PUBLIC:
        return ("Everyone in the campaign reads this thread, and anyone can follow it "
                "through its Atom feed.")
    if thread.audience == ThreadAudience.SIDE:
        return f"Only the players of {thread.side.name if thread.side else 'this side'} " \
               "and the GM read this thread."
    if thread.audience == ThreadAudience.PRIVATE:
        gm = ("The GM may read it too (the campaign's setting when it was opened)."
              if thread.gm_reads else "Nobody else reads it, not even the GM.")
        return f"A private conversation: only its participants read it. {gm}"
    return "Only the GM reads these notes."


def _readable_thread(request: HttpRequest, campaign: Campaign, thread_id: int) -> Thread:
    campaign_page_context(request, campaign)  # 404 for a non-member before anything else
    try:
        return thread_for(user=_user(request), campaign=campaign, thread_id=thread_id)
    except Thread.DoesNotExist as exc:
        raise Http404("No such thread.") from exc


@login_required
@require_http_methods(["GET", "POST"])
def thread_page(request: HttpRequest, campaign_id: int, thread_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    thread = _readable_thread(request, campaign, thread_id)
    body = ""
    markup = request.GET.get("markup", "markdown")
    error = None
    if request.method == "POST":
        body = request.POST.get("body", "")
        markup = request.POST.get("markup", "markdown")
        try:
            post = post_create(user=_user(request), thread=thread, body=body, markup=markup)
        except CampaignError as exc:
            error = exc.message
        else:
            url = reverse("campaigns:forum-thread", args=[campaign.pk, thread.pk])
            return redirect(f"{url}?post={post.pk}#post-{post.pk}")
    if not body:
        body, markup = _quoted(request, campaign, thread, markup)
    return _render_thread(request, campaign, thread, body=body, markup=markup, error=error)


def _render_thread(request: HttpRequest, campaign: Campaign, thread: Thread, *, body: str = "",
                   markup: str = "markdown", error: str | None = None, status: int = 200,
                   focus: int | None = None, **extra: Any) -> HttpResponse:
    page = _page_param(request)
    wanted = str(focus) if focus is not None else request.GET.get("post", "")
    if wanted.isdigit() and page is None:
        before = Post.objects.filter(thread=thread, id__lt=int(wanted)).count()
        page = before // POSTS_PER_PAGE + 1
    context = _thread_context(request, campaign, thread, page)
    context.update(body=body, markup=markup if markup in MARKUPS else "markdown",
                   markups=MARKUPS, error=error, feed_url=_feed_url(campaign, thread),
                   quotable_reports=_quotable_reports(request, campaign),
                   **extra)
    return render(request, "campaigns/forum/thread.html", context,
                  status=400 if error or status == 400 else status)


def _quoted(request: HttpRequest, campaign: Campaign, thread: Thread,
            markup: str) -> tuple[str, str]:
    """A reply's starting text: a quoted post (in its markup), a report the reader may see,
    or a map picture, as `?quote=`, `?quote_report=` or `?quote_map=` ask."""
    quote = request.GET.get("quote", "")
    if quote.isdigit():
        quoted = (Post.objects.select_related("author")
                  .filter(pk=int(quote), thread=thread, hidden_at__isnull=True).first())
        if quoted is not None:
            # The reply is written in the quoted post's markup.
            quote_in = quote_bbcode if quoted.markup == "bbcode" else quote_markdown
            return quote_in(quoted.author.public_name if quoted.author else "Warcamp",
                            quoted.body), quoted.markup
    phase = request.GET.get("quote_map", "")
    if phase:
        src = _base_url(request) + reverse("campaigns:map-png", args=[campaign.pk]) + \
            "?width=1000" + (f"&phase={int(phase)}" if phase.isdigit() else "")
        # Each reader's browser loads the picture with their own login: everyone sees the
        # map as they may see it, never more.
        if markup == "bbcode":
            return f"[img]{src}[/img]\n", "bbcode"
        return f"![The map]({src})\n", "markdown"
    report = request.GET.get("quote_report", "")
    if report.isdigit():
        try:
            export = report_export(user=_user(request), campaign=campaign,
                                   event_id=int(report), base_url=_base_url(request))
        except Event.DoesNotExist:
            return "", markup
        export = replace(export, markdown=zoned_text(export.markdown, _user(request).time_zone))
        return (export.bbcode, "bbcode") if markup == "bbcode" else (export.markdown,
                                                                     "markdown")
    return "", markup


@login_required
@require_GET
def quote_text(request: HttpRequest, campaign_id: int, thread_id: int) -> HttpResponse:
    """What "Start from" puts into a reply (`?quote_report=` or `?quote_map=`), as text, for
    forum.js to insert at the cursor without reloading the page (and losing what was typed);
    the markup it is written in comes as the `X-Markup` header."""
    campaign = _campaign(campaign_id)
    thread = _readable_thread(request, campaign, thread_id)
    text, markup = _quoted(request, campaign, thread, request.GET.get("markup", "markdown"))
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["X-Markup"] = markup
    return response


def _quotable_reports(request: HttpRequest, campaign: Campaign) -> list[dict[str, Any]]:
    """The latest fights and scout reports the reader may see, to quote into a post."""
    return [{"id": r["id"], "label": r["summary"][:90]}
            for r in reports_for(user=_user(request), campaign=campaign, limit=15)]


@login_required
@require_POST
def thread_manage(request: HttpRequest, campaign_id: int, thread_id: int) -> HttpResponse:
    """The GM renames, pins, locks or moves a thread; a refusal shows next to its control."""
    campaign = _campaign(campaign_id)
    thread = _readable_thread(request, campaign, thread_id)
    action = request.POST.get("action", "")
    changes: dict[str, Any] = {}
    if action == "rename":
        changes["title"] = request.POST.get("title", "")
    elif action in ("pin", "unpin"):
        changes["pinned"] = action == "pin"
    elif action in ("lock", "unlock"):
        changes["locked"] = action == "lock"
    elif action == "move":
        audience, _, side = request.POST.get("audience", "").partition(":")
        changes.update(audience=audience, side=side or None)
    try:
        thread_update(user=_user(request), thread=thread, **changes)
    except CampaignError as exc:
        return _render_thread(request, campaign, thread, manage_error=exc.message,
                              manage_field=exc.field or action, status=400)
    return redirect("campaigns:forum-thread", campaign.pk, thread.pk)


@login_required
@require_POST
def post_hide_view(request: HttpRequest, campaign_id: int, post_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    post = _post_or_404(request, campaign, post_id)
    url = reverse("campaigns:forum-thread", args=[campaign.pk, post.thread_id])
    try:
        if request.POST.get("action") == "unhide":
            post_unhide(user=_user(request), post=post)
        else:
            post_hide(user=_user(request), post=post, reason=request.POST.get("reason", ""))
    except CampaignError as exc:
        return _render_thread(request, campaign, post.thread, hide_error=exc.message,
                              hide_post=post.pk, focus=post.pk, status=400)
    return redirect(f"{url}?post={post.pk}#post-{post.pk}")


@login_required
@require_POST
def mute_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Mute or unmute a member; back to the page the button was on."""
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    username = request.POST.get("user", "")
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("campaigns:forum", args=[campaign.pk])
    try:
        if request.POST.get("action") == "unmute":
            unmute(user=_user(request), campaign=campaign, username=username)
            messages.success(request, f"{username} is no longer muted.")
        else:
            mute(user=_user(request), campaign=campaign, username=username)
            messages.success(request, f"{username} is muted: their posts are folded and "
                                      "their mentions no longer notify you.")
    except CampaignError as exc:
        messages.error(request, exc.message)
    return redirect(back)


def _page_param(request: HttpRequest) -> int | None:
    value = request.GET.get("page", "")
    return int(value) if value.isdigit() else None


def _feed_url(campaign: Campaign, thread: Thread) -> str:
    if thread.audience == ThreadAudience.PUBLIC and thread.is_default:
        return reverse("campaigns:feed", args=[campaign.pk])
    return reverse("campaigns:thread-feed", args=[campaign.pk, thread.pk])


def _post_or_404(request: HttpRequest, campaign: Campaign, post_id: int) -> Post:
    try:
        return post_for(user=_user(request), campaign=campaign, post_id=post_id)
    except Post.DoesNotExist as exc:
        raise Http404("No such post.") from exc


@login_required
@require_http_methods(["GET", "POST"])
def post_edit_page(request: HttpRequest, campaign_id: int, post_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    post = _post_or_404(request, campaign, post_id)
    body = post.body
    markup = post.markup
    error = None
    if request.method == "POST":
        body = request.POST.get("body", "")
        markup = request.POST.get("markup", post.markup)
        try:
            post_edit(user=_user(request), post=post, body=body, markup=markup)
        except CampaignError as exc:
            error = exc.message
        else:
            url = reverse("campaigns:forum-thread", args=[campaign.pk, post.thread_id])
            return redirect(f"{url}?post={post.pk}#post-{post.pk}")
    context.update(post=post_view(post, user=_user(request)), thread=post.thread, body=body,
                   markup=markup if markup in MARKUPS else "markdown", markups=MARKUPS,
                   mention_names=_mention_names(request, post.thread), error=error)
    return render(request, "campaigns/forum/post_edit.html", context,
                  status=400 if error else 200)


@login_required
@require_POST
def preview(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The HTML a post's Markdown or BBCode will show (an htmx fragment)."""
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    html = render_post(request.POST.get("body", ""), request.POST.get("markup", "markdown"))
    return render(request, "campaigns/forum/_preview.html", {"html": html})


# --- Exports -----------------------------------------------------------------------------


def _export_response(request: HttpRequest, campaign: Campaign, export: Export,
                     back: str) -> HttpResponse:
    # The exporter's own zone for the engine's times (each shown with its UTC offset).
    export = replace(export, markdown=zoned_text(export.markdown, _user(request).time_zone))
    fmt = request.GET.get("format", "")
    if fmt == "bbcode":
        return HttpResponse(export.bbcode, content_type="text/plain; charset=utf-8")
    if fmt == "markdown":
        return HttpResponse(export.markdown, content_type="text/plain; charset=utf-8")
    context = campaign_page_context(request, campaign)
    context.update(export=export, back=back)
    return render(request, "campaigns/forum/export.html", context)


@login_required
@require_GET
def export_post(request: HttpRequest, campaign_id: int, post_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    post = _post_or_404(request, campaign, post_id)
    if post.hidden_at is not None:
        raise Http404("No such post.")  # hidden by the GM: not exported
    back = reverse("campaigns:forum-thread", args=[campaign.pk, post.thread_id])
    return _export_response(request, campaign, post_export(post=post, base_url=_base_url(request)),
                            f"{back}?post={post.pk}#post-{post.pk}")


@login_required
@require_GET
def export_report(request: HttpRequest, campaign_id: int, event_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    try:
        export = report_export(user=_user(request), campaign=campaign, event_id=event_id,
                               base_url=_base_url(request))
    except Event.DoesNotExist as exc:
        raise Http404("No such report.") from exc
    return _export_response(request, campaign, export,
                            reverse("campaigns:forum", args=[campaign.pk]))


@login_required
@require_GET
def export_turn(request: HttpRequest, campaign_id: int, turn_number: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    try:
        export = turn_export(user=_user(request), campaign=campaign, turn_number=turn_number,
                             base_url=_base_url(request))
    except Turn.DoesNotExist as exc:
        raise Http404("No such turn.") from exc
    return _export_response(request, campaign, export,
                            reverse("campaigns:forum", args=[campaign.pk]))


@login_required
@require_GET
def export_phase(request: HttpRequest, campaign_id: int, phase_id: int) -> HttpResponse:
    """A turn post: one phase as one side saw it, with its map picture at the phase's end
    behind an address that needs no login. The GM picks the side (`?side=`)."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    phase = _phase_or_404(campaign, phase_id)
    viewer = _side_viewer(context["membership"], request.GET.get("side", ""))
    after = (Phase.objects.filter(campaign=campaign, opened_at__gt=phase.opened_at,
                                  snapshot__isnull=False).order_by("opened_at").first())
    image = picture_share_url(_base_url(request), campaign, viewer, after)
    export = phase_post(phase_post_content(user=viewer, campaign=campaign, phase=phase,
                                           image_url=image))
    return _export_response(request, campaign, export,
                            reverse("campaigns:forum", args=[campaign.pk]))


def _side_viewer(membership: Membership, side: str) -> User:
    """Whose view a turn post shows: one's own; the GM's choice of side: the alliance as its
    first player sees it (every alliance player sees the same), the opposition as the GM."""
    if membership.role != Role.GM or side != SideKind.ALLIANCE:
        return membership.user
    player = (Membership.objects.select_related("user")
              .filter(campaign_id=membership.campaign_id, role=Role.PLAYER,
                      side__kind=SideKind.ALLIANCE).order_by("joined_at", "pk").first())
    if player is None:
        raise Http404("The alliance has no player yet.")
    return player.user


# --- Map pictures (embeddable: no login needed for the public one) ------------------------


def _picture_viewer(request: HttpRequest, campaign: Campaign) -> User | None:
    """Who the picture is drawn for: a share token's owner, else the logged-in member, else
    nobody (the public picture). A wrong or revoked token is a 404, never the public map."""
    token = request.GET.get("token", "")
    if token:
        user = token_user(campaign=campaign, token=token)
        if user is None:
            raise Http404("No such campaign.")
        return user
    if request.user.is_authenticated and Membership.objects.filter(
            campaign=campaign, user=request.user).exists():
        return _user(request)
    return None


# A turn post's picture: a signed address that shows one picture (one viewer's map at one
# phase's opening, or now) to anyone, without a login and without a share token.
PICTURE_SALT = "warcamp.map-picture"


def picture_share_url(base_url: str, campaign: Campaign, viewer: User, phase: Phase | None,
                      width: int = 1000) -> str:
    share = signing.dumps({"c": campaign.pk, "v": viewer.pk,
                           "p": phase.pk if phase is not None else None}, salt=PICTURE_SALT)
    return (base_url + reverse("campaigns:map-png", args=[campaign.pk])
            + f"?share={share}&width={width}")


def _shared_picture(campaign: Campaign, share: str) -> tuple[User, str]:
    """(viewer, phase id or "") of a signed picture address; 404 for a forged or foreign one
    or a viewer who has left the campaign."""
    try:
        data = signing.loads(share, salt=PICTURE_SALT)
    except signing.BadSignature as exc:
        raise Http404("No such picture.") from exc
    member = (Membership.objects.select_related("user")
              .filter(campaign=campaign, user_id=data.get("v")).first())
    if data.get("c") != campaign.pk or member is None:
        raise Http404("No such picture.")
    return member.user, str(data["p"]) if data.get("p") else ""


def _picture(request: HttpRequest, campaign_id: int) -> Any:
    campaign = _campaign(campaign_id)
    share = request.GET.get("share", "")
    if share:
        viewer: User | None
        viewer, value = _shared_picture(campaign, share)
    else:
        viewer = _picture_viewer(request, campaign)
        value = request.GET.get("phase", "")
    phase = None
    if value:
        if not value.isdigit():
            raise Http404("No such phase.")
        phase = (Phase.objects.select_related("turn", "snapshot")
                 .filter(campaign=campaign, pk=int(value)).first())
        if phase is None or not hasattr(phase, "snapshot"):
            raise Http404("No such phase.")
    events = None
    step = request.GET.get("step", "")
    if step.isdigit() and phase is not None and viewer is not None:
        # The replay's picture: the opening's stacks after the first `step` events.
        rows = phase_event_rows(user=viewer, campaign=campaign, phase=phase)
        events = [(row["kind"], row["payload"]) for _, row in rows[:int(step)]]
    picture = map_picture(viewer=viewer, campaign=campaign, phase=phase, events=events)
    marked = tuple(h for h in request.GET.get("mark", "").upper().split(",") if h)
    if marked:
        on_map = set(hex_labels(picture.cols, picture.rows))
        if not set(marked) <= on_map or len(marked) > 20:
            raise Http404("No such hex.")
        picture = replace(picture, marked=marked)
    return picture


def _no_store(response: HttpResponse) -> HttpResponse:
    # A member's picture differs by viewer: caches must not hand it to someone else.
    response["Cache-Control"] = "private, max-age=60"
    response["Vary"] = "Cookie"
    return response


# The widths the forum page offers (any from 300 to 2,000 may be asked for by URL).
PICTURE_WIDTHS = (600, 1000, 1500, 2000)


def _bad_width(exc: ValueError) -> HttpResponse:
    # `?width=` is in pixels from 300 to 2,000 (the natural size without it).
    return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")


@require_GET
def map_png(request: HttpRequest, campaign_id: int) -> HttpResponse:
    picture = _picture(request, campaign_id)
    try:
        width = clamp_width(request.GET.get("width"))
    except ValueError as exc:
        return _bad_width(exc)
    return _no_store(HttpResponse(render_png(picture, width), content_type="image/png"))


@require_GET
def map_svg(request: HttpRequest, campaign_id: int) -> HttpResponse:
    picture = _picture(request, campaign_id)
    try:
        width = clamp_width(request.GET.get("width"))
    except ValueError as exc:
        return _bad_width(exc)
    response = HttpResponse(render_svg(picture, width),
                            content_type="image/svg+xml; charset=utf-8")
    # An SVG opened on its own runs no script and loads nothing.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return _no_store(response)


# --- Share tokens ------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def share_tokens(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    error = None
    created = None
    lifetime = request.POST.get("lifetime", DEFAULT_SHARE_TOKEN_LIFETIME)
    if request.method == "POST":
        try:
            created = share_token_create(user=_user(request), campaign=campaign,
                                         label=request.POST.get("label", ""), lifetime=lifetime)
        except CampaignError as exc:
            error = exc.message
    threads = threads_ensure(campaign=campaign)
    membership = context["membership"]
    readable = [t for t in threads if can_read(membership, t)]
    base = _base_url(request)
    tokens = []
    now = timezone.now()
    for t in share_tokens_for(user=_user(request), campaign=campaign):
        row: dict[str, Any] = {
            "token": t, "created_local": local_time(t.created_at, request.user),
            "expires_local": local_time(t.expires_at, request.user) if t.expires_at else "",
            "expired": t.revoked_at is None and not t.is_live(now),
            "new": created is not None and t.pk == created.pk}
        if t.is_live(now):
            row["map_png"] = base + reverse("campaigns:map-png", args=[campaign.pk]) + \
                f"?token={t.token}"
            row["feeds"] = [(th.title, base + reverse("campaigns:thread-feed",
                                                      args=[campaign.pk, th.pk])
                             + f"?token={t.token}")
                            for th in readable if th.audience != ThreadAudience.PUBLIC]
        tokens.append(row)
    context.update(tokens=tokens, error=error, created=created, lifetime=lifetime,
                   lifetimes=SHARE_TOKEN_LIFETIMES.items(),
                   public_map=base + reverse("campaigns:map-png", args=[campaign.pk]),
                   public_feed=base + reverse("campaigns:feed", args=[campaign.pk]))
    return render(request, "campaigns/forum/tokens.html", context, status=400 if error else 200)


@login_required
@require_POST
def share_token_revoke_view(request: HttpRequest, campaign_id: int, token_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    token = get_object_or_404(ShareToken, pk=token_id, campaign=campaign, user=request.user)
    share_token_revoke(user=_user(request), token=token)
    return redirect("campaigns:share-tokens", campaign.pk)


@login_required
@require_POST
def share_token_rotate_view(request: HttpRequest, campaign_id: int, token_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    token = get_object_or_404(ShareToken, pk=token_id, campaign=campaign, user=request.user)
    try:
        new = share_token_rotate(user=_user(request), token=token)
    except CampaignError as exc:
        messages.error(request, exc.message)
        return redirect("campaigns:share-tokens", campaign.pk)
    messages.success(request, f"“{new.label or '(no label)'}” has new links; the old ones no "
                              "longer work.")
    return redirect(reverse("campaigns:share-tokens", args=[campaign.pk]) + f"#token-{new.pk}")


# --- Replay and dice ---------------------------------------------------------------------


def _phase_or_404(campaign: Campaign, phase_id: int) -> Phase:
    return get_object_or_404(Phase.objects.select_related("turn"), pk=phase_id,
                             campaign=campaign)


@login_required
@require_GET
def replay(request: HttpRequest, campaign_id: int, phase_id: int) -> HttpResponse:
    """Step through the events of a phase the viewer may see, one at a time."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    phase = _phase_or_404(campaign, phase_id)
    events = []
    for _event, row in phase_event_rows(user=_user(request), campaign=campaign, phase=phase):
        row["kind_label"] = EventKind(row["kind"]).label
        row["created_local"] = local_time(row["created_at"], request.user)
        events.append(row)
    value = request.GET.get("step", "")
    step = min(max(int(value), 1), len(events)) if value.isdigit() and events else 1
    wanted = request.GET.get("event", "")
    if wanted.isdigit():
        step = next((i for i, e in enumerate(events, 1) if e["id"] == int(wanted)), step)
    current = events[step - 1] if events else None
    marked = event_hexes(current["payload"]) if current is not None else []
    map_svg = (reverse("campaigns:map-svg", args=[campaign.pk])
               + f"?phase={phase.pk}&step={step if events else 0}")
    phases = list(Phase.objects.filter(campaign=campaign).select_related("turn")
                  .order_by("opened_at", "id"))
    index = next(i for i, p in enumerate(phases) if p.pk == phase.pk)
    counts = _phase_event_counts(request, campaign, phases)
    before = sum(counts[:index])
    context.update(
        phase=phase, events=events, step=step,
        current=current, marked=marked,
        previous_phase=phases[index - 1] if index > 0 else None,
        next_phase=phases[index + 1] if index + 1 < len(phases) else None,
        map_svg=map_svg + (f"&mark={','.join(marked)}" if marked else ""),
        history_url=_optional_url("campaigns:history-phase", [campaign.pk, phase.pk]),
        campaign_steps=sum(counts), campaign_at=before + (step if events else 0),
    )
    return render(request, "campaigns/replay.html", context)


def _phase_event_counts(request: HttpRequest, campaign: Campaign,
                        phases: list[Phase]) -> list[int]:
    """How many events of each phase the viewer may see (the campaign slider's scale), in one
    pass over the campaign's events: an event counts for its phase, or, recorded outside any
    phase, for the phase open at the time (as `phase_event_rows` places them)."""
    viewer = viewer_of(user=_user(request), campaign=campaign)
    index = {p.pk: i for i, p in enumerate(phases)}
    openings = [p.opened_at for p in phases]
    counts = [0] * len(phases)
    for event in _rows(_visible_events(viewer, campaign)).order_by("created_at", "id"):
        if event.phase_id is not None:
            at = index.get(event.phase_id)
        else:
            at = bisect_right(openings, event.created_at) - 1
            at = at if at >= 0 else None
        if at is not None and _for_viewer(viewer, campaign, event) is not None:
            counts[at] += 1
    return counts


@login_required
@require_GET
def replay_campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign slider's target: `?at=<n>` is the n-th event the viewer may see over the
    whole campaign; it opens that event's phase at that step (the last phase without it)."""
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    phases = list(Phase.objects.filter(campaign=campaign).order_by("opened_at", "id"))
    if not phases:
        raise Http404("The campaign has no phase yet.")
    value = request.GET.get("at", "")
    if not value.isdigit():
        return redirect("campaigns:replay", campaign.pk, phases[-1].pk)
    at = max(int(value), 1)
    for phase, count in zip(phases, _phase_event_counts(request, campaign, phases),
                            strict=True):
        if at <= count:
            return redirect(reverse("campaigns:replay", args=[campaign.pk, phase.pk])
                            + f"?step={at}")
        at -= count
    return redirect(reverse("campaigns:replay", args=[campaign.pk, phases[-1].pk])
                    + "?step=999999")


def event_hexes(payload: dict[str, Any]) -> list[str]:
    """The hexes an event happened in, as its payload names them (a move's path, a fight's
    hexes, a scout's inspected hexes), in order and once each."""
    found: list[str] = []
    for key in ("from", "path", "to", "hex", "stopped_in", "sightings"):
        value = payload.get(key)
        values = value if isinstance(value, list) else [value]
        for v in values:
            label = v.get("hex") if isinstance(v, dict) else v
            if isinstance(label, str) and label and label not in found:
                found.append(label)
    return found[:20]


def _optional_url(name: str, args: list[int]) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


@login_required
@require_GET
def dice(request: HttpRequest, campaign_id: int, phase_id: int) -> HttpResponse:
    """A phase's dice: the commitment; once closed, the seed and every roll re-derived."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    phase = _phase_or_404(campaign, phase_id)
    data = phase_dice_verification(user=_user(request), campaign=campaign, phase=phase)
    context.update(phase=phase, dice=data,
                   opened_local=local_time(phase.opened_at, request.user),
                   closed_local=local_time(phase.closed_at, request.user)
                   if phase.closed_at else None)
    return render(request, "campaigns/dice.html", context)


thread_feed = ThreadFeed()

urlpatterns = [
    path("<int:campaign_id>/forum/", forum, name="forum"),
    path("<int:campaign_id>/forum/preview/", preview, name="forum-preview"),
    path("<int:campaign_id>/forum/threads/<int:thread_id>/", thread_page, name="forum-thread"),
    path("<int:campaign_id>/forum/threads/<int:thread_id>/quote/", quote_text,
         name="forum-quote"),
    path("<int:campaign_id>/forum/threads/<int:thread_id>/manage/", thread_manage,
         name="forum-thread-manage"),
    path("<int:campaign_id>/forum/posts/<int:post_id>/edit/", post_edit_page,
         name="forum-post-edit"),
    path("<int:campaign_id>/forum/posts/<int:post_id>/hide/", post_hide_view,
         name="forum-post-hide"),
    path("<int:campaign_id>/forum/mute/", mute_view, name="forum-mute"),
    path("<int:campaign_id>/export/posts/<int:post_id>/", export_post, name="export-post"),
    path("<int:campaign_id>/export/reports/<int:event_id>/", export_report,
         name="export-report"),
    path("<int:campaign_id>/export/turns/<int:turn_number>/",
         erfworld_only(export_turn, page=False), name="export-turn"),
    path("<int:campaign_id>/export/phases/<int:phase_id>/", erfworld_only(export_phase, page=False),
         name="export-phase"),
    path("<int:campaign_id>/map.png", erfworld_only(map_png, page=False), name="map-png"),
    path("<int:campaign_id>/map.svg", erfworld_only(map_svg, page=False), name="map-svg"),
    path("<int:campaign_id>/feed.atom", thread_feed, name="feed"),
    path("<int:campaign_id>/forum/threads/<int:thread_id>/feed.atom", thread_feed,
         name="thread-feed"),
    path("<int:campaign_id>/tokens/", share_tokens, name="share-tokens"),
    path("<int:campaign_id>/tokens/<int:token_id>/revoke/", share_token_revoke_view,
         name="share-token-revoke"),
    path("<int:campaign_id>/tokens/<int:token_id>/rotate/", share_token_rotate_view,
         name="share-token-rotate"),
    path("<int:campaign_id>/replay/", erfworld_only(replay_campaign), name="replay-campaign"),
    path("<int:campaign_id>/replay/<int:phase_id>/", erfworld_only(replay), name="replay"),
    path("<int:campaign_id>/dice/<int:phase_id>/", dice, name="dice"),
]
