#include "daemon/request_digest.h"

#include <string.h>

#include "circuits/hash/sha256.h"

static void digest_u64(sha256_ctx *h, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    sha256_update(h, b, sizeof(b));
}

/* Field number, length, bytes: a field cannot run into the next. */
static void digest_bytes(sha256_ctx *h, uint32_t field, const void *data, size_t len)
{
    digest_u64(h, field);
    digest_u64(h, (uint64_t)len);
    if (len) sha256_update(h, data, len);
}

static void digest_int(sha256_ctx *h, uint32_t field, uint64_t v)
{
    digest_u64(h, field);
    digest_u64(h, 8);
    digest_u64(h, v);
}

/* The field numbers are proving.proto's. */
void daemon_request_digest_head(int kind, const engine_kind_input *in, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES])
{
    sha256_ctx h;
    sha256_init(&h);
    static const char domain[] = "cuzk.v1.SubmitProofRequest head 2";
    sha256_update(&h, domain, sizeof(domain) - 1);
    digest_int(&h, 2, (uint64_t)kind);
    digest_int(&h, 3, in->sector_size);
    digest_int(&h, 4, in->registered_proof);
    digest_int(&h, 20, in->sector_number);
    digest_int(&h, 21, in->miner_id);
    digest_int(&h, 23, in->partition_index);
    digest_bytes(&h, 22, in->randomness.data, in->randomness.len);
    digest_bytes(&h, 30, in->comm_r_old.data, in->comm_r_old.len);
    digest_bytes(&h, 31, in->comm_r_new.data, in->comm_r_new.len);
    digest_bytes(&h, 32, in->comm_d_new.data, in->comm_d_new.len);
    const char *circuit = in->circuit ? in->circuit : "";
    digest_bytes(&h, 100, circuit, strlen(circuit));
    digest_int(&h, 101, in->partitions);
    sha256_final(&h, out);
}

void daemon_request_digest_finish(const uint8_t head[DAEMON_REQUEST_DIGEST_BYTES], const engine_kind_input *in,
                                  uint8_t out[DAEMON_REQUEST_DIGEST_BYTES])
{
    sha256_ctx h;
    sha256_init(&h);
    static const char domain[] = "cuzk.v1.SubmitProofRequest digest 2";
    sha256_update(&h, domain, sizeof(domain) - 1);
    sha256_update(&h, head, DAEMON_REQUEST_DIGEST_BYTES);
    digest_bytes(&h, 10, in->vanilla_proof.data, in->vanilla_proof.len);
    digest_int(&h, 11, (uint64_t)in->n_vanilla_proofs);
    for (size_t i = 0; i < in->n_vanilla_proofs; i++)
        digest_bytes(&h, 11, in->vanilla_proofs[i].data, in->vanilla_proofs[i].len);
    sha256_final(&h, out);
}
