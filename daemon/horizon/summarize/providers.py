"""Model providers over httpx: Ollama's `/api/chat` and OpenAI-compatible chat completions.

A provider turns (model, system prompt, user prompt) into the reply's text or raises
ProviderError with a short reason. API keys come from the environment variable the
settings name and never appear in a reason, a log or a file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import msgspec

from horizon.core.errors import ModelError
from horizon.core.settings import ProviderConfig

if TYPE_CHECKING:
    import httpx


class ProviderError(ModelError):
    """A failed model call; the message is a short reason safe to log."""


class _Message(msgspec.Struct):
    content: object  # a string, else the reply has no text


class _OllamaReply(msgspec.Struct):
    message: _Message


class _Choice(msgspec.Struct):
    message: _Message


class _OpenAIReply(msgspec.Struct):
    # Only the first is read: the others (`n` > 1 in the options) may be of any shape.
    choices: Annotated[list[object], msgspec.Meta(min_length=1)]


Shape = TypeVar("Shape", _OllamaReply, _OpenAIReply, _Choice)


class Provider(Protocol):
    name: str

    def chat(self, model: str, system: str, user: str) -> str: ...


def _call(client: httpx.Client, url: str, payload: dict[str, object],
          headers: dict[str, str]) -> object:
    """The reply to `payload`, decoded as JSON."""
    import httpx  # imported with the first provider built: a daemon without models skips it

    try:
        response = client.post(url, json=payload, headers=headers)
    except httpx.TimeoutException:
        raise ProviderError("timeout") from None
    except httpx.ConnectError:
        raise ProviderError("connection refused or unreachable") from None
    except httpx.HTTPError as error:
        raise ProviderError(f"transport error ({type(error).__name__})") from None
    if response.status_code >= 400:
        raise ProviderError(f"HTTP {response.status_code}")
    try:
        # As Python's json reads it: the body's encoding found (a BOM, UTF-16), NaN taken.
        reply: object = response.json()
    except ValueError:
        raise ProviderError("malformed reply (not JSON)") from None
    return reply


def _shaped(data: object, shape: type[Shape], where: str) -> Shape:
    """`data` as `shape`; else the reply has no text at `where`."""
    try:
        return msgspec.convert(data, shape)
    except msgspec.ValidationError:
        raise ProviderError(f"malformed reply (no {where})") from None


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ProviderError("malformed reply (no text)")
    if not value.strip():
        raise ProviderError("empty reply")
    return value


class Ollama:
    """POST {url}/api/chat, non-streaming."""

    name = "ollama"

    def __init__(self, config: ProviderConfig, client: httpx.Client) -> None:
        self.config = config
        self.client = client
        self.url = config.url.rstrip("/") + "/api/chat"

    def chat(self, model: str, system: str, user: str) -> str:
        payload: dict[str, object] = {
            "model": model, "stream": False,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
        }
        if self.config.options:
            payload["options"] = dict(self.config.options)
        data = _call(self.client, self.url, payload, {})
        return _text(_shaped(data, _OllamaReply, "message.content").message.content)


class OpenAI:
    """POST {url}/v1/chat/completions (vLLM, llama.cpp, LM Studio, OpenAI)."""

    name = "openai"

    def __init__(self, config: ProviderConfig, client: httpx.Client) -> None:
        self.config = config
        self.client = client
        base = config.url.rstrip("/")
        self.url = base + ("/chat/completions" if base.endswith("/v1") else
                           "/v1/chat/completions")

    def _headers(self) -> dict[str, str]:
        if not self.config.api_key_env:
            return {}
        key = os.environ.get(self.config.api_key_env)
        if not key:
            raise ProviderError(f"the variable {self.config.api_key_env} is not set")
        return {"Authorization": f"Bearer {key}"}

    def chat(self, model: str, system: str, user: str) -> str:
        # Options first: temperature, max_tokens... never the model, messages or stream.
        payload: dict[str, object] = {
            **self.config.options,
            "model": model, "stream": False,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
        }
        where = "choices[0].message.content"
        reply = _shaped(_call(self.client, self.url, payload, self._headers()),
                        _OpenAIReply, where)
        return _text(_shaped(reply.choices[0], _Choice, where).message.content)


def build_provider(name: str, config: ProviderConfig) -> Provider:
    import httpx

    client = httpx.Client(timeout=httpx.Timeout(config.timeout_s), follow_redirects=False,
                          trust_env=False)
    if name == "ollama":
        return Ollama(config, client)
    return OpenAI(config, client)
