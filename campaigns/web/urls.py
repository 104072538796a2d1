"""URLs of the browser pages, mounted at /campaigns/ (the home page is at /)."""

from campaigns.web import battle, forum, gm, home, lobby, map, reports

app_name = "campaigns"

# Each page module owns its routes; the order only matters for overlapping patterns.
urlpatterns = [
    *home.urlpatterns,
    *battle.urlpatterns,
    *lobby.urlpatterns,
    *map.urlpatterns,
    *reports.urlpatterns,
    *gm.urlpatterns,
    *forum.urlpatterns,
]
