"""Account pages: the home page and the profile (with the user's API token)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from .forms import ProfileForm
from .models import ApiToken
from .services import api_token_create, api_token_revoke, user_update_profile

# The session key under which a new token's key waits for the one page that shows it.
NEW_TOKEN_SESSION_KEY = "accounts.new_api_token"  # noqa: S105 (a session key name)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"now": timezone.now()})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        user_update_profile(
            user=request.user,  # type: ignore[arg-type]
            display_name=form.cleaned_data["display_name"],
            time_zone=form.cleaned_data["time_zone"],
            email_kinds=form.cleaned_data["email_kinds"],
            discord_id=form.cleaned_data["discord_id"],
            email_digest=form.cleaned_data["email_digest"],
        )
        messages.success(request, "Profile saved.")
        return redirect("profile")
    from campaigns.selectors.records import total_record, user_records

    records = user_records(request.user)  # type: ignore[arg-type]
    return render(request, "accounts/profile.html", {
        "form": form,
        "now": timezone.now(),
        "api_token": ApiToken.objects.filter(user=request.user.pk).first(),
        # Popped: a reload, or any later visit, no longer shows the key.
        "new_api_token_key": request.session.pop(NEW_TOKEN_SESSION_KEY, None),
        "api_root": request.build_absolute_uri("/api/v1/"),
        "records": records,
        "total_record": total_record(records),
    })


@login_required
@require_POST
def api_token_new(request: HttpRequest) -> HttpResponse:
    key = api_token_create(user=request.user)  # type: ignore[arg-type]
    # Through the session rather than the redirect's URL, so the key never lands in a log.
    request.session[NEW_TOKEN_SESSION_KEY] = key
    messages.success(request, "New API token created; any previous token no longer works.")
    return redirect("profile")


@login_required
@require_POST
def api_token_delete(request: HttpRequest) -> HttpResponse:
    if api_token_revoke(user=request.user):  # type: ignore[arg-type]
        messages.success(request, "API token revoked: it no longer works.")
    else:
        messages.info(request, "You had no API token.")
    return redirect("profile")
