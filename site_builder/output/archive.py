"""The built site as one deterministic zip file (``build.py --zip FILE``).

Determinism (same site folder and date → same bytes): entries (folders and files) sorted by name, every entry
stamped with the same date (the build date, clamped to 1980-01-01, the earliest a zip can
hold), fixed permissions (0644 files, 0755 folders), deflate level 9, no extra fields. Entries
sit under one folder named after the zip (``site.zip`` → ``site/index.html``), so unpacking
gives one folder to open.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from .writer import MARKER, default_mode

ZIP_EPOCH = datetime(1980, 1, 1, tzinfo=timezone.utc)


def zip_entries(site: Path) -> list[str]:
    """Site-root relative POSIX paths of the files of ``site`` (without the builder's marker), sorted."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file() and p.name != MARKER)


def write_zip(site: Path, zip_path: Path, date: datetime) -> int:
    """Write the files of the folder ``site`` into ``zip_path``; returns the number of files.

    ``date`` (aware) stamps every entry. The zip is written beside ``zip_path`` and moved
    into place, so a failure leaves no half-written file. Raises OSError when it cannot be written.
    """
    zip_path = Path(zip_path)
    prefix = zip_path.stem or "site"
    stamp = max(date.astimezone(timezone.utc), ZIP_EPOCH).timetuple()[:6]
    entries = zip_entries(site)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{zip_path.name}.", dir=zip_path.parent)
    os.close(fd)
    os.chmod(tmp, default_mode(0o666))  # mkstemp makes it 0600; the zip is meant to be handed around
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            folders = {"/".join(e.split("/")[:i]) + "/" for e in entries for i in range(1, e.count("/") + 1)}
            for entry in sorted([""] + list(folders) + entries):
                info = zipfile.ZipInfo(f"{prefix}/{entry}", stamp)
                if entry == "" or entry.endswith("/"):
                    info.external_attr = (0o40755 << 16) | 0x10
                    archive.writestr(info, b"")
                else:
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = 0o100644 << 16
                    archive.writestr(info, (site / entry).read_bytes(), compresslevel=9)
        os.replace(tmp, zip_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(entries)
