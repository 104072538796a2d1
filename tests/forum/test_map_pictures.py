"""Map pictures for forums: any width from 300 to 2,000 pixels, a caption (campaign, turn,
phase, whose view), a legend of what is drawn, the map page's terrain colours with roads as
lines, and towers drawn as keeps, never like stacks."""

import io
import re

import pytest
from PIL import Image

from campaigns.exports.mapimage import TERRAIN_COLOURS, map_picture, picture_size, render_svg
from campaigns.models import Fortification, Map

pytestmark = [pytest.mark.django_db]


@pytest.mark.parametrize("width", [300, 1200, 2000])
def test_a_picture_is_as_wide_as_asked(started, client_as, width):
    campaign, _, (p1, _) = started
    response = client_as(p1.user).get(f"/campaigns/{campaign.pk}/map.png?width={width}")
    image = Image.open(io.BytesIO(response.content))
    picture = map_picture(viewer=p1.user, campaign=campaign, phase=None)
    assert (response.status_code, image.size) == (200, picture_size(picture, width))
    assert image.size[0] == width


@pytest.mark.parametrize("width", ["299", "2001", "wide", "-5", "1e3"])
def test_a_width_out_of_range_is_refused_with_the_range(started, client_as, width):
    campaign, _, (p1, _) = started
    for ext in ("png", "svg"):
        response = client_as(p1.user).get(f"/campaigns/{campaign.pk}/map.{ext}?width={width}")
        assert (response.status_code, response.content.decode()) == (
            400, "width is a whole number of pixels from 300 to 2000.")


def test_the_caption_says_whose_view_of_which_phase(started, client_as, client):
    campaign, gm, (p1, _) = started
    texts = [re.search(r'<text class="caption"[^>]*>([^<]*)</text>',
                       c.get(f"/campaigns/{campaign.pk}/map.svg").content.decode()).group(1)
             for c in (client_as(p1.user), client_as(gm), client)]
    assert texts == ["The Broad Way: now, the alliance's view",
                     "The Broad Way: now, the GM's view", "The Broad Way: now, public view"]


def test_the_legend_names_what_is_drawn_and_towers_are_keeps(started, client_as):
    campaign, gm, _ = started
    svg = client_as(gm).get(f"/campaigns/{campaign.pk}/map.svg?width=1000").content.decode()
    legend = re.findall(r"<text x=\"[\d.]+\" y=\"[\d.]+\">([^<]*)</text>",
                        svg[svg.index('class="legend"'):])
    towers = Fortification.objects.filter(campaign=campaign, kind="tower").count()
    assert legend == ["hills", "open", "road (line)", "swamp", "woods", "alliance stack (units)",
                      "opposition stack (units)", "tower", "wall"]
    assert (svg.count('<polygon class="tower"'), towers > 0) == (towers, True)


def test_terrain_uses_the_map_pages_colours_and_roads_are_lines(started, client_as):
    campaign, gm, _ = started
    game_map = Map.objects.get(campaign=campaign)
    game_map.terrain = {**game_map.terrain, "A12": "deep_water", "B12": "village"}
    game_map.save()
    picture = map_picture(viewer=gm, campaign=campaign, phase=None)
    svg = render_svg(picture)
    roads = {h for h, t in game_map.terrain.items() if t == "road"}
    assert (f'fill="{TERRAIN_COLOURS["deep_water"]}"' in svg,
            f'fill="{TERRAIN_COLOURS["village"]}"' in svg,
            svg.count('class="road"') >= len(roads) - 1, len(roads) > 3) == (True,) * 4



def test_the_forum_page_offers_the_widths(started, client_as):
    campaign, _, (p1, _) = started
    html = client_as(p1.user).get(f"/campaigns/{campaign.pk}/forum/").content.decode()
    form = html[html.index('<form class="picture-form"'):]
    form = form[:form.index("</form>")]
    assert (re.findall(r'<option value="(\d*)">', form),
            f'action="/campaigns/{campaign.pk}/map.png"' in form,
            f'formaction="/campaigns/{campaign.pk}/map.svg"' in form) == (
        ["", "600", "1000", "1500", "2000"], True, True)
