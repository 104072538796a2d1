"""API routes of play: move, split, merge, reorder, mount, attack, siege, repair, pops, GM tools."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
