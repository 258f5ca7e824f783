/* The .params layout bellperson's generator writes for a PoRep partition circuit (filecoin_params_porep_layout),
 * and the section reader (filecoin_params_read_layout) on files written by cuzk's own writer, whole and damaged.
 * 32 GiB (CUZK_SLOW_TESTS=1: ~15 s, ~1 GB): the densities Curio's cuzk measured on the real circuit (a_aux
 * 129,753,292, b_input 1, b_aux 33,112,281 of 130,169,893 aux) give h 134,217,727, l 130,169,893, a 129,753,620,
 * b_g1 = b_g2 = 33,112,282 and 47,373,928,632 bytes in all. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/filecoin_params.h"
#include "groth16/groth16.h"
#include "testutil.h"

static cuzk_error err;

static void test_reader(void)
{
    /* x * x = y with y public: ic 2, 2 constraints (1 + 1 input constraint... the writer decides), read back. */
    r1cs cs;
    CHECK(r1cs_create(&cs, 0, &err) == CUZK_OK);
    r1cs_var x, y;
    CHECK(r1cs_alloc_input(&cs, NULL, &y, &err) == CUZK_OK);
    CHECK(r1cs_alloc_aux(&cs, NULL, &x, &err) == CUZK_OK);
    r1cs_lc a, c;
    r1cs_lc_init(&a), r1cs_lc_init(&c);
    CHECK(r1cs_lc_add(&a, x, NULL, &err) == CUZK_OK);
    CHECK(r1cs_lc_add(&c, y, NULL, &err) == CUZK_OK);
    CHECK(r1cs_enforce(&cs, &a, &a, &c, &err) == CUZK_OK);
    CHECK(r1cs_finalize(&cs, &err) == CUZK_OK);
    groth16_params p;
    CHECK(groth16_setup(NULL, &cs, &p, &err) == CUZK_OK);
    char path[] = "/tmp/cuzk-layout-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(groth16_params_write(NULL, &p, path, &err) == CUZK_OK);
    filecoin_params_layout lo;
    uint64_t bytes;
    CHECK(filecoin_params_read_layout(path, &lo, &bytes, &err) == CUZK_OK);
    CHECK(lo.ic == p.vk.ic_len && lo.h == p.h_len && lo.l == p.l_len && lo.a == p.a_len && lo.b_g1 == p.b_g1_len &&
          lo.b_g2 == p.b_g2_len);
    CHECK(bytes == filecoin_params_file_bytes(&lo) && bytes == groth16_params_file_size(&p));
    /* One byte more or less: named. */
    size_t len;
    uint8_t *buf = test_read_file(path, &len);
    CHECK(buf && test_write_file(path, buf, len - 1) == 0);
    CHECK(filecoin_params_read_layout(path, &lo, &bytes, &err) == CUZK_ERR_TRUNCATED && strstr(err.msg, "b_g2"));
    buf[len] = 0;
    CHECK(test_write_file(path, buf, len + 1) == 0);
    CHECK(filecoin_params_read_layout(path, &lo, &bytes, &err) == CUZK_ERR_FORMAT && strstr(err.msg, "1 bytes after"));
    CHECK(test_write_file(path, buf, 100) == 0);
    CHECK(filecoin_params_read_layout(path, &lo, &bytes, &err) == CUZK_ERR_TRUNCATED && strstr(err.msg, "ic"));
    free(buf);
    unlink(path);
    CHECK(filecoin_params_read_layout(path, &lo, &bytes, &err) == CUZK_ERR_IO);
    groth16_params_free(&p);
    r1cs_lc_free(&a), r1cs_lc_free(&c);
    r1cs_free(&cs);
}

/* 2 KiB (2 challenges: the 2-challenge shape is the circuit itself, so nothing is extrapolated) against the
 * densities of the circuit compiled whole. */
static void test_2kib(void)
{
    filecoin_params_layout lo;
    CHECK(filecoin_params_porep_layout(2048, &lo, &err) == CUZK_OK);
    printf("2 KiB: ic %llu h %llu l %llu a %llu b_g1 %llu b_g2 %llu, %llu bytes\n", (unsigned long long)lo.ic,
           (unsigned long long)lo.h, (unsigned long long)lo.l, (unsigned long long)lo.a, (unsigned long long)lo.b_g1,
           (unsigned long long)lo.b_g2, (unsigned long long)filecoin_params_file_bytes(&lo));
    CHECK(lo.ic == 40 && lo.h == (1u << 22) - 1 && lo.l == 2685673);
    CHECK(lo.b_g1 == lo.b_g2 && lo.a > lo.ic && lo.a <= lo.ic + lo.l);
    CHECK(filecoin_params_vk_bytes(lo.ic) == 4708); /* the published 2 KiB .vk's size */
    CHECK(filecoin_params_porep_layout(4096, &lo, &err) == CUZK_ERR_INVALID_ARG);
}

static void test_32gib(void)
{
    if (!getenv("CUZK_SLOW_TESTS") || strcmp(getenv("CUZK_SLOW_TESTS"), "1") != 0) {
        printf("32 GiB layout skipped (~15 s, ~1 GB; CUZK_SLOW_TESTS=1 runs it)\n");
        return;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    filecoin_params_layout lo;
    CHECK(filecoin_params_porep_layout(32ull << 30, &lo, &err) == CUZK_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("32 GiB: a %llu b_g1 %llu, %llu bytes (%.1f s)\n", (unsigned long long)lo.a, (unsigned long long)lo.b_g1,
           (unsigned long long)filecoin_params_file_bytes(&lo),
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    CHECK(lo.ic == 328 && lo.h == 134217727 && lo.l == 130169893);
    CHECK_MSG(lo.a == 129753620, "a %llu: A's aux density %llu, want 129,753,292", (unsigned long long)lo.a,
              (unsigned long long)(lo.a - 328));
    CHECK_MSG(lo.b_g1 == 33112282 && lo.b_g2 == 33112282, "b %llu, want 1 + 33,112,281", (unsigned long long)lo.b_g1);
    CHECK(filecoin_params_file_bytes(&lo) == 47373928632ull);
    CHECK(filecoin_params_vk_bytes(lo.ic) == 32356);
}

int main(void)
{
    test_reader();
    test_2kib();
    test_32gib();
    return test_finish("params_layout");
}
