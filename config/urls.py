"""URL configuration."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from accounts import views as account_views

from .health import healthz

urlpatterns = [
    path("", account_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/profile/", account_views.profile, name="profile"),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("campaigns/", include("campaigns.web.urls")),
    path("api/v1/", include("campaigns.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
