/* fuzz_cli_text.c - what the CLI writes on its own lines from hostile text (cli_put_text), and a
 * program's output on a terminal (cli_put_output, newlines and tabs kept), steers
 * no terminal: whatever the bytes, the output is valid UTF-8, one line, with no C0 or C1
 * control, no DEL and no bidirectional control, and every byte of the input is either copied or
 * written as an escape. The output is decoded with glibc's own UTF-8 decoder (mbrtowc), not with
 * the code under test. util.c is included: the CLI's sources are not in the library. */
#include "cli/util.c"

#include <locale.h>
#include <wchar.h>

#define FUZZ_TARGET "fuzz_cli_text"
#include "fuzz_must.h"

static bool bidi_control(wchar_t c)
{
    return c == 0x61c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    must(setlocale(LC_CTYPE, "C.UTF-8") != NULL, "no C.UTF-8 locale to decode with");
    return 0;
}

/* The output decodes as UTF-8 and holds no control character but, with keep_lines, newline
 * and tab; nothing of the input is dropped (escapes only grow). */
static void check_output(const char *out, size_t out_len, size_t in_len, bool keep_lines)
{
    mbstate_t st;
    memset(&st, 0, sizeof(st));
    for (size_t i = 0; i < out_len;) {
        wchar_t c = 0;
        size_t n = mbrtowc(&c, out + i, out_len - i, &st);
        must(n != (size_t)-1 && n != (size_t)-2 && n != 0, "output is not valid UTF-8");
        bool line = keep_lines && (c == '\n' || c == '\t');
        must(line || !(c < 0x20 || c == 0x7f), "a C0 control or DEL in the output");
        must(!(c >= 0x80 && c <= 0x9f), "a C1 control in the output");
        must(!bidi_control(c), "a bidirectional control in the output");
        i += n;
    }
    must(out_len >= in_len, "output shorter than the input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    must(in != NULL, "out of memory");
    memcpy(in, data, size);
    in[size] = '\0'; /* the text ends at its first NUL, as a C string does */
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    must(f != NULL, "open_memstream");
    cli_put_text(f, in);
    must(fclose(f) == 0, "fclose");
    check_output(out, out_len, strlen(in), false);
    free(out);
    /* A program's output on a terminal: every byte, NULs included, newlines and tabs kept. */
    out = NULL;
    out_len = 0;
    f = open_memstream(&out, &out_len);
    must(f != NULL, "open_memstream");
    cli_put_output(f, data, size);
    must(fclose(f) == 0, "fclose");
    check_output(out, out_len, size, true);
    free(out);
    free(in);
    return 0;
}
