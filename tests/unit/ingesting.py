"""Records into zones in one call, as a pass steps them: what the core's tests drive."""

from __future__ import annotations

from collections.abc import Iterable

from horizon.core.entries import Entry, Rejection
from horizon.core.ingest import Stepper
from horizon.core.zone_state import Changes, Context, Zones


def apply(zones: Zones, records: Iterable[Entry | Rejection], ctx: Context) -> Changes:
    """Ingest `records` (in seq order) into `zones`, in place."""
    changes = Changes()
    stepper = Stepper(zones, ctx, changes)
    for record in records:
        stepper.add(record)
    stepper.flush()
    return changes
