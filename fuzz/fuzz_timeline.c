/* Fuzzes the reader of the engine's TIMELINE lines (engine_event_parse: cuzk-bench timeline reads saved logs
 * with it). Properties: no crash, hang or leak; every rejection carries a message; an accepted line's event
 * formats (engine_event_format) to a line that reads back and formats to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    cuzk_error err;
    err.msg[0] = 0;
    engine_event ev, again;
    if (engine_event_parse(text, &ev, &err) != CUZK_OK) {
        FUZZ_CHECK(err.msg[0] != 0);
    } else {
        char line[ENGINE_EVENT_LINE_MAX], line2[ENGINE_EVENT_LINE_MAX], line3[ENGINE_EVENT_LINE_MAX];
        size_t n = engine_event_format(&ev, line, sizeof line);
        FUZZ_CHECK(n < sizeof line && n == strlen(line) && line[n - 1] == '\n');
        FUZZ_CHECK(engine_event_parse(line, &again, &err) == CUZK_OK && again.type == ev.type);
        FUZZ_CHECK(again.job_id == ev.job_id && again.partition == ev.partition && again.worker == ev.worker);
        engine_event_format(&again, line2, sizeof line2);
        FUZZ_CHECK(engine_event_parse(line2, &again, &err) == CUZK_OK);
        engine_event_format(&again, line3, sizeof line3);
        FUZZ_CHECK(strcmp(line2, line3) == 0);
    }
    free(text);
    return 0;
}
