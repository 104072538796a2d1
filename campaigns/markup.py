"""Post markup: Markdown or BBCode rendered to sanitized HTML, and Markdown written as BBCode.

A post is written in Markdown or in BBCode (PBF players type BBCode by habit): `render_post`
turns either into HTML with a kept parser (markdown-it-py, or the `bbcode` package), and
`sanitize_html` (nh3) guards every result; posts, previews, exports and feeds all call it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import bbcode
import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

# Raw HTML off: a "<script>" in a post is text. nh3 below is the second wall.
_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("strikethrough")

_TAGS = {
    "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
    "a", "h1", "h2", "h3", "h4", "h5", "h6", "img", "u",
}
_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "ol": {"start"}}


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html, tags=_TAGS, attributes=_ATTRIBUTES, url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )


def render_markdown(text: str) -> str:
    """Markdown to HTML that is safe to put in a page, a fragment or a feed."""
    return sanitize_html(_md.render(text))


MARKUPS = {"markdown": "Markdown", "bbcode": "BBCode"}


def _bb_quote(tag: str, value: str, options: dict[str, str], parent: object,
              context: object) -> str:
    # [quote=ann] or [quote author=ann]: the author's line, then the quote. `value` is the
    # parser's already escaped HTML; the author is escaped here.
    author = options.get("quote") or options.get("author") or options.get("name") or ""
    head = f"<p><strong>{html.escape(author)}</strong> wrote:</p>" if author else ""
    return f"<blockquote>{head}{value}</blockquote>"


def _bb_img(tag: str, value: str, options: dict[str, str], parent: object,
            context: object) -> str:
    # [img]https://…[/img]: a picture from that address (`value` comes HTML-escaped), its alt
    # text the address's last part; anything but an http(s) address stays text as typed.
    src = value.strip()
    if not src.startswith(("https://", "http://")):
        return f"[img]{value}"
    alt = src.rsplit("/", 1)[-1] or "picture"
    return f'<img src="{src}" alt="{alt}">'


def _bb_parser() -> bbcode.Parser:
    parser = bbcode.Parser(replace_cosmetic=False, max_tag_depth=20)
    parser.add_formatter("quote", _bb_quote, strip=True, swallow_trailing_newline=True)
    parser.add_simple_formatter("s", "<del>%(value)s</del>")
    # Inside [img] the address stays as typed: no links made, no smileys.
    parser.add_formatter("img", _bb_img, replace_links=False, replace_cosmetic=False,
                         render_embedded=False)
    return parser


_bb = _bb_parser()


def render_bbcode(text: str) -> str:
    """BBCode to HTML that is safe to put in a page: b, i, u, s, url, img, quote (with its
    author), list, code; an unknown tag shows as typed; colours and alignment are dropped."""
    return sanitize_html(_bb.format(text))


def render_post(text: str, markup: str = "markdown") -> str:
    """A post's source in its markup as sanitized HTML."""
    return render_bbcode(text) if markup == "bbcode" else render_markdown(text)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!])")


def escape_markdown(text: str) -> str:
    """Plain text (an event summary, a name) as Markdown that shows exactly that text."""
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    # A line starting with "-", "+" or "1." would become a list item.
    return re.sub(r"(?m)^(\s*)([-+]|\d+\.)(\s)", r"\1\\\2\3", escaped)


def text_outside_quotes(text: str, markup: str = "markdown") -> list[str]:
    """The plain-text runs of a post outside quotes, code and link targets: where an @mention
    counts (quoting a post must not notify the people it mentioned once more)."""
    if markup == "bbcode":
        return _bb_text_outside_quotes(text)
    runs: list[str] = []
    depth = 0
    for tok in _md.parse(text):
        if tok.type == "blockquote_open":
            depth += 1
        elif tok.type == "blockquote_close":
            depth -= 1
        elif tok.type == "inline" and depth == 0:
            runs.extend(c.content for c in tok.children or [] if c.type == "text")
    return runs


def _bb_text_outside_quotes(text: str) -> list[str]:
    runs: list[str] = []
    skipping = 0  # inside [quote] or [code]
    for kind, tag, _options, token in _bb.tokenize(text):
        if kind == bbcode.Parser.TOKEN_TAG_START and tag in ("quote", "code"):
            skipping += 1
        elif kind == bbcode.Parser.TOKEN_TAG_END and tag in ("quote", "code"):
            skipping = max(0, skipping - 1)
        elif kind == bbcode.Parser.TOKEN_DATA and not skipping:
            runs.append(token)
    return runs


def quote_bbcode(author: str, body: str) -> str:
    """A post quoted for a BBCode reply: [quote=author]…[/quote]."""
    name = author.replace("]", "").replace("[", "")
    return f"[quote={name}]{body.strip()}[/quote]\n\n"


def quote_markdown(author: str, body: str) -> str:
    """A post quoted for a reply, as Markdown: the author's line, then the post as a quote."""
    lines = [f"> **{escape_markdown(author)}** wrote:", ">"]
    lines += [f"> {line}" if line else ">" for line in body.strip().splitlines()]
    return "\n".join(lines) + "\n\n"


# --- BBCode ------------------------------------------------------------------------------

# "[" that would open a BBCode tag. Forums have no escape, so a literal one is followed by an
# empty bold tag: "[[b][/b]b]" shows "[b]" (the first "[" never closes, so it stays text).
_BB_TAG_LIKE = re.compile(r"\[(?=/?[A-Za-z*][^\[\]\n]*\])")


def _bb_text(text: str) -> str:
    return _BB_TAG_LIKE.sub("[[b][/b]", text)


def _bb_url(href: str) -> str:
    return href.replace("[", "%5B").replace("]", "%5D").replace(" ", "%20")


def _bb_code(text: str) -> str:
    # Inside [code] tags are not parsed, except the closing one.
    return "[code]" + text.replace("[/code]", "[/ code]") + "[/code]"


_INLINE_TAGS = {
    "strong_open": "[b]", "strong_close": "[/b]",
    "em_open": "[i]", "em_close": "[/i]",
    "s_open": "[s]", "s_close": "[/s]",
    "link_close": "[/url]",
}


def _bb_inline(children: Sequence[Token]) -> str:
    out: list[str] = []
    for tok in children:
        if tok.type == "text":
            out.append(_bb_text(tok.content))
        elif tok.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif tok.type == "code_inline":
            out.append(_bb_code(tok.content))
        elif tok.type == "link_open":
            out.append(f"[url={_bb_url(str(tok.attrs.get('href', '')))}]")
        elif tok.type == "image":
            out.append(f"[img]{_bb_url(str(tok.attrs.get('src', '')))}[/img]")
        elif tok.type in _INLINE_TAGS:
            out.append(_INLINE_TAGS[tok.type])
        else:
            out.append(_bb_text(tok.content))
    return "".join(out)


def markdown_to_bbcode(text: str) -> str:
    """The same Markdown as BBCode for forums: bold, italic, strike, links, images, quotes,
    lists, code; headings become bold lines."""
    out: list[str] = []

    def end_block() -> None:
        while out and out[-1].endswith("\n"):
            out[-1] = out[-1].rstrip("\n")
            if not out[-1]:
                out.pop()
        out.append("\n")

    for tok in _md.parse(text):
        kind = tok.type
        if kind == "inline":
            out.append(_bb_inline(tok.children or []))
        elif kind == "paragraph_close":
            out.append("\n" if tok.hidden else "\n\n")
        elif kind == "heading_open":
            out.append("[b]")
        elif kind == "heading_close":
            out.append("[/b]\n\n")
        elif kind == "blockquote_open":
            out.append("[quote]")
        elif kind == "blockquote_close":
            end_block()
            out[-1] = "[/quote]\n\n"
        elif kind == "bullet_list_open":
            out.append("[list]\n")
        elif kind == "ordered_list_open":
            out.append("[list=1]\n")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            end_block()
            out[-1] = "\n[/list]\n\n"
        elif kind == "list_item_open":
            out.append("[*]")
        elif kind == "list_item_close":
            end_block()
        elif kind in ("fence", "code_block"):
            out.append(_bb_code(tok.content.rstrip("\n")) + "\n\n")
        elif kind == "hr":
            out.append("[hr]\n\n")
        elif kind == "html_block":
            out.append(_bb_text(tok.content))
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip() + "\n"
