"""Account pages: the home page and the profile."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from .forms import ProfileForm
from .services import user_update_profile


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
        )
        messages.success(request, "Profile saved.")
        return redirect("profile")
    return render(request, "accounts/profile.html", {"form": form, "now": timezone.now()})
