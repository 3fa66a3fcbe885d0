"""Acceptance of a model answer as a Rust fragment, before anything is spliced or compiled.

Takes the model's answer text and the kind of fragment the hole expects (`expression`,
`statements` or `function`); gives a `Fragment` (the code, comments removed, whitespace
folded) or a `FragmentRejected` whose message becomes the feedback of the next attempt.

Three gates, in order:
1. Extraction: the code of the single fenced block (```rust or ```), else the whole answer.
2. Tokens (`lex`): a small Rust lexer; rejects string, byte and char literals, attributes
   (`#`), macros other than the DSL's (`const_shape!`, `const_array!`, `shape!`), `unsafe`
   unless the context calls for it, and items or paths that reach outside the kernel
   (`extern`, `mod`, `use`, `static`, `impl`, `trait`, `std`, `crate`, `include!`, `asm!`, ...).
   Delimiters must balance inside the fragment itself, and an expression must have no
   top-level `;` or `,`, so the fragment cannot close the code it is spliced into.
3. Parse: rustc's own parser, through `rustfmt --edition 2021 --emit stdout` on the fragment
   wrapped in a function (`let __value = <expr>;`, `{ <stmts> }`, or the item alone). rustfmt
   is part of every Rust toolchain the harness needs and parses with `rustc_parse`, so a
   fragment it accepts is syntactically Rust of the expected kind; without rustfmt this gate
   is skipped and the compile check (cargo check) parses the fragment instead.

Nothing here executes or imports the fragment.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from rust_emit.rustfmt import rustfmt_path

KINDS = ("expression", "statements", "function")
MAX_FRAGMENT_CHARS = 4000
ALLOWED_MACROS = frozenset({"const_shape", "const_array", "shape"})
FORBIDDEN_WORDS = frozenset({
    "extern", "mod", "use", "static", "impl", "trait", "struct", "enum", "union", "macro_rules",
    "std", "alloc", "core", "crate", "super", "self", "Self", "proc_macro", "asm", "global_asm",
    "include", "include_str", "include_bytes", "env", "option_env", "concat", "async", "await",
    "dyn", "type", "pub", "where", "loop", "while", "break", "continue", "return", "move",
})
# Loops are statements: allowed in a region of statements and in a helper's body.
LOOP_WORDS = frozenset({"loop", "while", "break", "continue"})
_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<raw_ident>r\#[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>b?r\#*"|b?"|b')
  | (?P<quote>')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?)
  | (?P<punct>::|->|=>|\.\.=|\.\.|==|!=|<=|>=|&&|\|\||[-+*/%^!&|=<>@.,;:\#$?~(){}\[\]])
""", re.X)
_OPEN = {"(": ")", "[": "]", "{": "}"}


class FragmentRejected(ValueError):
    """The answer is not an acceptable fragment; the message says why (model feedback)."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int = 0  # offset in the lexed text


@dataclass(frozen=True)
class Fragment:
    kind: str
    code: str  # comments removed, whitespace folded (one line for an expression)
    body: str = ""  # a helper function's body, between its braces


def extract_code(answer: str) -> str:
    """The code of the answer's single fenced block, or the whole answer if it has none."""
    blocks = _FENCE_RE.findall(answer)
    if len(blocks) > 1:
        raise FragmentRejected(f"the answer has {len(blocks)} code blocks; give exactly one")
    code = blocks[0][1] if blocks else answer
    if blocks and blocks[0][0].lower() not in ("", "rust", "rs"):
        raise FragmentRejected(f"the code block is marked `{blocks[0][0]}`, not `rust`")
    return code.strip()


def lex(code: str) -> list[Token]:
    """Rust tokens of `code`, comments and whitespace dropped."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(code):
        match = _TOKEN_RE.match(code, pos)
        if match is None:
            raise FragmentRejected(f"unexpected character {code[pos]!r} in the fragment")
        kind = match.lastgroup or ""
        if kind == "block_comment":
            pos = _skip_block_comment(code, pos)
            continue
        if kind in ("string", "quote"):
            raise FragmentRejected("string, byte and char literals (and lifetimes) are not "
                                   "allowed in a kernel fragment")
        if kind not in ("ws", "line_comment"):
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    return tokens


def _skip_block_comment(code: str, pos: int) -> int:
    depth = 0
    while pos < len(code):
        if code.startswith("/*", pos):
            depth, pos = depth + 1, pos + 2
        elif code.startswith("*/", pos):
            depth, pos = depth - 1, pos + 2
            if depth == 0:
                return pos
        else:
            pos += 1
    raise FragmentRejected("an unterminated block comment")


def check_tokens(tokens: list[Token], kind: str, allow_unsafe: bool) -> None:
    """Reject what a kernel fragment of this kind never needs (see the module docstring)."""
    if not tokens:
        raise FragmentRejected("the answer holds no code")
    _check_words(tokens, kind, allow_unsafe)
    _check_macros(tokens)
    _check_nesting(tokens, kind)


def _check_words(tokens: list[Token], kind: str, allow_unsafe: bool) -> None:
    for index, token in enumerate(tokens):
        word = token.text[2:] if token.kind == "raw_ident" else token.text
        if token.kind not in ("ident", "raw_ident"):
            if token.text in ("#", "$"):
                raise FragmentRejected("attributes and macro metavariables are not allowed")
            continue
        if word in FORBIDDEN_WORDS and not (word in LOOP_WORDS and kind != "expression"):
            raise FragmentRejected(f"`{word}` is not allowed in a kernel fragment")
        if word == "unsafe" and not allow_unsafe:
            raise FragmentRejected("`unsafe` is not needed here: none of the functions this "
                                   "construct needs is unsafe")
        if word == "fn" and not (kind == "function" and index == _fn_position(tokens)):
            raise FragmentRejected("a nested `fn` or closure item is not allowed here")


def _fn_position(tokens: list[Token]) -> int:
    return 1 if tokens and tokens[0].text == "unsafe" else 0


def _check_macros(tokens: list[Token]) -> None:
    for index, token in enumerate(tokens[:-1]):
        if tokens[index + 1].text == "!" and token.kind in ("ident", "raw_ident"):
            following = tokens[index + 2].text if index + 2 < len(tokens) else ""
            if following in _OPEN and token.text not in ALLOWED_MACROS:
                raise FragmentRejected(f"the macro `{token.text}!` is not allowed (only "
                                       "const_shape!, const_array! and shape!)")


def _check_nesting(tokens: list[Token], kind: str) -> None:
    stack: list[str] = []
    for token in tokens:
        if token.text in _OPEN:
            stack.append(_OPEN[token.text])
        elif token.text in (")", "]", "}"):
            if not stack or stack.pop() != token.text:
                raise FragmentRejected(f"unbalanced `{token.text}` in the fragment")
        elif not stack and kind == "expression" and token.text in (";", ","):
            raise FragmentRejected(f"a top-level `{token.text}`: the answer must be one "
                                   "expression")
    if stack:
        raise FragmentRejected("unclosed delimiters in the fragment")
    if kind == "function" and tokens[-1].text != "}":
        raise FragmentRejected("a helper function must end with its body's `}`")


def _fold(code: str) -> str:
    """The code without comments, every whitespace run folded to one space."""
    out: list[str] = []
    pos = 0
    while pos < len(code):
        if code.startswith("/*", pos):
            pos = _skip_block_comment(code, pos)
            out.append(" ")
        elif code.startswith("//", pos):
            end = code.find("\n", pos)
            pos = len(code) if end < 0 else end
        else:
            out.append(code[pos])
            pos += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _wrap(code: str, kind: str) -> str:
    if kind == "expression":
        return f"fn __fragment_check() {{\n    let __value = {code};\n}}\n"
    if kind == "statements":
        return f"fn __fragment_check() {{\n{code}\n}}\n"
    return code + "\n"


def parse_check(code: str, kind: str, timeout: float = 30.0) -> None:
    """rustc's parser (via rustfmt) on the wrapped fragment; raises with its message."""
    exe = rustfmt_path()
    if exe is None:
        return
    try:
        proc = subprocess.run([exe, "--edition", "2021", "--emit", "stdout"],
                              input=_wrap(code, kind), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise FragmentRejected("the parser check timed out on the fragment") from None
    if proc.returncode != 0:
        message = proc.stderr.strip().replace("<stdin>", "fragment")
        raise FragmentRejected("the fragment does not parse as a Rust "
                               f"{kind}:\n{message[:1500]}")


def accept(answer: str, kind: str = "expression", allow_unsafe: bool = False, *,
           outputs: tuple[str, ...] = (), signature: str | None = None) -> Fragment:
    """The answer as a checked fragment of `kind`, or `FragmentRejected`. A `statements`
    fragment may not redeclare the `outputs` it must assign; a `function` must have exactly
    the given `signature` (its body is `Fragment.body`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown fragment kind {kind!r}")
    code = extract_code(answer)
    if len(code) > MAX_FRAGMENT_CHARS:
        raise FragmentRejected(f"the fragment is {len(code)} characters; the limit is "
                               f"{MAX_FRAGMENT_CHARS}")
    check_tokens(lex(code), kind, allow_unsafe)
    folded = _fold(code)
    tokens = lex(folded)
    body = ""
    if kind == "statements":
        _check_outputs(tokens, outputs)
    elif kind == "function":
        body = _function_body(folded, tokens, signature)
    parse_check(folded, kind)
    return Fragment(kind, folded, body)


def _check_outputs(tokens: list[Token], outputs: tuple[str, ...]) -> None:
    """No `let` of an output name: a new binding would hide the assignment from the code
    after the region."""
    for index, token in enumerate(tokens[:-1]):
        if token.text != "let":
            continue
        following = tokens[index + 1:index + 3]
        names = [t.text for t in following if t.text != "mut"][:1]
        if names and names[0] in outputs:
            raise FragmentRejected(f"`let {names[0]}` declares a new `{names[0]}`; assign "
                                   f"the existing `let mut {names[0]}` instead "
                                   f"(`{names[0]} = ...;`)")


def _function_body(code: str, tokens: list[Token], signature: str | None) -> str:
    """The text between the braces of a helper whose tokens start with `signature`."""
    if signature is None:
        raise ValueError("a function fragment needs its signature")
    expected = [t.text for t in lex(signature)]
    head = [t.text for t in tokens[:len(expected)]]
    if head != expected or len(tokens) <= len(expected) or tokens[len(expected)].text != "{":
        raise FragmentRejected(f"the helper must start with exactly `{signature} {{` and "
                               "be one function")
    open_brace = tokens[len(expected)]
    depth = 0
    for token in tokens[len(expected):]:
        depth += {"{": 1, "}": -1}.get(token.text, 0)
        if depth == 0 and token is not tokens[-1]:
            raise FragmentRejected("the answer continues after the helper's closing `}`")
    return code[open_brace.pos + 1:tokens[-1].pos].strip()
