"""API routes of play: move, split, merge, reorder, mount, attack, siege, repair, pops, GM tools."""

from django.urls import URLPattern, path

from campaigns.api import views_draw as d
from campaigns.api import views_play as v

C = "campaigns/<int:campaign_id>/"
S = C + "stacks/<int:stack_id>/"

urlpatterns: list[URLPattern] = [
    path(S + "reachable/", v.StackReachableApi.as_view(), name="stack-reachable"),
    path(S + "path/", v.StackPathApi.as_view(), name="stack-path"),
    path(S + "targets/", v.StackTargetsApi.as_view(), name="stack-targets"),
    path(S + "attack/preview/", v.AttackPreviewApi.as_view(), name="stack-attack-preview"),
    path(S + "move/", v.StackMoveApi.as_view(), name="stack-move"),
    path(S + "split/", v.StackSplitApi.as_view(), name="stack-split"),
    path(C + "stacks/merge/", v.StacksMergeApi.as_view(), name="stacks-merge"),
    path(S + "reorder/", v.StackReorderApi.as_view(), name="stack-reorder"),
    path(C + "mount/", v.UnitsMountApi.as_view(), name="units-mount"),
    path(S + "attack/", v.StackAttackApi.as_view(), name="stack-attack"),
    path(S + "siege/", v.StackSiegeApi.as_view(), name="stack-siege"),
    path(S + "siege/targets/", v.StackSiegeTargetsApi.as_view(), name="stack-siege-targets"),
    path(C + "fortifications/<int:fort_id>/repair/", v.FortificationRepairApi.as_view(),
         name="fortification-repair"),
    path(C + "pops/buy/", v.PopsBuyApi.as_view(), name="pops-buy"),
    path(C + "pops/share/", v.PopsShareApi.as_view(), name="pops-share"),
    path(C + "phase/draw/", d.DrawApi.as_view(), name="phase-draw"),
    path(C + "declarations/", d.DeclarationsApi.as_view(), name="declarations"),
    path(C + "declarations/<int:declaration_id>/withdraw/", d.DeclarationWithdrawApi.as_view(),
         name="declaration-withdraw"),
    path(C + "gm/end-phase/", v.GmEndPhaseApi.as_view(), name="gm-end-phase"),
    path(C + "gm/revert/", v.GmRevertApi.as_view(), name="gm-revert"),
    path(C + "gm/unflag/", v.GmUnflagApi.as_view(), name="gm-unflag"),
    path(C + "gm/pop-points/", v.GmPopPointsApi.as_view(), name="gm-pop-points"),
    path(C + "gm/units/<int:unit_id>/hits/", v.GmUnitHitsApi.as_view(), name="gm-unit-hits"),
    path(C + "gm/fortifications/<int:fort_id>/hits/", v.GmFortificationHitsApi.as_view(),
         name="gm-fortification-hits"),
]
