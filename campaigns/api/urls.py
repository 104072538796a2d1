"""URLs of the REST API, mounted at /api/v1/."""

from django.urls import path

from campaigns.api import urls_play, urls_setup, views, views_game, views_setup
from campaigns.api.views_forum import urlpatterns as views_forum_urlpatterns

app_name = "api"

urlpatterns = [
    # GET lists my campaigns, POST creates one (views_setup extends CampaignListApi).
    path("campaigns/", views_setup.CampaignListCreateApi.as_view(), name="campaigns"),
    path("campaigns/join/", views.CampaignJoinApi.as_view(), name="campaign-join"),
    path("campaigns/<int:campaign_id>/", views.CampaignDetailApi.as_view(), name="campaign"),
    path("campaigns/<int:campaign_id>/map/", views.MapApi.as_view(), name="map"),
    path("campaigns/<int:campaign_id>/phase/", views.PhaseStatusApi.as_view(),
         name="phase-status"),
    path("campaigns/<int:campaign_id>/phase/end/", views.PhaseEndApi.as_view(),
         name="phase-end"),
    path("campaigns/<int:campaign_id>/done/", views.DoneApi.as_view(), name="done"),
    path("campaigns/<int:campaign_id>/done/undo/", views.UndoneApi.as_view(), name="done-undo"),
    path("campaigns/<int:campaign_id>/scout-orders/", views.ScoutOrderGiveApi.as_view(),
         name="scout-orders"),
    path("campaigns/<int:campaign_id>/scout-orders/<int:order_id>/cancel/",
         views.ScoutOrderCancelApi.as_view(), name="scout-order-cancel"),
    path("campaigns/<int:campaign_id>/gm/extend/", views.DeadlineExtendApi.as_view(),
         name="gm-extend"),
    path("campaigns/<int:campaign_id>/gm/pause/", views.CampaignPauseApi.as_view(),
         name="gm-pause"),
    path("campaigns/<int:campaign_id>/gm/resume/", views.CampaignResumeApi.as_view(),
         name="gm-resume"),
    path("campaigns/<int:campaign_id>/game/", views_game.GameApi.as_view(), name="game"),
    path("campaigns/<int:campaign_id>/game/orders/", views_game.GameOrdersApi.as_view(),
         name="game-orders"),
    path("campaigns/<int:campaign_id>/game/close/", views_game.GameCloseApi.as_view(),
         name="game-close"),
    path("campaigns/<int:campaign_id>/battle/start/", views_game.BattleStartApi.as_view(),
         name="battle-start"),
    path("battles/", views_game.BattleCreateApi.as_view(), name="battles"),
    path("battles/scenarios/", views_game.BattleScenariosApi.as_view(),
         name="battle-scenarios"),
    path("battles/join/", views_game.BattleJoinApi.as_view(), name="battle-join"),
    path("battles/check/", views_game.BattleCheckApi.as_view(), name="battle-check"),
    path("notifications/", views.NotificationListApi.as_view(), name="notifications"),
    path("notifications/unread-count/", views.NotificationUnreadCountApi.as_view(),
         name="notifications-unread-count"),
    path("notifications/mark-read/", views.NotificationMarkReadApi.as_view(),
         name="notifications-mark-read"),
    path("rules/<slug:ruleset>/<slug:command>/", views.RulesCalculatorApi.as_view(),
         name="rules-calculator"),
]
urlpatterns += urls_setup.urlpatterns + urls_play.urlpatterns
urlpatterns += views_forum_urlpatterns
