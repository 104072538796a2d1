"""URL configuration."""

from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from accounts import views as account_views
from calendars import web as calendar_pages
from campaigns.api.errors import api_not_found
from campaigns.web import notifications as notification_pages
from campaigns.web.home import home as campaign_home

from .health import healthz

# The admin's login is the site's own (allauth), with its brute-force limits: Django's admin
# login form has none.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

urlpatterns = [
    path("", campaign_home, name="home"),
    path("healthz", healthz, name="healthz"),
    *notification_pages.urlpatterns,
    path("accounts/profile/", account_views.profile, name="profile"),
    path("accounts/profile/api-token/", account_views.api_token_new, name="api-token-create"),
    path("accounts/profile/api-token/revoke/", account_views.api_token_delete,
         name="api-token-revoke"),
    *calendar_pages.urlpatterns,
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("campaigns/", include("webhooks.web")),
    path("campaigns/", include("campaigns.web.urls")),
    path("api/v1/", include("campaigns.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The viewers' pages add a Content-Security-Policy: nothing is fetched from another host.
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema",
                                                     template_name="api/swagger_ui.html"),
         name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema",
                                                    template_name="api/redoc.html"),
         name="api-redoc"),
    # Last: any other path under /api/ answers with the API's JSON 404, not the HTML page.
    re_path(r"^api/", api_not_found),
]
