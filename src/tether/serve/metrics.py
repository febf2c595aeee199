"""``GET /metrics``: the sidecar's decisions in the Prometheus text format.

Counted with the ``prometheus_client`` library (its own registry per service, so two services
in one process do not mix): decisions by route, action and code, fail-closed answers by kind,
and decision latency as a histogram per route. Only the sidecar imports this module; the hook
path never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

if TYPE_CHECKING:
    from tether.model import Decision

CONTENT_TYPE = CONTENT_TYPE_LATEST
# Hook answers take milliseconds; a locked store can take up to the deadline (15 s).
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0)


class Metrics:
    """The counters and histograms of one service."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.decisions = Counter(
            "tether_decisions",
            "Decisions answered, by route, action and code (a decision with several codes "
            'counts once per code; one without codes has code="").',
            ("route", "action", "code"),
            registry=self.registry,
        )
        self.failures = Counter(
            "tether_failures",
            "Requests answered fail closed without a decision, by kind.",
            ("route", "kind"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "tether_decision_seconds",
            "Time from request to decision, by route.",
            ("route",),
            buckets=BUCKETS,
            registry=self.registry,
        )

    def decided(self, route: str, decision: Decision, seconds: float) -> None:
        """Count one decision and its latency."""
        action = decision.action.label
        for code in decision.codes or ("",):
            self.decisions.labels(route, action, code).inc()
        self.latency.labels(route).observe(seconds)

    def failed(self, route: str, kind: str) -> None:
        """Count one fail-closed answer (``deadline``, ``error``, ``request``)."""
        self.failures.labels(route, kind).inc()

    def exposition(self) -> bytes:
        """Return every metric in the Prometheus text format."""
        return generate_latest(self.registry)


__all__ = ["CONTENT_TYPE", "Metrics"]
