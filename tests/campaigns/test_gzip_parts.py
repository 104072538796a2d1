"""campaigns.gzip_parts: a gzip stream from a part compressed once and parts around it."""

import gzip
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.gzip_parts import GZIP_HEADER, combine, crc_shift, gzip_stream, make_part

data = st.binary(max_size=3000)


@settings(max_examples=200, deadline=None)
@given(data, data, data)
def test_the_stream_decompresses_to_head_middle_and_tail(head, middle, tail):
    stream = b"".join(gzip_stream(head, lambda: make_part(middle), tail))
    # gzip.decompress checks the trailer's CRC-32 and length too.
    assert gzip.decompress(stream) == head + middle + tail


@settings(max_examples=200, deadline=None)
@given(data, data)
def test_combine_is_zlibs_crc32_of_the_two(first, second):
    assert combine(zlib.crc32(first), make_part(second)) == zlib.crc32(first + second)


def test_a_long_middle_compresses_and_combines():
    middle = b'{"hex": "A1", "terrain": "woods"}, ' * 60_000  # 2 MB, as the map JSON
    part = make_part(middle)
    stream = b"".join(gzip_stream(b"<head>", lambda: part, b"</html>"))
    assert (gzip.decompress(stream) == b"<head>" + middle + b"</html>",
            len(part.deflated) < len(middle) // 50) == (True, True)


def test_crc_shift_of_nothing_is_the_identity():
    assert crc_shift(0) == tuple(1 << n for n in range(32))


def test_the_first_block_is_the_head_on_its_own_before_the_middle_is_asked_for():
    asked = []

    def middle():
        asked.append(True)
        return make_part(b"middle")

    blocks = gzip_stream(b"<html><head>", middle, b"tail")
    first = next(blocks)
    assert (first.startswith(GZIP_HEADER), asked,
            zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(first)) == (
        True, [], b"<html><head>")
    whole = gzip.decompress(b"".join([first, *blocks]))
    assert (whole, asked) == (b"<html><head>middletail", [True])
