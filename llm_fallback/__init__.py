"""LLM fallback for the constructs the deterministic passes cannot lower (issue #4).

Takes a file the pipeline failed on because of "unhandled construct" records; gives the file
translated with model-written Rust fragments (an expression, the statements of a block, or a
helper function), each accepted only after it parsed as Rust of its kind, the whole file
compiled against cutile 0.5.0, and every kernel with a fragment matched cuTile Python's Tile
IR; or the original diagnostics with a note. See README.md for
the design and CACHE.md for the cache format.

Modules: `context` (holes, prompt context), `cutile_api` (crate signatures), `examples`
(golden pairs), `prompt`, `client` (Anthropic SDK), `cache`, `fragment` (acceptance gates),
`verify` (compile and IR checks), `session` (the loop and the report).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from llm_fallback.client import DEFAULT_MODEL
from llm_fallback.session import DEFAULT_ATTEMPTS, FallbackOptions, FallbackSession

__all__ = ["DEFAULT_ATTEMPTS", "DEFAULT_MODEL", "FallbackOptions", "FallbackSession",
           "add_arguments", "session_from_args"]


def _attempts(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError("--llm-attempts must be between 1 and 10")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`--no-llm`, `--llm-model`, `--llm-cache`, `--llm-attempts`."""
    parser.add_argument("--no-llm", action="store_true",
                        help="no LLM fallback: unhandled constructs stay errors")
    parser.add_argument("--llm-model", default=DEFAULT_MODEL,
                        help=f"model for the fallback (default {DEFAULT_MODEL}); key from "
                        "ANTHROPIC_API_KEY")
    parser.add_argument("--llm-cache", metavar="DIR",
                        help="store and replay model requests/responses in DIR "
                        "(llm_fallback/CACHE.md)")
    parser.add_argument("--llm-attempts", type=_attempts, default=DEFAULT_ATTEMPTS,
                        metavar="N", help="requests per construct before giving up "
                        f"(default {DEFAULT_ATTEMPTS})")


def session_from_args(args: argparse.Namespace) -> FallbackSession | None:
    """The session the CLI flags ask for; None under `--no-llm`."""
    if args.no_llm:
        return None
    return FallbackSession(FallbackOptions(
        model=args.llm_model, attempts=args.llm_attempts,
        cache_dir=Path(args.llm_cache) if args.llm_cache else None,
        spec_files=list(getattr(args, "spec", []) or [])))
