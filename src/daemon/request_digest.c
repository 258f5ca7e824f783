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

void daemon_request_digest_head(const Cuzk__V1__SubmitProofRequest *rq, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES])
{
    sha256_ctx h;
    sha256_init(&h);
    static const char domain[] = "cuzk.v1.SubmitProofRequest head 1";
    sha256_update(&h, domain, sizeof(domain) - 1);
    digest_int(&h, 2, (uint64_t)rq->proof_kind);
    digest_int(&h, 3, rq->sector_size);
    digest_int(&h, 4, rq->registered_proof);
    digest_int(&h, 11, (uint64_t)rq->n_vanilla_proofs);
    for (size_t i = 0; i < rq->n_vanilla_proofs; i++)
        digest_bytes(&h, 11, rq->vanilla_proofs[i].data, rq->vanilla_proofs[i].len);
    digest_int(&h, 20, rq->sector_number);
    digest_int(&h, 21, rq->miner_id);
    digest_bytes(&h, 22, rq->randomness.data, rq->randomness.len);
    digest_int(&h, 23, rq->partition_index);
    digest_bytes(&h, 30, rq->comm_r_old.data, rq->comm_r_old.len);
    digest_bytes(&h, 31, rq->comm_r_new.data, rq->comm_r_new.len);
    digest_bytes(&h, 32, rq->comm_d_new.data, rq->comm_d_new.len);
    const char *circuit = rq->circuit ? rq->circuit : "";
    digest_bytes(&h, 100, circuit, strlen(circuit));
    digest_int(&h, 101, rq->partitions);
    sha256_final(&h, out);
}

void daemon_request_digest_finish(const uint8_t head[DAEMON_REQUEST_DIGEST_BYTES], const uint8_t *vanilla_proof,
                                  size_t len, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES])
{
    sha256_ctx h;
    sha256_init(&h);
    static const char domain[] = "cuzk.v1.SubmitProofRequest digest 1";
    sha256_update(&h, domain, sizeof(domain) - 1);
    sha256_update(&h, head, DAEMON_REQUEST_DIGEST_BYTES);
    digest_bytes(&h, 10, vanilla_proof, len);
    sha256_final(&h, out);
}
