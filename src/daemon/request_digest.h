/* The identity of a SubmitProofRequest: which proof it asks for, independent of its request_id and priority.
 * A request whose request_id names a known job joins that job only when their digests are equal (docs/DAEMON.md,
 * "request_id"); Curio reuses a sector's id when it retries with new inputs. */
#ifndef CUZK_DAEMON_REQUEST_DIGEST_H
#define CUZK_DAEMON_REQUEST_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "engine/kind.h"

#define DAEMON_REQUEST_DIGEST_BYTES 32

/* In two parts, so that the pass over large payloads (a 50 MB C1, a 58 MB WindowPoSt request) can run on the job
 * thread instead of the server loop. The "head" digest covers the proof kind and the small fields of the kind's
 * input (sector_size, registered_proof, sector_number, miner_id, partition_index, randomness, comm_r_old,
 * comm_r_new, comm_d_new, circuit, partitions), in that order; the digest of the request is then SHA-256 of the
 * head and the payloads (vanilla_proof, then the count of vanilla_proofs and each of them). Every field is written
 * as its number, its length and its bytes (integers as 8-byte little-endian), so that no two different requests
 * share an encoding. request_id and priority are not part of it: the same inputs at another priority are the
 * same proof. */
void daemon_request_digest_head(int kind, const engine_kind_input *in, uint8_t out[DAEMON_REQUEST_DIGEST_BYTES]);
void daemon_request_digest_finish(const uint8_t head[DAEMON_REQUEST_DIGEST_BYTES], const engine_kind_input *in,
                                  uint8_t out[DAEMON_REQUEST_DIGEST_BYTES]);

#endif
