"""Host-made tensor descriptors (`TensorDescriptor(...)` / `TensorDescriptor.from_tensor(...)`
arguments of a kernel): where the file sets their block shape.

Takes a Triton source and a kernel; gives, per kernel parameter, the block shape its
descriptor argument has when the kernel runs, as expressions over the kernel's own
parameters (syntax the analyzer evaluates in the kernel's scope). A descriptor's block shape
is part of the kernel's type in Triton (the JIT specializes on it), and the kernel body never
spells it, so it is read from the host code, in this order:

1. an `@triton.autotune` config's `pre_hook`, the idiom of kernels whose block depends on
   the config: `nargs["P"].block_shape = [BLOCK_M, BLOCK_N]`, each name read from
   `nargs["BLOCK_M"]` (directly or through a local `BLOCK_M = nargs["BLOCK_M"]`);
2. the launches of the kernel: the descriptor built in the launching function
   (`d = TensorDescriptor(t, shape, strides, [1, BLOCK])`, or `.from_tensor(t, [...])`) and
   passed as the argument, each block entry an int literal or a name the same launch passes
   to a `tl.constexpr` parameter (`BLOCK=BLOCK`).

A pre_hook that sets two block shapes on the two outcomes of one test over the kernel's
parameters (`if SUBTILE: ... = [B, N // 2] else: ... = [B, N]`) gives the conditional shape
(`N // 2 if SUBTILE else N`: one entry per outcome); `if isinstance(nargs["P"],
TensorDescriptor)` holds. Any other mix of block shapes (two launches that disagree) is
none: the analyzer says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from transpiler.frontend.triton.source import TritonKernel, TritonSource

#: The class Triton's host code builds descriptors with, and its constructor's positions.
DESCRIPTOR_CLASS = "TensorDescriptor"
CONSTRUCTOR_BLOCK = {"__init__": ("base", "shape", "strides", "block_shape"),
                     "from_tensor": ("tensor", "block_shape")}


@dataclass(frozen=True)
class BlockShapes:
    """Per descriptor parameter, its block shape (None: set two different ways)."""

    shapes: dict[str, tuple[cst.BaseExpression, ...] | None]

    def get(self, param: str) -> tuple[cst.BaseExpression, ...] | None:
        return self.shapes.get(param)

    def conflicting(self, param: str) -> bool:
        return param in self.shapes and self.shapes[param] is None


def block_shapes(source: TritonSource, kernel: TritonKernel) -> BlockShapes:
    """The block shape of every descriptor parameter the file sets one for."""
    found: dict[str, list[_Assigned]] = {}
    for hook in _pre_hooks(source, kernel):
        params = {p.name.value for p in kernel.node.params.params}
        for param, assigned in _hook_assignments(hook, params).items():
            found.setdefault(param, []).extend(assigned)
    if not found:
        for param, shape in _launch_blocks(source, kernel):
            found.setdefault(param, []).append(((), shape))
    return BlockShapes({param: _merged(assigned) for param, assigned in found.items()})


#: One `block_shape` assignment: the conditions it is under ((test, outcome), outermost
#: first) and the shape.
_Assigned = tuple[tuple[tuple[cst.BaseExpression, bool], ...], tuple[cst.BaseExpression, ...]]


def _merged(assigned: list[_Assigned]) -> tuple[cst.BaseExpression, ...] | None:
    """One block shape for all the assignments: the same shape everywhere, or two shapes on
    the two outcomes of one test (`[B, N // 2] if SUBTILE else [B, N]`, per dimension);
    None for any other mix."""
    texts = {tuple(_code(e) for e in shape) for _, shape in assigned}
    if len(texts) == 1:
        return assigned[0][1]
    if len(assigned) != 2:
        return None
    (conds_a, shape_a), (conds_b, shape_b) = assigned
    if len(shape_a) != len(shape_b) or not conds_a or len(conds_a) != len(conds_b) or \
            conds_a[:-1] != conds_b[:-1] or conds_a[-1][0] is not conds_b[-1][0] or \
            conds_a[-1][1] == conds_b[-1][1]:
        return None
    test, outcome = conds_a[-1]
    when_true, when_false = (shape_a, shape_b) if outcome else (shape_b, shape_a)
    return tuple(t if _code(t) == _code(f) else cst.IfExp(test=test, body=t, orelse=f)
                 for t, f in zip(when_true, when_false, strict=True))


# ---- pre_hooks -------------------------------------------------------------------------------


def _pre_hooks(source: TritonSource, kernel: TritonKernel) -> list[cst.FunctionDef]:
    """The module functions named as `pre_hook=` of the kernel's autotune configs (inside the
    `configs=` expression, or the body of the module function it calls)."""
    if kernel.autotune is None or "configs" not in kernel.autotune:
        return []
    configs = kernel.autotune["configs"]
    places: list[cst.CSTNode] = [configs]
    if isinstance(configs, cst.Call) and isinstance(configs.func, cst.Name) and \
            configs.func.value in source.functions:
        places.append(source.functions[configs.func.value])
    finder = _PreHookNames()
    for place in places:
        place.visit(finder)
    return [source.functions[n] for n in finder.names if n in source.functions]


class _PreHookNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == "pre_hook" and \
                isinstance(node.value, cst.Name) and node.value.value not in self.names:
            self.names.append(node.value.value)


def _hook_assignments(hook: cst.FunctionDef, params: set[str]
                      ) -> dict[str, list[_Assigned]]:
    """`nargs["P"].block_shape = [...]` of a pre_hook, with the `if` tests it is under, each
    name the hook reads from `nargs` written as the parameter it reads."""
    if not hook.params.params or not isinstance(hook.body, cst.IndentedBlock):
        return {}
    collector = _HookCollector(hook.params.params[0].name.value, params)
    collector.walk(list(hook.body.body), ())
    return collector.assigned


class _HookCollector:
    def __init__(self, args_name: str, params: set[str]) -> None:
        self.args_name = args_name
        self.params = params
        self.aliases: dict[str, cst.BaseExpression] = {}
        self.assigned: dict[str, list[_Assigned]] = {}

    def rewrite(self, node: cst.BaseExpression) -> cst.BaseExpression:
        return _ArgsToParams(self.args_name, self.aliases, self.params).rewrite(node)

    def walk(self, stmts: list[cst.BaseStatement],
             conds: tuple[tuple[cst.BaseExpression, bool], ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        self.assign(small, conds)
            elif isinstance(stmt, cst.If):
                self.branch(stmt, conds)

    def branch(self, node: cst.If, conds: tuple[tuple[cst.BaseExpression, bool], ...]) -> None:
        if _is_descriptor_test(node.test):
            # `if isinstance(nargs["P"], TensorDescriptor):` holds for a descriptor argument.
            self.walk(list(node.body.body), conds)
            return
        test = self.rewrite(node.test)
        self.walk(list(node.body.body), (*conds, (test, True)))
        orelse = node.orelse
        if isinstance(orelse, cst.Else):
            self.walk(list(orelse.body.body), (*conds, (test, False)))
        elif isinstance(orelse, cst.If):
            self.branch(orelse, (*conds, (test, False)))

    def assign(self, node: cst.Assign,
               conds: tuple[tuple[cst.BaseExpression, bool], ...]) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Name) and _nargs_key(node.value, self.args_name) is not None:
            self.aliases[target.value] = self.rewrite(node.value)
            return
        if isinstance(target, cst.Attribute) and target.attr.value == "block_shape":
            param = _nargs_key(target.value, self.args_name)
            if param is not None and isinstance(node.value, cst.List | cst.Tuple):
                shape = tuple(self.rewrite(e.value) for e in node.value.elements)
                self.assigned.setdefault(param, []).append((conds, shape))


def _is_descriptor_test(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
        node.func.value == "isinstance" and len(node.args) == 2 and \
        isinstance(node.args[1].value, cst.Name) and \
        node.args[1].value.value == DESCRIPTOR_CLASS


def _nargs_key(node: cst.BaseExpression, args_name: str) -> str | None:
    """`P` of `nargs["P"]` / `nargs.get("P", default)`, else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "get" and node.args:
        node = cst.Subscript(node.func.value, [cst.SubscriptElement(cst.Index(
            node.args[0].value))])
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and \
            node.value.value == args_name and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            value = index.value.evaluated_value
            return value if isinstance(value, str) else None
    return None


class _ArgsToParams(cst.CSTTransformer):
    """An expression of a pre_hook with `nargs["P"]` written as `P`, `nargs.get("Q", d)` as
    `d` when `Q` is no parameter of the kernel (the launch cannot pass it), and its local
    aliases as what they read."""

    def __init__(self, args_name: str, aliases: dict[str, cst.BaseExpression],
                 params: set[str]) -> None:
        self.args_name = args_name
        self.aliases = aliases
        self.params = params

    def rewrite(self, node: cst.BaseExpression) -> cst.BaseExpression:
        out = node.visit(self)
        assert isinstance(out, cst.BaseExpression)
        return out

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.aliases.get(updated.value, updated)

    def leave_Attribute(self, original: cst.Attribute,
                        updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)

    def leave_Subscript(self, original: cst.Subscript,
                        updated: cst.Subscript) -> cst.BaseExpression:
        key = _nargs_key(original, self.args_name)
        return cst.Name(key) if key is not None else updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        key = _nargs_key(original, self.args_name)
        if key is None:
            return updated
        if key not in self.params and len(updated.args) > 1:
            return updated.args[1].value
        return cst.Name(key)


# ---- launches --------------------------------------------------------------------------------


def _launch_blocks(source: TritonSource, kernel: TritonKernel
                   ) -> list[tuple[str, tuple[cst.BaseExpression, ...]]]:
    """(parameter, block shape) of each descriptor argument of a `kernel[grid](...)` launch
    built in the launching function, the block's names mapped to the constexprs the launch
    passes them to."""
    params = [p.name.value for p in kernel.node.params.params]
    out: list[tuple[str, tuple[cst.BaseExpression, ...]]] = []
    for fn in source.functions.values():
        if fn.name.value in source.jit_functions:
            continue
        built = _DescriptorsBuilt()
        fn.body.visit(built)
        launches = _Launches(kernel.name)
        fn.body.visit(launches)
        for call in launches.calls:
            bound = _bind_launch(call, params)
            passed_as = {_code(v): k for k, v in bound.items()
                         if isinstance(v, cst.Name)}
            for param, value in bound.items():
                if not isinstance(value, cst.Name) or value.value not in built.blocks:
                    continue
                shape = built.blocks[value.value]
                mapped = tuple(_launch_entry(e, passed_as) for e in shape)
                if all(m is not None for m in mapped):
                    out.append((param, tuple(m for m in mapped if m is not None)))
    return out


def _launch_entry(node: cst.BaseExpression, passed_as: dict[str, str]
                  ) -> cst.BaseExpression | None:
    if isinstance(node, cst.Integer):
        return node
    if isinstance(node, cst.Name) and node.value in passed_as:
        return cst.Name(passed_as[node.value])
    return None


def _bind_launch(call: cst.Call, params: list[str]) -> dict[str, cst.BaseExpression]:
    bound: dict[str, cst.BaseExpression] = {}
    position = 0
    for arg in call.args:
        if arg.star:
            break
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
        elif position < len(params):
            bound[params[position]] = arg.value
            position += 1
    return bound


class _DescriptorsBuilt(cst.CSTVisitor):
    """`name = TensorDescriptor(...)` / `TensorDescriptor.from_tensor(...)` with a literal
    block shape list: name -> its entries."""

    def __init__(self) -> None:
        self.blocks: dict[str, tuple[cst.BaseExpression, ...]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        call = node.value
        if not isinstance(call, cst.Call):
            return
        func = call.func
        if isinstance(func, cst.Name) and func.value == DESCRIPTOR_CLASS:
            names = CONSTRUCTOR_BLOCK["__init__"]
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value == DESCRIPTOR_CLASS and func.attr.value in CONSTRUCTOR_BLOCK:
            names = CONSTRUCTOR_BLOCK[func.attr.value]
        else:
            return
        block = _bind_launch(call, list(names)).get("block_shape")
        if isinstance(block, cst.List | cst.Tuple):
            self.blocks[node.targets[0].target.value] = tuple(e.value for e in block.elements)


class _Launches(cst.CSTVisitor):
    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Subscript) and isinstance(func.value, cst.Name) and \
                func.value.value == self.kernel:
            self.calls.append(node)


def _code(node: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(node)
