"""A gzip stream assembled from separately compressed parts, so a big part that does not change
between responses (the map page's 2 MB map JSON) is compressed once and kept, and the parts
around it (the page's head, which holds a fresh CSRF token) are compressed per response.

Each part is raw deflate ending on a full flush (byte-aligned, no final block, no reference to
the parts before), so the parts simply follow one another in one deflate stream; the last
part ends it. The gzip trailer needs the CRC-32 of everything: a kept part carries its own
CRC-32 and the operator that moves a CRC-32 past its length (zlib's crc32_combine, as a
32 × 32 bit matrix over GF(2), computed once when the part is made), so no response has to
read the kept part's uncompressed bytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import NamedTuple

# ID1 ID2, deflate, no flags, mtime 0, no extra flags, OS unknown.
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LEVEL = 6
_POLY = 0xEDB88320  # CRC-32, reflected


class Part(NamedTuple):
    """Bytes compressed once: raw deflate ending on a full flush, their CRC-32, their length,
    and the matrix that carries a CRC-32 over that many bytes."""

    deflated: bytes
    crc: int
    size: int
    shift: tuple[int, ...]


def _times(matrix: tuple[int, ...] | list[int], vector: int) -> int:
    total, row = 0, 0
    while vector:
        if vector & 1:
            total ^= matrix[row]
        vector >>= 1
        row += 1
    return total


def _product(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int]) -> list[int]:
    """The matrix applying b, then a."""
    return [_times(a, column) for column in b]


def crc_shift(size: int) -> tuple[int, ...]:
    """The operator that takes crc32(x) to crc32 of x followed by `size` zero bytes' effect,
    so that crc32(x + y) == apply(crc_shift(len(y)), crc32(x)) ^ crc32(y) (zlib's
    crc32_combine)."""
    one_bit = [_POLY] + [1 << n for n in range(31)]  # one zero bit
    power = _product(one_bit, one_bit)  # two
    power = _product(power, power)  # four
    power = _product(power, power)  # eight: one zero byte
    result = [1 << n for n in range(32)]  # identity
    while size:
        if size & 1:
            result = _product(power, result)
        size >>= 1
        if size:
            power = _product(power, power)
    return tuple(result)


def combine(crc1: int, part: Part) -> int:
    """crc32 of (what gave crc1) followed by the part's bytes."""
    return _times(part.shift, crc1) ^ part.crc


def _deflate(data: bytes, mode: int) -> bytes:
    stream = zlib.compressobj(_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return stream.compress(data) + stream.flush(mode)


def make_part(data: bytes) -> Part:
    """`data` compressed once, to be placed in any number of gzip streams."""
    return Part(_deflate(data, zlib.Z_FULL_FLUSH), zlib.crc32(data), len(data),
                crc_shift(len(data)))


def gzip_stream(head: bytes, get_middle: Callable[[], Part], tail: bytes) -> Iterator[bytes]:
    """The gzip stream of head + middle + tail in two blocks: the header and the head at once
    (complete, so the browser can read it before `get_middle` is called), then the middle,
    the tail and the trailer."""
    yield GZIP_HEADER + _deflate(head, zlib.Z_FULL_FLUSH)
    middle = get_middle()
    crc = zlib.crc32(tail, combine(zlib.crc32(head), middle))
    size = len(head) + middle.size + len(tail)
    yield (middle.deflated + _deflate(tail, zlib.Z_FINISH) + crc.to_bytes(4, "little")
           + (size & 0xFFFFFFFF).to_bytes(4, "little"))
