"""The loop's table: every message type the queue carries has exactly one handler, and
every handler function serves one message type."""

from __future__ import annotations

import dataclasses
import inspect
import typing

from horizon.service import handlers, messages
from horizon.service.loop import HANDLERS


def test_every_message_type_has_exactly_one_handler() -> None:
    carried = set(typing.get_args(messages.Message))
    defined = {value for _, value in inspect.getmembers(messages, inspect.isclass)
               if value.__module__ == messages.__name__ and dataclasses.is_dataclass(value)}
    assert carried == defined, "a message class the queue's type does not list"
    assert set(HANDLERS) == carried
    functions = list(HANDLERS.values())
    assert len(set(functions)) == len(functions), "one function serving two messages"
    on_functions = {value for name, value in inspect.getmembers(handlers, inspect.isfunction)
                    if name.startswith("on_")}
    assert set(functions) == on_functions, "a handler the table does not use"
    for message, handler in HANDLERS.items():
        hints = typing.get_type_hints(handler)
        taken = [hint for name, hint in hints.items() if name not in ("state", "return")]
        assert taken == [message], (handler.__name__, taken)
