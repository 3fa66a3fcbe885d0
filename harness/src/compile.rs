//! One compile request: a kernel entry of a run-time source file, one
//! specialization, one bytecode file out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cutile::compile_api::KernelCompiler;
use cutile::cutile_compiler::error::JITError;
use cutile::cutile_compiler::hints::CompileOptions;
use cutile::cutile_compiler::specialization::{DivHint, SpecializationBits};
use cutile_ir::bytecode::BytecodeVersion;
use serde::{Deserialize, Serialize};

use crate::source::{param_info, Location, SourceError, SourceFile};

/// Layout facts applied to every tensor parameter that has no explicit
/// `strides` / `spec` entry. Defaults match what cuTile Python infers for a
/// contiguous, 16-byte-aligned tensor whose dims are multiples of 16.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Layout {
    /// Divisibility of every dim, in elements.
    pub shape_div: i32,
    /// Divisibility of every non-unit stride, in elements.
    pub stride_div: i32,
    /// Divisibility of the base pointer, in bytes.
    pub base_ptr_div: i32,
    /// Last stride is the constant 1 (row-major contiguous).
    pub last_stride_one: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            shape_div: 16,
            stride_div: 16,
            base_ptr_div: 16,
            last_stride_one: true,
        }
    }
}

/// Explicit `SpecializationBits` for one tensor parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecJson {
    pub shape_div: Vec<i32>,
    pub stride_div: Vec<i32>,
    pub stride_one: Vec<bool>,
    pub base_ptr_div: i32,
    #[serde(default = "yes")]
    pub elements_disjoint: bool,
}

fn yes() -> bool {
    true
}

/// Launch-independent compile options (`CompileOptions`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionsJson {
    pub occupancy: Option<i32>,
    pub num_cta_in_cga: Option<i32>,
    pub max_divisibility: Option<i32>,
}

/// One compile request.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Echoed back in the result (main.rs reads it from the raw JSON).
    #[serde(default)]
    #[allow(dead_code)]
    pub id: Option<serde_json::Value>,
    /// The `.rs` file (may come from the batch's top-level `file`).
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// `mod NAME` (optional when the file holds one cuTile module).
    #[serde(default)]
    pub module: Option<String>,
    /// The `#[cutile::entry]` function.
    pub entry: String,
    /// Flat generic arguments in declaration order (`["bf16", "128", "64"]`).
    #[serde(default)]
    pub generics: Vec<String>,
    /// Per tensor parameter: `-1` dynamic stride, `1` static unit stride.
    #[serde(default)]
    pub strides: BTreeMap<String, Vec<i32>>,
    /// Per tensor parameter: explicit specialization bits.
    #[serde(default)]
    pub spec: BTreeMap<String, SpecJson>,
    /// Defaults for tensor parameters missing from `strides` / `spec`.
    #[serde(default)]
    pub layout: Option<Layout>,
    /// Per integer scalar / pointer parameter: a divisor (power of two).
    #[serde(default)]
    pub scalar_hints: BTreeMap<String, i32>,
    /// Constant launch grid.
    #[serde(default)]
    pub grid: Option<[u32; 3]>,
    /// GPU target, default `sm_90`.
    #[serde(default)]
    pub target: Option<String>,
    /// Bytecode version, default `13.3`.
    #[serde(default)]
    pub bytecode_version: Option<String>,
    /// Where to write the bytecode (else `<out_dir>/<module>.<entry>.<index>.tileirbc`).
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// Also return cuTile's own MLIR-like IR text.
    #[serde(default)]
    pub ir_text: bool,
    #[serde(default)]
    pub options: OptionsJson,
}

/// A structured failure.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorJson {
    /// `request`, `io`, `parse`, `source`, `compile`, `bytecode` or `panic`.
    pub kind: String,
    pub message: String,
    pub location: Option<Location>,
}

impl From<SourceError> for ErrorJson {
    fn from(err: SourceError) -> Self {
        Self {
            kind: err.kind.to_string(),
            message: err.message,
            location: err.location,
        }
    }
}

impl ErrorJson {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Self {
            kind: kind.to_string(),
            message: message.into(),
            location: None,
        }
    }

    fn from_jit(kind: &str, err: JITError) -> Self {
        match err {
            JITError::Located(message, loc) if loc.is_known() => Self {
                kind: kind.to_string(),
                message,
                location: Some(Location {
                    file: loc.file,
                    line: loc.line,
                    column: loc.column,
                }),
            },
            JITError::Located(message, _) | JITError::Generic(message) => Self::new(kind, message),
            JITError::Anyhow(err) => Self::new(kind, format!("{err:#}")),
        }
    }
}

/// Placement of bounds checks (see `CheckPlacementCounts`).
#[derive(Debug, Clone, Serialize)]
pub struct Checks {
    pub discharged: u32,
    pub hoisted: u32,
    pub in_place: u32,
    /// Checks moved to launch time (`Debug` rendering of each `LaunchCheck`).
    pub launch: Vec<String>,
}

/// A successful compile.
#[derive(Debug, Clone, Serialize)]
pub struct Success {
    pub module: String,
    pub entry: String,
    pub bytecode: String,
    pub bytecode_version: String,
    pub target: String,
    pub generics: Vec<String>,
    pub strides: BTreeMap<String, Vec<i32>>,
    pub checks: Checks,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir_text: Option<String>,
}

fn parse_version(text: &str) -> Result<BytecodeVersion, ErrorJson> {
    match text {
        "13.2" => Ok(BytecodeVersion::V13_2),
        "13.3" => Ok(BytecodeVersion::V13_3),
        "13.4" => Ok(BytecodeVersion::V13_4),
        "13.5" => Ok(BytecodeVersion::V13_5),
        other => Err(ErrorJson::new(
            "request",
            format!("unsupported bytecode_version {other:?} (13.2, 13.3, 13.4 or 13.5)"),
        )),
    }
}

fn hint(divisor: i32) -> DivHint {
    DivHint {
        divisor: divisor.clamp(1, 16),
        max: 16,
    }
}

fn default_strides(rank: usize, layout: &Layout) -> Vec<i32> {
    (0..rank)
        .map(|i| {
            if i + 1 == rank && layout.last_stride_one {
                1
            } else {
                -1
            }
        })
        .collect()
}

fn default_spec(strides: &[i32], layout: &Layout) -> SpecializationBits {
    SpecializationBits {
        shape_div: strides.iter().map(|_| hint(layout.shape_div)).collect(),
        stride_div: strides
            .iter()
            .map(|&s| hint(if s == 1 { 1 } else { layout.stride_div }))
            .collect(),
        stride_one: strides.iter().map(|&s| s == 1).collect(),
        base_ptr_div: hint(layout.base_ptr_div),
        elements_disjoint: true,
    }
}

/// Compiles one request against an already-loaded source file.
pub fn compile_request(
    request: &Request,
    source: &SourceFile,
    default_out: &Path,
) -> Result<Success, ErrorJson> {
    let found = source.module(request.module.as_deref())?;
    let Some(entry_fn) = found.entry(&request.entry) else {
        let names: Vec<String> = found
            .entries()
            .iter()
            .map(|f| f.sig.ident.to_string())
            .collect();
        return Err(ErrorJson::new(
            "request",
            format!(
                "module `{}` has no `#[cutile::entry]` fn `{}` (entries: {names:?})",
                found.name, request.entry
            ),
        ));
    };

    // Strides and specialization bits for every tensor-like parameter.
    let layout = request.layout.clone().unwrap_or_default();
    let mut strides: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    let mut specs: Vec<(String, SpecializationBits)> = Vec::new();
    for param in param_info(entry_fn) {
        if !matches!(param.kind, "tensor" | "tensor_mut" | "mapped_partition") {
            continue;
        }
        let param_strides = match (request.strides.get(&param.name), param.rank) {
            (Some(s), _) => s.clone(),
            (None, Some(rank)) => default_strides(rank, &layout),
            (None, None) => {
                let (line, column) = crate::source::span_start(&entry_fn.sig.ident);
                return Err(ErrorJson {
                    kind: "request".to_string(),
                    message: format!(
                        "cannot read the rank of parameter `{}: {}`; pass \"strides\" for it",
                        param.name, param.ty
                    ),
                    location: Some(found.file_location(&source.path, line, column)),
                });
            }
        };
        let spec = match request.spec.get(&param.name) {
            Some(s) => SpecializationBits {
                shape_div: s.shape_div.iter().map(|&d| hint(d)).collect(),
                stride_div: s.stride_div.iter().map(|&d| hint(d)).collect(),
                stride_one: s.stride_one.clone(),
                base_ptr_div: hint(s.base_ptr_div),
                elements_disjoint: s.elements_disjoint,
            },
            None => default_spec(&param_strides, &layout),
        };
        specs.push((param.name.clone(), spec));
        strides.insert(param.name, param_strides);
    }
    for name in request.strides.keys().chain(request.spec.keys()) {
        if !strides.contains_key(name) {
            return Err(ErrorJson::new(
                "request",
                format!("`{name}` is not a tensor parameter of `{}`", request.entry),
            ));
        }
    }

    let target = request
        .target
        .clone()
        .unwrap_or_else(|| "sm_90".to_string());
    let version_text = request
        .bytecode_version
        .clone()
        .unwrap_or_else(|| "13.3".to_string());
    let version = parse_version(&version_text)?;

    let module = found.ast_module(&source.path);
    let stride_refs: Vec<(&str, &[i32])> = strides
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    let spec_refs: Vec<(&str, SpecializationBits)> =
        specs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let hint_refs: Vec<(&str, DivHint)> = request
        .scalar_hints
        .iter()
        .map(|(k, &v)| (k.as_str(), hint(v)))
        .collect();
    let mut options = CompileOptions::default();
    options.occupancy = request.options.occupancy;
    options.num_cta_in_cga = request.options.num_cta_in_cga;
    options.max_divisibility = request.options.max_divisibility;

    let mut compiler = KernelCompiler::new(move || module.clone(), &found.name, &request.entry)
        .generics(request.generics.clone())
        .strides(&stride_refs)
        .spec_args(&spec_refs)
        .scalar_hints(&hint_refs)
        .target(&target)
        .bytecode_version(version)
        .options(options);
    if let Some([x, y, z]) = request.grid {
        compiler = compiler.grid((x, y, z));
    }
    let artifacts = compiler
        .compile()
        .map_err(|e| ErrorJson::from_jit("compile", e))?;
    let bytes = artifacts
        .bytecode()
        .map_err(|e| ErrorJson::from_jit("bytecode", e))?;
    let out = request
        .out
        .clone()
        .unwrap_or_else(|| default_out.to_path_buf());
    if let Some(parent) = out.parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent).map_err(|e| {
                ErrorJson::new("io", format!("cannot create {}: {e}", parent.display()))
            })?;
        }
    }
    std::fs::write(&out, &bytes)
        .map_err(|e| ErrorJson::new("io", format!("cannot write {}: {e}", out.display())))?;
    let counts = artifacts.check_counts();
    Ok(Success {
        module: found.name.clone(),
        entry: request.entry.clone(),
        bytecode: out.to_string_lossy().to_string(),
        bytecode_version: version_text,
        target,
        generics: request.generics.clone(),
        strides,
        checks: Checks {
            discharged: counts.discharged,
            hoisted: counts.hoisted,
            in_place: counts.in_place,
            launch: artifacts
                .launch_checks()
                .iter()
                .map(|c| format!("{}: {:?}", c.cause, c.predicate))
                .collect(),
        },
        ir_text: request.ir_text.then(|| artifacts.ir_text()),
    })
}

/// Wall-clock helper for the result record.
pub fn elapsed_ms(start: Instant) -> u64 {
    start.elapsed().as_millis() as u64
}
