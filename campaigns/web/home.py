"""Pages: home — my campaigns, their deadlines and what I must do now (routed at "/")."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern
from django.utils import timezone

from campaigns.games.battle.catalogue import battle_scenarios
from campaigns.selectors.home import home_campaigns


def home(request: HttpRequest) -> HttpResponse:
    campaigns = (
        home_campaigns(user=request.user)
        if request.user.is_authenticated else []
    )
    return render(request, "home.html", {"now": timezone.now(), "campaigns": campaigns,
                                         "battle_scenarios": battle_scenarios()})


# "/" itself is routed in config/urls.py (the name "home", outside the campaigns namespace).
urlpatterns: list[URLPattern] = []
