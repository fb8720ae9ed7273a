"""Log a repeated message once per interval, so a flood of bad frames cannot fill the disk.

``throttle.log(logging.INFO, "error bad_frame", "error %s to %s: %s", ...)`` logs the first
occurrence of a key, then counts the others silently until ``interval`` seconds have passed;
the next one is logged with the number left out since. Keys are few (an error code, a kind
of event), and at most ``max_keys`` are kept.
"""

from __future__ import annotations

import logging
import time
from typing import Any


class LogThrottle:
    """Rate-limits log lines per key: at most one line per ``interval`` seconds each."""

    def __init__(self, logger: logging.Logger, interval: float = 10.0, *,
                 max_keys: int = 256, clock=time.monotonic) -> None:
        self.logger = logger
        self.interval = interval
        self.max_keys = max_keys
        self.clock = clock
        #: key → (time of the last line logged, occurrences left out since).
        self.seen: dict[str, tuple[float, int]] = {}

    def log(self, level: int, key: str, message: str, *args: Any) -> bool:
        """Log ``message % args`` unless ``key`` was logged less than ``interval`` ago;
        ``True`` if a line was written."""
        if not self.logger.isEnabledFor(level):
            return False
        now = self.clock()
        last = self.seen.get(key)
        if last is not None and now - last[0] < self.interval:
            self.seen[key] = (last[0], last[1] + 1)
            return False
        if last is None and len(self.seen) >= self.max_keys:
            self.seen.pop(next(iter(self.seen)))
        suppressed = last[1] if last is not None else 0
        if suppressed:
            message += " (and %d more like it in the last %.0f s, not logged)"
            args = (*args, suppressed, now - last[0])
        self.seen[key] = (now, 0)
        self.logger.log(level, message, *args)
        return True
