"""URL configuration."""

from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views

from .health import healthz

urlpatterns = [
    path("", account_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/profile/", account_views.profile, name="profile"),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
]
