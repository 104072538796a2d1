"""The forum in the REST API: threads, posts, editing, read markers; hidden threads are 404."""

import pytest
from rest_framework.test import APIClient

from campaigns.models import Post

pytestmark = [pytest.mark.django_db]


def _api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_threads_lists_the_players_threads(started, threads):
    body = _api(started[2][0].user).get(f"/api/v1/campaigns/{started[0].pk}/threads/").json()
    assert [(t["audience"], t["side"]) for t in body] == [("public", None), ("side", "alliance")]


def test_posting_returns_the_rendered_post(started, threads):
    url = f"/api/v1/campaigns/{started[0].pk}/threads/{threads['public'].pk}/posts/"
    response = _api(started[2][0].user).post(url, {"body": "Go **now**"}, format="json")
    body = response.json()
    assert response.status_code == 201
    assert (body["body"], body["html"], body["system"], body["can_edit"]) == (
        "Go **now**", "<p>Go <strong>now</strong></p>\n", False, True)


def test_an_empty_post_is_a_400_naming_the_field(started, threads):
    url = f"/api/v1/campaigns/{started[0].pk}/threads/{threads['public'].pk}/posts/"
    response = _api(started[2][0].user).post(url, {"body": "  "}, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": "empty_post", "detail": "A post needs some text.",
                               "field": "body"}


@pytest.mark.parametrize("name", ["opposition", "gm"])
def test_another_audiences_thread_is_404(started, threads, name):
    url = f"/api/v1/campaigns/{started[0].pk}/threads/{threads[name].pk}/posts/"
    client = _api(started[2][0].user)
    assert client.get(url).status_code == 404
    assert client.post(url, {"body": "x"}, format="json").status_code == 404


def test_posts_page_lists_the_system_posts(started, threads):
    url = f"/api/v1/campaigns/{started[0].pk}/threads/{threads['public'].pk}/posts/?page=1"
    body = _api(started[2][0].user).get(url).json()
    assert (body["count"], [p["system"] for p in body["posts"]]) == (3, [True, True, True])


def test_editing_through_the_api(started, threads):
    client = _api(started[2][0].user)
    created = client.post(
        f"/api/v1/campaigns/{started[0].pk}/threads/{threads['public'].pk}/posts/",
        {"body": "v1"}, format="json").json()
    response = client.patch(f"/api/v1/campaigns/{started[0].pk}/posts/{created['id']}/",
                            {"body": "v2"}, format="json")
    assert response.status_code == 200
    assert Post.objects.get(pk=created["id"]).body == "v2"


def test_the_read_marker_moves(started, threads):
    last = Post.objects.filter(thread=threads["public"]).order_by("-id").first()
    url = f"/api/v1/campaigns/{started[0].pk}/threads/{threads['public'].pk}/read/"
    response = _api(started[2][0].user).post(url, {"post": last.pk}, format="json")
    assert response.json() == {"last_read": last.pk}
