"""Model providers over httpx: Ollama's `/api/chat` and OpenAI-compatible chat completions.

A provider turns (model, system prompt, user prompt) into the reply's text or raises
ProviderError with a short reason. API keys come from the environment variable the
settings name and never appear in a reason, a log or a file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from horizon.core.errors import ModelError
from horizon.core.settings import ProviderConfig

if TYPE_CHECKING:
    import httpx


class ProviderError(ModelError):
    """A failed model call; the message is a short reason safe to log."""


class Provider(Protocol):
    name: str

    def chat(self, model: str, system: str, user: str) -> str: ...


def _call(client: httpx.Client, url: str, payload: dict[str, Any],
          headers: dict[str, str]) -> Any:
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
        return response.json()
    except ValueError:
        raise ProviderError("malformed reply (not JSON)") from None


def _text(value: Any) -> str:
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
        payload: dict[str, Any] = {
            "model": model, "stream": False,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
        }
        if self.config.options:
            payload["options"] = dict(self.config.options)
        data = _call(self.client, self.url, payload, {})
        try:
            return _text(data["message"]["content"])
        except (KeyError, TypeError):
            raise ProviderError("malformed reply (no message.content)") from None


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
        payload: dict[str, Any] = {
            **self.config.options,
            "model": model, "stream": False,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
        }
        data = _call(self.client, self.url, payload, self._headers())
        try:
            return _text(data["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError):
            raise ProviderError("malformed reply (no choices[0].message.content)") from None


def build_provider(name: str, config: ProviderConfig) -> Provider:
    import httpx

    client = httpx.Client(timeout=httpx.Timeout(config.timeout_s), follow_redirects=False,
                          trust_env=False)
    if name == "ollama":
        return Ollama(config, client)
    return OpenAI(config, client)
