"""Accepted-noise notes in a kernel author's words.

Takes the name of a rule of `canonicalize.RULES` (and the counts of what it accepted on each
side); gives the sentence a `PASS_WITH_NOTES` verdict shows: what differs between the two Tile
IRs, and why that cannot change what the kernel computes. The full reason, with the exact
conditions the rule checks, is the rule's own text (`--explain RULE`).
"""

from __future__ import annotations

# rule -> (what differs, why it is harmless), in the words of someone who wrote the kernel.
RULE_SUMMARIES: dict[str, tuple[str, str]] = {
    "dead-code": ("one side computes values nothing uses",
                  "a value nothing reads cannot change what the kernel stores"),
    "merge-duplicates": ("one side computes the same value twice",
                         "an equal, side-effect-free computation gives the same value"),
    "assume-chain": ("the compilers attach `assume` facts to values differently",
                     "an assume passes its value through unchanged; the facts are compared"),
    "assume-duplicate": ("one side states the same fact about a value twice",
                         "a repeated fact says nothing new"),
    "assume-bounded-redundant": ("one side states that a block id or loop index is >= 0",
                                 "the operation already guarantees it"),
    "token-threading": ("the two sides order memory accesses with different tokens",
                        "tokens only order accesses; the order on each array is checked"),
    "constant-splat": ("a constant tile is built in a different way",
                       "it holds the same elements"),
    "index-space-ceildiv": ("a tile count is written as a division instead of a query",
                            "ceil(extent / tile) is the count the query returns"),
    "commutative-operands": ("operands of `+`, `*`, `max`, ... come in a different order",
                             "these operations do not depend on the order"),
    "padding-refinement": ("cuTile Rust pads out-of-bounds loads with a value cuTile Python "
                           "leaves undefined",
                           "a defined value is one of the results the original allows"),
    "assumption-weaker": ("cuTile Rust assumes fewer facts about a value",
                          "assumptions only enable optimizations; the result is the same, "
                          "possibly a little slower"),
    "loop-index-bounds": ("one side states the range of a loop index",
                          "the loop's own bounds already give that range"),
    "hint-target-key": ("an optimization hint is keyed by the target (`sm_90`) on one side "
                        "and `default` on the other",
                        "for an sm_90 compile both select the same hints"),
    "empty-hint-entry": ("one side lists an empty hint entry (`default = {}`)",
                         "an entry with no hints asks for nothing"),
    "data-dependence-order": ("one side orders a store after the load it depends on "
                              "with an extra token",
                              "the data dependence already forces that order"),
    "constant-conversion": ("a float constant is spelled or converted differently",
                            "it is the same value"),
    "constant-bitcast": ("a half-precision constant is written as its bits",
                         "the bits are the same number"),
    "bound-scalar-argument": ("a float constant is a run-time argument on the Rust side",
                              "the launch always passes that constant"),
    "if-passthrough": ("an `if` passes a value through unchanged on one side",
                       "the value after the `if` is the value before it"),
    "loop-passthrough": ("a loop carries a value it never changes on one side",
                         "the value is the same in every iteration"),
    "identity-conversion": ("one side converts a value to its own type",
                            "a conversion to the same type changes nothing"),
    "argument-alias": ("a tensor stride is a separate argument on the Rust side",
                       "the launcher passes the tensor's own stride"),
    "constant-folding": ("one side computes arithmetic on constants at compile time",
                         "the folded constant is the value the operation gives"),
    "pointer-element-alignment": ("one side states that element pointers are aligned",
                                  "moving a pointer by whole elements keeps its alignment"),
    "single-trip-loop": ("a loop that runs once uses its start value directly on one side",
                         "in the only iteration the index is the start value"),
    "identity-dim-map": ("one side writes out the default dimension mapping of a view",
                         "it is the mapping used when none is written"),
    "early-exit": ("an early `return` became an `if`/`else` around the rest of the kernel",
                   "either way the same statements run"),
    "derived-divisibility": ("cuTile Python states divisibility facts it derived itself",
                             "the facts follow from the operands; they only enable "
                             "optimizations"),
    "scan-axis-swap": ("a scan along axis k is a scan along axis 0 between two transposes",
                       "the transposes undo each other around the same scan"),
    "flattened-gather": ("a gather of a 2-d or larger tile is done on the flattened tile",
                         "flattening keeps the element order, so the same elements load"),
}


def note_text(rule: str, detail: str) -> str:
    """`what differs (detail); why harmless`, or the detail alone for an unknown rule."""
    summary = RULE_SUMMARIES.get(rule)
    if summary is None:
        return detail
    what, why = summary
    return f"{what} ({detail}); harmless: {why}"
