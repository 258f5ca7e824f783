#include "util/hexbytes.h"

#include <string.h>

void hexbytes_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}

static int hexbytes_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

cuzk_status hexbytes_decode(uint8_t *out, size_t n, const char *text, const char *what, cuzk_error *err)
{
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text += 2;
    size_t len = strlen(text);
    if (len != 2 * n) return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu hex digits, expected %zu", what, len, 2 * n);
    for (size_t i = 0; i < n; i++) {
        int hi = hexbytes_digit(text[2 * i]), lo = hexbytes_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: character %zu is not a hex digit", what,
                                  2 * i + (hi < 0 ? 0 : 1));
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return CUZK_OK;
}
