"""API routes before and around play: creation, army design, election, reports, events, dice."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
