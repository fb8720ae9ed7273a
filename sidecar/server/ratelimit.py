"""Rate limits: a token bucket (every request of a connection) and a per-address guard on
failed `hello`s (token guessing)."""

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

    def charge(self, tokens: float) -> None:
        """Take ``tokens`` more for a costly request (the bucket may go into debt)."""
        if self.rate > 0:
            self.tokens -= tokens

    def debt_delay(self) -> float:
        """Seconds until a bucket in debt has a token again (0 when it is not in debt)."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return (1 - self.tokens) / self.rate if self.tokens < 0 else 0.0

    def refund(self) -> None:
        """Give back the token of a request that should not have counted."""
        self.tokens = min(self.burst, self.tokens + 1)

    def retry_after(self) -> float:
        """Seconds until the next token."""
        if self.rate <= 0:
            return 0.0
        return max(0.0, (1 - self.tokens) / self.rate)


class FailureGuard:
    """Throttles failed attempts (wrong tokens) per remote address.

    Each address has a bucket of ``burst`` failures refilling at ``per_minute`` a minute;
    while it is empty, :meth:`blocked` is true and the server refuses that address's
    token-bearing ``hello`` without checking the token, so guessing costs minutes, not
    milliseconds. At most ``max_addresses`` addresses are remembered (the oldest are
    forgotten first), so a spray of addresses cannot grow memory.
    """

    def __init__(self, per_minute: float = 5.0, burst: float | None = None, *,
                 max_addresses: int = 4096, clock=time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst if burst is not None else max(1.0, per_minute)
        self.max_addresses = max_addresses
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def _bucket(self, address: str) -> TokenBucket:
        bucket = self.buckets.pop(address, None)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, clock=self.clock)
            while len(self.buckets) >= self.max_addresses:
                self.buckets.pop(next(iter(self.buckets)))
        self.buckets[address] = bucket  # most recently used last
        return bucket

    def blocked(self, address: str) -> bool:
        """Whether ``address`` has used up its failures for now."""
        if self.rate <= 0 or address not in self.buckets:
            return False
        bucket = self.buckets[address]
        bucket.tokens = min(bucket.burst,
                            bucket.tokens + (self.clock() - bucket.stamp) * bucket.rate)
        bucket.stamp = self.clock()
        return bucket.tokens < 1

    def failed(self, address: str) -> None:
        """Count one failure of ``address``."""
        if self.rate > 0:
            self._bucket(address).allow()

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may try again."""
        bucket = self.buckets.get(address)
        return bucket.retry_after() if bucket is not None else 0.0
