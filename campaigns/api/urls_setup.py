"""API routes before and around play: creation, army design, election, reports, events, dice."""

from django.urls import URLPattern, path

from campaigns.api import views_setup as v

C = "campaigns/<int:campaign_id>/"

urlpatterns: list[URLPattern] = [
    path("scenarios/", v.ScenarioListApi.as_view(), name="scenarios"),
    path("scenarios/check/", v.ScenarioCheckApi.as_view(), name="scenario-check"),
    path("scenarios/<slug:key>/", v.ScenarioSaveApi.as_view(), name="scenario"),
    path("scenarios/<slug:key>/share/", v.ScenarioShareApi.as_view(), name="scenario-share"),
    path(C + "unit-types/", v.UnitTypeListApi.as_view(), name="unit-types"),
    path(C + "unit-types/<int:type_id>/", v.UnitTypeDetailApi.as_view(), name="unit-type"),
    path(C + "units/buy/", v.UnitsBuyApi.as_view(), name="units-buy"),
    path(C + "army/", v.ArmyApi.as_view(), name="army"),
    path(C + "army/ready/", v.ArmyReadyApi.as_view(), name="army-ready"),
    path(C + "army/not-ready/", v.ArmyNotReadyApi.as_view(), name="army-not-ready"),
    path(C + "election/vote/", v.ElectionVoteApi.as_view(), name="election-vote"),
    path(C + "gm/appoint-chief-warlord/", v.ChiefWarlordAppointApi.as_view(),
         name="gm-appoint-chief-warlord"),
    path(C + "gm/start/", v.CampaignStartApi.as_view(), name="gm-start"),
    path(C + "gm/close-election/", v.ElectionCloseApi.as_view(), name="gm-close-election"),
    path(C + "gm/invite/", v.InviteRegenerateApi.as_view(), name="gm-invite"),
    path(C + "gm/handover/", v.GmHandoverApi.as_view(), name="gm-handover"),
    path(C + "absences/", v.AbsenceDeclareApi.as_view(), name="absences"),
    path(C + "deputy/", v.DeputyChooseApi.as_view(), name="deputy"),
    path(C + "leave/", v.LeaveApi.as_view(), name="leave"),
    path(C + "standing-orders/", v.StandingOrdersApi.as_view(), name="standing-orders"),
    path(C + "gm/remove-player/", v.PlayerRemoveApi.as_view(), name="gm-remove-player"),
    path(C + "absences/<int:absence_id>/cancel/", v.AbsenceCancelApi.as_view(),
         name="absence-cancel"),
    path(C + "gm/shuffle-opposition/", v.OppositionShuffleApi.as_view(),
         name="gm-shuffle-opposition"),
    path(C + "reports/", v.ReportListApi.as_view(), name="reports"),
    path(C + "reports/<int:event_id>/", v.ReportDetailApi.as_view(), name="report"),
    path(C + "events/", v.EventListApi.as_view(), name="events"),
    path(C + "phases/<int:phase_id>/dice/", v.PhaseDiceApi.as_view(), name="phase-dice"),
    path(C + "setup-dice/", v.SetupDiceApi.as_view(), name="setup-dice"),
]
