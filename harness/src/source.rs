//! Reading a cuTile Rust source file at run time.
//!
//! Finds every `#[cutile::module] mod NAME { ... }` item in a `.rs` file and
//! builds the `cutile_compiler::ast::Module` value for it exactly the way the
//! `#[cutile::module]` macro's generated `__module_ast_self()` does: the module's
//! verbatim source text (from its `pub`/`mod` token to its closing brace, outer
//! attributes excluded) is re-parsed with `syn::parse_str`, and a `SpanBase`
//! anchored at the module's first token maps every span back to the real file,
//! line and column.

use std::collections::HashMap;
use std::path::Path;

use cutile::cutile_compiler::ast::syn;
use cutile::cutile_compiler::ast::{Module, SpanBase};
use quote::ToTokens;
use syn::spanned::Spanned;

/// A source position: 1-based line, 0-based column (in characters), as the
/// cuTile compiler reports them (rustc's JSON diagnostics use 1-based columns).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// An error while reading or parsing a source file.
#[derive(Debug)]
pub struct SourceError {
    pub kind: &'static str,
    pub message: String,
    pub location: Option<Location>,
}

/// One `#[cutile::module]` found in a file.
#[derive(Clone)]
pub struct FoundModule {
    /// Short name (`mod NAME`).
    pub name: String,
    /// Path of the module inside the file, e.g. `outer::NAME`.
    pub path_in_file: String,
    /// Where that text starts in the file.
    pub line: usize,
    pub column: usize,
    /// The re-parsed module (spans relative to `source_text`).
    pub item: syn::ItemMod,
}

/// A parsed source file and the cuTile modules in it.
pub struct SourceFile {
    pub path: String,
    pub modules: Vec<FoundModule>,
}

/// Crate name the harness pretends the file belongs to when it sets a module's
/// absolute path (the macro uses `module_path!()`, e.g. `my_crate::NAME`).
pub const VIRTUAL_CRATE: &str = "harness_input";

fn is_cutile_module_attr(attr: &syn::Attribute) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    segments == ["cutile", "module"]
}

/// Byte offset of a (1-based line, 0-based char column) position in `source`.
fn offset_of(source: &str, line: usize, column: usize) -> Option<usize> {
    let mut line_start = 0usize;
    for (index, text) in source.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            if column == 0 {
                return Some(line_start);
            }
            let count = text.chars().count();
            if column == count {
                return Some(line_start + text.len());
            }
            return text
                .char_indices()
                .nth(column)
                .map(|(byte, _)| line_start + byte);
        }
        line_start += text.len();
    }
    // Position just past a final line without a newline.
    if column == 0 {
        Some(source.len())
    } else {
        None
    }
}

fn syn_error_to_source_error(kind: &'static str, file: &str, err: &syn::Error) -> SourceError {
    let start = err.span().start();
    SourceError {
        kind,
        message: err.to_string(),
        location: Some(Location {
            file: file.to_string(),
            line: start.line,
            column: start.column,
        }),
    }
}

fn collect_modules(
    file: &str,
    source: &str,
    items: &[syn::Item],
    prefix: &str,
    found: &mut Vec<FoundModule>,
) -> Result<(), SourceError> {
    for item in items {
        let syn::Item::Mod(module) = item else {
            continue;
        };
        let path_in_file = if prefix.is_empty() {
            module.ident.to_string()
        } else {
            format!("{prefix}::{}", module.ident)
        };
        if !module.attrs.iter().any(is_cutile_module_attr) {
            if let Some((_, inner)) = &module.content {
                collect_modules(file, source, inner, &path_in_file, found)?;
            }
            continue;
        }
        let Some((brace, _)) = &module.content else {
            return Err(SourceError {
                kind: "source",
                message: format!(
                    "`#[cutile::module] mod {};` has no inline body; the harness (like the \
                     macro) needs `mod {} {{ ... }}`",
                    module.ident, module.ident
                ),
                location: Some(location_of(file, module.ident.span())),
            });
        };
        // Same anchor as the macro: the visibility token when present, else `mod`.
        let start_span = match &module.vis {
            syn::Visibility::Public(vis) => vis.span,
            syn::Visibility::Restricted(vis) => vis.pub_token.span,
            syn::Visibility::Inherited => module.mod_token.span,
        };
        let start = start_span.start();
        let end = brace.span.close().end();
        let (Some(from), Some(to)) = (
            offset_of(source, start.line, start.column),
            offset_of(source, end.line, end.column),
        ) else {
            return Err(SourceError {
                kind: "source",
                message: format!("could not locate the text of module `{}`", module.ident),
                location: Some(location_of(file, module.ident.span())),
            });
        };
        let text = source[from..to].to_string();
        let reparsed: syn::ItemMod = syn::parse_str(&text).map_err(|err| {
            // Spans of the re-parse are relative to `text`; shift them back.
            let mut error = syn_error_to_source_error("parse", file, &err);
            if let Some(loc) = error.location.as_mut() {
                let (line, column) = shift(start.line, start.column, loc.line, loc.column);
                loc.line = line;
                loc.column = column;
            }
            error
        })?;
        found.push(FoundModule {
            name: module.ident.to_string(),
            path_in_file,
            line: start.line,
            column: start.column,
            item: reparsed,
        });
    }
    Ok(())
}

/// `SpanBase::resolve` arithmetic: text-relative position -> file position.
fn shift(base_line: usize, base_col: usize, line: usize, column: usize) -> (usize, usize) {
    let abs_line = base_line + line.saturating_sub(1);
    let abs_col = if line == 1 { base_col + column } else { column };
    (abs_line, abs_col)
}

fn location_of(file: &str, span: proc_macro2::Span) -> Location {
    let start = span.start();
    Location {
        file: file.to_string(),
        line: start.line,
        column: start.column,
    }
}

impl SourceFile {
    /// Reads and parses `path`, collecting its `#[cutile::module]` items.
    pub fn load(path: &Path) -> Result<SourceFile, SourceError> {
        let display = path.to_string_lossy().to_string();
        let source = std::fs::read_to_string(path).map_err(|err| SourceError {
            kind: "io",
            message: format!("cannot read {display}: {err}"),
            location: None,
        })?;
        let parsed = syn::parse_file(&source)
            .map_err(|err| syn_error_to_source_error("parse", &display, &err))?;
        let mut modules = Vec::new();
        collect_modules(&display, &source, &parsed.items, "", &mut modules)?;
        Ok(SourceFile {
            path: display,
            modules,
        })
    }

    /// The module named `name`, or the only module when `name` is `None`.
    pub fn module(&self, name: Option<&str>) -> Result<&FoundModule, SourceError> {
        let names: Vec<&str> = self.modules.iter().map(|m| m.name.as_str()).collect();
        match name {
            Some(name) => self
                .modules
                .iter()
                .find(|m| m.name == name || m.path_in_file == name)
                .ok_or_else(|| SourceError {
                    kind: "request",
                    message: format!(
                        "no `#[cutile::module] mod {name}` in {} (found: {names:?})",
                        self.path
                    ),
                    location: None,
                }),
            None if self.modules.len() == 1 => Ok(&self.modules[0]),
            None => Err(SourceError {
                kind: "request",
                message: format!(
                    "{} holds {} cuTile modules ({names:?}); name one with \"module\"",
                    self.path,
                    self.modules.len()
                ),
                location: None,
            }),
        }
    }
}

/// Leaks each distinct module name once (`ast::Module` wants `&'static str`).
pub fn static_name(name: &str) -> &'static str {
    thread_local! {
        static NAMES: std::cell::RefCell<HashMap<String, &'static str>> =
            std::cell::RefCell::new(HashMap::new());
    }
    NAMES.with(|names| {
        *names
            .borrow_mut()
            .entry(name.to_string())
            .or_insert_with(|| Box::leak(name.to_string().into_boxed_str()))
    })
}

impl FoundModule {
    /// The `ast::Module` that `__module_ast_self()` would return for this module.
    pub fn ast_module(&self, file: &str) -> Module {
        let span_base = SpanBase::new(file.to_string(), self.line, self.column);
        let mut module =
            Module::with_span_base(static_name(&self.name), self.item.clone(), span_base);
        module.set_absolute_path(format!("{VIRTUAL_CRATE}::{}", self.path_in_file));
        module
    }

    /// `#[cutile::entry]` functions directly in this module.
    pub fn entries(&self) -> Vec<&syn::ItemFn> {
        let Some((_, items)) = &self.item.content else {
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Fn(function) if is_entry(function) => Some(function),
                _ => None,
            })
            .collect()
    }

    /// The entry function `name`.
    pub fn entry(&self, name: &str) -> Option<&syn::ItemFn> {
        self.entries().into_iter().find(|f| f.sig.ident == name)
    }

    /// File position of a span inside this module's re-parsed text.
    pub fn file_location(&self, file: &str, line: usize, column: usize) -> Location {
        let (line, column) = shift(self.line, self.column, line, column);
        Location {
            file: file.to_string(),
            line,
            column,
        }
    }
}

fn is_entry(function: &syn::ItemFn) -> bool {
    function.attrs.iter().any(|attr| {
        attr.path()
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "entry")
    })
}

/// What kind of kernel parameter this is, as the entry generator sees it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamInfo {
    pub name: String,
    /// `tensor` (`&Tensor`), `tensor_mut` (`&mut Tensor`), `mapped_partition`,
    /// `pointer` (`*mut E`), or `scalar`.
    pub kind: &'static str,
    /// Rank for tensor-like parameters, when it can be read from the signature.
    pub rank: Option<usize>,
    /// The parameter's type as written.
    pub ty: String,
}

/// A generic parameter of an entry, in declaration order.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GenericInfo {
    pub name: String,
    /// `type`, `i32`, `bool`, or `[i32; K]` (a const generic array).
    pub kind: String,
    /// Number of flat `generics` strings this parameter consumes.
    pub arity: usize,
}

fn tokens(node: &impl ToTokens) -> String {
    node.to_token_stream().to_string()
}

/// Rank of a `Tensor<E, SHAPE>` / `MappedPartitionMut<E, SHAPE, MAP>` type.
fn tensor_rank(ty: &syn::Type, const_arrays: &HashMap<String, usize>) -> Option<usize> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let shape = args.args.iter().nth(1)?;
    match shape {
        syn::GenericArgument::Const(expr) => array_len(expr),
        syn::GenericArgument::Type(syn::Type::Path(p)) => {
            let ident = p.path.get_ident()?.to_string();
            const_arrays.get(&ident).copied()
        }
        _ => None,
    }
}

fn array_len(expr: &syn::Expr) -> Option<usize> {
    match expr {
        syn::Expr::Block(block) => match block.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => array_len(inner),
            _ => None,
        },
        syn::Expr::Array(array) => Some(array.elems.len()),
        syn::Expr::Repeat(repeat) => match repeat.len.as_ref() {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Generic parameters of `function`, in order.
pub fn generic_info(function: &syn::ItemFn) -> Vec<GenericInfo> {
    function
        .sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(t) => Some(GenericInfo {
                name: t.ident.to_string(),
                kind: "type".to_string(),
                arity: 1,
            }),
            syn::GenericParam::Const(c) => {
                let (kind, arity) = match &c.ty {
                    syn::Type::Array(array) => {
                        let len = match &array.len {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Int(n),
                                ..
                            }) => n.base10_parse().unwrap_or(0),
                            _ => 0,
                        };
                        (format!("[i32; {len}]"), len)
                    }
                    other => (tokens(other), 1),
                };
                Some(GenericInfo {
                    name: c.ident.to_string(),
                    kind,
                    arity,
                })
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// Parameters of `function` with the entry generator's classification.
pub fn param_info(function: &syn::ItemFn) -> Vec<ParamInfo> {
    let const_arrays: HashMap<String, usize> = generic_info(function)
        .into_iter()
        .filter(|g| g.kind.starts_with('['))
        .map(|g| (g.name, g.arity))
        .collect();
    function
        .sig
        .inputs
        .iter()
        .filter_map(|arg| {
            let syn::FnArg::Typed(typed) = arg else {
                return None;
            };
            let name = match typed.pat.as_ref() {
                syn::Pat::Ident(ident) => ident.ident.to_string(),
                other => tokens(other),
            };
            let ty = typed.ty.as_ref();
            let (kind, rank) = match ty {
                syn::Type::Reference(reference) => {
                    let kind = if reference.mutability.is_some() {
                        "tensor_mut"
                    } else {
                        "tensor"
                    };
                    (kind, tensor_rank(&reference.elem, &const_arrays))
                }
                syn::Type::Ptr(_) => ("pointer", None),
                syn::Type::Path(path)
                    if path
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "MappedPartitionMut") =>
                {
                    ("mapped_partition", tensor_rank(ty, &const_arrays))
                }
                _ => ("scalar", None),
            };
            Some(ParamInfo {
                name,
                kind,
                rank,
                ty: tokens(ty),
            })
        })
        .collect()
}

/// Span start of any syn node (line relative to the node's parse input).
pub fn span_start(node: &impl Spanned) -> (usize, usize) {
    let start = node.span().start();
    (start.line, start.column)
}
