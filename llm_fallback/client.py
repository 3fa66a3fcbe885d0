"""Model client: one Messages API call per request, through the cache, with bounded retries.

Takes a model name, a system prompt and a conversation (user/assistant turns); gives a
`Reply` (answer text, input/output tokens, whether it came from the cache). Uses the official
`anthropic` SDK (`anthropic==2.10.0`, the `llm` extra); the key is read from
`ANTHROPIC_API_KEY` only and handed to the SDK explicitly, so no other credential source
(profiles, tokens, config files) is consulted. Transport errors and timeouts are retried by
the SDK `max_retries` times with its backoff, then raised as `LlmRequestError`; a missing key
or SDK on a cache miss raises `LlmUnavailable`. Tests pass their own `anthropic.Anthropic`
(e.g. over an `httpx2.MockTransport`) as `sdk`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from llm_fallback.cache import CachedReply, ResponseCache, redact

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 2
MAX_OUTPUT_TOKENS = 2048
KEY_ENV = "ANTHROPIC_API_KEY"


class LlmUnavailable(RuntimeError):
    """No answer can be had: no cache hit and no key (or no SDK)."""


class LlmRequestError(RuntimeError):
    """The API call failed after the retries (status, connection, timeout)."""


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: int
    output_tokens: int
    cached: bool


@dataclass
class ModelClient:
    model: str = DEFAULT_MODEL
    cache: ResponseCache | None = None
    sdk: Any = None  # an `anthropic.Anthropic`; built from the environment when None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    max_tokens: int = MAX_OUTPUT_TOKENS
    network_calls: int = field(default=0, init=False)

    def request(self, system: str, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The request as sent and as cached (nothing secret in it)."""
        return {"model": self.model, "max_tokens": self.max_tokens, "system": system,
                "messages": [dict(m) for m in messages]}

    def complete(self, system: str, messages: list[dict[str, str]]) -> Reply:
        request = self.request(system, messages)
        if self.cache is not None:
            hit = self.cache.get(request)
            if hit is not None:
                return Reply(hit.text, hit.input_tokens, hit.output_tokens, cached=True)
        reply = self._call(request)
        if self.cache is not None:
            self.cache.put(request, reply)
        return Reply(reply.text, reply.input_tokens, reply.output_tokens, cached=False)

    def can_call(self) -> bool:
        """Whether a cache miss could still be answered (an SDK client or a key)."""
        return self.sdk is not None or bool(os.environ.get(KEY_ENV))

    def _sdk(self) -> Any:
        if self.sdk is not None:
            return self.sdk
        key = os.environ.get(KEY_ENV)
        if not key:
            raise LlmUnavailable(f"{KEY_ENV} is not set and the cache has no answer")
        try:
            import anthropic
        except ImportError as err:
            raise LlmUnavailable("the `anthropic` package is not installed "
                                 "(pip install 'transpiler[llm]')") from err
        self.sdk = anthropic.Anthropic(api_key=key, timeout=self.timeout_s,
                                       max_retries=self.max_retries)
        return self.sdk

    def _call(self, request: dict[str, Any]) -> CachedReply:
        sdk = self._sdk()
        import anthropic

        self.network_calls += 1
        try:
            message = sdk.messages.create(**request)
        except anthropic.AnthropicError as err:
            raise LlmRequestError(redact(f"{type(err).__name__}: {err}")[:500]) from None
        text = "".join(getattr(block, "text", "") for block in message.content
                       if getattr(block, "type", "") == "text")
        usage = message.usage
        return CachedReply(text, int(usage.input_tokens), int(usage.output_tokens),
                           message.stop_reason, message.id)
