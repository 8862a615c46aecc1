"""Argument checks for the pure-Python modules (``pbebench.verl``, ``pbebench.inspect_ai``),
worded as the extension words its own: ``func(): name must be …, not TYPE``."""

from __future__ import annotations

from typing import Any


def require(func: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> None:
    """Raises TypeError naming the argument ``name`` of ``func`` unless ``value`` is one of
    ``kinds`` (a bool is no int here)."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise TypeError(f"{func}(): {name} must be {what}, not {type(value).__name__}")
