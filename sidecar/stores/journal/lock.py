"""The writer's lock: one sidecar server per journal file, whatever path leads to it.

Only a writer takes it; readers (``sidecar export``, a server's own history pages) never do,
so they work beside a running server. The lock is an ``flock`` on ``<real path>.lock``: the
real path (symlinks and relative spellings resolved) makes ``--db link.db`` and
``--db ./dir/../real.db`` the same lock as ``--db real.db``. The operating system releases
it when the process ends, even on ``kill -9``, so a stale lock file never blocks a restart.
"""

from __future__ import annotations

import fcntl
import os
from typing import IO

from sidecar.stores.journal.schema import JournalError, real_path


class WriterLock:
    """An exclusive, non-blocking lock on one journal file, held until :meth:`release`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.given = os.fspath(path)
        self.path = real_path(path)
        self.lock_path = f"{self.path}.lock"
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> None:
        """Take the lock, or raise JournalError naming the database and the lock file."""
        if self._file is not None:
            return
        try:
            handle = open(self.lock_path, "a+")  # noqa: SIM115 - held until release()
        except OSError as exc:
            raise JournalError(f"cannot lock the journal '{self.given}': {exc}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            same = "" if self.given == self.path else f" (that is {self.path})"
            raise JournalError(
                f"another sidecar server is using the journal '{self.given}'{same} "
                f"(lock file {self.lock_path}); stop it or choose another --db. Reading the "
                f"journal with `sidecar export` works beside it.") from None
        except OSError as exc:
            handle.close()
            raise JournalError(f"cannot lock the journal '{self.given}': {exc}") from None
        self._file = handle

    def release(self) -> None:
        """Let another writer take the journal (closing the file drops the flock)."""
        if self._file is not None:
            self._file.close()
            self._file = None
