"""The neutral kernel model: what every front end gives and every later pass reads.

`ir` holds the kernel model (types, values, expressions, statements, `KernelModel`),
`elements` the element-type table, `consts` the compile-time value language (constant
parameters, expressions and conditions over them, `PY_OPS`), `enums` the neutral modes and
kernel hints. Nothing here depends on a source language or on the target. The package
re-exports the names of `ir` and the dtype lists.
"""

from transpiler.model.elements import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES
from transpiler.model.ir import (
    ArrayType,
    ConstType,
    Dim,
    DimExpr,
    DimSym,
    DType,
    DTypeVar,
    ElemType,
    EnumValue,
    KernelModel,
    KernelParam,
    ListType,
    ScalarType,
    Shape,
    TAssign,
    TComment,
    TDeclare,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TReturn,
    TStmt,
    ValueType,
    dim_op,
    statement_exprs,
    walk_statements,
)

__all__ = [
    "FLOAT_DTYPES",
    "INT_DTYPES",
    "ALL_DTYPES",
    "DType",
    "DTypeVar",
    "ElemType",
    "DimSym",
    "DimExpr",
    "Dim",
    "Shape",
    "dim_op",
    "TileType",
    "ScalarType",
    "ArrayType",
    "ConstType",
    "EnumValue",
    "ListType",
    "ValueType",
    "TExpr",
    "TAssign",
    "TEffect",
    "TFor",
    "TIf",
    "TDeclare",
    "TReturn",
    "TComment",
    "TStmt",
    "walk_statements",
    "statement_exprs",
    "KernelParam",
    "KernelModel",
]
