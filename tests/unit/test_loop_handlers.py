"""The loop's dispatch: every message type the queue carries goes to exactly one handler,
the one typed for it, and every handler function serves one message type."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable

import pytest

from horizon.service import handlers, loop, messages


def _message_types() -> set[type]:
    carried = set(typing.get_args(messages.Message))
    defined = {value for _, value in inspect.getmembers(messages, inspect.isclass)
               if value.__module__ == messages.__name__ and dataclasses.is_dataclass(value)}
    assert carried == defined, "a message class the queue's type does not list"
    return carried


def _handler_functions() -> dict[str, Callable[..., None]]:
    return {name: value for name, value in inspect.getmembers(handlers, inspect.isfunction)
            if name.startswith("on_")}


def test_every_message_type_reaches_exactly_one_handler_typed_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, type]] = []
    functions = _handler_functions()
    for name in functions:
        monkeypatch.setattr(handlers, name,
                            lambda state, item, name=name: calls.append((name, type(item))))
    reached: dict[type, str] = {}
    for kind in _message_types():
        calls.clear()
        # The fields are not read: the recorders stand in for the handlers.
        loop.dispatch(typing.cast(typing.Any, None), object.__new__(kind))
        assert len(calls) == 1, (kind.__name__, calls)
        reached[kind] = calls[0][0]
    assert len(set(reached.values())) == len(reached), "one function serving two messages"
    assert set(reached.values()) == set(functions), "a handler no message reaches"
    for kind, name in reached.items():
        hints = typing.get_type_hints(functions[name])
        taken = [hint for key, hint in hints.items() if key not in ("state", "return")]
        assert taken == [kind], (name, taken)


def test_an_unknown_item_is_not_handled_silently() -> None:
    with pytest.raises(AssertionError):
        loop.dispatch(typing.cast(typing.Any, None), typing.cast(typing.Any, "a string"))
