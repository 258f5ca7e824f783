/* The identity of a SubmitProofRequest: which proof it asks for, independent of its request_id and priority.
 * A request whose request_id names a known job joins that job only when their digests are equal (docs/DAEMON.md,
 * "request_id"); Curio reuses a sector's id when it retries with new inputs. */
#ifndef CUZK_DAEMON_REQUEST_DIGEST_H
#define CUZK_DAEMON_REQUEST_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/v1/proving.pb-c.h"

#define DAEMON_REQUEST_DIGEST_BYTES 32

/* In two parts, so that the pass over a large C1 can run off the server loop: the "head" digest covers
 * proof_kind, sector_size, registered_proof and every payload field but vanilla_proof (each of vanilla_proofs,
 * sector_number, miner_id, randomness, partition_index, comm_r_old, comm_r_new, comm_d_new, circuit,
 * partitions), in that order, each as its field number, then its length and bytes (integers as 8-byte
 * little-endian), so that no two different requests share an encoding; the digest of the request is then
 * SHA-256 of the head and vanilla_proof, length-prefixed. request_id and priority are not part of it. */
void daemon_request_digest_head(const Cuzk__V1__SubmitProofRequest *rq, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES]);
void daemon_request_digest_finish(const uint8_t head[DAEMON_REQUEST_DIGEST_BYTES], const uint8_t *vanilla_proof,
                                  size_t len, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES]);

#endif
