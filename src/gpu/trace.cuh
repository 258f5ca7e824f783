/* Spans of device work for CUZK_GPU_TRACE (gpu_tune.trace, trace.cu): a span is an event recorded on a stream when
 * its work is queued and one when it has been queued to the end, so that tracing adds no host synchronization (the
 * profile's per-round syncs slowed what it measured by ~10 %). gpu_trace_flush appends the spans that have ended
 * on the device to the trace file, one line each with its start and end in ms from the device's first span, then a
 * summary: the window they cover, how long some copy was running in it (the bus) and how long each stream was busy.
 * Off (the default), begin returns -1 at the cost of one read of the tuning. */
#ifndef CUZK_GPU_TRACE_CUH
#define CUZK_GPU_TRACE_CUH

#include <cuda_runtime.h>
#include <stddef.h>

/* A span of work named name (a string literal: kept, not copied) over n elements, begun on stream s of the current
 * device: its id, or -1 when tracing is off or an event could not be made. Names that begin with "copy" are
 * host-to-device copies. */
int gpu_trace_begin(cudaStream_t s, const char *name, size_t n);
/* Ends span id (begun on s; -1: nothing) once s's work queued so far has run. */
void gpu_trace_end(int id, cudaStream_t s);
/* Writes the ended spans of device to the trace file under label (e.g. "partition 12"), without waiting for any. */
void gpu_trace_flush(int device, const char *label);

#endif
