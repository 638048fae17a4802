"""One health run: its root, day and options, the files it read (each at most once) and its counts."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from pmem_tui.core import folder_reads, safeio
from pmem_tui.core.model import FileInfo


@dataclass
class Run:
    root: Path
    today: dt.date
    inactive_days: int
    read: int = 0
    compared: int = 0
    candidates: int = 0
    texts: dict[str, bytes] = field(default_factory=dict)  # raw bytes of files read in this run

    def read_file(self, rel: str) -> bytes | None:
        data = self.texts.get(rel)
        if data is None:
            data = _read(self.root, rel)
            self.read += 1
            if data is not None:
                self.texts[rel] = data
        return data

    def read_many(self, entries: list[FileInfo]) -> list[bytes]:
        """Each file's bytes (empty when it cannot be read), through one `folder_reads.Reader`: listed files
        come folder by folder."""
        self.read += len(entries)
        out: list[bytes] = []
        with folder_reads.Reader(self.root) as reader:
            for f in entries:
                try:
                    out.append(reader.read(f.path))
                except OSError:
                    out.append(b"")
        return out


def _read(root: Path, rel: str) -> bytes | None:
    """A file's bytes through `safeio` (no link at any depth, no FIFO or device, capped); None when it
    cannot be read."""
    try:
        return safeio.read_under(root, rel)
    except OSError:
        return None
