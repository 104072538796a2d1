"""Sign-up in Chromium: the time zone list starts at the browser's own zone, to confirm."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_signup_form_offers_the_browsers_time_zone(browser, live_server, screenshot):
    context = browser.new_context(base_url=live_server.url, timezone_id="Asia/Tokyo",
                                  viewport={"width": 375, "height": 740})
    try:
        page = context.new_page()
        page.goto("/accounts/signup/")
        select = page.locator('select[name="time_zone"]')
        page.wait_for_function("() => document.querySelector('select[name=time_zone]').value !== 'UTC'")
        screenshot(page, "signup-zone")
        assert select.input_value() == "Asia/Tokyo"
    finally:
        context.close()
