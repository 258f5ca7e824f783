/* The input format of fuzz_kind_request, shared with gen_corpus (which writes its seeds): one request to the
 * proof-kind table as the daemon hands it over (engine_kind_input).
 *
 *   byte 0        the kind: index (mod count) into engine_kinds()
 *   bytes 1..40   registered_proof, sector_size, sector_number, miner_id (u64 LE each), partition_index and
 *                 partitions (u32 LE each); missing bytes read as 0
 *   then records  tag (1 byte), length (u32 LE), bytes; a length past the end takes the rest. Tags: vanilla_proof,
 *                 a vanilla_proofs entry (appended; at most KIND_REQ_MAX_PROOFS, the rest ignored), randomness,
 *                 comm_r_old, comm_r_new, comm_d_new, circuit (a spec text: the bytes up to a NUL, copied and
 *                 terminated). A later record of a single field replaces the earlier one. */
#ifndef CUZK_FUZZ_KIND_REQUEST_H
#define CUZK_FUZZ_KIND_REQUEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/kind.h"

enum {
    KIND_REQ_VANILLA = 0,
    KIND_REQ_VANILLA_ENTRY = 1,
    KIND_REQ_RANDOMNESS = 2,
    KIND_REQ_COMM_R_OLD = 3,
    KIND_REQ_COMM_R_NEW = 4,
    KIND_REQ_COMM_D_NEW = 5,
    KIND_REQ_CIRCUIT = 6,
    KIND_REQ_HEADER = 41, /* the kind byte and the six numbers */
    KIND_REQ_MAX_PROOFS = 64,
};

/* A decoded request: in borrows from the input, proofs[] and circuit (owned; kind_request_free). */
typedef struct kind_request {
    unsigned kind_index;
    engine_kind_input in;
    engine_bytes proofs[KIND_REQ_MAX_PROOFS];
    char *circuit;
} kind_request;

static inline uint64_t kind_req_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Decodes data into *r (never fails: every input is some request). */
static inline void kind_request_decode(const uint8_t *data, size_t size, kind_request *r)
{
    memset(r, 0, sizeof *r);
    uint8_t head[KIND_REQ_HEADER];
    memset(head, 0, sizeof head);
    memcpy(head, data, size < sizeof head ? size : sizeof head);
    r->kind_index = head[0];
    r->in.registered_proof = kind_req_le(head + 1, 8);
    r->in.sector_size = kind_req_le(head + 9, 8);
    r->in.sector_number = kind_req_le(head + 17, 8);
    r->in.miner_id = kind_req_le(head + 25, 8);
    r->in.partition_index = (uint32_t)kind_req_le(head + 33, 4);
    r->in.partitions = (uint32_t)kind_req_le(head + 37, 4);
    r->in.vanilla_proofs = r->proofs;
    for (size_t o = sizeof head; o < size;) {
        uint8_t tag = data[o++];
        uint8_t lb[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4 && o < size; i++) lb[i] = data[o++];
        size_t len = (size_t)kind_req_le(lb, 4);
        if (len > size - o) len = size - o;
        engine_bytes b = {data + o, len};
        o += len;
        switch (tag) {
        case KIND_REQ_VANILLA: r->in.vanilla_proof = b; break;
        case KIND_REQ_VANILLA_ENTRY:
            if (r->in.n_vanilla_proofs < KIND_REQ_MAX_PROOFS) r->proofs[r->in.n_vanilla_proofs++] = b;
            break;
        case KIND_REQ_RANDOMNESS: r->in.randomness = b; break;
        case KIND_REQ_COMM_R_OLD: r->in.comm_r_old = b; break;
        case KIND_REQ_COMM_R_NEW: r->in.comm_r_new = b; break;
        case KIND_REQ_COMM_D_NEW: r->in.comm_d_new = b; break;
        case KIND_REQ_CIRCUIT: {
            size_t n = strnlen((const char *)b.data, b.len);
            char *c = (char *)malloc(n + 1);
            if (c) {
                memcpy(c, b.data, n);
                c[n] = 0;
            }
            free(r->circuit);
            r->circuit = c;
            r->in.circuit = c;
            break;
        }
        default: break;
        }
    }
}

static inline void kind_request_free(kind_request *r)
{
    free(r->circuit);
    r->circuit = NULL;
}

/* Writers for gen_corpus: the header into out[KIND_REQ_HEADER], and one record at *pos of buf (cap bytes); a
 * record that does not fit is dropped and *pos left as it was (returns -1). */
static inline void kind_request_header(uint8_t out[KIND_REQ_HEADER], unsigned kind_index, const engine_kind_input *in)
{
    const uint64_t v[4] = {in->registered_proof, in->sector_size, in->sector_number, in->miner_id};
    out[0] = (uint8_t)kind_index;
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < 8; i++) out[1 + 8 * f + i] = (uint8_t)(v[f] >> (8 * i));
    for (int i = 0; i < 4; i++) {
        out[33 + i] = (uint8_t)(in->partition_index >> (8 * i));
        out[37 + i] = (uint8_t)(in->partitions >> (8 * i));
    }
}

static inline int kind_request_record(uint8_t *buf, size_t cap, size_t *pos, uint8_t tag, const void *data, size_t len)
{
    if (len > 0xffffffffu || cap - *pos < 5 + len) return -1;
    buf[(*pos)++] = tag;
    for (int i = 0; i < 4; i++) buf[(*pos)++] = (uint8_t)(len >> (8 * i));
    if (len) memcpy(buf + *pos, data, len);
    *pos += len;
    return 0;
}

#endif
