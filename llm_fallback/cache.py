"""On-disk cache of model requests and responses (`--llm-cache DIR`); format in CACHE.md.

Takes a request (model, system prompt, messages, sampling settings) and, after a network call,
the response; gives the stored response for the same request on later runs, so a cached run
makes no network call and produces byte-identical output. Entries are keyed by the SHA-256 of
the canonical JSON of the request; a stored entry whose request differs from the one asked
(a corrupted or hand-edited file) is treated as a miss. No credential is ever part of a
request or a response, and `redact()` scrubs the key from anything written all the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "transpiler-llm-cache/1"


@dataclass(frozen=True)
class CachedReply:
    text: str
    input_tokens: int
    output_tokens: int
    stop_reason: str | None
    response_id: str | None


def request_key(request: dict[str, Any]) -> str:
    """SHA-256 (hex) of the request's canonical JSON (sorted keys, no spaces, UTF-8)."""
    blob = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def redact(text: str) -> str:
    """`text` with the value of ANTHROPIC_API_KEY (if set) replaced by `[redacted]`."""
    key = os.environ.get("ANTHROPIC_API_KEY", "")
    return text.replace(key, "[redacted]") if len(key) >= 8 else text


class ResponseCache:
    """`DIR/<key[:2]>/<key>.json`, one file per request."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, request: dict[str, Any]) -> CachedReply | None:
        key = request_key(request)
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if entry.get("format") != FORMAT or entry.get("request") != request:
            return None
        response = entry.get("response", {})
        usage = response.get("usage", {})
        return CachedReply(str(response.get("text", "")), int(usage.get("input_tokens", 0)),
                           int(usage.get("output_tokens", 0)), response.get("stop_reason"),
                           response.get("id"))

    def put(self, request: dict[str, Any], reply: CachedReply) -> Path:
        key = request_key(request)
        entry = {
            "format": FORMAT,
            "key": key,
            "request": request,
            "response": {
                "text": reply.text,
                "stop_reason": reply.stop_reason,
                "id": reply.response_id,
                "usage": {"input_tokens": reply.input_tokens,
                          "output_tokens": reply.output_tokens},
            },
        }
        text = redact(json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False)) + "\n"
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path
