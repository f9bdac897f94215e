"""Admission of eval runs: a concurrency limit that halves on throttling and grows back."""

from __future__ import annotations

import threading
import time


class Gate:
    """Admission for runs: at most ``limit`` in flight, none during a cool-down."""

    def __init__(self, limit: int):
        self.max = limit
        self.limit = limit
        self.active = 0
        self.max_active = 0
        self.min_limit = limit
        self.cool_until = 0.0
        self.ok_streak = 0
        self.throttles = 0
        self.waited = 0.0
        self.cond = threading.Condition()

    def acquire(self, cancel: threading.Event) -> bool:
        with self.cond:
            while True:
                if cancel.is_set():
                    return False
                now = time.monotonic()
                if now < self.cool_until:
                    self.cond.wait(min(self.cool_until - now, 0.05))
                    continue
                if self.active < self.limit:
                    self.active += 1
                    self.max_active = max(self.max_active, self.active)
                    return True
                self.cond.wait(0.05)

    def release(self, clean: bool) -> None:
        with self.cond:
            self.active -= 1
            if clean:
                self.ok_streak += 1
                if self.limit < self.max and self.ok_streak >= 2 * self.limit:
                    self.limit += 1
                    self.ok_streak = 0
            self.cond.notify_all()

    def throttle(self, wait: float) -> tuple[float, int]:
        with self.cond:
            now = time.monotonic()
            if now >= self.cool_until:  # one reduction per cool-down, however many workers hit it
                self.limit = max(1, self.limit // 2)
                self.min_limit = min(self.min_limit, self.limit)
                self.throttles += 1
            self.ok_streak = 0
            if now + wait > self.cool_until:
                self.waited += now + wait - max(now, self.cool_until)
                self.cool_until = now + wait
            self.cond.notify_all()
            return wait, self.limit
