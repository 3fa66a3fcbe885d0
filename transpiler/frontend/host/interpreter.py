"""The host-code reader: an abstract interpreter over a package's host functions.

Takes a `Package` (the source modules, nothing imported or run), a typical-input kind, the
element type of the run, and a `Library` (the models of `torch`, `cuda.tile`, `math` and the
Python builtins, `models.LIBRARY`); gives, per entry function it is asked to call, the kernel
launches it reaches (`Record`s with abstract argument values). Conditions it cannot decide run
both arms; a condition that compares a tensor dimension runs both arms too but keeps the arm
the typical size takes. Budgets (`typical.MAX_*`) bound every run.
"""

from __future__ import annotations

import ast
import collections
import copy
import operator
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from transpiler.frontend.host.typical import (
    CONTAINER_ANNOTATION,
    EXPLORE_STEPS,
    INDEX_TENSOR_NAME,
    MAX_DEPTH,
    MAX_EXPLORE_DEPTH,
    MAX_ITERATIONS,
    MAX_STEPS,
    Dim,
    OpKind,
)
from transpiler.frontend.host.values import (
    UNKNOWN,
    BoundMethod,
    Break,
    BudgetExceeded,
    ClassValue,
    Cond,
    Continue,
    DType,
    EvalError,
    FakeTensor,
    FunctionValue,
    Instance,
    KernelRef,
    LazyShape,
    Library,
    Marker,
    ModelModule,
    ModuleEnv,
    Native,
    Package,
    Raise,
    Record,
    Return,
    Signal,
    Unknown,
    subscript_value,
)

# ---- the interpreter -----------------------------------------------------------------------


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_COMPARES: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
PLAIN_TYPES = (int, float, bool, str, type(None))
_SAFE_RECEIVERS = (list, dict, tuple, str, set, frozenset, int, float, collections.OrderedDict,
                   types.SimpleNamespace, range)


class Interpreter:
    """Evaluates host functions of one package on abstract values; collects launches."""

    def __init__(self, package: Package, kind: OpKind, dtype: str, library: Library) -> None:
        self.package = package
        self.kind = kind
        self.dtype = DType(dtype)
        self.records: list[Record] = []
        self.entry = ""
        self.origin = ""  # the top-level function of the current entry run
        # Called name -> the function a call by that name runs (callers followed across the
        # package: the name a caller uses may be bound to a dispatch stub there).
        self.redirects: dict[str, FunctionValue] = {}
        self.steps = 0
        self.step_limit = MAX_STEPS
        self.exploring = 0
        self.depth = 0
        self.soft = False
        self.frames: list[dict[str, object]] = []
        self.module: ModuleEnv | None = None
        self.library = library
        self.builtins = library.builtins()

    # ---- entry points ------------------------------------------------------------------

    def run_entry(self, module: ModuleEnv, label: str, function: object,
                  args: list[object], kwargs: dict[str, object]) -> str | None:
        """Call one entry; returns None, or why it stopped early."""
        self.entry, self.steps, self.depth = label, 0, 0
        self.step_limit, self.exploring = MAX_STEPS, 0
        try:
            self.call(function, args, dict(kwargs))
        except RecursionError:
            return "evaluation nested too deeply"
        except EvalError as err:
            return str(err)
        return None

    def record(self, kernel: str, args: list[object], via: str,
               grid: list[object] | None = None) -> None:
        """Note one launch of `kernel` with `args` (and its grid, where known) in the
        current entry run."""
        self.records.append(Record(kernel, args, self.entry, via, self.origin, grid))

    def typical_tensor(self, name: str, poly: bool = False) -> FakeTensor:
        dtype = DType("int32") if INDEX_TENSOR_NAME.search(name) else self.dtype
        tensor = FakeTensor(dtype, None, self.kind, poly)
        tensor.dtype_guessed = True
        return tensor

    def typical_argument(self, module: ModuleEnv, arg: ast.arg) -> object:
        text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if re.fullmatch(r"int", text):
            return Dim(self.kind.mid)
        if re.fullmatch(r"float", text):
            return 1.0
        if re.fullmatch(r"bool", text):
            return False
        if CONTAINER_ANNOTATION.match(text):
            return Unknown(f"{arg.arg}: {text}")
        return self.typical_tensor(arg.arg, poly=not text)

    # ---- frames and names --------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.step_limit:
            raise BudgetExceeded(f"step budget ({MAX_STEPS}) exhausted")

    def lookup(self, name: str) -> object:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        assert self.module is not None
        try:
            return self.module.lookup(self, name)
        except KeyError:
            pass
        if name in self.builtins:
            return self.builtins[name]
        return Unknown(f"name {name}")

    def assign_name(self, name: str, value: object) -> None:
        frame = self.frames[-1]
        declared = frame.get("__nonlocal__")
        if isinstance(declared, set) and name in declared:
            for outer in reversed(self.frames[:-1]):
                if name in outer:
                    outer[name] = value
                    return
        frame[name] = value

    def stmt_Nonlocal(self, stmt: ast.Nonlocal | ast.Global) -> None:
        declared = self.frames[-1].setdefault("__nonlocal__", set())
        if isinstance(declared, set):
            declared.update(stmt.names)

    stmt_Global = stmt_Nonlocal

    # ---- module-level definitions ------------------------------------------------------

    def define_global(self, module: ModuleEnv, stmt: ast.stmt, name: str) -> None:
        saved_module, saved_frames = self.module, self.frames
        self.module, self.frames = module, [module.values]
        try:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                self.exec_import(stmt, module, only=name)
            elif isinstance(stmt, ast.FunctionDef) and stmt.name in module.kernels:
                module.values[name] = KernelRef(stmt.name)
            else:
                signal = self.exec_stmt(stmt)
                if isinstance(signal, Raise):
                    module.values[name] = Unknown(signal.reason)
        except EvalError as err:
            module.values[name] = Unknown(str(err))
        finally:
            self.module, self.frames = saved_module, saved_frames

    def exec_import(self, stmt: ast.Import | ast.ImportFrom, module: ModuleEnv,
                    only: str | None = None) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                if only is None or bound == only:
                    target = alias.name if alias.asname else alias.name.split(".")[0]
                    self.assign_name(bound, self.import_module(target, module))
            return
        base = self.import_base(stmt, module)
        for alias in stmt.names:
            bound = alias.asname or alias.name
            if only is not None and bound != only:
                continue
            self.assign_name(bound, self.import_member(base, alias.name, module))

    def import_base(self, stmt: ast.ImportFrom, module: ModuleEnv) -> str:
        if not stmt.level:
            return stmt.module or ""
        rel = module.path.relative_to(self.package.root.resolve()).with_suffix("")
        parts = list(rel.parts[:-1])
        parts = parts[: len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
        return ".".join([*parts, *(stmt.module.split(".") if stmt.module else [])])

    def import_module(self, dotted: str, module: ModuleEnv) -> object:
        model = self.library.modules.get(dotted)
        if model is not None:
            return model
        if self.package.owns(dotted):
            path = self.package.resolve(dotted)
            if path is not None:
                return self.package.module_at(path)
        return Unknown(f"module {dotted}")

    def import_member(self, base: str, name: str, module: ModuleEnv) -> object:
        model = self.library.modules.get(base)
        if model is not None:
            return self.get_attr(model, name)
        if self.package.owns(base):
            sub = self.package.resolve(f"{base}.{name}")
            if sub is not None:
                return self.package.module_at(sub)
            path = self.package.resolve(base)
            if path is not None:
                try:
                    return self.package.module_at(path).lookup(self, name)
                except KeyError:
                    return Unknown(f"{base}.{name}")
        return Unknown(f"{base}.{name}")

    # ---- statements --------------------------------------------------------------------

    def exec_block(self, body: list[ast.stmt]) -> Signal | None:
        for index, stmt in enumerate(body):
            signal = self.exec_stmt(stmt)
            if isinstance(signal, _Forked):
                rest = body[index + 1:]
                result = signal.signal if signal.signal is not None else self.exec_block(rest)
                self.explore(signal.other, rest)
                return result
            if signal is not None:
                return signal
        return None

    def explore(self, frame: dict[str, object], rest: list[ast.stmt]) -> None:
        """Run the rest of a block on the other arm's state, only to find more launches."""
        if not rest or self.exploring >= MAX_EXPLORE_DEPTH:
            return
        saved = (self.frames, self.steps, self.step_limit)
        self.frames = [*saved[0][:-1], frame]
        self.step_limit = self.steps + EXPLORE_STEPS
        self.exploring += 1
        try:
            self.exec_block(rest)
        except EvalError:
            pass
        finally:
            self.exploring -= 1
            self.frames, self.steps, self.step_limit = saved

    def exec_stmt(self, stmt: ast.stmt) -> Signal | None:
        self.tick()
        handler = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if handler is None:
            return None  # pass, global, nonlocal, delete, type aliases: no effect we track
        return handler(stmt)

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Yield | ast.YieldFrom):
            self.do_yield(stmt.value)
            return
        self.eval(stmt.value)

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value))

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        current = self.eval(_load(stmt.target))
        self.assign(stmt.target, self.binop(type(stmt.op), current, self.eval(stmt.value)))

    def stmt_Return(self, stmt: ast.Return) -> Return:
        return Return(self.eval(stmt.value) if stmt.value is not None else None)

    def stmt_Raise(self, stmt: ast.Raise) -> Raise:
        return Raise(ast.unparse(stmt.exc)[:120] if stmt.exc is not None else "raise")

    def stmt_Assert(self, stmt: ast.Assert) -> Raise | None:
        """An assert on element types decides which dtypes the op supports; other asserts
        check shapes and layouts the typical input need not meet, and are not enforced."""
        text = ast.unparse(stmt.test)
        if "dtype" in text and self.truth(self.eval(stmt.test)) is False:
            return Raise(f"assert {text[:120]}")
        return None

    def stmt_Break(self, stmt: ast.Break) -> Break:
        return Break()

    def stmt_Continue(self, stmt: ast.Continue) -> Continue:
        return Continue()

    def stmt_Import(self, stmt: ast.Import) -> None:
        assert self.module is not None
        self.exec_import(stmt, self.module)

    stmt_ImportFrom = stmt_Import

    def stmt_FunctionDef(self, stmt: ast.FunctionDef) -> None:
        assert self.module is not None
        self.assign_name(stmt.name, self.make_function(stmt))

    def stmt_ClassDef(self, stmt: ast.ClassDef) -> None:
        self.assign_name(stmt.name, self.make_class(stmt))

    def stmt_With(self, stmt: ast.With) -> Signal | None:
        for item in stmt.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value)
        return self.exec_block(stmt.body)

    def stmt_Try(self, stmt: ast.Try) -> Signal | None:
        signal = self.exec_block(stmt.body)
        if isinstance(signal, Raise) and stmt.handlers:
            signal = self.exec_block(stmt.handlers[0].body)
        elif signal is None and stmt.orelse:
            signal = self.exec_block(stmt.orelse)
        if stmt.finalbody:
            self.exec_block(stmt.finalbody)
        return signal

    def stmt_If(self, stmt: ast.If) -> Signal | None:
        self.soft = False
        test = self.eval(stmt.test)
        truth = self.truth(test)
        soft, self.soft = self.soft, False
        if truth is not None and not soft:
            return self.exec_block(stmt.body if truth else stmt.orelse)
        preferred_then = truth is not False
        return self.fork(stmt.body if preferred_then else stmt.orelse,
                         stmt.orelse if preferred_then else stmt.body, truth is None)

    def fork(self, first: list[ast.stmt], second: list[ast.stmt], unknown: bool
             ) -> Signal | None:
        """Run both arms on copies of the frame; keep the first arm's values where known.

        The first arm is the one the typical input takes (the `if` arm when the condition
        is unknown). When it ends the function and the other arm does not, the rest of the
        block still runs on the other arm's state: as the main path when the condition was
        unknown (a guard such as `if n <= 0: return`), else as an exploration.
        """
        base = self.frames[-1]
        first_frame, first_signal = self.run_arm(base, first)
        second_frame, second_signal = self.run_arm(base, second)
        if first_signal is not None and second_signal is None:
            if unknown:
                base.clear()
                base.update(second_frame)
                return None
            return _Forked(first_signal, second_frame)
        chosen = first_frame if first_signal is None and second_signal is not None else None
        alternative: dict[str, object] | None = None
        if chosen is None:
            chosen = dict(second_frame)
            for name, value in first_frame.items():
                if not isinstance(value, Unknown) or name not in chosen:
                    chosen[name] = value
            if _differs(chosen, second_frame):
                alternative = second_frame
        base.clear()
        base.update(chosen)
        if first_signal is not None and second_signal is not None:
            return first_signal
        return _Forked(None, alternative) if alternative is not None else None

    def run_arm(self, base: dict[str, object], body: list[ast.stmt]
                ) -> tuple[dict[str, object], Signal | None]:
        frame = dict(base)
        saved = self.frames
        self.frames = [*saved[:-1], frame]
        try:
            signal = self.exec_block(body)
        except BudgetExceeded:
            raise
        except EvalError as err:
            signal = Raise(str(err))
        finally:
            self.frames = saved
        return frame, signal

    def stmt_For(self, stmt: ast.For) -> Signal | None:
        iterable = self.eval(stmt.iter)
        items = self.iterate(iterable)
        if items is None:
            items = [Unknown("loop item")]
        for count, item in enumerate(items):
            if count >= MAX_ITERATIONS:
                break
            self.assign(stmt.target, item)
            signal = _settled(self.exec_block(stmt.body))
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
        return self.exec_block(stmt.orelse)

    def stmt_While(self, stmt: ast.While) -> Signal | None:
        for _ in range(MAX_ITERATIONS):
            truth = self.truth(self.eval(stmt.test))
            if truth is False:
                return None
            signal = _settled(self.exec_block(stmt.body))
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
            if truth is None:
                return None
        return None

    # ---- assignment targets ------------------------------------------------------------

    def assign(self, target: ast.expr, value: object) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value)
        elif isinstance(target, ast.Tuple | ast.List):
            self.assign_many(target.elts, value)
        elif isinstance(target, ast.Attribute):
            self.set_attr(self.eval(target.value), target.attr, value)
        elif isinstance(target, ast.Subscript):
            self.set_item(self.eval(target.value), self.eval(target.slice), value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)

    def assign_many(self, targets: list[ast.expr], value: object) -> None:
        star = next((i for i, t in enumerate(targets) if isinstance(t, ast.Starred)), None)
        count = len(targets)
        items = self.unpack(value, count if star is None else None)
        if star is None:
            if len(items) != count:
                raise EvalError(f"cannot unpack {len(items)} values into {count}")
            for target, item in zip(targets, items, strict=True):
                self.assign(target, item)
            return
        after = count - star - 1
        head, middle = items[:star], items[star:len(items) - after]
        tail = items[len(items) - after:] if after else []
        for target, item in zip(targets[:star], head, strict=False):
            self.assign(target, item)
        self.assign(targets[star], list(middle))
        for target, item in zip(targets[star + 1:], tail, strict=False):
            self.assign(target, item)

    def unpack(self, value: object, count: int | None) -> list[object]:
        if isinstance(value, LazyShape):
            return value.unpack(count or value.tensor.default_rank)
        if isinstance(value, Unknown | FakeTensor | Instance):
            if isinstance(value, Instance) and value.attrs.get("__saved__") is not None:
                return list(value.attrs["__saved__"])  # type: ignore[arg-type]
            return [self.unknown_item(value) for _ in range(count or 1)]
        items = self.iterate(value)
        if items is None:
            return [Unknown("unpack") for _ in range(count or 1)]
        return list(items)

    def unknown_item(self, value: object) -> object:
        if isinstance(value, Instance):  # ctx.saved_tensors of a fresh ctx
            return self.typical_tensor("saved")
        return Unknown("unpacked")

    def set_attr(self, target: object, name: str, value: object) -> None:
        if isinstance(target, Instance):
            target.attrs[name] = value
        elif isinstance(target, types.SimpleNamespace):
            setattr(target, name, value)

    def set_item(self, target: object, key: object, value: object) -> None:
        if isinstance(target, dict):
            if hashable(key):
                target[key] = value
        elif isinstance(target, list) and isinstance(key, int) and -len(target) <= key < len(
                target):
            target[key] = value

    # ---- expressions -------------------------------------------------------------------

    def eval(self, node: ast.expr) -> object:
        self.tick()
        handler = getattr(self, f"expr_{type(node).__name__}", None)
        if handler is None:
            return Unknown(type(node).__name__)
        return handler(node)

    def expr_Constant(self, node: ast.Constant) -> object:
        return node.value

    def expr_Name(self, node: ast.Name) -> object:
        return self.lookup(node.id)

    def expr_Attribute(self, node: ast.Attribute) -> object:
        return self.get_attr(self.eval(node.value), node.attr)

    def expr_Subscript(self, node: ast.Subscript) -> object:
        return self.get_item(self.eval(node.value), self.eval(node.slice))

    def expr_Slice(self, node: ast.Slice) -> object:
        parts = [self.eval(p) if p is not None else None for p in (node.lower, node.upper,
                                                                   node.step)]
        if any(isinstance(p, Unknown) for p in parts):
            return Unknown("slice")
        return slice(*parts)

    def expr_Tuple(self, node: ast.Tuple) -> object:
        return tuple(self.eval_elements(node.elts))

    def expr_List(self, node: ast.List) -> object:
        return self.eval_elements(node.elts)

    def expr_Set(self, node: ast.Set) -> object:
        items = self.eval_elements(node.elts)
        return set(items) if all(hashable(i) for i in items) else Unknown("set")

    def expr_Dict(self, node: ast.Dict) -> object:
        out: dict[object, object] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                merged = self.eval(value)
                if isinstance(merged, dict):
                    out.update(merged)
                continue
            k = self.eval(key)
            if hashable(k):
                out[k] = self.eval(value)
        return out

    def eval_elements(self, elts: list[ast.expr]) -> list[object]:
        out: list[object] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                out.extend(self.unpack(self.eval(elt.value), None))
            else:
                out.append(self.eval(elt))
        return out

    def expr_JoinedStr(self, node: ast.JoinedStr) -> object:
        """An f-string whose every field is a known plain value; else unknown."""
        parts: list[str] = []
        for value in node.values:
            part = self.eval(value)
            if not isinstance(part, str):
                return Unknown("f-string")
            parts.append(part)
        return "".join(parts)

    def expr_FormattedValue(self, node: ast.FormattedValue) -> object:
        value = self.as_number(self.eval(node.value))
        spec = self.eval(node.format_spec) if node.format_spec is not None else ""
        if isinstance(value, LazyShape):
            value = value.real()
        if not plain_tree(value) or not isinstance(spec, str):
            return Unknown("f-string field")
        converted = {ord("s"): str, ord("r"): repr, ord("a"): ascii}.get(node.conversion)
        try:
            return format(converted(value) if converted else value, spec)
        except (TypeError, ValueError):
            return Unknown("f-string field")

    def expr_BinOp(self, node: ast.BinOp) -> object:
        return self.binop(type(node.op), self.eval(node.left), self.eval(node.right))

    def binop(self, op: type, left: object, right: object) -> object:
        left, right = self.as_number(left), self.as_number(right)
        if isinstance(left, FakeTensor) or isinstance(right, FakeTensor):
            tensor = left if isinstance(left, FakeTensor) else right
            assert isinstance(tensor, FakeTensor)
            return tensor.like()
        if isinstance(left, LazyShape):
            left = left.real()
        if isinstance(right, LazyShape):
            right = right.real()
        if op is ast.Add and type(left) is type(right) and isinstance(left, tuple | list):
            return left + right  # type: ignore[operator]
        if op is ast.Mult and isinstance(left, tuple | list) and isinstance(right, int):
            return left * right
        if not plain_tree(left) or not plain_tree(right):
            return Unknown("operand")
        try:
            return _BINOPS[op](left, right)
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return Unknown("arithmetic")

    def as_number(self, value: object) -> object:
        if isinstance(value, FakeTensor) and value.poly:
            return Dim(value.size)
        if isinstance(value, Cond):
            self.soft = True
            return value.value
        return value

    def expr_UnaryOp(self, node: ast.UnaryOp) -> object:
        value = self.as_number(self.eval(node.operand))
        if isinstance(node.op, ast.Not):
            truth = self.truth(value)
            return Unknown("not") if truth is None else not truth
        if isinstance(value, FakeTensor):
            return value.like()
        if not isinstance(value, int | float):
            return Unknown("unary")
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.Invert):
            return ~int(value)
        return +value

    def expr_BoolOp(self, node: ast.BoolOp) -> object:
        is_and = isinstance(node.op, ast.And)
        result: object = None
        for value_node in node.values:
            result = self.eval(value_node)
            truth = self.truth(result)
            if truth is None:
                return Unknown("bool op")
            if truth is not is_and:
                return result
        return result

    def expr_Compare(self, node: ast.Compare) -> object:
        left = self.eval(node.left)
        result: object = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node)
            if isinstance(left, Dim) or isinstance(right, Dim):
                self.soft = True
            step = self.compare(op, left, right)
            if step is False:
                return Cond(False) if self.soft else False
            if not isinstance(step, bool):
                result = Unknown("compare")
            left = right
        return Cond(True) if self.soft and result is True else result

    def compare(self, op: ast.cmpop, left: object, right: object) -> object:
        if isinstance(op, ast.Is | ast.IsNot):
            known = _identity_known(left, right)
            if known is None:
                return Unknown("is")
            return known if isinstance(op, ast.Is) else not known
        if isinstance(op, ast.In | ast.NotIn):
            found = self.contains(right, left)
            if found is None:
                return Unknown("in")
            return found if isinstance(op, ast.In) else not found
        left, right = self.as_number(left), self.as_number(right)
        if isinstance(left, LazyShape) and isinstance(right, LazyShape):
            left, right = left.real(), right.real()
        if isinstance(left, LazyShape):
            left = left.real()
        if isinstance(right, LazyShape):
            right = right.real()
        if not plain_tree(left) or not plain_tree(right):
            if isinstance(left, DType | KernelRef) and isinstance(right, DType | KernelRef):
                return _COMPARES[type(op)](left, right) if isinstance(op, ast.Eq | ast.NotEq) \
                    else Unknown("compare")
            return Unknown("compare")
        try:
            return bool(_COMPARES[type(op)](left, right))
        except TypeError:
            return Unknown("compare")

    def contains(self, container: object, item: object) -> bool | None:
        if isinstance(item, Unknown):
            return None
        if isinstance(container, dict):
            return item in container if hashable(item) else None
        items = self.iterate(container)
        if items is None:
            return None
        if any(isinstance(i, Unknown) for i in items) or isinstance(item, Unknown):
            return None
        try:
            return item in items
        except TypeError:
            return None

    def expr_IfExp(self, node: ast.IfExp) -> object:
        truth = self.truth(self.eval(node.test))
        if truth is None:
            value = self.eval(node.body)
            return value if not isinstance(value, Unknown) else self.eval(node.orelse)
        return self.eval(node.body if truth else node.orelse)

    def expr_Lambda(self, node: ast.Lambda) -> object:
        assert self.module is not None
        return FunctionValue(node, self.module, list(self.frames))

    def expr_NamedExpr(self, node: ast.NamedExpr) -> object:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return value

    def expr_Starred(self, node: ast.Starred) -> object:
        return self.eval(node.value)

    def expr_ListComp(self, node: ast.ListComp) -> object:
        return self.comprehension(node.generators, lambda: self.eval(node.elt))

    def expr_GeneratorExp(self, node: ast.GeneratorExp) -> object:
        return self.comprehension(node.generators, lambda: self.eval(node.elt))

    def expr_SetComp(self, node: ast.SetComp) -> object:
        items = self.comprehension(node.generators, lambda: self.eval(node.elt))
        return set(items) if isinstance(items, list) and all(map(hashable, items)) \
            else Unknown("set")

    def expr_DictComp(self, node: ast.DictComp) -> object:
        pairs = self.comprehension(node.generators,
                                   lambda: (self.eval(node.key), self.eval(node.value)))
        if not isinstance(pairs, list):
            return pairs
        return {k: v for k, v in pairs if hashable(k)}  # type: ignore[misc]

    def comprehension(self, generators: list[ast.comprehension],
                      element: Callable[[], object]) -> object:
        self.frames.append({})
        try:
            out: list[object] = []
            if not self.comprehend(generators, element, out):
                return Unknown("comprehension")
            return out
        finally:
            self.frames.pop()

    def comprehend(self, generators: list[ast.comprehension], element: Callable[[], object],
                   out: list[object]) -> bool:
        if not generators:
            out.append(element())
            return True
        first, rest = generators[0], generators[1:]
        items = self.iterate(self.eval(first.iter))
        if items is None:
            return False
        for item in items[:MAX_ITERATIONS * 4]:
            self.assign(first.target, item)
            truths = [self.truth(self.eval(cond)) for cond in first.ifs]
            if any(t is None for t in truths):
                return False
            if all(truths) and not self.comprehend(rest, element, out):
                return False
        return True

    def expr_Yield(self, node: ast.Yield) -> object:
        self.do_yield(node)
        return None

    def do_yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        sink = self.lookup("__yielded__")
        if not isinstance(sink, list):
            return
        if isinstance(node, ast.YieldFrom):
            items = self.iterate(self.eval(node.value))
            sink.extend(items or [])
        else:
            sink.append(self.eval(node.value) if node.value is not None else None)

    def expr_Call(self, node: ast.Call) -> object:
        function = self.eval(node.func)
        args: list[object] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.unpack(self.eval(arg.value), None))
            else:
                args.append(self.eval(arg))
        kwargs: dict[str, object] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value)
            if keyword.arg is None:
                if isinstance(value, dict):
                    kwargs.update({str(k): v for k, v in value.items()})
            else:
                kwargs[keyword.arg] = value
        return self.call(function, args, kwargs)

    # ---- calls -------------------------------------------------------------------------

    def call(self, function: object, args: list[object], kwargs: dict[str, object]) -> object:
        if isinstance(function, Native):
            return function.fn(self, args, kwargs)
        if isinstance(function, FunctionValue):
            return self.call_function(self.redirects.get(function.name, function), args,
                                      kwargs)
        if isinstance(function, BoundMethod):
            return self.call(function.function, [function.receiver, *args], kwargs)
        if isinstance(function, ClassValue):
            return self.instantiate(function, args, kwargs)
        if isinstance(function, KernelRef):
            return function
        if callable(function) and safe_callable(function):
            return call_real(function, args, kwargs)
        return Unknown("call")

    def call_function(self, function: FunctionValue, args: list[object],
                      kwargs: dict[str, object]) -> object:
        if self.depth >= MAX_DEPTH:
            raise EvalError(f"calls nested deeper than {MAX_DEPTH}")
        frame = self.bind(function, args, kwargs)
        if function.is_generator:
            frame["__yielded__"] = []
        saved = (self.frames, self.module)
        self.frames, self.module = [*function.closure, frame], function.module
        self.depth += 1
        try:
            node = function.node
            if isinstance(node, ast.Lambda):
                return self.eval(node.body)
            signal = self.exec_block(node.body)
        finally:
            self.depth -= 1
            self.frames, self.module = saved
        if function.is_generator:
            return frame["__yielded__"]
        if isinstance(signal, Return):
            return signal.value
        if isinstance(signal, Raise):
            return Unknown(f"raised {signal.reason}")
        return None

    def bind(self, function: FunctionValue, args: list[object],
             kwargs: dict[str, object]) -> dict[str, object]:
        spec = function.node.args
        positional = [*spec.posonlyargs, *spec.args]
        frame: dict[str, object] = {}
        defaults = spec.defaults
        first_default = len(positional) - len(defaults)
        for index, param in enumerate(positional):
            if index < len(args):
                frame[param.arg] = args[index]
            elif param.arg in kwargs:
                frame[param.arg] = kwargs.pop(param.arg)
            elif index >= first_default:
                frame[param.arg] = self.default(function, defaults[index - first_default])
            else:
                frame[param.arg] = Unknown(f"argument {param.arg}")
        if spec.vararg is not None:
            frame[spec.vararg.arg] = tuple(args[len(positional):])
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
            if param.arg in kwargs:
                frame[param.arg] = kwargs.pop(param.arg)
            else:
                frame[param.arg] = (self.default(function, default) if default is not None
                                    else Unknown(f"argument {param.arg}"))
        if spec.kwarg is not None:
            frame[spec.kwarg.arg] = dict(kwargs)
        return frame

    def default(self, function: FunctionValue, node: ast.expr) -> object:
        saved = (self.frames, self.module)
        self.frames, self.module = list(function.closure) or [function.module.values], \
            function.module
        try:
            return self.eval(node)
        finally:
            self.frames, self.module = saved

    def make_function(self, stmt: ast.FunctionDef) -> FunctionValue:
        assert self.module is not None
        generator = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(stmt))
        closure = [] if self.frames and self.frames[-1] is self.module.values else list(
            self.frames)
        return FunctionValue(stmt, self.module, closure, generator)

    def make_class(self, stmt: ast.ClassDef) -> ClassValue:
        assert self.module is not None
        bases = [self.eval(b) for b in stmt.bases]
        decorators = [ast.unparse(d) for d in stmt.decorator_list]
        cls = ClassValue(stmt.name, bases, {}, [], any("dataclass" in d for d in decorators),
                         self.module)
        self.frames.append(cls.attrs)
        try:
            for item in stmt.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    cls.fields.append((item.target.id, item.value))
                if isinstance(item, ast.FunctionDef):
                    function = self.make_function(item)
                    function.closure = [f for f in function.closure if f is not cls.attrs]
                    cls.attrs[item.name] = function
                elif isinstance(item, ast.Assign | ast.AnnAssign):
                    self.exec_stmt(item)
        finally:
            self.frames.pop()
        return cls

    def instantiate(self, cls: ClassValue, args: list[object],
                    kwargs: dict[str, object]) -> object:
        if cls.derives("IntEnum") or cls.derives("Enum"):
            return args[0] if args else Unknown("enum")
        instance = Instance(cls)
        if cls.is_dataclass:
            for index, (name, default) in enumerate(cls.fields):
                if index < len(args):
                    instance.attrs[name] = args[index]
                elif name in kwargs:
                    instance.attrs[name] = kwargs[name]
                elif default is not None:
                    instance.attrs[name] = self.eval(default)
            return instance
        init = cls.lookup("__init__")
        if isinstance(init, FunctionValue):
            self.call_function(init, [instance, *args], kwargs)
        return instance

    def apply_autograd(self, cls: ClassValue, args: list[object]) -> object:
        """`Function.apply(*args)`: run `forward(ctx, *args)`, then `backward` on its output."""
        ctx = Instance(None, needs_input_grad=tuple(True for _ in args))
        forward = cls.lookup("forward")
        output = self.call(forward, [ctx, *args], {}) if forward is not None else UNKNOWN
        backward = cls.lookup("backward")
        if backward is not None:
            outputs = output if isinstance(output, tuple) else (output,)
            grads = [o.like() if isinstance(o, FakeTensor) else self.typical_tensor("grad")
                     for o in outputs]
            self.call(backward, [ctx, *grads], {})
        return output

    # ---- attributes and items ----------------------------------------------------------

    def get_attr(self, value: object, name: str) -> object:
        if isinstance(value, ModuleEnv):
            try:
                return value.lookup(self, name)
            except KeyError:
                return Unknown(f"{value.path.stem}.{name}")
        if isinstance(value, ModelModule):
            return value.attr(name)
        if isinstance(value, FakeTensor):
            return self.library.tensor_attr(self, value, name)
        if isinstance(value, LazyShape):
            return Unknown(f"shape.{name}")
        if isinstance(value, DType):
            return getattr(value, name) if name in ("itemsize", "is_floating_point") else \
                Unknown(f"dtype.{name}")
        if isinstance(value, KernelRef):
            return self.library.kernel_attr(value, name)
        if isinstance(value, Instance):
            return self.instance_attr(value, name)
        if isinstance(value, ClassValue):
            return self.class_attr(value, name)
        if isinstance(value, _SAFE_RECEIVERS) and not name.startswith("_"):
            found = getattr(value, name, None)
            if found is not None:
                return found
        return Unknown(f".{name}")

    def instance_attr(self, instance: Instance, name: str) -> object:
        if name in instance.attrs:
            return instance.attrs[name]
        if instance.cls is None:
            return self.library.ctx_attr(instance, name)
        found = instance.cls.lookup(name)
        if isinstance(found, FunctionValue):
            return BoundMethod(found, instance)
        return found if found is not None else Unknown(f".{name}")

    def class_attr(self, cls: ClassValue, name: str) -> object:
        if name == "apply" and cls.lookup("forward") is not None:
            return Native(lambda interp, args, kwargs: interp.apply_autograd(cls, args))
        found = cls.lookup(name)
        return found if found is not None else Unknown(f"{cls.name}.{name}")

    def get_item(self, value: object, key: object) -> object:
        if isinstance(value, LazyShape):
            return value.item(key)
        if isinstance(value, FakeTensor):
            return value.like(shape=None if value.shape is None else _slice_shape(value, key))
        if isinstance(value, Unknown) or isinstance(key, Unknown):
            return Unknown("item")
        if isinstance(value, dict):
            return value.get(key, Unknown("key")) if hashable(key) else Unknown("key")
        if isinstance(value, list | tuple | str | range):
            return subscript_value(value, key)
        if isinstance(value, Marker | ModelModule):
            return value  # typing subscripts: Optional[...], ct.Constant[int]
        return Unknown("item")

    # ---- truth and iteration -----------------------------------------------------------

    def truth(self, value: object) -> bool | None:
        value = self.as_number(value)
        if isinstance(value, Unknown | FakeTensor | Instance | LazyShape):
            return None
        if isinstance(value, list | tuple | dict) and any(isinstance(v, Unknown) for v in value):
            return bool(value) if value else False
        try:
            return bool(value)
        except Exception:  # noqa: BLE001 - objects of the evaluated program
            return None

    def iterate(self, value: object) -> list[object] | None:
        if isinstance(value, LazyShape):
            return list(value.real())
        if isinstance(value, list | tuple | set | frozenset | str):
            return list(value)
        if isinstance(value, dict):
            return list(value.keys())
        if isinstance(value, collections.abc.KeysView | collections.abc.ValuesView
                      | collections.abc.ItemsView):
            return list(value)  # dict.keys() / .values() / .items()
        if isinstance(value, range):
            return list(value[: MAX_ITERATIONS * 4])
        if isinstance(value, Iterator):
            return list(value)
        return None


@dataclass
class _Forked(Signal):
    """An arm of an `if` ended the block; the other arm's state goes on (exploration only)."""

    signal: Signal | None
    other: dict[str, object]


def _settled(signal: Signal | None) -> Signal | None:
    return signal.signal if isinstance(signal, _Forked) else signal


def _differs(frame: dict[str, object], other: dict[str, object]) -> bool:
    for name, value in other.items():
        mine = frame.get(name)
        if mine is value:
            continue
        if not (plain_tree(mine) and plain_tree(value) and mine == value):
            return True
    return False


def _load(target: ast.expr) -> ast.expr:
    clone = copy.deepcopy(target)
    for node in ast.walk(clone):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()  # type: ignore[attr-defined]
    return clone


def _own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.Lambda | ast.ClassDef):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def plain_tree(value: object) -> bool:
    if isinstance(value, PLAIN_TYPES):
        return True
    if isinstance(value, tuple | list):
        return all(plain_tree(v) for v in value)
    return False


def _identity_known(left: object, right: object) -> bool | None:
    if left is None or right is None:
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return None
        return left is right
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return None
    return left is right



def _slice_shape(tensor: FakeTensor, key: object) -> tuple[int, ...] | None:
    keys = key if isinstance(key, tuple) else (key,)
    dims = list(tensor.dims())
    out: list[int] = []
    position = 0
    for item in keys:
        if item is None:
            out.append(1)
        elif item is Ellipsis:
            rest = len(dims) - position - sum(1 for k in keys if k not in (None, Ellipsis))
            out.extend(dims[position:position + max(rest, 0) + 1])
            position += max(rest, 0) + 1
        elif isinstance(item, slice):
            if position < len(dims):
                out.append(len(range(dims[position])[item]))
            position += 1
        elif isinstance(item, int):
            position += 1
        else:
            return None
    out.extend(dims[position:])
    return tuple(out)


def safe_callable(function: object) -> bool:
    receiver = getattr(function, "__self__", None)
    module = getattr(function, "__module__", None)
    if isinstance(receiver, _SAFE_RECEIVERS) and not getattr(function, "__name__", "_"
                                                             ).startswith("_"):
        return True
    return module == "math" or function in REAL_SAFE


def call_real(function: Callable[..., object], args: list[object],
               kwargs: dict[str, object]) -> object:
    args = [a.real() if isinstance(a, LazyShape) else a for a in args]
    if any(isinstance(a, Unknown) for a in [*args, *kwargs.values()]):
        if getattr(function, "__name__", "") in ("append", "extend", "update", "setdefault"):
            pass
        else:
            return Unknown("call of real function")
    try:
        return function(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the evaluated program's own error
        return Unknown(f"{getattr(function, '__name__', 'call')} failed")


REAL_SAFE: tuple[object, ...] = (types.SimpleNamespace,)


