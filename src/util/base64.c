#include "util/base64.h"

#include <stdlib.h>

static const char BASE64_ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void base64_encode(char *out, const uint8_t *in, size_t n)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t w = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = BASE64_ALPHABET[w >> 18];
        *out++ = BASE64_ALPHABET[(w >> 12) & 63];
        *out++ = BASE64_ALPHABET[(w >> 6) & 63];
        *out++ = BASE64_ALPHABET[w & 63];
    }
    if (i < n) {
        uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *out++ = BASE64_ALPHABET[w >> 18];
        *out++ = BASE64_ALPHABET[(w >> 12) & 63];
        *out++ = i + 1 < n ? BASE64_ALPHABET[(w >> 6) & 63] : '=';
        *out++ = '=';
    }
}

static int base64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

cuzk_status base64_decode(uint8_t **out, size_t *outlen, const char *text, size_t n, cuzk_error *err)
{
    *out = NULL;
    *outlen = 0;
    if (n % 4) return cuzk_error_set(err, CUZK_ERR_FORMAT, "base64: length %zu is not a multiple of 4", n);
    uint8_t *buf = malloc(n / 4 * 3 + 1);
    if (!buf) return cuzk_error_set(err, CUZK_ERR_NOMEM, "base64: out of memory for %zu bytes", n / 4 * 3);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        const char *q = text + i;
        int pad = q[3] == '=' ? (q[2] == '=' ? 2 : 1) : 0;
        if (pad && i + 4 != n) {
            free(buf);
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "base64: padding at character %zu before the end", i);
        }
        uint32_t w = 0;
        for (int k = 0; k < 4; k++) {
            int v = k < 4 - pad ? base64_value(q[k]) : 0;
            if (v < 0) {
                free(buf);
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "base64: character %zu (0x%02x) is not base64",
                                      i + (size_t)k, (unsigned char)q[k]);
            }
            w = w << 6 | (uint32_t)v;
        }
        if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff))) {
            free(buf);
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "base64: non-zero bits under the padding at character %zu", i);
        }
        buf[o++] = (uint8_t)(w >> 16);
        if (pad < 2) buf[o++] = (uint8_t)(w >> 8);
        if (pad < 1) buf[o++] = (uint8_t)w;
    }
    *out = buf;
    *outlen = o;
    return CUZK_OK;
}
