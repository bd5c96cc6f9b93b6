"""List reader, stage 1: bytes to text and lines (encodings, line ends, spaces, control characters)."""

from __future__ import annotations

import functools
import re

from ..diagnostics import Diagnostic
from .entries import ReadError


_SPACES = re.compile(r"[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
#: Zero-width marks (zero-width space, non-joiner and joiner, word joiner, BOM): :func:`clean` drops them,
#: and so do the title and author fields, which keep the other characters of their source line.
ZERO_WIDTH = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff]")
#: A character :func:`clean` keeps inside the text: neither white space (``\s`` is ``str.isspace``, which
#: ``strip`` removes; every character of _SPACES is white space) nor zero-width.
_VISIBLE = re.compile(r"[^\s\u200b\u200c\u200d\u2060\ufeff]")


@functools.lru_cache(maxsize=65536)
def clean(text: str) -> str:
    """Return ``text`` with tabs and Unicode spaces as plain spaces, zero-width marks dropped, ends stripped."""
    if text.isascii():
        return text.replace("\t", " ").strip()  # the only ASCII character of _SPACES/ZERO_WIDTH is the tab
    return _SPACES.sub(" ", ZERO_WIDTH.sub("", text)).strip()


def _utf16_by_nuls(data: bytes) -> str | None:
    """Return 'utf-16-le'/'utf-16-be' when NUL bytes sit in the odd/even places of ASCII-heavy UTF-16."""
    sample = data[:4096]
    if len(sample) < 2:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    half = len(sample) // 2
    if odd >= 4 and odd > 0.05 * half and even * 4 < odd:
        return "utf-16-le"
    if even >= 4 and even > 0.05 * half and odd * 4 < even:
        return "utf-16-be"
    return None


def decode_bytes(data: bytes) -> str:
    """Decode a list file's bytes to text.

    Order: byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32), UTF-16 by NUL
    pattern, UTF-8, GB18030.  Returns the text without the BOM.
    Raises :class:`ReadError` for an empty file, a document (PDF, zip, RTF, old Office), binary data (more than 1%
    NUL bytes or control characters) or bytes no encoding accepts. A stray
    control character stays in the text (see :func:`remove_controls`).
    """
    return _decode(data, False)[0]


#: bytes.translate tables that delete every byte but those counted: in UTF-8 the characters of
#: _CONTROLS below U+0080 and of _UNSAFE_CONTROLS are single bytes that no other character's bytes hold.
_NOT_C0 = bytes(b for b in range(256) if not (b <= 0x08 or 0x0E <= b <= 0x1F or b == 0x7F))
_NOT_UNSAFE = bytes(b for b in range(256) if not (b <= 0x08 or 0x0B <= b <= 0x0C or 0x0E <= b <= 0x1F or b == 0x7F))
#: The C1 controls of _CONTROLS in UTF-8 (U+0080-U+009F: C2 80-C2 9F; C2 is never a continuation byte).
_C1 = re.compile(rb"\xc2[\x80-\x9f]")


#: The openings of document files a list is not (a PDF's text can pass for GB18030; found by the third
#: new-user pass), and what they are.
_DOCUMENTS = {b"%PDF-": "a PDF document", b"PK\x03\x04": "a zip archive (a Word, Excel or OpenDocument file?)",
              b"{\\rtf": "an RTF document", b"\xd0\xcf\x11\xe0": "an old Office document"}
#: One of :data:`_DOCUMENTS`' openings after white space, matched in place (no copy of a list's bytes).
_DOCUMENT = re.compile(rb"[ \t\r\n]*(" + b"|".join(map(re.escape, _DOCUMENTS)) + rb")")


def _decode(data: bytes, fast: bool) -> tuple[str, bytes | None]:
    """:func:`decode_bytes` of ``data``, and the UTF-8 bytes the text was decoded from (None for other
    encodings); with ``fast``, control characters of UTF-8 text are counted in its bytes (the same count)."""
    if not data.strip(b" \t\r\n\x00"):
        raise ReadError("the file is empty", empty=True)
    boms = [(b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
            (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")]
    encoding = None
    for bom, name in boms:
        if data.startswith(bom):
            data, encoding = data[len(bom):], name
            break
    encoding = encoding or _utf16_by_nuls(data)
    document = _DOCUMENT.match(data)
    if document:
        raise ReadError(f"the file is {_DOCUMENTS[document.group(1)]}, not a text list (save the list as text, or "
                        f"export it from the page)")
    if encoding is None and data.count(b"\x00") > max(2, len(data) // 100):
        raise ReadError("the file is binary (it holds NUL bytes), not a text list")
    text = used = None
    for name in [encoding] if encoding else ["utf-8", "gb18030"]:
        try:
            text = data.decode(name)
            used = name
            break
        except UnicodeDecodeError:
            continue
    if text is None and encoding and encoding.startswith("utf-16") and len(data) % 2:
        raise ReadError(f"the file is UTF-16 text ({encoding.upper()}) with an odd number of bytes (cut off?)")
    if text is None and encoding is None:
        raise _not_utf8(data)
    if text is None:
        raise ReadError(f"the file is neither UTF-8, UTF-16 nor GB18030 text ({encoding})")
    utf8 = data if used == "utf-8" else None
    if fast and utf8 is not None:  # the same count as below, on the bytes (a C loop rather than a scan of the text)
        controls = len(utf8.translate(None, _NOT_C0)) + len(_C1.findall(utf8))
    else:
        controls = len(_CONTROLS.findall(text))
    if controls > max(2, len(text) // 100):
        raise ReadError("the file is binary (it holds control characters), not a text list")
    if not _VISIBLE.search(text):  # = not clean(text), without cleaning the whole file
        raise ReadError("the file is empty", empty=True)
    return text, utf8


def _not_utf8(data: bytes) -> ReadError:
    """The error for ``data`` that is neither UTF-8 nor GB18030, at the line of its first byte that is not
    UTF-8 (lines counted at LF), naming that byte and its column (1-based, in bytes)."""
    try:
        data.decode("utf-8")
        return ReadError("the file is neither UTF-8, UTF-16 nor GB18030 text (undecodable bytes)")
    except UnicodeDecodeError as exc:
        start = exc.start
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    return ReadError(f"the file is neither UTF-8, UTF-16 nor GB18030 text: byte 0x{data[start]:02X} at column "
                     f"{column} is not UTF-8 (save the list as UTF-8)", line)


def decode_list(data: bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """``remove_controls(decode_bytes(data), path)``: the text of a list file's bytes without its unsafe
    control characters, and the warnings about them. The same result; a UTF-8 file is checked for
    control characters in its bytes, which is several times faster. Raises :class:`ReadError` as
    :func:`decode_bytes`."""
    text, utf8 = _decode(data, True)
    if utf8 is not None and not utf8.translate(None, _NOT_UNSAFE):
        return text, []
    return remove_controls(text, path)


def split_lines(text: str) -> list[str]:
    """Split ``text`` at LF, CRLF and CR line ends; a leading BOM is dropped.

    ``split_lines("a\\r\\nb\\rc") == ["a", "b", "c"]``.
    """
    text = text.removeprefix("\ufeff")
    return re.split(r"\r\n|\r|\n", text) if "\r" in text else text.split("\n")



_UNSAFE_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def remove_controls(text: str, path: str) -> tuple[str, list[Diagnostic]]:
    """Remove the control characters that no page, feed or XML file may hold (NUL, C0 but tab and
    line ends, DEL) from ``text``; returns the text and one warning per line that held any."""
    warnings = []
    if not _UNSAFE_CONTROLS.search(text):
        return text, warnings  # the common case, without splitting the text into lines
    for number, line in enumerate(split_lines(text), 1):
        found = _UNSAFE_CONTROLS.findall(line)
        if found:
            codes = ", ".join(sorted({f"U+{ord(c):04X}" for c in found}))
            warnings.append(Diagnostic(path, number, "warning", f"removed {len(found)} control character(s) ({codes})"))
    return (_UNSAFE_CONTROLS.sub("", text) if warnings else text), warnings


def excerpt(text: str, width: int = 60) -> str:
    """``text`` as a diagnostic quotes it: runs of white space as one space, cut to ``width`` characters
    (the last one an ellipsis ``…`` when cut), as a Python string literal (``excerpt("a  b")`` gives
    ``"'a b'"``). Raises nothing."""
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 1] + "…")
