"""The base of horizon's errors: what a caller of horizon catches to catch them all."""

from __future__ import annotations


class HorizonError(Exception):
    """Every error horizon raises on purpose derives from this one."""
