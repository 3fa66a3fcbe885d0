//! `transpiler-harness`: compile cuTile Rust kernels from `.rs` files read at
//! run time (no rebuild per file) to Tile IR bytecode, without a GPU.
//!
//! ```text
//! transpiler-harness compile [REQUESTS.json | -] [-o RESULTS.json]
//! transpiler-harness list FILE.rs [-o RESULT.json]
//! ```
//!
//! `compile` reads one JSON document: a single request object, a list of
//! requests, or `{"file": ..., "out_dir": ..., "requests": [...]}` whose `file`
//! and `out_dir` are defaults for the requests. It answers
//! `{"harness": ..., "results": [...]}` with one result per request, in order:
//! `{"index", "id", "ok": true, "bytecode": PATH, ...}` or
//! `{"index", "id", "ok": false, "error": {"kind", "message", "location"}}`.
//! A bad request (or a compiler panic) fails only that request.
//!
//! `list` prints the `#[cutile::module]`s of a file, their entries, generic
//! parameters and parameter kinds (what a request needs to name).
//!
//! Results go to `-o FILE` when given, else to stdout (the cuTile compiler may
//! itself print to stdout, e.g. with `#[entry(print_ir = true)]`; use `-o`).

mod compile;
mod source;

use std::collections::HashMap;
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{json, Value};

use compile::{compile_request, elapsed_ms, ErrorJson, Request};
use source::{generic_info, param_info, SourceFile};

/// Stack for the worker thread: the compiler recurses deeply (cutile's own
/// tests use 8 MB; large kernels need more).
const WORKER_STACK: usize = 256 * 1024 * 1024;

/// The last panic message, recorded by the panic hook.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn usage() -> ! {
    eprintln!(
        "usage:\n  transpiler-harness compile [REQUESTS.json | -] [-o RESULTS.json]\n  \
         transpiler-harness list FILE.rs [-o RESULT.json]"
    );
    std::process::exit(64);
}

fn harness_id() -> Value {
    json!({
        "name": env!("CARGO_PKG_NAME"),
        "version": env!("CARGO_PKG_VERSION"),
        "cutile": "0.5.0",
    })
}

/// Makes sure `cutile::core` is linked into `CUTILE_MODULES` (kernels resolve
/// `use cutile::core::*` through that link-time registry).
fn check_registry() -> Result<(), String> {
    // Naming the builder keeps the `cutile::core` object (and its registry
    // entry) from being discarded by the linker.
    std::hint::black_box(cutile::core::__module_ast_self as fn() -> _);
    let registered: Vec<&str> = cutile::cutile_compiler::registry::CUTILE_MODULES
        .iter()
        .map(|e| e.absolute_path)
        .collect();
    if registered.contains(&"cutile::core") {
        Ok(())
    } else {
        Err(format!(
            "cutile::core is missing from the CUTILE_MODULES registry (found {registered:?}); \
             the harness binary was linked without it"
        ))
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".to_string());
    match LAST_PANIC.lock().ok().and_then(|mut g| g.take()) {
        Some(recorded) => recorded,
        None => text,
    }
}

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-string payload".to_string());
        let text = match info.location() {
            Some(loc) => format!(
                "compiler panicked at {}:{}: {message}",
                loc.file(),
                loc.line()
            ),
            None => format!("compiler panicked: {message}"),
        };
        if std::env::var_os("TRANSPILER_HARNESS_VERBOSE").is_some() {
            eprintln!("{text}");
        }
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(text);
        }
    }));
}

/// A batch after normalisation.
struct Batch {
    requests: Vec<Result<Request, ErrorJson>>,
    ids: Vec<Value>,
    out_dir: PathBuf,
}

fn parse_batch(text: &str) -> Result<Batch, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let (raw, file, out_dir) = match doc {
        Value::Array(items) => (items, None, None),
        Value::Object(mut map) if map.contains_key("requests") => {
            let requests = match map.remove("requests") {
                Some(Value::Array(items)) => items,
                _ => return Err("\"requests\" must be a list".to_string()),
            };
            let file = map.remove("file");
            let out_dir = map.remove("out_dir");
            if let Some(key) = map.keys().next() {
                return Err(format!(
                    "unknown top-level key {key:?} (expected file, out_dir, requests)"
                ));
            }
            (requests, file, out_dir)
        }
        object @ Value::Object(_) => (vec![object], None, None),
        _ => return Err("expected a request object, a list, or {\"requests\": [...]}".into()),
    };
    let out_dir = match out_dir {
        Some(Value::String(dir)) => PathBuf::from(dir),
        Some(_) => return Err("\"out_dir\" must be a string".to_string()),
        None => std::env::temp_dir().join("transpiler-harness"),
    };
    let mut requests = Vec::new();
    let mut ids = Vec::new();
    for mut item in raw {
        ids.push(item.get("id").cloned().unwrap_or(Value::Null));
        if let (Value::Object(map), Some(file)) = (&mut item, &file) {
            map.entry("file").or_insert_with(|| file.clone());
        }
        requests.push(
            serde_json::from_value::<Request>(item)
                .map_err(|e| ErrorJson::new("request", format!("bad request: {e}"))),
        );
    }
    Ok(Batch {
        requests,
        ids,
        out_dir,
    })
}

fn default_out(out_dir: &Path, request: &Request, index: usize) -> PathBuf {
    let stem = request
        .file
        .as_ref()
        .and_then(|f| f.file_stem())
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "kernel".to_string());
    let module = request.module.clone().unwrap_or_else(|| "_".to_string());
    out_dir.join(format!(
        "{stem}.{module}.{}.{index}.tileirbc",
        request.entry
    ))
}

fn run_one(
    request: &Request,
    index: usize,
    out_dir: &Path,
    cache: &mut HashMap<PathBuf, SourceFile>,
) -> Result<Value, ErrorJson> {
    let Some(file) = request.file.clone() else {
        return Err(ErrorJson::new("request", "missing \"file\""));
    };
    if !cache.contains_key(&file) {
        let loaded = SourceFile::load(&file)?;
        cache.insert(file.clone(), loaded);
    }
    let source = &cache[&file];
    let out = default_out(out_dir, request, index);
    let success = compile_request(request, source, &out)?;
    serde_json::to_value(success).map_err(|e| ErrorJson::new("io", e.to_string()))
}

fn compile_batch(batch: Batch) -> Value {
    let mut cache: HashMap<PathBuf, SourceFile> = HashMap::new();
    let mut results = Vec::new();
    for (index, (request, id)) in batch.requests.into_iter().zip(batch.ids).enumerate() {
        let start = Instant::now();
        let outcome = match request {
            Err(err) => Err(err),
            Ok(request) => {
                let attempt = panic::catch_unwind(AssertUnwindSafe(|| {
                    run_one(&request, index, &batch.out_dir, &mut cache)
                }));
                match attempt {
                    Ok(result) => result,
                    Err(payload) => {
                        // A panic may leave a half-built cache entry behind.
                        if let Some(file) = &request.file {
                            cache.remove(file);
                        }
                        Err(ErrorJson::new("panic", panic_message(payload.as_ref())))
                    }
                }
            }
        };
        let mut record = json!({ "index": index, "id": id, "elapsed_ms": elapsed_ms(start) });
        let map = record.as_object_mut().expect("object");
        match outcome {
            Ok(Value::Object(fields)) => {
                map.insert("ok".into(), Value::Bool(true));
                map.extend(fields);
            }
            Ok(other) => {
                map.insert("ok".into(), Value::Bool(true));
                map.insert("value".into(), other);
            }
            Err(err) => {
                map.insert("ok".into(), Value::Bool(false));
                map.insert(
                    "error".into(),
                    serde_json::to_value(err).expect("error json"),
                );
            }
        }
        results.push(record);
    }
    json!({ "harness": harness_id(), "results": results })
}

fn list_file(path: &Path) -> Value {
    match SourceFile::load(path) {
        Err(err) => json!({ "harness": harness_id(), "ok": false, "error": ErrorJson::from(err) }),
        Ok(source) => {
            let modules: Vec<Value> = source
                .modules
                .iter()
                .map(|m| {
                    let entries: Vec<Value> = m
                        .entries()
                        .iter()
                        .map(|f| {
                            json!({
                                "name": f.sig.ident.to_string(),
                                "unsafe": f.sig.unsafety.is_some(),
                                "generics": generic_info(f),
                                "params": param_info(f),
                            })
                        })
                        .collect();
                    json!({
                        "name": m.name,
                        "path": m.path_in_file,
                        "line": m.line,
                        "column": m.column,
                        "entries": entries,
                    })
                })
                .collect();
            json!({ "harness": harness_id(), "ok": true, "file": source.path, "modules": modules })
        }
    }
}

fn read_input(arg: Option<&str>) -> Result<String, String> {
    match arg {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            Ok(text)
        }
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}")),
    }
}

fn emit(value: &Value, output: Option<&str>) {
    let text = serde_json::to_string_pretty(value).expect("json");
    match output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text + "\n") {
                eprintln!("cannot write {path}: {e}");
                std::process::exit(74);
            }
        }
        None => println!("{text}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional: Vec<&str> = Vec::new();
    let mut output: Option<&str> = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-o" | "--output" => {
                output = Some(iter.next().map(|s| s.as_str()).unwrap_or_else(|| usage()))
            }
            "-h" | "--help" => usage(),
            other => positional.push(other),
        }
    }
    let command = positional
        .first()
        .copied()
        .unwrap_or_else(|| usage())
        .to_string();
    let operand = positional.get(1).copied().map(str::to_string);
    let output = output.map(str::to_string);
    install_panic_hook();

    let worker = std::thread::Builder::new()
        .name("harness".to_string())
        .stack_size(WORKER_STACK)
        .spawn(move || -> (Value, i32) {
            if let Err(message) = check_registry() {
                return (json!({ "harness": harness_id(), "fatal": message }), 70);
            }
            match command_kind(&command) {
                Some(Command::Compile) => {
                    match read_input(operand.as_deref()).and_then(|t| parse_batch(&t)) {
                        Ok(batch) => (compile_batch(batch), 0),
                        Err(message) => (json!({ "harness": harness_id(), "fatal": message }), 65),
                    }
                }
                Some(Command::List) => match operand {
                    Some(path) => (list_file(Path::new(&path)), 0),
                    None => usage(),
                },
                None => usage(),
            }
        })
        .expect("spawn worker thread");
    let (value, code) = worker.join().unwrap_or_else(|payload| {
        let message = panic_message(payload.as_ref());
        (json!({ "harness": harness_id(), "fatal": message }), 70)
    });
    emit(&value, output.as_deref());
    std::process::exit(code);
}

enum Command {
    Compile,
    List,
}

fn command_kind(name: &str) -> Option<Command> {
    match name {
        "compile" => Some(Command::Compile),
        "list" => Some(Command::List),
        _ => None,
    }
}
