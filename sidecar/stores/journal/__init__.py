"""The table journal: every event with a ``seq`` is stored in SQLite before anyone sees it.

Three objects with one job each: :class:`WriterLock` (one server per database file,
symlinks resolved), :class:`JournalWriter` (group commit on the event loop, checkpoints in
a thread, an append that fails changes nothing) and :class:`JournalReader` (read-only, works
beside a running server, isolates unreadable rows). :class:`Journal` opens the three
together for a server.
"""

from sidecar.stores.journal.lock import WriterLock
from sidecar.stores.journal.reader import JournalReader
from sidecar.stores.journal.schema import JournalError, request_key
from sidecar.stores.journal.store import Journal
from sidecar.stores.journal.writer import CHECKPOINT_PAGES, JournalWriter

__all__ = ["CHECKPOINT_PAGES", "Journal", "JournalError", "JournalReader", "JournalWriter",
           "WriterLock", "request_key"]
