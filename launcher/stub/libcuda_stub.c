/* A stand-in for the CUDA driver (libcuda.so.1) for measuring and testing the launchers on a
 * machine without a GPU (hand-written; not for real work).
 *
 * Takes the driver calls cutile 0.5.0 makes on the way to a launch (context, stream, module,
 * function, attribute and launch calls); gives success with plausible values (one device,
 * compute capability 9.0, 132 SMs) and does no device work. Kernels still compile for real
 * (cutile runs `tileiras`, found through CUTILE_TILEIRAS_PATH); the cubin is accepted and
 * ignored. Launches are counted and the last one is recorded (grid, block, and the argument
 * bytes when a parameter layout was given with stub_set_param_sizes), which is what the
 * launcher tests read back. cuFuncGetParamInfo answers from that layout, and says
 * CUDA_ERROR_NOT_SUPPORTED while none was given.
 *
 * Build:  cc -shared -fPIC -O2 -Wl,-soname,libcuda.so.1 -o DIR/libcuda.so.1 libcuda_stub.c
 * Use:    LD_LIBRARY_PATH=DIR (or load it first, by path, in the same process).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUevent;

#define OK 0
#define ERR_INVALID_VALUE 1
#define ERR_NOT_SUPPORTED 801
#define MAX_RECORDED 256

static char context_object;
static char module_object;
static char function_object;
static __thread CUcontext current_context;

static int param_count = -1;
static size_t param_sizes[MAX_RECORDED];
static uint64_t launches;
static unsigned last_grid[3], last_block[3], last_shared;
static void *last_stream;
static unsigned char last_params[MAX_RECORDED * 8];
static size_t last_params_len;

/* ---- test hooks ---- */
void stub_set_param_sizes(const unsigned char *sizes, int count) {
    if (count < 0 || count > MAX_RECORDED) { param_count = -1; return; }
    for (int i = 0; i < count; i++) param_sizes[i] = sizes[i];
    param_count = count;
}
uint64_t stub_launch_count(void) { return launches; }
/* grid[3], block[3], shared bytes, stream, and the argument bytes (sizes as configured). */
size_t stub_last_launch(unsigned *grid, unsigned *block, unsigned *shared, void **stream,
                        unsigned char *params, size_t capacity) {
    memcpy(grid, last_grid, sizeof last_grid);
    memcpy(block, last_block, sizeof last_block);
    *shared = last_shared;
    *stream = last_stream;
    size_t n = last_params_len < capacity ? last_params_len : capacity;
    memcpy(params, last_params, n);
    return last_params_len;
}

/* ---- initialization, devices, contexts ---- */
CUresult cuInit(unsigned flags) { (void)flags; return OK; }
CUresult cuDriverGetVersion(int *version) { *version = 13000; return OK; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return OK; }
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
    if (ordinal != 0) return ERR_INVALID_VALUE;
    *device = 0;
    return OK;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
    (void)device;
    switch (attribute) {
    case 75: *value = 9; break;    /* compute capability major */
    case 76: *value = 0; break;    /* compute capability minor */
    case 16: *value = 132; break;  /* multiprocessors */
    default: *value = 1;
    }
    return OK;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
    (void)device;
    strncpy(name, "Stub GPU (no device)", (size_t)length);
    if (length > 0) name[length - 1] = 0;
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
    (void)device;
    *bytes = (size_t)1 << 37;
    return OK;
}
CUresult cuDeviceGetUuid_v2(void *uuid, CUdevice device) {
    (void)device;
    memset(uuid, 0, 16);
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
    (void)device;
    *context = &context_object;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) { (void)device; return OK; }
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned *flags, int *active) {
    (void)device;
    *flags = 0;
    *active = 1;
    return OK;
}
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
    (void)device; (void)flags; return OK;
}
CUresult cuCtxGetCurrent(CUcontext *context) { *context = current_context; return OK; }
CUresult cuCtxSetCurrent(CUcontext context) { current_context = context; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }
CUresult cuCtxGetApiVersion(CUcontext context, unsigned *version) {
    (void)context;
    *version = 13000;
    return OK;
}
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0;
    *greatest = -5;
    return OK;
}
CUresult cuCtxGetLimit(size_t *value, int limit) { (void)limit; *value = 0; return OK; }
CUresult cuCtxSetLimit(int limit, size_t value) { (void)limit; (void)value; return OK; }
CUresult cuCtxSetFlags(unsigned flags) { (void)flags; return OK; }
CUresult cuGetErrorString(CUresult error, const char **text) {
    (void)error;
    *text = "error in the stub driver";
    return OK;
}
CUresult cuGetErrorName(CUresult error, const char **text) {
    (void)error;
    *text = "CUDA_ERROR_STUB";
    return OK;
}

/* ---- streams and events ---- */
CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
    (void)flags;
    *stream = malloc(16);
    return OK;
}
CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned flags, int priority) {
    (void)priority;
    return cuStreamCreate(stream, flags);
}
CUresult cuStreamDestroy_v2(CUstream stream) { free(stream); return OK; }
CUresult cuStreamSynchronize(CUstream stream) { (void)stream; return OK; }
CUresult cuStreamQuery(CUstream stream) { (void)stream; return OK; }
CUresult cuStreamIsCapturing(CUstream stream, int *status) {
    (void)stream;
    *status = 0;
    return OK;
}
CUresult cuStreamGetPriority(CUstream stream, int *priority) {
    (void)stream;
    *priority = 0;
    return OK;
}
CUresult cuStreamGetCtx(CUstream stream, CUcontext *context) {
    (void)stream;
    *context = &context_object;
    return OK;
}
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
    (void)stream; (void)event; (void)flags; return OK;
}
CUresult cuLaunchHostFunc(CUstream stream, void (*fn)(void *), void *data) {
    (void)stream;
    fn(data);
    return OK;
}
CUresult cuEventCreate(CUevent *event, unsigned flags) {
    (void)flags;
    *event = malloc(16);
    return OK;
}
CUresult cuEventDestroy_v2(CUevent event) { free(event); return OK; }
CUresult cuEventRecord(CUevent event, CUstream stream) { (void)event; (void)stream; return OK; }
CUresult cuEventQuery(CUevent event) { (void)event; return OK; }
CUresult cuEventSynchronize(CUevent event) { (void)event; return OK; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
    (void)start; (void)end;
    *ms = 0.0f;
    return OK;
}

/* ---- memory pools (queried, not used for launches) ---- */
CUresult cuDeviceGetDefaultMemPool(void **pool, CUdevice device) {
    (void)device;
    *pool = &context_object;
    return OK;
}
CUresult cuMemPoolGetAttribute(void *pool, int attribute, void *value) {
    (void)pool; (void)attribute;
    memset(value, 0, 8);
    return OK;
}
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
    (void)pool; (void)attribute; (void)value; return OK;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    *free_bytes = *total = (size_t)1 << 37;
    return OK;
}

/* ---- modules and functions ---- */
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
    (void)image;
    *module = &module_object;
    return OK;
}
CUresult cuModuleLoad(CUmodule *module, const char *path) {
    (void)path;
    *module = &module_object;
    return OK;
}
CUresult cuModuleUnload(CUmodule module) { (void)module; return OK; }
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
    (void)module; (void)name;
    *function = &function_object;
    return OK;
}
CUresult cuFuncGetAttribute(int *value, int attribute, CUfunction function) {
    (void)attribute; (void)function;
    *value = 0;
    return OK;
}
CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
    (void)function; (void)attribute; (void)value; return OK;
}
CUresult cuFuncSetCacheConfig(CUfunction function, int config) {
    (void)function; (void)config; return OK;
}
CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t *offset, size_t *size) {
    (void)function;
    if (param_count < 0) return ERR_NOT_SUPPORTED;
    if (index >= (size_t)param_count) return ERR_INVALID_VALUE;
    size_t at = 0;
    for (size_t i = 0; i < index; i++) at += param_sizes[i];
    *offset = at;
    *size = param_sizes[index];
    return OK;
}

/* ---- launches ---- */
CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream stream,
                        void **params, void **extra) {
    (void)function; (void)extra;
    launches++;
    last_grid[0] = gx; last_grid[1] = gy; last_grid[2] = gz;
    last_block[0] = bx; last_block[1] = by; last_block[2] = bz;
    last_shared = shared;
    last_stream = stream;
    last_params_len = 0;
    for (int i = 0; i < param_count && params; i++) {
        memcpy(last_params + last_params_len, params[i], param_sizes[i]);
        last_params_len += param_sizes[i];
    }
    return OK;
}
