"""A token bucket: the per-connection limit on rolls (and odds) per second."""

from __future__ import annotations

import time


class TokenBucket:
    """Allows ``rate`` requests per second on average, bursts of up to ``burst``.

    ``rate`` 0 disables the limit.
    """

    def __init__(self, rate: float, burst: float | None = None, *, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, 2 * rate)
        self.tokens = self.burst
        self.clock = clock
        self.stamp = clock()

    def allow(self) -> bool:
        """Take one token if there is one; ``False`` means the request must be refused."""
        if self.rate <= 0:
            return True
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def retry_after(self) -> float:
        """Seconds until the next token."""
        if self.rate <= 0:
            return 0.0
        return max(0.0, (1 - self.tokens) / self.rate)
