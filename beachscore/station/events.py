"""A small publish/subscribe bus: the station publishes, each open page's event stream listens."""

from __future__ import annotations

import itertools
import queue
import threading


class EventBus:
    """Fan-out of events to subscribers' queues; slow subscribers drop their oldest events.

    Each event is a dict ``{"id": int, "kind": str, "data": dict}``; ids increase by one from 1.

    Args:
        max_queue: events kept per subscriber before the oldest is dropped.
    """

    def __init__(self, max_queue: int = 100):
        self.max_queue = max_queue
        self._subscribers: set[queue.Queue] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.last_id = 0

    def subscribe(self) -> queue.Queue:
        """A new queue that receives every event published from now on."""
        q: queue.Queue = queue.Queue(self.max_queue)
        with self._lock:
            self._subscribers.add(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            self._subscribers.discard(q)

    def publish(self, kind: str, data: dict | None = None) -> dict:
        """Send an event to every subscriber; returns it."""
        with self._lock:
            event = {"id": next(self._ids), "kind": kind, "data": data or {}}
            self.last_id = event["id"]
            subscribers = list(self._subscribers)
        for q in subscribers:
            while True:
                try:
                    q.put_nowait(event)
                    break
                except queue.Full:
                    try:
                        q.get_nowait()
                    except queue.Empty:
                        pass
        return event

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)
