"""Post markup: one sanitizing renderer, and BBCode that says the same as the Markdown."""

from html.parser import HTMLParser

import bbcode
import pytest

from campaigns.markup import escape_markdown, markdown_to_bbcode, render_markdown
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized

_BLOCKS = {"p", "br", "li", "ul", "ol", "blockquote", "h1", "h2", "h3", "pre", "div", "hr"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _BLOCKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self.parts.append(" ")


def text_of(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join("".join(parser.parts).split())


def bbcode_html(source: str) -> str:
    return bbcode.Parser(replace_cosmetic=False, replace_links=False).format(source)


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_render_markdown_neutralizes_xss(payload):
    assert_neutralized(render_markdown(payload))


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_bbcode_of_an_xss_payload_renders_harmless(payload):
    assert_neutralized(bbcode_html(markdown_to_bbcode(payload)))


def test_render_markdown_keeps_formatting_and_marks_links_nofollow():
    html = render_markdown("**bold** _it_ [site](https://example.org/)")
    assert html == ('<p><strong>bold</strong> <em>it</em> <a href="https://example.org/" '
                    'rel="nofollow noopener noreferrer">site</a></p>\n')


SAMPLE = """# Orders for turn 3

We move **three stacks** to _J10_ and ~~wait~~ [attack](https://example.org/a?b=1).

> The garrison is **strong**.
> Two lines.

- first item
- second [b]literal[/b] item

1. one
2. two

```
code [url]x[/url] stays
```
"""


def test_bbcode_parses_and_round_trips_the_text():
    html = bbcode_html(markdown_to_bbcode(SAMPLE))
    assert text_of(html) == text_of(render_markdown(SAMPLE))


def test_bbcode_keeps_each_kind_of_formatting():
    assert markdown_to_bbcode(SAMPLE) == (
        "[b]Orders for turn 3[/b]\n\n"
        "We move [b]three stacks[/b] to [i]J10[/i] and [s]wait[/s] "
        "[url=https://example.org/a?b=1]attack[/url].\n\n"
        "[quote]The garrison is [b]strong[/b].\nTwo lines.[/quote]\n\n"
        "[list]\n[*]first item\n[*]second [[b][/b]b]literal[[b][/b]/b] item\n[/list]\n\n"
        "[list=1]\n[*]one\n[*]two\n[/list]\n\n"
        "[code]code [url]x[/url] stays[/code]\n"
    )


def test_a_literal_bbcode_tag_in_a_post_stays_text_in_bbcode():
    html = bbcode_html(markdown_to_bbcode("say [b]hi[/b] and [url=https://x.org]x[/url]"))
    assert text_of(html) == "say [b]hi[/b] and [url=https://x.org]x[/url]"
    assert "href" not in html


def test_escape_markdown_shows_the_text_as_is():
    text = "Turn 2: 3 * 4 _hits_ on [J10] <b> #1"
    assert text_of(render_markdown(escape_markdown(text))) == text
